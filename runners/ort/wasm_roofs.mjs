// WebAssembly roofs: what a WebAssembly module can compute and stream on this machine, measured by WebAssembly
// kernels — the ceilings a layer of ONNX Runtime Web (`-B ortweb`) is held against, beside the native roofs of
// `rooflens hw`. The kernels are emitted byte by byte (wasm_encode.mjs), run in workers (one instance per worker, each
// with its own memory: "each thread on its own arrays", as the native sweep does), and timed from a common barrier to
// the last worker's end. Names and units follow `rooflens hw` (docs/roofs.md): compute roofs in GFLOP/s named
// <dtype>_<op>_<isa>, bandwidth in GB/s per kernel and working set (all threads' arrays together), levels L1 … DRAM.
//
// Pure ES module (no node: imports): the host gives it a pool of workers that run workerTask(), and the cache sizes it
// knows. wasm_roofs_node.mjs is Node's host (worker_threads, /sys); wasm_roofs_web.mjs a browser page's (module Web
// Workers; the Chromium host's page).
import { ModuleBuilder, op, f32, i32, v128 } from './wasm_encode.mjs';
import { median } from './stats.mjs';

// Independent accumulators of the compute kernels. Each step is f32x4.mul then f32x4.add (WebAssembly's base SIMD has
// no fused multiply-add), so a chain's step takes a multiply's plus an add's latency (3 + 3 cycles on Zen 3) and two
// multiply and two add pipes need 2 × 6 = 12 chains in flight. More would not fit: the 12 accumulators and 2
// operands take 14 of the 16 xmm registers (V8 keeps one as scratch), and a spill in the loop would halve the rate.
export const kChains = 12;
// Bandwidth kernels move 8 × 16 bytes per iteration, so the loop's own counting stays a small share of it.
export const kUnroll = 8;
const kLineBytes = kUnroll * 16;

const kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;
const kPageBytes = 64 * kKiB;

// ---------------------------------------------------------------------------------------------------------------
// The kernels.

// acc[i] = update(acc[i]) for every chain, `iters` times; returns the chains' sum (so the work has a result). The
// float operands keep the values bounded (acc·0.999999 + 1e-6 converges to 1): no denormals, no infinities; integers
// wrap, which costs nothing.
function chainKernel({ type, constant, update, lane0 = [], add = op.f32Add, result = f32 }) {
  const params = [i32];  // local 0: iterations (≥ 1)
  const acc = (i) => 1 + i, m = 1 + kChains, a = 2 + kChains;
  const body = [];
  for (let i = 0; i < kChains; ++i) body.push(constant(1 + i), op.localSet(acc(i)));
  body.push(constant(0.999999), op.localSet(m), constant(1e-6), op.localSet(a));
  body.push(op.loop);
  for (let i = 0; i < kChains; ++i) body.push(update(acc(i), m, a), op.localSet(acc(i)));
  body.push(op.localGet(0), op.i32Const(1), op.i32Sub, op.localTee(0), op.brIf(0), op.end);
  body.push(op.localGet(acc(0)), lane0);
  for (let i = 1; i < kChains; ++i) body.push(op.localGet(acc(i)), lane0, add);
  return { params, results: [result], locals: [[kChains + 2, type]], body };
}

const kScalar = { type: f32, constant: (x) => op.f32Const(x),
                  update: (x, m, a) => [op.localGet(x), op.localGet(m), op.f32Mul, op.localGet(a), op.f32Add] };
const f32x4Constant = (x) => [op.f32Const(x), op.f32x4Splat];
const kSimd = { type: v128, constant: f32x4Constant, lane0: op.f32x4ExtractLane(0),
                update: (x, m, a) => [op.localGet(x), op.localGet(m), op.f32x4Mul, op.localGet(a), op.f32x4Add] };
