#include "bench/results_csv.h"

#include <fmt/format.h>

#include "core/text_table.h"

namespace rooflens::bench {
namespace {

// Shortest text that reads back as the same double.
std::string num(double v) { return fmt::format("{}", v); }

std::vector<std::vector<std::string>> status_rows(const BenchEntry& e) {
  return {{e.model, e.config, e.status, e.stage, e.error_type, num(e.wall_s), e.message}};
}

std::vector<std::vector<std::string>> failure_rows(const BenchEntry& e) {
  if (!is_failure(e.status)) return {};
  return {{e.model, e.config, e.status, e.stage, e.error_type, e.message}};
}

std::vector<std::vector<std::string>> latency_rows(const BenchEntry& e) {
  const LatencyStats& l = e.latency_ms;
  // A failing entry has no latency to report, even when an earlier round of --repeat had timed it.
  if (l.n == 0 || e.status != "pass") return {};
  return {{e.model, e.config, std::to_string(l.n), num(l.mean), num(l.median), num(l.p90), num(l.p99), num(l.min),
           num(l.max), num(l.std), num(l.cv), num(e.throughput_per_s), num(e.load_ms), std::to_string(e.peak_rss_bytes)}};
}

std::vector<std::vector<std::string>> metrics_rows(const BenchEntry& e) {
  if (!e.metrics) return {};
  const BenchMetrics& m = *e.metrics;
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : m.providers)
    rows.push_back({e.model, e.config, std::to_string(m.model_nodes), std::to_string(m.kernels), num(m.fused_ratio),
                    p.provider, std::to_string(p.nodes), num(p.time_ms), num(p.time_share)});
  return rows;
}

}  // namespace

bool is_failure(const std::string& status) { return status == "fail" || status == "timeout" || status == "crash"; }

const std::vector<CsvFile>& entry_csv_files() {
  static const std::vector<CsvFile> files{
      {"status.csv", {"model", "config", "status", "stage", "error_type", "wall_s", "message"}, &status_rows},
      {"failures.csv", {"model", "config", "status", "stage", "error_type", "message"}, &failure_rows},
      {"latency.csv",
       {"model", "config", "n", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "min_ms", "max_ms", "std_ms", "cv",
        "throughput_per_s", "load_ms", "peak_rss_bytes"},
       &latency_rows},
      {"metrics.csv",
       {"model", "config", "model_nodes", "kernels", "fused_ratio", "provider", "provider_kernels", "provider_time_ms",
        "provider_time_share"},
       &metrics_rows},
  };
  return files;
}

std::string system_csv(const BenchResults& h) {
  std::vector<std::vector<std::string>> rows{{"rooflens_version", h.tool.version}, {"command", h.tool.command}};
  if (h.system) {
    const MachineDesc& m = *h.system;
    rows.push_back({"cpu", m.model});
    rows.push_back({"cpu_vendor", m.vendor});
    rows.push_back({"sockets", std::to_string(m.sockets)});
    rows.push_back({"cores", std::to_string(m.cores)});
    rows.push_back({"threads", std::to_string(m.threads)});
    rows.push_back({"memory_bytes", std::to_string(m.memory_bytes)});
    rows.push_back({"os", m.os});
    rows.push_back({"kernel", m.kernel});
  }
  for (size_t i = 0; i < h.configs.size(); ++i) {
    const std::string key = "config_" + std::to_string(i + 1);
    rows.push_back({key, h.configs[i].label});
    rows.push_back({key + "_runtime", h.configs[i].backend.runtime});
  }
  rows.push_back({"mode", h.options.mode});
  std::string out = csv_row({"key", "value"});
  for (const auto& r : rows) out += csv_row(r);
  return out;
}

}  // namespace rooflens::bench
