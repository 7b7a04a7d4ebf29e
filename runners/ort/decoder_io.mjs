// A decoder's I/O as rooflens detected it, checked against the loaded inference session, and the small tensors its
// steps feed: shared by decoder generation (generate.mjs) and decoder serving (serve_steps.mjs).
import { ort } from './ort.mjs';
import { badMessage } from './errors.mjs';
import { optInt } from './fields.mjs';
import { ID_ARRAYS, KV_ARRAYS, idTensorOf } from './decoder_values.mjs';

export { ID_ARRAYS, KV_ARRAYS, argmaxRows, drawIds, lastPositionRows } from './decoder_values.mjs';

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
  return idTensorOf(ort.Tensor, dtype, values, dims);
}
