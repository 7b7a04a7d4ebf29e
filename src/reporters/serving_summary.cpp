#include "reporters/serving_summary.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/text_table.h"

namespace rooflens {

std::string serving_objectives(const ServingSettings& s) {
  std::string t;
  auto add = [&t](const char* name, double ms) {
    if (ms > 0) t += fmt::format("{}{} <= {:g} ms", t.empty() ? "" : ", ", name, ms);
  };
  add("TTFT", s.slo_ttft_ms);
  add("TPOT", s.slo_tpot_ms);
  add("E2E", s.slo_e2e_ms);
  if (t.empty()) return "no objectives (give --slo ttft=2s,tpot=100ms or a preset)";
  return fmt::format("p{:g} {}{}", s.percentile, t, s.slo_preset.empty() ? "" : " (MLPerf " + s.slo_preset + ")");
}

namespace {

std::string load_text(const ServingSettings& s) {
  if (s.scenario == "server")
    return fmt::format("server at {:g} requests/s ({})", s.rate,
                       s.burstiness == 1 ? std::string("Poisson") : fmt::format("gamma bursts, shape {:g}", s.burstiness));
  if (s.scenario == "concurrency") return fmt::format("concurrency: {} users", s.users);
  return s.scenario;
}

std::string against(double predicted, double measured) {
  if (measured <= 0) return fmt::format("{:.4g}", predicted);
  return fmt::format("{:.4g} ({:+.0f}%)", predicted, 100 * (predicted - measured) / measured);
}

// The simulation's figures beside the measured ones: the error is the prediction's against the run.
std::string prediction_text(const ServingPrediction& p, const ServingSummary& m) {
  std::string out = fmt::format(
      "\npredicted before the run (the same scheduler and load simulated on step times timed in runners of their own "
      "{}{}: prompt {:.3g} ms + {:.3g} ms/token; decode {:.3g} ms + {:.3g} ms/row + {:.3g} ms/context token, "
      "+ {:.3g} ms/token copied when the batch changes):\n",
      p.calibrated_at, p.cached ? ", cached" : "", p.prefill_call_ms, p.prefill_token_ms, p.decode_call_ms,
      p.decode_row_ms, p.context_token_ms, p.rebuilt_token_ms);
  out += fmt::format("  TTFT p50 {} p99 {} ms · TPOT p50 {} p99 {} ms · output_tokens_per_s {} · goodput {} req/s\n",
                     against(p.summary.ttft_ms.p50, m.ttft_ms.p50), against(p.summary.ttft_ms.p99, m.ttft_ms.p99),
                     against(p.summary.tpot_ms.p50, m.tpot_ms.p50), against(p.summary.tpot_ms.p99, m.tpot_ms.p99),
                     against(p.summary.output_tokens_per_s, m.output_tokens_per_s),
                     against(p.summary.goodput, m.goodput));
  return out;
}

}  // namespace

namespace {

bool serving_figure_given(const ServingResult& r, const std::string& figure) {
  return std::find(r.not_given.begin(), r.not_given.end(), figure) == r.not_given.end();
}

// What the scheduler ran with (rooflens served it) — or, for an imported run, that the inference server's own scheduler did.
std::string serving_levers_text(const ServingResult& r) {
  const ServingSettings& s = r.settings;
  if (!r.measured_by.empty()) return "the inference server's own batching and scheduling (not in the file)\n";
  std::string out = fmt::format("{}{} batching, {} prefill, up to {} sequences, {} tokens per step, {} intra-op thread(s), "
                                "{} tokens\n",
                                s.instances > 1 ? fmt::format("{} instances (round-robin), each: ", s.instances) : "",
                                s.batching, s.prefill, s.max_batch, s.max_batched_tokens, s.threads, s.next_token);
  out += s.kv_budget_tokens > 0 ? fmt::format("KV budget {} tokens ({}; {} B per token)\n", s.kv_budget_tokens,
                                              s.kv_budget_source, s.kv_bytes_per_token)
                                : "KV budget: none\n";
  if (s.warmup_requests > 0)
    out += fmt::format("warm-up: {} untimed request(s) per instance before the load (until a request's time stopped "
                       "falling)\n", s.warmup_requests);
  return out;
}

std::string serving_figures_table(const ServingResult& r) {
  const ServingSummary& m = r.summary;
  TextTable t;
  t.columns = {{"metric"}, {"mean", true}, {"p50", true}, {"p90", true}, {"p95", true}, {"p99", true}, {"max", true}};
  auto add = [&](const char* name, const char* key, const ServingDistribution& d, int digits) {
    if (d.n == 0 || !serving_figure_given(r, key)) {
      t.rows.push_back({name, "-", "-", "-", "-", "-", "-"});
      return;
    }
    auto f = [&](const char* figure, double v) {
      return serving_figure_given(r, std::string(key) + "." + figure) ? fmt::format("{:.{}f}", v, digits) : std::string("-");
    };
    t.rows.push_back({name, f("mean", d.mean), f("p50", d.p50), f("p90", d.p90), f("p95", d.p95), f("p99", d.p99),
                      f("max", d.max)});
  };
  add("TTFT ms", "ttft_ms", m.ttft_ms, 2);
  add("TPOT ms", "tpot_ms", m.tpot_ms, 2);
  add("ITL ms", "itl_ms", m.itl_ms, 2);
  add("E2E ms", "e2e_ms", m.e2e_ms, 1);
  add("queue ms", "queue_ms", m.queue_ms, 2);
  add("tokens/s per user", "tokens_per_s_per_user", m.tokens_per_s_per_user, 1);
  return t.render();
}

}  // namespace

std::string serving_summary(const ServingResult& r, const std::string& model, const std::string& runtime) {
  const ServingSettings& s = r.settings;
  const ServingSummary& m = r.summary;
  std::string out;
  if (!r.measured_by.empty()) {
    out = "NOT JUDGED  measured by " + r.measured_by + " (an imported run: the file keeps no objectives)\n";
  } else {
    out = (r.verdict.valid ? "VALID  " : "INVALID  ") + serving_objectives(s) + "\n";
    for (const auto& why : r.verdict.reasons) out += "  - " + why + "\n";
  }
  out += fmt::format("\n{} on {}: {} requests ({}), {}\n", model, runtime, s.requests,
                     s.lengths.empty() ? "lengths not in the file" : s.lengths, load_text(s));
  out += serving_levers_text(r);
  out += fmt::format("\ncompleted {} of {} ({} failed, {} rejected, {} not finished; {} waited for the KV budget) in {:.2f} s\n",
                     m.completed, m.requests, m.failed, m.rejected, m.abandoned, m.waited_for_kv, m.duration_s);
  out += fmt::format("request_throughput {:.3g} req/s   output_tokens_per_s {:.4g}   total_tokens_per_s {}\n",
                     m.request_throughput, m.output_tokens_per_s,
                     serving_figure_given(r, "total_tokens_per_s") ? fmt::format("{:.4g}", m.total_tokens_per_s) : "-");
  out += serving_figure_given(r, "goodput")
             ? fmt::format("goodput {:.3g} req/s ({} of {} requests met every objective)\n\n", m.goodput, m.good, m.completed)
             : std::string("goodput: not in the file (the run had no --goodput objectives)\n\n");
  out += serving_figures_table(r);
  if (r.measured_by.empty())
    out += fmt::format("\n{} steps ({:.2f} s in the runtime, scheduler {:.1f} ms between them), at most {} rows in a step; "
                       "KV cache copied to rebuild batches: {:.1f} MB\n",
                       r.steps, r.step_busy_s, r.scheduler_s * 1000, r.max_batch_seen,
                       static_cast<double>(r.kv_copy_bytes) / 1e6);
  if (r.predicted) out += prediction_text(*r.predicted, m);
  if (!r.fault.empty()) out += "the run stopped: " + r.fault + "\n";
  return out;
}

}  // namespace rooflens
