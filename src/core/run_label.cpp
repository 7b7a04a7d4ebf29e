#include "core/report.h"

namespace rooflens {

std::string run_label(int64_t batch, const std::map<std::string, int64_t>& dims, int64_t threads) {
  std::string s = "batch=" + std::to_string(batch);
  for (const auto& [k, v] : dims)
    if (v != batch || k.find("batch") == std::string::npos) s += " " + k + "=" + std::to_string(v);
  if (threads > 0) s += " threads=" + std::to_string(threads);
  return s;
}

std::string run_label(const ProfileRun& run) { return run_label(run.batch, run.dims, run.threads); }

}  // namespace rooflens
