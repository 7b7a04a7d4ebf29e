// OpenCvBackend: one child per configuration (fresh peak memory, crash isolation); live_runner(): one child for many
// models (`rooflens bench -B opencv`).
#include "backends/opencv/opencv_backend.h"

#include <atomic>
#include <csignal>

#include "backends/common/cpu_budget.h"
#include "backends/common/runner_wire.h"
#include "backends/opencv/opencv_child.h"
#include "backends/opencv/opencv_serving.h"
#include "backends/serving.h"

namespace rooflens::opencv {
namespace {

NetOptions net_options(const BackendSpec& spec) {
  NetOptions o;
  if (spec.opt_level) o.fusion = *spec.opt_level != "disabled";
  o.fusion_given = spec.opt_level.has_value();
  for (const auto& [k, v] : spec.options) {
    if (k != "fusion") throw UsageError("-B opencv: unknown option '" + k + "' (known: fusion=true|false)");
    if (v == "true" || v == "1") o.fusion = true;
    else if (v == "false" || v == "0") o.fusion = false;
    else throw UsageError("-B opencv:fusion=" + v + ": give true or false");
    o.fusion_given = true;
  }
  return o;
}

// The net's options with the thread count resolved: the requested one, else one per core rooflens may use.
// OpenCV's own default counts every logical CPU of the mask (SMT siblings too); the count is always passed.
NetOptions resolved(NetOptions o, int64_t requested, const CpuBudget& budget, RunSetting& threads) {
  threads = intra_op_setting(requested, budget, "cv::setNumThreads");
  o.threads = static_cast<int>(std::stoll(threads.value));
  return o;
}

// What the run ran with, and the thread count OpenCV reports after the load (its own read-back).
void describe(Measurement& m, const NetOptions& o, const RunSetting& threads, int read_back, const CpuBudget& budget) {
  m.threads = o.threads;
  m.settings = opencv_settings(o, threads);
  if (read_back > 0) m.threads_observed = ThreadsObserved{read_back, std::nullopt};
  if (std::string w = oversubscription_warning(o.threads, budget); !w.empty()) m.warnings.push_back(std::move(w));
}

BackendError start_failure(const std::string& stage, const std::exception& e) {
  return BackendError(stage, "died", std::string("the OpenCV runner did not start: ") + e.what(), "", "start");
}

class OpenCvLiveRunner : public LiveRunner {
 public:
  OpenCvLiveRunner(NetOptions o, CpuBudget budget) : options_(o), budget_(std::move(budget)) {}

  void start(bool fresh_process) override {
    if (fresh_process) child_.reset();
    child("load");
  }

  ServedModel load(const ModelLoad& m) override {
    if (!m.options.empty()) throw UsageError("-B opencv: per-model options are not supported");
    loaded_ = resolved(options_, m.threads, budget_, threads_);
    if (m.opt_level) {
      loaded_.fusion = *m.opt_level != "disabled";
      loaded_.fusion_given = true;
    }
    return child("load").load(m.model, m.dims, {}, loaded_, m.timeout);
  }

  std::vector<TensorValue> outputs(const FeedSpec& feed, std::chrono::milliseconds timeout) override {
    nlohmann::json r = child("run").call({{"op", "outputs"}, {"feed", feed_to_json(feed)}}, timeout, "run");
    std::vector<TensorValue> out;
    for (const auto& t : r.at("outputs")) out.push_back(tensor_from_json(t));
    return out;
  }

  Measurement measure(const FeedSpec& feed, const TimingOptions& timing, const std::filesystem::path&,
                      std::chrono::milliseconds timeout) override {
    Measurement m = child("run").measure(feed, timing, timeout);
    describe(m, loaded_, threads_, child("run").loaded_threads(), budget_);
    return m;
  }

  void unload() override {
    if (!child_ || !child_->running()) return;
    try {
      child_->call({{"op", "unload"}}, std::chrono::minutes(1), "run");
    } catch (const BackendError&) {
      child_.reset();  // a child that cannot unload is of no further use
    }
  }

  void abort() override {
    aborted_ = true;
    pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  pid_t process_id() const override { return child_ && child_->running() ? child_->pid() : -1; }

 private:
  // The live child; a fresh one after a crash or a timeout ended the last.
  Child& child(const std::string& stage) {
    if (child_ && child_->running()) return *child_;
    pid_ = 0;
    if (aborted_) throw BackendError(stage, "died", "stopped (interrupted)", "", "interrupted");
    child_.reset();
    try {
      child_ = std::make_unique<Child>();
    } catch (const UserError& e) {
      throw start_failure(stage, e);
    }
    pid_ = child_->pid();
    if (aborted_) ::kill(pid_.load(), SIGKILL);
    return *child_;
  }

  NetOptions options_;
  CpuBudget budget_;
  NetOptions loaded_;  // the loaded model's: options_ with the load's thread count
  RunSetting threads_;     // and where that count came from
  std::unique_ptr<Child> child_;
  std::atomic<pid_t> pid_{0};
  std::atomic<bool> aborted_{false};
};

class OpenCvBackend : public Backend {
 public:
  explicit OpenCvBackend(NetOptions o) : options_(o) {
    Child probe;  // fails early (one line) when the runner cannot start
    version_ = probe.opencv_version();
  }

  BackendInfo info() const override {
    BackendInfo b;
    b.name = b.label = "opencv";
    b.version = version_;
    b.runtime = "OpenCV " + version_ + " DNN (DNN_BACKEND_OPENCV, DNN_TARGET_CPU) in rooflens-opencv-runner";
    b.options["fusion"] = options_.fusion ? "true" : "false";
    return b;
  }

  int64_t threads_for(int64_t requested) const override { return requested > 0 ? requested : budget_.cores; }

  const MappingRules& mapping_rules() const override { return plain_mapping_rules(); }  // kernels name their nodes

  void abort() override {
    pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  Measurement run(const RunSpec& r) override {
    RunSetting threads;
    const NetOptions o = resolved(options_, r.key.threads, budget_, threads);
    std::unique_ptr<Child> child;
    try {
      child = std::make_unique<Child>();
    } catch (const UserError& e) {
      throw start_failure("load", e);
    }
    pid_ = child->pid();
    Measurement m;
    try {
      ServedModel s = child->load(r.model, r.feed.dims, r.feed.shapes, o, r.timeout);
      m = child->measure(r.feed, r.timing, r.timeout);
      m.load_ms = s.load_ms;
      describe(m, o, threads, child->loaded_threads(), budget_);
    } catch (...) {
      pid_ = 0;
      throw;
    }
    pid_ = 0;
    return m;
  }

  std::unique_ptr<LiveRunner> live_runner() override { return std::make_unique<OpenCvLiveRunner>(options_, budget_); }
  Serving* serving() override {
    if (!serving_) serving_ = make_opencv_serving(options_, budget_);
    return serving_.get();
  }

 private:
  NetOptions options_;
  CpuBudget budget_ = cpu_budget();  // the runners inherit rooflens' affinity mask
  std::string version_;
  std::atomic<pid_t> pid_{0};
  std::unique_ptr<Serving> serving_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendSpec& spec) {
  return std::make_unique<OpenCvBackend>(net_options(spec));
}

}  // namespace rooflens::opencv
