// The `wasm_roofs` message's fields, checked once for both hosts (run.mjs's Node host, chromium_host.mjs's page), so a
// message means the same measurement wherever it runs; only the CPUs it may ask for differ.
import { badMessage } from './errors.mjs';
import { optBool, optInt } from './fields.mjs';

// measureWasmRoofs's options from the message; `cpus`: the most threads the host can run, named by `whose` in the
// error a larger count gets.
export function wasmRoofsOptions(msg, cpus, whose) {
  const options = { quick: optBool(msg, 'quick', false) };
  if (msg.threads !== undefined) {
    const t = msg.threads;
    if (!Array.isArray(t) || !t.length || !t.every((n) => Number.isInteger(n) && n >= 1 && n <= cpus)) {
      throw badMessage(`'threads' must be a non-empty list of thread counts in 1..${cpus} (${whose})`);
    }
    options.computeThreads = options.bandwidthThreads = [...new Set(t)].sort((a, b) => a - b);
  }
  if (msg.max_bytes !== undefined) options.maxBytes = optInt(msg, 'max_bytes', 0, 64 * 1024);
  if (msg.kernels !== undefined) {
    const k = msg.kernels;
    if (!Array.isArray(k) || !k.every((x) => x === 'read' || x === 'copy')) {
      throw badMessage("'kernels' must be a list of bandwidth kernels: \"read\", \"copy\"");
    }
    options.kernels = k;
  }
  if (options.maxBytes > 2 * 1024 ** 3) throw badMessage("'max_bytes' must be at most 2 GiB (a memory holds 4 GiB)");
  return options;
}
