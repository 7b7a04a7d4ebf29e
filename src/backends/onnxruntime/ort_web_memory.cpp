#include "backends/onnxruntime/ort_web_memory.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace rooflens::ort {
namespace {

// Binary units, as the 4 GiB it is held to: GiB from one up, MiB below.
std::string gib(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  return b >= (1 << 30) ? fmt::format("{:.2f} GiB", b / (1 << 30)) : fmt::format("{:.1f} MiB", b / (1 << 20));
}

}  // namespace

uint64_t wasm_memory_lower_bound(const WeightBytes& w) { return w.file + w.embedded + w.external; }

std::string wasm_memory_refusal(const WeightBytes& w) {
  const uint64_t need = wasm_memory_lower_bound(w);
  if (need <= kWasmMemoryBytes) return "";
  return fmt::format(
      "too large for ONNX Runtime Web: creating its inference session needs at least {} of WebAssembly memory "
      "(the file's {} copied in, and its {} of weights parsed{}), and a WebAssembly memory holds at most 4 GiB; not "
      "loaded — run it with -B onnxruntime (the native build), or make it smaller (quantize it)",
      gib(need), gib(w.file), gib(w.embedded + w.external),
      w.external ? fmt::format(", {} of them from its external data", gib(w.external)) : "");
}

std::string wasm_memory_refusal_of(const std::string& model) {
  WeightBytes w;
  try {
    w = file_weight_bytes(model);
  } catch (const UserError&) {
    return "";
  }
  return wasm_memory_refusal(w);
}

}  // namespace rooflens::ort
