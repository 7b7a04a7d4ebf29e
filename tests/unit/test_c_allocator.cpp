// The C allocator's replay (memory/c_allocator.h) on hand-built block sequences with glibc's rules: the dynamic mmap
// threshold, freed heap blocks kept resident below the top, the reuse margin and the small objects after kept
// blocks, the top given back past the trim threshold, a fixed threshold returning every large block; and the blocks
// of ONNX Runtime's inference session creation (backends/onnxruntime/ort_inference_session_memory.h) from hand-built
// graphs.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/onnxruntime/ort_inference_session_memory.h"
#include "memory/c_allocator.h"
#include "support/byte_units.h"

using namespace rooflens;

namespace {

using rooflens::testing::KiB; using rooflens::testing::MiB;

HeapEvent heap_alloc(uint64_t id, uint64_t bytes, bool keeps_objects = false) {
  HeapEvent e;
  e.id = id;
  e.bytes = bytes;
  e.keeps_objects = keeps_objects;
  return e;
}
HeapEvent heap_release(uint64_t id, bool whole = false) {
  HeapEvent e;
  e.allocate = false;
  e.id = id;
  e.frees_objects = whole;
  return e;
}
CAllocatorRules glibc() { return ort::runner_c_allocator(std::nullopt); }

}  // namespace

TEST(CAllocator, AFreedMappingRaisesTheThresholdSoTheNextBlocksStayOnTheHeapAfterTheyAreFreed) {
  CAllocator a(glibc());
  a.apply(heap_alloc(1, 8 * MiB));  // above 128 KiB and no heap to serve it: a mapping of its own
  EXPECT_GE(a.resident(), 8 * MiB);
  a.apply(heap_release(1));          // unmapped: gone, and the threshold is now its size
  EXPECT_LT(a.resident(), MiB);
  EXPECT_GE(a.mmap_threshold(), 8 * MiB);
  a.apply(heap_alloc(2, 4 * MiB));   // below the threshold: the heap grows
  a.apply(heap_alloc(3, 4 * MiB));   // the top of the heap, after it
  const uint64_t held = a.resident();
  EXPECT_GE(held, 8 * MiB);
  a.apply(heap_release(2));          // below a live block: glibc keeps it
  EXPECT_EQ(a.resident(), held);
  EXPECT_EQ(a.in_use(), 4 * MiB + 16);
}

TEST(CAllocator, AFixedThresholdReturnsEveryLargeBlockWhenItIsFreed) {
  CAllocator a(ort::runner_c_allocator(131072));
  a.apply(heap_alloc(1, 8 * MiB));
  a.apply(heap_release(1));
  a.apply(heap_alloc(2, 4 * MiB));
  a.apply(heap_alloc(3, 4 * MiB));
  a.apply(heap_release(2));
  EXPECT_EQ(a.mmap_threshold(), 131072u);  // not moved by the free
  EXPECT_LT(a.resident(), 4 * MiB + 64 * KiB);
  EXPECT_GE(a.peak(), 8 * MiB);
}

TEST(CAllocator, AFreedBlockServesOnlyASmallerAllocation) {
  CAllocator a(glibc());
  a.apply(heap_alloc(1, 8 * MiB));
  a.apply(heap_release(1));  // threshold 8 MiB
  a.apply(heap_alloc(2, 2 * MiB));
  a.apply(heap_alloc(3, 2 * MiB));
  a.apply(heap_release(2));
  const uint64_t before = a.resident();
  a.apply(heap_alloc(4, 2 * MiB));  // the same size: the small objects between take its start, so it goes to the top
  EXPECT_GT(a.resident(), before + MiB);
  a.apply(heap_alloc(5, MiB));      // a smaller one fits the freed block: nothing new
  const uint64_t held = a.resident();
  a.apply(heap_alloc(6, 1536 * KiB));  // the rest of the freed block is too small: the top again
  EXPECT_GT(a.resident(), held);
}

