// Headless Debian Chromium driven by playwright-core (from web/node_modules), with the network off: every request
// is recorded, only the page's own file:// URL may load, anything else is aborted and reported.
import {createRequire} from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(repoRoot, 'web', 'package.json'));
const {chromium} = require('playwright-core');

export const CHROMIUM = process.env.ROOFLENS_CHROMIUM || '/usr/bin/chromium';

// Flags known to work headless as root on our machines; nothing phones home.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export async function launch() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: {width: 1400, height: 900}, offline: true,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, {recursive: true, force: true});
    },
  };
}

// Opens an HTML file; resolves once the page marks itself ready (html[data-ready]: every chart drawn).
// Returns the page with what it did: console errors, page errors, dialogs, requests (allowed and refused).
export async function openReport(browser, file, {colorScheme = 'light'} = {}) {
  const url = pathToFileURL(path.resolve(file)).href;
  const page = await browser.context.newPage();
  await page.emulateMedia({colorScheme});
  const seen = {consoleErrors: [], pageErrors: [], dialogs: [], requests: [], refused: []};
  page.on('console', (m) => { if (m.type() === 'error') seen.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => seen.pageErrors.push(String(e)));
  page.on('dialog', async (d) => { seen.dialogs.push(d.message()); await d.dismiss(); });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    seen.requests.push(u);
    if (u === url) return route.continue();
    seen.refused.push(u);
    return route.abort();
  });
  const t0 = Date.now();
  await page.goto(url, {waitUntil: 'load'});
  await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, null, {timeout: 30000});
  const wallMs = Date.now() - t0;
  const readyMs = Number(await page.evaluate(() => document.documentElement.dataset.ready));
  return {page, seen, url, wallMs, readyMs};
}
