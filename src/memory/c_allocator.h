#pragma once
// The C library's allocator replayed over a process's large blocks (docs/memory.md, "The C allocator"): glibc's main
// arena as its rules place an allocation — the smallest free chunk that serves it, else the heap's top, else (at or
// above the mmap threshold) a mapping of its own, else a larger heap — and return memory: a mapping when its block is freed
// (raising a dynamic threshold to that block's size), the heap's top beyond the trim threshold, nothing else. Freed
// chunks merge with free neighbours; a block the process keeps is followed by its small objects, which stop that merge.
// What is resident: the heap's pages and the mappings' pages once written. Neutral: the rules and the blocks come from
// the backend (core/memory.h CAllocatorRules, HeapEvent).
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/memory.h"

namespace rooflens {

class CAllocator {
 public:
  // `merge_freely`: no small objects after kept blocks (every freed neighbour merges): the least the allocator keeps.
  explicit CAllocator(const CAllocatorRules& rules, bool merge_freely = false);

  void apply(const HeapEvent& e);          // an allocation or a free; a free of an unknown id is ignored
  uint64_t resident() const { return heap_written_ + mapped_written_; }
  uint64_t in_use() const { return in_use_; }
  uint64_t peak() const { return peak_; }  // largest resident since the last reset_peak
  void reset_peak() { peak_ = resident(); }
  uint64_t mmap_threshold() const { return threshold_; }

 private:
  struct Chunk {
    uint64_t size = 0;
    bool in_use = false;
  };
  struct Block {
    bool mapped = false;
    uint64_t address = 0, size = 0;  // heap: the chunk's address and size; mapped: its pages
    uint64_t written = 0;
    uint64_t objects = 0;            // heap: the address of its small objects' chunk (0: none)
  };
  uint64_t chunk_size(uint64_t bytes) const;
  uint64_t take_free(uint64_t size);         // a free chunk that serves `size` (its address), else UINT64_MAX
  uint64_t take_top(uint64_t size);
  void release(uint64_t address);
  void trim();
  void write(uint64_t address, uint64_t bytes);
  void unwrite_above(uint64_t address);
  void note() { peak_ = std::max(peak_, resident()); }

  CAllocatorRules rules_;
  bool merge_freely_;
  uint64_t threshold_, trim_threshold_;
  uint64_t top_ = 0, end_ = 0;                 // the top chunk is [top_, end_): the heap is [0, end_)
  std::map<uint64_t, Chunk> chunks_;           // heap chunks below the top, by address
  std::set<std::pair<uint64_t, uint64_t>> free_;  // (size, address) of free heap chunks
  std::unordered_map<uint64_t, Block> blocks_;    // event id -> its block
  std::vector<bool> heap_pages_;               // written heap pages
  uint64_t heap_written_ = 0, mapped_written_ = 0, in_use_ = 0, peak_ = 0;
};

// An inference session's creation and its first run replayed through the rules (the C allocator's part of a run's
// prediction): the creation's blocks, then the caller's inputs, the run's blocks (the arena's regions, or each tensor
// with the arena off) and the output copies. Resident figures are the blocks' (the runtime's baseline and node
// structures are not in them); the low figures replay the same blocks with freed neighbours always merging.
struct CAllocatorReplay {
  std::vector<HeapEvent> creation, run;
};
CAllocatorPrediction replay_c_allocator(const CAllocatorRules& rules, const CAllocatorReplay& blocks);

}  // namespace rooflens
