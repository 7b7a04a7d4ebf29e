#include "hw/measure.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <memory>
#include <new>
#include <utility>

#include "hw/hw_table.h"
#include "hw/levels.h"
#include "hw/machine.h"
#include "hw/plausibility.h"
#include "hw/roof_cache.h"
#include "hw/team.h"

namespace rooflens::hw {
namespace {

constexpr uint64_t kKiB = 1024, kGiB = kKiB * kKiB * kKiB;

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

constexpr uint64_t kMiB = kKiB * kKiB;

// The largest reported cache, all instances: a hint for how far the sweep must go.
uint64_t reported_llc(const MachineDesc& m) {
  uint64_t llc = 0;
  for (const CacheInfo& c : m.caches) llc = std::max(llc, c.size_bytes * static_cast<uint64_t>(std::max<int64_t>(1, c.instances)));
  return llc;
}

// The most one team's buffer may hold (`teams` thread counts are measured side by side): half the memory free now,
// shared, so the rest of the machine keeps room; 4 GiB each when unknown. A quarter was not enough where the last
// cache is large: a 2-core Sapphire Rapids guest (260 MiB of L3, 23.5 GiB free) reads its L3 to 256 MiB at 2
// threads, so DRAM's plateau begins at 1 GiB and needs the sweep to 4 GiB to show itself; at a quarter (2.9 GiB per
// team) --quick stopped at 2 GiB and left 2 threads without a DRAM roof in some runs.
uint64_t memory_limit(int teams) {
  uint64_t avail = available_memory_bytes();
  if (avail == 0) return 4 * kGiB;
  return std::max<uint64_t>(avail / 2 / static_cast<uint64_t>(std::max(teams, 1)), 256 * kMiB);
}

// Where the sweep starts ending: full, max(8 x reported LLC, 1 GiB) (STREAM wants 4x the caches; a reported size
// may be wrong either way, and the sweep goes further when it has not settled on DRAM by then, see
// extend_sweeps); quick, max(8 x LLC, 512 MiB) but at most 1 GiB on the hint's word alone (this VM's DRAM plateau
// begins at 256 MiB with 2 threads; starting at 256 MiB and extending cost --quick 1-4 s more than this).
uint64_t initial_max_working_set(const MachineDesc& m, bool quick, uint64_t limit) {
  uint64_t llc = reported_llc(m);
  uint64_t want = quick ? std::max(std::min(8 * llc, kGiB), 512 * kMiB) : std::max(8 * llc, kGiB);
  return std::min(want, limit);
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
  uint64_t working_set = 0; // bandwidth: actual bytes over all threads and arrays
  Probe probe;
};

struct TeamPlan {
  std::unique_ptr<Team> team;
  std::vector<Item> items;
  uint64_t swept_to = 0;    // the largest working set planned so far
};

struct Sweep {
  const BwKernelSet* set = nullptr;
  bool quick = false;
  double step = 0;          // factor between working sets: sqrt(2), x2 in quick mode
  uint64_t limit = 0;       // memory_limit
};

bool failed_group(const std::vector<std::string>& failed, const Item& it) {
  return std::find(failed.begin(), failed.end(), it.group) != failed.end();
}

// Bandwidth points of every kernel at the working sets in (from, to]; the team's buffers grow to hold them.
// Returns false when they cannot be allocated (an error entry says so).
bool plan_bandwidth(TeamPlan& tp, const Sweep& sw, uint64_t from, uint64_t to, HardwareInfo& hw) {
  Team& team = *tp.team;
  int t = team.size();
  std::string tn = "x" + std::to_string(t);
  std::vector<uint64_t> sizes;
  for (uint64_t ws : sweep_sizes(to, sw.step))
    if (ws > from) sizes.push_back(ws);
  if (sizes.empty()) return false;
  bool ok = false;
  guarded(hw, "bandwidth " + tn + " up to " + binary_bytes(sizes.back()), [&] {
    team.reserve(bandwidth_buffer_bytes(sizes.back(), t));
    ok = true;
  });
  if (!ok) return false;
  uint64_t settle = bandwidth_settle_bytes(hw.machine, t);
  for (const BwKernel& k : sw.set->kernels) {
    if (sw.quick && !k.quick) continue;
    for (uint64_t size : sizes) {
      size_t n = bandwidth_elements(size, t, k.arrays);
      if (n == 0) continue;
      uint64_t ws = static_cast<uint64_t>(t) * static_cast<uint64_t>(k.arrays) * n * 8;
      tp.items.push_back({"bandwidth " + tn + " " + k.name, nullptr, &k, ws, Probe::bandwidth(team, k, n, settle)});
    }
  }
  tp.swept_to = sizes.back();
  return true;
}

void plan_team(TeamPlan& tp, const std::vector<ComputeKernel>& kernels, const Sweep& sw, const HwOptions& o,
               uint64_t max_ws, HardwareInfo& hw) {
  std::string tn = "x" + std::to_string(tp.team->size());
  if (o.compute)
    for (const ComputeKernel& k : kernels)
      tp.items.push_back({"compute " + k.name + " " + tn, &k, nullptr, 0, Probe::compute(*tp.team, k)});
  if (o.bandwidth) plan_bandwidth(tp, sw, 0, max_ws, hw);
}

// The levels each team's sweep shows so far (each kernel's points, in working-set order), named alike across the
// teams (hw/levels.h). In the order of `teams`.
std::vector<SweepLevels> team_levels(const std::vector<TeamPlan>& teams, const Sweep& sw,
                                     const std::vector<std::string>& failed, const MachineDesc& m) {
  std::vector<ThreadCountSweep> counts;
  for (const TeamPlan& tp : teams) {
    ThreadCountSweep c{{}, cache_capacities(m, tp.team->size())};
    for (const BwKernel& k : sw.set->kernels) {
      KernelSweep ks{k.name, {}};
      for (const Item& it : tp.items)
        if (it.bw == &k && !failed_group(failed, it)) ks.points.push_back({it.working_set, it.probe.best()});
      std::stable_sort(ks.points.begin(), ks.points.end(),
                       [](const BwSample& a, const BwSample& b) { return a.working_set_bytes < b.working_set_bytes; });
      if (!ks.points.empty()) c.kernels.push_back(std::move(ks));
    }
    counts.push_back(std::move(c));
  }
  return find_levels_by_thread_count(counts);
}

// Rounds over `items` (see Item): a figure's repetitions spread over all rounds; a failure drops its group.
void run_rounds(const std::vector<Item*>& items, const HwOptions& o, const std::string& what,
                std::vector<std::string>& failed, HardwareInfo& hw) {
  int rounds = std::max(1, o.rounds);
  // Short repetitions, many of them (see time_best): best-of-K only needs one undisturbed.
  double csecs = o.compute_seconds > 0 ? o.compute_seconds : 0.0005;
  double bsecs = o.bandwidth_seconds > 0 ? o.bandwidth_seconds : 0.0005;
  // Wall time per figure over all rounds. Compute figures get more: there are few of them, and with several
  // threads a repetition needs every thread on its core at once, which a busy machine grants least often.
  // Quick mode's coarse sweep has about half the full sweep's points for two kernels, at 0.025 s each.
  double bw_seconds = o.figure_seconds > 0 ? o.figure_seconds : (o.quick ? 0.025 : 0.04);
  double compute_seconds = o.figure_seconds > 0 ? o.figure_seconds : 0.2;
  for (int r = 0; r < rounds; ++r) {
    if (o.progress) o.progress(what + ", round " + std::to_string(r + 1) + "/" + std::to_string(rounds));
    for (Item* it : items) {
      if (failed_group(failed, *it)) continue;
      try {
        double per_round = (it->compute ? compute_seconds : bw_seconds) / rounds;
        it->probe.round(it->compute ? csecs : bsecs, o.reps, per_round);
      } catch (...) {
        hw.errors.push_back({it->group, what_of(std::current_exception())});
        failed.push_back(it->group);
      }
    }
  }
}

// How far a team's sweep should go from what it shows so far: 4x further (--quick: 2x) while it has not settled
// on DRAM (no flat plateau at its end 4x beyond the last cache it found); 4x a reported cache size it has not
// confirmed (its "DRAM" may be inside that cache). 0: far enough. --quick leaves an unconfirmed size unchecked (a
// warning says so): on a VM that reports a 508 MiB L3 per core, checking it means sweeping 4 GiB.
uint64_t wanted_reach(const SweepLevels& lv, uint64_t swept_to, bool quick) {
  if (!lv.dram) return (quick ? 2 : 4) * swept_to;
  if (!quick && lv.unconfirmed_bytes && 4 * lv.unconfirmed_bytes > swept_to) return 4 * lv.unconfirmed_bytes;
  return 0;
}

// Teams whose sweeps have not gone far enough measure further, twice at most, within the memory limit: DRAM
// must exist at every thread count, and a reported cache size cannot be trusted to say how far is far enough.
void extend_sweeps(std::vector<TeamPlan>& teams, const Sweep& sw, const HwOptions& o, std::vector<std::string>& failed,
                   HardwareInfo& hw) {
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<Item*> added;
    std::string what;
    std::vector<SweepLevels> levels = team_levels(teams, sw, failed, hw.machine);
    for (size_t i = 0; i < teams.size(); ++i) {
      TeamPlan& tp = teams[i];
      uint64_t to = std::min(sw.limit, wanted_reach(levels[i], tp.swept_to, sw.quick));
      if (to <= tp.swept_to) continue;
      size_t before = tp.items.size();
      if (!plan_bandwidth(tp, sw, tp.swept_to, to, hw)) continue;
      for (size_t i = before; i < tp.items.size(); ++i) added.push_back(&tp.items[i]);
      what += (what.empty() ? "" : ", ") + std::string("x") + std::to_string(tp.team->size()) + " up to " +
              binary_bytes(tp.swept_to);
    }
    if (added.empty()) return;
    run_rounds(added, o, "bandwidth further out (" + what + ")", failed, hw);
  }
}

void collect_team(const TeamPlan& tp, const SweepLevels& lv, const Sweep& sw, const std::vector<std::string>& failed,
                  HardwareInfo& hw) {
  int t = tp.team->size();
  for (const Item& it : tp.items)
    if (it.compute && !failed_group(failed, it))
      hw.compute.push_back({it.compute->name, it.compute->isa, it.compute->dtype, t, it.probe.best()});
  bool any_bw = false;
  for (const BwKernel& k : sw.set->kernels)
    for (const Item& it : tp.items)
      if (it.bw == &k && !failed_group(failed, it)) {
        hw.sweep.push_back({k.name, t, it.working_set, it.probe.best()});
        any_bw = true;
      }
  if (!any_bw) return;
  for (const BwKernel& k : sw.set->kernels)  // kernel by kernel, levels in order, as `hw` prints them
    for (const LevelFigure& f : lv.figures)
      if (f.kernel == k.name) hw.memory.push_back({f.level, f.kernel, t, f.gbps, f.working_set_bytes});
  for (const FoundLevel& l : lv.levels) hw.levels.push_back({l.level, t, l.first_bytes, l.last_bytes, l.reported_bytes});
  for (const std::string& shared : lv.shared) hw.notes.push_back("x" + std::to_string(t) + ": " + shared);
  if (!lv.disagreements.empty()) {
    std::string list;
    for (const std::string& d : lv.disagreements) list += (list.empty() ? "" : ", ") + d;
    hw.notes.push_back("x" + std::to_string(t) + ": the sweep shows no fall near the reported " + list +
                       "; levels follow the sweep");
  }
  if (!lv.dram && tp.swept_to >= sw.limit)
    hw.notes.push_back("x" + std::to_string(t) + ": the sweep stopped at " + binary_bytes(tp.swept_to) +
                       ", the memory this run may use, before settling on DRAM");
  if (lv.dram && lv.unconfirmed_bytes)
    hw.warnings.push_back("at " + std::to_string(t) + " thread(s) the reported cache of " +
                          binary_bytes(lv.unconfirmed_bytes) + " was not checked: the sweep reached " +
                          binary_bytes(tp.swept_to) + ", less than 4x it (" +
                          (sw.quick ? "--quick" : "the memory this run may use") + "), and found no fall near it; if "
                          "that cache is real, the DRAM figures at this thread count are its");
}

std::vector<int> thread_counts(const HwOptions& o, const MachineDesc& m) {
  if (!o.threads.empty()) return o.threads;
  int all = static_cast<int>(pinning_order().size());
  if (m.cores > 0) all = std::min<int>(all, static_cast<int>(m.cores));  // one thread per core, no SMT sibling
  return all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
}

}  // namespace

