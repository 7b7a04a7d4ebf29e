#include "cli/capacity_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "analysis/model_summary.h"
#include "backends/registry/registry.h"
#include "capacity/generative/lengths.h"
#include "capacity/loadgen/settings.h"
#include "capacity/sut/pool.h"
#include "capacity/generative/request_file.h"
#include "capacity/generative/trace.h"
#include "capacity/decode_roofline.h"
#include "capacity/search_decoder.h"
#include "capacity/serve_decoder.h"
#include "cli/db_flags.h"
#include "cli/interrupt.h"
#include "cli/roofs.h"
#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/report.h"
#include "core/serving_items.h"
#include "generate/decoder_io.h"
#include "model/declared_io.h"
#include "model/loader.h"
#include "reporters/html_report.h"
#include "reporters/serving_roofline.h"
#include "reporters/serving_search.h"
#include "reporters/serving_summary.h"

namespace rooflens::cli {
namespace {

namespace gen = capacity::generative;

// The single-pass levers and modes a decoder run does not have (yet): each given one is a usage error naming it.
void reject_single_pass_flags(const CLI::App& cmd) {
  static const char* const flags[] = {"--search",  "--batch",  "--samples-per-query",
                                      "--concurrency", "--profile-layers", "--input",
                                      "--batch-timeout", "--pin",  "--mlperf-durations", "--duration", "--max-queries"};
  for (const char* f : flags) {
    const CLI::Option* o = cmd.get_option_no_throw(f);
    if (o && o->count() > 0)
      throw UsageError(std::string(f) + ": not for a decoder's generative scenarios yet (docs/capacity.md, "
                                        "\"Generative serving\"); give --scenario server|concurrency|offline, "
                                        "--requests, --max-batch, --batching, --prefill, --slo, --find-peak, --sweep");
  }
}

// "ttft=2s,tpot=100ms,e2e=5s" or an MLPerf preset's name.
gen::Slo parse_serving_slo(const std::string& text) {
  if (auto preset = gen::preset_slo(text)) return *preset;
  gen::Slo slo;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq == std::string::npos ? 0 : eq);
    double* limit = key == "ttft" ? &slo.ttft_ms : key == "tpot" ? &slo.tpot_ms : key == "e2e" ? &slo.e2e_ms : nullptr;
    if (!limit) {
      std::string presets;
      for (const auto& p : gen::slo_presets()) presets += (presets.empty() ? "" : ", ") + std::string(p.name);
      throw UsageError("--slo " + text + ": give ttft=2s,tpot=100ms[,e2e=...] or a preset (" + presets + ")");
    }
    *limit = parse_duration_ms(item.substr(eq + 1), "--slo " + key);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return slo;
}

gen::LoadPlan load_plan(const CapacityCommand& a, const CLI::App& cmd, int64_t max_batch, std::string& lengths) {
  gen::LoadPlan l;
  l.seed = a.s.seed;
  if (!a.trace.empty()) {
    if (cmd.count("--input-tokens") || cmd.count("--output-tokens"))
      throw UsageError("--trace gives every request's lengths: leave --input-tokens and --output-tokens out");
    gen::Trace t = gen::read_trace(a.trace);
    l.kind = gen::LoadKind::trace;
    l.trace_ns = std::move(t.arrival_ns);
    l.shapes = std::move(t.shapes);
    if (cmd.count("--requests") && a.requests < static_cast<int64_t>(l.shapes.size())) {
      l.shapes.resize(static_cast<size_t>(a.requests));
      l.trace_ns.resize(static_cast<size_t>(a.requests));
    }
    lengths = "trace " + a.trace;
    return l;
  }
  const int64_t n = cmd.count("--requests") ? a.requests : 500;
  if (n < 1) throw UsageError("--requests " + std::to_string(n) + ": give at least 1");
  const gen::LengthPlan plan = gen::parse_length_plan(a.input_tokens, a.output_tokens);
  l.shapes = gen::draw_shapes(plan, n, a.s.seed);
  lengths = gen::describe(plan);
  if (a.scenario == "server") {
    if (!cmd.count("--qps") || a.qps <= 0)
      throw UsageError("--scenario server on a decoder needs --qps (requests per second), e.g. --qps 2");
    l.kind = gen::LoadKind::server;
    l.rate = a.qps;
    l.burstiness = a.burstiness;
  } else if (a.scenario == "concurrency") {
    l.kind = gen::LoadKind::concurrency;
    l.users = cmd.count("--users") ? a.users : max_batch;
    if (l.users < 1) throw UsageError("--users " + std::to_string(l.users) + ": give at least 1");
  } else if (a.scenario == "offline") {
    l.kind = gen::LoadKind::offline;
  } else {
    throw UsageError("--scenario " + a.scenario + ": a decoder is served as server, concurrency or offline");
  }
  return l;
}

// --find-peak or --sweep AXIS=V1,V2,...: what varies and over which values (nothing: one run).
std::optional<capacity::DecoderSearchSpec> search_of(const CapacityCommand& a, const CLI::App& cmd,
                                                     const gen::LoadPlan& load) {
  if (!a.s.find_peak && a.sweep.empty()) return std::nullopt;
  if (a.s.find_peak && !a.sweep.empty())
    throw UsageError("--find-peak and --sweep: one at a time (a sweep runs its points; find-peak searches one lever)");
  capacity::DecoderSearchSpec s;
  // The text flags, read here: the single-pass settings that would hold them (parse_capacity_flags) are not made for a
  // decoder.
  if (cmd.count("--budget")) s.budget_s = parse_duration_ms(a.budget, "--budget") / 1000;
  if (cmd.count("--precision")) {
    s.precision = parse_fraction(a.precision, "--precision");
    capacity::check_peak_precision(s.precision);
  }
  if (!a.queries_csv.empty())
    throw UsageError("--queries: one run's records; leave it out with --find-peak or --sweep (or run the point "
                     "alone)");
  if (a.s.find_peak) {
    if (load.kind == gen::LoadKind::server) s.axis = capacity::ServingAxis::qps;
    else if (load.kind == gen::LoadKind::concurrency) s.axis = capacity::ServingAxis::users;
    else throw UsageError("--find-peak: a decoder's peak is a rate (--scenario server) or a user count (--scenario "
                          "concurrency); offline and a trace have none");
    s.start = s.axis == capacity::ServingAxis::qps ? load.rate : static_cast<double>(load.users);
    return s;
  }
  const size_t eq = a.sweep.find('=');
  const std::string axis = a.sweep.substr(0, eq == std::string::npos ? 0 : eq);
  if (axis == "max-batch") s.axis = capacity::ServingAxis::max_batch;
  else if (axis == "users") s.axis = capacity::ServingAxis::users;
  else if (axis == "qps") s.axis = capacity::ServingAxis::qps;
  else throw UsageError("--sweep " + a.sweep + ": give max-batch=1,2,4,8, users=1,2,4 or qps=0.5,1,2");
  if (s.axis == capacity::ServingAxis::users && load.kind != gen::LoadKind::concurrency)
    throw UsageError("--sweep users=...: users are the concurrency scenario's; add --scenario concurrency");
  if (s.axis == capacity::ServingAxis::qps && load.kind != gen::LoadKind::server)
    throw UsageError("--sweep qps=...: a rate is the server scenario's; add --scenario server (with --qps)");
  std::string rest = a.sweep.substr(eq + 1);
  size_t at = 0;
  while (at <= rest.size()) {
    const size_t comma = rest.find(',', at);
    const std::string v = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    const bool whole = s.axis != capacity::ServingAxis::qps;
    if (v.empty() || *end != '\0' || !(x > 0) || (whole && x != std::floor(x)) || x > 1e6)
      throw UsageError("--sweep " + a.sweep + ": '" + v + "' is not a " +
                       (whole ? "whole number of at least 1" : "rate above 0"));
    s.sweep.push_back(x);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  s.users_follow_max_batch = s.axis == capacity::ServingAxis::max_batch && load.kind == gen::LoadKind::concurrency &&
                             !cmd.count("--users");
  return s;
}

// The decode steps on the roofline (--no-roofs: none), drawn at the first run's shapes and calibration.
std::optional<ServingRoofline> explain_on_roofline(const CapacityCommand& a, const capacity::DecoderServingSpec& spec,
                                                   const std::optional<capacity::DecoderSearchSpec>& search,
                                                   Report& rep) {
  const ServingResult* run = rep.serving ? &*rep.serving
                             : rep.serving_search && !rep.serving_search->runs.empty() ? &rep.serving_search->runs.front()
                                                                                        : nullptr;
  if (a.no_roofs || !run || spec.load.shapes.empty()) return std::nullopt;
  std::optional<HardwareInfo> roofs = hw::obtain_roofs(roof_source(a.no_roofs, a.roofs, a.quiet, "capacity"));
  if (!roofs) return std::nullopt;
  rep.hardware = *roofs;
  return capacity::decode_roofline(capacity::decode_roofline_spec(spec, search ? &*search : nullptr, *run), *roofs);
}

// --instances N: N runtime processes side by side; each gets the cores divided among them unless --threads says,
// and instances × threads above the cores is refused as for single-pass models (unless --oversubscribe).
void set_instances(const CapacityCommand& a, capacity::DecoderServingSpec& spec) {
  spec.instances = a.levers.instances.empty() ? 1 : a.levers.instances.front();
  if (spec.instances < 1) throw UsageError("--instances " + std::to_string(spec.instances) + ": give at least 1");
  if (spec.instances == 1) return;
  const int64_t cores = capacity::usable_cores();
  spec.threads = capacity::threads_for(spec.threads, spec.instances, cores);
  capacity::check_cores(spec.instances, spec.threads, cores, a.s.oversubscribe);
}

}  // namespace

std::optional<DecoderIo> served_decoder_io(const std::string& model, std::string& why) {
  try {
    return detect_decoder_io(read_declared_io(model), model);
  } catch (const UserError& e) {
    why = e.what();
    return std::nullopt;
  }
}

void reject_decoder_flags(const CapacityCommand& a, const CLI::App& cmd, const std::string& why) {
  static const char* const flags[] = {"--users", "--requests", "--input-tokens", "--output-tokens", "--trace",
                                      "--burstiness", "--batching", "--prefill", "--max-batched-tokens", "--kv-budget"};
  for (const char* f : flags) {
    const CLI::Option* o = cmd.get_option_no_throw(f);
    if (o && o->count() > 0) throw UsageError(std::string(f) + ": only for a decoder with a KV cache; " + why);
  }
  if (a.scenario == "concurrency") throw UsageError("--scenario concurrency: only for a decoder with a KV cache; " + why);
}

int run_decoder_capacity(const CapacityCommand& a, const CLI::App& cmd, const DecoderIo& io) {
  reject_single_pass_flags(cmd);
  a.db.validate();
  if (a.levers.max_batch.size() > 1 || a.levers.threads.size() > 1 || a.levers.instances.size() > 1)
    throw UsageError("--max-batch / --threads / --instances: one value each for a decoder (a list of max batches: "
                     "--sweep max-batch=1,2,4,8)");
  capacity::DecoderServingSpec spec;
  spec.model = a.model;
  spec.io = io;
  spec.batcher.max_batch = cmd.count("--max-batch") ? a.levers.max_batch.front() : 8;
  spec.batcher.batching = a.batching == "static" ? gen::Batching::static_batches : gen::Batching::continuous;
  spec.batcher.prefill = a.prefill == "chunked" ? gen::PrefillMode::chunked : gen::PrefillMode::separate;
  spec.batcher.max_batched_tokens = a.max_batched_tokens;
  if (const std::string bad = gen::check_settings(spec.batcher); !bad.empty()) throw UsageError(bad);
  spec.load = load_plan(a, cmd, spec.batcher.max_batch, spec.lengths);
  const std::optional<capacity::DecoderSearchSpec> search = search_of(a, cmd, spec.load);
  if (!a.kv_budget.empty()) {
    spec.kv_budget_bytes = parse_bytes(a.kv_budget, "--kv-budget");
    if (spec.kv_budget_bytes == 0) throw UsageError("--kv-budget 0: give the memory the KV cache may take, e.g. 2GB");
  }
  if (!a.slo.empty()) spec.slo = parse_serving_slo(a.slo);
  if (cmd.count("--percentile")) {
    capacity::check_percentile(a.percentile);
    spec.slo.percentile = a.percentile;
  }
  if (search && a.s.find_peak) capacity::check_peak_can_hold(spec);
  spec.threads = a.levers.threads.empty() ? 0 : a.levers.threads.front();
  set_instances(a, spec);
  spec.seed = a.s.seed;
  spec.predict = !a.no_predict;
  spec.step_timeout = std::chrono::milliseconds(static_cast<int64_t>(a.s.timeout_s * 1000));
  std::optional<gen::JsonlRequestSink> records;
  if (!a.queries_csv.empty()) {
    records.emplace(a.queries_csv);
    spec.sink = &*records;
  }
  InterruptWatcher watcher("rooflens capacity: interrupted — stopping and writing the partial result", [] {});
  spec.interrupted = &watcher.flag();
  if (!a.quiet) spec.progress = [](const std::string& what) { std::cerr << "rooflens capacity: " << what << "\n"; };

  std::unique_ptr<Backend> backend = make_backend(parse_backend_spec(a.backend));
  if (!backend->serving()) throw UsageError(cannot_serve(a.backend));
  Report rep;
  rep.tool = tool_info("capacity");
  ShapeOverrides one_step;  // the model as one decode step sees it: its summary names it, counts its weights
  one_step.shapes = step_shapes(io, 1, 1, 0);
  rep.model = summarize_model(load_model(a.model, one_step));
  rep.model.path = a.model;
  rep.backends = {backend->info()};
  bool valid = false;
  if (search) {
    rep.serving_search = capacity::search_decoder(spec, *search, *backend);
    const auto& runs = rep.serving_search->runs;
    rep.partial = std::any_of(runs.begin(), runs.end(), [](const ServingResult& r) { return r.interrupted; });
    valid = rep.serving_search->kind == "sweep" ? !runs.empty() && rep.serving_search->stopped.empty()
                                                : rep.serving_search->peak > 0;
  } else {
    rep.serving = capacity::serve_decoder(spec, *backend);
    rep.partial = rep.serving->interrupted;
    valid = rep.serving->verdict.valid;
  }
  rep.serving_roofline = explain_on_roofline(a, spec, search, rep);
  if (a.json) std::cout << report_to_json(rep);
  else if (rep.serving_search) std::cout << serving_search_summary(*rep.serving_search, a.model, rep.backends.front().runtime);
  else std::cout << serving_summary(*rep.serving, a.model, rep.backends.front().runtime);
  if (!a.json && rep.serving_roofline) std::cout << serving_roofline_line(*rep.serving_roofline);
  if (!a.out_json.empty()) {
    write_file_atomically(a.out_json, report_to_json(rep));
    if (!a.quiet) std::cerr << "rooflens capacity: report written to " << a.out_json << "\n";
  }
  if (!a.html.empty()) {
    write_file_atomically(a.html, html_report(rep));
    if (!a.quiet) std::cerr << "rooflens capacity: HTML report written to " << a.html << "\n";
  }
  if (!a.quiet && records) std::cerr << "rooflens capacity: request records written to " << a.queries_csv << "\n";
  if (rep.partial) return 1;  // an interrupted run is not history
  return worst_exit(valid ? 0 : 1, store_report(a.db, rep, "capacity", a.quiet, serving_settings_json(rep)));
}

}  // namespace rooflens::cli
