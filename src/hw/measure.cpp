#include "hw/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <new>

#include "hw/machine.h"
#include "hw/plateau.h"
#include "hw/roof_cache.h"
#include "hw/team.h"

namespace rooflens::hw {
namespace {

constexpr uint64_t kKiB = 1024, kGiB = kKiB * kKiB * kKiB;
constexpr size_t kStagger = 192;  // bytes between arrays, so a[i] and b[i] never share a 4 KiB page offset

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string what_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown failure";
  }
}

// Runs f; on failure records an error entry naming the sub-benchmark instead of aborting the run.
template <class F>
void guarded(HardwareInfo& hw, const std::string& what, F&& f) {
  try {
    f();
  } catch (...) {
    hw.errors.push_back({what, what_of(std::current_exception())});
  }
}

// Grows the work until one timed call lasts ≥ 1 ms, then scales it to the target duration.
template <class Timed>
uint64_t calibrate(double target_seconds, Timed&& timed_once) {
  uint64_t n = 1;
  double t = timed_once(n);
  while (t < 1e-3 && n < (uint64_t{1} << 40)) {
    n *= 8;
    t = timed_once(n);
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(n) * target_seconds / t));
}

void measure_compute(Team& team, const std::vector<ComputeKernel>& kernels, const HwOptions& o, double secs,
                     HardwareInfo& hw) {
  int t = team.size();
  std::vector<double> sink(t);
  for (const ComputeKernel& k : kernels) {
    guarded(hw, "compute " + k.name + " x" + std::to_string(t), [&] {
      auto once = [&](uint64_t iters) { return team.timed(1, [&](int tid) { sink[tid] = k.run(iters); }); };
      uint64_t iters = calibrate(secs, once);
      // Compute reps are short and cheap; more of them make it likelier one runs undisturbed on a shared VM.
      int reps = o.quick ? o.reps : std::max(o.reps, 5);
      double best = team.timed(reps, [&](int tid) { sink[tid] = k.run(iters); });
      double ops = static_cast<double>(t) * static_cast<double>(iters) * k.ops_per_iter;
      hw.compute.push_back({k.name, k.isa, k.dtype, t, ops / best / 1e9});
    });
  }
}

// One bandwidth point: each thread works on its own arrays of n elements inside its private buffer.
double measure_point(Team& team, const BwKernel& k, size_t n, double secs, int reps) {
  auto args_for = [&](int tid, uint64_t passes) {
    char* base = reinterpret_cast<char*>(team.buffer(tid).data);
    size_t stride = n * sizeof(double) + kStagger;
    BwArgs a;
    a.a = reinterpret_cast<double*>(base);
    a.b = reinterpret_cast<const double*>(base + (k.arrays >= 2 ? stride : 0));
    a.c = reinterpret_cast<const double*>(base + (k.arrays >= 3 ? 2 * stride : 0));
    if (k.arrays == 1) a.b = a.a;
    a.n = n;
    a.passes = passes;
    return a;
  };
  std::vector<double> sink(team.size());
  auto run_passes = [&](uint64_t passes, int r) {
    return team.timed(r, [&](int tid) { sink[tid] = k.fn(args_for(tid, passes)); });
  };
  uint64_t passes = calibrate(secs, [&](uint64_t p) { return run_passes(p, 1); });
  double best = run_passes(passes, reps);
  double bytes = static_cast<double>(team.size()) * k.words * static_cast<double>(n) * 8.0 * passes;
  return bytes / best / 1e9;
}

size_t elements_for(uint64_t working_set, int threads, int arrays) {
  uint64_t per_array = working_set / static_cast<uint64_t>(threads) / static_cast<uint64_t>(arrays) / 8;
  return per_array / kBwElementBlock * kBwElementBlock;
}

uint64_t default_max_working_set(const MachineDesc& m) {
  uint64_t llc = 0;
  for (const CacheInfo& c : m.caches) llc = std::max(llc, c.size_bytes * static_cast<uint64_t>(c.instances));
  uint64_t want = std::max<uint64_t>(8 * llc, kGiB);
  uint64_t avail = available_memory_bytes();
  // Leave room for the rest of the machine: use at most a quarter of what is free, never below 8 x LLC.
  if (avail && want > avail / 4) want = std::max<uint64_t>(8 * llc, avail / 4);
  return want;
}

struct LevelPoint { std::string level; uint64_t working_set; };

// --quick measures three points instead of a sweep: half of L1 and of L2 (safely inside) and 8 x LLC.
std::vector<LevelPoint> quick_points(const MachineDesc& m, int threads) {
  std::vector<uint64_t> caps = cache_capacities(m, threads);
  std::vector<LevelPoint> pts;
  if (caps.size() >= 1) pts.push_back({"L1", caps[0] / 2});
  if (caps.size() >= 2) pts.push_back({"L2", caps[1] / 2});
  uint64_t llc = caps.empty() ? 32 * kKiB * kKiB : caps.back();
  pts.push_back({"DRAM", 8 * llc});
  return pts;
}

