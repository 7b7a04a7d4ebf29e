// Serving a decoder step by step for `rooflens capacity` on a decoder (messages `serve_begin`, `serve_step`,
// `serve_end`; docs/runner-protocol.md). rooflens' scheduler (src/capacity/generative/batcher.h) decides every step's
// rows; this module runs them and keeps every sequence's KV cache:
// - a prompt (or a chunk of one) is a call of its own, batch 1, over that sequence's cache so far;
// - the decode rows of a step are one batched call over a padded cache [rows, kv_heads, P, head_dim]: each row's
//   tokens sit at the end of its P positions (left padding), attention_mask zeroes the rest, position_ids carry each
//   row's own position. When the decode batch's membership changes, the cache is rebuilt row by row (the bytes
//   copied are counted and sent back); otherwise the step's present is the next step's past, with no copy.
// Times go back in microseconds of CLOCK_MONOTONIC, the clock rooflens shares (clock.mjs).
import { ort } from './ort.mjs';
import { MessageError, badMessage } from './errors.mjs';
import { optBool } from './fields.mjs';
import { nowNs } from './clock.mjs';
import { requireLoadedModel, runOnce } from './inference_session.mjs';
import { KV_ARRAYS, argmaxRows, drawIds, idTensor, lastPositionRows, parseDecoderIo } from './decoder_io.mjs';

const PREFILL = 1, COMPLETES = 2, PADDING = 4;  // a row's flags

