// The runner's one loaded model and its inference session (message `load`), and ORT's SessionOptions, named as ORT
// names them. Every message after `load` works on this inference session; creating and running go through here so ORT's
// failures become `ort` errors.
import fs from 'node:fs';
import { build, ort } from './ort.mjs';
import { createWebSession } from './web_build.mjs';
import { MessageError, badMessage, ortError, log } from './errors.mjs';

// Unknown keys are refused so a typo never silently does nothing.
const SESSION_OPTION_KEYS = new Set([
  'executionProviders', 'intraOpNumThreads', 'interOpNumThreads', 'graphOptimizationLevel', 'executionMode',
  'enableCpuMemArena', 'enableMemPattern', 'extra', 'optimizedModelFilePath', 'freeDimensionOverrides',
  'logId', 'logSeverityLevel',
]);
const GRAPH_LEVELS = ['disabled', 'basic', 'extended', 'layout', 'all'];
const EXEC_MODES = ['sequential', 'parallel'];

// `extra` holds ORT's session config entries ("session.intra_op.allow_spinning": "0"). The Node binding
// flattens nested objects with '.' and wants string values; numbers and booleans are stringified here.
function normalizeExtra(obj, where = 'extra') {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw badMessage(`'${where}' must be an object`);
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) out[k] = normalizeExtra(v, `${where}.${k}`);
    else throw badMessage(`'${where}.${k}' must be a string, number, boolean or object`);
  }
  return out;
}

export function sessionOptions(raw) {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badMessage("'options' must be an object");
  const o = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'enableProfiling' || k === 'profileFilePrefix') {
      throw badMessage(`'${k}' is set by run_profiled (an inference session of its own in a private temp dir), ` +
                       'not by load');
    }
    if (!SESSION_OPTION_KEYS.has(k)) {
      throw badMessage(`unknown inference session option '${k}' (known: ${[...SESSION_OPTION_KEYS].join(', ')})`);
    }
    if (v === null) continue;
    o[k] = v;
  }
  if (o.graphOptimizationLevel !== undefined && !GRAPH_LEVELS.includes(o.graphOptimizationLevel)) {
    throw badMessage(`graphOptimizationLevel must be one of ${GRAPH_LEVELS.join('|')}, got ` +
                     JSON.stringify(o.graphOptimizationLevel));
  }
  if (o.executionMode !== undefined && !EXEC_MODES.includes(o.executionMode)) {
    throw badMessage(`executionMode must be one of ${EXEC_MODES.join('|')}, got ${JSON.stringify(o.executionMode)}`);
  }
  if (o.extra !== undefined) o.extra = normalizeExtra(o.extra);
  return o;
}

// {model, options, inferenceSession, inputs: [{name,dtype,dims}], outputs, feedsKey, feeds, loadMs, profiling};
// `profiling` ({dir, graphFile, used}) when the inference session was loaded as the profiled one (run.mjs load's
// `profile`).
let state = null;

export function loadedModel() {
  return state;
}
export function setLoadedModel(st) {
  state = st;
}

export function valueMeta(m) {
  return m.isTensor ? { name: m.name, is_tensor: true, dtype: m.type, dims: m.shape }
                    : { name: m.name, is_tensor: false, dtype: null, dims: null };
}

export function requireLoadedModel(op) {
  if (!state) throw new MessageError('not_ready', `'${op}' needs a loaded model: send 'load' first`);
  return state;
}

export async function createInferenceSession(model, options) {
  try {
    return build === 'web' ? await createWebSession(model, options) : await ort.InferenceSession.create(model, options);
  } catch (e) {
    throw ortError('load', e);
  }
}

export async function runOnce(inferenceSession, feeds) {
  try {
    return await inferenceSession.run(feeds);
  } catch (e) {
    throw ortError('run', e);
  }
}

export async function releaseLoadedModel() {
  const st = state;
  state = null;
  if (st) {
    try { await st.inferenceSession.release(); } catch (e) { log('release failed:', e.message); }
    // A profiled inference session that never profiled leaves its private directory behind otherwise.
    if (st.profiling && !st.profiling.used) fs.rmSync(st.profiling.dir, { recursive: true, force: true });
  }
}
