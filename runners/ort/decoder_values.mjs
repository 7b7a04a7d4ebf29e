// A decoder's step values, pure (no node: imports, no ORT build of its own): the ids a step feeds, the seeded prompt and
// fixed tokens, the next token from the logits. The Node host (decoder_io.mjs re-exports them) and the Chromium page
// (generation_loop.mjs, served to it) build the same tensors from the same seeds with their own ORT's Tensor.
import { fnv1a, mulberry32 } from './rng.mjs';
import { halfToFloat } from './fp16.mjs';

export const KV_ARRAYS = { float32: Float32Array, float16: Uint16Array };
export const ID_ARRAYS = { int64: BigInt64Array, int32: Int32Array };

// `Tensor` is the caller's ORT build's (onnxruntime-node's, or ORT Web's in the page).
export function idTensorOf(Tensor, dtype, values, dims) {
  const a = new ID_ARRAYS[dtype](values.length);
  for (let i = 0; i < values.length; ++i) a[i] = dtype === 'int64' ? BigInt(values[i]) : values[i];
  return new Tensor(dtype, a, dims);
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
