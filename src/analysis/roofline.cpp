#include "analysis/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/level_names.h"

namespace rooflens {
namespace {

// Ceilings at the thread count closest to `threads` (ties: fewer threads).
template <class Roof>
int64_t nearest_threads(const std::vector<Roof>& roofs, int64_t threads) {
  int64_t best = -1;
  for (const auto& r : roofs)
    if (best < 0 || std::llabs(r.threads - threads) < std::llabs(best - threads) ||
        (std::llabs(r.threads - threads) == std::llabs(best - threads) && r.threads < best))
      best = r.threads;
  return best;
}

const ComputeRoof* compute_peak(const HardwareInfo& hw, int64_t threads, const std::string& dtype) {
  std::vector<ComputeRoof> of_dtype;
  for (const auto& c : hw.compute)
    if (c.dtype == dtype && c.gflops > 0) of_dtype.push_back(c);
  if (of_dtype.empty()) return dtype == "fp32" ? nullptr : compute_peak(hw, threads, "fp32");
  int64_t t = nearest_threads(of_dtype, threads);
  const ComputeRoof* best = nullptr;
  for (const auto& c : hw.compute)
    if (c.dtype == dtype && c.threads == t && c.gflops > 0 && (!best || c.gflops > best->gflops)) best = &c;
  return best;
}

// The best figure at `level` (at the thread count nearest `threads` among its figures); when that level was not
// measured (roofs measured without it, a hand-written file, a level name from the reported sizes), the nearest
// measured level that holds it ("L1+L2" holds L2) or lies beyond it.
const MemoryRoof* best_at(const HardwareInfo& hw, const std::string& name, int64_t threads) {
  std::vector<MemoryRoof> at;
  for (const auto& m : hw.memory)
    if (m.level == name && m.gbps > 0) at.push_back(m);
  if (at.empty()) return nullptr;
  int64_t t = nearest_threads(at, threads);
  const MemoryRoof* best = nullptr;
  for (const auto& m : hw.memory)
    if (m.level == name && m.threads == t && m.gbps > 0 && (!best || m.gbps > best->gbps)) best = &m;
  return best;
}

const MemoryRoof* bandwidth(const HardwareInfo& hw, const std::string& level, int64_t threads) {
  if (const MemoryRoof* exact = best_at(hw, level, threads)) return exact;
  std::optional<LevelSpan> want = level_span(level);
  if (!want) return nullptr;
  std::vector<std::string> outward;
  for (const auto& m : hw.memory) {
    std::optional<LevelSpan> s = level_span(m.level);
    if (s && s->last >= want->first && std::find(outward.begin(), outward.end(), m.level) == outward.end())
      outward.push_back(m.level);
  }
  std::sort(outward.begin(), outward.end(),
            [](const std::string& a, const std::string& b) { return level_nearer(a, b); });
  for (const std::string& name : outward)
    if (const MemoryRoof* m = best_at(hw, name, threads)) return m;
  return nullptr;
}

std::string label(const std::string& name, int64_t threads) { return name + " x" + std::to_string(threads); }

// The level's figure of one kernel ("read", "write") at the thread count nearest `threads`.
const MemoryRoof* kernel_at(const HardwareInfo& hw, const std::string& level, const std::string& kernel,
                            int64_t threads) {
  std::vector<MemoryRoof> at;
  for (const auto& m : hw.memory)
    if (m.level == level && m.kernel == kernel && m.gbps > 0) at.push_back(m);
  if (at.empty()) return nullptr;
  const int64_t t = nearest_threads(at, threads);
  for (const auto& m : hw.memory)
    if (m.level == level && m.kernel == kernel && m.threads == t && m.gbps > 0) return &m;
  return nullptr;
}

// The memory ceiling of `bytes`, `written` of them written: a cache level's reads and writes on their own paths
// (the longer of the two times), else the level's best figure for all of them.
struct MemoryCeiling {
  double gbps = 0;
  std::string roof;
};
std::optional<MemoryCeiling> memory_ceiling(const HardwareInfo& hw, const MemoryRoof& best, uint64_t bytes,
                                            uint64_t written) {
  MemoryCeiling c{best.gbps, label(best.level + " " + best.kernel, best.threads)};
  if (written == 0 || written >= bytes || best.level == "DRAM") return c;
  const MemoryRoof* r = kernel_at(hw, best.level, "read", best.threads);
  const MemoryRoof* w = kernel_at(hw, best.level, "write", best.threads);
  if (!r || !w) return c;
  const double seconds = std::max(static_cast<double>(bytes - written) / r->gbps, static_cast<double>(written) / w->gbps);
  const double split = static_cast<double>(bytes) / seconds;
  if (split > c.gbps) c = {split, label(best.level + " read+write", best.threads)};
  return c;
}

}  // namespace

std::string memory_level_for(const HardwareInfo& hw, uint64_t bytes, int64_t threads) {
  if (hw.levels.empty()) return memory_level_for(hw.machine, bytes, threads);
  int64_t t = nearest_threads(hw.levels, threads);
  std::vector<const MemoryLevel*> at;
  for (const MemoryLevel& l : hw.levels)
    if (l.threads == t) at.push_back(&l);
  std::stable_sort(at.begin(), at.end(), [](const MemoryLevel* a, const MemoryLevel* b) { return a->first_bytes < b->first_bytes; });
  for (size_t i = 0; i + 1 < at.size(); ++i)
    if (bytes < at[i + 1]->first_bytes) return at[i]->level;
  // Past the last level found: DRAM (a sweep that found no DRAM plateau leaves its last cache's end as the limit).
  const MemoryLevel& last = *at.back();
  if (last.level != "DRAM") return bytes > last.last_bytes ? "DRAM" : last.level;
  // STREAM's rule: a working set is DRAM's from 4x the last cache on. Up to that, a share of a layer's data can be
  // in that cache, left there by the kernels before it (isnet_quint8's 128 MiB Relus moved 50-73 GB/s on a Zen 4
  // guest whose 32 MiB L3 fell to a cold DRAM read of 35-52), so that cache's roof is its ceiling — also when a
  // sweep's DRAM plateau began right at 4x.
  if (at.size() >= 2) {
    const MemoryLevel& cache = *at[at.size() - 2];
    if (bytes <= 4 * cache_capacity(cache.last_bytes, cache.reported_bytes)) return cache.level;
  }
  return "DRAM";
}

std::string memory_level_for(const MachineDesc& m, uint64_t bytes, int64_t threads) {
  for (const auto& c : m.caches) {
    std::string level = c.level == "L1d" ? "L1" : c.level;
    if (level != "L1" && level != "L2" && level != "L3") continue;
    int64_t usable = c.cores_sharing > 1 ? std::max<int64_t>(1, c.instances)
                                         : std::max<int64_t>(1, std::min<int64_t>(threads, c.instances));
    if (bytes <= c.size_bytes * static_cast<uint64_t>(usable)) return level;
  }
  return "DRAM";
}

std::string roof_dtype(const std::string& t) {
  if (t == "float") return "fp32";
  if (t == "float16") return "fp16";
  if (t == "bfloat16") return "bf16";
  if (t == "int8" || t == "uint8") return "int8";
  if (t == "double") return "fp64";
  return "";
}

namespace {

// The placement both entry points share: `mem` is the memory ceiling the bytes are held to (null: none).
RoofPlacement place_against(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes, double seconds,
                            const std::string& dtype, uint64_t written, const MemoryRoof* mem) {
  RoofPlacement p;
  if (seconds <= 0) return p;
  const std::optional<MemoryCeiling> ceiling = mem ? memory_ceiling(hw, *mem, bytes, written) : std::nullopt;
  const ComputeRoof* peak = compute_peak(hw, threads, dtype.empty() ? "fp32" : dtype);
  if (flops == 0) {
    if (!ceiling || bytes == 0) return p;
    p.bound = "memory";
    p.roof = ceiling->roof;
    p.attainable = ceiling->gbps;
    p.efficiency = static_cast<double>(bytes) / seconds / 1e9 / ceiling->gbps;
    return p;
  }
  if (!peak) return p;
  double achieved = static_cast<double>(flops) / seconds / 1e9;
  double memory_limit = ceiling && bytes > 0 ? static_cast<double>(flops) / static_cast<double>(bytes) * ceiling->gbps
                                             : INFINITY;
  if (memory_limit < peak->gflops) {
    p.bound = "memory";
    p.roof = ceiling->roof;
    p.attainable = memory_limit;
  } else {
    p.bound = "compute";
    p.roof = label(peak->name, peak->threads);
    p.attainable = peak->gflops;
  }
  p.efficiency = achieved / p.attainable;
  return p;
}

}  // namespace

RoofPlacement place_on_roofline(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes,
                                double seconds, const std::string& dtype, uint64_t written) {
  if (seconds <= 0) return {};
  const MemoryRoof* mem = bandwidth(hw, memory_level_for(hw, bytes, threads), threads);
  return place_against(hw, threads, flops, bytes, seconds, dtype, written, mem);
}

RoofPlacement place_at_level(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes, double seconds,
                             const std::string& dtype, const std::string& level) {
  return place_against(hw, threads, flops, bytes, seconds, dtype, 0, best_at(hw, level, threads));
}

}  // namespace rooflens
