#include "backends/onnxruntime/ort_profile.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace rooflens::ort {

namespace {

using json = nlohmann::json;

// Timestamps and durations beyond this (µs: ~146,000 years) are not ORT's: refused, so sums cannot overflow.
constexpr int64_t kMaxMicros = int64_t{1} << 62;

// ORT writes most numbers in args as strings ("node_index":"12"); accept both forms. Values out of int64 range
// (a hostile or corrupt file) read as absent.
std::optional<int64_t> as_int(const json& v) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    int64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && p == s.data() + s.size()) return out;
  }
  return std::nullopt;
}

std::string as_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// [{"float":[1,3,224,224]}, {"int64":[2]}]
std::vector<OrtTypeShape> type_shapes(const json& v) {
  std::vector<OrtTypeShape> out;
  if (!v.is_array()) return out;
  for (const auto& item : v) {
    if (!item.is_object()) continue;
    for (const auto& [dtype, dims] : item.items()) {
      OrtTypeShape ts;
      ts.dtype = dtype;
      if (dims.is_array()) {
        for (const auto& d : dims) ts.dims.push_back(as_int(d).value_or(-1));
      }
      out.push_back(std::move(ts));
    }
  }
  return out;
}

constexpr std::string_view kKernelSuffix = "_kernel_time";

}  // namespace

OrtProfile parse_ort_profile(std::string_view text, const std::string& source) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    throw UserError(source + ": not valid JSON (a truncated ORT profile? ORT writes the file on endProfiling)");
  }
  if (doc.is_object() && doc.contains("traceEvents")) doc = std::move(doc["traceEvents"]);
  if (!doc.is_array()) throw UserError(source + ": not an ONNX Runtime profile (expected a JSON array of events)");

  OrtProfile prof;
  prof.events.reserve(doc.size());
  for (std::size_t i = 0; i < doc.size(); ++i) {
    json& e = doc[i];
    auto where = [&] { return source + ": event " + std::to_string(i); };
    if (!e.is_object()) throw UserError(where() + " is not an object");
    OrtProfileEvent ev;
    ev.cat = e.contains("cat") ? as_string(e["cat"]) : "";
    ev.name = e.contains("name") ? as_string(e["name"]) : "";
    if (e.contains("ph")) ev.ph = as_string(e["ph"]);
    auto ts = e.contains("ts") ? as_int(e["ts"]) : std::nullopt;
    if (!ts) throw UserError(where() + " ('" + ev.name + "') has no numeric 'ts'");
    if (*ts < -kMaxMicros || *ts > kMaxMicros) throw UserError(where() + " ('" + ev.name + "') has a 'ts' out of range");
    ev.ts_us = *ts;
    if (e.contains("dur")) {
      auto dur = as_int(e["dur"]);
      if (!dur || *dur < 0 || *dur > kMaxMicros) throw UserError(where() + " ('" + ev.name + "') has a bad 'dur'");
      ev.dur_us = *dur;
    } else if (ev.ph == "X") {
      throw UserError(where() + " ('" + ev.name + "') is a complete event without 'dur'");
    }
    if (e.contains("pid")) ev.pid = as_int(e["pid"]).value_or(0);
    if (e.contains("tid")) ev.tid = as_int(e["tid"]).value_or(0);

    if (e.contains("args") && e["args"].is_object()) {
      ev.args = std::move(e["args"]);
      const json& a = ev.args;
      if (a.contains("op_name")) ev.op_name = as_string(a["op_name"]);
      if (a.contains("provider")) ev.provider = as_string(a["provider"]);
      if (a.contains("node_index")) ev.node_index = as_int(a["node_index"]).value_or(-1);
      if (a.contains("input_type_shape")) ev.input_type_shape = type_shapes(a["input_type_shape"]);
      if (a.contains("output_type_shape")) ev.output_type_shape = type_shapes(a["output_type_shape"]);
      if (a.contains("activation_size")) ev.activation_size = as_int(a["activation_size"]);
      if (a.contains("parameter_size")) ev.parameter_size = as_int(a["parameter_size"]);
      if (a.contains("output_size")) ev.output_size = as_int(a["output_size"]);
      if (a.contains("thread_scheduling_stats")) {
        const json& s = a["thread_scheduling_stats"];
        if (s.is_object() && s.contains("main_thread") && s["main_thread"].is_object() &&
            s["main_thread"].contains("thread_id")) {
          ev.thread_id = as_string(s["main_thread"]["thread_id"]);
        }
      }
    } else {
      ev.args = json::object();
    }
    if (ev.cat == "Node") {
      std::string_view n = ev.name;
      if (n.size() > kKernelSuffix.size() && n.substr(n.size() - kKernelSuffix.size()) == kKernelSuffix) {
        n.remove_suffix(kKernelSuffix.size());
      }
      ev.node_name = std::string(n);
    }
    if (ev.cat == "Session" && ev.name == "model_run") prof.runs.push_back({ev.ts_us, ev.dur_us});
    prof.events.push_back(std::move(ev));
  }

  std::sort(prof.runs.begin(), prof.runs.end(),
            [](const OrtProfileRun& a, const OrtProfileRun& b) { return a.ts_us < b.ts_us; });
  // A kernel belongs to the last run that started at or before it, if it also ends inside that run.
  for (auto& ev : prof.events) {
    if (!ev.is_kernel()) continue;
    auto it = std::upper_bound(prof.runs.begin(), prof.runs.end(), ev.ts_us,
                               [](int64_t ts, const OrtProfileRun& r) { return ts < r.ts_us; });
    if (it == prof.runs.begin()) continue;
    --it;
    if (ev.ts_us <= it->ts_us + it->dur_us) ev.run_index = static_cast<int>(it - prof.runs.begin());
  }
  return prof;
}

OrtProfile read_ort_profile(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path.string() + ": cannot open the ORT profile");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_ort_profile(ss.str(), path.string());
}

std::vector<const OrtProfileEvent*> OrtProfile::kernel_events(int first_run) const {
  std::vector<const OrtProfileEvent*> out;
  for (const auto& ev : events) {
    if (ev.is_kernel() && ev.run_index >= first_run) out.push_back(&ev);
  }
  return out;
}

std::vector<int64_t> OrtProfile::run_durations_us(int first_run) const {
  std::vector<int64_t> out;
  for (std::size_t i = first_run < 0 ? 0 : static_cast<std::size_t>(first_run); i < runs.size(); ++i) {
    out.push_back(runs[i].dur_us);
  }
  return out;
}

}  // namespace rooflens::ort
