#include "hw/plausibility.h"

#include <algorithm>
#include <set>

#include "core/level_names.h"
#include "core/units.h"
#include "hw/hw_table.h"

namespace rooflens::hw {
namespace {

// A level may measure a little lower with more threads when the machine was busy; a tenth less is a warning.
constexpr double kSlowerWithThreads = 0.9;

std::string gbps(double v) { return fixed(v, 1) + " GB/s"; }

void missing_dram(const HardwareInfo& hw, std::vector<std::string>& out) {
  std::set<int64_t> swept;
  for (const SweepPoint& p : hw.sweep) swept.insert(p.threads);
  for (int64_t t : swept) {
    bool dram = std::any_of(hw.memory.begin(), hw.memory.end(),
                            [&](const MemoryRoof& m) { return m.threads == t && m.level == "DRAM"; });
    if (dram) continue;
    uint64_t largest = 0;
    for (const SweepPoint& p : hw.sweep)
      if (p.threads == t) largest = std::max(largest, p.working_set_bytes);
    out.push_back("no DRAM level at " + std::to_string(t) + " thread(s): the sweep up to " + binary_bytes(largest) +
                  " did not end on a plateau 4x beyond the last cache it found; layers larger than the caches "
                  "have no DRAM roof at this thread count");
  }
}

// Kernel by kernel and thread count by thread count, each level below the one before it.
void level_order(const HardwareInfo& hw, std::vector<std::string>& out) {
  std::vector<const MemoryRoof*> rows;
  for (const MemoryRoof& m : hw.memory)
    if (level_span(m.level) && m.gbps > 0) rows.push_back(&m);
  std::stable_sort(rows.begin(), rows.end(), [](const MemoryRoof* a, const MemoryRoof* b) {
    if (a->kernel != b->kernel) return a->kernel < b->kernel;
    if (a->threads != b->threads) return a->threads < b->threads;
    return level_nearer(a->level, b->level);
  });
  for (size_t i = 1; i < rows.size(); ++i) {
    const MemoryRoof& a = *rows[i - 1];
    const MemoryRoof& b = *rows[i];
    if (a.kernel != b.kernel || a.threads != b.threads || b.gbps < a.gbps) continue;
    out.push_back(b.level + " " + b.kernel + " at " + std::to_string(b.threads) + " thread(s) (" + gbps(b.gbps) +
                  ") is not below " + a.level + " (" + gbps(a.gbps) + "): " +
                  (b.level == "DRAM" ? "DRAM must be the slowest level; its working set is likely cache-resident"
                                     : "a farther level measured no slower than a nearer one"));
  }
}

// Level by level and kernel by kernel, no slower with more threads.
void thread_scaling(const HardwareInfo& hw, std::vector<std::string>& out) {
  for (const MemoryRoof& few : hw.memory)
    for (const MemoryRoof& many : hw.memory) {
      if (many.level != few.level || many.kernel != few.kernel || many.threads <= few.threads) continue;
      if (few.gbps <= 0 || many.gbps >= kSlowerWithThreads * few.gbps) continue;
      out.push_back(many.level + " " + many.kernel + " at " + std::to_string(many.threads) + " threads (" +
                    gbps(many.gbps) + ") is below " + std::to_string(few.threads) + " thread(s) (" + gbps(few.gbps) +
                    "): a level does not get slower with more threads; the working sets may belong to different "
                    "levels, or the machine was busy (rooflens hw --refresh measures again)");
    }
}

// Kernel by kernel, no less compute with more threads: the work could run on fewer. A figure below fewer threads' was
// measured while other CPUs were busy (the WebAssembly sweep saw 2 threads at 0.87x one and measures such a figure
// again: runners/ort/wasm_roofs.mjs).
void compute_scaling(const HardwareInfo& hw, std::vector<std::string>& out) {
  for (const ComputeRoof& few : hw.compute)
    for (const ComputeRoof& many : hw.compute) {
      if (many.name != few.name || many.threads <= few.threads) continue;
      if (few.gflops <= 0 || many.gflops >= kSlowerWithThreads * few.gflops) continue;
      out.push_back(many.name + " at " + std::to_string(many.threads) + " threads (" + fixed(many.gflops, 1) +
                    " GFLOP/s) is below " + std::to_string(few.threads) + " thread(s) (" + fixed(few.gflops, 1) +
                    " GFLOP/s): more threads do not compute less; the machine was busy (rooflens hw --refresh "
                    "measures again)");
    }
}

}  // namespace

std::vector<std::string> plausibility_warnings(const HardwareInfo& hw) {
  std::vector<std::string> out;
  missing_dram(hw, out);
  level_order(hw, out);
  thread_scaling(hw, out);
  compute_scaling(hw, out);
  return out;
}

}  // namespace rooflens::hw
