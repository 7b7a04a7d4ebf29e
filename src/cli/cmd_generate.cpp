// `rooflens generate`: a decoder language model with a KV cache measured per phase — time to first token, time per
// output token, tokens/s, bytes streamed per token against the DRAM roof, and a per-layer roofline of a prefill step
// and of a decode step.
#include <algorithm>
#include <iostream>

#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "cli/output_flags.h"
#include "cli/db_flags.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/roofs.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "generate/generate.h"
#include "profile/profile.h"
#include "reporters/generation_summary.h"
#include "reporters/html_report.h"

namespace rooflens::cli {
namespace {

// The command's options: GenerateOptions as the driver takes it, bound directly where the flag is the field (the
// timing flags bind its GenerationTiming), plus the flags that need parsing first.
struct GenerateCommand {
  GenerateOptions o;
  std::string backend = "onnxruntime", prompts = "128", gens = "32", batches = "1", next_token = "greedy";
  std::string html, roofs, opt_level;
  double timeout_s = 900;
  bool quiet = false, json = false, no_roofs = false;
  DbFlags db;
};

GenerateOptions generate_options_of(const GenerateCommand& a) {
  GenerateOptions o = a.o;
  o.backend = parse_backend_spec(a.backend);
  if (!a.opt_level.empty()) o.backend.opt_level = a.opt_level;
  o.prompts = parse_int_list(a.prompts, "--prompt");
  o.gens = parse_int_list(a.gens, "--gen");
  o.batches = parse_int_list(a.batches, "-b");
  o.next_token = a.next_token == "fixed" ? NextToken::fixed : NextToken::greedy;
  o.timing.max_requests = std::max(o.timing.max_requests, o.timing.requests);
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  return o;
}

// The roofs of the engine the backend's kernels run in (WebAssembly for -B ortweb), when the roofs lack them: cached,
// else measured now (as profile does per run: ProfileHooks::engine_roofs). A failure leaves the phases on the native
// roofs, which the report then says of each phase.
void add_engine_roofs(std::optional<HardwareInfo>& roofs, Backend& backend, const hw::EngineRoofsHook& source) {
  const BackendInfo info = backend.info();
  if (!roofs || info.roofs_engine.empty() || find_engine_roofs(*roofs, info.roofs_engine) || !source) return;
  try {
    if (std::optional<EngineRoofs> e =
            source(info.roofs_engine, info.runtime, [&backend] { return backend.measure_engine_roofs(true); }))
      roofs->engines.push_back(std::move(*e));
  } catch (const BackendError& err) {
    std::cerr << "rooflens generate: the roofs of " << info.roofs_engine << " could not be measured: " << err.what()
              << "\n";
  }
}

int run_generate_command(const GenerateCommand& a) {
  const GenerateOptions o = generate_options_of(a);
  a.db.validate();
  std::unique_ptr<Backend> backend = make_backend(o.backend);
  const hw::RoofSource from = roof_source(a.no_roofs, a.roofs, a.quiet, "generate");
  std::optional<HardwareInfo> roofs = hw::obtain_roofs(from);
  add_engine_roofs(roofs, *backend, hw::engine_roofs_source(from));
  ProgressBar bar("generate", !a.quiet);
  Report rep;
  {
    Backend& b = *backend;
    InterruptWatcher watcher("rooflens generate: interrupted — stopping and writing the partial report",
                             [&b] { b.abort(); });
    GenerateHooks hooks;
    hooks.warn = [](const std::string& w) { std::cerr << "\nrooflens generate: warning: " << w << "\n"; };
    hooks.progress = [&bar](const std::string& what, size_t done, size_t total) { bar.update(what, done, total); };
    hooks.interrupted = &watcher.flag();
    rep = run_generate(o, *backend, roofs ? &*roofs : nullptr, hooks);
  }
  if (a.json) std::cout << report_to_json(rep);
  else std::cout << generation_summary(rep);
  if (!o.report_path.empty() && !a.quiet)
    std::cerr << "rooflens generate: report written to " << o.report_path << "\n";
  if (!a.html.empty()) {
    write_file_atomically(a.html, html_report(rep));
    if (!a.quiet) std::cerr << "rooflens generate: HTML report written to " << a.html << "\n";
  }
  bool layers_lost = false;
  for (const auto& run : rep.generation->runs) layers_lost = layers_lost || !run.layers_error.empty();
  const int rc = rep.failures.empty() && !rep.partial && !layers_lost ? 0 : 1;
  // Each configuration as two stored items, "<label> · TTFT" and "<label> · TPOT", as compare matches them.
  return worst_exit(rc, store_report(a.db, rep, "generate", a.quiet));
}

}  // namespace

void setup_generate(CLI::App& root, Action& action) {
  auto a = std::make_shared<GenerateCommand>();
  GenerationTiming& t = a->o.timing;
  CLI::App* cmd = root.add_subcommand(
      "generate", "Run a decoder LLM with a KV cache: prefill and decode measured apart (TTFT, TPOT, tokens/s), "
                  "bytes per token against the DRAM roof, both phases on the roofline");
  cmd->footer(
      "Examples:\n"
      "  rooflens zoo make gpt2 --kv-cache -o gpt2-kv.onnx\n"
      "  rooflens generate gpt2-kv.onnx                          # prompt 128, 32 decode steps, batch 1\n"
      "  rooflens generate llama-kv.onnx --prompt 128,512 --gen 64 -b 1,4 -o gen.json --html gen.html\n"
      "  rooflens generate model.onnx --next-token fixed --repeat 5 -o base.json   (for rooflens compare)\n"
      "The model needs the Hugging Face Optimum / onnxruntime-genai layout: input_ids, optional attention_mask and\n"
      "position_ids, past_key_values.N.key|value [batch, kv_heads, past, head_dim] in, logits and present.N.key|value\n"
      "out. Each configuration runs in a fresh runner: warm-up requests, timed requests (profiling off: one prefill,\n"
      "then the decode steps, present fed back as past inside the runner), then a profiled prefill step and a\n"
      "profiled decode step at the last step's context.");
  cmd->add_option("model", a->o.model, "ONNX decoder with a KV cache")->required()->check(CLI::ExistingFile);
  cmd->add_option("-B,--backend", a->backend, "Backend and its options: onnxruntime[:key=value,...]");
  cmd->add_option("-p,--prompt", a->prompts, "Prompt tokens per sequence: 128, 128,512 or 64-1024 (powers of two)")
      ->capture_default_str();
  cmd->add_option("-n,--gen", a->gens, "Decode steps per request (tokens generated after the first)")
      ->capture_default_str();
  cmd->add_option("-b,--batch", a->batches, "Sequences per request: 1, 1,4 or 1-8")->capture_default_str();
  cmd->add_option("--threads", a->o.threads, "Intra-op threads (default: one per physical core rooflens may use, passed explicitly)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--opt-level", a->opt_level, "Graph optimization level")
      ->check(CLI::IsMember({"disabled", "basic", "extended", "layout", "all"}));
  cmd->add_option("--next-token", a->next_token,
                  "greedy: each step feeds the argmax of the last logits; fixed: a seeded id sequence, the same in "
                  "every request and run")
      ->check(CLI::IsMember({"greedy", "fixed"}))->capture_default_str();
  cmd->add_option("--seed", a->o.seed, "Seed of the prompt ids (and of the fixed tokens)")->capture_default_str();
  // Timing, counted in requests.
  cmd->add_option("--warmup", t.warmup_requests, "Warm-up requests (at least)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  cmd->add_option("--warmup-ms", t.warmup_ms, "Warm-up time in ms (at least)")
      ->check(CLI::Range(0.0, 3.6e6))->capture_default_str();
  cmd->add_option("--requests", t.requests, "Measured requests (at least)")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--duration", t.duration_s, "Measured seconds (at least)")
      ->check(CLI::Range(0.0, 86400.0))->capture_default_str();
  cmd->add_option("--max-requests", t.max_requests, "Measured requests at most")
      ->check(CLI::Range(1, 100000000))->capture_default_str();
  cmd->add_option("--profile-iterations", t.profile_iterations, "Profiled iterations of each phase's step")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_flag("--no-layers{false}", t.layers, "Skip the profiled steps (timings only)")->disable_flag_override();
  cmd->add_option("--repeat", a->o.repeat,
                  "Timed runs per configuration, each in a fresh runner (default 1; 5 for compare)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--timeout", a->timeout_s, "Seconds allowed per stage of one configuration (default 900)")
      ->check(CLI::Range(0.1, 864000.0));
  add_output_option(*cmd, a->o.report_path, "Write the JSON report here (rewritten after every configuration)", "report");
  cmd->add_option("--html", a->html, "Also write the report as one self-contained HTML page");
  cmd->add_option("--roofs", a->roofs, "Ceilings from this file instead of this machine's measured ones");
  cmd->add_flag("--no-roofs", a->no_roofs, "No roofline and no DRAM roof (no hw measurement)");
  cmd->add_flag("--json", a->json, "Print the JSON report on stdout instead of the summary");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  a->db.add_to(*cmd);
  cmd->callback([a, &action] { action = [a] { return run_generate_command(*a); }; });
}

}  // namespace rooflens::cli
