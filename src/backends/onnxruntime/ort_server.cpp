#include "backends/onnxruntime/ort_server.h"

#include <atomic>
#include <csignal>

#include "backends/onnxruntime/ort_measure.h"

namespace rooflens::ort {
namespace {

std::vector<IoDesc> io_descs(const std::vector<ValueInfo>& values) {
  std::vector<IoDesc> out;
  for (const auto& v : values) out.push_back({v.name, v.is_tensor, onnx_type_from_ort_name(v.dtype)});
  return out;
}

class OrtModelServer : public ModelServer {
 public:
  explicit OrtModelServer(OrtSessionOptions base) : base_(std::move(base)) {}

  void start(bool fresh_process) override {
    if (fresh_process) {
      pid_ = 0;
      runner_.reset();
    }
    runner("load");
  }

  ServedModel load(const ModelLoad& m) override {
    OrtSessionOptions opts = base_;
    for (const auto& [k, v] : m.options) apply_ort_option(opts, k, v);
    for (const auto& [k, v] : m.dims) opts.freeDimensionOverrides[k] = v;
    if (m.threads > 0) opts.intraOpNumThreads = static_cast<int>(m.threads);
    if (m.idle_between_runs) opts.extra["session.intra_op.allow_spinning"] = "0";
    OrtRunner& r = runner("load");
    try {
      LoadResult l = r.load(m.model, opts, m.timeout);
      threads_ = opts.intraOpNumThreads.value_or(0);
      return {l.load_ms, io_descs(l.inputs), io_descs(l.outputs)};
    } catch (const RunnerError& e) {
      throw backend_error("load", e);
    }
  }

  std::vector<TensorValue> outputs(const FeedSpec& feed, std::chrono::milliseconds timeout) override {
    return run_outputs(feed, timeout, false);
  }

  std::vector<TensorValue> output_shapes(const FeedSpec& feed, std::chrono::milliseconds timeout) override {
    return run_outputs(feed, timeout, true);
  }

  std::vector<TensorValue> run_outputs(const FeedSpec& feed, std::chrono::milliseconds timeout, bool shapes_only) {
    std::vector<TensorData> got;
    try {
      got = runner("run").outputs(inputs_of(feed), timeout, shapes_only);
    } catch (const RunnerError& e) {
      throw backend_error("run", e);
    }
    std::vector<TensorValue> out;
    out.reserve(got.size());
    for (auto& t : got) {
      TensorValue v;
      v.name = std::move(t.name);
      v.data_type = onnx_type_from_ort_name(t.dtype);
      v.dims = std::move(t.dims);
      v.bytes = std::move(t.bytes);
      v.strings = std::move(t.strings);
      out.push_back(std::move(v));
    }
    return out;
  }

  Measurement measure(const FeedSpec& feed, const TimingOptions& timing, const std::filesystem::path& work_dir,
                      std::chrono::milliseconds timeout) override {
    std::string stage = "run";
    try {
      Measurement out = measure_loaded(runner(stage), inputs_of(feed), timing, work_dir, timeout, stage);
      out.threads = threads_;
      return out;
    } catch (const RunnerError& e) {
      throw backend_error(stage, e);
    }
  }

  void unload() override {
    if (!runner_ || !runner_->process().running()) return;
    try {
      runner_->unload();
    } catch (const RunnerError&) {
      // A runner that cannot unload is of no further use: the next load starts a fresh one.
      pid_ = 0;
      runner_.reset();
    }
  }

  void abort() override {
    aborted_ = true;
    pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  pid_t process_id() const override {
    return runner_ && runner_->process().running() ? runner_->process().pid() : -1;
  }

 private:
  // The live runner; a fresh one after a crash or timeout ended the last (or before the first use).
  OrtRunner& runner(const std::string& stage) {
    if (runner_ && runner_->process().running()) return *runner_;
    pid_ = 0;
    if (aborted_) throw BackendError(stage, "died", "stopped (interrupted)", "", "interrupted");
    runner_.reset();
    try {
      runner_ = std::make_unique<OrtRunner>();
    } catch (const UserError& e) {  // e.g. out of memory: this model fails, the next one tries again
      throw BackendError(stage, "died", std::string("the ONNX Runtime runner did not start: ") + e.what(), "", "start");
    }
    pid_ = runner_->process().pid();
    if (aborted_) ::kill(pid_.load(), SIGKILL);  // abort() raced with the start: honour it
    return *runner_;
  }

  OrtSessionOptions base_;
  std::unique_ptr<OrtRunner> runner_;
  int64_t threads_ = 0;  // the loaded session's intra-op threads, when set (0: ORT's default)
  std::atomic<pid_t> pid_{0};
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::unique_ptr<ModelServer> make_ort_server(const OrtSessionOptions& base) {
  return std::make_unique<OrtModelServer>(base);
}

}  // namespace rooflens::ort
