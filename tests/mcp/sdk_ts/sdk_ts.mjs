#!/usr/bin/env node
/**
 * End-to-end test of /mcp with the official TypeScript MCP SDK (npm @modelcontextprotocol/sdk, 1.x,
 * pinned in package-lock.json next to this file) as the client (run by .ci/mcp-sdk-ts.sh).
 *
 * The SDK's `Client` over its `StreamableHTTPClientTransport`, in the era that SDK line speaks:
 * the initialize handshake (2025-11-25) with an Mcp-Session-Id. No OAuth provider: the agent's
 * access token (benches/agent_token.py) goes in as `requestInit.headers.Authorization`. It
 *
 * - connects (initialize + notifications/initialized) and lists the tools: the ones below are
 *   there, every tool has an object inputSchema and an outputSchema;
 * - calls list_available_carriers: structuredContent is an object {"data": [...]} with the
 *   sandbox carrier type, checked by the SDK itself against the tool's outputSchema (its
 *   callTool validates with the validators it compiled from tools/list; a check makes sure that
 *   validator exists and is strict);
 * - creates a sender address, a sandbox carrier and a 2-parcel shipment, books it: two labels as
 *   resource links in a result under 8 KiB, and resources/read of the first gives a PDF;
 * - sends an unknown argument (nmae): an isError result with code validation_failed.
 *
 * Environment: BASE_URL, TOKEN (an OAuth access token of an agent), ORG_ID. MCP_SDK_VERBOSE=1
 * prints every HTTP exchange of the transport. Prints one `ok - ...` line per check, `not ok -
 * ...` on failure (with the HTTP exchanges that led there), a summary, and exits non-zero if any
 * check failed.
 */

import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`sdk_ts.mjs: ${name} is not set`);
    process.exit(2);
  }
  return value;
};
const BASE_URL = env('BASE_URL').replace(/\/+$/, '');
const TOKEN = env('TOKEN');
const ORG_ID = env('ORG_ID');
const MCP_URL = `${BASE_URL}/mcp`;
const VERBOSE = !['', '0'].includes(process.env.MCP_SDK_VERBOSE ?? '');
const TIMEOUT_S = Number(process.env.MCP_SDK_TIMEOUT ?? '120');

const HANDSHAKE_VERSION = '2025-11-25';
const REQUIRED_TOOLS = ['list_available_carriers', 'book_shipment', 'create_shipment', 'create_sender_address',
  'create_carrier'];
// The same address and shipment as tests/mcp/sdk_python.py.
const SENDER_ADDRESS = {
  name: 'SDK warehouse',
  attContact: 'Ada Lovelace',
  address1: 'Industrivej 12',
  zipcode: '8000',
  city: 'Aarhus',
  phone: '+4512345678',
  countryCode: 'DK',
  state: 'Midtjylland',
  email: 'warehouse@example.com',
};
const shipment = (addressId, carrierId) => ({
  reference: 'SDK-ts', senderAddressId: addressId, type: 'outbound',
  parties: [{ type: 'receiver', name: 'Jane Doe', address1: 'Storgatan 1', postalCode: '11122', city: 'Stockholm',
    countryCode: 'SE' }],
  carrierSettings: { carrierId, productId: 'standard' },
  parcels: [{ weight: 1.0 }, { weight: 2.5 }],
});

const passed = [];
const failed = [];

class CheckFailed extends Error {}

function indent(detail) {
  const text = typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2);
  return '  ' + String(text).replace(/\n/g, '\n  ');
}

function check(condition, description, detail) {
  if (condition) {
    passed.push(description);
    console.log(`ok - ${description}`);
    return;
  }
  failed.push(description);
  console.log(`not ok - ${description}`);
  if (detail !== undefined) console.log(indent(detail));
  throw new CheckFailed(description);
}

// --- HTTP transcript: every request of the transport, through its `fetch` option --------------

const exchanges = [];
const SHOWN_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'origin'];
const SHOWN_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'www-authenticate', 'x-request-id'];
const clip = (s, n = 2000) => (s && s.length > n ? `${s.slice(0, n)}…` : s);

function render(e) {
  const lines = [`> ${e.method} ${e.url}`];
  for (const [k, v] of Object.entries(e.requestHeaders)) lines.push(`> ${k}: ${v}`);
  if (e.requestBody) lines.push(`> ${clip(e.requestBody)}`);
  lines.push(`< ${e.status ?? '(no response)'}`);
  for (const [k, v] of Object.entries(e.responseHeaders ?? {})) lines.push(`< ${k}: ${v}`);
  if (e.responseBody) lines.push(`< ${clip(e.responseBody)}`);
  return lines.join('\n');
}

function dump(last = 12) {
  console.log(`# last ${Math.min(last, exchanges.length)} HTTP exchanges of the transport:`);
  for (const e of exchanges.slice(-last)) console.log('# ' + render(e).replace(/\n/g, '\n# '));
}

