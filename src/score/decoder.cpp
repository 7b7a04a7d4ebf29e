// The "decoder" kind: a decoder language model with a KV cache, measured through the backend's decoder generation
// (what `rooflens generate` drives): one prompt of def.prompt seeded tokens, def.gen greedy decode steps, batch 1.
// Validity: the greedy token sequence must equal the reference's (ONNX Runtime, optimizations disabled) in every
// repetition. Figures: prefill tokens/s (prompt / time to first token) and decode tokens/s (tokens / the decode
// steps' time), each the median over a repetition's requests.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "backends/generation.h"
#include "core/errors.h"
#include "generate/decoder_io.h"
#include "model/declared_io.h"
#include "model/loader.h"
#include "score/harness.h"
#include "score/kinds_list.h"
#include "score/references.h"
#include "score/roof_bound.h"
#include "stats/order.h"

namespace rooflens::score {
namespace {

GenerationConfig config_of(const WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx,
                           int64_t requests) {
  GenerationConfig c;
  c.model = std::filesystem::absolute(model);
  c.io = detect_decoder_io(read_declared_io(model.string()), model.string());
  c.batch = 1;
  c.prompt = def.prompt;
  c.gen = def.gen;
  c.next_token = NextToken::greedy;
  c.seed = def.seed;
  c.threads = ctx.cores;
  c.timing.warmup_requests = static_cast<int>(kGenerateWarmupRequests);
  c.timing.warmup_ms = 0;
  c.timing.requests = static_cast<int>(requests);
  c.timing.duration_s = 0;
  c.timing.layers = false;
  c.work_dir = ctx.work_dir;
  c.timeout = std::chrono::minutes(5);  // per stage: a hung runner fails this workload, not the suite's time budget
  return c;
}

DecoderGeneration& generation_of(Backend& b) {
  DecoderGeneration* g = b.generation();
  if (!g) throw UserError("score: the backend cannot run decoder generation");
  return *g;
}

// The analysis of one step at its shapes: a prefill of `tokens` after `past` cached ones (batch 1).
Analysis step_analysis(const std::filesystem::path& model, const DecoderIo& io, int64_t tokens, int64_t past) {
  ShapeOverrides s;
  s.shapes = step_shapes(io, 1, tokens, past);
  return analyze_model(load_model(model.string(), s), CostRegistry::builtin());
}

// The decode figure's step: one token in the middle of decoding, as run() decomposes it.
int64_t decode_past(const WorkloadDef& def) { return def.prompt + def.gen / 2; }

class Decoder final : public WorkloadKind {
 public:
  void write_reference(WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx) const override {
    const GenerationMeasurement m = generation_of(*ctx.reference_backend).generate(config_of(def, model, ctx, 1));
    def.tokens = m.tokens;
  }

  void run(const WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx,
           ScoreWorkload& out) const override {
    out.shape = fmt::format("prompt {} + {} greedy tokens", def.prompt, def.gen);
    out.tolerance = "greedy tokens equal";
    if (def.tokens.empty()) {
      out.status = WorkloadStatus::invalid;
      out.reason = "the suite has no reference tokens for it (regenerate with score --write-references)";
      return;
    }
    if (ctx.validate_only) {
      validate_tokens(def, model, ctx, out);
      return;
    }
    const GenerationConfig c = config_of(def, model, ctx, ctx.mode->generate_requests);
    ScoreFigure prefill = figure_of(def, "prefill", ctx.quick), decode = figure_of(def, "decode", ctx.quick);
    prefill.config = fmt::format("prompt {} tokens, threads={}", def.prompt, ctx.cores);
    decode.config = fmt::format("{} greedy steps after a {}-token prompt, threads={}", def.gen, def.prompt, ctx.cores);
    out.status = WorkloadStatus::valid;
    for (int64_t rep = 0; rep < ctx.mode->repetitions; ++rep) {
      if (ctx.interrupted && ctx.interrupted->load()) throw UserError("interrupted");
      if (ctx.progress)
        ctx.progress(fmt::format("{} · repetition {}/{} · generation", def.id, rep + 1, ctx.mode->repetitions));
      const GenerationMeasurement m = generation_of(*ctx.backend).generate(c);
      const GateResult g = check_tokens_against(def.tokens, m.tokens);
      if (!g.passed) {
        out.status = WorkloadStatus::invalid;
        out.reason = fmt::format("repetition {}: {}", rep + 1, g.message);
        return;
      }
      std::vector<double> pre, dec;
      for (const auto& r : m.requests) {
        double steps = 0;
        for (double s : r.steps_ms) steps += s;
        if (r.ttft_ms > 0) pre.push_back(static_cast<double>(def.prompt) / (r.ttft_ms / 1000));
        if (steps > 0) dec.push_back(static_cast<double>(r.steps_ms.size()) / (steps / 1000));
      }
      if (pre.empty() || dec.empty()) throw UserError("generation returned no timed request");
      prefill.repetitions.push_back(stats::median_of(pre));
      decode.repetitions.push_back(stats::median_of(dec));
    }
    const std::vector<FigureWork> steps = work(def, model);  // prefill per prompt token, a decode step mid-way
    prefill.roof = roof_bound(steps[0], "fp32", ctx.cores, ctx.roofs);
    decode.roof = roof_bound(steps[1], "fp32", ctx.cores, ctx.roofs);
    out.figures = {prefill, decode};
  }

  // `score --validate`: one generation's greedy tokens against the reference's.
  static void validate_tokens(const WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx,
                              ScoreWorkload& out) {
    if (ctx.progress) ctx.progress(def.id + " · validating the greedy tokens");
    const GateResult g = check_tokens_against(def.tokens, generation_of(*ctx.backend).generate(config_of(def, model, ctx, 1)).tokens);
    out.status = g.passed ? WorkloadStatus::valid : WorkloadStatus::invalid;
    out.reason = g.message;
  }

  std::vector<FigureWork> work(const WorkloadDef& def, const std::filesystem::path& model) const override {
    const DecoderIo io = detect_decoder_io(read_declared_io(model.string()), model.string());
    return {{"prefill", step_analysis(model, io, def.prompt, 0), static_cast<double>(def.prompt)},
            {"decode", step_analysis(model, io, 1, decode_past(def)), 1}};
  }
};

}  // namespace

const WorkloadKind& decoder_kind() {
  static const Decoder k;
  return k;
}

}  // namespace rooflens::score
