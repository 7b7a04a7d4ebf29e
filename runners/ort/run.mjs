// rooflens' ONNX Runtime runner: a long-lived child process around onnxruntime-node.
//
// Protocol (full description in docs/runner-protocol.md): one JSON request per line on stdin, one JSON
// response per line on stdout, in order. Every response carries the request's `id` and `ok`. Logs (ours and
// ONNX Runtime's) go to stderr only; stdout carries nothing but responses.
//
// Errors a caller can cause (bad request, model ORT refuses, unreadable input file) become `ok:false`
// responses and the runner keeps serving. Anything else (a bug here) is logged to stderr and the process
// exits non-zero; the C++ side (src/backends/onnxruntime/runner_process.*) reports that with the stderr tail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const PROTOCOL_VERSION = 1;
const log = (...a) => process.stderr.write(`rooflens-ort-runner[${process.pid}]: ${a.join(' ')}\n`);

process.on('uncaughtException', (e) => {
  log('fatal:', e && e.stack ? e.stack : String(e));
  process.exit(70);
});
process.on('unhandledRejection', (e) => {
  log('fatal (unhandled rejection):', e && e.stack ? e.stack : String(e));
  process.exit(70);
});

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  log(`cannot load onnxruntime-node (run \`npm ci --ignore-scripts\` in ${path.dirname(new URL(import.meta.url).pathname)}):`,
      String(e.message).split('\n')[0]);
  process.exit(69);
}

// ---------------------------------------------------------------------------------------------------------
// Errors that become responses.

class RequestError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}
const badRequest = (msg) => new RequestError('bad_request', msg);
const inputError = (msg) => new RequestError('input', msg);
const ortError = (stage, e) => new RequestError('ort', e && e.message ? e.message : String(e), { stage });

// ---------------------------------------------------------------------------------------------------------
// Field helpers.