const kRelaxed = { type: v128, constant: f32x4Constant, lane0: op.f32x4ExtractLane(0),
                   update: (x, m, a) => [op.localGet(x), op.localGet(m), op.localGet(a), op.f32x4RelaxedMadd] };
// int8 as ONNX Runtime Web computes it with base SIMD128 (MLAS widens the bytes to 16 bits, then
// i32x4.dot_i16x8_s): per step 8 multiplies of 16-bit pairs summed into 4 lanes, then an add. Its operand is the
// chain itself, so the engine cannot hoist the dot out of the loop; a dot's latency plus an add's per step (4 cycles
// on Zen 3) with 12 chains keeps two multiply pipes busy. Counted as the native int8 roofs count: 2 ops per multiply.
const kInt8Dot = { type: v128, constant: (x) => [op.i32Const(Math.round(x * 1000) | 1), op.i16x8Splat],
                   lane0: op.i32x4ExtractLane(0), add: op.i32Add, result: i32,
                   update: (x, m, a) => [op.localGet(x), op.localGet(m), op.i32x4DotI16x8S, op.localGet(a), op.i32x4Add] };

// read(ptr, bytes, passes): `passes` times over [ptr, ptr + bytes), as kReadStreams interleaved streams (the array's
// quarters, read side by side), kUnroll v128.loads per iteration whose values nothing uses, like the native read kernel
// (docs/roofs.md). An engine must keep them: a load out of bounds traps, and that is observable. Summing them instead
// costs a third to a half of the rate, and by how much depends on the code's shape, not the memory: measured here in
// L1, 8 f32x4.add accumulators 49 GB/s, 4 of them 61-65, 6 of them 95, loads alone 95 (the adds share the vector ports
// with the loop and an add chain's stall holds up the loads behind it). Streams: WebAssembly's memory has no huge
// pages, and one stream of 16-byte loads left the hardware prefetchers idle at every 4 KiB page: from DRAM one stream
// read 10.5 GB/s on a thread while ORT Web's Add (two streams in, one out) moved 11.7 (Zen 3, Node 20); four
// interleaved streams keep the L1 rate and read DRAM as fast as the best kernels of ORT Web do.
// bytes: a positive multiple of 128.
export const kReadStreams = 4;
function readKernel() {
  const [ptr, bytes, passes, part, end] = [0, 1, 2, 3, 4];
  const p = (s) => 5 + s;  // each stream's pointer
  const perStream = kUnroll / kReadStreams;
  const body = [op.localGet(bytes), op.i32Const(Math.log2(kReadStreams)), op.i32ShrU, op.localSet(part)];
  body.push(op.loop);                                       // one pass
  body.push(op.localGet(ptr), op.localSet(p(0)));
  for (let s = 1; s < kReadStreams; ++s) {
    body.push(op.localGet(p(s - 1)), op.localGet(part), op.i32Add, op.localSet(p(s)));
  }
  body.push(op.localGet(p(0)), op.localGet(part), op.i32Add, op.localSet(end));
  body.push(op.loop);                                       // kLineBytes per iteration, perStream loads per stream
  for (let k = 0; k < perStream; ++k) {
    for (let s = 0; s < kReadStreams; ++s) body.push(op.localGet(p(s)), op.v128Load(16 * k), op.drop);
  }
  for (let s = 1; s < kReadStreams; ++s) {
    body.push(op.localGet(p(s)), op.i32Const(16 * perStream), op.i32Add, op.localSet(p(s)));
  }
  body.push(op.localGet(p(0)), op.i32Const(16 * perStream), op.i32Add, op.localTee(p(0)), op.localGet(end), op.i32LtU,
            op.brIf(0), op.end);
  body.push(op.localGet(passes), op.i32Const(1), op.i32Sub, op.localTee(passes), op.brIf(0), op.end);
  return { params: [i32, i32, i32], results: [], locals: [[2 + kReadStreams, i32]], body };
}

