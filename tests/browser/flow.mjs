// Real-browser end-to-end test of the Shipbase pages and the OAuth 2.1 flow an MCP client goes
// through: sign in, consent (organization + permissions), code exchange with PKCE, API calls
// with the access token, then Apps & integrations and Disconnect. Run by .ci/browser.sh, which
// starts the server, seeds it and sets the environment below.
//
//   BASE_URL     the server, e.g. http://127.0.0.1:8080 (no trailing slash)
//   EMAIL        e-mail of a user who owns two organizations
//   PASSWORD     that user's password
//   ORG_ID       id of the organization to connect
//   SCREENSHOTS  directory for the PNGs (created if missing)
//   CHROMIUM     browser executable (default /usr/bin/chromium)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
};
const BASE_URL = env('BASE_URL').replace(/\/+$/, '');
const EMAIL = env('EMAIL');
const PASSWORD = env('PASSWORD');
const ORG_ID = env('ORG_ID');
const SCREENSHOTS = path.resolve(env('SCREENSHOTS'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CLIENT_NAME = 'Claude Desktop (browser test)';
const SCOPES = ['read:shipments', 'write:shipments', 'read:orders'];
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ok = (what) => console.log(`ok - ${what}`);
const screenshots = [];
const base64url = (buf) => buf.toString('base64url');
const pathOf = (url) => new URL(url).pathname;
// The page's text as written (textContent, whitespace collapsed): innerText would apply CSS
// such as text-transform: uppercase.
const textOf = async (page) => ((await page.textContent('body')) || '').replace(/\s+/g, ' ').trim();

async function shoot(page, name, fullPage = true) {
  const file = path.join(SCREENSHOTS, name);
  await page.screenshot({ path: file, fullPage });
  screenshots.push(file);
}

/** Errors a page reports: uncaught exceptions and console errors (CSP violations among them). */
function watchErrors(page, errors) {
  // Where: the page's path, without the (long) query of /oauth/authorize.
  const where = () => { try { return new URL(page.url()).pathname; } catch { return page.url(); } };
  page.on('pageerror', (err) => errors.push(`pageerror on ${where()}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const source = msg.location()?.url || '';
    // The browser asks for /favicon.ico by itself; the pages have none. Only that 404 is ignored.
    if (/\/favicon\.ico(\?|$)/.test(source) && /404|Not Found/i.test(msg.text())) return;
    errors.push(`console error on ${where()}: ${msg.text()}`);
  });
}

/** The OAuth client's redirect target: records the query of GET /callback. */
function startCallbackServer() {
  const hits = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/callback') {
      hits.push(Object.fromEntries(url.searchParams));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connected</title></head>'
        + '<body><h1>Connected</h1><p>You can close this window.</p></body></html>');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, hits, port: server.address().port }));
  });
}

async function waitFor(what, check, deadlineMs = 10_000) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function postJson(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    redirect: 'manual',
  });
}

async function postForm(url, fields) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

async function json(res, what) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what}: answer is not JSON (status ${res.status}): ${text.slice(0, 500)}`);
  }
}

async function expectStatus(res, status, what) {
  if (res.status !== status) {
    const text = await res.text().catch(() => '');
    assert.fail(`${what}: expected HTTP ${status}, got ${res.status}: ${text.slice(0, 500)}`);
  }
}

async function main() {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const errors = [];
  let browser;
  let callback;
  try {
    // 1. The redirect target.
    callback = await startCallbackServer();
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    ok(`callback server on ${redirectUri}`);

    // 2. Dynamic client registration.
    const reg = await postJson(`${BASE_URL}/oauth/register`, {
      client_name: CLIENT_NAME,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    await expectStatus(reg.clone(), 201, 'POST /oauth/register');
    const client = await json(reg, 'POST /oauth/register');
    assert.ok(typeof client.client_id === 'string' && client.client_id.startsWith('cli_'),
      `client_id should start with cli_: ${JSON.stringify(client.client_id)}`);
    const clientId = client.client_id;
    ok(`client registered (${clientId})`);

    // 3. PKCE S256 and state.
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const state = base64url(randomBytes(16));
    const authorizeUrl = `${BASE_URL}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: SCOPES.join(' '),
      resource: BASE_URL,
    })}`;

    // 4. Signed out: the authorize URL sends the browser to the sign-in page.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    watchErrors(page, errors);
    const first = await page.goto(authorizeUrl);
    assert.ok(first, 'no response for the authorize URL');
    assert.equal(pathOf(page.url()), '/login', `signed out, /oauth/authorize should lead to /login, got ${page.url()}`);
    const next = new URL(page.url()).searchParams.get('next') || '';
    assert.ok(next.startsWith('/oauth/authorize?'), `login's next should be the authorize request, got ${JSON.stringify(next)}`);
    const redirect = first.request().redirectedFrom();
    assert.ok(redirect, 'expected a redirect from /oauth/authorize to /login');
    const redirectStatus = (await redirect.response())?.status();
    assert.equal(redirectStatus, 303, `redirect to /login should be 303, got ${redirectStatus}`);
    await shoot(page, 'login.png');
    ok('signed out: authorize redirects (303) to /login');

    await page.fill('input[name=email]', EMAIL);
    await page.fill('input[name=password]', PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    ok('signed in');

    // 5. The consent page.
    const text = await textOf(page);
    for (const want of ['Authorize access', CLIENT_NAME, 'Organization', 'Permissions']) {
      assert.ok(text.includes(want), `consent page should contain ${JSON.stringify(want)}; text:\n${text}`);
    }
    const orgSelect = page.locator('select[name=org_id]');
    const options = await orgSelect.locator('option').evaluateAll((els) => els.map((e) => ({ value: e.value, label: e.textContent.trim() })));
    assert.equal(options.length, 2, `the organization select should have 2 options: ${JSON.stringify(options)}`);
    assert.ok(options.some((o) => o.value === ORG_ID), `ORG_ID ${ORG_ID} should be offered: ${JSON.stringify(options)}`);
    const boxes = await page.locator('input[type=checkbox][name=scope]').evaluateAll((els) => els.map((e) => ({ value: e.value, checked: e.checked })));
    assert.deepEqual(boxes.map((b) => b.value).sort(), [...SCOPES].sort(), `scope checkboxes: ${JSON.stringify(boxes)}`);
    for (const box of boxes) assert.ok(box.checked, `${box.value} should be ticked at first`);
    await shoot(page, 'consent.png');
    ok(`consent page shows ${options.map((o) => o.label).join(' + ')} and ${boxes.length} ticked permissions`);

    await orgSelect.selectOption(ORG_ID);
    await page.locator('input[name=scope][value="write:shipments"]').uncheck();
    assert.equal(await orgSelect.inputValue(), ORG_ID);
    assert.equal(await page.locator('input[name=scope][value="write:shipments"]').isChecked(), false);
    ok('chose the organization and unticked write:shipments');

    // The same page on a phone, signed in with the same cookies.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      storageState: await context.storageState(),
    });
    try {
      const mobile = await phone.newPage();
      watchErrors(mobile, errors);
      await mobile.goto(authorizeUrl);
      assert.equal(pathOf(mobile.url()), '/oauth/authorize', `phone should see the consent page, got ${mobile.url()}`);
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await shoot(mobile, 'consent-mobile.png');
      ok(`consent page on a phone (horizontal overflow ${overflow}px)`);
    } finally {
      await phone.close();
    }

    // 6. Authorize: back to the client with code, state and iss.
    await page.getByRole('button', { name: 'Authorize', exact: true }).click();
    const hit = await waitFor('the OAuth callback', () => callback.hits[0]);
    assert.ok(hit.code, `callback without code: ${JSON.stringify(hit)}`);
    assert.equal(hit.error, undefined, `callback with error: ${JSON.stringify(hit)}`);
    assert.equal(hit.state, state, 'callback state');
    assert.equal(hit.iss, BASE_URL, 'callback iss');
    await page.waitForURL((url) => url.port === String(callback.port) && url.pathname === '/callback');
    ok('authorized: callback got code, state and iss');

    // 7. Code exchange.
    const tokenRes = await postForm(`${BASE_URL}/oauth/token`, {
      grant_type: 'authorization_code',
      code: hit.code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource: BASE_URL,
    });
    await expectStatus(tokenRes.clone(), 200, 'POST /oauth/token (authorization_code)');
    const cacheControl = tokenRes.headers.get('cache-control') || '';
    const tokens = await json(tokenRes, 'POST /oauth/token');
    assert.equal(tokens.token_type, 'Bearer', 'token_type');
    assert.ok(tokens.access_token, 'access_token missing');
    assert.ok(tokens.refresh_token, 'refresh_token missing');
    assert.deepEqual(String(tokens.scope).split(' ').sort(), ['read:orders', 'read:shipments'], `granted scope: ${tokens.scope}`);
    assert.ok(/no-store/i.test(cacheControl), `token answer's cache-control should have no-store: ${JSON.stringify(cacheControl)}`);
    ok(`code exchanged (scope "${tokens.scope}")`);

    // 8. The access token on the API.
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const shipmentsUrl = `${BASE_URL}/orgs/${encodeURIComponent(ORG_ID)}/shipments`;
    await expectStatus(await fetch(shipmentsUrl, { headers: { ...auth, accept: 'application/json' } }), 200, 'GET shipments with the access token');
    await expectStatus(await postJson(shipmentsUrl, {}, auth), 403, 'POST shipments without write:shipments');
    ok('access token reads shipments (200), cannot create (403)');

    // 9. Apps & integrations.
    await page.goto(`${BASE_URL}/settings/apps`);
    assert.equal(pathOf(page.url()), '/settings/apps');
    const apps = await textOf(page);
    for (const want of ['Apps & integrations', 'MCP (AI agents)', CLIENT_NAME, '2 permissions']) {
      assert.ok(apps.includes(want), `Apps & integrations should contain ${JSON.stringify(want)}; text:\n${apps}`);
    }
    await shoot(page, 'apps.png');
    ok('Apps & integrations lists the connection');

    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await page.getByText('is disconnected').first().waitFor();
    assert.equal(pathOf(page.url()), '/settings/apps', `after Disconnect: ${page.url()}`);
    const after = await textOf(page);
    assert.ok(after.includes('is disconnected'), `after Disconnect; text:\n${after}`);
    await shoot(page, 'apps-disconnected.png');
    ok('disconnected');

    // 10. The tokens are dead.
    await expectStatus(await fetch(shipmentsUrl, { headers: { ...auth, accept: 'application/json' } }), 401, 'GET shipments after Disconnect');
    const refresh = await postForm(`${BASE_URL}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    await expectStatus(refresh.clone(), 400, 'refresh after Disconnect');
    const refreshBody = await json(refresh, 'refresh after Disconnect');
    assert.equal(refreshBody.error, 'invalid_grant', `refresh after Disconnect: ${JSON.stringify(refreshBody)}`);
    ok('access token 401 and refresh token invalid_grant after Disconnect');

    // 11. No script errors, no CSP violations.
    assert.ok(errors.length === 0, `pages reported ${errors.length} error(s):\n  ${errors.join('\n  ')}`);
    ok('no page errors or console errors');

    console.log('screenshots:');
    for (const file of screenshots) console.log(`  ${file}`);
    return 0;
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (callback) callback.server.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`not ok - ${err?.message ?? err}`);
    if (err?.stack && !(err instanceof assert.AssertionError)) console.error(err.stack);
    if (screenshots.length) console.error(`screenshots so far:\n  ${screenshots.join('\n  ')}`);
    process.exit(1);
  },
);
