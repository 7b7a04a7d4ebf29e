// `make bench`, serving part: `rooflens capacity` on a decoder (issue 40's two bench acceptances).
//
//   1. The harness at a fixed batch: 8 requests of 64 tokens in / 33 out offered at once (offline, --max-batch 8,
//      separate prefill), so after the 8 prefills every decode step carries the same 8 rows; decode tokens/s of the
//      server = the tokens the requests received after the last one's first token, over the time from that token to
//      the end (from --queries: every token's time). Against `node perf/generate/bare_generate.mjs --batch 8 --prompt
//      64 --gen 32` (a plain onnxruntime-node loop over the same batched decode steps, same session options). R
//      alternated rounds on the zoo gpt2 and llama (full size, KV cache, 2 intra-op threads); median over rounds;
//      target ratio >= 0.95. The scheduler's own time per step (serving.scheduler_s / steps) is shown.
//   2. Predicted against measured peak: `--find-peak` on the server scenario at two of MLPerf's LLM presets (p99;
//      64 in / 16 out, 459 requests a point: the fewest early stopping allows at p99 with none over a limit), the
//      predicted peak (the same search on the simulation, from calibration constants timed in a runner of their own)
//      beside the live one; goal within 15%.
//
// Environment: ROOFLENS_BENCH_ROUNDS (part 1, default 5), ROOFLENS_SERVING_PARTS ("1", "2" or "1,2", default both),
// ROOFLENS_SERVING_MODELS (part 2, default "llama"; "gpt2,llama" for both), ROOFLENS_SERVING_PRESETS (part 2, default
// "llama2-70b,llama3.1-405b": presets whose peak a 2-core machine reaches at about a request a second, so a point
// takes minutes; llama3.1-8b's 100 ms TPOT puts the zoo llama's peak near 0.2 requests/s, 36 minutes a point),
// ROOFLENS_SERVING_BUDGET_S (part 2: no search point starts after it, default 3600), ROOFLENS_BENCH_KEEP=1.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "zoo/registry.h"
#include "zoo/save.h"

#include "../common/bench_util.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace bench_util;

constexpr double kHarnessTarget = 0.95, kPredictionGoal = 0.15;

struct Paths {
  fs::path rooflens, bare, ort_package, tmp, err;
};

// Runs `cmd` (exit 0, or 1 when `invalid_ok`: an INVALID verdict still wrote its report); its stdout, and how many CPUs
// other processes kept busy meanwhile. Exits on failure.
std::string measured(const Paths& p, const std::string& cmd, double& others_cpus, bool invalid_ok = false) {
  const double busy0 = machine_busy_s(), ours0 = children_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  int rc = 0;
  std::string out = capture(cmd, p.err, rc);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double others = (machine_busy_s() - busy0) - (children_cpu_s() - ours0);
  others_cpus = wall > 0 ? std::max(0.0, others / wall) : 0;
  if (!(rc == 0 || (invalid_ok && rc == 1))) {
    std::fprintf(stderr, "bench_serving: failed (exit %d): %s\n%s\n", rc, cmd.c_str(), slurp(p.err).c_str());
    std::exit(1);
  }
  return out;
}

// Decode tokens/s once every request is decoding: the tokens after the last first token, over the time to the end.
double steady_decode_tokens_per_s(const fs::path& queries) {
  std::ifstream in(queries);
  std::vector<json> rows;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(json::parse(line));
  double start = 0, end = 0;
  for (const auto& r : rows) {
    start = std::max(start, r["first_token_ms"].get<double>());
    end = std::max(end, r["end_ms"].get<double>());
  }
  int64_t tokens = 0;
  for (const auto& r : rows)
    for (const auto& t : r["token_ms"]) tokens += t.get<double>() > start;
  return end > start ? static_cast<double>(tokens) * 1000 / (end - start) : 0;
}

fs::path zoo_decoder(const Paths& p, const std::string& name) {
  const fs::path model = p.tmp / (name + "-kv.onnx");
  if (fs::exists(model)) return model;
  rooflens::zoo::ZooOptions o;
  o.kv_cache = true;
  auto built = rooflens::zoo::make_model(rooflens::zoo::find_model(name), o);
  rooflens::zoo::save_model(built.model, model, false);
  return model;
}

