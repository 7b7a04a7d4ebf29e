// JSON form of Report::generation ("generation" in docs/report-schema.md). Field order is fixed (ordered_json), so
// a generation report round-trips byte for byte like the rest of the report.
#include "core/json_fields.h"

#include <algorithm>

#include "core/errors.h"
#include "core/memory_json.h"
#include "core/repetitions.h"

namespace rooflens {

NLOHMANN_JSON_SERIALIZE_ENUM(NextToken, {{NextToken::greedy, "greedy"}, {NextToken::fixed, "fixed"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Phase, {{Phase::prefill, "prefill"}, {Phase::decode, "decode"}})

ROOFLENS_JSON_FIELDS(KvBinding, past_key, past_value, present_key, present_value)
ROOFLENS_JSON_FIELDS(DecoderIo, layout, input_ids, attention_mask, position_ids, logits, cache, kv_heads, head_dim,
                     vocab, kv_dtype, ids_dtype, mask_dtype, position_dtype)
namespace {
struct PhaseProfileCore : PhaseProfile {};
}  // namespace
ROOFLENS_JSON_FIELDS(PhaseProfileCore, phase, tokens, past, dims, latency_ms, coverage, flops, macs, layers, unowned,
                     unmapped_kernels, warnings)
// roofs_engine was added later: written only when set, so reports before it round-trip unchanged.
void to_json(json& j, const PhaseProfile& p) {
  to_json(j, static_cast<const PhaseProfileCore&>(p));
  if (!p.roofs_engine.empty()) j["roofs_engine"] = p.roofs_engine;
}
void from_json(const json& j, PhaseProfile& p) {
  from_json(j, static_cast<PhaseProfileCore&>(p));
  if (j.contains("roofs_engine")) j.at("roofs_engine").get_to(p.roofs_engine);
}
ROOFLENS_JSON_FIELDS(ContextPoint, context, n, tpot_ms, kv_bytes, bytes, gbps)
ROOFLENS_JSON_FIELDS(ContextFit, intercept_ms, ms_per_mb, r)
namespace {
struct GenerationRunCore : GenerationRun {};
}  // namespace
ROOFLENS_JSON_FIELDS(GenerationRunCore, batch, prompt, gen, threads, next_token, ttft_ms, tpot_ms, e2e_ms,
                     prefill_tokens_per_s, prefill_tokens_per_s_std, decode_tokens_per_s, decode_tokens_per_s_std,
                     kv_bytes_per_token, kv_bytes_end, weight_bytes, decode_bytes_per_token, decode_gbps, dram_gbps,
                     dram_roof, load_ms, wall_s, peak_rss_bytes, by_context, tpot_vs_kv, tokens, phases, warnings,
                     layers_error, repetitions, ttft_samples_ms, tpot_samples_ms, e2e_samples_ms)
// Added later (memory; the warm-up and the page faults): written only when known, so generation reports written
// before them round-trip unchanged.
void to_json(json& j, const GenerationRun& r) {
  to_json(j, static_cast<const GenerationRunCore&>(r));
  if (r.memory) j["memory"] = *r.memory;
  if (r.warmup_requests) j["warmup_requests"] = *r.warmup_requests;
  if (!r.step_page_faults.empty()) j["step_page_faults"] = r.step_page_faults;
  if (r.page_faults_per_step) j["page_faults_per_step"] = *r.page_faults_per_step;
  if (r.by_context_faulted_steps) j["by_context_faulted_steps"] = *r.by_context_faulted_steps;
  if (r.by_context_kv_share) j["by_context_kv_share"] = *r.by_context_kv_share;
  if (!r.prefill_page_faults.empty()) j["prefill_page_faults"] = r.prefill_page_faults;
  if (r.page_faults_per_prefill) j["page_faults_per_prefill"] = *r.page_faults_per_prefill;
}
void from_json(const json& j, GenerationRun& r) {
  from_json(j, static_cast<GenerationRunCore&>(r));
  if (j.contains("memory")) r.memory = j.at("memory").get<KvMemory>();
  if (j.contains("warmup_requests")) r.warmup_requests = j.at("warmup_requests").get<int64_t>();
  if (j.contains("step_page_faults")) j.at("step_page_faults").get_to(r.step_page_faults);
  if (j.contains("page_faults_per_step")) r.page_faults_per_step = j.at("page_faults_per_step").get<double>();
  if (j.contains("by_context_faulted_steps")) r.by_context_faulted_steps = j.at("by_context_faulted_steps").get<int64_t>();
  if (j.contains("by_context_kv_share")) r.by_context_kv_share = j.at("by_context_kv_share").get<double>();
  if (j.contains("prefill_page_faults")) j.at("prefill_page_faults").get_to(r.prefill_page_faults);
  if (j.contains("page_faults_per_prefill")) r.page_faults_per_prefill = j.at("page_faults_per_prefill").get<double>();
}
// Each run's label comes first, as a profile run's does: derived from its key, written for readers such as the HTML
// page, never read back.
void to_json(json& j, const Generation& g) {
  json runs = json::array();
  for (const auto& r : g.runs) {
    json one{{"label", r.key().label()}};
    one.update(json(r));
    runs.push_back(std::move(one));
  }
  j = json{{"io", g.io}, {"runs", std::move(runs)}};
}

// The samples must be what the figures say they are: a malformed report is refused here, not misread by compare.
void from_json(const json& j, Generation& g) {
  j.at("io").get_to(g.io);
  j.at("runs").get_to(g.runs);
  for (const auto& r : g.runs) {
    const std::string run = "generation run " + r.key().label() + ": ";
    const size_t requests = r.ttft_samples_ms.size();
    const size_t steps = requests * static_cast<size_t>(std::max<int64_t>(0, r.gen));
    if (r.e2e_samples_ms.size() != requests || r.tpot_samples_ms.size() != steps)
      throw UserError(run + "ttft/e2e need one sample per request and tpot gen per request");
    if (!r.step_page_faults.empty() && r.step_page_faults.size() != steps)
      throw UserError(run + "step_page_faults needs one count per decode step (as tpot_samples_ms)");
    if (!r.prefill_page_faults.empty() && r.prefill_page_faults.size() != requests)
      throw UserError(run + "prefill_page_faults needs one count per request (as ttft_samples_ms)");
    if (const std::string why = partition_error(r.repetitions, requests); !r.repetitions.empty() && !why.empty())
      throw UserError(run + "repetitions do not partition the requests: " + why);
  }
}

std::string to_string(NextToken t) { return t == NextToken::greedy ? "greedy" : "fixed"; }
std::string to_string(Phase p) { return p == Phase::prefill ? "prefill" : "decode"; }

std::vector<GenerationItem> generation_items(const GenerationRun& run) {
  std::vector<int64_t> steps;
  for (int64_t n : run.repetitions) steps.push_back(n * run.gen);
  const std::string label = run.key().label();
  return {{label + kTtftItem, Phase::prefill, &run.ttft_samples_ms, run.repetitions, &run.ttft_ms},
          {label + kTpotItem, Phase::decode, &run.tpot_samples_ms, std::move(steps), &run.tpot_ms}};
}

RunKey GenerationRun::key() const {
  RunKey k;
  k.batch = batch;
  k.dims = {{"gen", gen}, {"prompt", prompt}};
  k.threads = threads;
  return k;
}

}  // namespace rooflens
