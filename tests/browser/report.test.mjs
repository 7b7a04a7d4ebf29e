// The HTML report in real Chromium: a real resnet50 profile, a synthetic 5,000-layer report and a static
// (analyze) report. Fixtures come from fixtures.mjs (ctest runs it first).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted, assertNoNetworkOrErrors, rooflineSeries, scrollTable, tableRows} from './checks.mjs';
import {file} from './fixtures.mjs';

const RUN_CHARTS = ['roofline-chart', 'breakdown-chart', 'latency-chart', 'timeline-chart', 'memory-chart'];
const SWEEP_CHARTS = ['sweep-latency-chart', 'sweep-throughput-chart', 'sweep-gflops-chart'];
const readJson = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8'));
const placed = (layers) => layers.filter((l) => l.flops > 0 && l.time_ms > 0 && l.bytes > 0);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

// The checks every profile report gets; returns the opened page.
async function checkProfileReport(t, name) {
  const report = readJson(name + '.json');
  const {page, seen, url, readyMs} = await openReport(browser, file(name + '.html'));
  const size = fs.statSync(file(name + '.html')).size;
  t.diagnostic(name + '.html: ' + (size / 1e6).toFixed(2) + ' MB, ready ' + readyMs + ' ms after navigation start');
  console.log(name + '.html: load time ' + readyMs + ' ms (' + (size / 1e6).toFixed(2) + ' MB)');
  assertNoNetworkOrErrors(seen, url);
  // A run without a memory section (the synthetic report's) draws no memory chart.
  const charts = RUN_CHARTS.filter((c) => c !== 'memory-chart' || report.runs[0].memory);
  await assertChartsPainted(page, [...charts, ...SWEEP_CHARTS]);

  const run = report.runs[0];
  const roof = await rooflineSeries(page);
  assert.ok(roof.ceilings.length >= 2, 'ceilings drawn: ' + roof.ceilings.join(' | '));
  // One dot per layer: those with FLOPs, bytes and time at their coordinates, the others pinned to the corner.
  assert.deepEqual(roof.dots.slice().sort((a, b) => a - b), run.layers.map((_, i) => i), 'one dot per layer');
  const expected = placed(run.layers).map((l) => run.layers.indexOf(l)).sort((a, b) => a - b);
  assert.deepEqual(roof.placed.slice().sort((a, b) => a - b), expected, 'placed dots: the layers with FLOPs, bytes and time');
  const caption = await page.textContent('#roofline .caption');
  assert.ok(caption.startsWith(run.layers.length + ' layers as dots'), caption);
  if (expected.length < run.layers.length) assert.ok(caption.includes((run.layers.length - expected.length) + ' without FLOPs'), caption);
  return {page, report, run, roof};
}

// The memory chart: one step per layer on the timeline's time axis (weights + the activations live while it runs),
// the peak layer named as the report names it, the measured increase drawn beside, and the parts listed.
async function checkMemory(page, run) {
  const m = run.memory;
  const chart = await page.evaluate(() => {
    const c = echarts.getInstanceByDom(document.getElementById('memory-chart'));
    const s = c.getOption().series.find((x) => x.id === 'memory');
    const t = echarts.getInstanceByDom(document.getElementById('timeline-chart'));
    return {data: s.data, peak: s.markPoint && s.markPoint.data[0], line: s.markLine && s.markLine.data[0],
      memoryGrid: c.getOption().grid[0], timelineGrid: t.getOption().grid[0]};
  });
  assert.equal(chart.data.length, 2 * run.layers.length, 'two points (start, end) per layer');
  const weights = m.predicted.weights_bytes + m.predicted.prepacked_bytes;
  run.layers.forEach((l, i) => {
    const own = chart.data.filter((d) => d[2] === i);
    assert.deepEqual(own.map((d) => d[0]), [l.start_ms, l.start_ms + l.time_ms], 'layer ' + i + ' on the timeline axis');
    for (const d of own) assert.equal(d[1], weights + m.curve[i]);
  });
  assert.equal(chart.memoryGrid.left, chart.timelineGrid.left, 'the two charts share their left edge');
  assert.equal(chart.memoryGrid.right, chart.timelineGrid.right);
  assert.equal(chart.peak.name, m.predicted.peak_layer_name);
  assert.equal(chart.peak.coord[1], weights + m.predicted.activations_bytes);
  // The chart draws weights + activations: the line leaves out the runtime's baseline and the node structures.
  assert.ok(m.predicted.structures_bytes > 0, 'the node structures were measured');
  assert.equal(chart.line.yAxis, m.measured.increase_bytes - m.predicted.baseline_bytes - m.predicted.structures_bytes,
    'measured, less the baseline and the node structures');
  assert.ok((await page.textContent('#memory-peak')).startsWith('Peak layer: ' + m.predicted.peak_layer_name + ' ('));
  assert.equal(await page.locator('#memory .memory-parts tbody tr').count(), m.explained.length);
}

