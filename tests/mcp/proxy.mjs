// Loopback reverse proxy for the MCP conformance run (.ci/mcp-conformance.sh). The official
// conformance CLI's `server` mode sends no Authorization header (upstream issue #453), and
// Shipbase's /mcp answers 401 without one, so this proxy sits in front of Shipbase and adds
// `Authorization: Bearer <token>` to every request that carries none. Everything else passes
// through: method, path and query, headers, body (streamed), and the answer (status, headers and
// body, streamed chunk by chunk as it arrives, so SSE is never buffered).
//
// Host and Origin: the proxy's own authority (127.0.0.1:<proxy port>, or localhost:<proxy port>)
// is translated to the upstream's (127.0.0.1:<upstream port>) in the Host header and in an Origin
// of http://<that authority>, so that a request the client addressed to the proxy reaches Shipbase
// exactly as if the client had addressed Shipbase itself. Any other value (such as the
// dns-rebinding-protection scenario's `Host: evil.example.com` / `Origin: http://evil.example.com`)
// is forwarded byte for byte, so the server's own Host/Origin checks decide; the proxy never
// rejects or repairs a request. PRESERVE_HOST=1 turns the translation off (Host and Origin are then
// always forwarded verbatim, proxy port included).
//
//   MCP_PROXY_TOKEN=... node tests/mcp/proxy.mjs --upstream http://127.0.0.1:8080 \
//     [--port 0] [--port-file FILE]
//
// Plain node:http, no dependencies. Logs one line per request to stdout.

import http from 'node:http';
import fs from 'node:fs';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const upstream = new URL(arg('upstream', process.env.MCP_PROXY_UPSTREAM ?? ''));
const listenPort = Number(arg('port', '0'));
const portFile = arg('port-file', '');
const token = process.env.MCP_PROXY_TOKEN ?? '';
const preserveHost = process.env.PRESERVE_HOST === '1';
if (upstream.protocol !== 'http:' || !token) {
  console.error('usage: MCP_PROXY_TOKEN=... node proxy.mjs --upstream http://HOST:PORT [--port N] [--port-file FILE]');
  process.exit(2);
}

// Hop-by-hop headers (RFC 9110 §7.6.1) are for one connection only and are not forwarded.
const HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection',
  'te', 'trailer', 'transfer-encoding', 'upgrade']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost']);
const agent = new http.Agent({ keepAlive: true });
let ownPort = 0;

/** The proxy's own authority mapped to the upstream's; anything else unchanged. */
function mapAuthority(value) {
  if (preserveHost || typeof value !== 'string') return value;
  const m = /^([^:]+):(\d+)$/.exec(value.trim());
  if (!m || !LOOPBACK_NAMES.has(m[1].toLowerCase()) || Number(m[2]) !== ownPort) return value;
  return `${m[1]}:${upstream.port || 80}`;
}

function mapOrigin(value) {
  if (typeof value !== 'string' || !value.startsWith('http://')) return value;
  const rest = value.slice('http://'.length);
  const mapped = mapAuthority(rest);
  return mapped === rest ? value : `http://${mapped}`;
}

/** Request headers for upstream, as raw [name, value] pairs so repeated headers and case survive. */
function forwardHeaders(req) {
  const connectionTokens = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()));
  const out = [];
  let hasAuthorization = false;
  let hasHost = false;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    let value = req.rawHeaders[i + 1];
    const lower = name.toLowerCase();
    if (HOP.has(lower) || connectionTokens.has(lower)) continue;
    if (lower === 'host') {
      hasHost = true;
      value = mapAuthority(value);
    } else if (lower === 'origin') {
      value = mapOrigin(value);
    } else if (lower === 'authorization') {
      hasAuthorization = true;
    }
    out.push(name, value);
  }
  if (!hasHost) out.push('Host', upstream.host);
  if (!hasAuthorization) out.push('Authorization', `Bearer ${token}`);
  return out;
}

function responseHeaders(res) {
  const connectionTokens = new Set(String(res.headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()));
  const out = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const lower = res.rawHeaders[i].toLowerCase();
    if (HOP.has(lower) || connectionTokens.has(lower)) continue;
    out.push(res.rawHeaders[i], res.rawHeaders[i + 1]);
  }
  return out;
}

const server = http.createServer({ noDelay: true, requestTimeout: 0 }, (req, res) => {
  const started = Date.now();
  const host = req.headers.host ?? '';
  const origin = req.headers.origin ?? '';
  const mappedHost = mapAuthority(host);
  const upReq = http.request({
    agent,
    host: upstream.hostname,
    port: upstream.port || 80,
    method: req.method,
    path: req.url,
    headers: forwardHeaders(req),
    setHost: false,
  });
  let logged = false;
  const log = (status, note = '') => {
    if (logged) return;
    logged = true;
    const extra = [mappedHost !== host && `(sent as ${mappedHost})`, origin && `origin=${origin}`, note]
      .filter(Boolean).join(' ');
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} host=${host} ${extra} -> ${status} ` +
      `${Date.now() - started}ms`);
  };

  upReq.on('response', (upRes) => {
    res.writeHead(upRes.statusCode, upRes.statusMessage, responseHeaders(upRes));
    res.flushHeaders();
    log(upRes.statusCode, upRes.headers['content-type'] ?? '');
    upRes.on('data', (chunk) => {
      // write() hands each chunk to the socket at once (noDelay), so SSE events are not held back.
      if (!res.write(chunk)) {
        upRes.pause();
        res.once('drain', () => upRes.resume());
      }
    });
    upRes.on('end', () => res.end());
    upRes.on('error', () => res.destroy());
  });
  upReq.on('error', (err) => {
    log(502, `upstream error: ${err.message}`);
    if (res.headersSent) {
      res.destroy();
    } else {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: upstream ${upstream.host} failed: ${err.message}\n`);
    }
  });
  // The client went away (for example a scenario that cancels an SSE stream): drop the upstream too.
  res.on('close', () => {
    if (!res.writableFinished) upReq.destroy();
  });
  req.pipe(upReq);
});

server.listen(listenPort, '127.0.0.1', () => {
  ownPort = server.address().port;
  if (portFile) fs.writeFileSync(portFile, `${ownPort}\n`);
  console.log(`proxy listening on http://127.0.0.1:${ownPort} -> ${upstream.origin}` +
    (preserveHost ? ' (Host/Origin verbatim)' : ''));
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.closeAllConnections?.();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  });
}
