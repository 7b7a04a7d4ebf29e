// The graph view in real Chromium: every node of the real resnet50 profile and of the synthetic 5,000-layer
// (~8,000-node) report gets drawn, the fill colour follows the layer's time share, clicking a node opens its layer,
// subgraphs open and close. Fixtures come from fixtures.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {after, before, describe, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertNoNetworkOrErrors} from './checks.mjs';
import {file} from './fixtures.mjs';

const readJson = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8'));
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

// Scrolls the whole graph through the view (after the background layout finished); returns what was drawn.
async function drawEverything(page) {
  await page.waitForFunction(() => document.getElementById('graph-port').dataset.laidOut === 'all', null, {timeout: 120000});
  return page.evaluate(() => {
    const port = document.getElementById('graph-port'), api = port.graphView;
    for (let y = 0; y <= port.scrollHeight; y += port.clientHeight * 0.9) {
      for (let x = 0; x <= Math.max(0, port.scrollWidth - port.clientWidth); x += port.clientWidth * 0.9) {
        port.scrollLeft = x;
        port.scrollTop = y;
        api.redraw();
      }
    }
    return {nodes: api.nodeCount(), main: api.mainCount(), drawn: api.drawnCount()};
  });
}

// The canvas pixel at a node's centre, and the colour the page meant to paint it.
async function pixelOf(page, index) {
  return page.evaluate((i) => {
    const port = document.getElementById('graph-port'), api = port.graphView, canvas = document.getElementById('graph-canvas');
    const [cx, cy] = api.reveal(i);
    const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    // Just inside the node's left edge, left of where its text starts: the fill.
    const d = canvas.getContext('2d').getImageData(Math.round((cx - 72 - r.left) * dpr), Math.round((cy - r.top) * dpr), 1, 1).data;
    return {rgb: [d[0], d[1], d[2]], expected: api.color(i), client: [cx, cy]};
  }, index);
}

const parse = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

async function checkTimeColours(page, run) {
  const layers = run.layers.filter((l) => !l.alias && l.onnx_nodes.length);
  const heavy = layers.reduce((a, b) => (b.time_ms > a.time_ms ? b : a));
  const light = layers.reduce((a, b) => (b.time_ms < a.time_ms ? b : a));
  const idx = await page.evaluate(([a, b]) => [a, b].map((n) => document.getElementById('graph-port').graphView.nodeIndex(n)),
    [heavy.onnx_nodes[0], light.onnx_nodes[0]]);
  const ph = await pixelOf(page, idx[0]), pl = await pixelOf(page, idx[1]);
  for (const p of [ph, pl]) {
    const want = parse(p.expected);
    assert.ok(p.rgb.every((v, k) => Math.abs(v - want[k]) <= 6), 'painted ' + p.rgb + ', meant ' + want);
  }
  assert.ok(lum(ph.rgb) < lum(pl.rgb) - 40, 'the heaviest layer is darker: ' + ph.rgb + ' vs ' + pl.rgb);
  return {heavy, index: idx[0]};
}

describe('graph view', () => {
  test('resnet50: every node drawn, colour is time, a click opens the layer', async () => {
    const report = readJson('resnet50.json');
    const run = report.runs[0];
    const {page, seen, url} = await openReport(browser, file('resnet50.html'));
    assertNoNetworkOrErrors(seen, url);
    const counts = await drawEverything(page);
    assert.equal(counts.nodes, report.model.analysis.nodes.length);
    assert.equal(counts.drawn, counts.nodes, 'every node of resnet50 drawn');
    const {heavy, index} = await checkTimeColours(page, run);
    const client = await page.evaluate((i) => document.getElementById('graph-port').graphView.reveal(i), index);
    await page.mouse.click(client[0] - 40, client[1] + 6);  // on the node, off its ▸ badge corner
    assert.equal(await page.textContent('#graph-layer'), 'layer ' + heavy.name);
    assert.ok((await page.textContent('#graph-details')).includes(heavy.onnx_nodes[0]));
    // "show in the layer table" opens that row.
    await page.click('#graph-details button');
    const sel = await page.getAttribute('#layers .vt-row.selected', 'data-seq');
    assert.equal(Number(sel), run.layers.indexOf(heavy));
    // Bound colouring: another colour for the same node, no error.
    await page.selectOption('#graph-color', 'bound');
    assert.ok(await page.evaluate(() => /^rgb/.test(document.getElementById('graph-port').graphView.color(0))));
  });

  test('synthetic ~8,000-node graph: every node drawn, subgraphs collapse and open', async (t) => {
    const report = readJson('synthetic.json');
    const {page, seen, url, readyMs} = await openReport(browser, file('synthetic.html'));
    assertNoNetworkOrErrors(seen, url);
    t.diagnostic('ready ' + readyMs + ' ms');
    const mainNodes = report.model.analysis.nodes.filter((n) => n.graph === 'main').length;
    const first = await drawEverything(page);
    assert.equal(first.main, mainNodes);
    assert.equal(first.drawn, mainNodes, 'every main-graph node drawn; subgraph bodies collapsed');
    await checkTimeColours(page, report.runs[0]);
    // Open the first node that carries a subgraph: its body is laid out and drawn too.
    const parent = report.model.analysis.nodes.find((n) => n.graph !== 'main').graph.slice(5).split(':')[0];
    const before = first.drawn;
    const at = await page.evaluate((name) => {
      const api = document.getElementById('graph-port').graphView;
      return api.reveal(api.nodeIndex(name));
    }, parent);
    await page.mouse.click(at[0] + 70, at[1] - 8);  // the ▸ badge: right end of the top line
    const after = await drawEverything(page);
    assert.equal(after.drawn, before + 3, 'the 3 body nodes are drawn once opened');
    assert.ok((await page.textContent('#graph-details')).includes(parent));
  });
});
