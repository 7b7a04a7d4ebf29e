#include "backends/onnxruntime/ort_settings.h"

#include <optional>

namespace rooflens::ort {
namespace {

constexpr const char* kSpinning = "session.intra_op.allow_spinning";
constexpr const char* kAffinities = "session.intra_op_thread_affinities";
constexpr const char* kDocumented = "ORT's documented default";
constexpr const char* kPrepacking = "session.disable_prepacking";

std::string on_off(bool v) { return v ? "on" : "off"; }

std::optional<std::string> extra(const OrtSessionOptions& o, const char* key) {
  auto it = o.extra.find(key);
  if (it == o.extra.end()) return std::nullopt;
  return it->second;
}

std::string providers(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& p : list) out += (out.empty() ? "" : ";") + p;
  return out;
}

// One option: `sent` is its value in the inference session (nullopt: not passed), `given` the user's.
RunSetting one(const char* name, const char* option, const std::optional<std::string>& sent,
               const std::optional<std::string>& given, const RooflensChoices& choices, std::string default_value,
               std::string default_note) {
  RunSetting s;
  s.name = name;
  s.option = option;
  if (!sent) {
    s.value = std::move(default_value);
    s.source = SettingSource::runtime_default;
    s.note = std::move(default_note);
    return s;
  }
  s.value = *sent;
  auto why = choices.find(option);
  if (given && *given == *sent) {
    s.source = SettingSource::user;
  } else {
    s.source = SettingSource::rooflens;
    if (why != choices.end()) s.note = why->second;
  }
  return s;
}

template <class T, class F>
std::optional<std::string> text(const std::optional<T>& v, F f) {
  if (!v) return std::nullopt;
  return f(*v);
}

}  // namespace

RunSetting ort_threads(int64_t requested, const OrtSessionOptions& user, const CpuBudget& budget) {
  if (requested <= 0 && user.intraOpNumThreads && *user.intraOpNumThreads > 0) requested = *user.intraOpNumThreads;
  return intra_op_setting(requested, budget, "intraOpNumThreads");
}

RunSetting web_threads_setting(RunSetting asked, int64_t ran, bool shared_memory) {
  if (std::to_string(ran) == asked.value) {
    asked.note += std::string(asked.note.empty() ? "" : "; ") + "read back from ONNX Runtime Web (env.wasm.numThreads)";
    return asked;
  }
  asked.note = "asked " + asked.value + "; ONNX Runtime Web ran " + std::to_string(ran) +
               (shared_memory ? "" : " (no SharedArrayBuffer: WebAssembly threads cannot run; a page needs cross-origin "
                                     "isolation)");
  asked.value = std::to_string(ran);
  asked.source = SettingSource::observed;
  return asked;
}

RunSetting web_host_setting(const LoadResult& load) {
  RunSetting s;
  s.name = "host";
  s.source = SettingSource::observed;
  if (load.wasm_host != "chromium") {
    s.value = "node";
    s.note = "onnxruntime-web's Node entry, in the runner's own process";
    return s;
  }
  const bool isolated = load.wasm_cross_origin_isolated.value_or(false);
  s.value = "chromium " + load.browser + (isolated ? ", cross-origin isolated" : ", not cross-origin isolated");
  s.note = isolated ? "headless; the page was served with COOP/COEP, so it has SharedArrayBuffer and WebAssembly threads"
                    : "headless; the page was served without COOP/COEP (isolation=off): no SharedArrayBuffer, so "
                      "WebAssembly runs one thread";
  return s;
}

