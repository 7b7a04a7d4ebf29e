// A process's threads as /proc shows them: the Chromium host's renderer (chromium_host.mjs), the runner itself
// (web_build.mjs).
import fs from 'node:fs';

function threadIds(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
}

// The threads of process `pid` (or 'self') other than its main thread, now: a set of thread ids.
export function otherThreadIds(pid = 'self') {
  const main = String(pid === 'self' ? process.pid : pid);
  return new Set((threadIds(pid) ?? []).filter((tid) => tid !== main));
}

// CPU time (ns) the threads of process `pid` that `pick(tid, name)` accepts have run so far, from each thread's
// schedstat (its first field: time on a CPU, in ns); null when none can be read.
export function threadsCpuNs(pid, pick) {
  let sum = 0, seen = 0;
  for (const tid of threadIds(pid) ?? []) {
    try {
      if (!pick(tid, fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())) continue;
      sum += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) || 0;
      ++seen;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return seen ? sum : null;
}