// copy(src, dst, bytes, passes): `passes` times, [src, src + bytes) to [dst, dst + bytes), 16 bytes per v128.load and
// v128.store (ordinary stores, as the native copy's).
function copyKernel() {
  const [src, dst, bytes, passes, s, d, end] = [0, 1, 2, 3, 4, 5, 6];
  const body = [op.localGet(src), op.localGet(bytes), op.i32Add, op.localSet(end)];
  body.push(op.loop);
  body.push(op.localGet(src), op.localSet(s), op.localGet(dst), op.localSet(d));
  body.push(op.loop);
  for (let j = 0; j < kUnroll; ++j) {
    body.push(op.localGet(d), op.localGet(s), op.v128Load(16 * j), op.v128Store(16 * j));
  }
  body.push(op.localGet(d), op.i32Const(kLineBytes), op.i32Add, op.localSet(d));
  body.push(op.localGet(s), op.i32Const(kLineBytes), op.i32Add, op.localTee(s), op.localGet(end), op.i32LtU,
            op.brIf(0), op.end);
  body.push(op.localGet(passes), op.i32Const(1), op.i32Sub, op.localTee(passes), op.brIf(0), op.end);
  return { params: [i32, i32, i32, i32], results: [], locals: [[3, i32]], body };
}

// The compute roofs: FLOP per iteration = chains × lanes × 2 (a multiply and an add, or one multiply-add, per lane).
export const COMPUTE_KERNELS = [
  { name: 'fp32_muladd_wasm_scalar', isa: 'wasm_scalar', dtype: 'fp32', module: 'base', flopsPerIter: kChains * 2 },
  { name: 'fp32_muladd_wasm_simd128', isa: 'wasm_simd128', dtype: 'fp32', module: 'base',
    flopsPerIter: kChains * 4 * 2 },
  { name: 'fp32_relaxed_madd_wasm_simd128', isa: 'wasm_relaxed_simd', dtype: 'fp32', module: 'relaxed',
    flopsPerIter: kChains * 4 * 2 },
  // 4 lanes x 2 multiplies x 2 ops.
  { name: 'int8_dot_i16x8_wasm_simd128', isa: 'wasm_simd128', dtype: 'int8', module: 'base', flopsPerIter: kChains * 16 },
];
export const BANDWIDTH_KERNELS = ['read', 'copy'];

// The base module: every kernel of the base SIMD128 feature set (which every engine of the last years ships).
export function baseModuleBytes() {
  return new ModuleBuilder().importMemory({ min: 1 })
    .func('fp32_muladd_wasm_scalar', chainKernel(kScalar))
    .func('fp32_muladd_wasm_simd128', chainKernel(kSimd))
    .func('int8_dot_i16x8_wasm_simd128', chainKernel(kInt8Dot))
    .func('read', readKernel())
    .func('copy', copyKernel())
    .bytes();
}

// Relaxed SIMD apart: an engine without it refuses the whole module, and the base roofs must not depend on it.
export function relaxedModuleBytes() {
  return new ModuleBuilder().importMemory({ min: 1 })
    .func('fp32_relaxed_madd_wasm_simd128', chainKernel(kRelaxed))
    .bytes();
}

// ---------------------------------------------------------------------------------------------------------------
// The worker's side: one task = one kernel at one setting, warmed up, then timed repetitions between barriers.

const now = () => performance.now();
const worker = { memory: null, filled: 0, instances: new Map(), sink: 0 };

// The worker's memory, grown to hold `bytes` and filled with 0.5 (never left zero: untouched pages all map the
// kernel's one zero page, which stays in cache, and a DRAM-sized read of it would measure a cache).
function ensureMemory(bytes) {
  if (!worker.memory) worker.memory = new WebAssembly.Memory({ initial: 1 });
  const have = worker.memory.buffer.byteLength;
  if (have < bytes) worker.memory.grow(Math.ceil((bytes - have) / kPageBytes));
  if (worker.filled < bytes) {
    new Float32Array(worker.memory.buffer).fill(0.5, worker.filled / 4, bytes / 4);
    worker.filled = bytes;
  }
}

