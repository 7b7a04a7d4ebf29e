#pragma once
// A runner's own memory, for the peak memory a run reports. VmHWM of /proc/self/status: the high-water mark of the
// address space exec created, so it is this process's alone. Not getrusage's ru_maxrss: Linux carries that across
// fork and exec, and a runner started right after rooflens measured its roofs (GB-sized buffers) would report
// rooflens' peak as its own.
#include <cstdint>
#include <string>

namespace rooflens {

// Bytes; 0 when /proc/self/status is not there or has no VmHWM line.
uint64_t own_peak_rss_bytes();
// The VmHWM line of a /proc/<pid>/status text, in bytes (0 when absent): split out for tests.
uint64_t vm_hwm_bytes(const std::string& status_text);

}  // namespace rooflens
