#include "importers/vllm/vllm.h"

#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "importers/serving_figures.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

// One metric's statistics: mean_/median_/pNN_<metric>_ms (vLLM prints the percentiles --metric-percentiles asked
// for; 99 by default). No maximum is written.
GivenFigures vllm_stats(const json& d, const std::string& metric, const Where& w) {
  GivenFigures g;
  g.mean = nonneg_member(d, "mean_" + metric + "_ms", w);
  g.p50 = nonneg_member(d, "median_" + metric + "_ms", w);
  if (!g.p50) g.p50 = nonneg_member(d, "p50_" + metric + "_ms", w);
  g.p90 = nonneg_member(d, "p90_" + metric + "_ms", w);
  g.p95 = nonneg_member(d, "p95_" + metric + "_ms", w);
  g.p99 = nonneg_member(d, "p99_" + metric + "_ms", w);
  return g;
}

// The load: a finite rate is the server scenario (Poisson, or gamma bursts); "inf" with a concurrency cap is a
// closed loop of that many users; "inf" alone sends every prompt at once.
void vllm_load(const json& d, const Where& w, ServingSettings& s) {
  const json& rate = member(d, "request_rate", w);
  const bool unbounded = rate.is_string() ? lower(string_at(rate, w.at("request_rate"))) == "inf" : false;
  const json* cap = optional_member(d, "max_concurrency");
  if (!unbounded) {
    s.scenario = "server";
    s.rate = nonneg_at(rate, w.at("request_rate"));
    if (auto b = nonneg_member(d, "burstiness", w)) s.burstiness = *b;
  } else if (cap && !cap->is_null()) {
    s.scenario = "concurrency";
    s.users = count_at(*cap, w.at("max_concurrency"));
  } else {
    s.scenario = "offline";
  }
}

// Each request's TTFT (s in the file) and TPOT from its latency, for the requests that succeeded.
void vllm_samples(const json& d, const Where& w, ServingSamples& out) {
  const json* ttfts = optional_member(d, "ttfts");
  if (!ttfts) return;
  const json& t = array_at(*ttfts, w.at("ttfts"));
  const json* errors = optional_member(d, "errors");
  const json* lat = optional_member(d, "latencies");
  const json* lens = optional_member(d, "output_lens");
  for (size_t i = 0; i < t.size(); ++i) {
    if (errors && errors->is_array() && i < errors->size() && (*errors)[i].is_string() && !(*errors)[i].get<std::string>().empty())
      continue;
    const double ttft = nonneg_at(t[i], w.at("ttfts").at(i)) * 1000;
    out.ttft_ms.push_back(ttft);
    if (!lat || !lens || !lat->is_array() || !lens->is_array() || i >= lat->size() || i >= lens->size()) continue;
    const int64_t n = count_at((*lens)[i], w.at("output_lens").at(i));
    const double e2e = nonneg_at((*lat)[i], w.at("latencies").at(i)) * 1000;
    if (n > 1 && e2e >= ttft) out.tpot_ms.push_back((e2e - ttft) / static_cast<double>(n - 1));
  }
}