export function makeServeStepOps() {
  let sv = null;  // { io, greedy, keepTokens, seed, seqs: Map<id, Seq>, batch }

  function requireServing(op) {
    const st = requireLoadedModel(op);
    if (!sv) throw new MessageError('not_ready', `'${op}' needs a decoder being served: send 'serve_begin' first`);
    return st;
  }

  function ints(msg, key) {
    const v = msg[key] ?? [];
    if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x) && x >= 0)) {
      throw badMessage(`'${key}' must be a list of request ids`);
    }
    return v;
  }

  function parseRows(msg) {
    if (!Array.isArray(msg.rows) || !msg.rows.length) throw badMessage("'rows' must be a non-empty list");
    return msg.rows.map((r) => {
      if (!Array.isArray(r) || r.length !== 4 || !r.every((x) => Number.isInteger(x) && x >= 0) || r[2] < 1) {
        throw badMessage("each row must be [request, context, tokens >= 1, flags]");
      }
      return { id: r[0], context: r[1], tokens: r[2], prefill: !!(r[3] & PREFILL), completes: !!(r[3] & COMPLETES),
        padding: !!(r[3] & PADDING) };
    });
  }

  const elementBytes = (io) => (io.kvDtype === 'float16' ? 2 : 4);
  const emptyCache = (io) => new ort.Tensor(io.kvDtype, new KV_ARRAYS[io.kvDtype](0), [1, io.kvHeads, 0, io.headDim]);

  // The next token a sequence feeds: greedy (argmax of its last position's logits) or a seeded fixed draw.
  function nextTokens(out, rows, stream) {
    if (!sv.greedy) return rows.map((r) => drawIds(sv.seed, `${stream}:${r.id}:${r.context}`, 1, sv.io.vocab)[0]);
    const t = out[sv.io.logits];
    return argmaxRows(lastPositionRows(t), t.dims[0], t.dims[2]);
  }

  function record(id, token) {
    if (!sv.keepTokens) return;
    if (!sv.tokens.has(id)) sv.tokens.set(id, []);
    sv.tokens.get(id).push(token);
  }

  // One prompt or chunk, batch 1, over the sequence's cache so far.
  async function prefill(st, row) {
    const io = sv.io;
    let seq = sv.seqs.get(row.id);
    if (!seq) {
      if (row.context !== 0) throw badMessage(`request ${row.id}: a first prefill row must have context 0`);
      seq = { context: 0, cache: null, next: 0 };
      sv.seqs.set(row.id, seq);
    }
    if (seq.context !== row.context) {
      throw badMessage(`request ${row.id}: its cache holds ${seq.context} tokens, the row says ${row.context}`);
    }
    const total = row.context + row.tokens;
    const feeds = {
      // The request's prompt drawn whole and this row's part of it taken, so a prompt is the same ids however it is
      // chunked.
      [io.ids]: idTensor(io.idsDtype, drawIds(sv.seed, `prompt:${row.id}`, total, io.vocab).slice(row.context),
        [1, row.tokens]),
      [io.mask]: idTensor(io.maskDtype, new Array(total).fill(1), [1, total]),
      [io.positions]: idTensor(io.positionsDtype, Array.from({ length: row.tokens }, (_, i) => row.context + i),
        [1, row.tokens]),
    };
    io.past.forEach(([k, v], i) => {
      feeds[k] = seq.cache ? seq.cache[io.present[i][0]] : emptyCache(io);
      feeds[v] = seq.cache ? seq.cache[io.present[i][1]] : emptyCache(io);
    });
    const out = await runOnce(st.inferenceSession, feeds);
    seq.cache = {};
    for (const pair of io.present) for (const n of pair) seq.cache[n] = out[n];
    seq.context = total;
    if (row.completes) {
      seq.next = nextTokens(out, [row], 'first')[0];
      record(row.id, seq.next);
    }
  }

  // The padded cache of `rows` (in their order), copied row by row from the last batch or each sequence's own cache.
  function rebuild(rows) {
    const io = sv.io;
    const P = Math.max(...rows.map((r) => r.context));
    const width = io.kvHeads, d = io.headDim;
    const old = sv.batch;
    const cache = {};
    let copied = 0;
    for (const pair of io.present) {
      for (const n of pair) {
        const data = new KV_ARRAYS[io.kvDtype](rows.length * width * P * d);
        rows.forEach((r, b) => {
          const at = old ? old.ids.indexOf(r.id) : -1;
          const src = at >= 0 ? old.cache[n].data : sv.seqs.get(r.id)?.cache?.[n]?.data;
          if (!src) throw badMessage(`request ${r.id}: no cache to decode from (it was never prefilled)`);
          const srcP = at >= 0 ? old.P : r.context, srcRow = at >= 0 ? at : 0;
          for (let h = 0; h < width; ++h) {
            const from = ((srcRow * width + h) * srcP + (srcP - r.context)) * d;
            const to = ((b * width + h) * P + (P - r.context)) * d;
            data.set(src.subarray(from, from + r.context * d), to);
          }
          copied += r.context * width * d * elementBytes(io);
        });
        cache[n] = new ort.Tensor(io.kvDtype, data, [rows.length, width, P, d]);
      }
    }
    const next = rows.map((r) => {
      const at = old ? old.ids.indexOf(r.id) : -1;
      return at >= 0 ? old.next[at] : sv.seqs.get(r.id).next;
    });
    for (const r of rows) {
      const seq = sv.seqs.get(r.id);
      if (seq) seq.cache = null;  // its cache lives in the batch now
    }
    sv.batch = { ids: rows.map((r) => r.id), context: rows.map((r) => r.context), P, cache, next };
    return copied;
  }

  // The decode rows, one batched call over the padded cache.
  async function decode(st, rows, changed) {
    const io = sv.io;
    const same = sv.batch && !changed && sv.batch.ids.length === rows.length && rows.every((r, i) => sv.batch.ids[i] === r.id);
    const copied = same ? 0 : rebuild(rows);
    const bt = sv.batch;
    rows.forEach((r, i) => {
      if (bt.context[i] !== r.context) {
        throw badMessage(`request ${r.id}: its cache holds ${bt.context[i]} tokens, the row says ${r.context}`);
      }
    });
    const B = rows.length, total = bt.P + 1;
    const mask = [];
    for (let b = 0; b < B; ++b) for (let j = 0; j < total; ++j) mask.push(j >= total - (bt.context[b] + 1) ? 1 : 0);
    const feeds = {
      [io.ids]: idTensor(io.idsDtype, bt.next, [B, 1]),
      [io.mask]: idTensor(io.maskDtype, mask, [B, total]),
      [io.positions]: idTensor(io.positionsDtype, bt.context, [B, 1]),
    };
    io.past.forEach(([k, v], i) => {
      feeds[k] = bt.cache[io.present[i][0]];
      feeds[v] = bt.cache[io.present[i][1]];
    });
    const out = await runOnce(st.inferenceSession, feeds);
    for (const pair of io.present) for (const n of pair) bt.cache[n] = out[n];
    bt.P = total;
    const next = nextTokens(out, rows, 'decode');
    rows.forEach((r, i) => {
      bt.context[i] += 1;
      bt.next[i] = next[i];
      if (!r.padding) record(r.id, next[i]);
    });
    return copied;
  }

  async function opServeBegin(msg) {
    const st = requireLoadedModel(msg.op);
    const io = parseDecoderIo(st, msg.io);
    if (!io.mask || !io.positions) {
      throw badMessage('serving a decoder needs its attention_mask and position_ids inputs (a padded batch of ' +
        'sequences of different lengths is masked and positioned row by row)');
    }
    if (msg.next_token !== 'greedy' && msg.next_token !== 'fixed') throw badMessage("'next_token' must be greedy or fixed");
    if (!Number.isInteger(msg.seed) || msg.seed < 0) throw badMessage("'seed' must be an integer >= 0");
    sv = { io, greedy: msg.next_token === 'greedy', keepTokens: optBool(msg, 'keep_tokens', false), seed: msg.seed,
      seqs: new Map(), batch: null, tokens: new Map() };
    return {};
  }

  async function opServeStep(msg) {
    const st = requireServing(msg.op);
    const rows = parseRows(msg);
    const joined = ints(msg, 'joined'), left = ints(msg, 'left');
    for (const id of ints(msg, 'finished')) sv.seqs.delete(id);
    const t0 = nowNs();
    for (const r of rows) if (r.prefill) await prefill(st, r);
    const decoding = rows.filter((r) => !r.prefill);
    const copied = decoding.length ? await decode(st, decoding, joined.length > 0 || left.length > 0) : 0;
    const t1 = nowNs();
    return { t: [Number(t0) / 1000, Number(t1) / 1000], kv_copy_bytes: copied };
  }

  async function opServeEnd(msg) {
    requireServing(msg.op);
    const tokens = {};
    for (const [id, list] of sv.tokens) tokens[id] = list;
    sv = null;
    return { tokens };
  }

  return { serve_begin: opServeBegin, serve_step: opServeStep, serve_end: opServeEnd };
}
