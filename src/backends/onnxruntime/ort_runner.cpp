#include "backends/onnxruntime/ort_runner.h"

#include <charconv>
#include <cstdlib>
#include <system_error>

#include "backends/onnxruntime/ort_web_memory.h"
#include "core/base64.h"

namespace rooflens::ort {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

int parse_int(std::string_view key, std::string_view v) {
  int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) {
    throw UsageError("onnxruntime option " + std::string(key) + ": '" + std::string(v) + "' is not an integer");
  }
  return out;
}

bool parse_bool(std::string_view key, std::string_view v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw UsageError("onnxruntime option " + std::string(key) + ": '" + std::string(v) + "' is not true/false");
}

std::string pick(std::string_view key, std::string_view v, std::initializer_list<std::string_view> allowed) {
  std::string list;
  for (auto a : allowed) {
    if (a == v) return std::string(v);
    list += (list.empty() ? "" : "|") + std::string(a);
  }
  throw UsageError("onnxruntime option " + std::string(key) + " must be one of " + list + ", got '" +
                   std::string(v) + "'");
}

template <class T>
T field(const json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  return j[key].get<T>();
}

std::vector<ValueInfo> value_infos(const json& list) {
  std::vector<ValueInfo> out;
  if (!list.is_array()) return out;
  for (const auto& m : list) {
    ValueInfo v;
    v.name = field<std::string>(m, "name", "");
    v.is_tensor = field<bool>(m, "is_tensor", true);
    v.dtype = field<std::string>(m, "dtype", "");
    if (m.contains("dims") && m["dims"].is_array()) {
      for (const auto& d : m["dims"]) {
        if (d.is_number_integer()) v.dims.emplace_back(d.get<int64_t>());
        else v.dims.emplace_back(d.is_string() ? d.get<std::string>() : d.dump());
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<double> doubles(const json& j, const char* key) {
  std::vector<double> out;
  if (j.contains(key) && j[key].is_array()) {
    out.reserve(j[key].size());
    for (const auto& v : j[key]) out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

std::vector<std::string> reply_warnings(const json& reply) {
  std::vector<std::string> out;
  if (reply.contains("warnings") && reply["warnings"].is_array())
    for (const auto& w : reply["warnings"])
      if (w.is_string()) out.push_back(w.get<std::string>());
  return out;
}

// ------------------------------------------------------------------------------------------------------------

namespace {

fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

fs::path locate_runner_script() {
  std::vector<fs::path> tried;
  if (const char* dir = std::getenv("ROOFLENS_RUNNER_DIR"); dir && *dir) {
    fs::path p = fs::path(dir) / "run.mjs";
    if (fs::is_regular_file(p)) return fs::absolute(p);
    // An explicit setting that points nowhere is a mistake worth reporting, not something to paper over.
    throw UserError("ROOFLENS_RUNNER_DIR is set to '" + std::string(dir) + "', but it holds no run.mjs");
  }
  if (fs::path exe_dir = executable_dir(); !exe_dir.empty()) {
    fs::path p = exe_dir / ".." / "runners" / "ort" / "run.mjs";
    tried.push_back(p.lexically_normal());
    if (fs::is_regular_file(p)) return fs::weakly_canonical(p);
  }
#ifdef ROOFLENS_SOURCE_DIR
  {
    fs::path p = fs::path(ROOFLENS_SOURCE_DIR) / "runners" / "ort" / "run.mjs";
    tried.push_back(p);
    if (fs::is_regular_file(p)) return p;
  }
#endif
  std::string list;
  for (auto& p : tried) list += (list.empty() ? "" : ", ") + p.string();
  throw UserError("cannot find the ONNX Runtime runner (runners/ort/run.mjs); looked at " + list +
                  "; set ROOFLENS_RUNNER_DIR to the folder that holds it");
}

bool runner_dependencies_installed(const fs::path& script) {
  return fs::is_regular_file(script.parent_path() / "node_modules" / "onnxruntime-node" / "package.json");
}

RunnerConfig runner_config(fs::path script, std::string node) {
  script = script.empty() ? locate_runner_script() : fs::absolute(script);
  if (!fs::is_regular_file(script))
    throw UserError("the ONNX Runtime runner script '" + script.string() + "' does not exist");
  RunnerConfig c;
  // --expose-gc: generate's memory generation collects the caller's garbage before every run (docs/memory.md).
  c.command = {std::move(node), "--expose-gc", script.string()};
  // onnxruntime-node's Linux library (1.30) carries Microsoft's 1DS telemetry, on unless this is set: it starts its
  // own threads beside the measured ones, would upload over HTTPS, and leaves mat-debug-PID.log and .ses in TMPDIR.
  c.env.push_back("ORT_DISABLE_TELEMETRY=1");
  c.name = "ONNX Runtime runner";
  c.missing_hint = "install Node.js, e.g. apt-get install nodejs";
  return c;
}

RunnerConfig with_process_options(RunnerConfig config, const OrtSessionOptions& o) {
  if (o.mallocMmapThreshold) config.env.push_back("MALLOC_MMAP_THRESHOLD_=" + std::to_string(*o.mallocMmapThreshold));
  if (o.build == "web") {
    config.command.insert(config.command.end(), {"--build", "web"});
    config.name = "ONNX Runtime Web runner";
    if (o.host == "chromium") {
      config.command.insert(config.command.end(), {"--host", "chromium"});
      if (!o.isolation) config.command.insert(config.command.end(), {"--isolation", "off"});
      config.name = "ONNX Runtime Web runner (Chromium)";
    }
  }
  return config;
}

ojson OrtSessionOptions::to_json() const {
  ojson o = ojson::object();
  if (!executionProviders.empty()) o["executionProviders"] = executionProviders;
  if (intraOpNumThreads) o["intraOpNumThreads"] = *intraOpNumThreads;
  if (interOpNumThreads) o["interOpNumThreads"] = *interOpNumThreads;
  if (graphOptimizationLevel) o["graphOptimizationLevel"] = *graphOptimizationLevel;
  if (executionMode) o["executionMode"] = *executionMode;
  if (enableCpuMemArena) o["enableCpuMemArena"] = *enableCpuMemArena;
  if (enableMemPattern) o["enableMemPattern"] = *enableMemPattern;
  if (!extra.empty()) {
    ojson e = ojson::object();
    for (const auto& [k, v] : extra) e[k] = v;  // flat dotted keys; the Node binding passes them through
    o["extra"] = std::move(e);
  }
  if (optimizedModelFilePath) o["optimizedModelFilePath"] = optimizedModelFilePath->string();
  if (!freeDimensionOverrides.empty()) {
    ojson f = ojson::object();
    for (const auto& [k, v] : freeDimensionOverrides) f[k] = v;
    o["freeDimensionOverrides"] = std::move(f);
  }
  if (logSeverityLevel) o["logSeverityLevel"] = *logSeverityLevel;
  return o;
}

void OrtSessionOptions::set(std::string_view key, std::string_view value) {
  if (key == "executionProviders") {
    executionProviders.clear();
    std::size_t start = 0;
    while (start <= value.size()) {
      auto end = value.find(';', start);
      if (end == std::string_view::npos) end = value.size();
      if (end > start) executionProviders.emplace_back(value.substr(start, end - start));
      start = end + 1;
    }
  } else if (key == "intraOpNumThreads") {
    intraOpNumThreads = parse_int(key, value);
  } else if (key == "interOpNumThreads") {
    interOpNumThreads = parse_int(key, value);
  } else if (key == "graphOptimizationLevel") {
    graphOptimizationLevel = pick(key, value, {"disabled", "basic", "extended", "layout", "all"});
  } else if (key == "executionMode") {
    executionMode = pick(key, value, {"sequential", "parallel"});
  } else if (key == "enableCpuMemArena") {
    enableCpuMemArena = parse_bool(key, value);
  } else if (key == "enableMemPattern") {
    enableMemPattern = parse_bool(key, value);
  } else if (key == "optimizedModelFilePath") {
    optimizedModelFilePath = fs::path(value);
  } else if (key == "mallocMmapThreshold") {
    const int v = parse_int(key, value);
    if (v < 0) throw UsageError("onnxruntime option mallocMmapThreshold: give a size in bytes >= 0, not '" + std::string(value) + "'");
    mallocMmapThreshold = static_cast<uint64_t>(v);
  } else if (key == "logSeverityLevel") {
    logSeverityLevel = parse_int(key, value);
  } else if (key.starts_with("freeDimensionOverrides.")) {
    freeDimensionOverrides[std::string(key.substr(23))] = parse_int(key, value);
  } else if (key.starts_with("extra.")) {
    extra[std::string(key.substr(6))] = std::string(value);
  } else if (key.starts_with("session.") || key.starts_with("optimization.") || key.starts_with("mlas.")) {
    extra[std::string(key)] = std::string(value);
  } else {
    throw UsageError("unknown onnxruntime option '" + std::string(key) +
                     "' (known: executionProviders, intraOpNumThreads, interOpNumThreads, graphOptimizationLevel, "
                     "executionMode, enableCpuMemArena, enableMemPattern, optimizedModelFilePath, logSeverityLevel, mallocMmapThreshold, "
                     "freeDimensionOverrides.<dim>, extra.<config key> or session.<config key>)");
  }
}

ojson Inputs::to_json() const {
  ojson o = ojson::object();
  ojson in = ojson::object();
  for (const auto& [name, s] : inputs) {
    ojson e = ojson::object();
    if (s.shape) e["shape"] = *s.shape;
    if (s.low) e["low"] = *s.low;
    if (s.high) e["high"] = *s.high;
    if (s.min) e["min"] = *s.min;
    if (s.max) e["max"] = *s.max;
    if (s.file) e["file"] = fs::absolute(*s.file).string();
    if (s.values) e["values"] = *s.values;
    in[name] = std::move(e);
  }
  o["inputs"] = std::move(in);
  ojson d = ojson::object();
  for (const auto& [k, v] : dims) d[k] = v;
  o["dims"] = std::move(d);
  o["seed"] = seed;
  if (test_data_dir) o["test_data_dir"] = fs::absolute(*test_data_dir).string();
  return o;
}

// ------------------------------------------------------------------------------------------------------------

OrtRunner::OrtRunner(RunnerConfig config) : process_(std::move(config)) { process_.start(); }

std::string OrtRunner::onnxruntime_version() const {
  const bool web = field<std::string>(hello(), "build", "node") == "web";
  return field<std::string>(hello(), web ? "onnxruntime_web" : "onnxruntime_node", "");
}
std::string OrtRunner::browser_version() const { return field<std::string>(hello(), "browser", ""); }
std::string OrtRunner::node_version() const { return field<std::string>(hello(), "node", ""); }

std::string OrtRunner::subject() const { return model_.empty() ? std::string("ONNX Runtime runner") : model_.string(); }

json OrtRunner::call(json message, std::chrono::milliseconds timeout) {
  const std::string op = field<std::string>(message, "op", "?");
  RunnerReply r = process_.ask(std::move(message), timeout);
  if (r.ok()) return std::move(r.body);
  std::string what;
  switch (r.status) {
    case ReplyStatus::error: {
      std::string stage = r.body.contains("error") ? field<std::string>(r.body["error"], "stage", "") : "";
      if (r.code == "ort" && stage == "load") what = "ONNX Runtime refused the model: " + r.message;
      else if (r.code == "ort") what = "ONNX Runtime failed in '" + op + "': " + r.message;
      else if (r.code == "bad_message") what = "the runner rejected '" + op + "': " + r.message;
      else what = r.message;
      break;
    }
    case ReplyStatus::not_running:
      what = "the ONNX Runtime runner is not running (an earlier failure ended it; restart it)";
      break;
    default:
      what = r.message;
  }
  throw RunnerError(r.status, r.code, subject() + ": " + what, std::move(r.stderr_tail), r.message);
}

namespace {

// The run records the process options rooflens asked for (ort_settings.cpp); a runner started without them (a
// caller that forgot with_process_options) would measure another allocator under that label: refuse it.
void check_process_settings(const json& load_reply, const OrtSessionOptions& options) {
  if (!options.mallocMmapThreshold || !load_reply.contains("process")) return;  // older runners do not say
  const json& p = load_reply["process"];
  const std::string want = std::to_string(*options.mallocMmapThreshold);
  const std::string got = p.value("malloc_mmap_threshold", json()).is_string()
                              ? p["malloc_mmap_threshold"].get<std::string>() : std::string("unset");
  if (got != want)
    throw UserError("the ONNX Runtime runner was started with MALLOC_MMAP_THRESHOLD_=" + got + ", not the " + want +
                    " that mallocMmapThreshold asks for (a rooflens bug: its runner was not given the process "
                    "options)");
}

}  // namespace

LoadResult OrtRunner::load(const fs::path& model, const OrtSessionOptions& options,
                           std::chrono::milliseconds timeout, const LoadExtras& extras) {
  model_ = model;
  // ONNX Runtime Web's inference session lives in one WebAssembly memory of at most 4 GiB: refused before loading.
  if (field<std::string>(hello(), "build", "node") == "web")
    if (std::string why = wasm_memory_refusal_of(model.string()); !why.empty())
      throw RunnerError(ReplyStatus::error, "too_large", model.string() + ": " + why, "", why);
  ojson message = {{"op", "load"}, {"model", fs::absolute(model).string()}, {"options", options.to_json()}};
  if (extras.runtime_cost) message["runtime_cost"] = true;
  if (extras.profiled_inference_session) {
    ojson p = {{"dump_graph", extras.dump_graph}};
    if (!extras.profile_dir.empty()) p["tmp_dir"] = fs::absolute(extras.profile_dir).string();
    message["profile"] = p;
  }
  json r = call(json::parse(message.dump()), timeout);
  LoadResult out;
  out.model = field<std::string>(r, "model", model.string());
  out.load_ms = field<double>(r, "load_ms", 0.0);
  out.inputs = value_infos(r.value("inputs", json::array()));
  out.outputs = value_infos(r.value("outputs", json::array()));
  if (r.contains("optimized_model") && r["optimized_model"].is_string()) {
    out.optimized_model = fs::path(r["optimized_model"].get<std::string>());
  }
  out.peak_rss_bytes = field<uint64_t>(r, "peak_rss_bytes", 0);
  check_process_settings(r, options);
  if (const json m = r.value("memory", json()); m.is_object()) {
    MemoryMeasured mm;
    mm.start_bytes = field<uint64_t>(m, "start_bytes", 0);
    mm.after_session_bytes = field<uint64_t>(m, "after_session_bytes", 0);
    mm.session_peak_bytes = field<uint64_t>(m, "session_peak_bytes", 0);
    mm.peak_reset = field<bool>(m, "peak_reset", false);
    out.memory = mm;
    out.baseline_bytes = field<uint64_t>(m, "baseline_bytes", 0);
    out.baseline_run_bytes = field<uint64_t>(m, "baseline_run_bytes", 0);
    out.node_bytes = field<uint64_t>(m, "node_bytes", 0);
    out.runtime_cost_measured_at = field<std::string>(m, "runtime_cost_measured_at", "");
  }
  if (const json w = r.value("wasm", json()); w.is_object()) {
    out.wasm_threads = field<int64_t>(w, "threads", 1);
    out.wasm_shared_memory = field<bool>(w, "shared_memory", false);
    if (w.contains("cross_origin_isolated") && w["cross_origin_isolated"].is_boolean())
      out.wasm_cross_origin_isolated = w["cross_origin_isolated"].get<bool>();
    out.wasm_host = field<std::string>(w, "host", "node");
    out.browser = field<std::string>(w, "browser", "");
  }
  return out;
}

TimedRunResult OrtRunner::run_timed(const Inputs& inputs, const TimingOptions& timing,
                                    std::chrono::milliseconds timeout, bool memory_probe) {
  ojson message = inputs.to_json();
  message["op"] = "run_timed";
  if (memory_probe) message["memory_probe"] = true;
  message["timing"] = timing_to_json(timing);
  json r = call(json::parse(message.dump()), timeout);
  TimedRunResult out;
  out.latencies_ms = doubles(r, "latencies_ms");
  out.wall_s = field<double>(r, "wall_s", 0.0);
  out.peak_rss_bytes = field<uint64_t>(r, "peak_rss_bytes", 0);
  out.rss_bytes = field<uint64_t>(r, "rss_bytes", 0);
  out.warmup_iterations = field<int>(r, "warmup_iterations", 0);
  out.warmup_ms = field<double>(r, "warmup_ms", 0.0);
  out.stop_reason = field<std::string>(r, "stop_reason", "");
  if (r.contains("median_ci_ms") && r["median_ci_ms"].is_array() && r["median_ci_ms"].size() == 2) {
    out.median_ci_ms = std::make_pair(r["median_ci_ms"][0].get<double>(), r["median_ci_ms"][1].get<double>());
  }
  if (const json m = r.value("memory", json()); m.is_object()) {
    out.run_peak_bytes = field<uint64_t>(m, "run_peak_bytes", 0);
    out.run_peak_reset = field<bool>(m, "peak_reset", false);
    out.probe_peak_bytes = field<uint64_t>(m, "probe_peak_bytes", 0);
  }
  if (r.contains("page_faults")) out.page_faults = field<int64_t>(r, "page_faults", 0);
  out.warnings = reply_warnings(r);
  return out;
}

fs::path OrtRunner::take_graph(const json& r) {
  const json* graph = r.contains("optimized_model") ? &r["optimized_model"] : nullptr;
  const json* dir = r.contains("profile_dir") ? &r["profile_dir"] : nullptr;
  if (!graph || !graph->is_string() || !dir || !dir->is_string()) return {};
  const fs::path from = graph->get<std::string>();
  fs::path to = fs::path(dir->get<std::string>());
  to += "-graph.onnx";  // the profile dir's name is unique (mkdtemp): so is this one beside it
  std::error_code ec;
  fs::rename(from, to, ec);
  return ec ? fs::path() : to;
}

ProfiledRunResult OrtRunner::run_profiled(const Inputs& inputs, const TimingOptions& timing,
                                          std::chrono::milliseconds timeout, const fs::path& tmp_dir,
                                          bool keep_profile, bool dump_graph) {
  ojson message = inputs.to_json();
  message["op"] = "run_profiled";
  message["timing"] = timing_to_json(timing);
  message["keep_profile"] = true;  // we read the file here, then delete it unless asked to keep it
  if (dump_graph) message["dump_graph"] = true;
  if (!tmp_dir.empty()) message["tmp_dir"] = fs::absolute(tmp_dir).string();
  json r = call(json::parse(message.dump()), timeout);

  ProfiledRunResult out;
  out.warmup_iterations = field<int>(r, "warmup_iterations", timing.warmup_iterations);
  out.iterations = field<int>(r, "iterations", timing.profile_iterations);
  out.run_latencies_ms = doubles(r, "run_latencies_ms");
  out.warmup_latencies_ms = doubles(r, "warmup_latencies_ms");
  out.session_create_ms = field<double>(r, "session_create_ms", 0.0);
  if (r.contains("measured_from_ts_us") && r["measured_from_ts_us"].is_number()) {
    out.measured_from_ts_us = r["measured_from_ts_us"].get<int64_t>();
  }
  out.peak_rss_bytes = field<uint64_t>(r, "peak_rss_bytes", 0);
  out.stopped_early = field<std::string>(r, "stopped_early", "");
  out.warnings = reply_warnings(r);
  out.optimized_model = take_graph(r);
  if (const json g = r.value("profiler_gap", json()); g.is_object() && g.contains("gap_us") && g["gap_us"].is_number())
    if (const double us = g["gap_us"].get<double>(); us >= 0) out.profiler_gap_ms = us / 1000.0;
  fs::path file = field<std::string>(r, "profile_file", "");
  fs::path dir = field<std::string>(r, "profile_dir", "");
  auto cleanup = [&] {
    if (!keep_profile && !dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  };
  try {
    if (file.empty()) throw UserError(subject() + ": the runner returned no profile file");
    out.profile = read_ort_profile(file);
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
  if (keep_profile) out.profile_file = file;
  return out;
}

std::vector<TensorData> OrtRunner::outputs(const Inputs& inputs, std::chrono::milliseconds timeout, bool shapes_only) {
  ojson message = inputs.to_json();
  message["op"] = "outputs";
  if (shapes_only) message["shapes_only"] = true;
  json r = call(json::parse(message.dump()), timeout);
  std::vector<TensorData> out;
  for (const auto& t : r.value("outputs", json::array())) {
    TensorData d;
    d.name = field<std::string>(t, "name", "");
    d.dtype = field<std::string>(t, "dtype", "");
    if (t.contains("dims") && t["dims"].is_array()) {
      for (const auto& v : t["dims"]) d.dims.push_back(v.get<int64_t>());
    }
    if (t.contains("data_b64") && t["data_b64"].is_string()) d.bytes = base64_decode(t["data_b64"].get<std::string>());
    if (t.contains("strings") && t["strings"].is_array()) {
      for (const auto& s : t["strings"]) d.strings.push_back(s.get<std::string>());
    }
    out.push_back(std::move(d));
  }
  return out;
}

void OrtRunner::unload() {
  call({{"op", "unload"}}, std::chrono::minutes(1));
  model_.clear();
}

void OrtRunner::restart() {
  process_.restart();
  model_.clear();
}

}  // namespace rooflens::ort
