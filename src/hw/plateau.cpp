#include "hw/plateau.h"

#include <algorithm>
#include <cmath>

namespace rooflens::hw {
namespace {

struct Run { size_t first, last; };

double median_gbps(const std::vector<BwSample>& s, const Run& r) {
  std::vector<double> v;
  for (size_t i = r.first; i <= r.last; ++i) v.push_back(s[i].gbps);
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool close(double a, double b, double tol) { return std::abs(std::log(a / b)) <= std::log1p(tol); }

std::vector<Run> flat_runs(const std::vector<BwSample>& s, double tol) {
  std::vector<Run> runs;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!runs.empty() && close(s[i].gbps, median_gbps(s, runs.back()), tol)) {
      runs.back().last = i;
    } else {
      runs.push_back({i, i});
    }
  }
  return runs;
}

std::string name_for(const std::vector<BwSample>& s, const Run& r, const std::vector<uint64_t>& caps) {
  double mid = std::sqrt(static_cast<double>(s[r.first].working_set_bytes) *
                         static_cast<double>(s[r.last].working_set_bytes));
  for (size_t k = 0; k < caps.size(); ++k)
    if (mid <= static_cast<double>(caps[k])) return "L" + std::to_string(k + 1);
  return "DRAM";
}

}  // namespace

// Interference (other processes, interrupts) only ever slows a kernel down, and a larger working set is
// never faster than a smaller one, so levels are segmented on the sweep's upper envelope: each point takes
// the best bandwidth measured at its working set or any larger one. Reported figures stay raw measurements.
std::vector<BwSample> upper_envelope(std::vector<BwSample> s) {
  for (size_t i = s.size(); i-- > 1;) s[i - 1].gbps = std::max(s[i - 1].gbps, s[i].gbps);
  return s;
}

std::vector<Plateau> find_plateaus(const std::vector<BwSample>& sweep, const std::vector<uint64_t>& capacities,
                                   const PlateauOptions& opts) {
  const std::vector<BwSample> env = upper_envelope(sweep);
  std::vector<Run> kept;
  for (const Run& r : flat_runs(env, opts.tolerance)) {
    if (r.last - r.first + 1 < opts.min_points) continue;
    // A one-point dip split a level in two: the halves are adjacent once the dip is dropped.
    if (!kept.empty() && close(median_gbps(env, kept.back()), median_gbps(env, r), opts.tolerance)) {
      kept.back().last = r.last;
    } else {
      kept.push_back(r);
    }
  }
  std::vector<Plateau> out;
  for (size_t k = 0; k < kept.size(); ++k) {
    const Run& r = kept[k];
    std::string level = !capacities.empty()          ? name_for(sweep, r, capacities)
                        : (k + 1 == kept.size() && k > 0) ? "DRAM"
                                                          : "L" + std::to_string(k + 1);
    if (!out.empty() && out.back().level == level) {
      // Two runs at different heights inside one cache level: the longer is the level, the other a slope.
      if (r.last - r.first > out.back().last - out.back().first) out.back().first = r.first, out.back().last = r.last;
    } else {
      out.push_back({level, r.first, r.last, 0, 0});
    }
  }
  for (Plateau& p : out) {
    // Edge points sit on the slope into the neighbouring level; the ceiling is the best point inside, and,
    // when cache sizes are known, only a point whose working set really belongs to the level may speak for
    // it (on a noisy machine an L3 point can sink into a DRAM-height run; DRAM needs ≥ 4 x the last cache).
    size_t lo = p.first, hi = p.last;
    if (hi - lo + 1 >= 4) ++lo, --hi;
    auto belongs = [&](uint64_t ws) {
      if (capacities.empty()) return true;
      if (p.level == "DRAM") return ws >= 4 * capacities.back();
      size_t k = static_cast<size_t>(p.level[1] - '1');  // "L1".."L4"
      return ws <= capacities[k] && (k == 0 || ws > capacities[k - 1]);
    };
    for (int pass = 0; pass < 2 && p.working_set_bytes == 0; ++pass)  // pass 1: no point qualified
      for (size_t i = lo; i <= hi; ++i)
        if ((pass == 1 || belongs(sweep[i].working_set_bytes)) && sweep[i].gbps > p.gbps)
          p.gbps = sweep[i].gbps, p.working_set_bytes = sweep[i].working_set_bytes;
  }
  return out;
}

}  // namespace rooflens::hw
