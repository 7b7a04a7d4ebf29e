#include "hw/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <new>
#include <utility>

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

// Best-of-K timing of work whose size (iterations, blocks) is scaled so one repetition lasts about `target`.
// The size is found by growing it until a best-of-3 lasts ≥ 0.2 ms and extrapolating; because a thread
// descheduled during that probe makes the work look slower than it is (it happened: 5 ms for 1 iteration, so
// the "20 ms" repetition became 4 iterations and the figure 0.005 GFLOP/s), the final best is checked against
// the target and the size extrapolated again from it when it fell short. Repetitions: at least `min_reps`,
// more until `budget` seconds have passed (Team::timed). Repetitions are short on purpose: on a shared 2-vCPU
// VM a 0.5 ms window with every thread on its core comes often, a 20 ms one rarely (measured here under
// load, 2 threads: best of 0.5 ms repetitions 287 GFLOP/s, of 10 ms ones 155).
struct Timing { uint64_t units = 1; double seconds = 0; };

constexpr uint64_t kMaxUnits = uint64_t{1} << 40;

Timing time_best(double target, int min_reps, double budget, const Probe::Timed& timed) {
  Timing r;
  double t = timed(r.units, 3, 0, false);
  auto grow = [&] {  // to a best-of-3 long enough (0.2 ms) to extrapolate from
    while (t < 2e-4 && r.units < kMaxUnits) {
      r.units = std::min(r.units * 16, kMaxUnits);
      t = timed(r.units, 3, 0, false);
    }
  };
  grow();
  for (int round = 0; round < 3; ++round) {
    r.units = std::clamp<uint64_t>(static_cast<uint64_t>(static_cast<double>(r.units) * target / t), 1, kMaxUnits);
    t = timed(r.units, min_reps, budget, true);
    if (t >= 0.5 * target || r.units == kMaxUnits) break;
    grow();  // the sizing was fooled: probe again from the size that ran fast
  }
  r.seconds = t;
  return r;
}

// Each thread's arrays inside its private buffer, staggered so a[i], b[i], c[i] never share a page offset;
// `first` elements into each array, `count` elements.
BwArgs bw_args(Team& team, const BwKernel& k, int tid, size_t n, size_t first, size_t count, uint64_t passes) {
  char* base = reinterpret_cast<char*>(team.buffer(tid).data);
  size_t stride = n * sizeof(double) + kStagger;
  BwArgs a;
  a.a = reinterpret_cast<double*>(base) + first;
  a.b = reinterpret_cast<const double*>(base + (k.arrays >= 2 ? stride : 0)) + first;
  a.c = reinterpret_cast<const double*>(base + (k.arrays >= 3 ? 2 * stride : 0)) + first;
  a.n = count;
  a.passes = passes;
  return a;
}

