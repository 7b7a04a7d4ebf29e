// A whatif projection in the page: a second set of roofline dots (one per projected layer the plot can place),
// the target's datasheet ceilings labelled as such, the assumptions listed. Fixtures from fixtures.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

test('resnet50 projected onto an A100 datasheet: projection dots, target ceilings, assumptions', async () => {
  const report = JSON.parse(fs.readFileSync(file('resnet50.whatif.json'), 'utf8'));
  const proj = report.whatif.runs[0];
  const {page, seen, url} = await openReport(browser, file('resnet50.whatif.html'));
  assertNoNetworkOrErrors(seen, url);
  const series = await page.evaluate(() => {
    const s = echarts.getInstanceByDom(document.getElementById('roofline-chart')).getOption().series;
    return {
      projected: (s.find((x) => x.id === 'projected') || {data: []}).data.map((d) => [d[0], d[1], d[2]]),
      target: s.filter((x) => String(x.id).startsWith('target:')).map((x) => x.name),
      own: s.filter((x) => String(x.id).startsWith('ceiling:')).map((x) => x.name),
    };
  });
  const placeable = proj.layers.map((l, seq) => [l, seq]).filter(([l]) => l.intensity > 0 && l.gflops > 0);
  assert.ok(placeable.length > 40, 'most resnet50 layers projected: ' + placeable.length);
  assert.deepEqual(series.projected.map((d) => d[2]), placeable.map(([, seq]) => seq), 'one dot per placeable projected layer');
  for (const [x, y, seq] of series.projected) {
    assert.ok(Math.abs(x - proj.layers[seq].intensity) <= 1e-9 * x && Math.abs(y - proj.layers[seq].gflops) <= 1e-9 * y);
  }
  assert.ok(series.target.length >= 2 && series.target.every((n) => n.startsWith('target datasheet ')), series.target.join(' | '));
  assert.ok(series.own.every((n) => !n.includes('target')));
  const caption = await page.textContent('#roofline .caption');
  assert.ok(caption.includes('PROJECTION'), caption);
  const assumptions = await page.locator('#whatif-assumptions li').allTextContents();
  assert.deepEqual(assumptions, report.whatif.assumptions);
  assert.ok((await page.textContent('#whatif-runs')).includes(proj.run));
});
