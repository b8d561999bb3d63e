// Real-browser test of the workbench at /app (DESIGN §20). An owner sets up a sender address, a
// carrier and a printer through the Settings forms, makes a shipment with the New shipment form
// and books it, sees it on the list (and one made over the API appear without a reload), books
// ten at once and downloads their labels as one PDF; a member, at their own station, ships,
// books and prints an order from the inbox (the label arrives at a loopback raw printer); one is booked by
// scanning its reference. Then the owner builds a shipping rule (Settings → Shipping rules → New
// shipping rule: a weight row and a flat-rate row, "Add another condition", a price left empty
// shown in place, the rule opened again with its values, a subtotal range in major units),
// makes a shipment from the rates the rules give (two parcels), searches the shipments list (by
// receiver, by tracking number, by carrier), splits an order line of a parcel off into a new
// shipment, prints a test page on the loopback printer, books a pickup for a waiting shipment
// (a wrong window shown in place first) and cancels it, closes the sandbox carrier's day (the
// manifest opened as a PDF and printed on the loopback printer), adds a webhook pointing at a local
// receiver (signing secret shown once, a test event, a delivery that failed with 500 then
// succeeded, replayed with the same webhook-id), and changes the branding (name, colour, an
// uploaded PNG logo). The shop's customers: the tracking page in six languages, a booked
// shipment's e-mail (through a local SMTP sink on SMTP_PORT) logged on its page, the unsubscribe
// page, and the returns portal (a wrong order, the right one, the return and its label). A member is refused the API tokens page; an admin adds a member under
// Settings → Members. axe-core checks every page photographed (no serious or critical
// violation), and each is photographed at 1280 px and 390 px (phone) width, where it must not
// scroll sideways. Run by .ci/browser.sh, which starts the server (printers and webhooks allowed
// on loopback) and sets:
//
//   BASE_URL, EMAIL, PASSWORD (an owner of one organization), ORG_ID, TOKEN (an API token of
//   it), MEMBER_EMAIL, MEMBER_PASSWORD (a member of it), ADMIN_EMAIL, ADMIN_PASSWORD (an admin
//   of it), SMTP_PORT (where the server sends e-mail), SCREENSHOTS, CHROMIUM
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
};
const BASE_URL = env('BASE_URL').replace(/\/+$/, '');
const ORG_ID = env('ORG_ID');
const TOKEN = env('TOKEN');
const SCREENSHOTS = path.resolve(env('SCREENSHOTS'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const ok = (what) => console.log(`ok - ${what}`);
const app = (rest = '') => `/app/${ORG_ID}/${rest}`;
const pathOf = (url) => new URL(url).pathname;
const textOf = async (page) => ((await page.textContent('body')) || '').replace(/\s+/g, ' ').trim();

/** Runs axe-core on the page; fails on any serious or critical violation. */
async function accessible(page, name) {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${name}: axe-core found serious or critical violations: ${JSON.stringify(bad, null, 1)}`);
}

/** Screenshots at desktop and phone width; at phone width nothing may scroll sideways. */
async function look(page, name) {
  await accessible(page, name);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) {
    // Name the widest elements, so that the failure says what to fix.
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      // What a scrolling box clips cannot widen the page, unless it is positioned outside it.
      .filter((e) => {
        if (['absolute', 'fixed'].includes(getComputedStyle(e).position)) return true;
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
          if (getComputedStyle(a).overflowX !== 'visible') return false;
        }
        return true;
      })
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${e.className}` : ''} (${Math.round(e.getBoundingClientRect().width)}px)`));
    assert.fail(`${name}: the page scrolls sideways by ${overflow}px on a phone: ${wide.join(', ')}`);
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function signIn(context, email, password) {
  const page = await context.newPage();
  await page.goto(`${BASE_URL}${app('orders')}`);
  assert.equal(pathOf(page.url()), '/login', `signed out, /app leads to /login, got ${page.url()}`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === app('orders'));
  return page;
}

async function api(method, rest, body) {
  const res = await fetch(`${BASE_URL}/orgs/${ORG_ID}${rest}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${rest}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text);
}

async function fillReceiver(page, name) {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Street and number').fill('Vesterbrogade 12');
  await page.getByLabel('Postal code').fill('1620');
  await page.getByLabel('City').fill('København V');
  await page.getByLabel('Country (2 letters)').fill('DK');
}

/** A raw (port 9100) printer on loopback that keeps every job it receives. */
function rawPrinter() {
  const jobs = [];
  const server = net.createServer((socket) => {
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => { jobs.push(Buffer.concat(chunks)); socket.end(); });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, jobs, port: server.address().port })));
}

/** A local SMTP server on SMTP_PORT (the server is configured to send there) that keeps every
 * message: enough of RFC 5321 for one client, no STARTTLS (loopback). */
function smtpSink(port) {
  const messages = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let data = null;
    socket.write('220 sink.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let at;
      while ((at = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (data !== null) {
          if (line === '.') { messages.push(data.join('\r\n')); data = null; socket.write('250 OK\r\n'); }
          else data.push(line.startsWith('.') ? line.slice(1) : line);
          continue;
        }
        const verb = line.split(/[ :]/)[0].toUpperCase();
        if (verb === 'EHLO') socket.write('250-sink.test\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') { data = []; socket.write('354 Go ahead\r\n'); }
        else if (verb === 'QUIT') { socket.end('221 Bye\r\n'); }
        else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, messages })));
}

async function waitFor(what, check, ms = 15_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the page's text matches `pattern` (a notice may be swapped out by the live list
 *  a few seconds later, so this looks at once and then often). */
async function seeText(page, pattern, ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const text = await textOf(page);
    if (pattern.test(text)) return text;
    if (Date.now() > until) throw new Error(`timed out waiting for ${pattern} on ${page.url()}; the page says: ${text.slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Reloads the page until `check(page)` holds. */
async function reloadUntil(page, what, check, ms = 20_000) {
  const until = Date.now() + ms;
  while (!(await check(page))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what} on ${page.url()}`);
    await new Promise((r) => setTimeout(r, 250));
    await page.reload();
  }
}

/** A webhook receiver on loopback: keeps every request; answers 500 while `failures` > 0
 *  (counting it down), else 200. */