namespace {

std::vector<RunSetting> native_settings(const OrtSessionOptions& sent, const OrtSessionOptions& user,
                                        const RunSetting& threads, const RooflensChoices& choices) {
  auto num = [](int v) { return std::to_string(v); };
  auto flag = [](bool v) { return on_off(v); };
  auto spin = [](const std::string& v) { return v == "0" ? std::string("off") : v == "1" ? std::string("on") : v; };
  const bool parallel = sent.executionMode && *sent.executionMode == "parallel";
  std::vector<RunSetting> out{threads};
  out.push_back(one("inter_op_threads", "interOpNumThreads", text(sent.interOpNumThreads, num),
                    text(user.interOpNumThreads, num), choices, parallel ? "0" : "unused",
                    parallel ? std::string(kDocumented) + ": 0, ORT sizes the inter-op pool itself"
                             : "sequential execution runs no inter-op pool"));
  out.push_back(one("execution_mode", "executionMode", sent.executionMode, user.executionMode, choices, "sequential",
                    kDocumented));
  out.push_back(one("spinning", kSpinning, text(extra(sent, kSpinning), spin), text(extra(user, kSpinning), spin),
                    choices, "on", std::string(kDocumented) + " (allow_spinning=1): idle pool threads spin before "
                    "they sleep"));
  out.push_back(one("affinity", kAffinities, extra(sent, kAffinities), extra(user, kAffinities), choices, "unpinned",
                    "ORT pins its workers only when it sizes the pool itself; given a thread count, it leaves them "
                    "to the OS"));
  out.push_back(one("opt_level", "graphOptimizationLevel", sent.graphOptimizationLevel, user.graphOptimizationLevel,
                    choices, "all", kDocumented));
  out.push_back(one("device", "executionProviders",
                    sent.executionProviders.empty() ? std::nullopt : std::optional(providers(sent.executionProviders)),
                    user.executionProviders.empty() ? std::nullopt : std::optional(providers(user.executionProviders)),
                    choices, "cpu", kDocumented));
  out.push_back(one("memory_arena", "enableCpuMemArena", text(sent.enableCpuMemArena, flag),
                    text(user.enableCpuMemArena, flag), choices, "on", kDocumented));
  out.push_back(one("memory_pattern", "enableMemPattern", text(sent.enableMemPattern, flag),
                    text(user.enableMemPattern, flag), choices, "on", kDocumented));
  // Memory (docs/memory.md): how the CPU arena grows, whether weights are packed for their kernels, and how the
  // runner's C allocator returns freed memory.
  RunSetting growth;
  growth.name = "arena_extend_strategy";
  growth.value = "next_power_of_two";
  growth.option = "arena_extend_strategy";
  growth.note = std::string(kDocumented) + " (kNextPowerOfTwo): each region the arena adds is twice the last; "
                "onnxruntime-node has no option to change it";
  out.push_back(growth);
  auto packing = [](const std::string& v) { return v == "1" ? std::string("off") : std::string("on"); };
  out.push_back(one("prepacking", kPrepacking, text(extra(sent, kPrepacking), packing),
                    text(extra(user, kPrepacking), packing), choices, "on", kDocumented));
  auto threshold = [](uint64_t v) { return "mmap threshold " + std::to_string(v) + " bytes"; };
  out.push_back(one("c_allocator", "MALLOC_MMAP_THRESHOLD_", text(sent.mallocMmapThreshold, threshold),
                    text(user.mallocMmapThreshold, threshold), choices, "glibc default",
                    "glibc's dynamic mmap threshold: it rises as large blocks are freed, and freed memory below the "
                    "heap's top stays with the process"));
  return out;
}

// What differs in ONNX Runtime Web's WebAssembly module (docs/ortweb.md): its execution provider, its threads (Web
// Workers, or Node's worker threads, which no one pins) and its heap (the module's own malloc in its linear memory,
// where glibc's settings reach nothing). The other options are the same ORT core's.
void as_the_web_build_runs(std::vector<RunSetting>& settings) {
  for (RunSetting& s : settings) {
    if (s.name == "affinity") {
      s.value = "unpinned";
      s.source = SettingSource::runtime_default;
      s.note = "WebAssembly threads are workers of the host (Web Workers; Node's worker threads): nothing pins them";
    } else if (s.name == "device" && s.source == SettingSource::runtime_default) {
      s.value = "wasm";
      s.note = "onnxruntime-web's default execution provider";
    } else if (s.name == "c_allocator") {
      s.value = "the WebAssembly module's malloc";
      s.source = SettingSource::runtime_default;
      s.option.clear();
      s.note = "tensors and weights live in the module's linear memory, which grows in steps and never shrinks";
    }
  }
}

}  // namespace

std::vector<RunSetting> effective_settings(const OrtSessionOptions& sent, const OrtSessionOptions& user,
                                           const RunSetting& threads, const RooflensChoices& choices) {
  std::vector<RunSetting> out = native_settings(sent, user, threads, choices);
  if (sent.build == "web") as_the_web_build_runs(out);
  return out;
}

}  // namespace rooflens::ort
