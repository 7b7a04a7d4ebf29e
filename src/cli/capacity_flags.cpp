#include "cli/capacity_flags.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "cli/output_flags.h"
#include "core/errors.h"

namespace rooflens::cli {
namespace {

double number_prefix(const std::string& text, const std::string& flag, std::string& unit,
                     const std::string& example = "15ms") {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v))
    throw UsageError(flag + " " + text + ": give a number with a unit, e.g. " + flag + " " + example);
  unit = std::string(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  return v;
}

}  // namespace

double parse_duration_ms(const std::string& text, const std::string& flag) {
  std::string unit;
  const double v = number_prefix(text, flag, unit);
  if (unit.empty() || unit == "ms") return v;
  if (unit == "s") return v * 1000;
  if (unit == "us") return v / 1000;
  throw UsageError(flag + " " + text + ": the unit must be ms, s or us (e.g. " + flag + " 15ms)");
}

uint64_t parse_bytes(const std::string& text, const std::string& flag) {
  std::string unit;
  const double v = number_prefix(text, flag, unit, "2GB");
  static const std::pair<const char*, double> units[] = {{"", 1},       {"B", 1},          {"KB", 1e3},
                                                         {"MB", 1e6},   {"GB", 1e9},       {"TB", 1e12},
                                                         {"KiB", 1024}, {"MiB", 1 << 20}, {"GiB", 1 << 30}};
  for (const auto& [name, scale] : units)
    if (unit == name && v >= 0 && v * scale < 1.8e19) return static_cast<uint64_t>(v * scale);
  throw UsageError(flag + " " + text + ": give a size such as 2GB, 512MiB or a number of bytes");
}

double parse_fraction(const std::string& text, const std::string& flag) {
  std::string unit;
  const double v = number_prefix(text, flag, unit);
  if (unit == "%") return v / 100;
  if (unit.empty()) return v;
  throw UsageError(flag + " " + text + ": give a percentage (2%) or a fraction (0.02)");
}

