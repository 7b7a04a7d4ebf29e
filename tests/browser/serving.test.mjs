// The HTML report of a real `rooflens capacity --sweep max-batch=1,2,4` of a small zoo llama in Chromium: the sweep's
// statement first, every run in the table, TTFT and TPOT against the max batch with the objectives as lines and the
// prediction dashed, the Pareto front with its knee, and the decode steps on the roofline. Fixtures: fixtures.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted, assertNoNetworkOrErrors, chartSeries} from './checks.mjs';
import {file} from './fixtures.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

describe('serving report', () => {
  test('sweep statement, runs table, TTFT/TPOT vs max batch with objectives, Pareto front, decode roofline', async () => {
    const report = JSON.parse(fs.readFileSync(file('serving.json'), 'utf8'));
    const search = report.serving_search;
    const runs = search.runs;
    assert.equal(runs.length, 3);
    const {page, seen, url} = await openReport(browser, file('serving.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['serving-ttft-chart', 'serving-tpot-chart', 'serving-pareto-chart', 'serving-roofline-chart']);
    const verdict = await page.textContent('#serving-verdicts li');
    assert.ok(verdict.startsWith('sweep of max-batch over 3 runs'), verdict);
    if (search.knee >= 0) assert.ok(verdict.includes('knee at max-batch ' + runs[search.knee].settings.max_batch), verdict);
    // Every run, in the order run, with its own figures.
    const rows = await page.$$eval('#serving-runs-table tbody tr', (trs) => trs.map((r) => [...r.children].map((c) => c.textContent)));
    assert.deepEqual(rows.map((r) => r[0]), runs.map((r) => String(r.settings.max_batch)));
    assert.deepEqual(rows.map((r) => r[12]), runs.map((r) => (r.verdict.valid ? 'VALID' : 'INVALID')));
    // TTFT p99 against the max batch, the objective as a line (10 s), each run's prediction dashed.
    const ttft = await chartSeries(page, 'serving-ttft-chart');
    const p99 = ttft.find((s) => s.id === 'measured p99');
    const sorted = [...runs].sort((a, b) => a.settings.max_batch - b.settings.max_batch);
    assert.deepEqual(p99.data.map((d) => d[0]), sorted.map((r) => r.settings.max_batch));
    assert.deepEqual(p99.data.map((d) => d[1]), sorted.map((r) => r.summary.ttft_ms.p99));
    assert.deepEqual(p99.markLine, [10000]);
    assert.equal(ttft.find((s) => s.id === 'predicted p99').data.length, runs.filter((r) => r.predicted).length);
    const tpot = await chartSeries(page, 'serving-tpot-chart');
    assert.deepEqual(tpot.find((s) => s.id === 'measured p99').markLine, [2000]);
    // The front as the report names it, by machine tokens/s; the knee one of its points.
    const pareto = await chartSeries(page, 'serving-pareto-chart');
    assert.deepEqual(pareto.find((s) => s.id === 'front').data.map((d) => d[2]), search.pareto.map((i) => runs[i].settings.max_batch));
    assert.equal(pareto.find((s) => s.id === 'runs').data.length, 3);
    // One calibrated dot and one roof mark per decode step, under the datasheet's roofs (30 GB/s, 300 GFLOP/s).
    const roof = await chartSeries(page, 'serving-roofline-chart');
    const steps = report.serving_roofline.steps;
    assert.equal(roof.find((s) => s.id === 'floor').data.length, steps.length);
    const calibrated = roof.find((s) => s.id === 'calibrated').data;
    assert.equal(calibrated.length, steps.filter((s) => s.calibrated_ms > 0).length);
    for (const [x, gflops] of calibrated) assert.ok(gflops <= Math.min(30 * x, 300) * 1.0001, 'a step above its roof: ' + x + ', ' + gflops);
    assert.ok((await page.textContent('nav')).includes('Serving'));
  });

  test('an imported vLLM run: not judged, the figures its file gave, a dash for the ones it did not', async () => {
    const report = JSON.parse(fs.readFileSync(file('vllm_import.json'), 'utf8'));
    const {page, seen, url} = await openReport(browser, file('vllm_import.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['serving-ttft-chart', 'serving-tpot-chart']);
    assert.ok((await page.textContent('#serving-verdicts li')).startsWith('NOT JUDGED measured by vllm'));
    const row = await page.$$eval('#serving-runs-table tbody tr td', (tds) => tds.map((c) => c.textContent));
    assert.equal(row[8], report.serving.summary.ttft_ms.p99.toFixed(1));
    assert.equal(row[6], '—', 'tokens/s per user is not in a vLLM file');
    assert.equal(row[11], '—', 'goodput was null: no objectives');
    assert.equal(row[12], 'not judged');
  });
});
