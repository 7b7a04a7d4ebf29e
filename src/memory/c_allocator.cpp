#include "memory/c_allocator.h"

#include <algorithm>

#include "core/saturating.h"

namespace rooflens {
namespace {

constexpr uint64_t kNone = UINT64_MAX;
constexpr uint64_t kMinChunk = 32;  // glibc: MINSIZE on 64-bit
constexpr uint64_t kAlign = 16;     // MALLOC_ALIGNMENT
constexpr uint64_t kHeader = 8;     // SIZE_SZ: a chunk's size field

uint64_t round_up(uint64_t v, uint64_t to) { return to ? sat_mul((v + to - 1) / to, to) : v; }

}  // namespace

CAllocator::CAllocator(const CAllocatorRules& rules, bool merge_freely)
    : rules_(rules), merge_freely_(merge_freely), threshold_(rules.mmap_threshold),
      trim_threshold_(rules.trim_threshold) {}

uint64_t CAllocator::chunk_size(uint64_t bytes) const {
  return std::max(kMinChunk, round_up(sat_add(bytes, kHeader), kAlign));
}

uint64_t CAllocator::take_free(uint64_t size) {
  auto it = free_.lower_bound({sat_add(size, rules_.reuse_margin), 0});
  if (it == free_.end()) return kNone;
  const auto [have, address] = *it;
  free_.erase(it);
  Chunk& c = chunks_[address];
  c.in_use = true;
  if (have - size >= kMinChunk) {  // the rest stays free
    c.size = size;
    chunks_[address + size] = Chunk{have - size, false};
    free_.insert({have - size, address + size});
  }
  return address;
}

uint64_t CAllocator::take_top(uint64_t size) {
  if (end_ - top_ < sat_add(size, kMinChunk)) {
    if (size >= threshold_) return kNone;  // a mapping of its own
    const uint64_t grow = round_up(sat_add(size - (end_ - top_), kMinChunk + rules_.top_pad), rules_.page);
    end_ = sat_add(end_, grow);
  }
  const uint64_t address = top_;
  chunks_[address] = Chunk{size, true};
  top_ += size;
  return address;
}

void CAllocator::apply(const HeapEvent& e) {
  if (!e.allocate) {
    auto it = blocks_.find(e.id);
    if (it == blocks_.end()) return;
    const Block b = it->second;
    blocks_.erase(it);
    if (b.mapped) {
      mapped_written_ -= std::min(mapped_written_, round_up(b.written, rules_.page));
      in_use_ -= std::min(in_use_, b.size);
      // glibc's free of a mapped chunk above the threshold raises both thresholds to it (when they move at all).
      if (rules_.dynamic_threshold && b.size > threshold_ && b.size <= rules_.mmap_threshold_max) {
        threshold_ = b.size;
        trim_threshold_ = sat_mul(b.size, 2);
      }
      return;
    }
    in_use_ -= std::min(in_use_, b.size);
    release(b.address);
    if (b.objects && e.frees_objects) release(b.objects);
    return;
  }
  const bool objects = e.keeps_objects && !merge_freely_;
  const uint64_t size = chunk_size(e.bytes);
  const uint64_t tail = objects ? chunk_size(rules_.object_bytes) : 0;
  const uint64_t want = sat_add(size, tail);
  const uint64_t written = std::min(e.written, e.bytes);
  uint64_t address = take_free(want);
  if (address == kNone) address = take_top(want);
  if (address == kNone) {  // a mapping of its own, its pages resident once written
    const uint64_t pages = round_up(sat_add(e.bytes, 2 * kHeader), rules_.page);
    blocks_[e.id] = Block{true, 0, pages, written, 0};
    mapped_written_ = sat_add(mapped_written_, round_up(written, rules_.page));
    in_use_ = sat_add(in_use_, pages);
    note();
    return;
  }
  if (tail) {  // the small objects after the block stay when it is freed
    chunks_[address].size = size;
    chunks_[address + size] = Chunk{tail, true};
  }
  blocks_[e.id] = Block{false, address, size, written, tail ? address + size : 0};
  in_use_ = sat_add(in_use_, size);
  write(address, written);
  note();
}

void CAllocator::release(uint64_t address) {
  auto it = chunks_.find(address);
  if (it == chunks_.end() || !it->second.in_use) return;
  it->second.in_use = false;
  // Merge with the free chunk after it, then with the free chunk before it.
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use) {
    free_.erase({next->second.size, next->first});
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->first + prev->second.size == it->first) {
      free_.erase({prev->second.size, prev->first});
      prev->second.size += it->second.size;
      chunks_.erase(it);
      it = prev;
    }
  }
  if (it->first + it->second.size == top_) {  // joins the top
    top_ = it->first;
    chunks_.erase(it);
    trim();
    return;
  }
  free_.insert({it->second.size, it->first});
}