TEST(CAllocator, TheHeapsTopIsGivenBackOnlyPastTheTrimThreshold) {
  CAllocator a(glibc());
  a.apply(heap_alloc(1, 8 * MiB));
  a.apply(heap_release(1));  // threshold 8 MiB, trim threshold 16 MiB
  for (uint64_t id = 2; id <= 4; ++id) a.apply(heap_alloc(id, 6 * MiB));
  const uint64_t full = a.resident();
  a.apply(heap_release(4));  // 6 MiB free at the top: under 16 MiB, kept
  EXPECT_EQ(a.resident(), full);
  a.apply(heap_release(3));  // 12 MiB: still kept
  EXPECT_EQ(a.resident(), full);
  a.apply(heap_release(2));  // 18 MiB: given back, but for the top pad
  EXPECT_LT(a.resident(), MiB);
}

TEST(CAllocator, SmallObjectsAfterKeptBlocksStopFreedNeighboursFromMergingUnlessTheyGoToo) {
  auto replay = [](bool whole, bool merge_freely) {
    CAllocator a(glibc(), merge_freely);
    a.apply(heap_alloc(1, 8 * MiB));
    a.apply(heap_release(1));
    a.apply(heap_alloc(2, 2 * MiB, true));
    a.apply(heap_alloc(3, 2 * MiB, true));
    a.apply(heap_alloc(4, 2 * MiB, true));  // keeps 2 and 3 away from the top
    a.apply(heap_release(2, whole));
    a.apply(heap_release(3, whole));
    const uint64_t held = a.resident();
    a.apply(heap_alloc(5, 3 * MiB));  // fits only where 2 and 3 merged
    return a.resident() - held;
  };
  EXPECT_GE(replay(false, false), 3 * MiB);  // their objects stay between them: to the top
  EXPECT_LT(replay(true, false), 64 * KiB);  // dropped whole, objects and all: the merged block serves it
  EXPECT_LT(replay(false, true), 64 * KiB);  // the replay's low end merges them whatever
}

TEST(CAllocator, TheReplaySplitsTheCreationFromTheFirstRunAndSumsTheCreationsBlocksByRole) {
  CAllocatorReplay blocks;
  HeapEvent s = heap_alloc(1, 8 * MiB + 1);
  s.role = HeapRole::serialized;
  HeapEvent c = heap_alloc(2, 8 * MiB, true);
  c.role = HeapRole::copy;
  blocks.creation = {s, c, heap_release(1)};
  HeapEvent region = heap_alloc(10, 4 * MiB);
  region.role = HeapRole::region;
  region.written = MiB;  // only the pages the run wrote are resident
  blocks.run = {region};
  const CAllocatorPrediction p = replay_c_allocator(glibc(), blocks);
  EXPECT_EQ(p.setting, "glibc default");
  EXPECT_EQ(p.serialized_bytes, 8 * MiB + 1);
  EXPECT_EQ(p.copies_bytes, 8 * MiB);
  EXPECT_GE(p.creation_peak_bytes, 16 * MiB);  // both copies at once, each in a mapping of its own
  EXPECT_LT(p.session_bytes, 9 * MiB);         // the parsed one unmapped
  EXPECT_GE(p.run_peak_bytes, p.session_bytes + MiB);
  EXPECT_LT(p.run_peak_bytes, p.session_bytes + 2 * MiB);
  EXPECT_EQ(replay_c_allocator(ort::runner_c_allocator(131072), blocks).setting, "glibc, mmap threshold 131072");
}

namespace {

GraphView graph(std::vector<GraphView::Constant> constants, std::vector<GraphView::Node> nodes) {
  GraphView g;
  g.constants = std::move(constants);
  for (const auto& c : g.constants) g.constant_bytes[c.name] = c.bytes;
  g.nodes = std::move(nodes);
  return g;
}

std::vector<std::pair<HeapRole, uint64_t>> allocations(const std::vector<HeapEvent>& events) {
  std::vector<std::pair<HeapRole, uint64_t>> out;
  for (const auto& e : events)
    if (e.allocate) out.emplace_back(e.role, e.bytes);
  return out;
}

}  // namespace