bool harness_part(const Paths& p, int rounds) {
  std::printf("Part 1. The server at a fixed batch of 8 against a bare onnxruntime-node loop of the same batched decode\n"
              "steps: 64 tokens in, 32 decode steps, 2 threads, %d alternated rounds; decode tokens/s, median over rounds\n\n",
              rounds);
  std::fflush(stdout);
  rooflens::TextTable table;
  table.columns = {{"model"},        {"server t/s", true}, {"bare ORT t/s", true}, {"ratio", true},
                   {"target", true}, {"", false},          {"scheduler ms/step", true}, {"others' CPUs", true}};
  bool all_ok = true;
  for (const std::string name : {"gpt2", "llama"}) {
    const fs::path model = zoo_decoder(p, name), queries = p.tmp / "queries.jsonl", report = p.tmp / "serving.json";
    const std::string ours = quote(p.rooflens.string()) + " capacity " + quote(model.string()) +
                             " --scenario offline --requests 8 --max-batch 8 --input-tokens 64 --output-tokens 33 "
                             "--threads 2 --no-predict --no-roofs --no-db -q --queries " + quote(queries.string()) +
                             " -o " + quote(report.string());
    const std::string theirs = "node " + quote(p.bare.string()) + " --ort-package " + quote(p.ort_package.string()) +
                               " --model " + quote(model.string()) +
                               " --batch 8 --prompt 64 --gen 32 --threads 2 --warmup 1 --requests 1";
    std::vector<double> a, b, sched, others;
    for (int i = 0; i < rounds; ++i) {
      double oa = 0, ob = 0;
      auto run_ours = [&] {
        measured(p, ours, oa);
        a.push_back(steady_decode_tokens_per_s(queries));
        const json s = json::parse(slurp(report))["serving"];
        sched.push_back(s["scheduler_s"].get<double>() * 1000 / std::max<double>(1, s["steps"].get<double>()));
      };
      auto run_theirs = [&] { b.push_back(json::parse(measured(p, theirs, ob))["decode_tokens_per_s"].get<double>()); };
      if (i % 2 == 0) run_ours(), run_theirs();
      else run_theirs(), run_ours();
      others.push_back(oa);
      others.push_back(ob);
      std::fprintf(stderr, "bench_serving: %s round %d/%d: server %.2f t/s, bare %.2f t/s\n", name.c_str(), i + 1,
                   rounds, a.back(), b.back());
    }
    const double ratio = median(a) / median(b);
    const bool ok = ratio >= kHarnessTarget;
    all_ok = all_ok && ok;
    table.rows.push_back({name + " --kv-cache", fmt::format("{:.2f}", median(a)), fmt::format("{:.2f}", median(b)),
                          fmt::format("{:.3f}", ratio), fmt::format(">= {:.2f}", kHarnessTarget), ok ? "ok" : "MISS",
                          fmt::format("{:.3f}", median(sched)), fmt::format("{:.2f}", median(others))});
  }
  std::printf("%s\n", table.render().c_str());
  std::fflush(stdout);
  return all_ok;
}

