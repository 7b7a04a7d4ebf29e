#pragma once
// The Pareto front of points where more is better on both axes, and its knee — a throughput/latency trade-off's
// shape (AIPerf's sweep: tokens/s of the machine against tokens/s per user).
//   front: the points no other point matches or beats on both axes and beats on one;
//   knee:  on the front scaled to [0, 1] on each axis over its own range, the point farthest from the line joining
//          its two ends (the chord) — Kneedle's definition (Satopää et al., 2011), where giving up a little of one
//          axis stops buying much of the other. None for a front of fewer than three points.
#include <cstddef>
#include <optional>
#include <vector>

namespace rooflens::stats {

struct ParetoPoint {
  double x = 0, y = 0;
};

// Indices of the front, by x ascending (ties: the first given).
std::vector<size_t> pareto_front(const std::vector<ParetoPoint>& points);

// The knee's index into `points`, given the front pareto_front() returned.
std::optional<size_t> pareto_knee(const std::vector<ParetoPoint>& points, const std::vector<size_t>& front);

}  // namespace rooflens::stats
