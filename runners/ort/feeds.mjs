// The inputs of a run (message fields `inputs`, `dims`, `seed`, `test_data_dir`): from files, from given values, or
// drawn from the seeded generator — built once per distinct message and kept with the loaded model. The C++ side
// builds the same feeds the same way for in-binary runners (src/backends/common/feeds.h).
import fs from 'node:fs';
import path from 'node:path';
import { ort } from './ort.mjs';
import { badMessage, inputError } from './errors.mjs';
import { optInt } from './fields.mjs';
import { fnv1a, mulberry32, uniform53 } from './rng.mjs';
import { floatToHalfBits } from './fp16.mjs';
import { INT_RANGES, TYPED } from './dtypes.mjs';
import { loadTensorFile } from './tensor_files.mjs';
import { requireLoadedModel } from './inference_session.mjs';

// An input given by value (`"values": [16000]`, rooflens' --value): its elements as numbers, in the input's type.
function tensorFromValues(name, dtype, dims, values) {
  const count = dims.reduce((a, b) => a * b, 1);
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw badMessage(`input '${name}': values must be a list of finite numbers`);
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
      throw badMessage(`input '${name}': need low < high, got [${low}, ${high})`);
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
      throw badMessage(`input '${name}': integer range [${lo}, ${hi}) does not fit ${dtype}`);
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

export function buildFeeds(msg) {
  const st = requireLoadedModel(msg.op);
  const specs = msg.inputs ?? {};
  const dimsMap = msg.dims ?? {};
  const seed = optInt(msg, 'seed', 0);
  if (typeof specs !== 'object' || Array.isArray(specs)) throw badMessage("'inputs' must be an object keyed by input name");
  if (typeof dimsMap !== 'object' || Array.isArray(dimsMap)) throw badMessage("'dims' must be an object {dim name: size}");
  const key = JSON.stringify([specs, dimsMap, seed, msg.test_data_dir ?? null]);
  if (st.feedsKey === key) return st.feeds;

  const known = new Map(st.inputs.map((i) => [i.name, i]));
  for (const n of Object.keys(specs)) {
    if (!known.has(n)) throw badMessage(`model has no input '${n}' (inputs: ${[...known.keys()].join(', ')})`);
  }
  // test_data_dir: input_<i>.pb files, matched by the name stored in the file, else by position.
  const fromDir = new Map();
  if (msg.test_data_dir !== undefined) {
    let files;
    try {
      files = fs.readdirSync(msg.test_data_dir).filter((f) => /^input_\d+\.pb$/.test(f))
        .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
    } catch (e) {
      throw inputError(`cannot read test_data_dir ${msg.test_data_dir}: ${e.code || e.message}`);
    }
    files.forEach((f, i) => {
      const t = loadTensorFile(path.join(msg.test_data_dir, f));
      const name = known.has(t.name) ? t.name : st.inputs[i]?.name;
      if (name) fromDir.set(name, t);
    });
  }

  const feeds = {};
  for (const meta of st.inputs) {
    if (!meta.is_tensor) throw inputError(`input '${meta.name}' is not a tensor; rooflens cannot feed it`);
    const spec = specs[meta.name] ?? {};
    if (typeof spec !== 'object' || Array.isArray(spec)) throw badMessage(`inputs.${meta.name} must be an object`);
    let t = fromDir.get(meta.name);
    if (spec.file !== undefined) t = loadTensorFile(spec.file);
    if (t) {
      if (t.dtype !== meta.dtype) {
        throw inputError(`input '${meta.name}' is ${meta.dtype} but ${spec.file ?? msg.test_data_dir} holds ${t.dtype}`);
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
      throw badMessage(`input '${meta.name}': shape must be a list of non-negative integers, got ${JSON.stringify(dims)}`);
    }
    feeds[meta.name] = spec.values !== undefined ? tensorFromValues(meta.name, meta.dtype, dims, spec.values)
      : generateTensor(meta.name, meta.dtype, dims, spec, seed);
  }
  st.feedsKey = key;
  st.feeds = feeds;
  return feeds;
}

// A tensor as replies carry it (`outputs`): raw little-endian element data in base64, strings as a list. The Chromium
// host sends the inputs to its page in the same form.
export function encodeTensor(name, t) {
  if (t.type === 'string') return { name, dtype: 'string', dims: t.dims, strings: Array.from(t.data) };
  const d = t.data;
  const b64 = Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64');
  return { name, dtype: t.type, dims: t.dims, data_b64: b64 };
}
