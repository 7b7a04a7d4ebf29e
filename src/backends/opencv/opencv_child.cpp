#include "backends/opencv/opencv_child.h"

#include "backends/common/runner_wire.h"
#include "backends/opencv/opencv_error_class.h"
#include "backends/opencv/opencv_layers.h"
#include "model/onnx_graph_view.h"

namespace rooflens::opencv {

using json = nlohmann::json;

Child::Child() : runner_(sibling_runner("rooflens-opencv-runner", "OpenCV runner")) { runner_.start(); }

std::string Child::opencv_version() const { return runner_.hello().value("opencv", std::string()); }

json Child::call(json message, std::chrono::milliseconds timeout, const std::string& stage) {
  RunnerReply r = runner_.ask(std::move(message), timeout);
  if (r.ok()) return std::move(r.body);
  std::string subject = model_.empty() ? std::string("OpenCV runner") : model_.string();
  const bool refused = r.status == ReplyStatus::error;
  throw BackendError(stage, to_string(r.status), subject + ": " + r.message, r.stderr_tail,
                     refused ? r.code : to_string(r.status), r.message,
                     refused && r.code == "opencv" ? classify(r.message) : "");
}

ServedModel Child::load(const std::filesystem::path& model, const std::map<std::string, int64_t>& dims,
                        const std::map<std::string, std::vector<int64_t>>& shapes, const NetOptions& o, std::chrono::milliseconds timeout) {
  model_ = model;
  json options{{"fusion", o.fusion}, {"threads", o.threads}};
  json r = call({{"op", "load"}, {"model", std::filesystem::absolute(model).string()}, {"dims", dims},
                 {"shapes", shapes}, {"options", options}},
                timeout, "load");
  loaded_threads_ = r.value("threads", 0);
  ServedModel s;
  s.load_ms = r.value("load_ms", 0.0);
  for (const auto& in : r.value("inputs", json::array()))
    s.inputs.push_back({in.value("name", ""), true, in.value("data_type", 0)});
  for (const auto& out : r.value("outputs", json::array())) s.outputs.push_back({out.get<std::string>(), true, 0});
  return s;
}

Measurement Child::measure(const FeedSpec& feed, const TimingOptions& timing, std::chrono::milliseconds timeout) {
  Measurement m;
  json message{{"feed", feed_to_json(feed)}, {"timing", timing_to_json(timing)}};
  message["op"] = "run_timed";
  json t = call(message, timeout, "run");
  t.at("latencies_ms").get_to(m.latencies_ms);
  m.wall_s = t.value("wall_s", 0.0);
  m.stop_reason = t.value("stop_reason", "");
  m.peak_rss_bytes = t.value("peak_rss_bytes", uint64_t{0});
  if (!timing.layers) return m;
  message["op"] = "run_profiled";
  json p;
  try {
    p = call(message, timeout, "profile");
  } catch (const BackendError& e) {
    // OpenCV refused the profiled run but the child lives on: the timed run above stands.
    if (e.kind != "error") throw;
    m.profile_error = e.what();
    return m;
  }
  p.at("run_latencies_ms").get_to(m.profiled_latencies_ms);
  m.profiled_runs_ms = m.profiled_latencies_ms;  // OpenCV times its layers inside the very forward call timed here
  m.kernels = kernels_from_layers(p.at("layers"), read_graph_view(model_.string()), m.warnings);
  return m;
}

}  // namespace rooflens::opencv
