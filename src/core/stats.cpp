#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rooflens {

double percentile_nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

double median_of(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

LatencyStats summarize(std::vector<double> s) {
  LatencyStats st;
  st.n = static_cast<int64_t>(s.size());
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.min = s.front();
  st.max = s.back();
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  st.median = median_of(s);
  st.p90 = percentile_nearest_rank(s, 90);
  st.p95 = percentile_nearest_rank(s, 95);
  st.p99 = percentile_nearest_rank(s, 99);
  if (s.size() > 1) {
    double ss = 0;
    for (double x : s) ss += (x - st.mean) * (x - st.mean);
    st.std = std::sqrt(ss / static_cast<double>(s.size() - 1));
  }
  st.cv = st.mean > 0 ? st.std / st.mean : 0;
  return st;
}

}  // namespace rooflens
