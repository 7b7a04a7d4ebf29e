#include "importers/aiperf/aiperf.h"

#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "importers/serving_figures.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

// The metrics: top-level objects (AIPerf from 0.2, GenAI-Perf) or under "records" (AIPerf 0.1), each
// {unit, avg, p50, p90, p95, p99, max, ...}; a metric the run did not produce is absent or null.
struct AiperfMetrics {
  const json& root;
  Where where;
  const json* find(std::initializer_list<const char*> names) const {
    for (const char* n : names)
      if (const json* m = optional_member(root, n); m && !m->is_null()) return m;
    return nullptr;
  }
  // A latency's statistics, in ms (AIPerf exports them so; another unit is refused rather than misread).
  GivenFigures latency(std::initializer_list<const char*> names) const {
    const json* m = find(names);
    if (!m) return {};
    const Where w = where.at(*names.begin());
    object_at(*m, w);
    if (const json* unit = optional_member(*m, "unit"); unit && string_at(*unit, w.at("unit")) != "ms")
      fail(w.at("unit"), "'" + unit->get<std::string>() + "': rooflens reads latencies exported in ms");
    return figures(*m, w);
  }
  // A metric object's statistics (a statistic it lacks stays absent).
  static GivenFigures figures(const json& m, const Where& w) {
    GivenFigures g;
    g.mean = nonneg_member(m, "avg", w);
    g.p50 = nonneg_member(m, "p50", w);
    g.p90 = nonneg_member(m, "p90", w);
    g.p95 = nonneg_member(m, "p95", w);
    g.p99 = nonneg_member(m, "p99", w);
    g.max = nonneg_member(m, "max", w);
    return g;
  }
  std::optional<double> value(std::initializer_list<const char*> names) const {
    const json* m = find(names);
    if (!m) return std::nullopt;
    const Where w = where.at(*names.begin());
    return nonneg_member(object_at(*m, w), "avg", w);
  }
};

// The load, from the run's input_config: loadgen.request_rate (server) or loadgen.concurrency (users).
void aiperf_load(const json& d, const Where& w, ServingSettings& s, std::string& model) {
  s.scenario = "unknown";
  const json* config = optional_member(d, "input_config");
  if (!config || !config->is_object()) return;
  const Where c = w.at("input_config");
  if (const json* endpoint = optional_member(*config, "endpoint"); endpoint && endpoint->is_object())
    if (const json* names = optional_member(*endpoint, "model_names"); names && names->is_array() && !names->empty())
      model = string_at((*names)[0], c.at("endpoint.model_names").at(0));
  const json* load = optional_member(*config, "loadgen");
  if (!load || !load->is_object()) return;
  const Where l = c.at("loadgen");
  if (auto rate = nonneg_member(*load, "request_rate", l); rate && *rate > 0) {
    s.scenario = "server";
    s.rate = *rate;
  } else if (const json* users = optional_member(*load, "concurrency"); users && !users->is_null()) {
    s.scenario = "concurrency";
    s.users = count_at(*users, l.at("concurrency"));
  }
}

