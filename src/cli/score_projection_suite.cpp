#include "cli/score_projection_suite.h"

#include "analysis/analyze.h"
#include "score/kind.h"

namespace rooflens::cli {

std::vector<ProjectionWorkload> projection_workloads(const score::Suite& suite, const score::ScoreOptions& o,
                                                     const std::filesystem::path& dir, int64_t cores) {
  std::vector<ProjectionWorkload> out;
  for (const score::WorkloadDef* def : score::selected(suite, o)) {
    ProjectionWorkload w;
    w.id = def->id;
    w.model = def->model;
    w.precision = def->precision;
    if (def->kind != "served") w.not_projected = "a " + def->kind + " workload's per-token work is not analysed here";
    else if (def->precision != "fp32" && def->precision != "int8")
      w.not_projected = "precision " + def->precision + " is not built (never silently converted)";
    std::vector<ProjectedWork> nodes;
    if (w.not_projected.empty()) nodes = projected_work(analyze_model_file(score::build_model(*def, dir).string()), def->precision);
    for (const auto& metric : score::metrics_of(*def)) {
      ProjectionFigure f;
      f.metric = metric;
      f.category = score::category_of(*def, metric);
      f.unit = metric == "latency" ? "ms" : metric == "throughput" ? "samples/s" : "tokens/s";
      f.nodes = nodes;
      f.threads = cores;
      if (auto it = def->figures.find(metric); it != def->figures.end()) f.reference_time_ms = it->second.time_ms;
      w.figures.push_back(std::move(f));
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace rooflens::cli