void measure_bandwidth(Team& team, const BwKernelSet& set, const HwOptions& o, double secs, uint64_t max_ws,
                       HardwareInfo& hw) {
  int t = team.size();
  std::vector<LevelPoint> plan;
  if (o.quick) {
    plan = quick_points(hw.machine, t);
  } else {
    for (uint64_t ws : sweep_sizes(max_ws)) plan.push_back({"", ws});
  }
  uint64_t biggest = 0;
  for (const auto& p : plan) biggest = std::max(biggest, p.working_set);
  std::string team_name = "bandwidth x" + std::to_string(t);
  bool ok = false;
  guarded(hw, team_name, [&] {
    team.reserve(biggest / static_cast<uint64_t>(t) + 4 * kStagger + 4096);
    ok = true;
  });
  if (!ok) return;
  for (const BwKernel& k : set.kernels) {
    if (o.quick && !k.quick) continue;
    std::vector<BwSample> samples;
    std::vector<std::string> levels;
    guarded(hw, team_name + " " + k.name, [&] {
      for (const auto& p : plan) {
        size_t n = elements_for(p.working_set, t, k.arrays);
        if (n == 0) continue;
        double gbps = measure_point(team, k, n, secs, o.reps);
        uint64_t ws = static_cast<uint64_t>(t) * k.arrays * n * 8;
        samples.push_back({ws, gbps});
        levels.push_back(p.level);
        hw.sweep.push_back({k.name, t, ws, gbps});
      }
    });
    if (o.quick) {
      for (size_t i = 0; i < samples.size(); ++i)
        hw.memory.push_back({levels[i], k.name, t, samples[i].gbps, samples[i].working_set_bytes});
      continue;
    }
    for (const Plateau& p : find_plateaus(samples, cache_capacities(hw.machine, t)))
      hw.memory.push_back({p.level, k.name, t, p.gbps, p.working_set_bytes});
  }
}

std::vector<int> thread_counts(const HwOptions& o, const MachineDesc& m) {
  if (!o.threads.empty()) return o.threads;
  int all = static_cast<int>(pinning_order().size());
  if (m.cores > 0) all = std::min<int>(all, static_cast<int>(m.cores));  // one thread per core, no SMT sibling
  return all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
}

}  // namespace

std::vector<uint64_t> sweep_sizes(uint64_t max_bytes) {
  std::vector<uint64_t> out;
  for (double s = 4.0 * kKiB; s <= static_cast<double>(max_bytes) * 1.0001; s *= std::sqrt(2.0))
    out.push_back(static_cast<uint64_t>(s) / 512 * 512);
  return out;
}

HardwareInfo measure_hardware(const HwOptions& o, const std::string& version) {
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  FeatureMask mask = detect_features() & o.force_mask;
  HardwareInfo hw;
  hw.source = "measured";
  hw.quick = o.quick;
  hw.measured_at = iso_now();
  hw.machine = describe_machine(mask);
  hw.cache_key = cache_key(hw.machine.model, hw.machine.cores, version);
  const BwKernelSet& bw = o.bandwidth_set ? *o.bandwidth_set : select_bandwidth(mask);
  std::vector<ComputeKernel> kernels = select_compute(o.compute_registry ? *o.compute_registry : compute_kernels(), mask);
  if (o.quick) {  // the best fp32 kernel only
    auto first = std::find_if(kernels.begin(), kernels.end(), [](const auto& k) { return k.dtype == "fp32"; });
    kernels = first == kernels.end() ? std::vector<ComputeKernel>{} : std::vector<ComputeKernel>{*first};
  }
  double csecs = o.compute_seconds > 0 ? o.compute_seconds : (o.quick ? 0.02 : 0.05);
  double bsecs = o.bandwidth_seconds > 0 ? o.bandwidth_seconds : (o.quick ? 0.01 : 0.008);
  uint64_t max_ws = o.max_working_set ? o.max_working_set : default_max_working_set(hw.machine);
  hw.notes.push_back("bandwidth bytes counted as STREAM does: read 1, write 1, copy 2, triad 3 words per element "
                     "(write-allocate traffic not counted); " + bw.isa + " kernels, ordinary stores");
  hw.notes.push_back("each figure is the best of " + std::to_string(o.reps) +
                     " timed repetitions; threads pinned one per core");
  for (int t : thread_counts(o, hw.machine)) {
    std::unique_ptr<Team> team;
    guarded(hw, "threads x" + std::to_string(t), [&] { team = std::make_unique<Team>(t); });
    if (!team) continue;
    if (o.compute) {
      say("compute peaks, " + std::to_string(t) + " thread(s)");
      measure_compute(*team, kernels, o, csecs, hw);
    }
    if (o.bandwidth) {
      say("bandwidth " + std::string(o.quick ? "points" : "sweep") + ", " + std::to_string(t) + " thread(s)");
      measure_bandwidth(*team, bw, o, bsecs, max_ws, hw);
    }
  }
  return hw;
}

}  // namespace rooflens::hw