void add_capacity_flags(CLI::App& cmd, CapacityCommand& a) {
  cmd.add_option("model", a.model, "ONNX model file (not needed with --self-test)")->check(CLI::ExistingFile);
  cmd.add_option("--scenario", a.scenario, "MLPerf scenario (a decoder: server, concurrency or offline)")
      ->check(CLI::IsMember({"single-stream", "multi-stream", "server", "offline", "concurrency"}))
      ->capture_default_str();
  cmd.add_option("--qps", a.qps, "Server: Poisson arrival rate, queries per second (with --find-peak: the first guess)");
  cmd.add_option("--slo", a.slo, "Server: the latency bound at the percentile, e.g. 15ms (counted from each query's "
                                  "scheduled time); a decoder: ttft=2s,tpot=100ms[,e2e=...] or an MLPerf preset "
                                  "(llama3.1-8b, llama2-70b-interactive, ...)");
  cmd.add_option("--percentile", a.percentile, "The percentile judged (default: server and multi-stream 99, "
                                                 "single-stream 90)");
  cmd.add_option("--samples-per-query", a.samples_per_query, "Multi-stream: samples per query (default 8, MLPerf's)");
  cmd.add_flag("--find-peak", a.s.find_peak,
               "Server: search the highest VALID QPS (bracket, then bisect; from --qps, else from 0.8 × an Offline run "
               "made first); a decoder: the highest VALID rate, or with --scenario concurrency the most users, from "
               "the predicted peak");
  cmd.add_option("--precision", a.precision, "--find-peak stops when the bracket is this narrow")->capture_default_str();
  cmd.add_option("--duration", a.duration_s, "Minimum seconds per run (default 10; MLPerf: 600; 0: the query count decides)");
  cmd.add_option("--min-queries", a.min_queries, "Minimum queries per run (default: what the percentile's early "
                                                   "stopping needs with one query over its limit)");
  cmd.add_option("--max-queries", a.s.max_queries, "Stop a run after this many queries (0: no cap)");
  cmd.add_flag("--mlperf-durations", a.s.mlperf_durations,
               "MLPerf's minimums: 600 s per run, offline 24,576 samples, multi-stream 662 queries");
  cmd.add_option("--instances", a.levers.instances,
                 "Runner processes, each with its own inference session (a list with --search)")
      ->delimiter(',');
  cmd.add_option("--threads", a.levers.threads, "Intra-op threads per instance (default: the cores rooflens may use "
                                                "divided among the instances; always passed explicitly)")
      ->delimiter(',');
  cmd.add_option("--concurrency", a.levers.concurrency, "Messages in flight to each instance's runner, so it never "
                                                        "idles between queries (default: offline 2, else 1)")
      ->delimiter(',');
  cmd.add_option("-b,--batch", a.levers.batch, "Samples per query (a list with --search)")->delimiter(',');
  cmd.add_option("--max-batch", a.levers.max_batch, "Dynamic batching: merge queued queries into runs of up to this many "
                                                    "samples (needs a dynamic batch dim)")
      ->delimiter(',');
  cmd.add_option("--batch-timeout", a.batch_timeout, "Dynamic batching: the longest a query waits for a fuller batch")
      ->capture_default_str();
  cmd.add_flag("--pin", a.levers.pin, "Pin each instance to its own whole cores");
  cmd.add_flag("--oversubscribe", a.s.oversubscribe, "Allow instances x threads above the cores rooflens may use");
  cmd.add_flag("--search", a.s.search, "Try the grid of --instances/--threads/--concurrency/-b/--max-batch lists: "
                                       "Offline throughput and, with --slo, the Server peak of each");
  cmd.add_option("--budget", a.budget,
                 "--search starts no configuration (a decoder's --find-peak no point) after this long")
      ->capture_default_str();
  cmd.add_option("--samples", a.s.sample_count, "Samples prepared in each instance (each a seeded input)")
      ->capture_default_str();
  cmd.add_option("--seed", a.s.seed, "Seed of the schedule and the samples")->capture_default_str();
  cmd.add_option("--input", a.inputs, "Feed an input from a file: NAME=FILE (.pb TensorProto or .npy)");
  a.shape.add_to(cmd, false);
  cmd.add_option("-B,--backend", a.backend, "Backend and its options: onnxruntime[:key=value,...], opencv")
      ->capture_default_str();
  cmd.add_option("--timeout", a.s.timeout_s, "Seconds an instance may hold a message before it counts as hung")
      ->capture_default_str();
  cmd.add_option("--queries", a.queries_csv, "Stream every query's record to this CSV as it finishes (a decoder: one "
                                             "JSON line per request, with its token times)");
  cmd.add_flag("--profile-layers", a.s.profile_layers, "Server: one per-layer profile per instance under load");
  cmd.add_flag("--no-predict", a.no_predict, "Skip the single-stream baseline and the queueing prediction");
  cmd.add_flag("--self-test", a.s.self_test, "Measure the generator itself on a one-Identity model and exit");
  // A decoder with a KV cache selects the generative scenarios (docs/capacity.md, "Generative serving").
  cmd.add_option("--users", a.users, "Decoder, concurrency: users, each sending its next request when its last one "
                                     "finished (default: --max-batch)");
  cmd.add_option("--requests", a.requests, "Decoder: requests in the run (default 500; a trace: its lines)");
  cmd.add_option("--input-tokens", a.input_tokens, "Decoder: prompt lengths: 128, uniform:64-256, normal:550,150, or "
                                                   "pairs 128:32@70,512:128@30")
      ->capture_default_str();
  cmd.add_option("--output-tokens", a.output_tokens, "Decoder: output lengths, forms as --input-tokens (default 32; "
                                                     "end-of-sequence is ignored, so each is exact)");
  cmd.add_option("--trace", a.trace, "Decoder: replay a JSONL trace of {timestamp (ms), input_tokens, output_tokens}");
  cmd.add_option("--burstiness", a.burstiness, "Decoder, server: the arrival gaps' gamma shape (1: Poisson; below 1 "
                                               "burstier)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--batching", a.batching, "Decoder: continuous (iteration-level) or static batches")
      ->check(CLI::IsMember({"continuous", "static"}))
      ->capture_default_str();
  cmd.add_option("--prefill", a.prefill, "Decoder: prompts in steps of their own (separate) or in chunks beside "
                                         "the decodes (chunked)")
      ->check(CLI::IsMember({"separate", "chunked"}))
      ->capture_default_str();
  cmd.add_option("--max-batched-tokens", a.max_batched_tokens, "Decoder: tokens one step may feed")
      ->capture_default_str();
  cmd.add_option("--sweep", a.sweep, "Decoder: one run per value of one lever, max-batch=1,2,4,8 | users=1,2,4 | "
                                     "qps=0.5,1,2, and the Pareto front of tokens/s per user against tokens/s");
  cmd.add_option("--kv-budget", a.kv_budget, "Decoder: KV-cache memory the requests in flight may reserve, e.g. 2GB "
                                             "(default: half the free memory); a request that does not fit waits");
  add_output_option(cmd, a.out_json, "Write the JSON report here");
  cmd.add_flag("--json", a.json, "Print the JSON report on stdout instead of the summary");
  cmd.add_option("--html", a.html, "Write the report as one self-contained HTML page");
  cmd.add_option("--roofs", a.roofs, "Ceilings from this file instead of this machine's measured ones");
  cmd.add_flag("--no-roofs", a.no_roofs, "Do not explain the capacity against roofs (no hw measurement)");
  cmd.add_flag("-q,--quiet", a.quiet, "No progress on stderr");
  a.db.add_to(cmd);
  a.fleet.add_to(cmd);
}

