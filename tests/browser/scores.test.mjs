// `rooflens history --scores --html`: real Chromium opens the leaderboard page of a real results database (score
// results stored with `rooflens db import`, machine names carrying HTML): a table per suite × mode with 95%
// intervals, quick apart from full, the projected row labelled PROJECTED and ranked apart, one chart per machine
// whose bars decompose each category into roof ratio × efficiency; names shown as text, nothing injected, no request.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted} from './checks.mjs';
import {HOSTILE} from './onnx_writer.mjs';

const rooflens = process.env.ROOFLENS_BINARY;
let browser, dir;

function run(args) {
  const r = spawnSync(rooflens, args, {encoding: 'utf8'});
  return {rc: r.status, out: r.stdout, err: r.stderr};
}

function aggregate(name, score, roofRatio) {
  return {name, score, ci: {low: score * 0.95, high: score * 1.05}, roof_ratio: roofRatio,
    efficiency: score / 1000 / roofRatio, members: 2, valid_members: 2, incomplete: false,
    explanation: `${name} ${(score / 1000).toFixed(2)}× the reference: roof ${roofRatio.toFixed(2)}×`};
}

// A rooflens.score/1 result as `score -o` writes it (workloads left out: the leaderboard reads the aggregates).
function score(cpu, {quick = false, kind = 'measured', device = '', day = 1, overall, cats}) {
  return {
    schema: 'rooflens.score/1', suite: 'v1', quick, kind, device, created_at: `2026-03-0${day}T08:00:00.000000Z`,
    machine: {machine: {vendor: 'x', model: cpu, sockets: 1, cores: 4, threads: 8, numa_nodes: 1,
      memory_bytes: 16 * 2 ** 30, mhz: 0, os: 'Debian 12', kernel: '6.1', isa: ['avx2', 'fma'], caches: []},
    cores_used: 4, tool: {name: 'rooflens', version: '0.1.0', command: 'score'},
    runtime: {name: 'onnxruntime', version: '1.30.0', options: {}, runtime: 'onnxruntime-node 1.30.0', label: 'onnxruntime'},
    roofs: kind === 'projected' ? 'datasheet' : 'measured'},
    repetitions: 3, ci_method: 't-based', workloads: [],
    categories: cats.map(([n, s, r]) => aggregate(n, s, r)), overall: aggregate('overall', overall, 1.5),
    partial: false, seconds: 100, warnings: [],
  };
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-scores-browser-'));
  const cats = (a, b) => [['fp32 latency', a, 1.2], ['int8 throughput', b, 0.8]];
  const files = {
    fast: score('Fast CPU', {overall: 2000, cats: cats(2100, 1900)}),
    hostile: score(HOSTILE[0], {day: 2, overall: 900, cats: cats(800, 1000)}),
    quick: score('Quick CPU', {quick: true, day: 3, overall: 950, cats: cats(950, 950)}),
    projected: score('Fast CPU', {kind: 'projected', device: HOSTILE[1], day: 4, overall: 40000, cats: cats(40000, 40000)}),
  };
  const paths = Object.entries(files).map(([name, s]) => {
    const p = path.join(dir, name + '.json');
    fs.writeFileSync(p, JSON.stringify(s, null, 1));
    return p;
  });
  const db = 'sqlite:' + path.join(dir, 's.db');
  const imported = run(['db', 'import', '-q', ...paths, '--db', db]);
  assert.equal(imported.rc, 0, imported.err);
  const listed = run(['history', '--scores', '-q', '--db', db, '--html', path.join(dir, 's.html')]);
  assert.equal(listed.rc, 0, listed.err);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  fs.rmSync(dir, {recursive: true, force: true});
});

test('the leaderboard page: tables with intervals, quick apart, projected labelled, a chart per machine', async () => {
  const {page, seen, url} = await openReport(browser, path.join(dir, 's.html'));
  assert.deepEqual(seen.refused, [], 'no request beyond the page');
  assert.deepEqual([seen.consoleErrors, seen.pageErrors, seen.dialogs], [[], [], []]);
  assert.equal(seen.requests.filter((u) => u !== url).length, 0);
  await assertChartsPainted(page, ['machine-0-0', 'machine-0-1', 'machine-0-2', 'machine-1-0']);
  const full = await page.$$eval('#scores-0 tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.innerText)));
  assert.equal(full.length, 3);
  assert.deepEqual(full.map((r) => r[0]), ['1', '2', 'P1']);
  assert.equal(full[0][1], 'Fast CPU · 4 of 4 cores · onnxruntime 1.30.0');
  assert.equal(full[1][1], HOSTILE[0] + ' · 4 of 4 cores · onnxruntime 1.30.0', 'the hostile CPU name is text');
  assert.deepEqual(full[0].slice(2, 6), ['measured', '2000', '[1900, 2100]', '1.50× × 1.33×']);
  assert.equal(full[2][2], 'PROJECTED');
  assert.ok(full[2][1].startsWith('PROJECTED ' + HOSTILE[1]), full[2][1]);
  const quick = await page.innerText('#group-1');
  assert.match(quick, /quick \(a subset with shorter runs: never compared with full\)/);
  assert.match(quick, /Quick CPU/);
  assert.ok(!(await page.innerText('#group-0')).includes('Quick CPU'), 'the quick score is not in the full ranking');
  // The decomposition chart: score / 1000, roof ratio and efficiency per category and overall.
  const series = await page.evaluate(() => echarts.getInstanceByDom(document.getElementById('machine-0-0'))
    .getOption().series.map((s) => [s.id, s.data.map((v) => Number(v.toFixed(3)))]));
  assert.deepEqual(series, [['score', [2.1, 1.9, 2]], ['roof-ratio', [1.2, 0.8, 1.5]], ['efficiency', [1.75, 2.375, 1.333]]]);
  const dom = await page.evaluate(() => ({
    scripts: document.scripts.length, images: document.images.length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
  }));
  assert.deepEqual(dom, {scripts: 3, images: 0, handlers: 0}, 'nothing injected');
});
