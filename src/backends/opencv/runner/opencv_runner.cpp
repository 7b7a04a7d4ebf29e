// The child side of the OpenCV backend: rooflens-opencv-runner serves the runner protocol over one cv::dnn::Net.
// Messages: hello, load {model, options{fusion, threads}}, run_timed {feed, timing}, run_profiled {feed, timing},
// outputs {feed}, prepare {feed, samples, batch_inputs} and infer {s} (serving), unload, quit — see
// docs/opencv-backend.md.
#include <chrono>
#include <cstring>
#include <optional>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>

#include "backends/common/feeds.h"
#include "backends/common/own_memory.h"
#include "backends/common/runner_loop.h"
#include "backends/common/runner_wire.h"
#include "backends/common/timed_loop.h"
#include "backends/opencv/runner/cv_messages.h"
#include "backends/opencv/runner/opencv_runner.h"
#include "backends/opencv/runner/serving_samples.h"
#include "core/errors.h"
#include "model/fixed_inputs.h"

namespace rooflens::opencv {
namespace {

using json = nlohmann::json;
constexpr const char* kLog = "rooflens-opencv-runner";

int cv_depth(int32_t onnx_type) {
  switch (onnx_type) {
    case 1: return CV_32F;
    case 11: return CV_64F;
    case 2: return CV_8U;
    case 3: return CV_8S;
    case 4: return CV_16U;
    case 5: return CV_16S;
    case 6: return CV_32S;
    default: return -1;
  }
}

int32_t onnx_type(int depth) {
  switch (depth) {
    case CV_32F: return 1;
    case CV_64F: return 11;
    case CV_8U: return 2;
    case CV_8S: return 3;
    case CV_16U: return 4;
    case CV_16S: return 5;
    case CV_32S: return 6;
    default: return 0;
  }
}

cv::Mat to_mat(const TensorValue& t) {
  int depth = cv_depth(t.data_type);
  if (depth < 0)
    throw MessageError("input", "input '" + t.name + "' is " + onnx_type_name(t.data_type) +
                                    ", which OpenCV's DNN module cannot take as a network input");
  std::vector<int> dims(t.dims.begin(), t.dims.end());
  if (dims.empty()) dims = {1};
  cv::Mat m(static_cast<int>(dims.size()), dims.data(), depth);
  std::memcpy(m.data, t.bytes.data(), std::min(t.bytes.size(), m.total() * m.elemSize()));
  return m;
}

TensorValue to_tensor(const std::string& name, const cv::Mat& m) {
  TensorValue t;
  t.name = name;
  t.data_type = onnx_type(m.depth());
  for (int i = 0; i < m.dims; ++i) t.dims.push_back(m.size[i]);
  cv::Mat c = m.isContinuous() ? m : m.clone();
  t.bytes.assign(reinterpret_cast<const char*>(c.data), c.total() * c.elemSize());
  return t;
}

class LoadedNet {
 public:
  json load(const json& message) {
    net_.reset();
    model_ = message.at("model").get<std::string>();
    const json& o = message.at("options");
    if (o.contains("threads") && o["threads"].get<int>() > 0) cv::setNumThreads(o["threads"].get<int>());
    ShapeOverrides fixed;
    fixed.dims = message.value("dims", std::map<std::string, int64_t>{});
    fixed.shapes = message.value("shapes", std::map<std::string, std::vector<int64_t>>{});
    std::string bytes;
    try {
      ModelIo io = model_io(model_, fixed.dims, fixed.shapes);
      inputs_ = std::move(io.inputs);
      outputs_.assign(io.outputs.begin(), io.outputs.end());
      // OpenCV's importer cannot be told input shapes and refuses Shape nodes on dynamic dims: it reads the
      // model with its inputs fixed, as rooflens analysed it.
      bytes = model_bytes_with_fixed_inputs(model_, fixed);
    } catch (const UserError& e) {
      throw MessageError("input", e.what());
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
      net_ = cv::dnn::readNetFromONNX(bytes.data(), bytes.size());
      net_->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
      net_->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
      net_->enableFusion(o.value("fusion", true));
    } catch (const cv::Exception& e) {
      net_.reset();
      throw MessageError("opencv", "OpenCV could not import the model: " + one_line(e));
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    runner_log(kLog, "loaded " + model_);
    json inputs = json::array();
    for (const auto& in : inputs_) inputs.push_back({{"name", in.name}, {"data_type", in.data_type}});
    return {{"load_ms", ms}, {"threads", cv::getNumThreads()}, {"peak_rss_bytes", own_peak_rss_bytes()},
            {"inputs", inputs}, {"outputs", outputs_}};
  }

  json run_timed(const json& message) {
    feed(message);
    TimingOptions t = timing_of(message);
    TimedLoopResult r = run_timed_loop(t, [this] { forward(); });
    json out{{"latencies_ms", r.latencies_ms}, {"wall_s", r.wall_s}, {"stop_reason", r.stop_reason},
             {"warmup_iterations", r.warmup_iterations}, {"peak_rss_bytes", own_peak_rss_bytes()}};
    return out;
  }

  // Warm-up, then per measured iteration: the forward pass timed as run_timed times it, and OpenCV's own time of
  // every layer in it (zero for layers fused into another).
  json run_profiled(const json& message) {
    feed(message);
    TimingOptions t = timing_of(message);
    for (int i = 0; i < t.warmup_iterations; ++i) forward();
    const std::vector<cv::String> names = net().getLayerNames();
    std::vector<std::vector<double>> times(names.size());
    std::vector<double> runs;
    const double tick_ms = 1000.0 / cv::getTickFrequency();
    for (int i = 0; i < t.profile_iterations; ++i) {
      const auto r0 = std::chrono::steady_clock::now();
      forward();
      runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count());
      std::vector<double> ticks;
      net().getPerfProfile(ticks);
      for (size_t k = 0; k < names.size() && k < ticks.size(); ++k) times[k].push_back(ticks[k] * tick_ms);
    }
    json layers = json::array();
    for (size_t k = 0; k < names.size(); ++k) {
      int id = net().getLayerId(names[k]);
      json inputs = json::array();
      for (const auto& in : net().getLayerInputs(id)) inputs.push_back(in->name);
      layers.push_back({{"name", names[k]}, {"type", net().getLayer(id)->type}, {"inputs", inputs},
                        {"times_ms", times[k]}});
    }
    return {{"run_latencies_ms", runs}, {"layers", layers}, {"peak_rss_bytes", own_peak_rss_bytes()}};
  }

