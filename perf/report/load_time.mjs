// `make bench`, part 4: how long the HTML report takes to load in headless Chromium with 5,000 layers.
// Load time = navigation start → every chart drawn (the page sets html[data-ready]). Five loads, each in a
// fresh tab of one browser; the first (cold: ECharts compiled for the first time) is shown apart.
//   node perf/report/load_time.mjs path/to/rooflens
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {launch, openReport} from '../../tests/browser/browser.mjs';
import {syntheticReport} from '../../tests/browser/make_synthetic_report.mjs';

const TARGET_MS = 2000, LOADS = 5, LAYERS = 5000;
const rooflens = process.argv[2];
if (!rooflens) {
  console.error('usage: load_time.mjs ROOFLENS_BINARY');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-bench-report-'));
const json = path.join(dir, 'synthetic.json'), html = path.join(dir, 'synthetic.html');
fs.writeFileSync(json, JSON.stringify(syntheticReport(LAYERS)));
const t0 = Date.now();
const made = spawnSync(rooflens, ['report', json, '-o', html, '-q'], {encoding: 'utf8'});
if (made.status !== 0) throw new Error('rooflens report failed: ' + made.stderr);
const writeMs = Date.now() - t0;
const pageMb = fs.statSync(html).size / 1e6;

const browser = await launch();
const times = [];
try {
  for (let i = 0; i < LOADS; i++) {
    const {page, seen, readyMs} = await openReport(browser, html);
    if (seen.consoleErrors.length || seen.pageErrors.length) throw new Error('page errors: ' + seen.consoleErrors.concat(seen.pageErrors));
    times.push(readyMs);
    await page.close();
  }
} finally {
  await browser.close();
  fs.rmSync(dir, {recursive: true, force: true});
}
const warm = times.slice(1).sort((a, b) => a - b);
const median = warm[Math.floor(warm.length / 2)];
console.log('HTML report load (headless Chromium, synthetic report, ' + LAYERS.toLocaleString('en-US') + ' layers x 2 runs)   target: ≤ ' + TARGET_MS + ' ms');
console.log(['layers', 'page MB', 'write ms', 'cold ms', 'median ms', 'max ms', 'verdict'].map((s, i) => (i ? s.padStart(10) : s.padEnd(8))).join(' '));
console.log([String(LAYERS).padEnd(8), pageMb.toFixed(1).padStart(10), String(writeMs).padStart(10), String(times[0]).padStart(10),
  String(median).padStart(10), String(Math.max(...warm)).padStart(10), (median <= TARGET_MS ? 'ok' : 'MISSED').padStart(10)].join(' '));
