#include "compare/sources.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compare/capacity_items.h"
#include "compare/projection_items.h"
#include "compare/generation_items.h"
#include "compare/serving_items.h"
#include "core/comparison.h"
#include "core/errors.h"

namespace fs = std::filesystem;

namespace rooflens {
namespace {

std::string stage_message(const std::string& stage, const std::string& message) {
  return one_line(stage.empty() ? message : stage + ": " + message);
}

const std::map<std::string, const char*>& bench_statuses() {
  static const std::map<std::string, const char*> m{{"pass", status::kPass},       {"fail", status::kFail},
                                                    {"timeout", status::kTimeout}, {"crash", status::kCrash},
                                                    {"skip", status::kSkip}};
  return m;
}

// Adds an item, a later one with the same key replacing the earlier one in place.
void add_item(CompareSource& src, CompareItem item) {
  auto same = [&](const CompareItem& i) { return i.model == item.model && i.config == item.config; };
  auto it = std::find_if(src.items.begin(), src.items.end(), same);
  if (it != src.items.end()) *it = std::move(item);
  else src.items.push_back(std::move(item));
}

// The highest fp32 compute roof of `roofs` at the thread count nearest `threads`.
const ComputeRoof* top_fp32_roof(const std::vector<ComputeRoof>& roofs, int64_t threads) {
  const ComputeRoof* best = nullptr;
  auto distance = [threads](const ComputeRoof& c) { return std::llabs(c.threads - threads); };
  for (const ComputeRoof& c : roofs)
    if (c.dtype == "fp32" && (!best || distance(c) < distance(*best) ||
                              (distance(c) == distance(*best) && c.gflops > best->gflops)))
      best = &c;
  return best;
}

// What the report says of the roofs and threads a run met (CompareItem's "why slower" fields).
void add_run_context(CompareItem& item, const ProfileRun& run, const std::optional<HardwareInfo>& hw) {
  item.threads = run.threads;
  for (const RunSetting& s : run.settings)
    if (s.name == "intra_op_threads" && s.source == SettingSource::observed) item.threads_note = s.note;
  item.roofs_engine = run.roofs_engine;
  if (!hw) return;
  const EngineRoofs* engine = run.roofs_engine.empty() ? nullptr : find_engine_roofs(*hw, run.roofs_engine);
  if (const ComputeRoof* c = top_fp32_roof(engine ? engine->compute : hw->compute, run.threads)) {
    item.compute_roof = c->name + " x" + std::to_string(c->threads);
    item.compute_roof_gflops = c->gflops;
  }
}

CompareItem item_from_run(const ProfileRun& run, const std::string& model) {
  CompareItem item;
  item.model = model;
  item.config = run.label();
  item.status = status::kPass;
  item.samples_ms = run.latencies_ms;
  item.repetitions = run.repetitions;
  item.live_turns = !run.repetitions_are_fresh_runs();
  item.stats = run.latency_ms;
  item.peak_rss_bytes = run.peak_rss_bytes;
  item.page_faults_per_run = run.page_faults_per_run;
  item.layers = run.layers;
  item.profile_config = run.key();
  return item;
}

// The run a failure belongs to when a later repetition of that very configuration failed (--repeat): same
// resolved batch, threads and dims. A failure before the model loaded records the configuration as requested and
// never ran, so it cannot equal a run exactly.
CompareItem* run_failed_later(CompareSource& src, const Failure& f) {
  for (auto& item : src.items) {
    if (item.status != status::kPass || !item.profile_config) continue;
    if (*item.profile_config == f.key()) return &item;
  }
  return nullptr;
}

CompareItem item_from_failure(const Failure& f, const std::string& model) {
  CompareItem item;
  item.model = model;
  item.config = f.label();
  item.status = status::of_failure(f.kind);
  item.error = stage_message(f.stage, f.message);
  item.profile_config = f.key();
  item.config_requested = true;
  return item;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path + ": cannot open it (give a profile report JSON or a bench results directory)");
  std::stringstream text;
  text << f.rdbuf();
  if (f.bad()) throw UserError(path + ": cannot read it");
  return text.str();
}

using SourceReader = std::function<CompareSource(const std::string& text, const std::string& path)>;

CompareSource read_report_source(const std::string& text, const std::string& path) {
  Report r = report_from_json(text);
  if (!r.is_profile())
    throw UserError("not a profile report (it has no runs); make one with `rooflens profile MODEL -f FILE` (or "
                    "`rooflens generate MODEL -f FILE` for a decoder, `rooflens capacity MODEL -o FILE` for serving)");
  return source_from_report(r, path);
}

// Which reader a document's "schema" asks for.
const std::map<std::string, SourceReader>& readers() {
  static const std::map<std::string, SourceReader> m{
      {kReportSchema, read_report_source},
      {kReportSchemaV1, read_report_source},
      {kBenchSchema,
       [](const std::string& text, const std::string& path) {
         return source_from_bench(bench_results_from_json(text), path);
       }},
  };
  return m;
}

}  // namespace