// glibc trims the heap when its top chunk reaches the trim threshold, keeping top_pad.
void CAllocator::trim() {
  if (end_ - top_ < trim_threshold_) return;
  const uint64_t keep = round_up(sat_add(top_, rules_.top_pad), rules_.page);
  if (keep >= end_) return;
  unwrite_above(keep);
  end_ = keep;
}

void CAllocator::write(uint64_t address, uint64_t bytes) {
  if (!bytes) return;
  const uint64_t page = std::max<uint64_t>(1, rules_.page);
  const uint64_t from = address / page, to = (sat_add(address, bytes) + page - 1) / page;
  if (heap_pages_.size() < to) heap_pages_.resize(to, false);
  for (uint64_t p = from; p < to; ++p)
    if (!heap_pages_[p]) {
      heap_pages_[p] = true;
      heap_written_ += page;
    }
}

void CAllocator::unwrite_above(uint64_t address) {
  const uint64_t page = std::max<uint64_t>(1, rules_.page);
  for (uint64_t p = (address + page - 1) / page; p < heap_pages_.size(); ++p)
    if (heap_pages_[p]) {
      heap_pages_[p] = false;
      heap_written_ -= page;
    }
}

namespace {

struct Replayed {
  uint64_t creation_peak = 0, inference_session = 0, inference_session_live = 0, run_peak = 0;
};

Replayed replay(const CAllocatorRules& rules, const CAllocatorReplay& blocks, bool merge_freely) {
  CAllocator a(rules, merge_freely);
  Replayed r;
  for (const auto& e : blocks.creation) a.apply(e);
  r.creation_peak = a.peak();
  r.inference_session = a.resident();
  r.inference_session_live = a.in_use();
  a.reset_peak();
  for (const auto& e : blocks.run) a.apply(e);
  r.run_peak = a.peak();
  return r;
}

}  // namespace

CAllocatorPrediction replay_c_allocator(const CAllocatorRules& rules, const CAllocatorReplay& blocks) {
  CAllocatorPrediction p;
  p.setting = rules.dynamic_threshold ? rules.name + " default"
                                      : rules.name + ", mmap threshold " + std::to_string(rules.mmap_threshold);
  const Replayed kept = replay(rules, blocks, false), merged = replay(rules, blocks, true);
  p.creation_peak_bytes = kept.creation_peak;
  p.session_bytes = kept.inference_session;
  p.session_live_bytes = kept.inference_session_live;
  p.run_peak_bytes = kept.run_peak;
  p.low_creation_peak_bytes = merged.creation_peak;
  p.low_session_bytes = merged.inference_session;
  p.low_run_peak_bytes = merged.run_peak;
  for (const auto& e : blocks.creation) {
    if (!e.allocate) continue;
    uint64_t* sum = e.role == HeapRole::serialized  ? &p.serialized_bytes
                    : e.role == HeapRole::copy      ? &p.copies_bytes
                    : e.role == HeapRole::temporary ? &p.temporaries_bytes
                    : e.role == HeapRole::rewritten ? &p.rewritten_bytes
                    : e.role == HeapRole::packed    ? &p.packed_bytes
                                                    : nullptr;
    if (sum) *sum = sat_add(*sum, e.bytes);
  }
  return p;
}

}  // namespace rooflens
