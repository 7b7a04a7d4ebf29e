// `rooflens history --html`: real Chromium opens the trend page of a real results database (sessions stored with
// `rooflens db import`, names and tags carrying HTML): one chart per trend drawn,
// the check's regression flagged, model strings shown as text, nothing injected, no request.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launch, openReport} from './browser.mjs';
import {assertChartsPainted} from './checks.mjs';
import {HOSTILE} from './onnx_writer.mjs';

const rooflens = process.env.ROOFLENS_BINARY;
let browser, dir;

function run(args) {
  const r = spawnSync(rooflens, args, {encoding: 'utf8'});
  return {rc: r.status, out: r.stdout, err: r.stderr};
}

// Three sessions of a model named with HTML, then twelve of resnet18 (the last 20% slower), on one machine.
function sessions() {
  const lines = [];
  const add = (model, day, centre, tags) => {
    const samples = [], repetitions = [];
    for (const f of [0.99, 1.0, 1.01]) {
      for (const g of [0.98, 1.0, 1.03]) samples.push(centre * f * g);
      repetitions.push(3);
    }
    lines.push(JSON.stringify({
      schema: 'rooflens.history/1', id: `00000000-0000-4000-8000-${String(lines.length).padStart(12, '0')}`,
      created_at: `2026-03-${String(day).padStart(2, '0')}T08:00:00.000000Z`, command: 'profile',
      rooflens_version: '0.1.0', runtime: 'onnxruntime-node 1.30.0', settings: '{}',
      machine: {id: 'b10c0000deadbeef', cpu: 'Test CPU', cores: 2, threads: 2, memory_bytes: 1 << 30, os: 'Debian'},
      tags, runs: [{model, model_hash: '', backend: 'onnxruntime', options: '', config: 'batch=1 threads=2',
        status: 'pass', error: '', samples_ms: samples, repetitions, layers: []}],
    }));
  };
  for (let i = 0; i < 3; ++i) add(HOSTILE[0], 1 + i, 2 + i * 0.01, {note: HOSTILE[1]});
  const wobble = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.99];
  wobble.forEach((w, i) => add('resnet18', 4 + i, 8 * w, {commit: 'c' + i}));
  add('resnet18', 15, 9.6, {commit: HOSTILE[1]});  // the latest session: what --check judges
  return lines.join('\n') + '\n';
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-history-browser-'));
  fs.writeFileSync(path.join(dir, 'h.jsonl'), sessions());
  const db = path.join(dir, 'h.db');
  const imported = run(['db', 'import', '-q', path.join(dir, 'h.jsonl'), '--db', 'sqlite:' + db]);
  assert.equal(imported.rc, 0, imported.err);
  const h = run(['history', '--check', '--machine', 'b10c', '--db', 'sqlite:' + db, '--html', path.join(dir, 'h.html')]);
  assert.equal(h.rc, 1, 'the 20% slower latest run fails the check: ' + h.out + h.err);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  fs.rmSync(dir, {recursive: true, force: true});
});

test('the history page: a chart per trend, the regression flagged, names as text, no request', async () => {
  const {page, seen, url} = await openReport(browser, path.join(dir, 'h.html'));
  assert.deepEqual(seen.refused, [], 'no request beyond the page');
  assert.deepEqual([seen.consoleErrors, seen.pageErrors, seen.dialogs], [[], [], []]);
  assert.equal(seen.requests.filter((u) => u !== url).length, 0);
  await assertChartsPainted(page, ['trend-0', 'trend-1']);
  const dom = await page.evaluate(() => ({
    scripts: document.scripts.length, images: document.images.length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
  }));
  assert.deepEqual(dom, {scripts: 3, images: 0, handlers: 0}, 'nothing injected');
  const check = await page.innerText('#check');
  assert.match(check, /resnet18\s+batch=1 threads=2\s+b10c0000[\s\S]*regression/);
  const trends = await page.innerText('#trends');
  assert.ok(trends.includes(HOSTILE[0] + ' · batch=1 threads=2'), 'the hostile model name is text');
  // The tooltip of the latest resnet18 point (HTML built with esc()) shows its hostile commit tag as text.
  const tip = await page.evaluate(() => {
    const el = document.getElementById('trend-' + [...document.querySelectorAll('.trend h3')]
      .findIndex((h) => h.textContent.startsWith('resnet18')));
    const chart = echarts.getInstanceByDom(el);
    chart.dispatchAction({type: 'showTip', seriesIndex: 1, dataIndex: 11});
    const box = [...el.querySelectorAll('div')].find((d) => d.innerText.includes('commit'));
    return box ? {text: box.innerText, injected: box.querySelectorAll('img, script').length} : null;
  });
  assert.ok(tip, 'a tooltip was shown');
  assert.ok(tip.text.includes(HOSTILE[1]), tip.text);
  assert.equal(tip.injected, 0);
  const html = fs.readFileSync(path.join(dir, 'h.html'), 'utf8');
  assert.ok(!html.includes('</script><script>alert'), 'the data cannot close its element');
});
