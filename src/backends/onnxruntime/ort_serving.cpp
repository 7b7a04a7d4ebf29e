#include "backends/onnxruntime/ort_serving.h"

#include <filesystem>

#include "backends/common/serving_child.h"
#include "backends/onnxruntime/ort_dispatch.h"
#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_settings.h"
#include "backends/onnxruntime/ort_web_memory.h"

namespace rooflens::ort {
namespace {

namespace fs = std::filesystem;

BackendError start_error(const std::string& what, const RunnerReply& r) {
  return BackendError("load", r.status == ReplyStatus::error ? "error" : to_string(r.status), what + ": " + r.message,
                      r.stderr_tail, r.code, r.message);
}

// The kernels of the calls a profiled serving inference session ran after its first `skip`.
Measurement profile_of(ChildRunner& runner, int64_t skip, const fs::path& model) {
  RunnerReply r = runner.ask({{"op", "end_profile"}}, std::chrono::minutes(5));
  if (!r.ok())
    throw BackendError("profile", r.status == ReplyStatus::error ? "error" : to_string(r.status),
                       model.string() + ": the profile under load failed: " + r.message, r.stderr_tail, r.code);
  const fs::path dir = r.body.at("profile_dir").get<std::string>();
  Measurement m;
  try {
    OrtProfile p = read_ort_profile(r.body.at("profile_file").get<std::string>());
    const int first = static_cast<int>(std::min<int64_t>(skip, static_cast<int64_t>(p.runs.size())));
    const int runs = static_cast<int>(p.runs.size()) - first;
    m.kernels = kernel_records(p, first, runs);
    for (int64_t us : p.run_durations_us(first)) m.profiled_runs_ms.push_back(static_cast<double>(us) / 1000.0);
    m.dispatch = dispatch_samples(p, first, runs);
    m.threads_observed = threads_observed(p, first, runs);
    m.kernel_time_step_ms = 0.001;
    std::string problem;
    const auto& graph = r.body["optimized_model"];
    m.executed_graph = executed_graph(graph.is_string() ? std::optional<fs::path>(graph.get<std::string>())
                                                        : std::nullopt, problem);
    if (!problem.empty()) m.warnings.push_back("the optimized graph could not be read: " + problem);
    if (const std::string why = r.body.value("stopped_early", ""); !why.empty()) m.warnings.push_back(why);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return m;
}

class OrtServing : public Serving {
 public:
  OrtServing(OrtSessionOptions base, CpuBudget budget) : base_(std::move(base)), budget_(std::move(budget)) {}

  bool takes_any_batch() const override { return true; }
  bool can_profile() const override { return true; }
  RunSetting threads_setting(int64_t threads) const override { return ort_threads(threads, base_, budget_); }

  std::unique_ptr<ServingInstance> start(const ServingSpec& spec) override {
    OrtSessionOptions opts = base_;
    const RunSetting threads = ort_threads(spec.threads, base_, budget_);
    opts.intraOpNumThreads = static_cast<int>(std::stoll(threads.value));  // always explicit
    for (const auto& [k, v] : spec.feed.dims) {
      if (k != spec.batch_dim) opts.freeDimensionOverrides[k] = v;
      else if (spec.call_batch > 0) opts.freeDimensionOverrides[k] = spec.call_batch;  // every call alike
    }
    // ONNX Runtime Web's inference session lives in one WebAssembly memory of at most 4 GiB: refused before loading.
    if (base_.build == "web")
      if (std::string why = wasm_memory_refusal_of(spec.model.string()); !why.empty())
        throw BackendError("load", "error", spec.model.string() + ": " + why, "", "too_large", why);
    RunnerConfig rc = with_process_options(runner_config(), opts);  // mallocMmapThreshold, as the run records it
    rc.cpus = spec.cpus;
    auto runner = std::make_unique<ChildRunner>(rc);
    try {
      runner->start();
    } catch (const UserError& e) {
      throw BackendError("load", "error", e.what(), runner->last_stderr_tail());
    }
    const std::string subject = spec.model.string();
    RunnerReply l = runner->ask({{"op", "load"}, {"model", fs::absolute(spec.model).string()},
                                     {"options", nlohmann::json::parse(opts.to_json().dump())}},
                                    spec.timeout);
    if (!l.ok()) throw start_error(subject, l);
    nlohmann::json prep = nlohmann::json::parse(inputs_of(spec.feed).to_json().dump());
    prep["samples"] = spec.samples;
    prep["batch_inputs"] = spec.batch_inputs;
    if (spec.profile) prep["profile"] = {{"tmp_dir", spec.work_dir.string()}};
    prepare_samples(*runner, std::move(prep), spec.timeout, subject);
    ServingProfiler profiler;
    if (spec.profile)
      profiler = [model = spec.model](ChildRunner& r, int64_t skip) { return profile_of(r, skip, model); };
    return std::make_unique<ChildServingInstance>(std::move(runner), l.body.value("load_ms", 0.0),
                                                  effective_settings(opts, base_, threads, {}), std::move(profiler));
  }

 private:
  OrtSessionOptions base_;
  CpuBudget budget_;
};

}  // namespace

std::unique_ptr<Serving> make_ort_serving(OrtSessionOptions base, CpuBudget budget) {
  return std::make_unique<OrtServing>(std::move(base), std::move(budget));
}

}  // namespace rooflens::ort