async function recordingFetch(input, init = {}) {
  const headers = new Headers(init.headers);
  const requestHeaders = {};
  for (const name of SHOWN_REQUEST_HEADERS) if (headers.has(name)) requestHeaders[name] = headers.get(name);
  const auth = headers.get('authorization');
  if (auth) requestHeaders.authorization = `${auth.split(' ')[0]} …${auth.slice(-8)}`;
  const body = typeof init.body === 'string' ? init.body : '';
  let jsonrpcMethod = null;
  try {
    jsonrpcMethod = body ? JSON.parse(body).method ?? null : null;
  } catch {
    // not JSON
  }
  const exchange = { method: init.method ?? 'GET', url: String(input), requestHeaders, requestBody: body,
    jsonrpcMethod, status: null, responseHeaders: {}, responseBody: null };
  exchanges.push(exchange);
  const response = await fetch(input, init);
  exchange.status = response.status;
  for (const name of SHOWN_RESPONSE_HEADERS) {
    if (response.headers.has(name)) exchange.responseHeaders[name] = response.headers.get(name);
  }
  // A POST's body (JSON or a finite SSE stream) is read from a copy; the GET stream is left alone.
  if (exchange.method !== 'GET' && response.body) {
    const copy = response.clone();
    exchange.bodyRead = copy.text().then((text) => { exchange.responseBody = text; }, () => {});
  }
  if (VERBOSE) {
    (exchange.bodyRead ?? Promise.resolve()).then(() => console.log('# ' + render(exchange).replace(/\n/g, '\n# ')));
  }
  return response;
}

// --- helpers ------------------------------------------------------------------------------------

const structured = (result) => (result?.structuredContent && typeof result.structuredContent === 'object'
  && !Array.isArray(result.structuredContent) ? result.structuredContent : {});

async function listAllTools(client) {
  const tools = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor && pages < 50);
  // Client.listTools compiles the outputSchema validators of the page it got (and forgets the
  // previous page's); with several pages, give it all of them.
  if (pages > 1) client.cacheToolMetadata(tools);
  return tools;
}