TEST(OrtInferenceSessionCreation, ParsedCopiedRewrittenAndPackedInTheRuntimesOrder) {
  // W goes to a MatMul that packs it; V is reordered into "reorder_token_0" by the optimizer.
  const GraphView model = graph({{"W", 2 * MiB}, {"V", MiB}}, {{"mm", "MatMul", "", {"x", "W"}, {"y"}, {}, false},
                                                                  {"conv", "Conv", "", {"y", "V"}, {"z"}, {}, false}});
  const GraphView executed =
      graph({{"W", 2 * MiB}, {"reorder_token_0", MiB}}, {{"mm", "MatMul", "", {"x", "W"}, {"y"}, {}, false},
                                                         {"conv", "Conv", "com.microsoft.nchwc", {"y", "reorder_token_0"}, {"z"}, {}, false}});
  const std::vector<HeapEvent> e = ort::inference_session_creation_blocks(model, executed, 3 * MiB + 500);
  const std::vector<std::pair<HeapRole, uint64_t>> want{
      {HeapRole::read_buffer, 3 * MiB + 500}, {HeapRole::serialized, 2 * MiB + 1}, {HeapRole::serialized, MiB + 1},
      {HeapRole::copy, 2 * MiB},              {HeapRole::copy, MiB},               {HeapRole::temporary, MiB},
      {HeapRole::temporary, MiB},             {HeapRole::temporary, MiB},          {HeapRole::rewritten, MiB},
      {HeapRole::packed, 2 * MiB}};
  EXPECT_EQ(allocations(e), want);
  // Everything but the kept tensors is freed: V's copy (replaced, objects and all) and W's (packed: its buffer only).
  std::vector<uint64_t> live;
  for (const auto& x : e) {
    if (x.allocate) live.push_back(x.id);
    else live.erase(std::remove(live.begin(), live.end(), x.id), live.end());
  }
  EXPECT_EQ(live.size(), 2u);  // the rewritten V and the packed W
  const auto w_free = std::find_if(e.begin(), e.end(), [](const HeapEvent& x) { return !x.allocate && x.bytes == 2 * MiB; });
  ASSERT_NE(w_free, e.end());
  EXPECT_FALSE(w_free->frees_objects);
}

TEST(OrtInferenceSessionCreation, AConvertedFp16ConstantCostsOneScratchCopyOfItsSourceAndBatchNormFusionRewritesTwice) {
  const GraphView fp16 = graph({{"W", MiB}}, {});
  const GraphView fp16_run = graph({{"FusedBack_W", 2 * MiB}}, {});
  const auto a = allocations(ort::inference_session_creation_blocks(fp16, fp16_run, 0));
  EXPECT_EQ(std::count(a.begin(), a.end(), std::make_pair(HeapRole::temporary, MiB)), 1);
  EXPECT_EQ(std::count(a.begin(), a.end(), std::make_pair(HeapRole::rewritten, 2 * MiB)), 1);

  // A Conv read only by a BatchNormalization of constants: the basic level folds it first (two scratch copies and
  // the new weight), then the NCHWc level reorders it (three more and the kept one).
  const GraphView bn = graph({{"W", MiB}, {"s", 4}, {"b", 4}, {"m", 4}, {"v", 4}},
                             {{"conv", "Conv", "", {"x", "W"}, {"c"}, {}, false},
                              {"bn", "BatchNormalization", "", {"c", "s", "b", "m", "v"}, {"y"}, {}, false}});
  const GraphView bn_run = graph({{"reorder_token_1", MiB}}, {});
  const auto b = allocations(ort::inference_session_creation_blocks(bn, bn_run, 0));
  EXPECT_EQ(std::count(b.begin(), b.end(), std::make_pair(HeapRole::temporary, MiB)), 5);
  EXPECT_EQ(std::count(b.begin(), b.end(), std::make_pair(HeapRole::rewritten, MiB)), 2);
}
