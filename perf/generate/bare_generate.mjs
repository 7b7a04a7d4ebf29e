// The baseline for `make bench` part 6 (perf/generate/bench_generate.cpp): the plainest onnxruntime-node greedy
// generation loop we can write for a decoder with a KV cache in the Optimum layout, to compare `rooflens generate`'s
// decode tokens/s against. Nothing from runners/ort/ is used, only the onnxruntime-node package it installs.
//
//   node bare_generate.mjs --ort-package /abs/runners/ort/package.json --model m.onnx --prompt 128 --gen 32
//                          [--batch 1] [--threads 2] [--requests 5] [--warmup 1]
//
// Inference session options are what `rooflens generate --threads N` sends (intraOpNumThreads only). Each request:
// build the prompt feeds (ids i % vocab, mask of ones, positions 0..P-1, empty past), run the prefill, then `gen`
// decode steps, each feeding the argmax of the last logits, a mask one longer, the next position and the previous
// present as past. Decode tokens/s of a request = batch * gen / (time from the first tokens chosen to the last). Prints
// one JSON line: {decode_tokens_per_s (mean over requests), ttft_ms (median), tpot_ms (median), requests}.
import { createRequire } from 'node:module';

function parseArgs(argv) {
  const a = { ortPackage: process.env.ROOFLENS_ORT_PACKAGE ?? '', model: '', prompt: 128, gen: 32, batch: 1,
              threads: 0, requests: 5, warmup: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    const key = { '--ort-package': 'ortPackage', '--model': 'model', '--prompt': 'prompt', '--gen': 'gen',
                  '--batch': 'batch', '--threads': 'threads', '--requests': 'requests', '--warmup': 'warmup' }[k];
    if (!key) throw new Error(`unknown argument ${k}`);
    a[key] = key === 'ortPackage' || key === 'model' ? v : Number(v);
  }
  if (!a.ortPackage || !a.model) throw new Error('need --ort-package (or ROOFLENS_ORT_PACKAGE) and --model');
  return a;
}

const args = parseArgs(process.argv.slice(2));
const ort = createRequire(args.ortPackage)('onnxruntime-node');
const options = args.threads > 0 ? { intraOpNumThreads: args.threads } : {};
const inferenceSession = await ort.InferenceSession.create(args.model, options);

const pastNames = inferenceSession.inputNames.filter((n) => n.startsWith('past_key_values.'));
const pastMeta = inferenceSession.inputMetadata.find((m) => m.name === pastNames[0]);
const [kvHeads, headDim] = [pastMeta.shape[1], pastMeta.shape[3]];
const vocab = inferenceSession.outputMetadata.find((m) => m.name === 'logits').shape[2];
const has = (n) => inferenceSession.inputNames.includes(n);
const ints = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);

function feeds(tokens, past, present) {
  const b = args.batch, s = tokens.length / b, f = { input_ids: ints(tokens, [b, s]) };
  if (has('attention_mask')) f.attention_mask = ints(new Array(b * (past + s)).fill(1), [b, past + s]);
  if (has('position_ids')) f.position_ids = ints(Array.from({ length: b * s }, (_, i) => past + (i % s)), [b, s]);
  for (const name of pastNames) {
    f[name] = present ? present[name.replace('past_key_values.', 'present.')]
      : new ort.Tensor('float32', new Float32Array(0), [b, kvHeads, 0, headDim]);
  }
  return f;
}

function argmax(logits) {
  const [b, s, v] = logits.dims, out = [];
  for (let r = 0; r < b; ++r) {
    const base = (r * s + s - 1) * v;
    let best = 0;
    for (let i = 1; i < v; ++i) if (logits.data[base + i] > logits.data[base + best]) best = i;
    out.push(best);
  }
  return out;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
async function request() {
  const prompt = Array.from({ length: args.batch * args.prompt }, (_, i) => i % vocab);
  const f0 = feeds(prompt, 0, null);
  const t0 = now();
  let out = await inferenceSession.run(f0);
  let next = argmax(out.logits);
  const first = now();
  const steps = [];
  let prev = first;
  for (let s = 0; s < args.gen; ++s) {
    out = await inferenceSession.run(feeds(next, args.prompt + s, out));
    next = argmax(out.logits);
    const t = now();
    steps.push(t - prev);
    prev = t;
  }
  return { ttft: first - t0, steps, decodeS: (prev - first) / 1000 };
}

for (let i = 0; i < args.warmup; ++i) await request();
const tps = [], ttft = [], tpot = [];
for (let i = 0; i < args.requests; ++i) {
  const r = await request();
  tps.push(args.batch * args.gen / r.decodeS);
  ttft.push(r.ttft);
  tpot.push(...r.steps);
}
await inferenceSession.release();
const median = (v) => { const s = [...v].sort((a, b) => a - b), n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
process.stdout.write(JSON.stringify({ decode_tokens_per_s: tps.reduce((a, b) => a + b, 0) / tps.length,
  ttft_ms: median(ttft), tpot_ms: median(tpot), requests: tps.length }) + '\n');
