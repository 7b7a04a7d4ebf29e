#include "score/projection_workloads.h"

#include <system_error>

#include "score/kind.h"

namespace rooflens::score {

std::vector<ProjectionWorkload> projection_workloads(const Suite& suite, const ScoreOptions& o,
                                                     const std::filesystem::path& dir, int64_t cores) {
  std::vector<ProjectionWorkload> out;
  for (const score::WorkloadDef* def : score::selected(suite, o)) {
    ProjectionWorkload w;
    w.id = def->id;
    w.model = def->model;
    w.precision = def->precision;
    std::vector<score::FigureWork> work;
    if (def->precision != "fp32" && def->precision != "int8") {
      w.not_projected = "precision " + def->precision + " is not built (never silently converted)";
      w.unsupported = true;
    } else {
      const std::filesystem::path model = score::build_model(*def, dir);
      work = score::kind_of(def->kind).work(*def, model);
      std::error_code ec;
      std::filesystem::remove(model, ec);
    }
    for (const auto& metric : score::metrics_of(*def)) {
      ProjectionFigure f;
      f.metric = metric;
      f.category = score::category_of(*def, metric);
      f.unit = score::unit_of(metric);
      f.threads = cores;
      for (const auto& x : work)
        if (x.metric == metric) {
          f.nodes = projected_work(x.pass, def->precision);
          f.units_per_pass = x.units_per_pass;
        }
      if (const score::FigureReference* ref = score::reference_of(*def, o.quick, metric)) f.reference_time_ms = ref->time_ms;
      w.figures.push_back(std::move(f));
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace rooflens::score
