#pragma once
// The ONNX Runtime backend: one runner process per configuration (fresh peak RSS, crash isolation).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace rooflens::ort {

// Options in ORT's spelling (see OrtSessionOptions::set), plus two short forms: opt=LEVEL and threads=N;
// --opt-level becomes graphOptimizationLevel.
std::unique_ptr<Backend> make_ort_backend(const BackendSpec& spec);

// ONNX Runtime Web (`-B ortweb`): the same runner with onnxruntime-web's WebAssembly build, in Node. Options as
// ORT Web spells them too: numThreads (env.wasm.numThreads, the same as intraOpNumThreads) and simd (only true: the
// build ships SIMD kernels alone).
std::unique_ptr<Backend> make_ortweb_backend(const BackendSpec& spec);

}  // namespace rooflens::ort