function instance(task) {
  let inst = worker.instances.get(task.moduleKey);
  if (!inst) {
    ensureMemory(kPageBytes);
    inst = new WebAssembly.Instance(task.module, { env: { memory: worker.memory } });
    worker.instances.set(task.moduleKey, inst);
  }
  return inst.exports;
}

// A call of the task's kernel at size `param` (compute: iterations; bandwidth: passes over the arrays), and the work
// it does (FLOP, or bytes counted as STREAM counts them: read 1, copy 2 words per element).
function kernelCall(task) {
  const x = instance(task);
  if (task.kind === 'compute') {
    const fn = x[task.kernel];
    return { call: (n) => { worker.sink += fn(n); }, work: (n) => n * task.flopsPerIter, p0: 1024, max: 2 ** 30 };
  }
  const ws = task.bytesPerThread;
  ensureMemory(ws);
  if (task.kernel === 'read') {
    return { call: (n) => x.read(0, ws, n), work: (n) => n * ws, p0: 1, max: 2 ** 20 };
  }
  const half = ws / 2;
  return { call: (n) => x.copy(0, half, half, n), work: (n) => n * ws, p0: 1, max: 2 ** 20 };
}

// Warm-up: V8 first runs a function as baseline (Liftoff) code and replaces it with optimised (TurboFan) code once it
// has run enough, for the calls after that (a running loop is never swapped). So the kernel is called over and over,
// in windows, until at least `minMs` have passed and no window has been 2% faster than the best before it for
// `settleMs`. Calls grow (doubling) until each lasts at least callMs / 2, so the timer's cost stays negligible.
function warmUp(k, { minMs, maxMs, windowMs, callMs }) {
  let param = k.p0, best = 0, first = null;
  const t0 = now();
  let lastRise = t0;
  const settleMs = Math.max(minMs / 4, 3 * windowMs);
  for (;;) {
    let work = 0, t;
    const w0 = now();
    do {
      const a = now();
      k.call(param);
      t = now();
      work += k.work(param);
      if (t - a < callMs / 2 && param < k.max) param *= 2;
    } while (t - w0 < windowMs);
    const rate = work / (t - w0);
    if (first === null) first = rate;
    if (rate > best * 1.02) lastRise = t;
    best = Math.max(best, rate);
    if ((t - t0 >= minMs && t - lastRise >= settleMs) || t - t0 >= maxMs) {
      return { param, ms: t - t0, rose_until_ms: lastRise - t0, first_rate: first, rate: best };
    }
  }
}

// Barrier slots on the task's SharedArrayBuffer: arrivals, generation, finished workers.
const ARRIVED = 0, GENERATION = 1, FINISHED = 2;
const kSpins = 20000;  // ~20-50 µs of polling before sleeping

// Waits until ctl[slot] is no longer `value` (slot GENERATION) or reaches `atLeast` (slot FINISHED): polls first,
// then sleeps (Atomics.wait) until notified. Polling alone starts the workers within a few hundred nanoseconds of each
// other on an idle machine, but on a busy one a worker that polls while the other waits for a CPU burns its own share
// of CPU time, and two threads then rarely run at once (2 threads measured 10-13 GFLOP/s against 40 for one at a load
// of 5.5 on 2 CPUs); a sleeper is woken with the scheduler's favour and runs at once.
function waitFor(ctl, slot, done) {
  for (let i = 0; i < kSpins; ++i) if (done(Atomics.load(ctl, slot))) return;
  for (let v = Atomics.load(ctl, slot); !done(v); v = Atomics.load(ctl, slot)) Atomics.wait(ctl, slot, v, 100);
}