std::vector<uint64_t> sweep_sizes(uint64_t max_bytes, double step) {
  std::vector<uint64_t> out;
  for (double s = 4.0 * kKiB; s <= static_cast<double>(max_bytes) * 1.0001; s *= step)
    out.push_back(static_cast<uint64_t>(s) / 512 * 512);
  return out;
}

uint64_t bandwidth_settle_bytes(const MachineDesc& m, int threads) {
  std::vector<uint64_t> caps = cache_capacities(m, threads);
  uint64_t twice = caps.empty() ? 0 : 2 * caps.back();
  return std::clamp<uint64_t>(twice, 64 * kMiB, 512 * kMiB);
}

HardwareInfo measure_hardware(const HwOptions& o, const std::string& version) {
  FeatureMask mask = detect_features() & o.force_mask;
  HardwareInfo hw;
  hw.source = "measured";
  hw.quick = o.quick;
  hw.measured_at = iso_now();
  hw.machine = describe_machine(mask);
  // The key names the machine as it is, before a test's stand-in caches replace what it reports.
  hw.cache_key = cache_key(hw.machine, version);
  if (o.reported_caches) hw.machine.caches = *o.reported_caches;
  const BwKernelSet& bw = o.bandwidth_set ? *o.bandwidth_set : select_bandwidth(mask);
  std::vector<ComputeKernel> kernels = select_compute(o.compute_registry ? *o.compute_registry : compute_kernels(), mask);
  if (o.quick) {  // the best kernel of each dtype (the list is best first): an int8 layer still meets an int8 roof
    std::vector<ComputeKernel> best;
    for (const auto& k : kernels)
      if (std::none_of(best.begin(), best.end(), [&](const auto& b) { return b.dtype == k.dtype; })) best.push_back(k);
    kernels = std::move(best);
  }
  hw.notes.push_back("bandwidth bytes counted as STREAM does: read 1, write 1, copy 2, triad 3 words per element "
                     "(write-allocate traffic not counted); " + bw.isa + " kernels, ordinary stores");
  hw.notes.push_back("each figure is the best of many short timed repetitions (at least " + std::to_string(o.reps) +
                     " in each of " + std::to_string(std::max(1, o.rounds)) + " interleaved rounds); a repetition "
                     "runs from a common barrier to the last thread's end; threads pinned one per core");
  if (o.bandwidth)
    hw.notes.push_back("memory levels are where the sweep (all kernels together) plateaus and falls; reported cache "
                       "sizes only name the falls they agree with (caches with no fall between them share a level: "
                       "L1+L2); DRAM is a plateau the sweep ends on, its figures from beyond 4x the last cache found");
  std::vector<int> counts = thread_counts(o, hw.machine);
  Sweep sw{&bw, o.quick, o.quick ? 2.0 : std::sqrt(2.0), 0};
  sw.limit = o.max_working_set ? o.max_working_set : memory_limit(static_cast<int>(counts.size()));
  uint64_t max_ws = o.max_working_set ? o.max_working_set : initial_max_working_set(hw.machine, o.quick, sw.limit);
  std::vector<TeamPlan> teams;
  for (int t : counts) {
    TeamPlan tp;
    guarded(hw, "threads x" + std::to_string(t), [&] { tp.team = std::make_unique<Team>(t); });
    if (!tp.team) continue;
    plan_team(tp, kernels, sw, o, max_ws, hw);
    teams.push_back(std::move(tp));
  }
  std::vector<Item*> all;
  for (TeamPlan& tp : teams)
    for (Item& it : tp.items) all.push_back(&it);
  std::string what = std::string(o.compute ? "compute peaks" : "") + (o.compute && o.bandwidth ? " and " : "") +
                     (o.bandwidth ? (o.quick ? "a coarse bandwidth sweep" : "bandwidth sweep") : "");
  std::vector<std::string> failed;
  run_rounds(all, o, what, failed, hw);
  if (o.bandwidth) extend_sweeps(teams, sw, o, failed, hw);
  std::vector<SweepLevels> levels = team_levels(teams, sw, failed, hw.machine);
  for (size_t i = 0; i < teams.size(); ++i) collect_team(teams[i], levels[i], sw, failed, hw);
  for (std::string& w : plausibility_warnings(hw)) hw.warnings.push_back(std::move(w));
  return hw;
}

}  // namespace rooflens::hw
