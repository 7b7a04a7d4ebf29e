#include "hw/plateau.h"

#include <algorithm>
#include <cmath>

#include "stats/order.h"

namespace rooflens::hw {
namespace {

// The median of v[first..last].
double median_between(const std::vector<double>& v, size_t first, size_t last) {
  return stats::median_of({v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(last) + 1});
}

bool close(double a, double b, double tol) { return std::abs(std::log(a / b)) <= std::log1p(tol); }

}  // namespace

std::vector<BwSample> upper_envelope(std::vector<BwSample> s) {
  for (size_t i = s.size(); i-- > 1;) s[i - 1].gbps = std::max(s[i - 1].gbps, s[i].gbps);
  return s;
}

std::vector<Plateau> find_plateaus(const std::vector<uint64_t>& ws, const std::vector<double>& values,
                                   const PlateauOptions& opts) {
  std::vector<Plateau> runs;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!runs.empty() && close(values[i], median_between(values, runs.back().first, runs.back().last), opts.tolerance)) {
      runs.back().last = i;
    } else {
      runs.push_back({i, i, 0});
    }
  }
  std::vector<Plateau> kept;
  for (Plateau r : runs) {
    if (static_cast<double>(ws[r.last]) < opts.min_span * static_cast<double>(ws[r.first])) continue;
    r.height = median_between(values, r.first, r.last);
    // A dip (a transition-length run) split one level in two: the halves are adjacent once the dip is dropped.
    if (!kept.empty() && close(kept.back().height, r.height, opts.tolerance)) {
      kept.back().last = r.last;
      kept.back().height = median_between(values, kept.back().first, r.last);
    } else {
      kept.push_back(r);
    }
  }
  return kept;
}

}  // namespace rooflens::hw
