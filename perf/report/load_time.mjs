// `make bench`, part 6: how long the HTML report takes to load in headless Chromium with 5,000 layers (~8,000
// ONNX nodes in the graph view). Load time = navigation start → every chart drawn and the graph view's first
// screen laid out and painted (the page sets html[data-ready]); the graph's remaining segments are laid out in
// the background afterwards, and "graph all ms" is when the last one is done (navigation start → that).
// Five loads, each in a fresh tab of one browser; the first (cold: ECharts compiled for the first time) is shown
// apart.
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
const report = syntheticReport(LAYERS);
const NODES = report.model.analysis.nodes.length;
fs.writeFileSync(json, JSON.stringify(report));
const t0 = Date.now();
const made = spawnSync(rooflens, ['report', json, '-o', html, '-q'], {encoding: 'utf8'});
if (made.status !== 0) throw new Error('rooflens report failed: ' + made.stderr);
const writeMs = Date.now() - t0;
const pageMb = fs.statSync(html).size / 1e6;

const browser = await launch();
const times = [], graphAll = [];
try {
  for (let i = 0; i < LOADS; i++) {
    const {page, seen, readyMs} = await openReport(browser, html);
    if (seen.consoleErrors.length || seen.pageErrors.length) throw new Error('page errors: ' + seen.consoleErrors.concat(seen.pageErrors));
    times.push(readyMs);
    await page.waitForFunction(() => document.getElementById('graph-port').dataset.laidOut === 'all', null, {timeout: 120000});
    graphAll.push(Math.round(await page.evaluate(() => performance.getEntriesByName('rooflens:graph-laid-out')[0].startTime)));
    await page.close();
  }
} finally {
  await browser.close();
  fs.rmSync(dir, {recursive: true, force: true});
}
const warm = times.slice(1).sort((a, b) => a - b);
const median = warm[Math.floor(warm.length / 2)];
const graphMedian = graphAll.slice(1).sort((a, b) => a - b)[Math.floor((graphAll.length - 1) / 2)];
console.log('HTML report load (headless Chromium, synthetic report, ' + LAYERS.toLocaleString('en-US') + ' layers x 2 runs, ' +
  NODES.toLocaleString('en-US') + ' graph nodes)   target: ≤ ' + TARGET_MS + ' ms (median, to the first screen)');
console.log(['layers', 'page MB', 'write ms', 'cold ms', 'median ms', 'max ms', 'graph all ms', 'verdict'].map((s, i) => (i ? s.padStart(12) : s.padEnd(8))).join(' '));
console.log([String(LAYERS).padEnd(8), pageMb.toFixed(1).padStart(12), String(writeMs).padStart(12), String(times[0]).padStart(12),
  String(median).padStart(12), String(Math.max(...warm)).padStart(12), String(graphMedian).padStart(12),
  (median <= TARGET_MS ? 'ok' : 'MISSED').padStart(12)].join(' '));
console.log('(load average ' + fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') + ')');
