// OrtBackend: RunSpec -> (profiled inference session in a runner of its own, then load, timed run with profiling off in
// a second) -> Measurement, fresh runners per configuration; live_runner() hands out live runners (ort_live_runner.h)
// for zoo runs.
#include "backends/onnxruntime/ort_backend.h"

#include <sched.h>

#include <atomic>
#include <csignal>
#include <optional>
#include <vector>

#include "backends/onnxruntime/ort_generate.h"
#include "backends/onnxruntime/ort_mapping_rules.h"
#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_memory_rules.h"
#include "backends/onnxruntime/ort_runner.h"
#include "backends/onnxruntime/ort_live_runner.h"
#include "backends/onnxruntime/ort_inference_session_memory.h"
#include "backends/onnxruntime/ort_serving.h"
#include "backends/onnxruntime/ort_settings.h"
#include "backends/onnxruntime/ort_wasm_roofs.h"
#include "backends/onnxruntime/ort_web_graph.h"
#include "backends/onnxruntime/ort_web_memory.h"
#include "backends/serving.h"
#include "core/errors.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "model/onnx_graph_view.h"

namespace rooflens::ort {
namespace {

std::string flat(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The CPUs rooflens may use (its affinity mask), in order.
std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

// --realtime placement: the runner's main thread (which calls session.run and does its share of every parallel
// section) on the first allowed CPU, each intra-op worker on one of the next ones. A thread count above the CPUs
// leaves the workers where the OS puts them. Real-time priority comes after the load (ChildRunner::
// enter_realtime), once the workers have moved to their CPUs.
RunnerConfig placed(int64_t threads, OrtSessionOptions& opts, RooflensChoices& choices) {
  RunnerConfig rc = runner_config();
  rc.realtime_priority = 10;  // any real-time priority outranks every ordinary process; leave room above
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) return rc;
  rc.cpus = {cpus[0]};
  if (threads > 1 && static_cast<size_t>(threads) <= cpus.size()) {
    std::string affinities;  // ORT's format: one entry per worker, ';'-separated, 1-based processor ids
    for (int64_t t = 1; t < threads; ++t)
      affinities += (t > 1 ? ";" : "") + std::to_string(cpus[static_cast<size_t>(t)] + 1);
    opts.extra["session.intra_op_thread_affinities"] = affinities;
    rc.realtime_cpu_lists = static_cast<size_t>(threads);  // the main thread's CPU and one per worker
    choices["session.intra_op_thread_affinities"] = "--realtime: one worker per allowed CPU after the runner's own";
  }
  return rc;
}

// What the runtime allocates while it creates the inference session (ort_inference_session_memory.h), from the model
// and the graph the profiled inference session executed (the model again when there was none), and the C allocator the
// runner places it with.
void add_inference_session_creation(Measurement& m, const std::filesystem::path& model,
                                    const OrtSessionOptions& opts) {
  try {
    const GraphView user = read_graph_view(model.string());
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(model, ec);
    m.inference_session_creation =
        inference_session_creation_blocks(user, m.executed_graph ? *m.executed_graph : user, ec ? 0 : file_bytes);
    m.c_allocator = runner_c_allocator(opts.mallocMmapThreshold);
  } catch (const UserError& e) {
    m.warnings.push_back("the inference session's creation was not predicted: " + std::string(e.what()));
  }
}

// The profiled runner's part of a configuration joined to the measured runner's.
void take_profiled(Measurement& out, Measurement&& p) {
  out.profiled_latencies_ms = std::move(p.profiled_latencies_ms);
  out.profiled_runs_ms = std::move(p.profiled_runs_ms);
  out.kernels = std::move(p.kernels);
  out.dispatch = std::move(p.dispatch);
  out.threads_observed = std::move(p.threads_observed);
  out.kernel_time_step_ms = p.kernel_time_step_ms;
  out.executed_graph = std::move(p.executed_graph);
  out.profile_error = std::move(p.profile_error);
  out.inference_session_creation = std::move(p.inference_session_creation);
  out.c_allocator = std::move(p.c_allocator);
  out.warnings.insert(out.warnings.end(), p.warnings.begin(), p.warnings.end());
}

class OrtBackend : public Backend {
 public:
  explicit OrtBackend(OrtSessionOptions base)
      : base_(std::move(base)), generation_(make_ort_generation(base_, budget_, pid_)) {
    // Fails early (one line) when node or the build is missing; kept as the first configuration's runner.
    spare_ = std::make_unique<OrtRunner>(with_process_options(runner_config(), base_));
    ort_version_ = spare_->onnxruntime_version();
    node_version_ = spare_->node_version();
    browser_version_ = spare_->browser_version();
  }

