// ONNX Runtime Web's WebAssembly memory, read exactly, and the guard that keeps its profiled runs inside it. Pure: the
// Node host (ort.mjs) and the Chromium page (chromium_page.mjs, which is served this file) both use it.
//
// The module's memory is one WebAssembly.Memory its JavaScript glue creates (shared, at most 65536 pages: 4 GiB) and
// keeps to itself; the only way to read its size is to see it created. So the host replaces WebAssembly.Memory, before
// it imports onnxruntime-web, by a constructor that remembers every memory it makes (`instanceof` still holds: the
// prototype is the engine's own).
export const kWasmMemoryLimitBytes = 4 * 1024 ** 3;

const memories = [];

export function watchWasmMemories(wasm = globalThis.WebAssembly) {
  const Engine = wasm.Memory;
  if (Engine.rooflensWatched) return;
  function Memory(descriptor) {
    const m = new Engine(descriptor);
    memories.push(m);
    return m;
  }
  Memory.prototype = Engine.prototype;
  Memory.rooflensWatched = true;
  wasm.Memory = Memory;
}

// The largest memory made since watchWasmMemories (the module's; the glue also makes an empty one to find the
// SharedArrayBuffer constructor), in bytes, or null when none was seen.
export function wasmMemoryBytes() {
  let most = null;
  for (const m of memories) most = Math.max(most ?? 0, m.buffer.byteLength);
  return most;
}

// Each run of a profiled inference session of ORT Web keeps memory, which a WebAssembly memory never gives back
// (web_build.mjs's webProfiledTiming); past 4 GiB the run fails with std::bad_alloc and the profile is lost. The guard,
// made after the warm-up, is asked after each measured run whether another still fits: the memory now plus twice the
// most one run has added since the guard was made stays within 4 GiB. Unknown memory never stops the runs.
export function profiledRunGuard(read = wasmMemoryBytes) {
  let last = read(), most = 0;
  return {
    roomForAnother() {
      const now = read();
      if (now === null || last === null) return true;
      most = Math.max(most, now - last);
      last = now;
      return now + 2 * most <= kWasmMemoryLimitBytes;
    },
    // `what` was profiled ("profiled 14 of 20 runs"), and why no more.
    why(what) {
      const mb = (b) => `${Math.round(b / 2 ** 20)} MB`;
      return `${what}: ONNX Runtime Web's WebAssembly memory holds ${mb(last)} of its 4 GiB and a profiled run has ` +
             `added up to ${mb(most)} it never gives back, so another could fail`;
    },
  };
}

// The measured profiled runs: `run` `iterations` times, or fewer when `guard` (profiledRunGuard's; null: none, the
// native build) says after a run that another might not fit — never fewer than one. Returns {done, stoppedEarly: why
// it stopped, or null}.
export async function guardedRuns(iterations, run, guard) {
  let done = 0;
  while (done < iterations) {
    await run();
    if (++done < iterations && guard && !guard.roomForAnother()) {
      return { done, stoppedEarly: guard.why(`profiled ${done} of ${iterations} runs`) };
    }
  }
  return { done, stoppedEarly: null };
}
