// Ceiling labels never overlap: the placement function on the case and on random crowds (node), and the
// text ECharts actually drew on a report whose ceilings crowd (Chromium: every label's rotated box, from zrender).
import assert from 'node:assert/strict';
import {createRequire} from 'node:module';
import path from 'node:path';
import {after, before, describe, test} from 'node:test';
import {launch, openReport, repoRoot} from './browser.mjs';
import {assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';

const require = createRequire(import.meta.url);
const {placeCeilingLabels, boxesOverlap} = require(path.join(repoRoot, 'web/src/ceiling_labels.js'));
const width = (t) => 6.2 * t.length;  // about 11 px sans-serif

describe('ceiling label placement', () => {
  test('fp64 AVX-512 at 172 and fp32 AVX2 at 200 GFLOP/s: two labels, no overlap', () => {
    const plot = {left: 70, right: 1300, top: 48, bottom: 464};
    // 172 and 200 are 0.065 decades apart: 6 px on a 4-decade, 416 px axis; labels are 13 px tall.
    const y = (v) => 464 - (Math.log10(v) - 1) / 4 * 416;
    const labels = [{kind: 'compute', y: y(200), x0: 300, x1: 1300, text: 'fp32_fma_avx2 x2 · 200.0 GFLOP/s'},
      {kind: 'compute', y: y(172), x0: 300, x1: 1300, text: 'fp64_fma_avx512 x2 · 172.0 GFLOP/s'}];
    const [a, b] = placeCeilingLabels(labels, plot, width);
    assert.ok(!boxesOverlap(a.box, b.box));
    // Placed naively (both above their line at the right end) they would collide: the test case is real.
    const naive = placeCeilingLabels([labels[0]], plot, width)[0].box, naive2 = placeCeilingLabels([labels[1]], plot, width)[0].box;
    assert.ok(boxesOverlap(naive, naive2));
  });

  test('random crowds of compute and memory ceilings never overlap', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const plot = {left: 70, right: 1300, top: 48, bottom: 464};
    for (let trial = 0; trial < 200; trial++) {
      const labels = [];
      for (let k = 0; k < 2 + Math.floor(rand() * 5); k++)
        labels.push({kind: 'compute', y: 60 + rand() * 80, x0: 400 + rand() * 300, x1: 1300, text: 'fp32_fma_avx512 x2 · ' + (100 + k) + '.0 GFLOP/s'});
      for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
        const xs = 70 + rand() * 100, ys = 464, xe = 400 + rand() * 500;
        labels.push({kind: 'memory', xs, ys, xe, ye: 60, angle: Math.atan((ys - 60) / (xe - xs)) * 180 / Math.PI, text: 'L' + k + ' read x2 · 300.0 GB/s'});
      }
      const spots = placeCeilingLabels(labels, plot, width);
      for (let i = 0; i < spots.length; i++)
        for (let j = i + 1; j < spots.length; j++)
          assert.ok(!boxesOverlap(spots[i].box, spots[j].box), 'trial ' + trial + ': ' + labels[i].text + ' / ' + labels[j].text);
    }
  });
});

describe('roofline labels as drawn', () => {
  let browser;
  before(async () => { browser = await launch(); });
  after(async () => { await browser.close(); });

  test('crowded ceilings: the drawn label boxes do not intersect', async () => {
    const {page, seen, url} = await openReport(browser, file('ceilings.html'));
    assertNoNetworkOrErrors(seen, url);
    const boxes = await page.evaluate(() => {
      const chart = echarts.getInstanceByDom(document.getElementById('roofline-chart'));
      // Labels are zrender Text elements attached to the (invisible) label points; what is painted is their tspans.
      const texts = chart.getZr().storage.getDisplayList(true).map((el) => el.getTextContent && el.getTextContent())
        .filter((t) => t && / GFLOP\/s| GB\/s/.test(t.style.text || ''));
      return texts.map((el) => {
        const r = el.getBoundingRect(), m = el.getComputedTransform() || [1, 0, 0, 1, 0, 0];
        const corners = [[r.x, r.y], [r.x + r.width, r.y], [r.x + r.width, r.y + r.height], [r.x, r.y + r.height]];
        return {text: el.style.text, box: corners.map(([x, y]) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]])};
      });
    });
    assert.equal(boxes.length, 8, 'four compute and four memory ceiling labels: ' + boxes.map((b) => b.text).join(' | '));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        assert.ok(!boxesOverlap(boxes[i].box, boxes[j].box), boxes[i].text + ' overlaps ' + boxes[j].text);
  });
});
