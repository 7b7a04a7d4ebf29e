// Serving inside the runner (requests `prepare`, `infer` and `end_profile`, docs/runner-protocol.md), for
// `rooflens capacity`: the samples are made once, a query names them, and the answer carries the session.run's start
// and end on the monotonic clock rooflens shares (process.hrtime.bigint(): CLOCK_MONOTONIC), never a tensor.
//
// session.run runs the model on this process's JavaScript thread (onnxruntime-node wraps the native call in
// setImmediate), so requests in flight here are served one after another: parallel service comes from instances
// (several runners), and a second request already queued only saves the gap between two calls.
//
// These requests use the runner's modules (session, feeds, errors), so they answer and fail like every other one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ort } from './ort.mjs';
import { RequestError, badRequest, log } from './errors.mjs';
import { optInt } from './fields.mjs';
import { nowNs } from './clock.mjs';
import { createSession, requireSession, runOnce } from './session.mjs';
import { buildFeeds } from './feeds.mjs';
import { TYPED } from './dtypes.mjs';
import { privateProfileDir, profileFileIn } from './ort_profile.mjs';

export function makeServeOps() {

  // One stacked input: every sample's elements back to back, so a call over consecutive samples is a view.
  function stackInput(name, tensors) {
    const first = tensors[0];
    if (!TYPED[first.type]) throw new RequestError('input', `input '${name}' is ${first.type}: it cannot be stacked`);
    if (first.dims[0] !== 1) {
      throw new RequestError('input', `input '${name}' has ${first.dims[0]} along its batch dim per sample; need 1`);
    }
    const per = first.data.length;
    const all = new TYPED[first.type](per * tensors.length);
    tensors.forEach((t, i) => all.set(t.data, i * per));
    return { type: first.type, dims: first.dims.slice(1), per, all };
  }

  function stackedTensor(s, count, ranges) {
    const total = ranges.reduce((a, r) => a + r[1], 0);
    const [first, n] = ranges[0];
    let data;
    if (ranges.length === 1 && (first % count) + n <= count) {
      const at = (first % count) * s.per;
      data = s.all.subarray(at, at + n * s.per);
    } else {
      data = new TYPED[s.type](total * s.per);
      let to = 0;
      for (const [f, k] of ranges) {
        for (let i = 0; i < k; ++i, ++to) {
          const at = ((f + i) % count) * s.per;
          data.set(s.all.subarray(at, at + s.per), to * s.per);
        }
      }
    }
    return new ort.Tensor(s.type, data, [total, ...s.dims]);
  }

  // A session like the serving one, recording every kernel it runs (the caller owns the directory).
  async function profiledSession(st, parent) {
    if (typeof parent !== 'string') throw badRequest("'profile.tmp_dir' must be a path");
    const dir = privateProfileDir(parent);
    const graph = path.join(dir, 'optimized.onnx');
    const options = { ...st.options, enableProfiling: true, profileFilePrefix: path.join(dir, 'ort_profile'),
      optimizedModelFilePath: graph };
    const session = await createSession(st.model, options);
    try { await st.session.release(); } catch (e) { log('release failed:', e.message); }
    st.session = session;
    return { dir, graph };
  }

  async function opPrepare(req) {
    const st = requireSession(req.op);
    const count = optInt(req, 'samples', 1, 1);
    const seed = optInt(req, 'seed', 0);
    const stack = req.batch_inputs ?? [];
    if (!Array.isArray(stack) || !stack.every((n) => typeof n === 'string')) {
      throw badRequest("'batch_inputs' must be a list of input names");
    }
    const samples = [];
    for (let i = 0; i < count; ++i) samples.push({ ...buildFeeds({ ...req, seed: seed + i }) });
    const stacked = {};
    for (const name of stack) {
      if (!samples[0][name]) throw badRequest(`model has no input '${name}' to stack`);
      stacked[name] = stackInput(name, samples.map((s) => s[name]));
      samples.forEach((s, i) => {  // each sample's own tensor is a view of the stacked data
        const at = i * stacked[name].per;
        s[name] = new ort.Tensor(stacked[name].type, stacked[name].all.subarray(at, at + stacked[name].per),
          [1, ...stacked[name].dims]);
      });
    }
    st.serving = { count, samples, stacked, calls: 0, profile: null };
    if (req.profile) st.serving.profile = await profiledSession(st, req.profile.tmp_dir ?? os.tmpdir());
    let bytes = 0;
    for (const t of Object.values(samples[0])) bytes += t.data.byteLength ?? 0;
    log(`prepared ${count} samples (${bytes} bytes each)${req.profile ? ', profiling' : ''}`);
    return { samples: count, sample_bytes: bytes };
  }

  function feedsOf(sv, ranges) {
    if (!Array.isArray(ranges) || !ranges.length) throw badRequest("'s' must be a non-empty list of [first, count]");
    for (const r of ranges) {
      if (!Array.isArray(r) || r.length !== 2 || !Number.isSafeInteger(r[0]) || r[0] < 0 || !Number.isSafeInteger(r[1]) ||
          r[1] < 1) {
        throw badRequest("'s' must hold [first, count] pairs of non-negative integers (count >= 1)");
      }
    }
    if (ranges.length === 1 && ranges[0][1] === 1) return sv.samples[ranges[0][0] % sv.count];
    const names = Object.keys(sv.stacked);
    if (!names.length) throw badRequest('several samples in one call need batch_inputs (a model with a dynamic batch)');
    const feeds = { ...sv.samples[ranges[0][0] % sv.count] };
    for (const name of names) feeds[name] = stackedTensor(sv.stacked[name], sv.count, ranges);
    return feeds;
  }

  // One call, timed on the shared clock: [start_us, end_us].
  async function timedCall(st, ranges) {
    const feeds = feedsOf(st.serving, ranges);
    const t0 = nowNs();
    await runOnce(st.session, feeds);
    const t1 = nowNs();
    ++st.serving.calls;
    return [Number(t0) / 1000, Number(t1) / 1000];
  }

  // `s`: one call, answered {t: [start, end]}. `calls`: several, one after another, answered once with
  // {t: [[start, end], ...]} — the caller saves a round trip per call (Offline's queued queries).
  async function opInfer(req) {
    const st = requireSession(req.op);
    if (!st.serving) throw new RequestError('no_session', "'infer' needs prepared samples: send 'prepare' first");
    if (req.calls === undefined) return { t: await timedCall(st, req.s) };
    if (!Array.isArray(req.calls) || !req.calls.length) throw badRequest("'calls' must be a non-empty list of 's' lists");
    const t = [];
    for (const ranges of req.calls) t.push(await timedCall(st, ranges));
    return { t };
  }

  // Ends the profiled session's trace: the caller reads the file, then deletes the directory.
  async function opEndProfile(req) {
    const st = requireSession(req.op);
    const prof = st.serving && st.serving.profile;
    if (!prof) throw badRequest("'end_profile' needs samples prepared with 'profile'");
    try { st.session.endProfiling(); } catch (e) { throw new RequestError('ort', e.message, { stage: 'profile' }); }
    return { profile_dir: prof.dir, profile_file: profileFileIn(prof.dir), calls: st.serving.calls,
      optimized_model: fs.existsSync(prof.graph) ? prof.graph : null };
  }

  return { prepare: opPrepare, infer: opInfer, end_profile: opEndProfile };
}