  json outputs(const json& message) {
    feed(message);
    std::vector<cv::Mat> mats;
    try {
      net().forward(mats, outputs_);
    } catch (const cv::Exception& e) {
      throw MessageError("opencv", "OpenCV failed to run the model: " + one_line(e));
    }
    json out = json::array();
    for (size_t i = 0; i < mats.size() && i < outputs_.size(); ++i) out.push_back(tensor_to_json(to_tensor(outputs_[i], mats[i])));
    return {{"outputs", out}};
  }

  json unload() {
    net_.reset();
    samples_ = {};
    return json::object();
  }

  // Serving (rooflens capacity, serving_samples.h): samples made once; a call stacks the ones it names.
  json prepare(const json& message) {
    net();
    FeedSpec feed;
    std::vector<std::string> stack;
    try {
      feed = feed_from_json(message.at("feed"));
      message.at("batch_inputs").get_to(stack);
    } catch (const json::exception& e) {
      throw MessageError("bad_message", std::string("prepare: ") + e.what());
    }
    const int64_t n = message.value("samples", int64_t{1});
    samples_.prepare(inputs_, feed, stack, n, [](const TensorValue& t) { return to_mat(t); });
    runner_log(kLog, "prepared " + std::to_string(n) + " samples");
    return {{"samples", n}};
  }