bool could_be_same_config(const RunKey& requested, const RunKey& ran) {
  if (requested.backend != ran.backend) return false;
  if (requested.batch > 0 && requested.batch != ran.batch) return false;
  if (requested.threads > 0 && requested.threads != ran.threads) return false;
  for (const auto& [k, v] : requested.dims) {
    auto it = ran.dims.find(k);
    if (it == ran.dims.end() || it->second != v) return false;
  }
  return true;
}

CompareSource source_from_report(const Report& r, const std::string& path) {
  CompareSource src;
  src.path = path;
  src.kind = kReportSource;
  src.partial = r.partial;
  std::string model = r.model.name.empty() ? fs::path(r.model.path).stem().string() : r.model.name;
  for (const auto& b : r.backends) {
    std::string runtime = b.runtime.empty() ? b.name + " " + b.version : b.runtime;
    src.runtime += (src.runtime.empty() ? "" : " + ") + runtime;
    for (const auto& [k, v] : b.options)
      src.backend_options += (src.backend_options.empty() ? "" : " ") + (r.backends.size() > 1 ? b.label + ":" : "") +
                             k + "=" + v;
  }
  const bool serving = r.serving || r.serving_search;
  src.description = std::string(r.generation ? "generation" : serving ? "serving" : r.capacity ? "capacity" : "profile") +
                    " report of " + model +
                    (src.runtime.empty() ? "" : " on " + src.runtime) +
                    (src.backend_options.empty() ? "" : " with " + src.backend_options);
  if (r.generation) {  // TTFT and TPOT items per configuration (compare/generation_items.h)
    add_generation_items(src, r, model);
    return src;
  }
  if (serving) {  // TTFT, TPOT and output ms/token per run (compare/serving_items.h)
    add_serving_items(src, r, model);
    return src;
  }
  if (add_projection_items(src, r, model)) return src;  // compare/projection_items.h: the projection is this side
  if (r.capacity) add_capacity_items(src, r, model);  // compare/capacity_items.h; its runs[]: layers under load
  for (const auto& run : r.runs) {
    CompareItem item = item_from_run(run, model);
    add_run_context(item, run, r.hardware);
    add_item(src, std::move(item));
  }
  for (const auto& f : r.failures) {
    CompareItem failed = item_from_failure(f, model);
    if (CompareItem* ran = run_failed_later(src, f)) {
      failed.config = ran->config;  // the label the configuration's passing runs carry in the other report
      *ran = std::move(failed);
    } else {
      add_item(src, std::move(failed));
    }
  }
  return src;
}

CompareSource source_from_bench(const BenchResults& r, const std::string& path) {
  CompareSource src;
  src.path = path;
  src.kind = kBenchSource;
  src.partial = r.partial;
  if (!r.configs.empty()) src.runtime = r.configs.front().backend.runtime;
  src.description = "bench results (" + std::to_string(r.entries.size()) + " entries" +
                    (src.runtime.empty() ? "" : ", " + src.runtime) + ")";
  for (const auto& e : r.entries) {
    CompareItem item;
    item.model = e.model;
    item.config = e.config;
    auto it = bench_statuses().find(e.status);
    item.status = it == bench_statuses().end() ? status::kFail : it->second;
    if (item.status != status::kPass) item.error = stage_message(e.stage, e.message);
    item.samples_ms = e.latencies_ms;
    item.repetitions = e.repetitions;
    item.stats = e.latency_ms;
    item.peak_rss_bytes = e.peak_rss_bytes > 0 ? static_cast<uint64_t>(e.peak_rss_bytes) : 0;
    add_item(src, std::move(item));
  }
  return src;
}

CompareSource load_compare_source(const std::string& path) {
  std::error_code ec;
  std::string file = fs::is_directory(path, ec) ? (fs::path(path) / "results.json").string() : path;
  if (file != path && !fs::exists(file, ec))
    throw UserError(path + ": a directory without results.json (not a `rooflens bench` results directory)");
  std::string text = read_text(file);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  std::string schema;
  if (doc.is_object() && doc.contains("schema") && doc["schema"].is_string()) schema = doc["schema"].get<std::string>();
  auto reader = readers().find(schema);
  if (reader == readers().end())
    throw UserError(file + ": " +
                    (doc.is_discarded() ? std::string("not JSON")
                                        : schema.empty() ? std::string("no \"schema\" field")
                                                         : "unknown schema '" + schema + "'") +
                    " (compare reads profile reports, " + kReportSchema + ", and bench results, " + kBenchSchema + ")");
  try {
    return reader->second(text, file);
  } catch (const UserError& e) {
    throw UserError(file + ": " + e.what());
  }
}

}  // namespace rooflens
