// Trace export: Chrome trace-event JSON (loads in Perfetto and chrome://tracing) of one profiled iteration.
// One process; one thread track per run, named by its configuration; one complete event ("ph":"X") per layer,
// ts/dur in microseconds. A layer starts at its recorded offset in the first measured profiled iteration
// (start_ms), but its duration is the median over iterations, so a layer that would overlap the previous one
// starts where that one ends instead: each track stays sequential, in execution order.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "reporters/export.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

using json = nlohmann::ordered_json;

constexpr int kPid = 1;

json metadata(const char* name, int tid, json args) {
  return {{"name", name}, {"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"ts", 0}, {"args", std::move(args)}};
}

json layer_args(const Layer& l) {
  return {{"op", l.op},
          {"onnx_nodes", l.onnx_nodes},
          {"flops", l.flops},
          {"macs", l.macs},
          {"bytes", l.bytes},
          {"input_shapes", l.input_shapes},
          {"output_shapes", l.output_shapes},
          {"provider", l.provider},
          {"alias", l.alias},
          {"time_ms", l.time_ms},
          {"share", l.share},
          {"recorded_start_ms", l.start_ms},
          {"gflops", l.gflops},
          {"gbps", l.gbps},
          {"intensity", l.intensity},
          {"bound", l.bound},
          {"efficiency", l.efficiency}};
}

void add_run(json& events, const ProfileRun& run, int tid) {
  events.push_back(metadata("thread_name", tid, {{"name", "run " + std::to_string(tid) + ": " + run.label()}}));
  events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
  double end_us = 0;
  for (const Layer& l : run.layers) {
    double ts = std::max(l.start_ms * 1000.0, end_us);
    double dur = std::max(l.time_ms * 1000.0, 0.0);
    events.push_back({{"name", l.name}, {"cat", l.op}, {"ph", "X"}, {"pid", kPid}, {"tid", tid},
                      {"ts", ts}, {"dur", dur}, {"args", layer_args(l)}});
    end_us = ts + dur;
  }
}

}  // namespace

// One event per line: compact for big traces, still readable and diff-able.
std::string export_trace(const Report& r, const ExportOptions&) {
  json events = json::array();
  std::string process = "rooflens profile: " + r.model.name;
  if (r.is_profile()) process += " on " + runtimes_text(r);
  events.push_back(metadata("process_name", 0, {{"name", process}}));
  for (size_t i = 0; i < r.runs.size(); ++i) add_run(events, r.runs[i], static_cast<int>(i + 1));
  json other = {{"model", r.model.name},
                {"tool", "rooflens " + r.tool.version},
                {"note", "one profiled iteration per track: kernel medians laid out from the first measured "
                         "iteration's start offsets"}};
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string out = "{\"traceEvents\":[\n";
  for (size_t i = 0; i < events.size(); ++i) out += dump(events[i]) + (i + 1 < events.size() ? ",\n" : "\n");
  out += "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + dump(other) + "}\n";
  return out;
}

}  // namespace rooflens
