#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/order.h"

namespace rooflens {

LatencyStats summarize(std::vector<double> s) {
  LatencyStats st;
  st.n = static_cast<int64_t>(s.size());
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.min = s.front();
  st.max = s.back();
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  st.median = stats::median_of(s);
  st.p90 = stats::percentile_nearest_rank(s, 90);
  st.p95 = stats::percentile_nearest_rank(s, 95);
  st.p99 = stats::percentile_nearest_rank(s, 99);
  if (s.size() > 1) {
    double ss = 0;
    for (double x : s) ss += (x - st.mean) * (x - st.mean);
    st.std = std::sqrt(ss / static_cast<double>(s.size() - 1));
  }
  st.cv = st.mean > 0 ? st.std / st.mean : 0;
  return st;
}

}  // namespace rooflens
