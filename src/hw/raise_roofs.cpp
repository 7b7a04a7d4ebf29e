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

// The ceilings of one set of roofs (the machine's, or an engine's), raised where `now` beats them; true when any was.
struct Ceilings {
  std::vector<ComputeRoof>& compute;
  std::vector<MemoryRoof>& memory;
  std::vector<std::string>& notes;
  const std::string& measured_at;
};

bool raise_ceilings(Ceilings out, const std::vector<ComputeRoof>& compute, const std::vector<MemoryRoof>& memory) {
  bool raised = false;
  for (const ComputeRoof& c : compute) {
    auto same = std::find_if(out.compute.begin(), out.compute.end(), [&](const ComputeRoof& o) {
      return o.name == c.name && o.threads == c.threads;
    });
    if (same != out.compute.end() && same->gflops >= c.gflops) continue;
    out.notes.push_back(raise_note(c.name, c.threads, same == out.compute.end() ? 0 : same->gflops, c.gflops, "GFLOP/s",
                                   out.measured_at));
    if (same == out.compute.end()) out.compute.push_back(c);
    else same->gflops = c.gflops;
    raised = true;
  }
  for (const MemoryRoof& m : memory) {
    auto same = std::find_if(out.memory.begin(), out.memory.end(), [&](const MemoryRoof& o) {
      return o.level == m.level && o.kernel == m.kernel && o.threads == m.threads;
    });
    if (same == out.memory.end() || same->gbps >= m.gbps) continue;
    out.notes.push_back(raise_note(m.level + " " + m.kernel, m.threads, same->gbps, m.gbps, "GB/s", out.measured_at));
    same->gbps = m.gbps;
    same->working_set_bytes = m.working_set_bytes;
    raised = true;
  }
  return raised;
}

}  // namespace

std::optional<HardwareInfo> raise_roofs(const HardwareInfo& have, const HardwareInfo& now) {
  HardwareInfo out = have;
  if (!raise_ceilings({out.compute, out.memory, out.notes, have.measured_at}, now.compute, now.memory))
    return std::nullopt;
  return out;
}

std::optional<EngineRoofs> raise_engine_roofs(const EngineRoofs& have, const EngineRoofs& now,
                                              const std::function<void(EngineRoofs&)>& find_levels) {
  EngineRoofs out = have;
  bool raised = raise_ceilings({out.compute, out.memory, out.notes, have.measured_at}, now.compute, {});
  bool higher_point = false;
  for (const SweepPoint& p : now.sweep) {
    auto same = std::find_if(out.sweep.begin(), out.sweep.end(), [&](const SweepPoint& o) {
      return o.kernel == p.kernel && o.threads == p.threads && o.working_set_bytes == p.working_set_bytes;
    });
    // A point `have` lacks joins the envelope; only a point that rose above `have`'s figure makes it a raise.
    if (same == out.sweep.end()) out.sweep.push_back(p);
    else if (p.gbps > same->gbps) same->gbps = p.gbps, higher_point = true;
  }
  if (higher_point) {
    // The levels of the envelope, not `have`'s names: a sweep measured while other work ran can blur a fall, and
    // the ceiling it named ("L1+L2+L3") then has no counterpart in one measured in a quiet moment.
    find_levels(out);
    for (const MemoryRoof& m : out.memory) {
      auto same = std::find_if(have.memory.begin(), have.memory.end(), [&](const MemoryRoof& o) {
        return o.level == m.level && o.kernel == m.kernel && o.threads == m.threads;
      });
      if (same != have.memory.end() && same->gbps >= m.gbps) continue;
      out.notes.push_back(raise_note(m.level + " " + m.kernel, m.threads, same == have.memory.end() ? 0 : same->gbps,
                                     m.gbps, "GB/s", have.measured_at));
      raised = true;
    }
  }
  if (!raised) return std::nullopt;
  return out;
}

}  // namespace rooflens::hw
