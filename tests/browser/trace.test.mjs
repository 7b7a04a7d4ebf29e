// `rooflens export --to trace` of a real resnet50 profile, loaded with Chrome DevTools' own trace engine
// (@paulirish/trace_engine: the Performance panel's parser, run offline in Node): every layer becomes an entry on
// its run's track, named, timed and nested as the report says.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {test} from 'node:test';
import {repoRoot} from './browser.mjs';
import {file} from './fixtures.mjs';

const engineRoot = path.join(repoRoot, 'web', 'node_modules', '@paulirish', 'trace_engine');
const {polyfillDOMRect} = await import(pathToFileURL(path.join(engineRoot, 'analyze-trace.mjs')).href);
const Trace = await import(pathToFileURL(path.join(engineRoot, 'models/trace/trace.js')).href);
polyfillDOMRect();  // the engine expects this browser class; the package ships the polyfill

test('the trace export loads in the DevTools trace engine', async (t) => {
  const report = JSON.parse(fs.readFileSync(file('resnet50.json'), 'utf8'));
  const trace = JSON.parse(fs.readFileSync(file('resnet50.trace.json'), 'utf8'));
  const events = trace.traceEvents;
  const complete = events.filter((e) => e.ph === 'X');
  for (const e of complete) {
    for (const [k, type] of [['name', 'string'], ['ph', 'string'], ['ts', 'number'], ['dur', 'number'], ['pid', 'number'], ['tid', 'number']])
      assert.equal(typeof e[k], type, k + ' of ' + JSON.stringify(e).slice(0, 120));
    assert.ok(e.dur >= 0 && e.ts >= 0);
    assert.ok(Number.isInteger(e.args.flops) && Number.isInteger(e.args.bytes) && Array.isArray(e.args.input_shapes), e.name + ' args');
  }

  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const data = model.parsedTrace().data;
  const threads = [...data.Renderer.processes.values()].flatMap((p) => [...p.threads.values()]);
  t.diagnostic('trace engine: ' + threads.length + ' tracks, ' + data.Renderer.entryToNode.size + ' entries');
  assert.equal(threads.length, report.runs.length, 'one track per run');
  assert.equal(data.Renderer.entryToNode.size, complete.length, 'every layer event became an entry');
  report.runs.forEach((run, i) => {
    const track = threads[i];
    assert.ok(track.name.startsWith('run ' + (i + 1) + ': batch=' + run.batch), track.name);
    const timed = run.layers.filter((l) => l.time_ms > 0);
    assert.deepEqual(track.entries.map((e) => e.name), timed.map((l) => l.name), 'layers in execution order');
    track.entries.forEach((e, k) => assert.ok(Math.abs(e.dur - timed[k].time_ms * 1000) <= 1, e.name + ' dur'));
    assert.equal(track.tree.maxDepth, 1, 'layers of one iteration do not nest');
  });
});