function barrier(ctl, n) {
  const gen = Atomics.load(ctl, GENERATION);
  if (Atomics.add(ctl, ARRIVED, 1) === n - 1) {
    Atomics.store(ctl, ARRIVED, 0);
    Atomics.add(ctl, GENERATION, 1);
    Atomics.notify(ctl, GENERATION);
  } else {
    waitFor(ctl, GENERATION, (v) => v !== gen);
  }
}

// Runs one task in this worker and returns its repetitions: the work each did, and (rank 0, which keeps the time)
// each repetition's interval from the barrier to the last worker's end (an interval that holds every worker's work:
// a rate measured over it can be low on a busy machine, never high).
export function workerTask(task) {
  const k = kernelCall(task);
  const warm = warmUp(k, task.warmup);
  // As many calls per repetition as fill repMs at the warmed-up rate; each worker decides for itself, and the
  // interval ends with the slowest, so the sum of the work over the common interval stays right.
  const callWork = k.work(warm.param);
  const calls = Math.max(1, Math.round(task.repMs * warm.rate / callWork));
  const ctl = task.barrier ? new Int32Array(task.barrier) : null;
  const work = [], intervalsMs = [];
  for (let r = 0; r < task.reps; ++r) {
    // Rank 0 reads the clock before it arrives at the barrier, so no worker can have begun before t0: read after the
    // release, a rank 0 descheduled between release and clock started late, and its short interval, the best of all,
    // made 152 GFLOP/s of 2 threads whose peak is 2 × 42 (measured on this 2-vCPU VM at a load of 7).
    const t0 = now();
    if (ctl) barrier(ctl, task.n);
    for (let c = 0; c < calls; ++c) k.call(warm.param);
    if (ctl) {
      Atomics.add(ctl, FINISHED, 1);
      Atomics.notify(ctl, FINISHED);
      if (task.rank === 0) waitFor(ctl, FINISHED, (v) => v >= task.n * (r + 1));  // the others' ends
    }
    intervalsMs.push(now() - t0);
    work.push(calls * callWork);
  }
  return { rank: task.rank, work, intervals_ms: task.rank === 0 ? intervalsMs : null, warmup: warm,
           sink: worker.sink };
}

// ---------------------------------------------------------------------------------------------------------------
// The host's side.

// Whether this engine takes relaxed SIMD without flags (the relaxed roof is measured only then).
export function relaxedSimdSupported() {
  return WebAssembly.validate(relaxedModuleBytes());
}

// Working sets per thread, minBytes … maxBytes by `factor` (√2 or 2 or 4), multiples of 256 bytes (copy's two
// halves are whole 128-byte lines).
export function sweepSizes(minBytes, maxBytes, factor) {
  const out = [];
  for (let x = minBytes; x <= maxBytes * 1.0001; x *= factor) {
    const b = Math.round(x / 256) * 256;
    if (!out.includes(b)) out.push(b);
  }
  return out;
}

// Where the sweep at n threads ends, by `rooflens hw`'s rule (src/hw/measure.cpp, initial_max_working_set): at the
// first working set (all threads' arrays together) that holds max(8 x the last cache, 512 MiB quick / 1 GiB full) —
// STREAM wants 4x the caches, and DRAM's figure is its best point from there —, never past `sizes` (1 GiB a thread);
// all of `sizes` when no cache size is known. Beyond it the points only fall (a Zen 4 guest's 1-thread read: 22.2
// GB/s at 256 MiB, 16.9 at 512, 10.3 at 1 GiB) and took a quarter of the quick measurement's time.
export function sweepSizesAt(n, sizes, caches, quick) {
  const last = Math.max(0, ...caches.map((c) => c.size_bytes || 0));
  if (!last) return sizes;
  const enough = Math.max(8 * last, quick ? 512 * kMiB : kGiB);
  const end = sizes.findIndex((bytes) => bytes * n >= enough);
  return end < 0 ? sizes : sizes.slice(0, end + 1);
}

// How many more times a multi-thread compute roof measured below the 1-thread one is measured (measureWasmRoofs).
export const kComputeRetakes = 3;

