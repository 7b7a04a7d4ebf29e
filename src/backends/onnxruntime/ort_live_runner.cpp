#include "backends/onnxruntime/ort_live_runner.h"

#include <atomic>
#include <csignal>

#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_settings.h"

namespace rooflens::ort {
namespace {

std::vector<IoDesc> io_descs(const std::vector<ValueInfo>& values) {
  std::vector<IoDesc> out;
  for (const auto& v : values) out.push_back({v.name, v.is_tensor, onnx_type_from_ort_name(v.dtype)});
  return out;
}

class OrtLiveRunner : public LiveRunner {
 public:
  OrtLiveRunner(OrtSessionOptions base, CpuBudget budget) : base_(std::move(base)), budget_(std::move(budget)) {}

  void start(bool fresh_process) override {
    if (fresh_process) {
      pid_ = 0;
      runner_.reset();
    }
    runner("load");
  }

  ServedModel load(const ModelLoad& m) override {
    OrtSessionOptions user = base_;
    for (const auto& [k, v] : m.options) apply_ort_option(user, k, v);
    if (m.opt_level) user.set("graphOptimizationLevel", *m.opt_level);
    OrtSessionOptions opts = user;
    for (const auto& [k, v] : m.dims) opts.freeDimensionOverrides[k] = v;
    const RunSetting threads = ort_threads(m.threads, user, budget_);
    opts.intraOpNumThreads = static_cast<int>(std::stoll(threads.value));  // always explicit, as the run says
    RooflensChoices choices;
    if (m.idle_between_runs) {
      opts.extra["session.intra_op.allow_spinning"] = "0";
      choices["session.intra_op.allow_spinning"] = "off: another runner takes turns with this one, and idle "
                                                    "spinning workers would slow the side being timed";
    }
    OrtRunner& r = runner("load");
    // Taking turns with another runner on fewer threads than cores: both sides on the same CPUs, before the inference
    // session makes its threads (they inherit the mask). Left to the OS, each side kept to a CPU of its own, and a CPU
    // slowed by a neighbour (a VM's steal time) moved one side alone: an identical model read 12% slower than its
    // reference for a whole command.
    std::optional<RunSetting> placement;
    if (m.idle_between_runs && *opts.intraOpNumThreads < budget_.cores) {
      const auto sets = disjoint_cpu_sets(1, *opts.intraOpNumThreads);
      if (!sets.empty() && pin_process(r.process().pid(), sets.front()))
        placement = RunSetting{"runner_cpus", CpuBudget{sets.front(), 0}.cpu_list(), SettingSource::rooflens, "",
                               "another runner takes turns with this one: both run on the same CPUs, so a CPU "
                               "slower than the others moves both sides alike"};
    }
    try {
      LoadResult l = r.load(m.model, opts, m.timeout);
      loaded_memory_ = l;
      threads_ = *opts.intraOpNumThreads;
      settings_ = effective_settings(opts, user, threads, choices);
      if (placement) settings_.push_back(*placement);
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
      out.settings = settings_;
      add_load_memory(out, loaded_memory_);
      if (std::string w = oversubscription_warning(threads_, budget_); !w.empty()) out.warnings.push_back(std::move(w));
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
      runner_ = std::make_unique<OrtRunner>(with_process_options(runner_config(), base_));
    } catch (const UserError& e) {  // e.g. out of memory: this model fails, the next one tries again
      throw BackendError(stage, "died", std::string("the ONNX Runtime runner did not start: ") + e.what(), "", "start");
    }
    pid_ = runner_->process().pid();
    if (aborted_) ::kill(pid_.load(), SIGKILL);  // abort() raced with the start: honour it
    return *runner_;
  }

  OrtSessionOptions base_;
  CpuBudget budget_;
  std::unique_ptr<OrtRunner> runner_;
  int64_t threads_ = 0;               // the loaded inference session's intra-op threads, as passed to ORT
  std::vector<RunSetting> settings_;  // and all its performance options
  LoadResult loaded_memory_;          // the runner's memory around the inference session's creation (for every measure)
  std::atomic<pid_t> pid_{0};
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::unique_ptr<LiveRunner> make_ort_live_runner(const OrtSessionOptions& base, const CpuBudget& budget) {
  return std::make_unique<OrtLiveRunner>(base, budget);
}

}  // namespace rooflens::ort
