// Checked message fields: a missing optional field takes its default, a wrong one is a bad_message naming the key.
import { badMessage } from './errors.mjs';

export function optInt(msg, key, def, min = 0) {
  const v = msg[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw badMessage(`'${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
export function optNum(msg, key, def, min = 0) {
  const v = msg[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw badMessage(`'${key}' must be a number >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
// The timing of run_timed / run_profiled: every field required (the caller's TimingOptions, sent whole — the
// runner keeps no defaults of its own, so one struct on the C++ side decides).
function needInt(obj, key, min = 0) {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw badMessage(`'timing.${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
function needNum(obj, key, min = 0) {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw badMessage(`'timing.${key}' must be a number >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
export function timingOf(msg) {
  const t = msg.timing;
  if (typeof t !== 'object' || t === null || Array.isArray(t)) {
    throw badMessage("'timing' must be an object with every timing field (see docs/runner-protocol.md)");
  }
  const out = {
    warmupIterations: needInt(t, 'warmup_iterations'), warmupMs: needNum(t, 'warmup_ms'),
    iterations: needInt(t, 'iterations', 1), durationMs: needNum(t, 'duration_s') * 1000,
    maxIterations: needInt(t, 'max_iterations', 1), maxDurationMs: needNum(t, 'max_duration_s') * 1000,
    adaptive: null, profileIterations: needInt(t, 'profile_iterations', 1),
  };
  if (typeof t.adaptive !== 'boolean') throw badMessage("'timing.adaptive' must be a boolean");
  if (t.adaptive) {
    out.adaptive = { rel_ci: needNum(t, 'adaptive_rel_ci'), confidence: needNum(t, 'adaptive_confidence') };
    if (!(out.adaptive.confidence > 0 && out.adaptive.confidence < 1)) {
      throw badMessage('timing.adaptive_confidence must be in (0, 1)');
    }
  }
  if (out.maxIterations < out.iterations) {
    throw badMessage(`timing.max_iterations (${out.maxIterations}) < timing.iterations (${out.iterations})`);
  }
  return out;
}

export function optBool(msg, key, def) {
  const v = msg[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw badMessage(`'${key}' must be a boolean, got ${JSON.stringify(v)}`);
  return v;
}