// The settings: `quick` for tests and a first look (seconds), the full one for the roofs (about a minute on 2 CPUs).
// Repetitions are short and many, in rounds that go over every kernel and thread count in turn: on a shared machine a
// short repetition more often runs undisturbed, a busy moment passes before the next round, and the best repetition
// of all rounds is the figure (1 ms; a bandwidth repetition is at least one pass over the arrays).
// stepMs bounds the repetitions of one bandwidth point once its passes are long (DRAM-sized arrays).
export function wasmRoofsSettings({ quick = false, cpus = 1, ...over } = {}) {
  const all = Array.from({ length: cpus }, (_, i) => i + 1);
  const common = { computeThreads: all, bandwidthThreads: [...new Set([1, cpus])], minBytes: 16 * kKiB,
                   maxBytes: kGiB, computeRepMs: 1, bandwidthRepMs: 1 };
  const base = quick
    ? { kernels: ['read', 'copy'], factor: 2, computeRounds: 3, bandwidthRounds: 1, reps: 40, minReps: 5, stepMs: 250,
        firstWarmup: { minMs: 400, maxMs: 2000, windowMs: 25, callMs: 0.5 },
        warmup: { minMs: 30, maxMs: 500, windowMs: 10, callMs: 0.5 } }
    : { kernels: ['read', 'copy'], factor: Math.SQRT2, computeRounds: 4, bandwidthRounds: 2, reps: 30, minReps: 6,
        stepMs: 300,
        firstWarmup: { minMs: 1000, maxMs: 5000, windowMs: 50, callMs: 0.5 },
        warmup: { minMs: 60, maxMs: 1000, windowMs: 15, callMs: 0.5 } };
  // A maximum given explicitly is the sweep's end at every thread count (sweepSizesAt's rule applies otherwise).
  return { quick, cpus, ...common, ...base, ...over, maxGiven: over.maxBytes !== undefined };
}

// One measurement: `task` on workers 0 … n-1 together; the rate of each repetition is all workers' work over rank 0's
// interval (barrier to the last end). Best and median over the repetitions, per millisecond.
async function runStep(pool, n, task) {
  const sab = n > 1 ? new SharedArrayBuffer(16) : null;
  const results = await pool.run(n, (rank) => ({ ...task, rank, n, barrier: sab }));
  const rates = results[0].intervals_ms.map((ms, r) => results.reduce((s, x) => s + x.work[r], 0) / ms);
  return { rates, warmup: results[0].warmup };
}

// The memory levels, from the reported cache sizes (hints, as in `rooflens hw`): level i's figure is the kernel's best
// point whose working set fits the caches up to level i and not those below it (their capacity at n threads: a
// private cache once per thread, a shared one once per group of threads that share it); DRAM's is its best point from
// 4× the last cache on (STREAM's rule). `rooflens hw` finds levels from where its sweep falls (src/hw/levels.cpp):
// given `sweep`, it can do the same with these points.
export function levelsFromCaches(sweep, caches, threadCounts, kernels) {
  const data = caches.filter((c) => c.size_bytes > 0).sort((a, b) => a.size_bytes - b.size_bytes);
  const out = [];
  if (!data.length) return out;  // no sizes, no levels (and no DRAM: nothing says where the caches end)
  for (const n of threadCounts) {
    for (const kernel of kernels) {
      const pts = sweep.filter((p) => p.threads === n && p.kernel === kernel);
      let below = 0;
      const figure = (level, lo, hi, reported) => {
        const inside = pts.filter((p) => p.working_set_bytes > lo && p.working_set_bytes <= hi);
        if (!inside.length) return;
        const best = inside.reduce((a, b) => (b.gbps > a.gbps ? b : a));
        out.push({ level, kernel, threads: n, gbps: best.gbps, working_set_bytes: best.working_set_bytes,
                   reported_bytes: reported });
      };
      for (const c of data) {
        const cap = c.size_bytes * (c.cores_sharing > 1 ? Math.ceil(n / c.cores_sharing) : n);
        figure(c.level.replace(/d$/, ''), below, cap, cap);
        below = cap;
      }
      figure('DRAM', Math.max(4 * below, 1) - 1, Infinity, 0);
    }
  }
  return out;
}