async function checkFilterAndSort(page, run) {
  // Filter by op type: only Conv rows, as many as the report has (checked at the top and the bottom).
  await page.selectOption('#filter-op', 'Conv');
  const convs = run.layers.filter((l) => l.op === 'Conv');
  assert.ok(convs.length > 0);
  assert.equal(await page.textContent('#filter-count'), convs.length + ' of ' + run.layers.length + ' layers');
  for (const where of ['top', 'bottom']) {
    await scrollTable(page, where);
    const rows = await tableRows(page);
    assert.ok(rows.length > 0);
    for (const r of rows) assert.equal(r.cells.op, 'Conv', 'row ' + r.seq + ' after filtering by Conv');
    if (where === 'bottom') assert.equal(rows.at(-1).seq, run.layers.lastIndexOf(convs.at(-1)));
  }
  await page.selectOption('#filter-op', '');
  // Sort by time: descending on the first click, ascending on the second; the ends match the report.
  await page.click('#layers .vt-head [data-col="time"]');
  let rows = await tableRows(page);
  let times = rows.map((r) => Number(r.cells.time));
  assert.ok(times.length >= 10);
  for (let i = 1; i < times.length; i++) assert.ok(times[i - 1] >= times[i], 'descending at ' + i + ': ' + times);
  assert.equal(times[0], Number(Math.max(...run.layers.map((l) => l.time_ms)).toFixed(3)));
  await page.click('#layers .vt-head [data-col="time"]');
  rows = await tableRows(page);
  times = rows.map((r) => Number(r.cells.time));
  for (let i = 1; i < times.length; i++) assert.ok(times[i - 1] <= times[i], 'ascending at ' + i + ': ' + times);
  assert.equal(times[0], Number(Math.min(...run.layers.map((l) => l.time_ms)).toFixed(3)));
}

describe('resnet50 profile report', () => {
  test('renders, makes no request, roofline, filter, sort, details', async (t) => {
    assert.ok(fs.statSync(file('resnet50.html')).size <= 4 * 1024 * 1024, 'resnet50.html is at most 4 MB');
    const {page, report, run, roof} = await checkProfileReport(t, 'resnet50');
    assert.ok(!roof.ceilings.some((c) => c.includes('datasheet')), 'measured roofs are not labelled datasheet');
    await checkFilterAndSort(page, run);

    // What the run ran with: the thread count with its source and the pool ORT's profile showed, the runtime's
    // defaults labelled so; under the layer table, where the time between kernels went.
    const facts = await page.textContent('#summary .facts');
    const threads = run.settings.find((s) => s.name === 'intra_op_threads');
    assert.ok(facts.includes('intra_op_threads ' + threads.value + ' (' + threads.source + '; profile: pool ' +
      run.threads_observed.pool), facts);
    assert.ok(/runtime defaults: [^;]*spinning on/.test(facts), facts);
    const balance = await page.textContent('#layer-balance');
    assert.ok(balance.includes('Between kernels, as the runtime timed it: outside the executor ' +
      run.dispatch.outside_executor_ms.toFixed(3) + ' ms'), balance);

    // A fused layer's details list its original ONNX nodes with their shapes and dtypes.
    const fused = run.layers.find((l) => l.onnx_nodes.length >= 3);
    await page.fill('#filter-search', fused.name);
    // Wait for the filtered table itself (the count says it filtered) and for any repaint the shrinking table queued
    // (a scroll event repaints on the next animation frame), so the click lands on the row the test means; then
    // wait for the details of that very layer. Under load, clicking at once hit a row a repaint was replacing.
    await page.waitForFunction((all) => !document.getElementById('filter-count').textContent.startsWith(all + ' of '),
      run.layers.length);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.click('#layers .vt-row[data-seq="' + run.layers.indexOf(fused) + '"]');
    await page.waitForFunction((name) => document.querySelector('#layer-details h3')?.textContent === name, fused.name);
    const details = await page.textContent('#layer-details');
    for (const n of fused.onnx_nodes) assert.ok(details.includes(n), 'details name ' + n);
    assert.ok(details.includes(fused.provider));
    assert.equal(await page.locator('#details-nodes tbody tr').count(), fused.onnx_nodes.length);
    assert.ok(details.includes('float 1x'), 'dtypes and shapes of the nodes');

    await checkMemory(page, run);

    // Another run: the roofline follows it; the light/dark switch redraws every chart without errors.
    await page.selectOption('#run-select', '1');
    const roof2 = await rooflineSeries(page);
    assert.equal(roof2.dots.length, report.runs[1].layers.length);
    assert.equal(roof2.placed.length, placed(report.runs[1].layers).length);
    await page.click('#theme-toggle');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await assertChartsPainted(page, [...RUN_CHARTS, ...SWEEP_CHARTS]);
  });
});

