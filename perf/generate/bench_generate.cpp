// `make bench`, part 6: what `rooflens generate` adds to ONNX Runtime's own decode speed (issue 17's acceptance:
// decode tokens/s within 3% of a bare onnxruntime-node generation loop). For the zoo's gpt2 and llama with a KV cache
// (full size: 124 M and 134.5 M parameters), prompt 128, 32 decode steps, batch 1, 2 intra-op threads, alternate R
// rounds of
//   rooflens generate M --prompt 128 --gen 32 --threads 2 --no-layers --no-roofs -q --warmup 1 --requests N --json
//     (generation.runs[0].decode_tokens_per_s: the loop in runners/ort/generate.mjs), and
//   node perf/generate/bare_generate.mjs (a plain greedy loop with the same inference session options, shapes and
//     requests),
// swapping which goes first every round. Each side's figure is the median over rounds of its per-run decode tokens/s
// (mean over requests); ratio = rooflens / bare (target >= 0.97). Like part 3, each run records how many CPUs other
// processes kept busy meanwhile ("others' CPUs"): near the core count, both sides were starved and the ratio is noise.
// Environment: ROOFLENS_BENCH_ROUNDS (default 5), ROOFLENS_BENCH_REQUESTS (per run, default 5), ROOFLENS_BENCH_KEEP=1.
#include <sys/resource.h>
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

constexpr double kTarget = 0.97;

struct Sample {
  double tps = 0, tpot = 0, others_cpus = 0;
};

// Runs `cmd`; returns its stdout and how many CPUs other processes kept busy meanwhile. Exits on failure.
std::string measured(const std::string& cmd, const fs::path& err, double& others_cpus, const fs::path& tmp) {
  const double busy0 = machine_busy_s(), ours0 = children_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen((cmd + " 2>" + quote(err.string())).c_str(), "r");
  std::string out;
  int status = -1;
  if (p) {
    char buf[1 << 14];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = pclose(p);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double others = (machine_busy_s() - busy0) - (children_cpu_s() - ours0);
  others_cpus = wall > 0 ? std::max(0.0, others / wall) : 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_generate: failed: %s\n%s\n", cmd.c_str(), slurp(err).c_str());
    fs::remove_all(tmp);
    std::exit(1);
  }
  return out;
}

}  // namespace

int main() {
  const int rounds = std::max(1, static_cast<int>(env_number("ROOFLENS_BENCH_ROUNDS", 5)));
  const int requests = std::max(1, static_cast<int>(env_number("ROOFLENS_BENCH_REQUESTS", 5)));
  const fs::path src = ROOFLENS_SOURCE_DIR;
  const fs::path rooflens = fs::read_symlink("/proc/self/exe").parent_path() / "rooflens";
  const fs::path bare = src / "perf" / "generate" / "bare_generate.mjs";
  const fs::path ort_package = src / "runners" / "ort" / "package.json";
  if (!fs::exists(rooflens) || !fs::exists(src / "runners" / "ort" / "node_modules" / "onnxruntime-node")) {
    std::fprintf(stderr, "bench_generate: need %s and onnxruntime-node in runners/ort (make deps)\n", rooflens.c_str());
    return 1;
  }
  const fs::path tmp = fs::temp_directory_path() / ("rooflens-bench-generate-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const fs::path err = tmp / "stderr.txt";
  const std::string shape = fmt::format("--prompt 128 --gen 32 --threads 2 --warmup 1 --requests {}", requests);

  std::printf("rooflens generate vs a bare onnxruntime-node generation loop: prompt 128, 32 decode steps, batch 1,\n"
              "2 threads, 1 warm-up + %d requests per run, %d alternated rounds; decode tokens/s, median over rounds\n\n",
              requests, rounds);
  std::fflush(stdout);
  rooflens::TextTable table;
  table.columns = {{"model"},        {"rooflens t/s", true}, {"bare ORT t/s", true}, {"ratio", true},
                   {"target", true}, {"", false},            {"TPOT ms (rooflens / bare)", true},
                   {"others' CPUs", true}};
  bool all_ok = true;
  for (const char* name : {"gpt2", "llama"}) {
    const fs::path model = tmp / (std::string(name) + "-kv.onnx");
    rooflens::zoo::ZooOptions o;
    o.kv_cache = true;
    auto built = rooflens::zoo::make_model(rooflens::zoo::find_model(name), o);
    rooflens::zoo::save_model(built.model, model, false);
    const std::string ours = quote(rooflens.string()) + " generate " + quote(model.string()) + " " + shape +
                             " --no-layers --no-roofs -q --json";
    const std::string theirs = "node " + quote(bare.string()) + " --ort-package " + quote(ort_package.string()) +
                               " --model " + quote(model.string()) +
                               fmt::format(" --prompt 128 --gen 32 --threads 2 --warmup 1 --requests {}", requests);
    auto run_ours = [&]() {
      Sample s;
      const json r = json::parse(measured(ours, err, s.others_cpus, tmp));
      const json& run = r["generation"]["runs"][0];
      s.tps = run["decode_tokens_per_s"].get<double>();
      s.tpot = run["tpot_ms"]["median"].get<double>();
      return s;
    };
    auto run_theirs = [&]() {
      Sample s;
      const json r = json::parse(measured(theirs, err, s.others_cpus, tmp));
      s.tps = r["decode_tokens_per_s"].get<double>();
      s.tpot = r["tpot_ms"].get<double>();
      return s;
    };
    std::vector<double> a_tps, b_tps, a_tpot, b_tpot, others;
    for (int i = 0; i < rounds; ++i) {
      Sample a, b;
      if (i % 2 == 0) {
        a = run_ours();
        b = run_theirs();
      } else {
        b = run_theirs();
        a = run_ours();
      }
      a_tps.push_back(a.tps);
      b_tps.push_back(b.tps);
      a_tpot.push_back(a.tpot);
      b_tpot.push_back(b.tpot);
      others.push_back(a.others_cpus);
      others.push_back(b.others_cpus);
      std::fprintf(stderr, "bench_generate: %s round %d/%d: rooflens %.2f t/s (TPOT %.2f ms, others' CPUs %.2f), "
                   "bare %.2f t/s (TPOT %.2f ms, others' CPUs %.2f)\n", name, i + 1, rounds, a.tps, a.tpot,
                   a.others_cpus, b.tps, b.tpot, b.others_cpus);
    }
    const double ratio = median(a_tps) / median(b_tps);
    const bool ok = ratio >= kTarget;
    all_ok = all_ok && ok;
    table.rows.push_back({std::string(name) + " --kv-cache", fmt::format("{:.2f}", median(a_tps)),
                          fmt::format("{:.2f}", median(b_tps)), fmt::format("{:.3f}", ratio),
                          fmt::format(">= {:.2f}", kTarget), ok ? "ok" : "MISS",
                          fmt::format("{:.2f} / {:.2f}", median(a_tpot), median(b_tpot)),
                          fmt::format("{:.2f}", median(others))});
    fs::remove(model);
  }
  std::printf("%s\n", table.render().c_str());
  std::printf("Each figure is the median over rounds. \"others' CPUs\" is how many of this machine's %ld CPUs other\n"
              "processes kept busy during the runs (median over runs); re-run on a quiet machine when it is high.\n",
              ::sysconf(_SC_NPROCESSORS_ONLN));
  std::fflush(stdout);
  if (!std::getenv("ROOFLENS_BENCH_KEEP")) fs::remove_all(tmp);
  return all_ok ? 0 : 1;
}
