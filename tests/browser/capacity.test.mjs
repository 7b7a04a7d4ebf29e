// The HTML report of a real `rooflens capacity --find-peak` run in Chromium: the verdict first, every QPS tried in the
// runs table, latency percentiles against QPS with the SLO line and the predicted curve, the headline run's latency
// histogram, and the per-instance timeline. Fixtures come from fixtures.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted, assertNoNetworkOrErrors, chartSeries} from './checks.mjs';
import {file} from './fixtures.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

describe('capacity report', () => {
  test('verdict, runs, latency vs QPS with SLO and prediction, histogram, timeline', async () => {
    const report = JSON.parse(fs.readFileSync(file('capacity.json'), 'utf8'));
    const c = report.capacity;
    const run = c.runs[0];
    const server = run.points.filter((p) => p.scenario === 'server');
    assert.ok(server.length >= 2, 'the peak search tried several rates');
    const {page, seen, url} = await openReport(browser, file('capacity.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['breakdown-chart', 'cap-latency-chart', 'cap-histogram-chart', 'cap-timeline-chart']);
    // The verdict comes first: the peak, with the SLO it was judged at.
    const verdict = await page.textContent('#cap-verdicts li');
    assert.ok(verdict.startsWith(run.peak.qps > 0 ? 'VALID server peak' : 'INVALID'), verdict);
    assert.ok(verdict.includes('≤ 100 ms'), verdict);
    // Every QPS tried, with its verdict, in the order tried.
    const rows = await page.$$eval('#cap-points-table tbody tr', (trs) => trs.map((r) => [...r.children].map((c) => c.textContent)));
    assert.equal(rows.length, run.points.length);
    assert.deepEqual(rows.map((r) => r[10]), run.points.map((p) => p.verdict));
    assert.deepEqual(rows.map((r) => r[4]), run.points.map((p) => String(p.queries)));
    // Percentiles against QPS: one point per server run, sorted by QPS; the SLO line at 100 ms; the predicted curve.
    const lat = await chartSeries(page, 'cap-latency-chart');
    const p99 = lat.find((s) => s.id === 'measured p99');
    const byQps = [...server].sort((a, b) => a.target_qps - b.target_qps);
    assert.deepEqual(p99.data.map((d) => d[0]), byQps.map((p) => p.target_qps));
    assert.deepEqual(p99.data.map((d) => d[1]), byQps.map((p) => p.latency_ms.p99));
    assert.deepEqual(p99.markLine, [100]);
    const predicted = lat.find((s) => s.id === 'predicted p99');
    assert.equal(predicted.data.length, run.prediction.curve.length);
    // The histogram counts every answered query of the headline run (the highest VALID rate).
    const head = server.filter((p) => p.verdict === 'VALID').sort((a, b) => b.target_qps - a.target_qps)[0] || server[server.length - 1];
    const hist = await chartSeries(page, 'cap-histogram-chart');
    assert.equal(hist[0].data.reduce((s, d) => s + d[1], 0), head.latencies_ms.length);
    // One bar per runtime call on the instances' timeline.
    const tl = await chartSeries(page, 'cap-timeline-chart');
    assert.equal(tl[0].data.length, run.timeline.length);
    assert.ok((await page.textContent('nav')).includes('Capacity'));
  });
});