ServingResult vllm_run(const json& d, const Where& w) {
  ServingResult r;
  ServingSettings& s = r.settings;
  ServingSummary& m = r.summary;
  vllm_load(d, w, s);
  m.requests = count_at(member(d, "num_prompts", w), w.at("num_prompts"));
  s.requests = m.requests;
  m.completed = count_at(member(d, "completed", w), w.at("completed"));
  if (m.completed > m.requests) fail(w.at("completed"), fmt::format("{} completed of {} prompts", m.completed, m.requests));
  // Older files have no `failed`: every prompt sent either completed or failed.
  m.failed = optional_member(d, "failed") ? count_at(member(d, "failed", w), w.at("failed")) : m.requests - m.completed;
  m.duration_s = nonneg_at(member(d, "duration", w), w.at("duration"));
  m.request_throughput = nonneg_at(member(d, "request_throughput", w), w.at("request_throughput"));
  m.output_tokens_per_s = nonneg_at(member(d, "output_throughput", w), w.at("output_throughput"));
  if (auto t = nonneg_member(d, "total_token_throughput", w)) m.total_tokens_per_s = *t;
  else r.not_given.push_back("total_tokens_per_s");
  const auto in_tokens = nonneg_member(d, "total_input_tokens", w), out_tokens = nonneg_member(d, "total_output_tokens", w);
  if (in_tokens && m.duration_s > 0) m.input_tokens_per_s = *in_tokens / m.duration_s;
  else r.not_given.push_back("input_tokens_per_s");
  if (in_tokens && out_tokens && m.completed > 0)
    s.lengths = fmt::format("mean {:.0f} in / {:.0f} out", *in_tokens / static_cast<double>(m.completed),
                            *out_tokens / static_cast<double>(m.completed));
  // Goodput: `request_goodput:` (with the colon) in benchmark_serving.py, `request_goodput` in `vllm bench serve`;
  // null without --goodput. The objectives themselves are not saved.
  const json* good = optional_member(d, "request_goodput");
  if (!good) good = optional_member(d, "request_goodput:");
  if (good && !good->is_null()) {
    m.goodput = nonneg_at(*good, w.at("request_goodput"));
    m.good = std::llround(m.goodput * m.duration_s);
  } else {
    r.not_given.insert(r.not_given.end(), {"goodput", "good"});
  }
  give(vllm_stats(d, "ttft", w), m.completed, "ttft_ms", m.ttft_ms, r.not_given);
  give(vllm_stats(d, "tpot", w), m.completed, "tpot_ms", m.tpot_ms, r.not_given);
  give(vllm_stats(d, "itl", w), m.completed, "itl_ms", m.itl_ms, r.not_given);
  give(vllm_stats(d, "e2el", w), m.completed, "e2e_ms", m.e2e_ms, r.not_given);
  r.not_given.insert(r.not_given.end(), {"queue_ms", "tokens_per_s_per_user"});
  vllm_samples(d, w, r.samples);
  return r;
}

class VllmImporter final : public Importer {
 public:
  std::string name() const override { return "vllm"; }
  std::vector<std::string> aliases() const override { return {"vllm-bench", "benchmark-serving"}; }
  std::string description() const override {
    return "vLLM benchmark_serving.py / `vllm bench serve` --save-result JSON: one serving run (TTFT, TPOT, goodput)";
  }
  int recognizes(const InputFile& f) const override {
    if (first_char(f.text) != '{') return 0;
    const bool vllm = contains(f.text, "\"model_id\"") && contains(f.text, "\"request_throughput\"") &&
                      (contains(f.text, "\"mean_ttft_ms\"") || contains(f.text, "\"ttfts\""));
    return vllm ? 80 : 0;
  }
  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    if (files.size() != 1) throw UsageError("import vllm: give one result file (one run); got " + std::to_string(files.size()));
    const InputFile& f = files.front();
    size_t objects = 0;
    for (std::string_view line : lines_of(f.text)) objects += !line.empty() && line[0] == '{';  // an object a line
    if (objects > 1)
      throw UserError(f.path + ": holds " + std::to_string(objects) + " results, one per line (--append-result): " +
                      "give one result per file");
    const json d = parse_json(f);
    const Where w{f.path, ""};
    object_at(d, w);
    const std::string model = string_at(member(d, "model_id", w), w.at("model_id"));
    ServingResult run = vllm_run(d, w);
    std::string what = fmt::format("vllm result: {} of {} requests, {}", run.summary.completed, run.summary.requests,
                                   run.settings.scenario);
    what += run.samples.empty() ? ", statistics only (no per-request arrays)"
                                : fmt::format(", {} requests' TTFT", run.samples.ttft_ms.size());
    return imported_serving(std::move(run), "vllm", "", model, {f.path + ": " + what});
  }
};

}  // namespace

const Importer& vllm_importer() {
  static const VllmImporter importer;
  return importer;
}

}  // namespace rooflens::importers
