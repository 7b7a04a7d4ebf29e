#include "hw/raise_roofs.h"

#include <algorithm>

#include "core/units.h"

namespace rooflens::hw {
namespace {

std::string raise_note(const std::string& ceiling, int64_t threads, double was, double now, const std::string& unit,
                       const std::string& measured_at) {
  return ceiling + " x" + std::to_string(threads) + " measured again after a layer ran above it: " + fixed(now, 1) +
         " " + unit + (was > 0 ? " (was " + fixed(was, 1) + " " + unit + ", measured " + measured_at + ")" : " (new)") +
         "; the machine was slower when the roofs were measured";
}

}  // namespace

std::optional<HardwareInfo> raise_roofs(const HardwareInfo& have, const HardwareInfo& now) {
  HardwareInfo out = have;
  bool raised = false;
  for (const ComputeRoof& c : now.compute) {
    auto same = std::find_if(out.compute.begin(), out.compute.end(), [&](const ComputeRoof& o) {
      return o.name == c.name && o.threads == c.threads;
    });
    if (same != out.compute.end() && same->gflops >= c.gflops) continue;
    out.notes.push_back(raise_note(c.name, c.threads, same == out.compute.end() ? 0 : same->gflops, c.gflops, "GFLOP/s",
                                   have.measured_at));
    if (same == out.compute.end()) out.compute.push_back(c);
    else same->gflops = c.gflops;
    raised = true;
  }
  for (const MemoryRoof& m : now.memory) {
    auto same = std::find_if(out.memory.begin(), out.memory.end(), [&](const MemoryRoof& o) {
      return o.level == m.level && o.kernel == m.kernel && o.threads == m.threads;
    });
    if (same == out.memory.end() || same->gbps >= m.gbps) continue;
    out.notes.push_back(raise_note(m.level + " " + m.kernel, m.threads, same->gbps, m.gbps, "GB/s", have.measured_at));
    same->gbps = m.gbps;
    raised = true;
  }
  if (!raised) return std::nullopt;
  return out;
}

}  // namespace rooflens::hw
