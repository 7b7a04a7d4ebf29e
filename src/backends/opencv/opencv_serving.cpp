#include "backends/opencv/opencv_serving.h"

#include <filesystem>

#include "backends/common/runner_wire.h"
#include "backends/common/serving_child.h"

namespace rooflens::opencv {
namespace {

class OpenCvServing : public Serving {
 public:
  OpenCvServing(NetOptions o, CpuBudget budget) : options_(o), budget_(std::move(budget)) {}

  bool takes_any_batch() const override { return false; }
  bool can_profile() const override { return false; }
  RunSetting threads_setting(int64_t threads) const override {
    return intra_op_setting(threads, budget_, "cv::setNumThreads");
  }

  std::unique_ptr<ServingInstance> start(const ServingSpec& spec) override {
    if (spec.call_batch < 1)
      throw BackendError("load", "error", "OpenCV fixes the batch when it imports a model: calls of varying batch "
                                          "(dynamic batching) cannot be served", "");
    const RunSetting threads = threads_setting(spec.threads);
    NetOptions o = options_;
    o.threads = static_cast<int>(std::stoll(threads.value));
    RunnerConfig rc = sibling_runner("rooflens-opencv-runner", "OpenCV runner");
    rc.cpus = spec.cpus;
    auto runner = std::make_unique<ChildRunner>(rc);
    try {
      runner->start();
    } catch (const UserError& e) {
      throw BackendError("load", "died", std::string("the OpenCV runner did not start: ") + e.what(), "", "start");
    }
    std::map<std::string, int64_t> dims = spec.feed.dims;
    if (!spec.batch_dim.empty()) dims[spec.batch_dim] = spec.call_batch;
    const std::string subject = spec.model.string();
    RunnerReply l = runner->ask({{"op", "load"}, {"model", std::filesystem::absolute(spec.model).string()},
                                     {"dims", dims}, {"shapes", spec.feed.shapes},
                                     {"options", {{"fusion", o.fusion}, {"threads", o.threads}}}},
                                    spec.timeout);
    if (!l.ok())
      throw BackendError("load", l.status == ReplyStatus::error ? "error" : to_string(l.status),
                         subject + ": " + l.message, l.stderr_tail, l.code, l.message);
    prepare_samples(*runner, {{"feed", feed_to_json(spec.feed)}, {"samples", spec.samples},
                              {"batch_inputs", spec.batch_inputs}},
                    spec.timeout, subject);
    return std::make_unique<ChildServingInstance>(std::move(runner), l.body.value("load_ms", 0.0),
                                                  opencv_settings(o, threads));
  }

 private:
  NetOptions options_;
  CpuBudget budget_;
};

}  // namespace

std::vector<RunSetting> opencv_settings(const NetOptions& o, const RunSetting& threads) {
  RunSetting fusion{"fusion", o.fusion ? "on" : "off", o.fusion_given ? SettingSource::user : SettingSource::rooflens,
                    "Net::enableFusion", o.fusion_given ? "" : "always set; on is OpenCV's default too"};
  RunSetting device{"device", "opencv cpu", SettingSource::rooflens, "setPreferableBackend/Target",
                    "DNN_BACKEND_OPENCV on DNN_TARGET_CPU"};
  return {threads, fusion, device};
}

std::unique_ptr<Serving> make_opencv_serving(NetOptions options, CpuBudget budget) {
  return std::make_unique<OpenCvServing>(options, std::move(budget));
}

}  // namespace rooflens::opencv
