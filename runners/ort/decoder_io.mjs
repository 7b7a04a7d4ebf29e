// A decoder's I/O as rooflens detected it, checked against the loaded inference session, and the small tensors its
// steps feed: shared by decoder generation (generate.mjs) and decoder serving (serve_steps.mjs).
import { ort } from './ort.mjs';
import { badMessage } from './errors.mjs';
import { optInt } from './fields.mjs';
import { fnv1a, mulberry32 } from './rng.mjs';
import { halfToFloat } from './fp16.mjs';

export const KV_ARRAYS = { float32: Float32Array, float16: Uint16Array };
export const ID_ARRAYS = { int64: BigInt64Array, int32: Int32Array };

function name(io, key, required) {
  const v = io[key];
  if (v === undefined || v === null || v === '') {
    if (required) throw badMessage(`'io.${key}' is required`);
    return null;
  }
  if (typeof v !== 'string') throw badMessage(`'io.${key}' must be a string`);
  return v;
}

function pairs(io, key) {
  const v = io[key];
  if (!Array.isArray(v) || !v.length || !v.every((p) => Array.isArray(p) && p.length === 2 &&
      p.every((s) => typeof s === 'string'))) {
    throw badMessage(`'io.${key}' must be a non-empty list of [key, value] names`);
  }
  return v;
}

// The decoder's I/O as rooflens detected it; every name checked against the inference session's own.
export function parseDecoderIo(st, raw) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badMessage("'io' must be an object");
  const io = {
    ids: name(raw, 'input_ids', true), mask: name(raw, 'attention_mask', false),
    positions: name(raw, 'position_ids', false), logits: name(raw, 'logits', true),
    past: pairs(raw, 'past'), present: pairs(raw, 'present'),
    kvHeads: optInt(raw, 'kv_heads', null, 1), headDim: optInt(raw, 'head_dim', null, 1),
    vocab: optInt(raw, 'vocab', null, 1),
    kvDtype: raw.kv_dtype, idsDtype: raw.ids_dtype,
    maskDtype: raw.mask_dtype ?? 'int64', positionsDtype: raw.position_dtype ?? 'int64',
  };
  if (io.kvHeads === null || io.headDim === null || io.vocab === null) {
    throw badMessage("'io' needs kv_heads, head_dim and vocab");
  }
  if (io.mask && raw.mask_dtype === undefined) throw badMessage("'io.mask_dtype' is required with attention_mask");
  if (io.positions && raw.position_dtype === undefined) throw badMessage("'io.position_dtype' is required with position_ids");
  if (!KV_ARRAYS[io.kvDtype]) throw badMessage(`io.kv_dtype must be float32 or float16, got ${io.kvDtype}`);
  for (const k of ['idsDtype', 'maskDtype', 'positionsDtype']) {
    if (!ID_ARRAYS[io[k]]) throw badMessage(`io: integer inputs must be int64 or int32, got ${io[k]}`);
  }
  if (io.past.length !== io.present.length) throw badMessage("'io.past' and 'io.present' differ in length");
  const inputs = new Set(st.inferenceSession.inputNames), outputs = new Set(st.inferenceSession.outputNames);
  const fed = [io.ids, io.mask, io.positions, ...io.past.flat()].filter((n) => n !== null);
  for (const n of fed) if (!inputs.has(n)) throw badMessage(`model has no input '${n}'`);
  for (const n of [io.logits, ...io.present.flat()]) if (!outputs.has(n)) throw badMessage(`model has no output '${n}'`);
  const unfed = [...inputs].filter((n) => !fed.includes(n));
  if (unfed.length) throw badMessage(`generate cannot feed input(s) ${unfed.join(', ')}`);
  return io;
}

export function idTensor(dtype, values, dims) {
  const a = new ID_ARRAYS[dtype](values.length);
  for (let i = 0; i < values.length; ++i) a[i] = dtype === 'int64' ? BigInt(values[i]) : values[i];
  return new ort.Tensor(dtype, a, dims);
}

// Seeded ids in [0, vocab): the prompt, and the tokens `fixed` feeds, one stream each (rows one after another).
export function drawIds(seed, stream, count, vocab) {
  const r = mulberry32((fnv1a(stream) ^ (seed >>> 0)) >>> 0);
  return Array.from({ length: count }, () => Math.floor(r() * vocab));
}

export function argmaxRows(rows, batch, vocab) {
  const out = [];
  for (let r = 0; r < batch; ++r) {
    let best = 0, bestV = -Infinity;
    for (let i = 0; i < vocab; ++i) {
      const x = rows[r * vocab + i];
      if (x > bestV) { bestV = x; best = i; }
    }
    out.push(best);
  }
  return out;
}

// The logits of each row's last position, as float32 rows [batch * vocab], from logits [batch, S, vocab] (float32 or
// float16).
export function lastPositionRows(t) {
  const [b, s, v] = t.dims;
  const rows = new Float32Array(b * v);
  for (let r = 0; r < b; ++r) {
    const base = (r * s + s - 1) * v;
    for (let i = 0; i < v; ++i) rows[r * v + i] = t.type === 'float16' ? halfToFloat(t.data[base + i]) : t.data[base + i];
  }
  return rows;
}
