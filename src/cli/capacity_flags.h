#pragma once
// The flags of `rooflens capacity`, bound to the requested settings and the lever lists (capacity/loadgen/settings.h),
// plus the few that need parsing first (durations with units, percentages, the scenario's name) or that are set only
// when given (a figure whose default is the scenario's).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "capacity/loadgen/settings.h"
#include "cli/db_flags.h"
#include "cli/fleet_flags.h"
#include "cli/shape_flags.h"

namespace rooflens::cli {

struct CapacityCommand {
  capacity::Requested s;
  double qps = 0, percentile = 0, duration_s = 0;  // set in `s` only when given (parse_capacity_flags)
  int64_t samples_per_query = 0, min_queries = 0;
  capacity::LeverLists levers;
  std::string model, scenario = "server", slo, batch_timeout = "2ms", precision = "2%", budget = "600s";
  std::string backend = "onnxruntime", queries_csv, out_json, html, roofs;
  std::vector<std::string> inputs;
  ShapeFlags shape;
  DbFlags db;
  FleetFlags fleet;  // --slurm N: --search's grid as N array tasks, one configuration each
  bool json = false, quiet = false, no_roofs = false, no_predict = false;
  // A decoder's generative scenarios (cli/capacity_decoder.h)
  std::string input_tokens = "128", output_tokens, trace, batching = "continuous", prefill = "separate", kv_budget;
  std::string sweep;  // "max-batch=1,2,4,8"
  double burstiness = 1;
  int64_t users = 0, requests = 0, max_batched_tokens = 512;
};

void add_capacity_flags(CLI::App& cmd, CapacityCommand& a);

// Turns the text flags into the settings, and the figures given on `cmd` into the requested ones (UsageError naming
// the flag on a malformed value).
void parse_capacity_flags(CapacityCommand& a, const CLI::App& cmd);

// --search --slurm: the grid of the lever lists given on `cmd` (instances outermost, then threads, concurrency,
// batch, max batch — expand()'s order), one task's words per configuration ("--instances=2", "--threads=1", ...).
// Throws UsageError for what a capacity fleet cannot do (no --search, a file every task would write).
FleetShape capacity_fleet_shape(const CapacityCommand& a, const CLI::App& cmd);

// "15ms", "2.5 ms", "0.5s", "300us", "15" (ms) -> milliseconds. Throws UsageError naming `flag`.
double parse_duration_ms(const std::string& text, const std::string& flag);
// "2GB", "512MiB", "1.5 GB", "1000000" (bytes) -> bytes. Throws UsageError naming `flag`.
uint64_t parse_bytes(const std::string& text, const std::string& flag);
// "2%" or "0.02" -> 0.02. Throws UsageError naming `flag`.
double parse_fraction(const std::string& text, const std::string& flag);

// The one line for -B `backend` when its backend serves no queries (Backend::serving() null): OpenCV's, a Chromium
// page's.
std::string cannot_serve(const std::string& backend);

}  // namespace rooflens::cli
