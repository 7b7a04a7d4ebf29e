// Model-supplied strings are text, never markup: node, tensor, producer and op names carrying <script> and an
// <img onerror> reach the page as visible text, nothing executes, and no element is injected.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launch, openReport, repoRoot} from './browser.mjs';
import {assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';
import {HOSTILE} from './onnx_writer.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

// The page's own elements: 3 scripts (data, ECharts, app), no image, no inline handler, nothing from HOSTILE.
async function assertNothingInjected(page, seen) {
  assert.deepEqual(seen.dialogs, [], 'no alert() ran');
  const dom = await page.evaluate(() => ({
    scripts: document.scripts.length, images: document.images.length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
  }));
  assert.deepEqual(dom, {scripts: 3, images: 0, handlers: 0});
}

async function assertShownAsText(page, where, strings = HOSTILE) {
  const text = await page.evaluate((sel) => document.querySelector(sel).innerText, where);
  for (const s of strings) assert.ok(text.includes(s), where + ' shows ' + s + ' as text');
}

test('hostile names in a profiled model: table, details, roofline tooltip', async () => {
  const report = JSON.parse(fs.readFileSync(file('hostile_run.json'), 'utf8'));
  const layers = report.runs[0].layers;
  assert.deepEqual(layers.map((l) => l.name), HOSTILE, 'ORT ran both hostile nodes');
  const {page, seen, url} = await openReport(browser, file('hostile_run.html'));
  assertNoNetworkOrErrors(seen, url);
  await assertNothingInjected(page, seen);
  await assertShownAsText(page, '#layers', HOSTILE);
  // The Sigmoid's details: its ONNX node, and the tensor it reads, carry the full '"><img ...' string.
  await page.click('#layers .vt-row[data-seq="1"]');
  await assertShownAsText(page, '#layer-details', [HOSTILE[1]]);
  const producer = await page.textContent('#summary');
  assert.ok(producer.includes(HOSTILE[0]), 'producer name shown as text');

  // ECharts renders tooltips as HTML: show the tooltip of each dot and check it holds the names as text.
  const tips = await page.evaluate(async () => {
    const el = document.getElementById('roofline-chart');
    const chart = echarts.getInstanceByDom(el);
    const out = [];
    chart.getOption().series.forEach((s, seriesIndex) => {
      if (!String(s.id).startsWith('layers:')) return;
      chart.dispatchAction({type: 'showTip', seriesIndex, dataIndex: 0});
      const tip = [...el.querySelectorAll('div')].find((d) => d.style.zIndex === '9999999' || d.className.includes('tooltip'));
      out.push({text: tip ? tip.innerText : '', elements: tip ? tip.querySelectorAll('img, script').length : -1});
    });
    return out;
  });
  assert.equal(tips.length, 2, 'one dot series per op (Relu, Sigmoid)');
  const shown = tips.map((t) => t.text).join('\n');
  for (const s of HOSTILE) assert.ok(shown.includes(s), 'tooltip shows ' + s + ' as text: ' + shown);
  for (const t of tips) assert.equal(t.elements, 0);
  await assertNothingInjected(page, seen);
});

test('hostile op names: the failure ORT reported and the static node table', async () => {
  const failed = JSON.parse(fs.readFileSync(file('hostile_ops.json'), 'utf8'));
  assert.equal(failed.runs.length, 0);
  assert.ok(failed.failures.length >= 1, 'ORT refused the custom-domain ops');
  for (const name of ['hostile_ops.html', 'hostile_static.html']) {
    const {page, seen, url} = await openReport(browser, file(name));
    assertNoNetworkOrErrors(seen, url);
    await assertNothingInjected(page, seen);
    await assertShownAsText(page, '#layers');  // node names and op names in the node table
    await page.click('#layers .vt-row[data-seq="0"]');
    await assertShownAsText(page, '#layer-details');
    if (name === 'hostile_ops.html') {
      const findings = await page.textContent('#findings');
      assert.ok(findings.includes(failed.failures[0].message), 'the failure is listed with ORT\'s message');
    }
    await assertNothingInjected(page, seen);
  }
});

test('the front end has no HTML sinks', () => {
  // Belt and braces for the runtime checks above: no source file of the page uses an HTML-parsing DOM API.
  const dir = path.join(repoRoot, 'web', 'src');
  for (const f of fs.readdirSync(dir)) {
    const code = fs.readFileSync(path.join(dir, f), 'utf8').replace(/\/\/.*$/gm, '');  // comments may name them
    const sink = code.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/);
    assert.equal(sink, null, f + ' uses ' + (sink && sink[0]));
  }
});
