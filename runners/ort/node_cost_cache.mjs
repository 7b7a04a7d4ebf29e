// The per-node cost (memory.mjs measureNodeBytes) kept per machine, runtime and options, as rooflens keeps its roofs:
// $XDG_CACHE_HOME/rooflens/node-cost.json (or ~/.cache/rooflens). Measuring it starts a process and a 6,144-node
// session (~0.25 s), once per configuration a run loads; the figure is the runtime's, not the model's, so it is
// measured once and read back with the date it was measured. A file that cannot be read or parsed is measured over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ort } from './ort.mjs';
import { measureNodeBytes, optionsForOtherModels } from './memory.mjs';
import { CHAIN_NODES } from './onnx_chain.mjs';

function cacheFile() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'rooflens', 'node-cost.json');
}

// Everything the figure depends on: the runtime and its host, the C allocator's setting, the session options (in a
// fixed key order), the machine, and how it is measured (the chain's length: a figure from another is not reused).
function keyOf(options) {
  const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
  return JSON.stringify([ort.env.versions.node ?? null, process.versions.node, process.arch, os.cpus()[0]?.model ?? '',
                         os.totalmem(), process.env.MALLOC_MMAP_THRESHOLD_ ?? null,
                         sorted(optionsForOtherModels(options)), `chain ${CHAIN_NODES}`]);
}

function readCache(file) {
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8'));
    return c && typeof c === 'object' && !Array.isArray(c) ? c : {};
  } catch (e) {
    return {};
  }
}

// {node_bytes, measured_at (ISO time)}; node_bytes 0 when it could not be measured (then nothing is kept).
export function nodeCost(options) {
  const file = cacheFile();
  const key = keyOf(options);
  const hit = readCache(file)[key];
  if (hit && Number.isInteger(hit.node_bytes) && hit.node_bytes > 0 && typeof hit.measured_at === 'string') return hit;
  const entry = { node_bytes: measureNodeBytes(options), measured_at: new Date().toISOString() };
  if (entry.node_bytes > 0) {
    try {
      // Another runner may write at the same time: each writes a whole file and renames it into place.
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ ...readCache(file), [key]: entry }));
      fs.renameSync(tmp, file);
    } catch (e) { /* the figure is still this run's; the next run measures again */ }
  }
  return entry;
}