FleetShape capacity_fleet_shape(const CapacityCommand& a, const CLI::App& cmd) {
  if (!a.s.search)
    throw UsageError("--slurm runs --search's grid, one configuration per task: give --search and the lists "
                     "(--instances 1,2 --threads 1,2 ...)");
  if (!a.html.empty() || !a.queries_csv.empty() || a.s.self_test)
    throw UsageError("--html, --queries and --self-test write one file or measure this machine: with --slurm each task "
                     "writes its own -o report (rooflens report REPORT.json makes its HTML)");
  FleetShape shape{"capacity", false, {{}}, {"--instances", "--threads", "--concurrency", "--batch", "--max-batch"}};
  for (const std::string& flag : shape.per_task_flags) {
    const CLI::Option* o = cmd.get_option_no_throw(flag);
    if (!o || o->count() == 0) continue;  // not given: every task takes the default
    std::vector<std::vector<std::string>> grid;
    for (const auto& words : shape.task_args)
      for (const std::string& v : o->results()) {
        grid.push_back(words);
        grid.back().push_back(flag + "=" + v);
      }
    shape.task_args = std::move(grid);
  }
  return shape;
}

void parse_capacity_flags(CapacityCommand& a, const CLI::App& cmd) {
  const std::optional<Scenario> scenario = scenario_from_string(a.scenario);
  if (!scenario)
    throw UsageError("--scenario " + a.scenario + ": only a decoder with a KV cache is served to users (" + a.model +
                     " is not one); give single-stream, multi-stream, server or offline");
  a.s.scenario = *scenario;
  if (cmd.count("--qps")) a.s.qps = a.qps;
  if (cmd.count("--percentile")) a.s.percentile = a.percentile;
  if (cmd.count("--samples-per-query")) a.s.samples_per_query = a.samples_per_query;
  if (cmd.count("--duration")) a.s.min_duration_s = a.duration_s;
  if (cmd.count("--min-queries")) a.s.min_queries = a.min_queries;
  if (!a.slo.empty()) a.s.slo_ms = parse_duration_ms(a.slo, "--slo");
  a.levers.batch_timeout_ms = parse_duration_ms(a.batch_timeout, "--batch-timeout");
  a.s.peak_precision = parse_fraction(a.precision, "--precision");
  a.s.search_budget_s = parse_duration_ms(a.budget, "--budget") / 1000;
  a.s.predict = !a.no_predict;
}

std::string cannot_serve(const std::string& backend) {
  return "-B " + backend + " cannot serve queries to a capacity run (a Chromium page serves one user; OpenCV has no "
         "serving runner): use -B onnxruntime, or -B ortweb for the web build in Node";
}

}  // namespace rooflens::cli