  // `s`: one call, answered {t: [start, end]}; `calls`: several one after another, answered {t: [[start, end], ...]}
  // (docs/runner-protocol.md).
  json infer(const json& message) {
    if (!message.contains("calls")) return {{"t", timed_call(message.at("s"))}};
    const json& calls = message.at("calls");
    if (!calls.is_array() || calls.empty()) throw MessageError("bad_message", "'calls' must be a non-empty list of 's' lists");
    json t = json::array();
    for (const auto& ranges : calls) t.push_back(timed_call(ranges));
    return {{"t", std::move(t)}};
  }

 private:
  // One forward over the named samples; the call's start and end on CLOCK_MONOTONIC (steady_clock), in µs.
  json timed_call(const json& ranges) {
    cv::dnn::Net& n = net();
    for (const auto& [name, mat] : samples_.call_inputs(ranges)) n.setInput(mat, name);
    const auto t0 = std::chrono::steady_clock::now();
    forward();
    const auto t1 = std::chrono::steady_clock::now();
    auto us = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
    };
    return {us(t0), us(t1)};
  }

  cv::dnn::Net& net() {
    if (!net_) throw MessageError("not_ready", "no model is loaded: send 'load' first");
    return *net_;
  }

  static TimingOptions timing_of(const json& message) {
    const json& j = message.at("timing");
    TimingOptions t;
    j.at("warmup_iterations").get_to(t.warmup_iterations);
    j.at("warmup_ms").get_to(t.warmup_ms);
    j.at("iterations").get_to(t.iterations);
    j.at("duration_s").get_to(t.duration_s);
    j.at("max_iterations").get_to(t.max_iterations);
    j.at("max_duration_s").get_to(t.max_duration_s);
    j.at("adaptive").get_to(t.adaptive);
    j.at("adaptive_rel_ci").get_to(t.adaptive_rel_ci);
    j.at("adaptive_confidence").get_to(t.adaptive_confidence);
    j.at("profile_iterations").get_to(t.profile_iterations);
    return t;
  }

  void feed(const json& message) {
    cv::dnn::Net& n = net();
    std::vector<TensorValue> tensors;
    try {
      tensors = build_feeds(inputs_, feed_from_json(message.at("feed")));
    } catch (const UserError& e) {
      throw MessageError("input", e.what());
    }
    try {
      for (const auto& t : tensors) n.setInput(to_mat(t), t.name);
    } catch (const cv::Exception& e) {
      throw MessageError("input", "OpenCV refused an input: " + one_line(e));
    }
  }

  void forward() {
    try {
      net().forward();
    } catch (const cv::Exception& e) {
      throw MessageError("opencv", "OpenCV failed to run the model: " + one_line(e));
    }
  }

  std::optional<cv::dnn::Net> net_;
  std::string model_;
  std::vector<InputDesc> inputs_;
  std::vector<cv::String> outputs_;
  ServingSamples samples_;
};

}  // namespace

int serve() {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_WARNING);
  LoadedNet s;
  std::map<std::string, MessageHandler> handlers{
      {"hello",
       [](const json&) {
         return json{{"protocol", 1}, {"runner", kLog}, {"opencv", CV_VERSION}, {"threads", cv::getNumThreads()}};
       }},
      {"load", [&s](const json& r) { return s.load(r); }},
      {"run_timed", [&s](const json& r) { return s.run_timed(r); }},
      {"run_profiled", [&s](const json& r) { return s.run_profiled(r); }},
      {"outputs", [&s](const json& r) { return s.outputs(r); }},
      {"unload", [&s](const json&) { return s.unload(); }},
      {"prepare", [&s](const json& r) { return s.prepare(r); }},
      {"infer", [&s](const json& r) { return s.infer(r); }},
  };
  return serve_runner(kLog, handlers);
}

}  // namespace rooflens::opencv
