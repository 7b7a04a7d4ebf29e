#pragma once
// A decoder's memory per phase: its weights, the KV cache (2 x layers x kv_heads x head_dim x tokens x batch x
// element size), and what a step holds at once — its activations (the past it is fed, the present and logits it
// writes among them) and the copies the runtime's binding makes of its outputs for the caller. decoder_memory is the
// one entry point of a configuration's memory section (generation.runs[].memory, docs/memory.md "Decoders").
#include <cstdint>
#include <optional>
#include <string>

#include "core/memory.h"
#include "core/report_generation.h"

namespace rooflens {

// Bytes of one token of one sequence in the cache: key + value of every layer.
uint64_t kv_bytes_per_token(const DecoderIo& io);

// The formula's figures (kv_memory): what a decoder configuration's prediction is made of, resolved.
struct KvShape {
  uint64_t weights_bytes = 0;
  std::string weights_source = "analysis";  // KvMemory::weights_source
  uint64_t prepacked_bytes = 0;
  uint64_t kv_bytes_per_token = 0;  // one token of one sequence, every layer, key and value
  int64_t batch = 1, prompt = 0, gen = 0;
  int64_t vocab = 0;
  int element_bytes = 4;            // of the logits (the cache's element type)
  int64_t output_copies = 0;        // copies of each output the binding makes for the caller (ORT's Node.js: 1)
  uint64_t baseline_bytes = 0;
  uint64_t baseline_run_bytes = 0;  // of the baseline, what its first run added (a calibration constant too)
  // The liveness peak of each phase's step at its dims (model_memory.h: inputs and outputs included); 0: not known,
  // the step then holds its cache tensors and logits only.
  uint64_t prefill_activations = 0, decode_activations = 0;
};

// The prediction alone: weights, KV cache, each phase's peak. No measured field is set.
KvMemory kv_memory(const KvShape& s);

// A decoder configuration's two steps as the model alone predicts them at their dims (model_memory.h
// predict_model_memory), before anything runs: the prefill over the prompt, and the last decode step over the whole
// context (none without decode steps).
struct DecoderSteps {
  ModelMemory prefill;
  std::optional<ModelMemory> decode;
  // What the larger step needs at least: weights + its activations (past, present and logits among them). A run is
  // checked against it before it starts (memory_guard.h).
  uint64_t need() const;
};

// What a decoder configuration's memory section comes from, as `generate` has it.
struct DecoderMemorySources {
  // The prediction's: the cache's layout (layers, kv heads, head dim, element type, vocabulary) and the configuration.
  const DecoderIo* io = nullptr;
  int64_t batch = 1, prompt = 0, gen = 0;
  // Each phase's step as the model alone predicts it and, when the phase was profiled at the step's dims, as its run
  // predicts it in the executed order (run_memory.h; null: not profiled there — the decode step's run only when the
  // profiled step is the last one).
  const DecoderSteps* steps = nullptr;
  const RunMemory* prefill_run = nullptr;
  const RunMemory* decode_run = nullptr;
  // The runtime's calibration constants (measured in a process of their own) and its binding's copies per output.
  uint64_t baseline_bytes = 0, baseline_run_bytes = 0;
  int64_t output_copies = 0;
  // The measurement's: compared with the prediction, never an input of it (null: not measured).
  const DecoderMemoryMeasured* measured = nullptr;
  // Why the runtime's memory is not predicted (GenerationMeasurement::memory_not_predicted); empty: predicted.
  std::string not_predicted;
};

// The configuration's memory section: the prediction — weights and activations of the executed graph where the phase
// was profiled at its dims (the runtime's folded and packed constants, its kernels' order), else the model's — and
// beside it what the runner measured, with the inference session's creation beyond its prediction (run_memory.h's
// rule).
KvMemory decoder_memory(const DecoderMemorySources& in);

}  // namespace rooflens
