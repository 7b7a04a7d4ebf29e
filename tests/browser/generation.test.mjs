// The HTML report of a real `rooflens generate` run in Chromium: the Generation section's tables (llama-bench rows,
// percentiles), TTFT and TPOT charts, and both phases of a configuration on one roofline, redrawn when another
// configuration is picked. Fixtures come from fixtures.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted, assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';

// A layer above its roof (an attribution error rooflens reported; here the datasheet's one DRAM roof is below what
// a cache-resident MatMul moves) has no true position and is left off, as on the profile's roofline.
const placed = (layers) => layers.filter((l) => l.flops > 0 && l.time_ms > 0 && l.bytes > 0 && !l.attribution_error);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

async function phaseDots(page) {
  return page.evaluate(() => {
    const chart = echarts.getInstanceByDom(document.getElementById('gen-roofline-chart'));
    const series = chart.getOption().series;
    return {
      ceilings: series.filter((s) => String(s.id).startsWith('ceiling:')).map((s) => s.name),
      phases: Object.fromEntries(series.filter((s) => String(s.id).startsWith('phase:')).map((s) => [s.name, s.data.map((d) => d[2])])),
    };
  });
}

describe('generation report', () => {
  test('tables, TTFT/TPOT charts, both phases on the roofline', async () => {
    const report = JSON.parse(fs.readFileSync(file('generate.json'), 'utf8'));
    const runs = report.generation.runs;
    assert.equal(runs.length, 2);
    const {page, seen, url} = await openReport(browser, file('generate.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['breakdown-chart', 'gen-ttft-chart', 'gen-tpot-chart', 'gen-roofline-chart']);
    // llama-bench rows: pp and tg per configuration, t/s with ± std
    const bench = await page.$$eval('#gen-bench-table tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    assert.deepEqual(bench.map((r) => r[1]), ['pp32', 'tg8', 'pp64', 'tg8']);
    assert.ok(bench.every((r) => r[2].includes(' ± ')), JSON.stringify(bench));
    assert.equal(bench[0][2].split(' ± ')[0], runs[0].prefill_tokens_per_s.toFixed(2));
    const table = await page.$$eval('#gen-table tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    assert.equal(table.length, 2);
    assert.equal(table[1][1], runs[1].ttft_ms.median.toFixed(3));
    assert.equal(table[1][4], runs[1].tpot_ms.median.toFixed(3));
    assert.ok(table[0].some((c) => c.includes('DRAM read x2')), table[0].join(' | '));
    // One dot per placeable layer of each phase of the picked configuration, in the phase's colour series.
    for (const i of [0, 1]) {
      if (i === 1) {
        await page.selectOption('#gen-run-select', '1');
        await page.waitForFunction(() => echarts.getInstanceByDom(document.getElementById('gen-roofline-chart')));
      }
      const dots = await phaseDots(page);
      assert.ok(dots.ceilings.length >= 2, dots.ceilings.join(' | '));
      for (const phase of runs[i].phases) {
        assert.deepEqual(dots.phases[phase.phase], placed(phase.layers).map((l) => l.name), phase.phase + ' of run ' + i);
      }
    }
    assert.ok((await page.textContent('nav')).includes('Generation'));
  });
});
