// An imported TensorRT report (the project's trtexec MobileNet QAT set, imported with the A100 datasheet the
// files name) in real Chromium: every layer has its dot, the datasheet ceilings are drawn and labelled as such,
// the caption names the device, and the page makes no network request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted, assertNoNetworkOrErrors, rooflineSeries} from './checks.mjs';
import {file} from './fixtures.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

describe('imported TensorRT report', () => {
  test('datasheet ceilings drawn and labelled, one dot per layer', async () => {
    const report = JSON.parse(fs.readFileSync(file('trt_import.json'), 'utf8'));
    assert.equal(report.tool.command, 'import');
    assert.equal(report.hardware.source, 'datasheet');
    const {page, seen, url} = await openReport(browser, file('trt_import.html'));
    assertNoNetworkOrErrors(seen, url);
    await assertChartsPainted(page, ['roofline-chart', 'breakdown-chart', 'latency-chart']);
    const run = report.runs[0];
    const roof = await rooflineSeries(page);
    // fp32, tf32, fp16 and int8 peaks and the memory roof of the datasheet, each labelled "datasheet ...".
    assert.ok(roof.ceilings.length >= 5, roof.ceilings.join(' | '));
    assert.ok(roof.ceilings.every((c) => c.startsWith('datasheet ')), roof.ceilings.join(' | '));
    assert.ok(roof.ceilings.some((c) => c.includes('int8')), roof.ceilings.join(' | '));
    assert.deepEqual(roof.dots.slice().sort((a, b) => a - b), run.layers.map((_, i) => i), 'one dot per layer');
    const caption = await page.textContent('#roofline .caption');
    assert.ok(caption.includes('DATASHEET (NVIDIA A100 SXM4 80GB)'), caption);
    const summary = await page.textContent('body');
    assert.ok(summary.includes('datasheet ceilings of NVIDIA A100 SXM4 80GB'), 'host facts name the datasheet');
    // The summary states what happened: another tool timed the run, on a device rooflens did not measure.
    const said = await page.textContent('#summary');
    assert.ok(said.includes('Imported from another tool'), said);
    assert.ok(!said.includes('profiling off'), 'an import was not timed with profiling off by rooflens');
    assert.ok(said.includes('Device') && !said.includes('CPU'), 'the facts name a device, not a CPU');
  });
});
