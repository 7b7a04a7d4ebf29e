import fs from 'node:fs';

// The runner's own memory (docs/memory.md), from /proc/self/status (bytes; 0 where /proc is not there). VmHWM is the
// high-water mark of the address space that exec created — not process.resourceUsage().maxRSS, which Linux carries
// across fork and exec, so a runner started by a rooflens that had just measured roofs with GB-sized buffers would
// report rooflens' peak. Writing "5" to /proc/self/clear_refs resets VmHWM to the current VmRSS (Linux >= 4.0), so each
// phase (inference session creation, the timed runs) gets a peak of its own; peakRss() still answers the whole
// process's peak. procStatus(pid) reads another process (the Chromium host's renderer: chromium_host.mjs).
export function procStatus(pid = 'self') {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (e) {
    return { rss: 0, hwm: 0 };
  }
  const kb = (key) => { const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, 'm').exec(status); return m ? Number(m[1]) * 1024 : 0; };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
let peakBeforeReset = 0;
// Resets a process's VmHWM to its VmRSS; true when the kernel took the write. Linux rejects a clear_refs type it does
// not know (EINVAL before 4.0) and a missing file throws, so an accepted "5" is a reset done; reading the mark cannot
// confirm it (a process at its peak shows the same mark after a reset as before). What the reading does show is a
// free on another thread just after the reset (V8's sweeper after a collection, the runtime's pool): the mark above
// the resident set. Then it is reset again, a few times at most, so the phase's peak starts where its memory is —
// a phase's growth smaller than that free would otherwise stay under the mark and read as nothing.
const kSettleResets = 3;
function writeClearRefs(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
export function clearPeakOf(pid) {
  if (!writeClearRefs(pid)) return false;
  for (let again = 0; again < kSettleResets; ++again) {
    const s = procStatus(pid);
    if (!s.rss || s.hwm <= s.rss || !writeClearRefs(pid)) break;
  }
  return true;
}
export function resetPeak() {
  const before = procStatus().hwm;
  if (!clearPeakOf('self')) return false;
  peakBeforeReset = Math.max(peakBeforeReset, before);
  return true;
}
export function peakRss() {
  return Math.max(procStatus().hwm, peakBeforeReset);
}
// Another process's minor page faults so far (/proc/<pid>/stat's minflt, its 10th field; the Chromium host's renderer);
// 0 when it cannot be read.
export function minorPageFaultsOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]) || 0;
  } catch {
    return 0;
  }
}

// The process's minor page faults so far (getrusage: one system call, ~1 us; read only outside the timers). A run
// whose outputs land on memory the process never touched pays one a 4 KiB page inside its time.
export function minorPageFaults() {
  return process.resourceUsage().minorPageFault;
}
