#include "score/roof_bound.h"

#include <algorithm>

#include <fmt/format.h>

#include "capacity/explain.h"

namespace rooflens::score {

RoofBound roof_bound(double flops, double bytes, const std::string& dtype, int64_t threads, const HardwareInfo* roofs) {
  RoofBound b;
  b.flops = flops;
  b.bytes = bytes;
  if (!roofs) return b;
  const ComputeRoof* c = capacity::nearest_compute_roof(*roofs, threads, dtype);
  const MemoryRoof* m = capacity::nearest_dram_read_roof(*roofs, threads);
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
