// Two runtimes in one report (profile -B onnxruntime -B opencv): the e2e table has a row per runtime, and
// "Runtimes side by side" lists the layers both ran, matched by ONNX node, with their times and ratios.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

describe('report of two runtimes', () => {
  test('e2e rows per runtime and the per-layer ratios of the layers both ran', async (t) => {
    if (!fs.existsSync(file('two_runtimes.html'))) return t.skip('rooflens was built without OpenCV');
    const report = JSON.parse(fs.readFileSync(file('two_runtimes.json'), 'utf8'));
    const {page, seen, url} = await openReport(browser, file('two_runtimes.html'));
    assertNoNetworkOrErrors(seen, url);

    const e2e = await page.$$eval('#e2e-table tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(e2e, report.runs.map((r) => r.label));
    assert.deepEqual(e2e, ['onnxruntime · batch=1 threads=2', 'opencv · batch=1 threads=2']);

    const rows = await page.$$eval('#runtimes .runtime-layers tbody tr', (trs) => trs.map((tr) =>
      [...tr.children].map((td) => td.textContent)));
    // Each row: the layers' time on each side and their ratio, as the two runs' layers give them.
    const [ort, cv] = report.runs;
    const time = (run, name) => run.layers.filter((l) => l.name === name).reduce((s, l) => s + l.time_ms, 0);
    assert.ok(rows.length >= 20, rows.length + ' rows');
    for (const [, baseLayers, otherLayers, baseMs, otherMs, ratio] of rows) {
      const b = baseLayers.split(' + ').reduce((s, n) => s + time(ort, n), 0);
      const o = otherLayers.split(' + ').reduce((s, n) => s + time(cv, n), 0);
      assert.equal(baseMs, b.toFixed(3), baseLayers);
      assert.equal(otherMs, o.toFixed(3), otherLayers);
      assert.equal(ratio, (Number(otherMs) > 0 && b > 0 ? (o / b).toFixed(2) + 'x' : ratio), otherLayers);
    }
    // The first convolution is a row of its own: ORT's kernel and OpenCV's layer computing the same nodes.
    const conv = rows.find((r) => r[2] === 'onnx_node!features.0/Conv');
    assert.ok(conv, 'features.0/Conv matched across the runtimes');
    assert.ok(conv[0].startsWith('features.0/Conv'), conv[0]);
    const caption = await page.textContent('#runtimes .runtime-e2e');
    assert.match(caption, /^onnxruntime [\d.]+ ms · opencv [\d.]+ ms · ratio [\d.]+x$/);
  });
});
