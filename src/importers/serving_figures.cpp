#include "importers/serving_figures.h"

#include "importers/importer.h"

namespace rooflens::importers {

void give(const GivenFigures& g, int64_t n, const std::string& metric, ServingDistribution& out,
          std::vector<std::string>& not_given) {
  if (!g.any()) {
    not_given.push_back(metric);
    return;
  }
  out.n = n;
  auto put = [&](const std::optional<double>& v, double& to, const char* name) {
    if (v) to = *v;
    else not_given.push_back(metric + "." + name);
  };
  put(g.mean, out.mean, "mean");
  put(g.p50, out.p50, "p50");
  put(g.p90, out.p90, "p90");
  put(g.p95, out.p95, "p95");
  put(g.p99, out.p99, "p99");
  put(g.max, out.max, "max");
}

Imported imported_serving(ServingResult run, const std::string& tool, const std::string& version,
                          const std::string& model, std::vector<std::string> read) {
  Imported out;
  out.backend.name = tool;
  out.backend.version = version;
  out.backend.runtime = tool + (version.empty() ? "" : " " + version);
  out.model_path = model;
  out.read = std::move(read);
  run.measured_by = out.backend.runtime;
  out.serving = std::move(run);
  return out;
}

}  // namespace rooflens::importers
