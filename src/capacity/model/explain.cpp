#include "capacity/model/explain.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace rooflens::capacity {
namespace {

// The entry measured at the thread count nearest `threads` (ties: the lower count), best rate among those.
template <class Roof, class Rate, class Keep>
const Roof* nearest(const std::vector<Roof>& roofs, int64_t threads, Rate rate, Keep keep) {
  const Roof* best = nullptr;
  for (const Roof& r : roofs) {
    if (!keep(r)) continue;
    if (!best) {
      best = &r;
      continue;
    }
    const int64_t d = std::llabs(r.threads - threads), bd = std::llabs(best->threads - threads);
    if (d < bd || (d == bd && r.threads < best->threads) || (r.threads == best->threads && rate(r) > rate(*best)))
      best = &r;
  }
  return best;
}

}  // namespace

const ComputeRoof* nearest_compute_roof(const HardwareInfo& roofs, int64_t threads, const std::string& dtype) {
  return nearest(roofs.compute, threads, [](const ComputeRoof& x) { return x.gflops; },
                 [&](const ComputeRoof& x) { return x.dtype == dtype && x.gflops > 0; });
}

const MemoryRoof* nearest_dram_read_roof(const HardwareInfo& roofs, int64_t threads) {
  return nearest(roofs.memory, threads, [](const MemoryRoof& x) { return x.gbps; },
                 [](const MemoryRoof& x) { return x.level == "DRAM" && x.kernel == "read" && x.gbps > 0; });
}

CapacityExplanation explain(double samples_per_s, const ServedModel& w, const CapacityConfig& c, int64_t cores,
                            const HardwareInfo* roofs) {
  CapacityExplanation e;
  e.samples_per_s = samples_per_s;
  e.flops_per_sample = w.flops_per_sample;
  e.bytes_per_sample = w.bytes_per_sample;
  e.gflops = samples_per_s * static_cast<double>(w.flops_per_sample) / 1e9;
  e.gbps = samples_per_s * static_cast<double>(w.bytes_per_sample) / 1e9;
  e.cores_in_use = std::min<int64_t>(c.instances * c.threads, cores);
  if (!roofs) return e;
  if (const ComputeRoof* r = nearest_compute_roof(*roofs, e.cores_in_use, "fp32")) {
    e.compute_roof_gflops = r->gflops;
    e.compute_roof = fmt::format("{} x{}", r->name, r->threads);
  }
  if (const MemoryRoof* r = nearest_dram_read_roof(*roofs, e.cores_in_use)) {
    e.dram_roof_gbps = r->gbps;
    e.dram_roof = fmt::format("DRAM read x{}", r->threads);
  }
  e.compute_share = e.compute_roof_gflops > 0 ? e.gflops / e.compute_roof_gflops : 0;
  e.dram_share = e.dram_roof_gbps > 0 ? e.gbps / e.dram_roof_gbps : 0;
  return e;
}

}  // namespace rooflens::capacity
