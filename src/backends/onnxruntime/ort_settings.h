#pragma once
// What an ONNX Runtime inference session really runs with: the intra-op thread count rooflens passes (the user's, else
// its own choice — never ORT's default, which ignores the affinity mask and differs between machines), and every
// performance option as a neutral RunSetting with its effective value and source. Options nobody set carry the default
// ORT documents for them (docs: onnxruntime.ai, "Thread management"), labelled runtime_default.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/common/cpu_budget.h"
#include "backends/onnxruntime/ort_runner.h"
#include "core/run_settings.h"

namespace rooflens::ort {

// The intra-op setting of an inference session: `requested` (--threads), else the user's -B intraOpNumThreads, else one
// thread per physical core of `budget` (rooflens' choice, with its reason).
RunSetting ort_threads(int64_t requested, const OrtSessionOptions& user, const CpuBudget& budget);

// The intra-op setting as ONNX Runtime Web ran it: `asked`, unless its WebAssembly module runs another count (read
// back at load: `ran`; it lowers the threads to 1 without SharedArrayBuffer) — then that count, observed, with why.
RunSetting web_threads_setting(RunSetting asked, int64_t ran, bool shared_memory);

// Where ONNX Runtime Web ran, as its runner read it back at load: Node, or a Chromium page and whether that page was
// cross-origin isolated (the COOP/COEP headers that give it SharedArrayBuffer, hence threads).
RunSetting web_host_setting(const LoadResult& load);

// The options rooflens itself added to an inference session, by ORT key (e.g. "session.intra_op.allow_spinning"), with
// why.
using RooflensChoices = std::map<std::string, std::string>;

// Every performance option of an inference session created with `sent`: intra-op threads as `threads` says, the others
// as set by the user (`user` holds the same value), by rooflens (`choices`), or ORT's documented default.
std::vector<RunSetting> effective_settings(const OrtSessionOptions& sent, const OrtSessionOptions& user,
                                           const RunSetting& threads, const RooflensChoices& choices);

}  // namespace rooflens::ort