function optInt(req, key, def, min = 0) {
  const v = req[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw badRequest(`'${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
function optNum(req, key, def, min = 0) {
  const v = req[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw badRequest(`'${key}' must be a number >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
// The timing of run_timed / run_profiled: every field required (the caller's TimingOptions, sent whole — the
// runner keeps no defaults of its own, so one struct on the C++ side decides).
function needInt(obj, key, min = 0) {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw badRequest(`'timing.${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
function needNum(obj, key, min = 0) {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw badRequest(`'timing.${key}' must be a number >= ${min}, got ${JSON.stringify(v)}`);
  }
  return v;
}
function timingOf(req) {
  const t = req.timing;
  if (typeof t !== 'object' || t === null || Array.isArray(t)) {
    throw badRequest("'timing' must be an object with every timing field (see docs/runner-protocol.md)");
  }
  const out = {
    warmupIterations: needInt(t, 'warmup_iterations'), warmupMs: needNum(t, 'warmup_ms'),
    iterations: needInt(t, 'iterations', 1), durationMs: needNum(t, 'duration_s') * 1000,
    maxIterations: needInt(t, 'max_iterations', 1), maxDurationMs: needNum(t, 'max_duration_s') * 1000,
    adaptive: null, profileIterations: needInt(t, 'profile_iterations', 1),
  };
  if (typeof t.adaptive !== 'boolean') throw badRequest("'timing.adaptive' must be a boolean");
  if (t.adaptive) {
    out.adaptive = { rel_ci: needNum(t, 'adaptive_rel_ci'), confidence: needNum(t, 'adaptive_confidence') };
    if (!(out.adaptive.confidence > 0 && out.adaptive.confidence < 1)) {
      throw badRequest('timing.adaptive_confidence must be in (0, 1)');
    }
  }
  if (out.maxIterations < out.iterations) {
    throw badRequest(`timing.max_iterations (${out.maxIterations}) < timing.iterations (${out.iterations})`);
  }
  return out;
}

function optBool(req, key, def) {
  const v = req[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw badRequest(`'${key}' must be a boolean, got ${JSON.stringify(v)}`);
  return v;
}
const nowNs = () => process.hrtime.bigint();
const nsToMs = (ns) => Number(ns) / 1e6;

// ---------------------------------------------------------------------------------------------------------
// Session options, named as ORT names them. Unknown keys are refused so a typo never silently does nothing.

const SESSION_OPTION_KEYS = new Set([
  'executionProviders', 'intraOpNumThreads', 'interOpNumThreads', 'graphOptimizationLevel', 'executionMode',
  'enableCpuMemArena', 'enableMemPattern', 'extra', 'optimizedModelFilePath', 'freeDimensionOverrides',
  'logId', 'logSeverityLevel',
]);
const GRAPH_LEVELS = ['disabled', 'basic', 'extended', 'layout', 'all'];
const EXEC_MODES = ['sequential', 'parallel'];

// `extra` holds ORT session config entries ("session.intra_op.allow_spinning": "0"). The Node binding
// flattens nested objects with '.' and wants string values; numbers and booleans are stringified here.
function normalizeExtra(obj, where = 'extra') {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw badRequest(`'${where}' must be an object`);
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) out[k] = normalizeExtra(v, `${where}.${k}`);
    else throw badRequest(`'${where}.${k}' must be a string, number, boolean or object`);
  }
  return out;
}

function sessionOptions(raw) {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest("'options' must be an object");
  const o = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'enableProfiling' || k === 'profileFilePrefix') {
      throw badRequest(`'${k}' is set by run_profiled (a separate session in a private temp dir), not by load`);
    }
    if (!SESSION_OPTION_KEYS.has(k)) {
      throw badRequest(`unknown session option '${k}' (known: ${[...SESSION_OPTION_KEYS].join(', ')})`);
    }
    if (v === null) continue;
    o[k] = v;
  }
  if (o.graphOptimizationLevel !== undefined && !GRAPH_LEVELS.includes(o.graphOptimizationLevel)) {
    throw badRequest(`graphOptimizationLevel must be one of ${GRAPH_LEVELS.join('|')}, got ` +
                     JSON.stringify(o.graphOptimizationLevel));
  }
  if (o.executionMode !== undefined && !EXEC_MODES.includes(o.executionMode)) {
    throw badRequest(`executionMode must be one of ${EXEC_MODES.join('|')}, got ${JSON.stringify(o.executionMode)}`);
  }
  if (o.extra !== undefined) o.extra = normalizeExtra(o.extra);
  return o;
}

// ---------------------------------------------------------------------------------------------------------
// Seeded generation. mulberry32 per input, seeded from (seed, input name), so adding or reordering inputs
// does not change another input's values.

function fnv1a(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; ++i) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// 53-bit uniform in [0,1) from two draws, for integer ranges wider than 2^32.
const uniform53 = (r) => (Math.floor(r() * 2097152) * 4294967296 + Math.floor(r() * 4294967296)) / 9007199254740992;

function floatToHalfBits(f) {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setFloat32(0, f);
  const x = buf.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let h = mant >>> shift;
    if ((mant >>> (shift - 1)) & 1) h += 1;
    return sign | h;
  }
  let h = sign | (exp << 10) | (mant >>> 13);
  if (mant & 0x1000) h += 1;  // round half up (ties rarely matter for random inputs)
  return h;
}

const INT_RANGES = {
  int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535],
  int32: [-2147483648, 2147483647], uint32: [0, 4294967295],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], uint64: [0, Number.MAX_SAFE_INTEGER],
};
const TYPED = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

// An input given by value (`"values": [16000]`, rooflens' --value): its elements as numbers, in the input's type.
function tensorFromValues(name, dtype, dims, values) {
  const count = dims.reduce((a, b) => a * b, 1);
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw badRequest(`input '${name}': values must be a list of finite numbers`);
  }
  if (values.length !== count) {
    throw inputError(`input '${name}' has ${count} elements (${dims.join('x') || 'a scalar'}); ${values.length} values given`);
  }
  if (dtype === 'float16') return new ort.Tensor('float16', Uint16Array.from(values, floatToHalfBits), dims);
  if (dtype === 'bool') return new ort.Tensor('bool', Uint8Array.from(values, (v) => (v !== 0 ? 1 : 0)), dims);
  if (dtype === 'float32' || dtype === 'float64') return new ort.Tensor(dtype, TYPED[dtype].from(values), dims);
  if (INT_RANGES[dtype]) {
    const [tmin, tmax] = INT_RANGES[dtype];
    if (!values.every((v) => Number.isSafeInteger(v) && v >= tmin && v <= tmax)) {
      throw inputError(`input '${name}' is ${dtype}; values ${JSON.stringify(values)} do not fit it`);
    }
    const big = dtype === 'int64' || dtype === 'uint64';
    return new ort.Tensor(dtype, TYPED[dtype].from(values, (v) => (big ? BigInt(v) : v)), dims);
  }
  throw inputError(`input '${name}': cannot make values of type ${dtype}`);
}

function generateTensor(name, dtype, dims, spec, seed) {
  const count = dims.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(count) || count > 2 ** 31) throw inputError(`input '${name}': ${dims.join('x')} is too large`);
  const r = mulberry32((fnv1a(name) ^ (seed >>> 0) ^ Math.floor(seed / 4294967296)) >>> 0);
  if (dtype === 'float32' || dtype === 'float64' || dtype === 'float16') {
    const low = spec.low ?? -1, high = spec.high ?? 1;
    if (typeof low !== 'number' || typeof high !== 'number' || !(high > low)) {
      throw badRequest(`input '${name}': need low < high, got [${low}, ${high})`);
    }
    const span = high - low;
    if (dtype === 'float16') {
      const a = new Uint16Array(count);
      for (let i = 0; i < count; ++i) a[i] = floatToHalfBits(low + span * r());
      return new ort.Tensor('float16', a, dims);
    }
    const a = new TYPED[dtype](count);
    for (let i = 0; i < count; ++i) a[i] = low + span * r();
    return new ort.Tensor(dtype, a, dims);
  }
  if (dtype === 'bool') {
    const a = new Uint8Array(count);
    for (let i = 0; i < count; ++i) a[i] = r() < 0.5 ? 1 : 0;
    return new ort.Tensor('bool', a, dims);
  }
  if (INT_RANGES[dtype]) {
    const [tmin, tmax] = INT_RANGES[dtype];
    // Integers default to [0, 100): small, non-negative, valid as indices into most tables. A per-input `max`
    // (exclusive; the C++ side derives it from a downstream Gather's vocabulary) bounds them further.
    const lo = spec.min ?? 0;
    const hi = spec.max ?? 100;
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo || lo < tmin || hi - 1 > tmax) {
      throw badRequest(`input '${name}': integer range [${lo}, ${hi}) does not fit ${dtype}`);
    }
    const span = hi - lo;
    const draw = span > 4294967296 ? () => uniform53(r) : r;
    const a = new TYPED[dtype](count);
    if (dtype === 'int64' || dtype === 'uint64') {
      for (let i = 0; i < count; ++i) a[i] = BigInt(lo + Math.floor(draw() * span));
    } else {
      for (let i = 0; i < count; ++i) a[i] = lo + Math.floor(draw() * span);
    }
    return new ort.Tensor(dtype, a, dims);
  }
  throw inputError(`input '${name}': cannot generate values of type ${dtype}; give a file ({"file": ...})`);
}

// ---------------------------------------------------------------------------------------------------------
// Input files: ONNX TensorProto (.pb, as in test_data_set_*/input_*.pb) and NumPy (.npy).

const ONNX_DTYPES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 8: 'string', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
};
const BYTES = {
  float32: 4, uint8: 1, int8: 1, uint16: 2, int16: 2, int32: 4, int64: 8, bool: 1, float16: 2, float64: 8,
  uint32: 4, uint64: 8,
};

function copyTyped(dtype, buf, count) {
  const need = count * BYTES[dtype];
  if (buf.length !== need) throw inputError(`${dtype} data holds ${buf.length} bytes, the dims need ${need}`);
  const ab = new ArrayBuffer(need);  // copy: the source may be unaligned
  new Uint8Array(ab).set(buf);
  return new TYPED[dtype](ab);
}

class WireReader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  eof() { return this.pos >= this.buf.length; }
  varint() {  // BigInt, unsigned 64-bit
    let result = 0n, shift = 0n;
    for (let i = 0; i < 10; ++i) {
      if (this.pos >= this.buf.length) throw inputError('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
    throw inputError('malformed varint');
  }
  uint() {
    const v = this.varint();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw inputError('length out of range');
    return Number(v);
  }
  bytes(n) {
    if (this.pos + n > this.buf.length) throw inputError('truncated field');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wt) {
    if (wt === 0) this.varint();
    else if (wt === 1) this.bytes(8);
    else if (wt === 2) this.bytes(this.uint());
    else if (wt === 5) this.bytes(4);
    else throw inputError(`unsupported wire type ${wt}`);
  }
}

function parseTensorProto(buf) {
  const r = new WireReader(buf);
  const t = { dims: [], dataType: 0, name: '', raw: null, floats: [], doubles: [], ints32: [], ints64: [], uints64: [],
    strings: [] };
  // Repeated scalars come packed (wire type 2) or one per tag; read both.
  const repeated = (wt, list, readOne) => {
    if (wt === 2) {
      const sub = new WireReader(r.bytes(r.uint()));
      while (!sub.eof()) list.push(readOne(sub));
    } else {
      list.push(readOne(r));
    }
  };
  const f32 = (w) => w.bytes(4).readFloatLE(0);
  const f64 = (w) => w.bytes(8).readDoubleLE(0);
  const s64 = (w) => BigInt.asIntN(64, w.varint());
  const u64 = (w) => w.varint();
  while (!r.eof()) {
    const key = r.uint();
    const field = Math.floor(key / 8), wt = key & 7;
    switch (field) {
      case 1: repeated(wt, t.dims, (w) => Number(s64(w))); break;
      case 2: t.dataType = r.uint(); break;
      case 4: repeated(wt, t.floats, f32); break;
      case 5: repeated(wt, t.ints32, s64); break;
      case 6: t.strings.push(r.bytes(r.uint()).toString('utf8')); break;
      case 7: repeated(wt, t.ints64, s64); break;
      case 8: t.name = r.bytes(r.uint()).toString('utf8'); break;
      case 9: t.raw = r.bytes(r.uint()); break;
      case 10: repeated(wt, t.doubles, f64); break;
      case 11: repeated(wt, t.uints64, u64); break;
      case 13: case 14: {  // external_data / data_location
        if (field === 14) { if (r.uint() === 1) throw inputError('tensors with external data are not supported'); }
        else r.skip(wt);
        break;
      }
      default: r.skip(wt);
    }
  }
  const dtype = ONNX_DTYPES[t.dataType];
  if (!dtype) throw inputError(`unsupported TensorProto data_type ${t.dataType}`);
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (dtype === 'string') {
    if (t.strings.length !== count) throw inputError(`string tensor '${t.name}' has ${t.strings.length} values, dims need ${count}`);
    return { name: t.name, dtype, dims: t.dims, data: t.strings };
  }
  let data;
  if (t.raw) {
    data = copyTyped(dtype, t.raw, count);
  } else {
    const src = dtype === 'float32' ? t.floats
      : dtype === 'float64' ? t.doubles
      : dtype === 'int64' ? t.ints64
      : dtype === 'uint32' || dtype === 'uint64' ? t.uints64
      : t.ints32;  // int32, int16, int8, uint16, uint8, bool, float16 (as bits)
    if (src.length !== count) {
      throw inputError(`${dtype} tensor '${t.name}' has ${src.length} values, dims need ${count} ` +
                       '(only TensorProto files are supported, not sequences or optionals)');
    }
    data = new TYPED[dtype](count);
    const big = dtype === 'int64' || dtype === 'uint64';
    for (let i = 0; i < count; ++i) {
      const v = src[i];
      data[i] = big ? (dtype === 'uint64' ? BigInt.asUintN(64, v) : v) : (typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v);
    }
  }
  return { name: t.name, dtype, dims: t.dims, data };
}

const NPY_DTYPES = {
  f4: 'float32', f8: 'float64', f2: 'float16', i1: 'int8', u1: 'uint8', i2: 'int16', u2: 'uint16',
  i4: 'int32', u4: 'uint32', i8: 'int64', u8: 'uint64', b1: 'bool',
};

function parseNpy(buf) {
  if (buf.length < 10 || buf.readUInt32BE(0) !== 0x934e554d || buf[4] !== 0x50 || buf[5] !== 0x59) {
    throw inputError('not a .npy file (bad magic)');
  }
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.subarray(hstart, hstart + hlen).toString('latin1');
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw inputError(`.npy header not understood: ${header.trim()}`);
  if (fortran[1] === 'True') throw inputError('.npy in Fortran order is not supported; save with C order');
  const d = descr[1];
  if (d[0] === '>' && d.slice(1) !== 'i1' && d.slice(1) !== 'u1') throw inputError(`big-endian .npy (${d}) is not supported`);
  const dtype = NPY_DTYPES[d.slice(1)];
  if (!dtype) throw inputError(`.npy dtype ${d} is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  return { name: '', dtype, dims, data: copyTyped(dtype, buf.subarray(hstart + hlen), count) };
}

function loadTensorFile(file) {
  let buf;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    throw inputError(`cannot read input file ${file}: ${e.code || e.message}`);
  }
  try {
    return file.toLowerCase().endsWith('.npy') ? parseNpy(buf) : parseTensorProto(buf);
  } catch (e) {
    if (e instanceof RequestError) throw inputError(`${file}: ${e.message}`);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The loaded session and its inputs.

let state = null;  // {model, options, session, inputs: [{name,dtype,dims}], outputs, feedsKey, feeds}

function valueMeta(m) {
  return m.isTensor ? { name: m.name, is_tensor: true, dtype: m.type, dims: m.shape }
                    : { name: m.name, is_tensor: false, dtype: null, dims: null };
}

function requireSession(op) {
  if (!state) throw new RequestError('no_session', `'${op}' needs a loaded model: send 'load' first`);
  return state;
}

function buildFeeds(req) {
  const st = requireSession(req.op);
  const specs = req.inputs ?? {};
  const dimsMap = req.dims ?? {};
  const seed = optInt(req, 'seed', 0);
  if (typeof specs !== 'object' || Array.isArray(specs)) throw badRequest("'inputs' must be an object keyed by input name");
  if (typeof dimsMap !== 'object' || Array.isArray(dimsMap)) throw badRequest("'dims' must be an object {dim name: size}");
  const key = JSON.stringify([specs, dimsMap, seed, req.test_data_dir ?? null]);
  if (st.feedsKey === key) return st.feeds;

  const known = new Map(st.inputs.map((i) => [i.name, i]));
  for (const n of Object.keys(specs)) {
    if (!known.has(n)) throw badRequest(`model has no input '${n}' (inputs: ${[...known.keys()].join(', ')})`);
  }
  // test_data_dir: input_<i>.pb files, matched by the name stored in the file, else by position.
  const fromDir = new Map();
  if (req.test_data_dir !== undefined) {
    let files;
    try {
      files = fs.readdirSync(req.test_data_dir).filter((f) => /^input_\d+\.pb$/.test(f))
        .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
    } catch (e) {
      throw inputError(`cannot read test_data_dir ${req.test_data_dir}: ${e.code || e.message}`);
    }
    files.forEach((f, i) => {
      const t = loadTensorFile(path.join(req.test_data_dir, f));
      const name = known.has(t.name) ? t.name : st.inputs[i]?.name;
      if (name) fromDir.set(name, t);
    });
  }

  const feeds = {};
  for (const meta of st.inputs) {
    if (!meta.is_tensor) throw inputError(`input '${meta.name}' is not a tensor; rooflens cannot feed it`);
    const spec = specs[meta.name] ?? {};
    if (typeof spec !== 'object' || Array.isArray(spec)) throw badRequest(`inputs.${meta.name} must be an object`);
    let t = fromDir.get(meta.name);
    if (spec.file !== undefined) t = loadTensorFile(spec.file);
    if (t) {
      if (t.dtype !== meta.dtype) {
        throw inputError(`input '${meta.name}' is ${meta.dtype} but ${spec.file ?? req.test_data_dir} holds ${t.dtype}`);
      }
      feeds[meta.name] = new ort.Tensor(t.dtype, t.data, t.dims);
      continue;
    }
    let dims = spec.shape;
    if (dims === undefined) {
      dims = meta.dims.map((d, i) => {
        if (typeof d === 'number' && d >= 0) return d;
        const v = dimsMap[d];
        if (v === undefined) {
          throw inputError(`input '${meta.name}' dim ${i} is symbolic ('${d}'): give "dims": {"${d}": N} ` +
                           `or "inputs": {"${meta.name}": {"shape": [...]}}`);
        }
        return v;
      });
    }
    if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw badRequest(`input '${meta.name}': shape must be a list of non-negative integers, got ${JSON.stringify(dims)}`);
    }
    feeds[meta.name] = spec.values !== undefined ? tensorFromValues(meta.name, meta.dtype, dims, spec.values)
      : generateTensor(meta.name, meta.dtype, dims, spec, seed);
  }
  st.feedsKey = key;
  st.feeds = feeds;
  return feeds;
}

async function createSession(model, options) {
  try {
    return await ort.InferenceSession.create(model, options);
  } catch (e) {
    throw ortError('load', e);
  }
}

async function runOnce(session, feeds) {
  try {
    return await session.run(feeds);
  } catch (e) {
    throw ortError('run', e);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Statistics needed for the adaptive stop (the C++ side owns all reported statistics).

// Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
function normInv(p) {
  const a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
    -3.066479806614716e+01, 2.506628277459239e+00];
  const b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
    -1.328068155288572e+01];
  const c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
    4.374664141464968e+00, 2.938163982698783e+00];
  const d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
  const pl = 0.02425;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - pl) return -normInv(1 - p);
  const q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// Distribution-free confidence interval of the median from order statistics: ranks
// j = floor((n - z√n)/2), k = ceil(1 + (n + z√n)/2) (1-based). null when n is too small.
function medianCi(samples, confidence) {
  const n = samples.length;
  const z = normInv(0.5 + confidence / 2);
  const j = Math.floor((n - z * Math.sqrt(n)) / 2);
  const k = Math.ceil(1 + (n + z * Math.sqrt(n)) / 2);
  if (j < 1 || k > n) return null;
  const s = Float64Array.from(samples).sort();
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { median, low: s[j - 1], high: s[k - 1] };
}

// ---------------------------------------------------------------------------------------------------------
// Requests.

// The runner's own memory, from /proc/self/status (bytes; 0 where /proc is not there). VmHWM is the high-water mark
// of the address space that exec created — not process.resourceUsage().maxRSS, which Linux carries across fork and
// exec, so a runner started by a rooflens that had just measured roofs with GB-sized buffers would report rooflens'
// peak. Writing "5" to /proc/self/clear_refs resets VmHWM to the current VmRSS (Linux >= 4.0), so each phase (session
// creation, the timed runs) gets a peak of its own; peakRss() still answers the whole process's peak.
function procStatus() {
  let status;
  try {
    status = fs.readFileSync('/proc/self/status', 'utf8');
  } catch (e) {
    return { rss: 0, hwm: 0 };
  }
  const kb = (key) => { const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, 'm').exec(status); return m ? Number(m[1]) * 1024 : 0; };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
let peakBeforeReset = 0;
function resetPeak() {
  const before = procStatus().hwm;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch (e) {
    return false;
  }
  peakBeforeReset = Math.max(peakBeforeReset, before);
  const after = procStatus();
  return after.hwm < before || after.hwm === after.rss;
}
function peakRss() {
  return Math.max(procStatus().hwm, peakBeforeReset);
}

// The runtime's own baseline: a one-node model (Relu on one float) made into a session with the model's options, in
// this process before the model's session, and released. What its creation added to the resident set is what any
// session of this runtime costs here (its code pages, thread pool and allocators), whatever the model.
const BASELINE_MODEL = Buffer.from('CAcSCHJvb2ZsZW5zOjoKDAoBeBIBeSIEUmVsdRIIYmFzZWxpbmVaDwoBeBIKCggIARIECgIIAWIPCgF5EgoKCAgBEgQKAggBQgQKABAN', 'base64');
async function measureBaseline(options) {
  const { optimizedModelFilePath, freeDimensionOverrides, ...rest } = options;
  const before = procStatus().rss;
  const s = await ort.InferenceSession.create(BASELINE_MODEL, rest);
  await s.run({ x: new ort.Tensor('float32', new Float32Array(1), [1]) });
  const bytes = Math.max(0, procStatus().rss - before);
  await s.release();
  return bytes;
}

async function opHello() {
  return {
    protocol: PROTOCOL_VERSION,
    runner: 'rooflens-ort-runner',
    onnxruntime_node: ort.env.versions.node ?? null,
    onnxruntime_common: ort.env.versions.common ?? null,
    node: process.versions.node,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    pid: process.pid,
    backends: typeof ort.listSupportedBackends === 'function' ? ort.listSupportedBackends() : [],
  };
}

async function opLoad(req) {
  if (typeof req.model !== 'string' || !req.model) throw badRequest("'load' needs 'model' (path to a .onnx file)");
  const model = path.resolve(req.model);
  const options = sessionOptions(req.options);
  if (options.optimizedModelFilePath) options.optimizedModelFilePath = path.resolve(options.optimizedModelFilePath);
  if (state) await disposeState();
  if (!fs.existsSync(model)) throw inputError(`model file not found: ${model}`);
  // Memory by phase: before anything of this runtime's sessions, the baseline (when asked), the session's creation.
  const memory = { start_bytes: procStatus().rss };
  if (optBool(req, 'memory_baseline', false)) memory.baseline_bytes = await measureBaseline(options);
  resetPeak();
  const t0 = nowNs();
  const session = await createSession(model, options);
  const loadMs = nsToMs(nowNs() - t0);
  const created = procStatus();
  memory.after_session_bytes = created.rss;
  memory.session_peak_bytes = created.hwm;
  memory.peak_reset = resetPeak();
  const inputs = session.inputMetadata.map(valueMeta);
  const outputs = session.outputMetadata.map(valueMeta);
  state = { model, options, session, inputs, outputs, feedsKey: null, feeds: null };
  // One line per model: when the runtime later crashes, the stderr tail in the failure record says what it held.
  log(`loaded ${model} (${loadMs.toFixed(1)} ms)`);
  const res = { model, load_ms: loadMs, inputs, outputs, options, peak_rss_bytes: peakRss(), memory };
  if (options.optimizedModelFilePath) {
    res.optimized_model = fs.existsSync(options.optimizedModelFilePath) ? options.optimizedModelFilePath : null;
  }
  return res;
}

async function disposeState() {
  const st = state;
  state = null;
  if (st) {
    try { await st.session.release(); } catch (e) { log('release failed:', e.message); }
  }
}

async function opRunTimed(req) {
  const st = requireSession(req.op);
  const timing = timingOf(req);
  const memory = { peak_reset: resetPeak() };
  const feeds = buildFeeds(req);
  // The memory probe, before the warm-up: the session's first run with its own peak — what a run needs, without the
  // copies of earlier outputs that wait for the garbage collector during a loop of runs.
  if (optBool(req, 'memory_probe', false)) {
    await runOnce(st.session, feeds);
    memory.probe_peak_bytes = procStatus().hwm;
    memory.peak_reset = resetPeak() && memory.peak_reset;
  }
  const warmIters = timing.warmupIterations, warmMs = timing.warmupMs;
  const minIters = timing.iterations, minMs = timing.durationMs;
  const maxIters = timing.maxIterations, maxMs = timing.maxDurationMs;
  const adaptive = timing.adaptive;

  // Warm-up: at least warmup_iterations runs AND at least warmup_ms.
  const w0 = nowNs();
  let warm = 0;
  while (warm < warmIters || nsToMs(nowNs() - w0) < warmMs) {
    await runOnce(st.session, feeds);
    ++warm;
    if (nsToMs(nowNs() - w0) > maxMs) break;
  }
  const warmupMs = nsToMs(nowNs() - w0);

  // Measured: at least `iterations` AND at least duration_s; adaptive additionally waits for the median's
  // CI to be within ±rel_ci; capped by max_iterations / max_duration_s. Only session.run is inside the timer.
  const lat = [];
  let stop = null, ci = null, nextCheck = minIters;
  const m0 = nowNs();
  for (;;) {
    const t0 = nowNs();
    await runOnce(st.session, feeds);
    const t1 = nowNs();
    lat.push(nsToMs(t1 - t0));
    const elapsed = nsToMs(t1 - m0);
    const minMet = lat.length >= minIters && elapsed >= minMs;
    if (minMet && !adaptive) { stop = 'min_reached'; break; }
    if (minMet && adaptive && lat.length >= nextCheck) {
      ci = medianCi(lat, adaptive.confidence);
      if (ci && ci.low >= ci.median * (1 - adaptive.rel_ci) && ci.high <= ci.median * (1 + adaptive.rel_ci)) {
        stop = 'ci_reached';
        break;
      }
      nextCheck = Math.max(lat.length + 1, Math.ceil(lat.length * 1.05));
    }
    if (lat.length >= maxIters) { stop = 'max_iterations'; break; }
    if (elapsed >= maxMs) { stop = 'max_duration'; break; }
  }
  const wallS = Number(nowNs() - m0) / 1e9;
  if (adaptive && stop !== 'ci_reached') ci = medianCi(lat, adaptive.confidence);
  memory.run_peak_bytes = procStatus().hwm;
  return {
    iterations: lat.length,
    latencies_ms: lat,
    wall_s: wallS,
    warmup_iterations: warm,
    warmup_ms: warmupMs,
    stop_reason: stop,
    median_ci_ms: adaptive ? (ci ? [ci.low, ci.high] : null) : undefined,
    peak_rss_bytes: peakRss(),
    rss_bytes: process.memoryUsage().rss,
    memory,
  };
}

async function opRunProfiled(req) {
  const st = requireSession(req.op);
  const timing = timingOf(req);
  const feeds = buildFeeds(req);
  const warmIters = timing.warmupIterations;
  const iters = timing.profileIterations;
  const returnEvents = optBool(req, 'return_events', false);
  const keep = optBool(req, 'keep_profile', !returnEvents);
  const parent = req.tmp_dir ?? os.tmpdir();
  if (typeof parent !== 'string') throw badRequest("'tmp_dir' must be a path");

  // A private directory per profiled run: two runners (or two rooflens processes) never share a file name.
  let dir;
  try {
    dir = fs.mkdtempSync(path.join(parent, 'rooflens-ort-prof-'));
  } catch (e) {
    throw new RequestError('io', `cannot create a temp dir in ${parent}: ${e.code || e.message}`);
  }
  const options = { ...st.options, enableProfiling: true, profileFilePrefix: path.join(dir, 'ort_profile') };
  // The graph this very session executed, when asked: the names ORT generates while it rewrites a graph
  // (ReorderOutput_token_N, InsertedPrecisionFreeCast_...) differ from one session to the next, so only this
  // session's own graph matches the names in its profile.
  const graphFile = optBool(req, 'dump_graph', false) ? path.join(dir, 'optimized.onnx') : null;
  if (graphFile) options.optimizedModelFilePath = graphFile;
  else delete options.optimizedModelFilePath;
  let session = null;
  try {
    const t0 = nowNs();
    session = await createSession(st.model, options);
    const sessionMs = nsToMs(nowNs() - t0);
    const runMs = [];
    for (let i = 0; i < warmIters + iters; ++i) {
      const a = nowNs();
      await runOnce(session, feeds);
      runMs.push(nsToMs(nowNs() - a));
    }
    try { session.endProfiling(); } catch (e) { throw ortError('profile', e); }
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('ort_profile') && f.endsWith('.json'));
    if (files.length !== 1) {
      throw new RequestError('io', `expected one profile file in ${dir}, found ${files.length}`);
    }
    const file = path.join(dir, files[0]);
    const events = readOrtProfile(file);
    // `model_run` Session events, one per session.run, in time order; the first warmup_iterations are warm-up.
    const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run')
      .map((e) => ({ ts_us: e.ts, dur_us: e.dur })).sort((a, b) => a.ts_us - b.ts_us);
    if (runs.length !== warmIters + iters) {
      log(`warning: profile has ${runs.length} model_run events, expected ${warmIters + iters}`);
    }
    const res = {
      profile_dir: keep ? dir : null,
      profile_file: keep ? file : null,
      warmup_iterations: warmIters,
      iterations: iters,
      session_create_ms: sessionMs,
      run_latencies_ms: runMs.slice(warmIters),
      warmup_latencies_ms: runMs.slice(0, warmIters),
      model_runs: runs,
      measured_from_ts_us: runs.length > warmIters ? runs[warmIters].ts_us : null,
      event_count: events.length,
      peak_rss_bytes: peakRss(),
      optimized_model: graphFile && fs.existsSync(graphFile) ? graphFile : null,
    };
    if (returnEvents) res.events = events;
    return res;
  } finally {
    if (session) {
      try { await session.release(); } catch (e) { log('release failed:', e.message); }
    }
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    else if (!fs.readdirSync(dir).length) fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ORT writes its profile by string concatenation: node names go in unescaped, so a name holding '"' or '\\'
// makes the file invalid JSON. Each event is one line of a fixed shape, so a line that does not parse gets its
// name re-encoded (the name runs from `"name" :"` to the line's last `","args" : {`; ORT's own args never hold
// that text), and the repaired file replaces the original for the C++ side, which parses it too.
const ORT_EVENT_LINE = /^(\{"cat" : "[^"]*","pid" :-?\d+,"tid" :-?\d+,"dur" :-?\d+,"ts" :-?\d+,"ph" : "X","name" :)"(.*)"(,"args" : \{.*)$/s;

function readOrtProfile(file) {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (whole) {
    const events = [];
    for (const raw of text.split('\n')) {
      const line = raw.trim().replace(/,$/, '');
      if (line === '' || line === '[' || line === ']') continue;
      try {
        events.push(JSON.parse(line));
        continue;
      } catch (e) {
        const m = ORT_EVENT_LINE.exec(line);
        if (!m) throw new RequestError('io', `cannot parse ORT profile ${file}: ${whole.message}`);
        try {
          events.push(JSON.parse(m[1] + JSON.stringify(m[2]) + m[3]));
        } catch (e2) {
          throw new RequestError('io', `cannot parse ORT profile ${file}: ${whole.message}`);
        }
      }
    }
    fs.writeFileSync(file, '[\n' + events.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n');
    log(`repaired ${file}: ORT wrote node names unescaped`);
    return events;
  }
}

function encodeTensor(name, t) {
  if (t.type === 'string') return { name, dtype: 'string', dims: t.dims, strings: Array.from(t.data) };
  const d = t.data;
  return { name, dtype: t.type, dims: t.dims, data_b64: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64') };
}

async function opOutputs(req) {
  const st = requireSession(req.op);
  const feeds = buildFeeds(req);
  const out = await runOnce(st.session, feeds);
  // shapes_only: every output's type and dims without its data (rooflens analyze --check-runtime exposes every
  // intermediate tensor as an output and needs only their shapes).
  const shapesOnly = optBool(req, 'shapes_only', false);
  const encode = (n, t) => (shapesOnly ? { name: n, dtype: t.type, dims: t.dims } : encodeTensor(n, t));
  const res = { outputs: st.session.outputNames.filter((n) => out[n]).map((n) => encode(n, out[n])) };
  if (optBool(req, 'return_inputs', false)) res.inputs = Object.entries(feeds).map(([n, t]) => encodeTensor(n, t));
  return res;
}

async function opUnload() {
  const had = state !== null;
  await disposeState();
  return { unloaded: had };
}

async function opSleep(req) {
  const ms = optNum(req, 'ms', 0);
  log(`sleep ${ms} ms (debug request)`);
  await new Promise((r) => setTimeout(r, ms));
  return { slept_ms: ms };
}

// Imported once onnxruntime-node has loaded, so a runner without its packages still says what to install (exit 69).
const { makeGenerateOps } = await import('./generate.mjs');
const GENERATE_OPS = makeGenerateOps({
  ort, fs, os, path, RequestError, badRequest, optInt, optNum, optBool, timingOf, requireSession, createSession,
  readOrtProfile, runOnce, peakRss, procStatus, resetPeak, nowNs, nsToMs, fnv1a, mulberry32, log,
});

const { makeServeOps } = await import('./serve.mjs');  // prepare, infer, end_profile: rooflens capacity
const SERVE_OPS = makeServeOps({
  ort, fs, os, path, RequestError, badRequest, optInt, requireSession, createSession, buildFeeds, runOnce, nowNs, log,
});

const OPS = {
  hello: opHello, load: opLoad, run_timed: opRunTimed, run_profiled: opRunProfiled, outputs: opOutputs,
  unload: opUnload, sleep: opSleep, ...GENERATE_OPS, ...SERVE_OPS,
};

// ---------------------------------------------------------------------------------------------------------
// The loop: requests are handled strictly one at a time, in arrival order.

function send(obj) {
  return new Promise((resolve) => process.stdout.write(JSON.stringify(obj) + '\n', resolve));
}

async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    return send({ id: null, ok: false, error: { code: 'bad_request', message: `request is not JSON: ${e.message}` } });
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return send({ id: null, ok: false, error: { code: 'bad_request', message: 'request must be a JSON object' } });
  }
  const id = req.id ?? null;
  if (req.op === 'quit') {
    await disposeState();
    await send({ id, ok: true, op: 'quit' });
    process.exit(0);
  }
  const fn = Object.hasOwn(OPS, req.op) ? OPS[req.op] : null;
  if (!fn) {
    return send({ id, ok: false, op: req.op ?? null, error: { code: 'bad_request',
      message: `unknown op ${JSON.stringify(req.op)} (known: ${[...Object.keys(OPS), 'quit'].join(', ')})` } });
  }
  try {
    const result = await fn(req);
    return send({ id, ok: true, op: req.op, ...result });
  } catch (e) {
    if (!(e instanceof RequestError)) throw e;  // a bug: the process handlers log it and exit non-zero
    return send({ id, ok: false, op: req.op, error: { code: e.code, message: e.message, ...e.extra } });
  }
}

const queue = [];
let busy = false, closed = false;
async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length) await handle(queue.shift());
  busy = false;
  if (closed) {
    await disposeState();
    process.exit(0);
  }
}

log(`ready (onnxruntime-node ${ort.env.versions.node}, node ${process.versions.node})`);
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  queue.push(line);
  pump();
});
rl.on('close', () => {
  closed = true;
  pump();
});
