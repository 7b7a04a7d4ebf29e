#include "hw/levels.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/level_names.h"
#include "hw/hw_table.h"
#include "stats/order.h"

namespace rooflens::hw {
namespace {

struct Curve {
  std::vector<uint64_t> ws;
  std::vector<double> value;
};

double log_ratio(double a, double b) { return std::log(a / b); }

// A kernel's envelope at any working set: log-log interpolation between its points, clamped at the ends.
double envelope_at(const std::vector<BwSample>& env, uint64_t ws) {
  if (ws <= env.front().working_set_bytes) return env.front().gbps;
  if (ws >= env.back().working_set_bytes) return env.back().gbps;
  auto hi = std::lower_bound(env.begin(), env.end(), ws,
                             [](const BwSample& s, uint64_t w) { return s.working_set_bytes < w; });
  auto lo = hi - 1;
  double t = log_ratio(static_cast<double>(ws), static_cast<double>(lo->working_set_bytes)) /
             log_ratio(static_cast<double>(hi->working_set_bytes), static_cast<double>(lo->working_set_bytes));
  return std::exp((1 - t) * std::log(lo->gbps) + t * std::log(hi->gbps));
}

// The geometric mean of the kernels' envelopes, at the working sets of the kernel with the most points.
Curve combine(const std::vector<KernelSweep>& sweeps) {
  Curve c;
  std::vector<std::vector<BwSample>> envs;
  const std::vector<BwSample>* grid = nullptr;
  for (const KernelSweep& k : sweeps) {
    std::vector<BwSample> pts;
    for (const BwSample& p : k.points)
      if (p.gbps > 0 && p.working_set_bytes > 0) pts.push_back(p);
    if (pts.empty()) continue;
    envs.push_back(upper_envelope(pts));
    if (!grid || k.points.size() > grid->size()) grid = &k.points;
  }
  if (envs.empty()) return c;
  for (const BwSample& g : *grid) {
    if (g.working_set_bytes == 0) continue;
    std::vector<double> at;
    for (const auto& env : envs) at.push_back(envelope_at(env, g.working_set_bytes));
    c.ws.push_back(g.working_set_bytes);
    c.value.push_back(stats::geometric_mean(at));
  }
  return c;
}

// A fall between two neighbouring plateaus: the last working set of the upper one, the first of the lower one.
struct Fall {
  uint64_t lo = 0, hi = 0;
  double strength = 1;  // upper plateau's height / lower one's
  int slot = -1;        // level index (0 = L1) once named; -1 = not a level boundary
  bool reported = false;
};

// With reported sizes to go by, a fall none of them agrees with is a level only when it is this steep: a step
// inside a level (measured: read's 500 -> 370 GB/s inside a 48 KiB L1) or a wobble of DRAM is shallower than
// the fall from one cache level to the next (1.4x and more, measured).
constexpr double kSteepFall = 1.3;
// A fall this steep is a level boundary whatever the reported sizes say: from this VM's L3 into DRAM (2.2x and
// more) it must not give way to a shallow wobble of DRAM that a bogus reported size (508 MiB) happens to agree
// with. Cache-to-cache falls can be shallower (1.25-1.55x measured here), so below this the agreements decide.
constexpr double kUnmistakableFall = 1.6;

// A reported size agrees with a fall when it lies within a factor of 2 of where the bandwidth began to fall (the
// last working set of the upper plateau): a cache starts losing a cyclic sweep a little before its capacity. Not
// the whole slope: that can be long (16 MiB to 256 MiB from this VM's L3 into DRAM at 1 thread), and a bogus
// 508 MiB "L3" must not agree with a wobble at its far end.
bool agrees(const Fall& f, uint64_t size) {
  auto s = static_cast<double>(size), lo = static_cast<double>(f.lo);
  return s >= lo / 2 && s <= 2 * lo;
}

struct Naming {
  std::vector<int> slot;  // per fall: level index, or -1
  int kept = 0, unmistakable = 0, agreements = 0;
  double steepness = 0;   // sum of log strengths of the kept falls
  bool better_than(const Naming& o) const {
    if (kept != o.kept) return kept > o.kept;
    if (unmistakable != o.unmistakable) return unmistakable > o.unmistakable;
    if (agreements != o.agreements) return agreements > o.agreements;
    return steepness > o.steepness;
  }
};

// Which falls are level boundaries, and which level each one ends: as many levels as the sweep shows (up to the
// level names available), then as many unmistakable falls, then as many agreements with the reported sizes as
// possible, then the steepest falls. (Steepness alone cannot decide: on a 2-kernel quick sweep this VM's step
// inside L1 measured 1.32x, its fall from L1 to L2 1.25x.)
// Level names go in order, so a level the sweep cannot see (its reported size agrees with no fall) is skipped
// only when a later reported size agrees with the next fall. Exhaustive: a sweep has a handful of falls.
void name_falls(std::vector<Fall>& falls, const std::vector<uint64_t>& reported, int slots, bool measured) {
  const double steep = measured ? kUnmistakableFall : kSteepFall;
  auto eligible = [&](const Fall& f) {
    return reported.empty() || f.strength >= steep ||
           std::any_of(reported.begin(), reported.end(), [&](uint64_t r) { return agrees(f, r); });
  };
  Naming best, cur;
  best.kept = -1;
  cur.slot.assign(falls.size(), -1);
  auto search = [&](auto&& self, size_t k, int next) -> void {
    if (k == falls.size()) {
      if (cur.better_than(best)) best = cur;
      return;
    }
    self(self, k + 1, next);  // not a boundary
    if (!eligible(falls[k])) return;
    for (int s = next; s < slots; ++s) {
      bool agree = static_cast<size_t>(s) < reported.size() && agrees(falls[k], reported[static_cast<size_t>(s)]);
      bool sure = falls[k].strength >= kUnmistakableFall;
      cur.slot[k] = s, cur.kept += 1, cur.unmistakable += sure, cur.agreements += agree;
      cur.steepness += std::log(falls[k].strength);
      self(self, k + 1, s + 1);
      cur.slot[k] = -1, cur.kept -= 1, cur.unmistakable -= sure, cur.agreements -= agree;
      cur.steepness -= std::log(falls[k].strength);
    }
  };
  search(search, 0, 0);
  for (size_t k = 0; k < falls.size(); ++k) {
    falls[k].slot = best.slot[k];
    falls[k].reported = best.slot[k] >= 0 && static_cast<size_t>(best.slot[k]) < reported.size() &&
                        agrees(falls[k], reported[static_cast<size_t>(best.slot[k])]);
  }
}

// This kernel's best point in [lo, hi] (widened by `slack` for rounded working sets). With 4 or more points, an
// end that borders a fall is left out: it sits on the slope.
LevelFigure best_point(const KernelSweep& k, const std::string& level, uint64_t lo, uint64_t hi, double slack,
                       bool trim_first, bool trim_last) {
  std::vector<const BwSample*> in;
  for (const BwSample& p : k.points) {
    auto w = static_cast<double>(p.working_set_bytes);
    if (p.gbps > 0 && w * slack >= static_cast<double>(lo) && w <= static_cast<double>(hi) * slack) in.push_back(&p);
  }
  size_t first = 0, last = in.size();
  if (in.size() >= 4) first += trim_first ? 1 : 0, last -= trim_last ? 1 : 0;
  LevelFigure f{level, k.kernel, 0, 0};
  for (size_t i = first; i < last; ++i)
    if (in[i]->gbps > f.gbps) f.gbps = in[i]->gbps, f.working_set_bytes = in[i]->working_set_bytes;
  return f;
}

bool named(const std::vector<Fall>& falls, size_t j) {
  return std::any_of(falls.begin(), falls.end(), [&](const Fall& f) { return f.reported && f.slot == static_cast<int>(j); });
}

// Beyond the last fall: DRAM when the sweep ends flat there, with at least two points beyond 4x the last cache.
// That cache's capacity: its reported size when that named the fall, else twice where the fall began (a cache
// starts losing a cyclic sweep up to a factor of 2 before its capacity, see agrees). DRAM starts there, not at the
// fall: between the two, a share of the arrays still sits in the cache (this VM, 1 thread: 63-70 GB/s at 64 MiB,
// 2x its L3; 43-45 from 256 MiB on). A last plateau the curve falls from again is a cache whose successor the
// sweep has not reached; one that ends flat but too soon could be either, and is not named.
void add_tail(SweepLevels& out, const Curve& c, const Plateau& tail, const Fall* last_fall, uint64_t start,
              const std::vector<uint64_t>& reported, int slots) {
  bool ends_flat = tail.last + 2 >= c.ws.size();
  if (!ends_flat) {
    int next_slot = last_fall ? last_fall->slot + 1 : 0;
    if (next_slot < slots)
      out.levels.push_back({cache_level_name(next_slot + 1, next_slot + 1), start, c.ws[tail.last], 0});
    return;
  }
  if (!last_fall) return;  // one plateau alone: nothing says which level it is
  const uint64_t cache =
      cache_capacity(last_fall->lo, last_fall->reported ? reported[static_cast<size_t>(last_fall->slot)] : 0);
  // Strictly beyond 4x (a working set rounded to whole blocks may sit 1% either side of it): a layer of exactly 4x
  // still meets the cache's roof (analysis/roofline.cpp), so a point there is no DRAM figure either (this VM at
  // 2 threads: 66 GB/s at 128 MiB, 4x its L3, against 36-40 from 256 MiB on).
  const auto past = static_cast<double>(4 * cache) * 1.01;
  size_t at = tail.first;
  while (at < c.ws.size() && static_cast<double>(c.ws[at]) <= past) ++at;
  if (at + 1 >= c.ws.size()) return;
  out.levels.push_back({"DRAM", c.ws[at], c.ws.back(), 0});
  out.dram = true;
}

// Each kernel's best point inside each level's plateau; `slack` (half a sweep step) admits working sets rounded
// to whole blocks of elements.
void add_figures(SweepLevels& out, const std::vector<KernelSweep>& sweeps, const Curve& c) {
  double slack = c.ws.size() > 1 ? std::pow(static_cast<double>(c.ws.back()) / static_cast<double>(c.ws.front()),
                                            0.5 / static_cast<double>(c.ws.size() - 1))
                                  : 1.0;
  for (size_t i = 0; i < out.levels.size(); ++i) {
    const FoundLevel& l = out.levels[i];
    bool dram = l.level == "DRAM";  // starts 4x beyond the last cache, not at a fall: no slope to trim
    for (const KernelSweep& k : sweeps) {
      LevelFigure f = best_point(k, l.level, l.first_bytes, l.last_bytes, slack, i > 0 && !dram, !dram);
      if (f.gbps > 0) out.figures.push_back(f);
    }
  }
}

// One thread count's sweep as read so far: the combined curve, its plateaus and the falls between them.
struct Reading {
  Curve c;
  std::vector<Plateau> plats;
  std::vector<Fall> falls;
  int slots = 0;  // level names available: L1..L3, or L4 when one is reported
};

Reading read_sweep(const ThreadCountSweep& s, const PlateauOptions& opts) {
  Reading r;
  r.c = combine(s.kernels);
  if (!r.c.ws.empty()) r.plats = find_plateaus(r.c.ws, r.c.value, opts);
  for (size_t k = 0; k + 1 < r.plats.size(); ++k)
    r.falls.push_back({r.c.ws[r.plats[k].last], r.c.ws[r.plats[k + 1].first],
                       r.plats[k].height / r.plats[k + 1].height});
  r.slots = std::min(4, std::max(3, static_cast<int>(s.reported.size())));
  name_falls(r.falls, s.reported, r.slots, s.reported_measured);
  return r;
}

std::vector<Fall*> kept_falls(Reading& r) {
  std::vector<Fall*> kept;
  for (Fall& f : r.falls)
    if (f.slot >= 0) kept.push_back(&f);
  return kept;
}

// Every increasing sequence of `n` levels out of `slots`, lowest first.
void each_sequence(int n, int slots, std::vector<int>& seq, const std::function<void(const std::vector<int>&)>& f) {
  if (static_cast<int>(seq.size()) == n) return f(seq);
  for (int s = seq.empty() ? 0 : seq.back() + 1; s + (n - static_cast<int>(seq.size())) <= slots; ++s) {
    seq.push_back(s);
    each_sequence(n, slots, seq, f);
    seq.pop_back();
  }
}

// The same names at every thread count where the sweeps show the same levels. Thread counts that keep as many
// falls show the same caches (a private cache's plateau moves with the threads, a shared one's stays; neither
// appears or vanishes), so their falls end the same sequence of levels: the one the most reported sizes agree with
// over all of them (ties: the lowest levels, as at one thread count). Alone, each thread count's agreements decide,
// and a reported size near the edge of its factor of 2 flips with the load: issue 39's 2-core Zen-1 EPYC, whose L1
// and L2 read alike, called its first level "L2" at 1 thread (the test's 1 MiB "L2" agreed) and "L1" at 2.
void agree_across_thread_counts(std::vector<Reading>& rs, const std::vector<ThreadCountSweep>& counts) {
  std::vector<bool> done(rs.size(), false);
  for (size_t a = 0; a < rs.size(); ++a) {
    if (done[a]) continue;
    std::vector<size_t> group;
    const size_t n = kept_falls(rs[a]).size();
    for (size_t b = a; b < rs.size(); ++b)
      if (!done[b] && rs[b].slots == rs[a].slots && kept_falls(rs[b]).size() == n) group.push_back(b), done[b] = true;
    if (group.size() < 2 || n == 0) continue;
    auto agreements = [&](const std::vector<int>& seq) {
      int sum = 0;
      for (size_t g : group) {
        std::vector<Fall*> kept = kept_falls(rs[g]);
        const std::vector<uint64_t>& reported = counts[g].reported;
        for (size_t i = 0; i < n; ++i) {
          auto slot = static_cast<size_t>(seq[i]);
          sum += slot < reported.size() && agrees(*kept[i], reported[slot]);
        }
      }
      return sum;
    };
    std::vector<int> seq, best;
    int most = -1;
    each_sequence(static_cast<int>(n), rs[a].slots, seq, [&](const std::vector<int>& s) {
      if (int got = agreements(s); got > most) most = got, best = s;
    });
    for (size_t g : group) {
      std::vector<Fall*> kept = kept_falls(rs[g]);
      const std::vector<uint64_t>& reported = counts[g].reported;
      for (size_t i = 0; i < n; ++i) {
        auto slot = static_cast<size_t>(best[i]);
        kept[i]->slot = best[i];
        kept[i]->reported = slot < reported.size() && agrees(*kept[i], reported[slot]);
      }
    }
  }
}

// "L1 32 KiB and L2 512 KiB read alike: one level, L1+L2" (sizes as reported, where reported).
std::string shared_plateau(const std::string& name, int first, int last, const std::vector<uint64_t>& reported) {
  std::string caches;
  for (int k = first; k <= last; ++k) {
    caches += k == first ? "" : k == last ? " and " : ", ";
    caches += "L" + std::to_string(k + 1);
    if (static_cast<size_t>(k) < reported.size()) caches += " " + binary_bytes(reported[static_cast<size_t>(k)]);
  }
  return caches + " read alike: one level, " + name;
}

// The levels a reading shows: a cache level per named fall (after the caches its plateau spans: a level the sweep
// cannot tell from the next one shares its plateau, "L1+L2"), then the tail (a cache or DRAM), their figures, and
// the reported sizes no level owns.
SweepLevels levels_of(const Reading& r, const ThreadCountSweep& s) {
  SweepLevels out;
  if (r.plats.empty()) return out;
  const std::vector<uint64_t>& reported = s.reported;
  uint64_t start = r.c.ws[r.plats.front().first];
  const Fall* last_fall = nullptr;
  for (const Fall& f : r.falls) {
    if (f.slot < 0) continue;
    int first = last_fall ? last_fall->slot + 1 : 0;
    out.levels.push_back({cache_level_name(first + 1, f.slot + 1), start, f.lo,
                          f.reported ? reported[static_cast<size_t>(f.slot)] : 0});
    if (first < f.slot) out.shared.push_back(shared_plateau(out.levels.back().level, first, f.slot, reported));
    start = f.hi;
    last_fall = &f;
  }
  add_tail(out, r.c, r.plats.back(), last_fall, start, reported, r.slots);
  add_figures(out, s.kernels, r.c);
  for (size_t j = 0; j < reported.size(); ++j) {
    // A reported cache inside a shared plateau ("L1" of "L1+L2") has its level; it only has no fall of its own.
    if (named(r.falls, j) || (last_fall && static_cast<int>(j) < last_fall->slot)) continue;
    out.disagreements.push_back("L" + std::to_string(j + 1) + " " + binary_bytes(reported[j]));
    // Beyond the last cache found and not passed 4x: maybe misreported, maybe a cache whose fall lies further out.
    if ((!last_fall || reported[j] > last_fall->lo) && 4 * reported[j] > r.c.ws.back())
      out.unconfirmed_bytes = std::max(out.unconfirmed_bytes, reported[j]);
  }
  return out;
}

}  // namespace

std::vector<SweepLevels> find_levels_by_thread_count(const std::vector<ThreadCountSweep>& counts,
                                                     const PlateauOptions& opts) {
  std::vector<Reading> rs;
  for (const ThreadCountSweep& s : counts) rs.push_back(read_sweep(s, opts));
  agree_across_thread_counts(rs, counts);
  std::vector<SweepLevels> out;
  for (size_t i = 0; i < counts.size(); ++i) out.push_back(levels_of(rs[i], counts[i]));
  return out;
}

SweepLevels find_levels(const std::vector<KernelSweep>& sweeps, const std::vector<uint64_t>& reported,
                        const PlateauOptions& opts) {
  return find_levels_by_thread_count({{sweeps, reported}}, opts).front();
}

}  // namespace rooflens::hw
