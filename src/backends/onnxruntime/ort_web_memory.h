#pragma once
// ONNX Runtime Web keeps everything in one WebAssembly memory, at most 4 GiB (32-bit addresses): a model whose
// inference session cannot fit is refused before the runner loads it, with the arithmetic, instead of failing after
// minutes with the allocator's "bad_alloc".
#include <cstdint>
#include <string>

#include "model/weight_bytes.h"

namespace rooflens::ort {

inline constexpr uint64_t kWasmMemoryBytes = uint64_t{4} << 30;

// ONNX Runtime Web's memory has no rules here: the runtime's baseline is not calibrated for it, and its tensors and
// weights live in one WebAssembly linear memory that grows in steps and never shrinks. A web run (profile, generate)
// is measured only, and says why.
inline constexpr const char* kWebMemoryNotPredicted =
    "ONNX Runtime Web keeps weights and tensors in its WebAssembly module's linear memory, which grows in steps and "
    "never shrinks; rooflens has no rules for it (docs/ortweb.md)";

// A lower bound of the WebAssembly memory creating the inference session holds at once: ORT Web copies the model
// file into the memory and parses it there, so the file's bytes and its weights as parsed tensors (the file's own
// and its side files') are both inside while the inference session is built. Activations come on top.
uint64_t wasm_memory_lower_bound(const WeightBytes& w);

// "" when the bound fits in kWasmMemoryBytes; else one line saying why the model cannot load and what to do.
std::string wasm_memory_refusal(const WeightBytes& w);

// The same for the model file at `model`, read from its skeleton; "" too when rooflens cannot read the file (ORT's
// own message then says what is wrong with it). Every path that loads a model into ONNX Runtime Web asks this first.
std::string wasm_memory_refusal_of(const std::string& model);

}  // namespace rooflens::ort
