// What the runtime itself costs the runner (docs/memory.md): its baseline (a session of it, whatever the model) and
// what one node of a session costs it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ort } from './ort.mjs';
import { commonKernelsFeeds, commonKernelsModel } from './common_kernels.mjs';
import { procStatus } from './proc_memory.mjs';

// The model's options for a session of another model: without the ones that name the model's file or its dims.
export function optionsForOtherModels(options) {
  const { optimizedModelFilePath, freeDimensionOverrides, ...rest } = options;
  return rest;
}

// The runtime's own baseline: a small model of the kernels most models share (common_kernels.mjs says why not one
// trivial node) made into a session with the model's options, run once, in this process before the model's session,
// and released. What that added to the resident set is what a session of this runtime costs here (its code pages,
// thread pool and allocators), whatever the model.
// Made when the runner starts, before any request reads its start: building them leaves ~2 MB of JavaScript heap.
const BASELINE_MODEL = commonKernelsModel();
const BASELINE_FEEDS = commonKernelsFeeds(ort);
export async function measureBaseline(options) {
  const before = procStatus().rss;
  const s = await ort.InferenceSession.create(BASELINE_MODEL, optionsForOtherModels(options));
  await s.run(BASELINE_FEEDS);
  const bytes = Math.max(0, procStatus().rss - before);
  await s.release();
  return bytes;
}

// What one node of a session costs this runtime (its graph, kernel and planner structures), measured on a chain of
// trivial nodes in a child process with the same options and environment (node_cost.mjs says why a child). A
// real node holds at least this much (attributes, more inputs, a kernel with state): a lower bound per node. 0 when
// the child fails; the reason goes to stderr.
const NODE_COST_SCRIPT = fileURLToPath(new URL('./node_cost.mjs', import.meta.url));
export function measureNodeBytes(options) {
  const input = JSON.stringify(optionsForOtherModels(options));
  const child = spawnSync(process.execPath, [NODE_COST_SCRIPT], { input, encoding: 'utf8', timeout: 60000 });
  try {
    if (child.status === 0) return JSON.parse(child.stdout).node_bytes;
  } catch (e) { /* reported below */ }
  process.stderr.write(`rooflens-ort-runner: the per-node cost was not measured (${child.error ?? `exit ${child.status}`}): ` +
                       `${String(child.stderr).trim().split('\n').pop()}\n`);
  return 0;
}
