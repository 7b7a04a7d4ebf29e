#include "stats/pareto.h"

#include <algorithm>

namespace rooflens::stats {

std::vector<size_t> pareto_front(const std::vector<ParetoPoint>& points) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i) {
    const ParetoPoint& p = points[i];
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      const ParetoPoint& q = points[j];
      const bool as_good = q.x >= p.x && q.y >= p.y;
      const bool better = q.x > p.x || q.y > p.y;
      // An equal point earlier in the list stands for both.
      dominated = j != i && as_good && (better || j < i);
    }
    if (!dominated) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) { return points[a].x < points[b].x; });
  return front;
}

std::optional<size_t> pareto_knee(const std::vector<ParetoPoint>& points, const std::vector<size_t>& front) {
  if (front.size() < 3) return std::nullopt;
  double x0 = points[front.front()].x, x1 = x0, y0 = points[front.front()].y, y1 = y0;
  for (size_t i : front) {
    x0 = std::min(x0, points[i].x);
    x1 = std::max(x1, points[i].x);
    y0 = std::min(y0, points[i].y);
    y1 = std::max(y1, points[i].y);
  }
  if (!(x1 > x0) || !(y1 > y0)) return std::nullopt;
  // On the scaled front the ends are (0, 1) and (1, 0); a point's distance from that chord grows with x + y.
  std::optional<size_t> knee;
  double best = 0;
  for (size_t k = 1; k + 1 < front.size(); ++k) {
    const ParetoPoint& p = points[front[k]];
    const double lift = (p.x - x0) / (x1 - x0) + (p.y - y0) / (y1 - y0) - 1;
    if (lift > best) {
      best = lift;
      knee = front[k];
    }
  }
  return knee;
}

}  // namespace rooflens::stats
