// What the runtime itself costs a process (docs/memory.md): measured in a process of its own (runtime_cost.mjs), never
// in the runner whose memory a prediction is compared with.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The model's options for a session of another model: without the ones that name the model's file or its dims.
export function optionsForOtherModels(options) {
  const { optimizedModelFilePath, freeDimensionOverrides, ...rest } = options;
  return rest;
}

// The runtime's baseline and its cost per node, from a child process with the same options and environment (the C
// allocator's setting among it). A real node holds at least what a trivial one does (attributes, more inputs, a kernel
// with state): node_bytes is a lower bound per node. Both 0 when the child fails; the reason goes to stderr.
const RUNTIME_COST_SCRIPT = fileURLToPath(new URL('./runtime_cost.mjs', import.meta.url));
export function measureRuntimeCost(options) {
  const input = JSON.stringify(optionsForOtherModels(options));
  const child = spawnSync(process.execPath, [RUNTIME_COST_SCRIPT], { input, encoding: 'utf8', timeout: 120000 });
  try {
    if (child.status === 0) {
      const r = JSON.parse(child.stdout);
      return { baseline_bytes: r.baseline_bytes, node_bytes: r.node_bytes };
    }
  } catch (e) { /* reported below */ }
  process.stderr.write(`rooflens-ort-runner: the runtime's cost was not measured (${child.error ?? `exit ${child.status}`}): ` +
                       `${String(child.stderr).trim().split('\n').pop()}\n`);
  return { baseline_bytes: 0, node_bytes: 0 };
}
