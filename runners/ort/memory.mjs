// The runner's own memory by phase (docs/memory.md): resident set, peaks that each phase resets, and the runtime's
// baseline (what any session of ONNX Runtime costs in this process).
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ort } from './ort.mjs';

// The runner's own memory, from /proc/self/status (bytes; 0 where /proc is not there). VmHWM is the high-water mark
// of the address space that exec created — not process.resourceUsage().maxRSS, which Linux carries across fork and
// exec, so a runner started by a rooflens that had just measured roofs with GB-sized buffers would report rooflens'
// peak. Writing "5" to /proc/self/clear_refs resets VmHWM to the current VmRSS (Linux >= 4.0), so each phase (session
// creation, the timed runs) gets a peak of its own; peakRss() still answers the whole process's peak.
export function procStatus() {
  let status;
  try {
    status = fs.readFileSync('/proc/self/status', 'utf8');
  } catch (e) {
    return { rss: 0, hwm: 0 };
  }
  const kb = (key) => { const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, 'm').exec(status); return m ? Number(m[1]) * 1024 : 0; };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
let peakBeforeReset = 0;
export function resetPeak() {
  const before = procStatus().hwm;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch (e) {
    return false;
  }
  peakBeforeReset = Math.max(peakBeforeReset, before);
  const after = procStatus();
  return after.hwm < before || after.hwm === after.rss;
}
export function peakRss() {
  return Math.max(procStatus().hwm, peakBeforeReset);
}

// The runtime's own baseline: a one-node model (Relu on one float) made into a session with the model's options, in
// this process before the model's session, and released. What its creation added to the resident set is what any
// session of this runtime costs here (its code pages, thread pool and allocators), whatever the model.
// The model's options for a session of another model: without the ones that name the model's file or its dims.
export function trivialSessionOptions(options) {
  const { optimizedModelFilePath, freeDimensionOverrides, ...rest } = options;
  return rest;
}

const BASELINE_MODEL = Buffer.from('CAcSCHJvb2ZsZW5zOjoKDAoBeBIBeSIEUmVsdRIIYmFzZWxpbmVaDwoBeBIKCggIARIECgIIAWIPCgF5EgoKCAgBEgQKAggBQgQKABAN', 'base64');
export async function measureBaseline(options) {
  const before = procStatus().rss;
  const s = await ort.InferenceSession.create(BASELINE_MODEL, trivialSessionOptions(options));
  await s.run({ x: new ort.Tensor('float32', new Float32Array(1), [1]) });
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
  const input = JSON.stringify(trivialSessionOptions(options));
  const child = spawnSync(process.execPath, [NODE_COST_SCRIPT], { input, encoding: 'utf8', timeout: 60000 });
  try {
    if (child.status === 0) return JSON.parse(child.stdout).node_bytes;
  } catch (e) { /* reported below */ }
  process.stderr.write(`rooflens-ort-runner: the per-node cost was not measured (${child.error ?? `exit ${child.status}`}): ` +
                       `${String(child.stderr).trim().split('\n').pop()}\n`);
  return 0;
}