ServingResult aiperf_run(const json& d, const Where& w, std::string& model) {
  const json* records = optional_member(d, "records");
  const AiperfMetrics m{records ? object_at(*records, w.at("records")) : d, records ? w.at("records") : w};
  ServingResult r;
  ServingSummary& s = r.summary;
  aiperf_load(d, w, r.settings, model);
  const auto count = m.value({"request_count"});
  if (!count) fail(w.at("request_count"), "missing: the number of requests the run completed");
  s.completed = std::llround(*count);
  s.failed = std::llround(m.value({"error_request_count"}).value_or(0));
  s.requests = s.completed + s.failed;
  r.settings.requests = s.requests;
  s.request_throughput = m.value({"request_throughput"}).value_or(0);
  // benchmark_duration (AIPerf); GenAI-Perf has none: completed / request_throughput is its own definition.
  if (auto sec = m.value({"benchmark_duration"})) s.duration_s = *sec;
  else if (s.request_throughput > 0) s.duration_s = static_cast<double>(s.completed) / s.request_throughput;
  if (auto t = m.value({"output_token_throughput"})) s.output_tokens_per_s = *t;
  else r.not_given.push_back("output_tokens_per_s");
  if (auto t = m.value({"total_token_throughput"})) s.total_tokens_per_s = *t;
  else r.not_given.push_back("total_tokens_per_s");
  if (auto isl = m.value({"input_sequence_length"}); isl && s.duration_s > 0) {
    s.input_tokens_per_s = *isl * static_cast<double>(s.completed) / s.duration_s;
    if (auto osl = m.value({"output_sequence_length"})) r.settings.lengths = fmt::format("mean {:.0f} in / {:.0f} out", *isl, *osl);
  } else {
    r.not_given.push_back("input_tokens_per_s");
  }
  if (auto g = m.value({"goodput", "request_goodput"})) {
    s.goodput = *g;
    s.good = std::llround(m.value({"good_request_count"}).value_or(*g * s.duration_s));
  } else {
    r.not_given.insert(r.not_given.end(), {"goodput", "good"});
  }
  // AIPerf's inter_token_latency is (E2E - TTFT) / (output tokens - 1): vLLM's TPOT; its inter_chunk_latency pools
  // every gap between streamed chunks: vLLM's ITL.
  give(m.latency({"time_to_first_token", "ttft"}), s.completed, "ttft_ms", s.ttft_ms, r.not_given);
  give(m.latency({"inter_token_latency"}), s.completed, "tpot_ms", s.tpot_ms, r.not_given);
  give(m.latency({"inter_chunk_latency"}), s.completed, "itl_ms", s.itl_ms, r.not_given);
  give(m.latency({"request_latency"}), s.completed, "e2e_ms", s.e2e_ms, r.not_given);
  GivenFigures per_user;
  if (const json* u = m.find({"output_token_throughput_per_user"}); u && u->is_object())
    per_user = AiperfMetrics::figures(*u, w.at("output_token_throughput_per_user"));
  give(per_user, s.completed, "tokens_per_s_per_user", s.tokens_per_s_per_user, r.not_given);
  r.not_given.push_back("queue_ms");
  return r;
}

class AiperfImporter final : public Importer {
 public:
  std::string name() const override { return "aiperf"; }
  std::vector<std::string> aliases() const override { return {"genai-perf"}; }
  std::string description() const override {
    return "NVIDIA AIPerf profile_export_aiperf.json (or GenAI-Perf's *_genai_perf.json): one serving run";
  }
  int recognizes(const InputFile& f) const override {
    if (first_char(f.text) != '{') return 0;
    const bool ours = contains(f.text, "\"input_config\"") && contains(f.text, "\"request_throughput\"") &&
                      (contains(f.text, "\"request_count\"") || contains(f.text, "\"time_to_first_token\""));
    return ours ? 80 : 0;
  }
  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    if (files.size() != 1)
      throw UsageError("import aiperf: give one profile_export_aiperf.json (one run); got " + std::to_string(files.size()));
    const InputFile& f = files.front();
    const json d = parse_json(f);
    const Where w{f.path, ""};
    object_at(d, w);
    std::string model;
    ServingResult run = aiperf_run(d, w, model);
    std::string version;
    if (const json* v = optional_member(d, "aiperf_version"); v && v->is_string()) version = v->get<std::string>();
    const std::string what = fmt::format("aiperf result: {} requests completed, {} failed, {}", run.summary.completed,
                                         run.summary.failed, run.settings.scenario);
    return imported_serving(std::move(run), "aiperf", version, model, {f.path + ": " + what});
  }
};

}  // namespace

const Importer& aiperf_importer() {
  static const AiperfImporter importer;
  return importer;
}

}  // namespace rooflens::importers
