// Serving inside the runner (messages `prepare`, `infer` and `end_profile`, docs/runner-protocol.md), for
// `rooflens capacity`: the samples are made once, a query names them, and the reply carries the session.run's start
// and end on the monotonic clock rooflens shares (process.hrtime.bigint(): CLOCK_MONOTONIC), never a tensor.
//
// session.run runs the model on this process's JavaScript thread (onnxruntime-node wraps the native call in
// setImmediate), so messages in flight here are served one after another: parallel service comes from instances
// (several runners), and a second message already queued only saves the gap between two calls.
//
// These messages use the runner's modules (inference_session, feeds, errors), so they answer and fail like every other
// one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, ort } from './ort.mjs';
import { MessageError, badMessage, log } from './errors.mjs';
import { optInt } from './fields.mjs';
import { nowNs } from './clock.mjs';
import { createInferenceSession, requireLoadedModel, runOnce } from './inference_session.mjs';
import { buildFeeds } from './feeds.mjs';
import { TYPED } from './dtypes.mjs';
import { endProfiling, privateProfileDir, profileFileIn, profilingOptions } from './ort_profile.mjs';
import { profiledRunGuard } from './wasm_memory.mjs';

export function makeServeOps() {

  // One stacked input: every sample's elements back to back, so a call over consecutive samples is a view.
  function stackInput(name, tensors) {
    const first = tensors[0];
    if (!TYPED[first.type]) throw new MessageError('input', `input '${name}' is ${first.type}: it cannot be stacked`);
    if (first.dims[0] !== 1) {
      throw new MessageError('input', `input '${name}' has ${first.dims[0]} along its batch dim per sample; need 1`);
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

  // An inference session like the serving one, recording every kernel it runs (the caller owns the directory).
  async function profiledInferenceSession(st, parent) {
    if (typeof parent !== 'string') throw badMessage("'profile.tmp_dir' must be a path");
    const dir = privateProfileDir(parent);
    const { options, graphFile } = profilingOptions(st.options, dir, true);
    const graph = graphFile ?? path.join(dir, 'optimized.onnx');  // ONNX Runtime Web writes none: absent
    const inferenceSession = await createInferenceSession(st.model, options);
    try { await st.inferenceSession.release(); } catch (e) { log('release failed:', e.message); }
    st.inferenceSession = inferenceSession;
    return { dir, graph };
  }

  async function opPrepare(msg) {
    const st = requireLoadedModel(msg.op);
    const count = optInt(msg, 'samples', 1, 1);
    const seed = optInt(msg, 'seed', 0);
    const stack = msg.batch_inputs ?? [];
    if (!Array.isArray(stack) || !stack.every((n) => typeof n === 'string')) {
      throw badMessage("'batch_inputs' must be a list of input names");
    }
    const samples = [];
    for (let i = 0; i < count; ++i) samples.push({ ...buildFeeds({ ...msg, seed: seed + i }) });
    const stacked = {};
    for (const name of stack) {
      if (!samples[0][name]) throw badMessage(`model has no input '${name}' to stack`);
      stacked[name] = stackInput(name, samples.map((s) => s[name]));
      samples.forEach((s, i) => {  // each sample's own tensor is a view of the stacked data
        const at = i * stacked[name].per;
        s[name] = new ort.Tensor(stacked[name].type, stacked[name].all.subarray(at, at + stacked[name].per),
          [1, ...stacked[name].dims]);
      });
    }
    st.serving = { count, samples, stacked, calls: 0, profile: null };
    if (msg.profile) st.serving.profile = await profiledInferenceSession(st, msg.profile.tmp_dir ?? os.tmpdir());
    let bytes = 0;
    for (const t of Object.values(samples[0])) bytes += t.data.byteLength ?? 0;
    log(`prepared ${count} samples (${bytes} bytes each)${msg.profile ? ', profiling' : ''}`);
    return { samples: count, sample_bytes: bytes };
  }

  function feedsOf(sv, ranges) {
    if (!Array.isArray(ranges) || !ranges.length) throw badMessage("'s' must be a non-empty list of [first, count]");
    for (const r of ranges) {
      if (!Array.isArray(r) || r.length !== 2 || !Number.isSafeInteger(r[0]) || r[0] < 0 || !Number.isSafeInteger(r[1]) ||
          r[1] < 1) {
        throw badMessage("'s' must hold [first, count] pairs of non-negative integers (count >= 1)");
      }
    }
    if (ranges.length === 1 && ranges[0][1] === 1) return sv.samples[ranges[0][0] % sv.count];
    const names = Object.keys(sv.stacked);
    if (!names.length) throw badMessage('several samples in one call need batch_inputs (a model with a dynamic batch)');
    const feeds = { ...sv.samples[ranges[0][0] % sv.count] };
    for (const name of names) feeds[name] = stackedTensor(sv.stacked[name], sv.count, ranges);
    return feeds;
  }

  // One call, timed on the shared clock: [start_us, end_us].
  async function timedCall(st, ranges) {
    const feeds = feedsOf(st.serving, ranges);
    const t0 = nowNs();
    await runOnce(st.inferenceSession, feeds);
    const t1 = nowNs();
    ++st.serving.calls;
    if (build === 'web' && st.serving.profile) guardWebProfile(st);
    return [Number(t0) / 1000, Number(t1) / 1000];
  }

  // ONNX Runtime Web: every profiled call keeps WebAssembly memory, which never shrinks (wasm_memory.mjs). When another
  // call might not fit, the profile ends here, holding the calls made so far, and the calls go on unprofiled (ending
  // it stops the growth); end_profile then says so. The guard starts after the first call, whose allocations are the
  // inference session's own, not a profiled call's.
  function guardWebProfile(st) {
    const prof = st.serving.profile;
    if (prof.stoppedEarly) return;
    if (!prof.guard) {
      prof.guard = profiledRunGuard();
      return;
    }
    if (prof.guard.roomForAnother()) return;
    prof.stoppedEarly = prof.guard.why(`profiled the first ${st.serving.calls} calls`);
    log(prof.stoppedEarly);
    endServingProfile(st, prof);
  }

  function endServingProfile(st, prof) {
    try {
      endProfiling(st.inferenceSession, prof.dir);
    } catch (e) {
      throw new MessageError('ort', e.message, { stage: 'profile' });
    }
  }

  // `s`: one call, answered {t: [start, end]}. `calls`: several, one after another, answered once with
  // {t: [[start, end], ...]} — the caller saves a round trip per call (Offline's queued queries).
  async function opInfer(msg) {
    const st = requireLoadedModel(msg.op);
    if (!st.serving) throw new MessageError('not_ready', "'infer' needs prepared samples: send 'prepare' first");
    if (msg.calls === undefined) return { t: await timedCall(st, msg.s) };
    if (!Array.isArray(msg.calls) || !msg.calls.length) throw badMessage("'calls' must be a non-empty list of 's' lists");
    const t = [];
    for (const ranges of msg.calls) t.push(await timedCall(st, ranges));
    return { t };
  }

  // Ends the profiled inference session's trace: the caller reads the file, then deletes the directory.
  async function opEndProfile(msg) {
    const st = requireLoadedModel(msg.op);
    const prof = st.serving && st.serving.profile;
    if (!prof) throw badMessage("'end_profile' needs samples prepared with 'profile'");
    if (!prof.stoppedEarly) endServingProfile(st, prof);
    return { profile_dir: prof.dir, profile_file: profileFileIn(prof.dir), calls: st.serving.calls,
      optimized_model: fs.existsSync(prof.graph) ? prof.graph : null,
      ...(prof.stoppedEarly ? { stopped_early: prof.stoppedEarly } : {}) };
  }

  return { prepare: opPrepare, infer: opInfer, end_profile: opEndProfile };
}