// Measures every roof. `pool`: { size, run(n, taskFor) → Promise<results of workers 0 … n-1> }, the host's workers;
// `caches`: [{ level: 'L1d' | 'L2' | 'L3', size_bytes, cores_sharing }] as the host reports them ([] when unknown);
// `threadsOk`: whether more than one worker can run together (a barrier needs SharedArrayBuffer).
export async function measureWasmRoofs({ pool, caches = [], threadsOk = typeof SharedArrayBuffer !== 'undefined',
                                         log = () => {}, ...options }) {
  const t0 = now();
  const s = wasmRoofsSettings({ cpus: pool.size, ...options });
  const usable = (ns) => ns.filter((n) => n <= pool.size && (n === 1 || threadsOk));
  const relaxed = relaxedSimdSupported();
  const modules = { base: await WebAssembly.compile(baseModuleBytes()) };
  if (relaxed) modules.relaxed = await WebAssembly.compile(relaxedModuleBytes());
  const warmed = new Set();  // kernels V8 has tiered up: all workers share the compiled module and its code
  const warmupFor = (kernel) => (warmed.has(kernel) ? s.warmup : s.firstWarmup);
  const notes = [
    'compute: fp32, a loop over 12 independent f32x4 (or f32) accumulators, each step a multiply and an add ' +
    '(2 FLOP per lane; base WebAssembly SIMD has no fused multiply-add)',
    'bandwidth bytes counted as STREAM does (read 1, copy 2 words per element); working sets are all threads\' ' +
    'arrays together, each thread on its own memory; v128 loads (read: loads only) and ordinary v128 stores',
    'each figure is the best of its repetitions (median beside it); a repetition runs from a common barrier to the ' +
    'last worker\'s end; every kernel first warmed up past V8\'s tier-up (Liftoff, then TurboFan) until its rate ' +
    'stopped rising',
  ];
  if (!relaxed) {
    notes.push('no relaxed SIMD roof: this engine does not take f32x4.relaxed_madd without flags (Node 20 / V8 11.3 ' +
               'keeps it behind --experimental-wasm-relaxed-simd; Chrome 114+ and Node 22 ship it)');
  }
  if (!threadsOk) notes.push('1 thread only: no SharedArrayBuffer, so workers cannot start together');

  const computeKernels = COMPUTE_KERNELS.filter((x) => modules[x.module]);
  const computeRates = new Map();  // "kernel xN" → { rates of all rounds, the first warm-up }
  const measureCompute = async (k, n, what) => {
    const task = { kind: 'compute', kernel: k.name, flopsPerIter: k.flopsPerIter, module: modules[k.module],
                   moduleKey: k.module, warmup: warmupFor(k.name), repMs: s.computeRepMs, reps: s.reps };
    const r = await runStep(pool, n, task);
    warmed.add(k.name);
    const key = `${k.name} x${n}`;
    const seen = computeRates.get(key) ?? { rates: [], warmup: r.warmup };
    seen.rates.push(...r.rates);
    computeRates.set(key, seen);
    log(`${what}: ${key}: ${(Math.max(...r.rates) / 1e6).toFixed(2)} GFLOP/s`);
  };
  for (let round = 0; round < s.computeRounds; ++round) {
    for (const k of computeKernels) {
      for (const n of usable(s.computeThreads)) await measureCompute(k, n, `round ${round + 1}`);
    }
  }
  // A kernel on n threads can do at least what it does on one, so a best below one thread's says the other CPUs were
  // busy through every round (seen in a Chromium page: 2-thread fp32 roofs at 0.87x the 1-thread ones, cached, and
  // matmuls then ran at 1.08x "the roof"). Such a figure is measured again, up to kComputeRetakes more times.
  const best = (n, k) => Math.max(...computeRates.get(`${k.name} x${n}`).rates);
  for (const k of computeKernels) {
    if (!computeRates.has(`${k.name} x1`)) continue;
    for (const n of usable(s.computeThreads).filter((x) => x > 1)) {
      for (let i = 0; i < kComputeRetakes && best(n, k) < best(1, k); ++i) {
        await measureCompute(k, n, `below 1 thread's ${(best(1, k) / 1e6).toFixed(2)}, measured again`);
      }
      if (best(n, k) < best(1, k)) {
        notes.push(`${k.name} x${n} stayed below x1 after ${kComputeRetakes} more measurements: the machine's other ` +
                   'CPUs were busy; measure these roofs again on a quiet machine');
      }
    }
  }
  const compute = [];
  for (const k of computeKernels) {
    for (const n of usable(s.computeThreads)) {
      const { rates, warmup } = computeRates.get(`${k.name} x${n}`);
      compute.push({ name: k.name, isa: k.isa, dtype: k.dtype, threads: n, gflops: Math.max(...rates) / 1e6,
                     median_gflops: median(rates) / 1e6, repetitions: rates.length, warmup_ms: warmup.ms,
                     rose_until_ms: warmup.rose_until_ms, first_window_gflops: warmup.first_rate / 1e6 });
    }
  }

  const points = new Map();  // "kernel xN bytes" → rates of all rounds
  const grid = sweepSizes(s.minBytes, s.maxBytes, s.factor);
  const sizesAt = (n) => (s.maxGiven ? grid : sweepSizesAt(n, grid, caches, s.quick));
  const bwThreads = usable(s.bandwidthThreads);
  for (let round = 0; round < s.bandwidthRounds; ++round) {
    for (const kernel of s.kernels) {
      for (const n of bwThreads) {
        let lastRate = 0;  // bytes per ms per thread
        for (const bytes of sizesAt(n)) {
          // Repetitions: as many as fit stepMs at the rate the last (smaller) size ran, within [minReps, reps]; all
          // workers must run the same number (they meet at a barrier before each).
          const passMs = lastRate ? bytes / lastRate : 0;
          const reps = Math.max(s.minReps, Math.min(s.reps, Math.floor(s.stepMs / Math.max(s.bandwidthRepMs, passMs))));
          const task = { kind: 'bandwidth', kernel, bytesPerThread: bytes, module: modules.base, moduleKey: 'base',
                         warmup: warmupFor(kernel), repMs: s.bandwidthRepMs, reps };
          const r = await runStep(pool, n, task);
          warmed.add(kernel);
          lastRate = median(r.rates) / n;
          const key = `${kernel} x${n} ${bytes}`;
          points.set(key, [...(points.get(key) ?? []), ...r.rates]);
          log(`round ${round + 1}: ${kernel} x${n} ${bytes * n} B: ${(Math.max(...r.rates) / 1e6).toFixed(2)} GB/s`);
        }
      }
    }
  }
  const sweep = [];
  for (const kernel of s.kernels) {
    for (const n of bwThreads) {
      for (const bytes of sizesAt(n)) {
        const rates = points.get(`${kernel} x${n} ${bytes}`);
        sweep.push({ kernel, threads: n, working_set_bytes: bytes * n, gbps: Math.max(...rates) / 1e6,
                     median_gbps: median(rates) / 1e6 });
      }
    }
  }

  return {
    source: 'measured',
    quick: s.quick,
    engine: { simd128: WebAssembly.validate(baseModuleBytes()), relaxed_simd: relaxed, threads: threadsOk,
              cpus: pool.size },
    compute,
    memory: levelsFromCaches(sweep, caches, bwThreads, s.kernels),
    sweep,
    caches,
    notes,
    elapsed_ms: now() - t0,
  };
}
