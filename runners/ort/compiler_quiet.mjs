// V8 compiles hot WebAssembly functions with its optimising tier on background threads, and can go on long after the
// runs stopped getting faster: in Chromium, after ppocr_mobile_v2_cls's inference sessions were made and its 2 s
// warm-up ran, the renderer's ThreadPoolForegroundWorker threads kept most of a CPU busy for ~10 s more (2 vCPUs,
// Chromium 156), and profiled runs in that time took up to 6x longer, with ms-long stalls between kernels (Node's V8
// was done within the warm-up there; a slower CPU stretches both). So before the web build times anything, the host
// waits, idle — what is queued compiles without more being made hot — until those threads ran less than kQuietShare
// of a kQuietWindowMs window, or kCompileCapMs at most.
export const kQuietWindowMs = 250;
export const kQuietShare = 0.05;
export const kCompileCapMs = 30000;

// `busyNs()`: the compiler threads' CPU time so far (ns), or null when they cannot be read. Returns {quiet, waited_ms,
// busy_share}: the last window's share of a CPU; quiet false when the cap came first or the threads cannot be read.
export async function compilerQuiet(busyNs) {
  const t0 = performance.now();
  let share = null;
  while (busyNs() !== null && performance.now() - t0 < kCompileCapMs) {
    const [b0, c0] = [busyNs(), performance.now()];
    await new Promise((resolve) => setTimeout(resolve, kQuietWindowMs));
    share = (busyNs() - b0) / 1e6 / (performance.now() - c0);
    if (share < kQuietShare) break;
  }
  return { quiet: share !== null && share < kQuietShare, waited_ms: performance.now() - t0, busy_share: share };
}

// What a reply says when the runs could not wait for the compiler: {warnings: [why]}, or {} when they did.
export function compileWarnings(c) {
  if (c.quiet) return {};
  const why = c.busy_share === null
    ? "the JS engine's compiler threads could not be read, so the runs did not wait for V8 to finish compiling"
    : `V8 was still compiling WebAssembly after ${(c.waited_ms / 1000).toFixed(1)} s of waiting (its background ` +
      `threads on ${Math.round(c.busy_share * 100)}% of a CPU): the runs may include code before its optimising ` +
      'tier, and shared the CPUs with the compiler';
  return { warnings: [why] };
}
