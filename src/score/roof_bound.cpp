#include "score/roof_bound.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace rooflens::score {
namespace {

// The entry at the thread count nearest `threads` (ties: fewer threads), the fastest among those.
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

RoofBound roof_bound(double flops, double bytes, const std::string& dtype, int64_t threads, const HardwareInfo* roofs) {
  RoofBound b;
  b.flops = flops;
  b.bytes = bytes;
  if (!roofs) return b;
  const ComputeRoof* c = nearest(roofs->compute, threads, [](const ComputeRoof& x) { return x.gflops; },
                                 [&](const ComputeRoof& x) { return x.dtype == dtype && x.gflops > 0; });
  const MemoryRoof* m = nearest(roofs->memory, threads, [](const MemoryRoof& x) { return x.gbps; },
                                [](const MemoryRoof& x) { return x.level == "DRAM" && x.kernel == "read" && x.gbps > 0; });
  if (!c || !m) return b;  // a figure is decomposed against both roofs or not at all
  b.compute_roof = fmt::format("{} x{}", c->name, c->threads);
  b.compute_gflops = c->gflops;
  b.memory_roof = fmt::format("DRAM read x{}", m->threads);
  b.memory_gbps = m->gbps;
  const double tc = flops / (c->gflops * 1e9) * 1000, tm = bytes / (m->gbps * 1e9) * 1000;
  b.bound = tc >= tm ? "compute" : "memory";
  b.time_ms = std::max(tc, tm);
  return b;
}

}  // namespace rooflens::score
