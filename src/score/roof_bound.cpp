#include "score/roof_bound.h"

#include "whatif/score_projection.h"

namespace rooflens::score {

RoofBound roof_bound(const FigureWork& work, const std::string& precision, int64_t threads, const HardwareInfo* roofs) {
  const std::vector<ProjectedWork> nodes = projected_work(work.pass, precision);
  if (roofs) return roofline_bound(nodes, work.units_per_pass, *roofs, threads);
  RoofBound b;
  const double units = work.units_per_pass > 0 ? work.units_per_pass : 1;
  for (const auto& n : nodes) {
    b.flops += n.flops / units;
    b.bytes += n.bytes / units;
  }
  return b;
}

}  // namespace rooflens::score