describe('synthetic 5,000-layer report', () => {
  test('renders smoothly with datasheet roofs labelled as such', async (t) => {
    const {page, run, roof} = await checkProfileReport(t, 'synthetic');
    assert.equal(run.layers.length, 5000);
    assert.ok(roof.ceilings.every((c) => c.startsWith('datasheet ')), roof.ceilings.join(' | '));
    assert.ok((await page.textContent('#roofline .caption')).includes('DATASHEET'));
    // The table stays virtual: a few dozen rows in the DOM, not 5,000.
    assert.ok((await page.locator('#layers .vt-row').count()) < 80);
    await checkFilterAndSort(page, run);
    await checkRunToRun(page, readJson('synthetic.json').runs);
  });
});

// The e2e table's run-to-run columns: batch 8 has two repetitions, whose medians the test takes itself.
async function checkRunToRun(page, runs) {
  const table = await page.evaluate(() => {
    const t = document.getElementById('e2e-table');
    const head = [...t.querySelectorAll('thead th')].map((th) => th.textContent);
    return [...t.querySelectorAll('tbody tr')].map((tr) =>
      Object.fromEntries([...tr.children].map((td, i) => [head[i], td.textContent])));
  });
  const median = (v) => { const s = [...v].sort((a, b) => a - b); return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2; };
  const [one, two] = runs;
  const split = [two.latencies_ms.slice(0, 15), two.latencies_ms.slice(15)].map(median);
  const lo = Math.min(...split), hi = Math.max(...split);
  assert.equal(table.length, 2);
  assert.deepEqual([table[0].runs, table[0]['run medians'], table[0]['run spread']], ['1', '—', '—']);
  assert.equal(table[1].runs, '2');
  assert.equal(table[1]['run medians'], lo.toFixed(3) + '–' + hi.toFixed(3));
  assert.equal(table[1]['run spread'], ((hi - lo) / median(two.latencies_ms) * 100).toFixed(1) + '%');
  assert.ok(one.latencies_ms.length === 40 && hi > lo, 'the fixture has distinct run medians');
}

describe('static analysis report', () => {
  test('node table and FLOPs breakdown, no run charts', async (t) => {
    const report = readJson('resnet50.analysis.json');
    const {page, seen, url} = await openReport(browser, file('resnet50.analysis.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['breakdown-chart', 'memory-chart']);
    // The model's own curve: one point per node, the peak at the node the analysis names.
    const mm = report.model.memory;
    const series = await page.evaluate(() => echarts.getInstanceByDom(document.getElementById('memory-chart')).getOption().series[0]);
    assert.equal(series.data.length, report.model.analysis.nodes.length);
    assert.equal(series.markPoint.data[0].name, mm.activations.peak_node_name);
    assert.ok((await page.textContent('#memory .caption')).includes(mm.activations.peak_node_name));
    assert.equal(await page.textContent('#filter-count'), report.model.analysis.nodes.length + ' of ' + report.model.analysis.nodes.length + ' nodes');
    assert.equal(await page.locator('#roofline, #timeline, #latency').count(), 0);
    await page.selectOption('#filter-op', 'Conv');
    for (const r of await tableRows(page)) assert.equal(r.cells.op, 'Conv');
  });
});