function sdkVersion() {
  try {
    const file = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
    return JSON.parse(fs.readFileSync(file, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

// --- the run ------------------------------------------------------------------------------------

async function run(info) {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    fetch: recordingFetch,
  });
  const client = new Client({ name: 'shipbase-sdk-ts', version: '1.0.0' });
  try {
    // 1. Connect and list the tools.
    await client.connect(transport);
    info.protocolVersion = transport.protocolVersion;
    info.server = client.getServerVersion();
    const tools = await listAllTools(client);
    const names = tools.map((t) => t.name);
    info.tools = names.length;
    const sent = exchanges.filter((e) => e.jsonrpcMethod && e.status !== 401).map((e) => e.jsonrpcMethod);
    const handshake = sent.includes('tools/list') ? sent.slice(0, sent.indexOf('tools/list')) : sent;
    const sessionIds = new Set(exchanges.map((e) => e.responseHeaders['mcp-session-id']).filter(Boolean));
    check(LATEST_PROTOCOL_VERSION === HANDSHAKE_VERSION && transport.protocolVersion === HANDSHAKE_VERSION
      && Boolean(transport.sessionId),
    `connect: the SDK negotiated ${transport.protocolVersion} via initialize (Mcp-Session-Id ${transport.sessionId ? 'set' : 'missing'})`,
    { sdkLatest: LATEST_PROTOCOL_VERSION, negotiated: transport.protocolVersion, sessionId: transport.sessionId });
    check(handshake.length === 2 && handshake[0] === 'initialize' && handshake[1] === 'notifications/initialized'
      && sessionIds.size === 1,
    'initialize + notifications/initialized, one Mcp-Session-Id', { sent: handshake, sessionIds: [...sessionIds] });
    check(REQUIRED_TOOLS.every((n) => names.includes(n)),
      `tools/list has ${REQUIRED_TOOLS.join(', ')} (${names.length} tools)`, names);
    const badInput = tools.filter((t) => !(t.inputSchema && typeof t.inputSchema === 'object'
      && t.inputSchema.type === 'object')).map((t) => t.name);
    check(badInput.length === 0, 'every tool has an object inputSchema', badInput);
    const noOutput = tools.filter((t) => !(t.outputSchema && typeof t.outputSchema === 'object'
      && !Array.isArray(t.outputSchema))).map((t) => t.name);
    check(noOutput.length === 0, 'every tool has an outputSchema', noOutput);

    // 2. A list result, validated by the SDK against the tool's outputSchema.
    const validator = client.getToolOutputValidator('list_available_carriers');
    let result = await client.callTool({ name: 'list_available_carriers', arguments: {} });
    const available = result.structuredContent;
    const carriers = Array.isArray(available?.data) ? available.data : [];
    check(!result.isError && available && typeof available === 'object' && !Array.isArray(available)
      && Array.isArray(available.data) && carriers.some((c) => c?.slug === 'sandbox'),
    'list_available_carriers: structuredContent is an object {"data": [...]} with the sandbox carrier type', result);
    const accepts = validator ? validator(available) : null;
    const rejects = validator ? validator(carriers) : null;
    check(typeof validator === 'function' && accepts?.valid === true && rejects?.valid === false,
      "the SDK validated that structuredContent against the tool's outputSchema (callTool uses the validator "
      + 'compiled from tools/list: it accepts the object and rejects the bare array)',
      { validator: typeof validator, acceptsObject: accepts, rejectsArray: rejects });

    // 3. Sender address, carrier, shipment, booking, label.
    result = await client.callTool({ name: 'create_sender_address', arguments: { ...SENDER_ADDRESS } });
    const addressId = structured(result).id;
    check(!result.isError && Boolean(addressId) && structured(result).name === SENDER_ADDRESS.name
      && structured(result).orgId === ORG_ID, `create_sender_address returns the new address (${addressId})`, result);
    result = await client.callTool({ name: 'create_carrier', arguments: {
      name: 'Sandbox ts', carrierSlug: 'sandbox', config: {}, senderAddressId: addressId } });
    const carrierId = structured(result).id;
    check(!result.isError && Boolean(carrierId), `create_carrier (${carrierId})`, result);
    result = await client.callTool({ name: 'create_shipment', arguments: shipment(addressId, carrierId) });
    const shipmentId = structured(result).id;
    check(!result.isError && Boolean(shipmentId), `create_shipment (${shipmentId})`, result);
    result = await client.callTool({ name: 'book_shipment', arguments: { shipmentId } });
    const documents = Array.isArray(structured(result).documents) ? structured(result).documents : [];
    const links = (result.content ?? []).filter((b) => b?.type === 'resource_link');
    const size = Buffer.byteLength(JSON.stringify(result));
    info.bookShipmentBytes = size;
    check(!result.isError && documents.length === 2 && links.length === 2 && size < 8192,
      `book_shipment: not an error, two documents, two resource_link blocks, ${size} bytes in all`,
      { isError: result.isError, documents: documents.length, links: links.length, bytes: size,
        result: clip(JSON.stringify(result), 4000) });
    const read = await client.readResource({ uri: links[0].uri });
    const blob = read.contents?.[0]?.blob ?? '';
    const head = Buffer.from(blob, 'base64').subarray(0, 4).toString('latin1');
    check(head === '%PDF', `resources/read of the first label (${links[0].uri}) gives its PDF`,
      { mimeType: read.contents?.[0]?.mimeType, head, contents: clip(JSON.stringify(read), 500) });

    // 4. An unknown argument.
    result = await client.callTool({ name: 'create_sender_address', arguments: { nmae: 'x', ...SENDER_ADDRESS } });
    info.unknownFieldError = result.structuredContent;
    check(result.isError === true && structured(result).code === 'validation_failed',
      'an unknown argument (nmae) is an isError result with structuredContent.code validation_failed', result);
  } finally {
    await Promise.allSettled(exchanges.map((e) => e.bodyRead).filter(Boolean));
    await client.close().catch(() => {});
  }
}

async function main() {
  const started = performance.now();
  const info = {};
  console.log(`# TypeScript MCP SDK ${sdkVersion()} (Node ${process.version}) against ${MCP_URL}`);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${TIMEOUT_S} s`)), TIMEOUT_S * 1000);
  });
  try {
    await Promise.race([run(info), timeout]);
  } catch (err) {
    if (!(err instanceof CheckFailed)) {
      // An SDK exception (a transport error, an McpError, an outputSchema mismatch) or the timeout.
      const description = 'the SDK session ran without raising';
      failed.push(description);
      console.log(`not ok - ${description}`);
      console.log(indent(err?.stack ?? String(err)));
      if (err?.data !== undefined) console.log(indent({ code: err.code, data: err.data }));
    }
    await Promise.race([Promise.allSettled(exchanges.map((e) => e.bodyRead).filter(Boolean)),
      new Promise((resolve) => setTimeout(resolve, 1000))]);
    dump();
  } finally {
    clearTimeout(timer);
  }
  console.log(`# summary: protocol ${info.protocolVersion}, server ${info.server?.name} ${info.server?.version}, `
    + `${info.tools} tools, book_shipment ${info.bookShipmentBytes} bytes, `
    + `${exchanges.length} HTTP requests, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed.length} passed, ${failed.length} failed`);
  return failed.length > 0 || passed.length === 0 ? 1 : 0;
}

// exit at once: a timed-out run may leave the transport's streams open.
process.exit(await main());
