#include "compare/runtimes.h"

#include "compare/compare.h"
#include "compare/sources.h"

namespace rooflens {
namespace {

// The report as if `backend` alone had run it: its runs and failures, keyed by configuration only, so the same
// configuration on two backends is one item of the comparison.
Report one_backend(const Report& r, const BackendInfo& backend) {
  Report one;
  one.schema = r.schema;
  one.tool = r.tool;
  one.model = r.model;
  one.backends = {backend};
  one.hardware = r.hardware;  // the roofs each backend's layers met (compare/why_slower.h)
  one.partial = r.partial;
  for (const auto& run : r.runs)
    if (run.backend == backend.label) {
      one.runs.push_back(run);
      one.runs.back().backend.clear();
    }
  for (const auto& f : r.failures)
    if (f.backend == backend.label) {
      one.failures.push_back(f);
      one.failures.back().backend.clear();
    }
  return one;
}

}  // namespace

std::vector<Comparison> compare_backends(const Report& r, const CompareOptions& options) {
  std::vector<Comparison> out;
  if (r.backends.size() < 2) return out;
  const CompareSource base = source_from_report(one_backend(r, r.backends[0]), r.backends[0].label);
  for (size_t b = 1; b < r.backends.size(); ++b)
    out.push_back(compare_sources(base, source_from_report(one_backend(r, r.backends[b]), r.backends[b].label), options));
  return out;
}

}  // namespace rooflens
