// The runtime's calibration constants (runtime_cost.mjs: its baseline and its cost per node) kept per machine, runtime
// and options, as rooflens keeps its roofs: $XDG_CACHE_HOME/rooflens/runtime-cost.json (or ~/.cache/rooflens).
// Measuring them starts a process that makes two inference sessions (~0.3 s), once per configuration a run loads; the
// figures are the runtime's, not the model's, so they are measured once and read back with the date they were measured.
// A file that cannot be read or parsed is measured over.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, runtimeVersion } from './ort.mjs';
import { measureRuntimeCost, optionsForOtherModels } from './memory.mjs';
import { CHAIN_NODES } from './onnx_chain.mjs';
import { COMMON_KERNELS_VERSION } from './common_kernels.mjs';

function cacheFile() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'rooflens', 'runtime-cost.json');
}

// The machine's class as far as a process's pages depend on it: the CPU's features (the runtime picks its kernels, and so
// the code pages a first run makes resident, by ISA), the kernel (how page faults map file pages) and its transparent
// huge page mode. The CPU's name is not enough: a KVM guest reports "Intel(R) Xeon(R) Processor" whatever the host, and
// a home directory that moves between hosts would hand one host's figures to another (docs/memory.md).
function readOr(file, fallback) {
  try { return fs.readFileSync(file, 'utf8'); } catch (e) { return fallback; }
}
function machineClass() {
  const flags = /^flags\s*:\s*(.*)$/m.exec(readOr('/proc/cpuinfo', ''))?.[1] ?? '';
  const thp = /\[(\w+)\]/.exec(readOr('/sys/kernel/mm/transparent_hugepage/enabled', ''))?.[1] ?? null;
  return [createHash('sha256').update(flags.trim().split(/\s+/).sort().join(' ')).digest('hex').slice(0, 16),
          os.release(), thp];
}

// Everything the figures depend on: the runtime and its host, the C allocator's setting, whether ORT's telemetry ran
// (its threads and buffers are part of a baseline measured with it on), the inference session options
// (in a fixed key order), the machine and its class, and how they are measured (the chain's length, the baseline
// model's version: figures from another are not reused).
function keyOf(options) {
  const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
  return JSON.stringify([...(build === 'web' ? ['web'] : []), runtimeVersion(), process.versions.node, process.arch, os.cpus()[0]?.model ?? '',
                         ...machineClass(), os.totalmem(), process.env.MALLOC_MMAP_THRESHOLD_ ?? null,
                         process.env.ORT_DISABLE_TELEMETRY ?? null,
                         sorted(optionsForOtherModels(options)), `chain ${CHAIN_NODES}`,
                         `common kernels ${COMMON_KERNELS_VERSION}`]);
}

function readCache(file) {
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8'));
    return c && typeof c === 'object' && !Array.isArray(c) ? c : {};
  } catch (e) {
    return {};
  }
}

// An entry without baseline_run_bytes was measured before it was (and by one process): measured over.
const valid = (e) => e && Number.isInteger(e.baseline_bytes) && e.baseline_bytes > 0 && Number.isInteger(e.node_bytes) &&
                     e.node_bytes > 0 && Number.isInteger(e.baseline_run_bytes) && e.baseline_run_bytes >= 0 &&
                     typeof e.measured_at === 'string';

// {baseline_bytes, baseline_run_bytes, node_bytes, measured_at (ISO time)}; all 0 when they could not be measured (then nothing is kept).
export function runtimeCost(options) {
  const file = cacheFile();
  const key = keyOf(options);
  const hit = readCache(file)[key];
  if (valid(hit)) return hit;
  const entry = { ...measureRuntimeCost(options), measured_at: new Date().toISOString() };
  if (valid(entry)) {
    try {
      // Another runner may write at the same time: each writes a whole file and renames it into place.
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ ...readCache(file), [key]: entry }));
      fs.renameSync(tmp, file);
    } catch (e) { /* the figures are still this run's; the next run measures again */ }
  }
  return entry;
}