// `teams`: thread counts measured side by side, each holding a buffer this big.
uint64_t default_max_working_set(const MachineDesc& m, int teams) {
  uint64_t llc = 0;
  for (const CacheInfo& c : m.caches) llc = std::max(llc, c.size_bytes * static_cast<uint64_t>(c.instances));
  uint64_t want = std::max<uint64_t>(8 * llc, kGiB);
  uint64_t avail = available_memory_bytes();
  // Leave room for the rest of the machine: use at most a quarter of what is free, never below 8 x LLC.
  uint64_t share = avail / 4 / static_cast<uint64_t>(std::max(teams, 1));
  if (avail && want > share) want = std::max<uint64_t>(8 * llc, share);
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

// Every figure (compute peak or bandwidth point) of every thread count, measured in rounds: each round
// visits every figure once and adds repetitions to it; a figure is its best over all rounds. Interference on
// a shared VM comes in episodes — a neighbour's compile, a busy host core — lasting up to seconds (seen here:
// 1 thread fp32 AVX-512 at 120-145 instead of 154 GFLOP/s for 1-2 s at a time), longer than one figure's
// repetitions; rounds spread each figure's repetitions over the whole run, so it needs one quiet moment
// somewhere in it rather than exactly when its turn came.
struct Item {
  std::string group;        // error entries name this; a failure drops the whole group ("compute X x2")
  const ComputeKernel* compute = nullptr;
  const BwKernel* bw = nullptr;
  std::string level;        // bandwidth: quick mode's level name
  uint64_t working_set = 0; // bandwidth: actual bytes over all threads and arrays
  Probe probe;
};

struct TeamPlan {
  std::unique_ptr<Team> team;
  std::vector<Item> items;
};

void plan_team(TeamPlan& tp, const std::vector<ComputeKernel>& kernels, const BwKernelSet& set, const HwOptions& o,
               uint64_t max_ws, HardwareInfo& hw) {
  Team& team = *tp.team;
  int t = team.size();
  std::string tn = "x" + std::to_string(t);
  if (o.compute)
    for (const ComputeKernel& k : kernels)
      tp.items.push_back({"compute " + k.name + " " + tn, &k, nullptr, "", 0, Probe::compute(team, k)});
  if (!o.bandwidth) return;
  std::vector<LevelPoint> plan;
  if (o.quick) {
    plan = quick_points(hw.machine, t);
  } else {
    for (uint64_t ws : sweep_sizes(max_ws)) plan.push_back({"", ws});
  }
  uint64_t biggest = 0;
  for (const auto& p : plan) biggest = std::max(biggest, p.working_set);
  // Twice the caches these threads use: enough of a kernel's sweep to leave them in its steady state.
  std::vector<uint64_t> caps = cache_capacities(hw.machine, t);
  uint64_t settle = caps.empty() ? 0 : 2 * caps.back();
  bool ok = false;
  guarded(hw, "bandwidth " + tn, [&] {
    team.reserve(bandwidth_buffer_bytes(biggest, t));
    ok = true;
  });
  if (!ok) return;
  for (const BwKernel& k : set.kernels) {
    if (o.quick && !k.quick) continue;
    for (const auto& p : plan) {
      size_t n = bandwidth_elements(p.working_set, t, k.arrays);
      if (n == 0) continue;
      uint64_t ws = static_cast<uint64_t>(t) * static_cast<uint64_t>(k.arrays) * n * 8;
      tp.items.push_back(
          {"bandwidth " + tn + " " + k.name, nullptr, &k, p.level, ws, Probe::bandwidth(team, k, n, settle)});
    }
  }
}

void collect_team(const TeamPlan& tp, const BwKernelSet& set, const HwOptions& o,
                  const std::vector<std::string>& failed, HardwareInfo& hw) {
  int t = tp.team->size();
  auto ok = [&](const Item& it) { return std::find(failed.begin(), failed.end(), it.group) == failed.end(); };
  for (const Item& it : tp.items)
    if (it.compute && ok(it))
      hw.compute.push_back({it.compute->name, it.compute->isa, it.compute->dtype, t, it.probe.best()});
  for (const BwKernel& k : set.kernels) {
    std::vector<BwSample> samples;
    std::vector<std::string> levels;
    for (const Item& it : tp.items)
      if (it.bw == &k && ok(it)) {
        samples.push_back({it.working_set, it.probe.best()});
        levels.push_back(it.level);
        hw.sweep.push_back({k.name, t, it.working_set, it.probe.best()});
      }
    if (o.quick) {
      for (size_t i = 0; i < samples.size(); ++i)
        hw.memory.push_back({levels[i], k.name, t, samples[i].gbps, samples[i].working_set_bytes});
      continue;
    }
    if (!samples.empty())
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

Probe::Probe(Timed timed, Amount amount) : timed_(std::move(timed)), amount_(std::move(amount)) {}

double Probe::round(double seconds, int min_reps, double budget) {
  double rate;
  if (units_ == 0) {
    Timing first = time_best(seconds, min_reps, budget, timed_);
    units_ = first.units;
    rate = amount_(units_) / first.seconds;
  } else {
    rate = amount_(units_) / timed_(units_, min_reps, budget, true);
  }
  best_ = std::max(best_, rate);
  return rate;
}

Probe Probe::compute(Team& team, const ComputeKernel& k) {
  auto sink = std::make_shared<std::vector<double>>(static_cast<size_t>(team.size()));
  Timed timed = [&team, &k, sink](uint64_t iters, int reps, double budget, bool) {
    return team.timed(reps, [&](int tid) { (*sink)[static_cast<size_t>(tid)] = k.run(iters); }, budget);
  };
  double per_unit = static_cast<double>(team.size()) * k.ops_per_iter / 1e9;
  return Probe(std::move(timed), [per_unit](uint64_t iters) { return per_unit * static_cast<double>(iters); });
}

size_t bandwidth_elements(uint64_t working_set, int threads, int arrays) {
  uint64_t per_array = working_set / static_cast<uint64_t>(threads) / static_cast<uint64_t>(arrays) / 8;
  return per_array / kBwElementBlock * kBwElementBlock;
}

uint64_t bandwidth_buffer_bytes(uint64_t working_set, int threads) {
  return working_set / static_cast<uint64_t>(threads) + 4 * kStagger + 4096;
}

Probe Probe::bandwidth(Team& team, const BwKernel& k, size_t n, uint64_t settle_bytes) {
  // Work is counted in blocks of kBwElementBlock elements. At least a whole array's worth: whole passes
  // (rounded). Less (a DRAM-sized array takes 15-30 ms per pass here): a window of that many blocks that
  // moves on through the array from one repetition to the next, wrapping around — the access stream over
  // time is the same cyclic sweep as whole passes (so an array larger than the caches still comes from
  // memory), only timed in short windows.
  const uint64_t blocks = std::max<uint64_t>(1, n / kBwElementBlock);
  n = blocks * kBwElementBlock;
  auto done_blocks = [blocks](uint64_t units) {
    return units < blocks ? units : std::max<uint64_t>(1, (units + blocks / 2) / blocks) * blocks;
  };
  struct State {
    std::vector<double> sink;
    std::vector<uint64_t> next;  // per thread: block where its next window starts
  };
  auto st = std::make_shared<State>();
  st->sink.resize(static_cast<size_t>(team.size()));
  st->next.resize(static_cast<size_t>(team.size()));
  // One thread's window of `units` blocks (at most a whole array) from where its last one ended, wrapping.
  auto window = [&team, &k, n, blocks, st](int tid, uint64_t units) {
    auto i = static_cast<size_t>(tid);
    uint64_t& at = st->next[i];
    uint64_t head = std::min(units, blocks - at);
    st->sink[i] = k.fn(bw_args(team, k, tid, n, at * kBwElementBlock, head * kBwElementBlock, 1));
    if (units > head) st->sink[i] += k.fn(bw_args(team, k, tid, n, 0, (units - head) * kBwElementBlock, 1));
    at = (at + units) % blocks;
  };
  // settle_bytes counts all threads and arrays; one block per thread moves this many of them.
  uint64_t block_bytes = static_cast<uint64_t>(team.size()) * static_cast<uint64_t>(k.arrays) * kBwElementBlock * 8;
  uint64_t settle_blocks = settle_bytes ? std::min(blocks, (settle_bytes + block_bytes - 1) / block_bytes) : blocks;
  Timed timed = [&team, &k, n, blocks, settle_blocks, done_blocks, st, window](uint64_t units, int reps,
                                                                                double budget, bool settle) {
    if (units >= blocks)
      return team.timed(reps, [&](int tid) {
        st->sink[static_cast<size_t>(tid)] = k.fn(bw_args(team, k, tid, n, 0, n, done_blocks(units) / blocks));
      }, budget);
    // Windows: caches must hold what the cyclic sweep leaves in them — for triad/copy/write, lines this
    // kernel dirtied, whose write-back each window pays for — not what the previous figure left (clean
    // lines cost nothing to evict and would flatter the first windows). An untimed stretch of the sweep
    // (a whole pass, or settle_bytes when that is less), ending where the next window starts, brings them there.
    if (settle) team.run([&](int tid) { window(tid, settle_blocks); });
    return team.timed(reps, [&](int tid) { window(tid, units); }, budget);
  };
  double per_block = static_cast<double>(team.size()) * k.words * 8.0 * kBwElementBlock / 1e9;
  return Probe(std::move(timed), [per_block, done_blocks](uint64_t units) {
    return per_block * static_cast<double>(done_blocks(units));
  });
}

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
  // Short repetitions, many of them (see time_best): best-of-K only needs one undisturbed.
  double csecs = o.compute_seconds > 0 ? o.compute_seconds : 0.0005;
  double bsecs = o.bandwidth_seconds > 0 ? o.bandwidth_seconds : 0.0005;
  hw.notes.push_back("bandwidth bytes counted as STREAM does: read 1, write 1, copy 2, triad 3 words per element "
                     "(write-allocate traffic not counted); " + bw.isa + " kernels, ordinary stores");
  hw.notes.push_back("each figure is the best of many short timed repetitions (at least " + std::to_string(o.reps) +
                     " in each of " + std::to_string(std::max(1, o.rounds)) + " interleaved rounds); a repetition "
                     "runs from a common barrier to the last thread's end; threads pinned one per core");
  std::vector<int> counts = thread_counts(o, hw.machine);
  uint64_t max_ws = o.max_working_set ? o.max_working_set
                                      : default_max_working_set(hw.machine, static_cast<int>(counts.size()));
  std::vector<TeamPlan> teams;
  for (int t : counts) {
    TeamPlan tp;
    guarded(hw, "threads x" + std::to_string(t), [&] { tp.team = std::make_unique<Team>(t); });
    if (!tp.team) continue;
    plan_team(tp, kernels, bw, o, max_ws, hw);
    teams.push_back(std::move(tp));
  }
  int rounds = std::max(1, o.rounds);
  // Wall time per figure over all rounds. Compute figures get more: there are few of them, and with several
  // threads a repetition needs every thread on its core at once, which a busy machine grants least often.
  double bw_seconds = o.figure_seconds > 0 ? o.figure_seconds : (o.quick ? 0.15 : 0.04);
  double compute_seconds = o.figure_seconds > 0 ? o.figure_seconds : 0.2;
  std::vector<std::string> failed;
  for (int r = 0; r < rounds; ++r) {
    say(std::string(o.compute ? "compute peaks" : "") + (o.compute && o.bandwidth ? " and " : "") +
        (o.bandwidth ? (o.quick ? "bandwidth points" : "bandwidth sweep") : "") + ", round " +
        std::to_string(r + 1) + "/" + std::to_string(rounds));
    for (TeamPlan& tp : teams)
      for (Item& it : tp.items) {
        if (std::find(failed.begin(), failed.end(), it.group) != failed.end()) continue;
        try {
          double per_round = (it.compute ? compute_seconds : bw_seconds) / rounds;
          it.probe.round(it.compute ? csecs : bsecs, o.reps, per_round);
        } catch (...) {
          hw.errors.push_back({it.group, what_of(std::current_exception())});
          failed.push_back(it.group);
        }
      }
  }
  for (const TeamPlan& tp : teams) collect_team(tp, bw, o, failed, hw);
  return hw;
}

}  // namespace rooflens::hw
