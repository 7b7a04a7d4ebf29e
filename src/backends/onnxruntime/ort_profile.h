#pragma once
// ONNX Runtime profiles (enableProfiling): a JSON array of chrome-trace events, times in microseconds.
//
//   {"cat":"Session","name":"model_run","ts":..,"dur":..,"ph":"X","pid":..,"tid":..,"args":{}}
//   {"cat":"Node","name":"<node>_kernel_time","ts":..,"dur":..,"args":{"op_name":"Conv",
//    "provider":"CPUExecutionProvider","node_index":"12","input_type_shape":[{"float":[1,3,224,224]}, ...],
//    "output_type_shape":[...],"activation_size":"602112","parameter_size":"37632","output_size":"...",
//    "thread_scheduling_stats":{"main_thread":{"thread_id":"1396...", ...}, ...}, "mem_...": "..."}}
//
// ORT writes numbers inside args as strings; they are parsed here. Every Node event is assigned to the
// `model_run` (one per session.run) whose time span contains it, so callers can drop warm-up runs.
// Also accepts the chrome-trace object form {"traceEvents": [...]}, for profiles other tools rewrote.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rooflens::ort {

// ORT's profile writes kernel durations in whole microseconds: the step the roof check allows a kernel's time.
inline constexpr double kOrtKernelTimeStepMs = 0.001;

struct OrtTypeShape {
  std::string dtype;           // as ORT spells it: "float", "int64", "float16", ...
  std::vector<int64_t> dims;
};

struct OrtProfileEvent {
  std::string cat;             // "Session", "Node", ...
  std::string name;            // "model_run", "conv1_kernel_time", "fused conv1_kernel_time", ...
  std::string ph = "X";
  int64_t ts_us = 0, dur_us = 0;
  int64_t pid = 0, tid = 0;

  // From args (Node events; empty / -1 / nullopt when absent).
  std::string node_name;       // name without the "_kernel_time" suffix (the optimized graph's node name)
  std::string op_name;         // op type in the optimized graph, e.g. "FusedConv"
  std::string provider;        // "CPUExecutionProvider"
  int64_t node_index = -1;     // index into the optimized graph's nodes
  std::vector<OrtTypeShape> input_type_shape, output_type_shape;
  std::optional<int64_t> activation_size, parameter_size, output_size;  // bytes
  std::string thread_id;       // thread_scheduling_stats.main_thread.thread_id (ORT writes a string)
  nlohmann::json args;         // all args as written, for fields not lifted above (mem_*, scheduling stats)

  int run_index = -1;          // Node events: index into OrtProfile::runs of the run containing it, else -1

  bool is_kernel() const { return cat == "Node"; }
};

struct OrtProfileRun {
  int64_t ts_us = 0, dur_us = 0;  // one `model_run` Session event
};

struct OrtProfile {
  std::vector<OrtProfileEvent> events;  // in file order
  std::vector<OrtProfileRun> runs;      // `model_run` events sorted by start time

  // Node (kernel) events of runs [first_run, end); pass the warm-up count to drop warm-up iterations.
  std::vector<const OrtProfileEvent*> kernel_events(int first_run = 0) const;
  // Durations (µs) of runs [first_run, end).
  std::vector<int64_t> run_durations_us(int first_run = 0) const;
};

// `source` names the file (or stream) in error messages. Throws UserError (one line) when the text is not
// an ORT profile: not JSON, not an array of objects, an event without numeric ts/dur.
OrtProfile parse_ort_profile(std::string_view json_text, const std::string& source);
OrtProfile read_ort_profile(const std::filesystem::path& path);

}  // namespace rooflens::ort
