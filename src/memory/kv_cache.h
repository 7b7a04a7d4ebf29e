#pragma once
// A decoder's memory per phase: its weights, the KV cache (2 x layers x kv_heads x head_dim x tokens x batch x
// element size), and what a step holds at once — its activations (the past it is fed, the present and logits it
// writes among them) and the copies the runtime's binding makes of its outputs for the caller.
#include <cstdint>
#include <string>

#include "core/memory.h"

namespace rooflens {

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
  // The liveness peak of each phase's step at its dims (model_memory.h: inputs and outputs included); 0: not known,
  // the step then holds its cache tensors and logits only.
  uint64_t prefill_activations = 0, decode_activations = 0;
};

KvMemory kv_memory(const KvShape& s);

}  // namespace rooflens