  BackendInfo info() const override {
    BackendInfo b;
    b.name = b.label = web() ? "ortweb" : "onnxruntime";
    b.version = ort_version_;
    b.runtime = !web()                   ? "onnxruntime-node " + ort_version_ + " on node " + node_version_ +
                                               " (runners/ort/run.mjs)"
                : base_.host == "chromium" ? "onnxruntime-web " + ort_version_ + " (WebAssembly, SIMD) in Chromium " +
                                                 browser_version_ +
                                                 (base_.isolation ? "" : ", a page not cross-origin isolated") +
                                                 " (runners/ort/run.mjs --build web --host chromium)"
                                           : "onnxruntime-web " + ort_version_ + " (WebAssembly, SIMD) on node " +
                                                 node_version_ + " (runners/ort/run.mjs --build web)";
    if (web()) b.roofs_engine = wasm_engine(base_.host);
    const nlohmann::ordered_json options = base_.to_json();  // items() must not outlive it
    for (const auto& [k, v] : options.items()) b.options[k] = flat(v);
    if (base_.mallocMmapThreshold) b.options["mallocMmapThreshold"] = std::to_string(*base_.mallocMmapThreshold);
    return b;
  }

  int64_t threads_for(int64_t requested) const override {
    return std::stoll(ort_threads(requested, base_, budget_).value);
  }

  const MappingRules& mapping_rules() const override { return ort::mapping_rules(); }

