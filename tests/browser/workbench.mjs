// Real-browser test of the workbench at /app (DESIGN §20): an owner sets up a sender address, a
// carrier and a printer through the Settings forms, makes a shipment with the New shipment form
// and books it, ships an order from the inbox, books one by scanning its reference; a member
// is refused the API tokens page. axe-core checks every page (no serious or critical
// violation), and every page is photographed at 1280 px and 390 px (phone) width, where it must
// not scroll sideways. Run by .ci/browser.sh, which starts the server and sets:
//
//   BASE_URL, EMAIL, PASSWORD (an owner of one organization), ORG_ID, TOKEN (an API token of
//   it), MEMBER_EMAIL, MEMBER_PASSWORD (a member of it), SCREENSHOTS, CHROMIUM
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
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
  assert.ok(overflow <= 1, `${name}: the page scrolls sideways by ${overflow}px on a phone`);
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

async function waitFor(what, check, ms = 15_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const printer = await rawPrinter();
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

    for (const sub of ['shipping-rules', 'webhooks', 'order-channels', 'api-tokens', 'members', 'usage', 'audit', 'branding']) {
      await page.goto(`${BASE_URL}${app(`settings/${sub}`)}`);
      await look(page, `settings-${sub}`);
    }
    ok('every settings page passes axe and fits a phone');

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
    assert.match(await textOf(page), /Label \(pdf/);
    await look(page, 'shipment-booked');
    ok('a shipment made with the form and booked');

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

    await page.getByRole('link', { name: 'Orders' }).click();
    assert.match(await textOf(page), /SO-7001/);
    await look(page, 'orders');
    await page.getByRole('link', { name: 'SO-7001' }).click();
    await look(page, 'order');
    await page.getByRole('button', { name: 'Make the shipment and book it' }).click();
    assert.match(await textOf(page), /Shipment made and booked\. 1 label sent to this station's printer\./);
    await waitFor('the label at the raw printer', () => printer.jobs.length === 1);
    assert.ok(printer.jobs[0].subarray(0, 5).toString() === '%PDF-', 'the printer got a PDF label');
    const shipped = await api('GET', `/orders/${order.id}`);
    assert.equal(shipped.shipments.length, 1, 'the order has its shipment');
    ok('an order shipped and booked from the inbox');

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
    await page.keyboard.type('SCAN-42');
    await page.keyboard.press('Enter');
    await page.getByText('SCAN-42 is booked').waitFor();
    assert.match(await textOf(page), /SCAN-42 is booked\. 1 label sent to this station's printer\./);
    await waitFor('the label of the scanned shipment', () => printer.jobs.length === 2);
    ok('scanning a reference books its shipment and prints its label');

    // The label opens in the browser, ready to print.
    const label = page.getByRole('link', { name: /^Label \(pdf/ });
    const href = await label.getAttribute('href');
    const file = await page.request.get(`${BASE_URL}${href}`);
    assert.equal(file.status(), 200);
    assert.equal(file.headers()['content-type'], 'application/pdf');
    assert.ok((await file.body()).subarray(0, 5).toString() === '%PDF-');
    ok('the label opens as a PDF');

    // A member: the day's pages, but not the API tokens.
    const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const member = await signIn(memberContext, env('MEMBER_EMAIL'), env('MEMBER_PASSWORD'));
    const refused = await member.goto(`${BASE_URL}${app('settings/api-tokens')}`);
    assert.equal(refused.status(), 403);
    assert.match(await textOf(member), /needs the admin role/);
    await look(member, 'member-403');
    ok('a member is refused Settings → API tokens, naming the role needed');

    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    printer.server.close();
    await browser.close();
  }
}

main().then(() => ok('workbench flow done'), (err) => { console.error(err); process.exit(1); });
