// What the runtime itself costs a process (docs/memory.md): measured in a process of its own (runtime_cost.mjs), never
// in the runner whose memory a prediction is compared with.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The model's options for an inference session of another model: without the ones that name the model's file or its
// dims.
export function optionsForOtherModels(options) {
  const { optimizedModelFilePath, freeDimensionOverrides, ...rest } = options;
  return rest;
}

// The runtime's baseline and its cost per node, from child processes with the same options and environment (the C
// allocator's setting among it). A real node holds at least what a trivial one does (attributes, more inputs, a kernel
// with state): node_bytes is a lower bound per node. Each figure is the median of three processes: what one process's
// heap happens to reuse moves it by a few hundred KB. All 0 when a child fails; the reason goes to stderr.
const RUNTIME_COST_SCRIPT = fileURLToPath(new URL('./runtime_cost.mjs', import.meta.url));
const CALIBRATION_PROCESSES = 3;
const FIELDS = ['baseline_bytes', 'baseline_run_bytes', 'node_bytes'];
function measureOnce(input) {
  // --expose-gc: the child collects the garbage of building its models before it counts.
  const child = spawnSync(process.execPath, ['--expose-gc', RUNTIME_COST_SCRIPT],
                          { input, encoding: 'utf8', timeout: 120000 });
  try {
    if (child.status === 0) {
      const r = JSON.parse(child.stdout);
      if (FIELDS.every((f) => Number.isInteger(r[f]))) return r;
    }
  } catch (e) { /* reported below */ }
  process.stderr.write(`rooflens-ort-runner: the runtime's cost was not measured (${child.error ?? `exit ${child.status}`}): ` +
                       `${String(child.stderr).trim().split('\n').pop()}\n`);
  return null;
}
export function measureRuntimeCost(options) {
  const input = JSON.stringify(optionsForOtherModels(options));
  const runs = [];
  for (let i = 0; i < CALIBRATION_PROCESSES; ++i) {
    const r = measureOnce(input);
    if (!r) return Object.fromEntries(FIELDS.map((f) => [f, 0]));
    runs.push(r);
  }
  const median = (f) => runs.map((r) => r[f]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return Object.fromEntries(FIELDS.map((f) => [f, median(f)]));
}