bool prediction_part(const Paths& p, const std::vector<std::string>& models, const std::vector<std::string>& presets) {
  // No point starts after this many seconds of a search: a point of 459 requests at a low peak takes half an hour.
  const std::string budget = fmt::format("{:g}s", env_number("ROOFLENS_SERVING_BUDGET_S", 3600));  // a bare number is ms
  std::printf("Part 2. Predicted against measured peak: --find-peak, server scenario, MLPerf presets at p99, 64 in / 16\n"
              "out, 459 requests a point, 2 threads, max batch 8; goal: the predicted peak within %.0f%% of the measured\n\n",
              kPredictionGoal * 100);
  std::fflush(stdout);
  rooflens::TextTable table;
  table.columns = {{"model"},          {"preset"},           {"measured peak req/s", true}, {"bracket", true},
                   {"predicted", true}, {"error", true},     {"", false},                    {"points", true},
                   {"minutes", true},  {"others' CPUs", true}};
  bool all_ok = true;
  for (const std::string& name : models) {
    const fs::path model = zoo_decoder(p, name);
    for (const std::string& preset : presets) {
      const fs::path report = p.tmp / "peak.json";
      const std::string cmd = quote(p.rooflens.string()) + " capacity " + quote(model.string()) +
                              " --scenario server --qps 1 --find-peak --slo " + preset +
                              " --requests 459 --input-tokens 64 --output-tokens 16 --threads 2 --max-batch 8 "
                              "--budget " + budget + " --no-roofs --no-db -q -o " + quote(report.string());
      double others = 0;
      const auto t0 = std::chrono::steady_clock::now();
      measured(p, cmd, others, true);
      const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60;
      const json s = json::parse(slurp(report))["serving_search"];
      const double peak = s["peak"].get<double>(), predicted = s["predicted_peak"].get<double>();
      const double error = peak > 0 ? (predicted - peak) / peak : 0;
      // A search stopped by its budget has not located the peak: the bracket says where it lies.
      const bool converged = s["converged"].get<bool>();
      const double upper = s["upper"].get<double>();
      // A search the budget stopped still judges the prediction when it is within the goal of every rate the bracket
      // [lower, upper) holds: wherever the peak lies in it, the error is within the goal.
      const bool bracketed = !converged && peak > 0 && upper > 0 && predicted > 0 &&
                             std::abs((predicted - peak) / peak) <= kPredictionGoal &&
                             std::abs((predicted - upper) / upper) <= kPredictionGoal;
      const bool ok = (converged || bracketed) && peak > 0 && predicted > 0 && std::abs(error) <= kPredictionGoal;
      all_ok = all_ok && ok;
      table.rows.push_back({name, preset, peak > 0 ? fmt::format("{:.3g}", peak) : "none VALID",
                            fmt::format("{:.3g}-{}", s["lower"].get<double>(), upper > 0 ? fmt::format("{:.3g}", upper) : "?"),
                            predicted > 0 ? fmt::format("{:.3g}", predicted) : "-",
                            peak > 0 ? fmt::format("{:+.0f}%", error * 100) : "-",
                            ok ? (converged ? "ok" : "ok (bracket)") : converged ? "MISS" : "unresolved",
                            std::to_string(s["runs"].size()),
                            fmt::format("{:.1f}", minutes), fmt::format("{:.2f}", others)});
      if (!converged)
        std::printf("%s %s: the search stopped before it converged: %s\n", name.c_str(), preset.c_str(),
                    s["stopped"].get<std::string>().c_str());
      std::fprintf(stderr, "bench_serving: %s %s: peak %.3g, predicted %.3g (%.1f min)\n", name.c_str(), preset.c_str(), peak,
                   predicted, minutes);
    }
  }
  std::printf("%s\n", table.render().c_str());
  std::fflush(stdout);
  return all_ok;
}

std::vector<std::string> list_of(const char* env, const std::string& fallback) {
  const char* v = std::getenv(env);
  std::string text = v && *v ? v : fallback;
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main() {
  const fs::path src = ROOFLENS_SOURCE_DIR;
  Paths p;
  p.rooflens = fs::read_symlink("/proc/self/exe").parent_path() / "rooflens";
  p.bare = src / "perf" / "generate" / "bare_generate.mjs";
  p.ort_package = src / "runners" / "ort" / "package.json";
  if (!fs::exists(p.rooflens) || !fs::exists(src / "runners" / "ort" / "node_modules" / "onnxruntime-node")) {
    std::fprintf(stderr, "bench_serving: need %s and onnxruntime-node in runners/ort (make deps)\n", p.rooflens.c_str());
    return 1;
  }
  p.tmp = fs::temp_directory_path() / ("rooflens-bench-serving-" + std::to_string(::getpid()));
  fs::create_directories(p.tmp);
  p.err = p.tmp / "stderr.txt";
  // The calibration cache of the runs (the prediction's constants) lives in the bench's own directory: measured
  // once here, in processes of their own, and reused by the second preset.
  ::setenv("XDG_CACHE_HOME", (p.tmp / "cache").c_str(), 1);
  const std::vector<std::string> parts = list_of("ROOFLENS_SERVING_PARTS", "1,2");
  const auto has = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
  bool ok = true;
  if (has("1")) ok = harness_part(p, std::max(1, static_cast<int>(env_number("ROOFLENS_BENCH_ROUNDS", 5)))) && ok;
  if (has("2"))
    ok = prediction_part(p, list_of("ROOFLENS_SERVING_MODELS", "llama"),
                         list_of("ROOFLENS_SERVING_PRESETS", "llama2-70b,llama3.1-405b")) && ok;
  std::printf("\"others' CPUs\" is how many of this machine's %ld CPUs other processes kept busy during the runs\n"
              "(median over runs); re-run on a quiet machine when it is high.\n",
              ::sysconf(_SC_NPROCESSORS_ONLN));
  if (!std::getenv("ROOFLENS_BENCH_KEEP")) fs::remove_all(p.tmp);
  return ok ? 0 : 1;
}
