// `make bench`, score part (issues 29, 39): how long `rooflens score --quick` and the full suite take on this
// machine (targets: quick ≤ 120 s, full ≤ 600 s on 2 cores), how wide each run's overall 95% interval is (targets:
// quick within ±5%, full within ±2% — the larger of the two half-widths in log terms), and how stable the overall
// score is over consecutive full runs (target: spread (max − min) / median ≤ 3%). Every run also records how many CPUs other processes kept busy
// meanwhile ("others' CPUs"): near the core count, the machine was shared and the figures are its, not the suite's.
// Environment: ROOFLENS_SCORE_FULL_RUNS (default 3; 0 times quick only), ROOFLENS_BENCH_KEEP=1 keeps the results.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text_table.h"

#include "../common/bench_util.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace bench_util;

namespace {

constexpr double kQuickTargetS = 120, kFullTargetS = 600, kSpreadTarget = 0.03;
constexpr double kQuickCiTarget = 0.05, kFullCiTarget = 0.02;  // the overall's 95% half-width, relative

// The interval's half-width relative to the score: the larger side (the interval is symmetric in log terms).
double half_width(double score, double low, double high) {
  return score > 0 && low > 0 ? std::max(high / score - 1, 1 - low / score) : 0;
}

struct Run {
  std::string label;
  double seconds = 0, others_cpus = 0, overall = 0, low = 0, high = 0;
  bool incomplete = true;
  int rc = -1;
};

Run run_score(const std::string& label, const std::string& args, const fs::path& dir) {
  Run r;
  r.label = label;
  const fs::path out = dir / (label + ".json"), err = dir / (label + ".err");
  const double busy0 = machine_busy_s(), ours0 = children_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  (void)capture(fmt::format("{} score {} -q --json -o {}", ROOFLENS_BINARY, args, quote(out.string())), err, r.rc);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.others_cpus = r.seconds > 0 ? ((machine_busy_s() - busy0) - (children_cpu_s() - ours0)) / r.seconds : 0;
  try {
    const json j = json::parse(slurp(out));
    r.overall = j["overall"]["score"].get<double>();
    r.low = j["overall"]["ci"]["low"].get<double>();
    r.high = j["overall"]["ci"]["high"].get<double>();
    r.incomplete = j["overall"]["incomplete"].get<bool>();
  } catch (const std::exception&) {
    std::fprintf(stderr, "score %s: no result (exit %d): %s\n", label.c_str(), r.rc, slurp(err).c_str());
  }
  return r;
}

}  // namespace

int main() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("rooflens-perf-score-{}", ::getpid());
  fs::create_directories(dir);
  const int full_runs = static_cast<int>(env_number("ROOFLENS_SCORE_FULL_RUNS", 3));
  std::vector<Run> runs{run_score("quick", "--quick", dir)};
  for (int i = 0; i < full_runs; ++i) runs.push_back(run_score(fmt::format("full{}", i + 1), "", dir));

  rooflens::TextTable t;
  t.columns = {{"run"}, {"seconds", true}, {"target s", true}, {"others' CPUs", true}, {"overall", true},
               {"95% CI", true}, {"± half", true}, {"target ±", true}, {"complete"}, {"exit", true}};
  bool ok = true;
  std::vector<double> overall;
  for (const Run& r : runs) {
    const bool quick = r.label == "quick";
    const double target = quick ? kQuickTargetS : kFullTargetS, ci_target = quick ? kQuickCiTarget : kFullCiTarget;
    const double half = half_width(r.overall, r.low, r.high);
    ok = ok && r.seconds <= target && !r.incomplete && r.high > 0 && half <= ci_target;
    if (!quick && r.overall > 0) overall.push_back(r.overall);
    t.rows.push_back({r.label, fmt::format("{:.0f}", r.seconds), fmt::format("{:.0f}", target),
                      fmt::format("{:.2f}", r.others_cpus), fmt::format("{:.0f}", r.overall),
                      r.high > 0 ? fmt::format("[{:.0f}, {:.0f}]", r.low, r.high) : "-",
                      r.high > 0 ? fmt::format("{:.1f}%", half * 100) : "-", fmt::format("{:.0f}%", ci_target * 100),
                      r.incomplete ? "no" : "yes", std::to_string(r.rc)});
  }
  std::printf("rooflens score: time, interval and stability (quick ≤ %.0f s and ±%.0f%%, full ≤ %.0f s and ±%.0f%%, "
              "full-run spread ≤ %.0f%%)\n%s",
              kQuickTargetS, kQuickCiTarget * 100, kFullTargetS, kFullCiTarget * 100, kSpreadTarget * 100,
              t.render().c_str());
  if (overall.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(overall.begin(), overall.end());
    const double spread = (*hi - *lo) / median(overall);
    std::printf("overall score over %zu full runs: %.0f .. %.0f, spread %.1f%% of the median (target ≤ %.0f%%)\n",
                overall.size(), *lo, *hi, spread * 100, kSpreadTarget * 100);
    ok = ok && spread <= kSpreadTarget;
  }
  if (std::getenv("ROOFLENS_BENCH_KEEP")) std::printf("results kept in %s\n", dir.c_str());
  else fs::remove_all(dir);
  return ok ? 0 : 1;
}
