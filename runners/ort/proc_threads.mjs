// Another process's threads as /proc shows them (the Chromium host's renderer: chromium_host.mjs).
import fs from 'node:fs';

// CPU time (ns) the threads of process `pid` whose name starts with `prefix` have run so far, from each thread's
// schedstat (its first field: time on a CPU, in ns); null when none can be read.
export function threadsCpuNs(pid, prefix) {
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let sum = 0, seen = 0;
  for (const tid of tids) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith(prefix)) continue;
      sum += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) || 0;
      ++seen;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return seen ? sum : null;
}