function webhookReceiver() {
  const hits = [];
  const state = { failures: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const status = state.failures > 0 ? 500 : 200;
      if (status === 500) state.failures -= 1;
      const body = Buffer.concat(chunks).toString('utf8');
      let event = {};
      try { event = JSON.parse(body); } catch { /* kept as it came */ }
      hits.push({ headers: req.headers, body, event, status });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'ok' : 'not now');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, hits, state, port: server.address().port })));
}

/** Whether a delivery carries a valid Standard Webhooks signature made with `secret`. */
function signedWith(hit, secret) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${hit.headers['webhook-id']}.${hit.headers['webhook-timestamp']}.${hit.body}`).digest('base64');
  return (hit.headers['webhook-signature'] || '').split(' ').includes(`v1,${expected}`);
}

/** A small valid PNG (a 96 × 32 two-colour logo), for the branding upload. */
function logoPng() {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const [width, height] = [96, 32];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB
    for (let x = 0; x < width; x += 1) {
      const mark = x >= 8 && x < 32 && y >= 6 && y < 26;
      const stripe = x >= 40 && x < 88 && ((y >= 8 && y < 13) || (y >= 19 && y < 24));
      row.set(mark ? [10, 125, 90] : stripe ? [40, 40, 40] : [255, 255, 255], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function main() {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const printer = await rawPrinter();
  const hooks = await webhookReceiver();
  const sink = await smtpSink(Number(env('SMTP_PORT')));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'shipbase-workbench-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await signIn(context, env('EMAIL'), env('PASSWORD'));
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(`${page.url()}: ${msg.text()}`); });
    await look(page, 'orders-empty');
    ok('signed in: the order inbox');

    // Settings: a sender address, a carrier using it, a printer.
    await page.getByRole('link', { name: 'Settings' }).click();
    await look(page, 'settings');
    await page.getByRole('link', { name: 'Sender addresses' }).click();
    for (const [label, value] of [['Name', 'Main warehouse'], ['Contact person', 'Ada Owner'],
      ['Street and number', 'Industrivej 1'], ['Postal code', '2600'], ['City', 'Glostrup'], ['State or region', 'Region Hovedstaden'],
      ['Country (2 letters)', 'DK'], ['Phone', '+4570000000'], ['E-mail', 'ship@acme.test']]) {
      await page.getByLabel(label, { exact: true }).fill(value);
    }
    await page.getByRole('button', { name: 'Add' }).click();
    assert.match(await textOf(page), /Added\..*Main warehouse/, 'the sender address is listed');
    await look(page, 'settings-sender-addresses');
    ok('a sender address added');

    await page.goto(`${BASE_URL}${app('settings/carriers')}`);
    await page.getByLabel('Name', { exact: true }).fill('Sandbox parcels');
    await page.getByLabel('Type').selectOption('sandbox');
    await page.getByRole('button', { name: 'Add' }).click();
    assert.match(await textOf(page), /Sandbox parcels/, 'the carrier is listed');
    await look(page, 'settings-carriers');
    ok('a carrier added');

    await page.goto(`${BASE_URL}${app('settings/printers')}`);
    await page.getByLabel('Name', { exact: true }).fill('Packing desk');
    await page.getByLabel('Address').fill('not an address');
    await page.getByRole('button', { name: 'Add' }).click();
    const invalid = page.locator('input[name=address][aria-invalid=true]');
    assert.equal(await invalid.count(), 1, 'a wrong printer address is marked in place');
    await look(page, 'settings-printers-error');
    await page.getByLabel('Address').fill(`127.0.0.1:${printer.port}`);
    await page.getByRole('button', { name: 'Add' }).click();
    assert.match(await textOf(page), /Packing desk/, 'the printer is listed');
    ok('a printer added (after its error was shown in place)');

    for (const sub of ['shipping-rules', 'webhooks', 'order-channels', 'api-tokens', 'members', 'usage', 'audit', 'branding', 'notifications', 'returns-portal']) {
      await page.goto(`${BASE_URL}${app(`settings/${sub}`)}`);
      await look(page, `settings-${sub}`);
    }
    ok('every settings page passes axe and fits a phone');

    // E-mails to receivers: one turned on and previewed in Swedish, then saved.
    await page.goto(`${BASE_URL}${app('settings/notifications')}`);
    await page.getByRole('group', { name: 'Delivered' }).getByLabel('Send this e-mail').check();
    await page.getByLabel('Language of the previews').selectOption('sv');
    await page.getByRole('group', { name: 'Delivered' }).getByRole('button', { name: 'Preview' }).click();
    assert.match(await textOf(page), /har levererats/, 'the preview is in Swedish');
    await look(page, 'settings-notifications-preview');
    await page.getByRole('button', { name: 'Save the e-mail settings' }).click();
    assert.match(await textOf(page), /The e-mail settings are saved\./);
    ok('an e-mail turned on, previewed in Swedish and saved');

    // New shipment: an error in place, then made and booked.
    await page.getByRole('link', { name: 'New shipment' }).click();
    await page.getByLabel('Reference').fill('WEB-1001');
    await page.getByRole('button', { name: 'Make the shipment' }).click();
    assert.ok(await page.locator('[aria-invalid=true]').count() > 0, 'missing receiver fields are marked');
    await look(page, 'shipment-new-errors');
    await fillReceiver(page, 'Karen Blixen');
    await page.getByRole('button', { name: 'Make the shipment' }).click();
    await page.waitForURL((url) => url.pathname.startsWith(app('shipments/shp_')));
    await look(page, 'shipment-pending');
    await page.getByRole('button', { name: 'Book' }).click();
    assert.match(await textOf(page), /Booked: the labels are ready\./);
    assert.match(await textOf(page), /Label 1 \(pdf/);
    // The label's preview, a picture of its first page, loads.
    await page.getByRole('img', { name: 'Preview of the label 1' }).waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('img.preview');
      return img && img.complete && img.naturalWidth === 600;
    });
    await look(page, 'shipment-booked');
    ok('a shipment made with the form and booked');

    // Its public tracking page, as the receiver sees it: in English, then in Danish.
    const bookedShipment = await api('GET', `/shipments/${pathOf(page.url()).split('/').pop()}`);
    assert.ok(bookedShipment.trackingUrl, 'a booked shipment has a trackingUrl');
    const trackingPage = await context.newPage();
    for (const [language, heading] of [['en', /Your parcel from/], ['da', /Din pakke fra/],
      ['sv', /Ditt paket från/], ['nb', /Pakken din fra/], ['fi', /Pakettisi kaupasta/], ['de', /Ihr Paket von/]]) {
      await trackingPage.setExtraHTTPHeaders({ 'Accept-Language': language });
      const answer = await trackingPage.goto(bookedShipment.trackingUrl);
      assert.equal(answer.status(), 200);
      assert.equal(await trackingPage.getAttribute('html', 'lang'), language);
      assert.match(await textOf(trackingPage), heading);
      assert.doesNotMatch(await textOf(trackingPage), /Vesterbrogade/);
      await look(trackingPage, `tracking-page-${language}`);
    }
    const missing = await trackingPage.goto(`${BASE_URL}/t/AAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(missing.status(), 404);
    await look(trackingPage, 'tracking-page-not-found');
    await trackingPage.close();
    ok('the tracking page in all six languages, and its 404, pass axe and fit a phone');

    await page.getByRole('link', { name: 'Shipments', exact: true }).click();
    assert.match(await textOf(page), /WEB-1001/);
    await look(page, 'shipments');
    ok('the shipment is on the list');

    // Live: a shipment made elsewhere (here over the API) appears without a reload.
    await page.evaluate(() => { window.stayed = true; });
    const mine = await api('GET', '/shipments?limit=1');
    const template = await api('GET', `/shipments/${mine.data[0].id}`);
    await api('POST', '/shipments', {
      reference: 'LIVE-1', senderAddressId: mine.data[0].senderAddress.id,
      type: 'outbound', parties: template.parties.filter((p) => p.type === 'receiver'),
      carrierSettings: { carrierId: template.carrierSettings.carrierId, productId: 'standard' },
      parcels: [{ weight: 0.5 }],
    });
    await page.waitForFunction(() => document.body.textContent.includes('LIVE-1'), null, { timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.stayed), true, 'the list changed in place, not by a reload');
    ok('a new shipment appears on the list without a reload');

    // Bulk: ten shipments booked at once, then their labels as one PDF.
    const refs = [];
    for (let n = 1; n <= 10; n += 1) {
      refs.push(`BULK-${String(n).padStart(2, '0')}`);
      await api('POST', '/shipments', {
        reference: refs.at(-1), senderAddressId: mine.data[0].senderAddress.id, type: 'outbound',
        parties: template.parties.filter((p) => p.type === 'receiver'),
        carrierSettings: { carrierId: template.carrierSettings.carrierId, productId: 'standard' },
        parcels: [{ weight: n / 10 }],
      });
    }
    await page.goto(`${BASE_URL}${app('shipments?status=pending&q=')}`);
    for (const ref of refs) await page.getByLabel(`Select ${ref}`).check();
    await page.getByRole('button', { name: 'Book selected' }).click();
    assert.match(await textOf(page), /Booked 10 of 10\./);
    await page.goto(`${BASE_URL}${app('shipments?status=processing')}`);
    for (const ref of refs) await page.getByLabel(`Select ${ref}`).check();
    // What "Labels of selected (PDF)" posts (it opens in a new tab): the checked boxes, in order.
    const csrf = await page.inputValue('#bulk input[name=csrf_token]');
    const ids = await page.$$eval('#bulk input[name=ids]:checked', (boxes) => boxes.map((b) => b.value));
    assert.equal(ids.length, 10);
    const merged = await page.request.post(`${BASE_URL}${app('shipments')}`, {
      data: new URLSearchParams([['csrf_token', csrf], ['action', 'labels'], ...ids.map((id) => ['ids', id])]).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(merged.status(), 200);
    assert.equal(merged.headers()['content-type'], 'application/pdf');
    const pdf = (await merged.body()).toString('latin1');
    assert.ok(pdf.startsWith('%PDF-'), 'the merged labels are a PDF');
    assert.equal((pdf.match(/\/Type\s*\/Page\b/g) || []).length, 10, 'one page per shipment');
    ok('ten shipments booked at once and their labels merged into one PDF');

    // The order inbox: an order made over the API, shipped and booked from its page.
    const channel = await api('POST', '/order-channels', { name: 'Web shop', type: 'manual' });
    const order = await api('POST', '/orders', {
      orderChannelId: channel.id, orderNumber: 'SO-7001', customerName: 'Søren Kierkegaard',
      orderLines: [{ name: 'Mug', sku: 'MUG-1', quantity: 2, weight: 0.4 }],
      shippingAddress: { name: 'Søren Kierkegaard', address1: 'Nytorv 2', postalCode: '1450',
        city: 'København K', countryCode: 'DK' },
    });
    // This browser's station printer, chosen once on the Scan page.
    await page.getByRole('link', { name: 'Scan' }).click();
    await page.getByLabel('Labels booked here print on').selectOption({ label: 'Packing desk (pdf)' });
    await page.getByRole('button', { name: 'Use at this station' }).click();
    assert.match(await textOf(page), /This browser prints on that printer/);
    ok('the station printer chosen');

    // A member at the packing bench: their own browser, their own station printer, the order
    // shipped, booked and printed from the inbox.
    {
      const benchContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const bench = await signIn(benchContext, env('MEMBER_EMAIL'), env('MEMBER_PASSWORD'));
      await bench.goto(`${BASE_URL}${app('scan')}`);
      await bench.getByLabel('Labels booked here print on').selectOption({ label: 'Packing desk (pdf)' });
      await bench.getByRole('button', { name: 'Use at this station' }).click();
      await bench.getByRole('link', { name: 'Orders' }).click();
      assert.match(await textOf(bench), /SO-7001/);
      await look(bench, 'orders');
      await bench.getByRole('link', { name: 'SO-7001' }).click();
      await look(bench, 'order');
      await bench.getByRole('button', { name: 'Make the shipment and book it' }).click();
      assert.match(await textOf(bench), /Shipment made and booked\. 1 label sent to this station's printer\./);
      await waitFor('the label at the raw printer', () => printer.jobs.length === 1);
      assert.ok(printer.jobs[0].subarray(0, 5).toString() === '%PDF-', 'the printer got a PDF label');
      const shipped = await api('GET', `/orders/${order.id}`);
      assert.equal(shipped.shipments.length, 1, 'the order has its shipment');
      await benchContext.close();
    }
    ok('a member ships, books and prints an order from the inbox at their station');

    // Scan: a pending shipment's reference books it.
    const pending = await api('GET', '/shipments?status=processing');
    assert.ok(pending.total >= 2);
    await page.getByRole('link', { name: 'Scan' }).click();
    await look(page, 'scan');
    const made = await page.evaluate(() => document.activeElement?.getAttribute('name'));
    assert.equal(made, 'code', 'the scan field has the focus');
    await page.goto(`${BASE_URL}${app('shipments/new')}`);
    await page.getByLabel('Reference').fill('SCAN-42');
    await fillReceiver(page, 'H. C. Andersen');
    await page.getByRole('button', { name: 'Make the shipment' }).click();
    await page.waitForURL((url) => url.pathname.startsWith(app('shipments/shp_')));
    await page.goto(`${BASE_URL}${app('scan')}`);
    // Autofocus lands a frame or so after the load event: type only once it has.
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'code');
    await page.keyboard.type('SCAN-42');
    await page.keyboard.press('Enter');
    await page.getByText('SCAN-42 is booked').waitFor();
    assert.match(await textOf(page), /SCAN-42 is booked\. 1 label sent to this station's printer\./);
    await waitFor('the label of the scanned shipment', () => printer.jobs.length === 2);
    ok('scanning a reference books its shipment and prints its label');

    // The label opens in the browser, ready to print.
    const label = page.getByRole('link', { name: /^Label 1 \(pdf/ });
    const href = await label.getAttribute('href');
    const file = await page.request.get(`${BASE_URL}${href}`);
    assert.equal(file.status(), 200);
    assert.equal(file.headers()['content-type'], 'application/pdf');
    assert.ok((await file.body()).subarray(0, 5).toString() === '%PDF-');
    ok('the label opens as a PDF');

    // Settings → Shipping rules → New shipping rule: the builder.
    const senderId = mine.data[0].senderAddress.id;
    const carrierId = template.carrierSettings.carrierId;
    await page.goto(`${BASE_URL}${app('settings/shipping-rules')}`);
    await page.getByRole('link', { name: 'New shipping rule' }).click();
    await page.waitForURL((url) => url.pathname === app('settings/shipping-rules/new'));
    await look(page, 'rule-new');
    const condition = (n) => page.getByRole('group', { name: `Condition ${n}`, exact: true });
    const conditions = page.getByRole('group', { name: /^Condition \d+$/ });
    assert.equal(await conditions.count(), 1, 'a new rule starts with one condition row');
    await page.locator('input[name=name]').fill('Home delivery');
    await page.getByLabel('Carrier and product').selectOption({ label: 'Sandbox parcels · Standard' });
    await page.getByLabel('Ships from').selectOption({ label: 'Main warehouse, Glostrup' });
    await condition(1).getByLabel('When').selectOption({ label: 'Weight between (kg)' });
    await condition(1).getByLabel('From', { exact: true }).fill('0');
    await condition(1).getByLabel('To', { exact: true }).fill('5');
    await condition(1).getByLabel('Price', { exact: true }).fill('49');
    await condition(1).getByLabel('Currency').fill('DKK');
    await page.getByRole('button', { name: 'Add another condition' }).click();
    await condition(2).waitFor();
    assert.equal(await conditions.count(), 2, '"Add another condition" adds one row');
    assert.equal(await page.locator('input[name=name]').inputValue(), 'Home delivery', 'the name is kept');
    assert.equal(await condition(1).getByLabel('When').inputValue(), 'weight', 'the first row is kept');
    assert.equal(await condition(1).getByLabel('To', { exact: true }).inputValue(), '5');
    assert.equal(await condition(1).getByLabel('Price', { exact: true }).inputValue(), '49');
    await condition(2).getByLabel('When').selectOption({ label: 'Always (flat rate)' });
    await condition(2).getByLabel('Currency').fill('DKK');
    await page.getByRole('button', { name: 'Add the rule' }).click();
    const noPrice = page.locator('input[name="conditions[1].shippingPrice"][aria-invalid=true]');
    await noPrice.waitFor();
    const saysWhy = await page.locator(`#${await noPrice.getAttribute('aria-describedby')}`).textContent();
    assert.match(saysWhy, /must be a number/, 'the empty price says what it needs');
    assert.equal(await page.locator('[aria-invalid=true]').count(), 1, 'only the empty price is marked');
    assert.equal(await condition(1).getByLabel('Price', { exact: true }).inputValue(), '49', 'what was typed stays');
    await look(page, 'rule-error');
    await condition(2).getByLabel('Price', { exact: true }).fill('79');
    await page.getByRole('button', { name: 'Add the rule' }).click();
    await page.waitForURL((url) => url.pathname === app('settings/shipping-rules'));
    await seeText(page, /The shipping rule Home delivery is added\./);
    assert.deepEqual(await page.locator('tbody tr', { hasText: 'Home delivery' }).locator('td').allTextContents(),
      ['Home delivery', 'Sandbox parcels', 'standard', '—'], 'the rule is listed');
    ok('a shipping rule built in Settings (another condition row, an empty price shown in place)');

    // Opened again: the values come back; a subtotal range in major units stays in them.
    await page.getByRole('link', { name: 'Home delivery' }).click();
    await page.getByRole('heading', { name: 'Shipping rule Home delivery' }).waitFor();
    assert.equal(await page.getByLabel('Carrier and product').inputValue(), `${carrierId}|standard`);
    assert.equal(await page.getByLabel('Ships from').inputValue(), senderId);
    for (const [n, when, from, to, price] of [[1, 'weight', '0', '5', '49'], [2, 'flatRate', '', '', '79'], [3, '', '', '', '']]) {
      assert.equal(await condition(n).getByLabel('When').inputValue(), when, `condition ${n}: type`);
      assert.equal(await condition(n).getByLabel('From', { exact: true }).inputValue(), from, `condition ${n}: from`);
      assert.equal(await condition(n).getByLabel('To', { exact: true }).inputValue(), to, `condition ${n}: to`);
      assert.equal(await condition(n).getByLabel('Price', { exact: true }).inputValue(), price, `condition ${n}: price`);
    }
    await condition(3).getByLabel('When').selectOption({ label: 'Subtotal between' });
    await condition(3).getByLabel('From', { exact: true }).fill('500');
    await condition(3).getByLabel('Price', { exact: true }).fill('0');
    await condition(3).getByLabel('Currency').fill('DKK');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await seeText(page, /The shipping rule Home delivery is saved\./);
    const rules = await api('GET', '/shipping-rules');
    const rule = rules.data.find((r) => r.name === 'Home delivery');
    assert.equal(rule.conditions.length, 3);
    assert.equal(rule.conditions[2].type, 'priceRange');
    assert.equal(rule.conditions[2].min, 50000, 'the API holds the subtotal in cents');
    await page.getByRole('link', { name: 'Home delivery' }).click();
    await page.getByRole('heading', { name: 'Shipping rule Home delivery' }).waitFor();
    assert.equal(await condition(3).getByLabel('When').inputValue(), 'priceRange');
    assert.equal(await condition(3).getByLabel('From', { exact: true }).inputValue(), '500', 'the subtotal shows in major units');
    assert.equal(await condition(1).getByLabel('Price', { exact: true }).inputValue(), '49');
    assert.equal(await condition(2).getByLabel('Price', { exact: true }).inputValue(), '79');
    ok('the rule opened again shows its values (a subtotal from 500 as 500)');

    // New shipment with the rates the rules give, in two parcels.
    await page.goto(`${BASE_URL}${app('shipments/new')}`);
    await page.getByLabel('Reference').fill('RATE-1');
    await fillReceiver(page, 'Isak Dinesen');
    await page.getByRole('button', { name: 'Add another parcel' }).click();
    await page.getByLabel('Parcel 2, weight (kg)').waitFor();
    assert.equal(await page.getByLabel(/^Parcel \d+, weight/).count(), 2, '"Add another parcel" adds one row');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Isak Dinesen', 'the receiver is kept');
    assert.equal(await page.getByLabel('Parcel 1, weight (kg)').inputValue(), '1');
    await page.getByLabel('Parcel 2, weight (kg)').fill('2');
    await page.getByRole('button', { name: 'Get rates' }).click();
    const rate = page.getByRole('radio', { name: 'Home delivery (Sandbox parcels): 49.00 DKK' });
    await rate.waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Home delivery (Sandbox parcels): 79.00 DKK' }).count(), 1, 'the flat rate is offered too');
    assert.equal(await page.getByRole('radio', { name: /: 0\.00 DKK$/ }).count(), 0, 'the subtotal range does not hold for an empty basket');
    assert.equal(await page.getByLabel('Parcel 2, weight (kg)').inputValue(), '2', 'the parcels are kept');
    await rate.check();
    await look(page, 'shipment-new-rates');
    await page.getByRole('button', { name: 'Make the shipment' }).click();
    await page.waitForURL((url) => url.pathname.startsWith(app('shipments/shp_')));
    await seeText(page, /Shipment RATE-1.*Shipment made with the rate's rule applied\./);
    assert.match(await textOf(page), /Isak Dinesen/);
    assert.equal(await page.locator('section', { has: page.getByRole('heading', { name: 'Parcels' }) }).locator('ol > li').count(), 2, 'two parcels');
    const rated = await api('GET', `/shipments/${pathOf(page.url()).split('/').pop()}`);
    assert.equal(rated.parcels.length, 2);
    assert.equal(rated.carrierSettings.carrierId, carrierId);
    ok('a shipment made from a rate the rules give, in two parcels');

    // The carriers' own prices: the sandbox carriers have no rating API, and the form says so
    // (a bad postcode first is shown at its input).
    await page.goto(`${BASE_URL}${app('shipments/new')}`);
    await page.getByLabel('Reference').fill('PRICES-1');
    await fillReceiver(page, 'Karen Blixen');
    await page.getByLabel('Postal code').fill('16200');
    await page.getByRole('button', { name: 'Ask the carriers' }).click();
    await seeText(page, /not a postcode of Denmark; expected 4 digits/);
    await page.getByLabel('Postal code').fill('1620');
    await page.getByRole('button', { name: 'Ask the carriers' }).click();
    await seeText(page, /No carrier gave a price for this shipment\./);
    await seeText(page, /Sandbox parcels: Sandbox parcels \(sandbox\) has no rating API/);
    await look(page, 'shipment-new-carrier-prices');
    ok('the carriers asked for prices from the new shipment form, and why none answered');

    // Search: by receiver, by tracking number; the carrier filter.
    const freight = await api('POST', '/carriers', { name: 'Nordic freight', carrierSlug: 'sandbox', config: {}, senderAddressId: senderId });
    await api('POST', '/shipments', {
      reference: 'FREIGHT-1', senderAddressId: senderId, type: 'outbound',
      parties: [{ type: 'receiver', name: 'Tove Ditlevsen', address1: 'Istedgade 40', postalCode: '1650', city: 'København V', countryCode: 'DK' }],
      carrierSettings: { carrierId: freight.id, productId: 'express' }, parcels: [{ weight: 12 }],
    });
    const listed = async () => page.$$eval('#bulk tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent.trim()));
    await page.getByRole('link', { name: 'Shipments', exact: true }).click();
    await page.getByLabel('Search').fill('Dinesen');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === 'Dinesen');
    assert.deepEqual(await listed(), ['RATE-1'], 'a receiver\'s name finds their shipment only');
    await look(page, 'shipments-searched');
    const webId = (await api('GET', '/shipments?limit=100')).data.find((x) => x.reference === 'WEB-1001').id;
    const booked = await api('GET', `/shipments/${webId}`);
    const tracking = booked.parcels.map((x) => x.trackingNumber).find(Boolean) || booked.tracking?.number;
    assert.ok(tracking, `WEB-1001 has a tracking number: ${JSON.stringify(booked).slice(0, 300)}`);
    await page.getByLabel('Search').fill(tracking);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === tracking);
    assert.deepEqual(await listed(), ['WEB-1001'], 'a tracking number finds its shipment only');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Carrier').selectOption({ label: 'Nordic freight' });
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL((url) => url.searchParams.get('carrier') === freight.id);
    assert.deepEqual(await listed(), ['FREIGHT-1'], 'the carrier filter lists that carrier\'s shipments only');
    await page.getByLabel('Carrier').selectOption({ label: 'Sandbox parcels' });
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL((url) => url.searchParams.get('carrier') === carrierId);
    const others = await listed();
    assert.ok(others.includes('RATE-1') && !others.includes('FREIGHT-1'), `the other carrier's list: ${others}`);
    ok('the shipments list searched by receiver and tracking number, and filtered by carrier');

    // Split: one of a parcel's two order lines moves to a new shipment.
    const whole = await api('POST', '/shipments', {
      reference: 'SPLIT-1', senderAddressId: senderId, type: 'outbound',
      parties: [{ type: 'receiver', name: 'Tove Ditlevsen', address1: 'Istedgade 40', postalCode: '1650', city: 'København V', countryCode: 'DK' }],
      carrierSettings: { carrierId, productId: 'standard' },
      parcels: [{ weight: 2, orderLines: [{ sku: 'MUG-1', description: 'Mug', quantity: 2 }, { sku: 'TEE-1', description: 'T-shirt', quantity: 1 }] }],
    });
    await page.goto(`${BASE_URL}${app(`shipments/${whole.id}`)}`);
    const split = page.getByRole('group', { name: 'Split parcel 1 off' });
    await split.waitFor();
    await look(page, 'shipment-split');
    await split.getByRole('checkbox', { name: '1 × TEE-1 (T-shirt)' }).check();
    await split.getByLabel("New shipment's reference").fill('SPLIT-1B');
    await split.getByRole('button', { name: 'Split into a new shipment' }).click();
    await page.waitForURL((url) => url.pathname.startsWith(app('shipments/shp_')) && !url.pathname.endsWith(whole.id));
    await seeText(page, /Shipment SPLIT-1B.*Split off: this is the new shipment\./);
    assert.match(await textOf(page), /1 × TEE-1/);
    assert.doesNotMatch(await textOf(page), /MUG-1/);
    const left = await api('GET', `/shipments/${whole.id}`);
    assert.deepEqual(left.parcels.flatMap((x) => x.orderLines.map((l) => l.sku)), ['MUG-1'], 'the mugs stay behind');
    ok('a parcel\'s order line split off into a new shipment');

    // Settings → Printers: a test page on the loopback printer.
    const jobsBefore = printer.jobs.length;
    await page.goto(`${BASE_URL}${app('settings/printers')}`);
    await page.getByRole('button', { name: 'Print a test page on Packing desk' }).click();
    await seeText(page, /A test page is queued \(job [^)]+\); it shows in the printer's jobs below\./);
    await waitFor('the test page at the raw printer', () => printer.jobs.length === jobsBefore + 1);
    assert.equal(printer.jobs.at(-1).subarray(0, 5).toString(), '%PDF-', 'the test page is a PDF');
    const testRow = page.locator('tbody tr')
      .filter({ has: page.locator('td', { hasText: /^Test page$/ }) })
      .filter({ has: page.locator('td', { hasText: /^printed$/ }) });
    await reloadUntil(page, 'the test page listed as printed', async () => (await testRow.count()) === 1);
    await look(page, 'settings-printers-test');
    ok('a test page printed on the printer from Settings → Printers');

    // Pickups: a driver booked for a booked shipment (a window that ends before it starts shown
    // at its input first), then cancelled.
    await page.goto(`${BASE_URL}${app('pickups')}`);
    await page.getByLabel('Carrier').selectOption({ label: 'Sandbox parcels' });
    const waiting = page.getByRole('checkbox', { name: /· Sandbox parcels$/ }).first();
    await waiting.check();
    await page.getByLabel('Until').fill('08:00');
    await page.getByLabel('Note for the driver').fill('Ring at the gate');
    await page.getByRole('button', { name: 'Book the pickup' }).click();
    await seeText(page, /must be later than readyFrom/);
    assert.equal(await page.locator('input[name=readyUntil][aria-invalid=true]').count(), 1, 'the window is marked in place');
    assert.equal(await page.getByRole('checkbox', { checked: true }).count(), 1, 'the chosen shipment is kept');
    await look(page, 'pickups-error');
    await page.getByLabel('Until').fill('16:00');
    await page.getByRole('button', { name: 'Book the pickup' }).click();
    await seeText(page, /Pickup booked for \d{4}-\d{2}-\d{2}: confirmation SBXPU\d{10}\./);
    const pickedUp = (await api('GET', '/pickups')).data[0];
    assert.equal(pickedUp.status, 'booked');
    assert.equal(pickedUp.shipmentIds.length, 1);
    assert.equal(pickedUp.note, 'Ring at the gate');
    await look(page, 'pickups');
    await page.getByRole('button', { name: new RegExp(`^Cancel the pickup of .*${pickedUp.confirmationNumber}`) }).click();
    await seeText(page, /Pickup cancelled\./);
    assert.equal((await api('GET', `/pickups/${pickedUp.id}`)).status, 'cancelled');
    ok('a pickup booked for a waiting shipment (its error shown in place first) and cancelled');

    // End of day: the sandbox carrier's day closed, its manifest opened as a PDF and printed.
    await page.goto(`${BASE_URL}${app('end-of-day')}`);
    await page.getByLabel('Carrier').selectOption({ label: 'Sandbox parcels' });
    await page.getByRole('button', { name: 'Close the day' }).click();
    await seeText(page, /Day closed: \d+ shipments?, \d+ parcels?, [\d.]+ kg\./);
    const manifest = (await api('GET', '/manifests')).data[0];
    assert.ok(manifest.shipmentCount > 0, 'the day had booked shipments');
    const pdfLink = page.getByRole('link', { name: new RegExp(`^PDF of the manifest of ${manifest.date}`) }).first();
    const manifestPdf = await page.request.get(`${BASE_URL}${await pdfLink.getAttribute('href')}`);
    assert.equal(manifestPdf.headers()['content-type'], 'application/pdf');
    assert.equal((await manifestPdf.body()).subarray(0, 5).toString(), '%PDF-', 'the manifest opens as a PDF');
    const printedBefore = printer.jobs.length;
    await page.getByRole('button', { name: new RegExp(`^Print the manifest of ${manifest.date}`) }).first().click();
    await seeText(page, /The manifest is sent to the printer\./);
    await waitFor('the manifest at the raw printer', () => printer.jobs.length === printedBefore + 1);
    assert.equal(printer.jobs.at(-1).subarray(0, 5).toString(), '%PDF-', 'the manifest prints as a PDF');
    await page.getByLabel('Carrier').selectOption({ label: 'Sandbox parcels' });
    await page.getByRole('button', { name: 'Close the day' }).click();
    await seeText(page, /Sandbox parcels \(sandbox\) has no booked shipments left to close/);
    await look(page, 'end-of-day');
    ok('the day closed for a carrier, its manifest opened as a PDF and printed; a second close finds nothing');

    // Settings → Webhooks: a webhook to a local receiver, a test event, a failed delivery replayed.
    const hookUrl = `http://127.0.0.1:${hooks.port}/shipbase`;
    await page.goto(`${BASE_URL}${app('settings/webhooks')}`);
    await page.getByLabel('Name', { exact: true }).fill('Warehouse system');
    await page.getByLabel(/^URL/).fill(hookUrl);
    await page.getByLabel(/^Events/).fill('shipment.created');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await seeText(page, /The signing secret \(shown only now\):/);
    const secret = (await page.locator('section.notice code').textContent()).trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/, 'the signing secret is shown');
    await look(page, 'settings-webhooks-secret');
    // (The secret is the answer to the POST; opened again, the page lists the webhook without it.)
    await page.goto(`${BASE_URL}${app('settings/webhooks')}`);
    assert.match(await textOf(page), /Deliveries to http:\/\/127\.0\.0\.1/, 'the webhook is listed');
    assert.doesNotMatch(await textOf(page), /whsec_/, 'the secret is shown only once');
    await page.getByRole('button', { name: `Send a test event to ${hookUrl}` }).click();
    await seeText(page, /The test event was delivered\./);
    assert.equal(hooks.hits.length, 1);
    assert.equal(hooks.hits[0].event.type, 'webhook.test');
    assert.ok(signedWith(hooks.hits[0], secret), 'the test event is signed with the secret shown');
    assert.match(await textOf(page), /webhook\.test/, 'the test delivery is in the log');
    ok('a webhook added (its secret shown once) and a test event delivered');

    hooks.state.failures = 1;
    await api('POST', '/shipments', {
      reference: 'HOOK-1', senderAddressId: senderId, type: 'outbound',
      parties: [{ type: 'receiver', name: 'Tove Ditlevsen', address1: 'Istedgade 40', postalCode: '1650', city: 'København V', countryCode: 'DK' }],
      carrierSettings: { carrierId, productId: 'standard' }, parcels: [{ weight: 1 }],
    });
    const created = () => hooks.hits.filter((h) => h.event.type === 'shipment.created');
    await waitFor('the event refused once, then delivered', () => created().length >= 2);
    const [refusedOnce, deliveredAfter] = created();
    assert.equal(refusedOnce.status, 500);
    assert.equal(deliveredAfter.status, 200);
    const eventId = refusedOnce.headers['webhook-id'];
    assert.equal(deliveredAfter.headers['webhook-id'], eventId, 'a retry carries the same webhook-id');
    assert.equal(refusedOnce.event.data.reference, 'HOOK-1');
    const failedRow = page.locator('tr')
      .filter({ has: page.locator('td', { hasText: /^500$/ }) })
      .filter({ has: page.locator('td', { hasText: /^shipment\.created$/ }) });
    await reloadUntil(page, 'both attempts in the delivery log', async (p) => (await failedRow.count()) === 1
      && (await p.locator('tr').filter({ has: p.locator('td', { hasText: /^200$/ }) })
        .filter({ has: p.locator('td', { hasText: /^shipment\.created$/ }) }).count()) === 1);
    await look(page, 'settings-webhooks-deliveries');
    await failedRow.getByRole('button', { name: /^Replay shipment\.created \(attempt \d+ at / }).click();
    await seeText(page, new RegExp(`The shipment\\.created event ${eventId} is queued to be sent again`));
    await waitFor('the replayed event', () => created().length === 3);
    const replayed = created()[2];
    assert.equal(replayed.headers['webhook-id'], eventId, 'the replay carries the same webhook-id');
    assert.equal(replayed.status, 200);
    assert.ok(signedWith(replayed, secret), 'the replay is signed');
    ok('a delivery that failed (500) replayed from the log, with the same webhook-id');

    // Settings → Branding: name, colour and an uploaded logo.
    const logoFile = path.join(scratch, 'logo.png');
    writeFileSync(logoFile, logoPng());
    await page.goto(`${BASE_URL}${app('settings/branding')}`);
    await page.getByLabel('Name customers see').fill('Wares & Co. Shop');
    await page.getByLabel('Colour').fill('#0a7d5a');
    await page.getByLabel(/^Logo/).setInputFiles(logoFile);
    await page.getByRole('button', { name: 'Save the branding' }).click();
    await seeText(page, /The branding is saved\./);
    const logo = page.getByRole('img', { name: 'The logo of Wares & Co. Shop' });
    await logo.waitFor();
    await page.waitForFunction(() => { const i = document.querySelector('img.logo'); return i && i.complete && i.naturalWidth > 0; });
    assert.equal(await logo.evaluate((i) => i.naturalWidth), 96, 'the logo uploaded is the one shown');
    assert.equal(await page.getByLabel('Colour').inputValue(), '#0a7d5a');
    assert.match(await textOf(page), /Colour #0a7d5a/);
    await look(page, 'settings-branding-saved');
    ok('the branding changed: name, colour and an uploaded logo');

    // The shop's customers: a booked shipment's e-mail reaches the receiver (through the local
    // SMTP sink), shows on the shipment's page, and its unsubscribe page works; the returns
    // portal finds an order (not a wrong one), books the return and shows its label.
    {
      await api('PUT', '/notification-settings', { booked: { enabled: true } });
      const mailed = await api('POST', '/shipments', {
        reference: 'MAIL-1', senderAddressId: senderId, type: 'outbound',
        parties: [{ type: 'receiver', name: 'Astrid Lindgren', address1: 'Dalagatan 46', postalCode: '11324',
          city: 'Stockholm', countryCode: 'SE', email: 'astrid@example.se' }],
        carrierSettings: { carrierId, productId: 'standard' }, parcels: [{ weight: 1 }],
      });
      await api('POST', `/shipments/${mailed.id}/book`);
      await waitFor('the booked e-mail', () => sink.messages.some((m) => m.includes('astrid@example.se')));
      const message = sink.messages.find((m) => m.includes('astrid@example.se'));
      const unfolded = message.replace(/\r\n[ \t]+/g, ' ');
      const link = (unfolded.match(/^List-Unsubscribe: <([^>]+)>/m) || [])[1];
      assert.ok(link && link.startsWith(`${BASE_URL}/u/ntf_`), `an unsubscribe link: ${unfolded.slice(0, 800)}`);
      // Sent once the server has heard the sink's answer: the page says so after a reload.
      for (let tries = 0; ; tries += 1) {
        await page.goto(`${BASE_URL}${app(`shipments/${mailed.id}`)}`);
        if (/E-mails to the receiver Booked, to astrid@example\.se: sent/.test(await textOf(page))) break;
        assert.ok(tries < 50, `the e-mail is logged as sent: ${(await textOf(page)).slice(-600)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await look(page, 'shipment-mails');
      const customer = await context.newPage();
      await customer.goto(link);
      assert.equal(await customer.getAttribute('html', 'lang'), 'sv');
      await look(customer, 'unsubscribe-ask');
      await customer.getByRole('button', { name: 'Avregistrera' }).click();
      await seeText(customer, /får inga fler mejl om leveranser/);
      await look(customer, 'unsubscribe-done');
      ok('the booked e-mail sent, logged on the shipment, and its unsubscribe page works');

      const org = await api('GET', '');
      const rule = await api('POST', '/shipping-rules', {
        name: 'Returns', carrierId, productId: 'standard', senderAddressId: senderId,
      });
      await api('PUT', '/returns-portal', { enabled: true, shippingRuleId: rule.id, reasons: ['Too small', 'Changed my mind'] });
      await customer.setExtraHTTPHeaders({ 'Accept-Language': 'en' });
      await customer.goto(`${BASE_URL}/r/${org.slug}`);
      await look(customer, 'returns-portal-find');
      await customer.getByLabel('Order number').fill('SO-7001');
      await customer.getByLabel('E-mail address or postcode').fill('9999');
      await customer.getByRole('button', { name: 'Find my order' }).click();
      await seeText(customer, /We found no order with these details\./);
      await look(customer, 'returns-portal-not-found');
      await customer.getByLabel('E-mail address or postcode').fill('1450');
      await customer.getByRole('button', { name: 'Find my order' }).click();
      await seeText(customer, /Choose what you send back/);
      await customer.getByLabel('Quantity to return').selectOption('1');
      await customer.getByLabel('Reason').selectOption('Too small');
      await look(customer, 'returns-portal-pick');
      await customer.getByRole('button', { name: 'Create my return label' }).click();
      await seeText(customer, /Your return label is ready/);
      await look(customer, 'returns-portal-done');
      const href = await customer.getByRole('link', { name: 'Download the return label (PDF)' }).getAttribute('href');
      const label = await fetch(`${BASE_URL}${href}`);
      assert.equal(label.status, 200);
      assert.ok(Buffer.from(await label.arrayBuffer()).subarray(0, 5).toString() === '%PDF-', 'the label is a PDF');
      await customer.close();
      ok('the returns portal: a wrong order refused alike, the right one returned with its label');
    }

    // A member: the day's pages, but not the API tokens.
    const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const member = await signIn(memberContext, env('MEMBER_EMAIL'), env('MEMBER_PASSWORD'));
    const refused = await member.goto(`${BASE_URL}${app('settings/api-tokens')}`);
    assert.equal(refused.status(), 403);
    assert.match(await textOf(member), /needs the admin role/);
    await look(member, 'member-403');
    ok('a member is refused Settings → API tokens, naming the role needed');

    // An admin adds a member under Settings → Members.
    const adminContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    adminContext.setDefaultTimeout(15_000);
    const admin = await signIn(adminContext, env('ADMIN_EMAIL'), env('ADMIN_PASSWORD'));
    admin.on('console', (msg) => { if (msg.type() === 'error') errors.push(`${admin.url()}: ${msg.text()}`); });
    await admin.getByRole('link', { name: 'Settings' }).click();
    await admin.getByRole('link', { name: 'Members' }).click();
    await admin.waitForURL((url) => url.pathname === app('settings/members'));
    const addForm = admin.locator('form', { has: admin.getByRole('heading', { name: 'Add', exact: true }) });
    await addForm.getByLabel('E-mail').fill('nina@wares.test');
    await addForm.getByLabel('Name', { exact: true }).fill('Nina Nilsson');
    await addForm.getByLabel('Role').selectOption({ label: 'Member' });
    await addForm.getByRole('button', { name: 'Add', exact: true }).click();
    await seeText(admin, /Added\./);
    const newRow = admin.locator('tbody tr', { hasText: 'nina@wares.test' });
    assert.equal(await newRow.count(), 1, 'the new member is listed');
    assert.deepEqual(await newRow.locator('td').allTextContents(), ['Nina Nilsson', 'nina@wares.test', 'member', '—']);
    await look(admin, 'settings-members-admin');
    ok('an admin adds a member under Settings → Members');

    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    printer.server.close();
    hooks.server.close();
    sink.server.close();
    rmSync(scratch, { recursive: true, force: true });
    await browser.close();
  }
}

main().then(() => ok('workbench flow done'), (err) => { console.error(err); process.exit(1); });