  void abort() override {
    pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  // A configuration in two runners, one after the other: the profiled inference session in a runner of its own (the
  // layers, the graph the runtime executed, and the runtime's calibration constants — everything the memory prediction
  // is made of), then the measured runner, which holds the model's inference session alone: its memory, its first run,
  // the timed runs. The prediction is fixed before the measured inference session exists, and nothing of that process
  // goes into it.
  Measurement run(const RunSpec& r) override {
    OrtSessionOptions opts = base_;
    const RunSetting threads = ort_threads(r.key.threads, base_, budget_);
    const int64_t n = std::stoll(threads.value);
    opts.intraOpNumThreads = static_cast<int>(n);  // always explicit: the run is labelled with what ORT was given
    for (const auto& [k, v] : r.feed.dims) opts.freeDimensionOverrides[k] = v;

    RooflensChoices choices;
    const RunnerConfig config =
        with_process_options(r.timing.realtime ? placed(n, opts, choices) : runner_config(), opts);
    const Inputs in = inputs_of(r.feed);
    Measurement out, profiled;
    std::optional<RunSetting> web_graph;  // where a web run's executed graph came from
    LoadResult calibrated, measured_load;
    std::string realtime_refusal;  // why --realtime was not entered, when it was not
    std::string stage = "load";
    try {
      if (r.timing.layers) {
        const std::unique_ptr<OrtRunner> prof_runner = runner_for(config);
        OrtRunner& prof = *prof_runner;
        pid_ = prof.process().pid();
        LoadExtras extras;
        // ONNX Runtime Web writes no graph, and its memory (one WebAssembly block that only grows) is not predicted.
        extras.runtime_cost = !web();
        extras.profiled_inference_session = extras.dump_graph = true;
        extras.profile_dir = r.work_dir;
        calibrated = prof.load(r.model, opts, r.timeout, extras);
        if (r.timing.realtime) prof.process().enter_realtime();
        stage = "profile";
        add_profiled_measurement(profiled, prof, in, r.timing, r.work_dir, r.timeout);
        if (web()) {
          web_graph = check_web_executed_graph(profiled);
          // A page's clock (performance.now, which ORT Web's kernel times read) steps by 5 us when the page is
          // cross-origin isolated and by 100 us when not (Chromium's coarsening): the roof check allows for it.
          if (calibrated.wasm_host == "chromium")
            profiled.kernel_time_step_ms = calibrated.wasm_cross_origin_isolated.value_or(false) ? 0.005 : 0.1;
        }
        realtime_refusal = prof.process().realtime_refusal();
      }
      if (!web()) add_inference_session_creation(profiled, r.model, opts);
      if (!r.timing.timed && r.timing.layers) {  // --layers-only: the prediction without the measured inference session
        pid_ = 0;
        take_profiled(out, std::move(profiled));
        add_runtime_cost(out, calibrated);
        out.load_ms = calibrated.load_ms;
        out.threads = web_threads(n, calibrated);
        out.output_copies = 1;  // onnxruntime-node copies every output of session.run into a JavaScript buffer
        if (opts.enableCpuMemArena.value_or(true) && !web()) out.arena = ort::cpu_arena_rules();
        out.settings = effective_settings(opts, base_, read_back(threads, calibrated), choices);
        add_web_facts(out, web_graph, calibrated);
        return out;
      }
      stage = "load";
      const std::unique_ptr<OrtRunner> measured_runner = runner_for(config);
      OrtRunner& runner = *measured_runner;
      pid_ = runner.process().pid();
      LoadExtras extras;
      extras.runtime_cost = !r.timing.layers && !web();  // from the cache or a process of its own, as above
      const LoadResult l = runner.load(r.model, opts, r.timeout, extras);
      measured_load = l;
      if (r.timing.realtime) runner.process().enter_realtime();  // its intra-op workers have pinned themselves
      stage = "run";
      out = timed_measurement(runner, in, r.timing, r.timeout, /*memory_probe=*/true);
      out.load_ms = l.load_ms;
      add_load_memory(out, l);
      add_runtime_cost(out, r.timing.layers ? calibrated : l);
      if (realtime_refusal.empty()) realtime_refusal = runner.process().realtime_refusal();
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw backend_error(stage, e);
    }
    pid_ = 0;
    take_profiled(out, std::move(profiled));
    out.threads = web_threads(n, measured_load);
    // The first run's tensors come from ORT's CPU arena unless it is off (enableCpuMemArena, on by default).
    if (opts.enableCpuMemArena.value_or(true) && !web()) out.arena = ort::cpu_arena_rules();
    out.settings = effective_settings(opts, base_, read_back(threads, measured_load), choices);
    add_web_facts(out, web_graph, measured_load);
    if (std::string w = oversubscription_warning(n, budget_); !w.empty()) out.warnings.push_back(std::move(w));
    if (!realtime_refusal.empty()) out.warnings.push_back("--realtime: " + realtime_refusal);
    return out;
  }

  // The web build's WebAssembly roofs, measured by the runner's own WebAssembly kernels in the host the models run in
  // (Node, or the Chromium page), in a runner of their own.
  std::optional<EngineRoofs> measure_engine_roofs(bool quick) override {
    if (!web()) return std::nullopt;
    try {
      const std::unique_ptr<OrtRunner> runner = runner_for(with_process_options(runner_config(), base_));
      pid_ = runner->process().pid();
      const nlohmann::json reply = runner->call({{"op", "wasm_roofs"}, {"quick", quick}}, std::chrono::minutes(10));
      pid_ = 0;
      return wasm_roofs_from_reply(reply, wasm_engine(base_.host));
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw backend_error("roofs", e);
    }
  }

  std::unique_ptr<LiveRunner> live_runner() override {
    spare_.reset();  // runners of their own from here on: an idle one (a Chromium page) must not sit beside them
    return make_ort_live_runner(base_, budget_);
  }
  DecoderGeneration* generation() override {
    spare_.reset();
    return generation_.get();
  }
  // A Chromium page serves one user, not a load generator's requests: the web build serves from its Node host only
  // (the runner refuses prepare/infer/serve_* in the page).
  Serving* serving() override {
    if (base_.host == "chromium") return nullptr;
    spare_.reset();
    if (!serving_) serving_ = make_ort_serving(base_, budget_);
    return serving_.get();
  }

 private:
  bool web() const { return base_.build == "web"; }
  // A new runner for `config`: the spare when it was started the same way and still answers (it has done nothing
  // but answer hello, as a new one would have; a command saves starting one — 0.2 s of CPU for Node, a browser
  // launch for Chromium), else a new one. The spare goes either way.
  std::unique_ptr<OrtRunner> runner_for(const RunnerConfig& config) {
    std::unique_ptr<OrtRunner> spare = std::move(spare_);
    if (spare && spare->process().config() == config &&
        spare->process().ask({{"op", "hello"}}, std::chrono::seconds(10)).ok())
      return spare;
    spare.reset();
    return std::make_unique<OrtRunner>(config);
  }
  // What a web run's measurement says of its WebAssembly module: where its executed graph came from, its host, why its
  // memory is not predicted, and the engine whose roofs its layers meet.
  void add_web_facts(Measurement& out, const std::optional<RunSetting>& web_graph, const LoadResult& l) const {
    if (!web()) return;
    if (web_graph) out.settings.push_back(*web_graph);
    out.settings.push_back(web_host_setting(l));
    out.memory_not_predicted = kWebMemoryNotPredicted;
    out.roofs_engine = wasm_engine(base_.host);
  }
  // ONNX Runtime Web runs the threads its WebAssembly module has (read back at load), not necessarily those asked.
  int64_t web_threads(int64_t asked, const LoadResult& l) const { return l.wasm_threads ? *l.wasm_threads : asked; }
  static RunSetting read_back(RunSetting asked, const LoadResult& l) {
    return l.wasm_threads ? web_threads_setting(std::move(asked), *l.wasm_threads, l.wasm_shared_memory.value_or(false))
                          : asked;
  }
  OrtSessionOptions base_;
  CpuBudget budget_ = cpu_budget();  // the runners inherit rooflens' affinity mask
  std::string ort_version_, node_version_, browser_version_;
  std::unique_ptr<OrtRunner> spare_;  // the runner that answered the versions, until a configuration takes it
  std::atomic<pid_t> pid_{0};
  std::unique_ptr<DecoderGeneration> generation_;  // shares pid_, so abort() ends its runner too
  std::unique_ptr<Serving> serving_;
};

}  // namespace

std::unique_ptr<Backend> make_ort_backend(const BackendSpec& spec) {
  return std::make_unique<OrtBackend>(session_options(spec));
}

std::unique_ptr<Backend> make_ortweb_backend(const BackendSpec& spec) {
  BackendSpec native = spec;
  native.options.clear();
  OrtSessionOptions web;  // what only the web build has: its host
  for (const auto& [k, v] : spec.options) {
    if (k == "simd") {
      if (v != "true" && v != "1")
        throw UsageError("-B ortweb:simd=" + v + ": onnxruntime-web ships only SIMD builds (WebAssembly SIMD128); "
                         "leave simd out");
      continue;
    }
    if (k == "host") {
      if (v != "node" && v != "chromium")
        throw UsageError("-B ortweb:host=" + v + ": give node (onnxruntime-web's Node entry) or chromium (a headless "
                         "Chromium page)");
      web.host = v;
      continue;
    }
    if (k == "isolation") {
      if (v != "on" && v != "off")
        throw UsageError("-B ortweb:isolation=" + v + ": give on (the page is served with COOP/COEP: threads) or off");
      web.isolation = v == "on";
      continue;
    }
    if (k == "mallocMmapThreshold")  // glibc's setting: the web build's heap is its WebAssembly module's own
      throw UsageError("-B ortweb:mallocMmapThreshold: ONNX Runtime Web allocates inside its WebAssembly memory, "
                       "where glibc's mmap threshold does not reach; leave it out");
    native.options.emplace_back(k == "numThreads" ? "intraOpNumThreads" : k, v);
  }
  if (!web.isolation && web.host != "chromium")
    throw UsageError("-B ortweb:isolation=off: cross-origin isolation is a page's; add host=chromium");
  OrtSessionOptions o = session_options(native);
  o.build = "web";
  o.host = web.host;
  o.isolation = web.isolation;
  return std::make_unique<OrtBackend>(std::move(o));
}

}  // namespace rooflens::ort
