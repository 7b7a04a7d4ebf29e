#pragma once
// `rooflens bench --shard I/N`: one of N disjoint parts of a model list, so any scheduler (a CI matrix, a Slurm
// array, a Kubernetes indexed Job) can spread a zoo over N machines. A model's part depends on its name alone —
// the first 8 bytes of SHA-256(name), modulo N — so every machine computes the same partition without talking to
// the others, the N parts together are the whole list with no model twice, and adding a model to the zoo never
// moves the others to another part (a model's history stays on the machine that runs its part).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/model_source.h"

namespace rooflens::bench {

struct Shard {
  int64_t index = 1, count = 1;   // 1-based: 1/4 .. 4/4
  bool all() const { return count == 1; }
  std::string text() const;       // "2/4"
};

// "2/4" -> {2, 4}. Throws UsageError unless 1 <= I <= N.
Shard parse_shard(const std::string& text);
// The part (1-based) a model name belongs to.
int64_t shard_of(const std::string& name, int64_t count);
// The models of `shard`, in their order.
std::vector<BenchModel> take_shard(const std::vector<BenchModel>& models, const Shard& shard);

}  // namespace rooflens::bench
