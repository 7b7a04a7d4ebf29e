// The arena simulation (memory/arena.h) on hand-built allocation sequences, with ONNX Runtime's CPU arena rules
// (kNextPowerOfTwo regions from 1 MiB, 256-byte rounding, best fit, the split rule, coalescing, no chunk across two
// regions), the events a liveness walk hands it, and a run's band around the prediction's other parts.
#include <gtest/gtest.h>

#include "backends/onnxruntime/ort_memory_rules.h"
#include "core/memory_json.h"
#include "memory/arena.h"
#include "memory/liveness.h"
#include "support/byte_units.h"

using namespace rooflens;

namespace {

using rooflens::testing::MiB;

BufferEvent buffer_alloc(int b, uint64_t bytes) { return {b, bytes, true}; }
BufferEvent buffer_release(int b) { return {b, 0, false}; }

ArenaPrediction run(const std::vector<BufferEvent>& events) { return simulate_arena(ort::cpu_arena_rules(), events); }

}  // namespace

TEST(Arena, RegionsDoubleFromOneMebibyteAndAFittingRegionDoublesTheNextOne) {
  // 0.6 MiB takes the first 1 MiB region; 0.6 MiB more gets a 2 MiB region (split: its 1.4 MiB rest stays free);
  // 1.2 MiB fits that rest, no region; 3 MiB fits nothing: 4 MiB, the size after 2 MiB.
  const uint64_t a = 6 * MiB / 10;
  ArenaPrediction p = run({buffer_alloc(0, a), buffer_alloc(1, a), buffer_alloc(2, 2 * a), buffer_alloc(3, 3 * MiB)});
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{MiB, 2 * MiB, 4 * MiB}));
  EXPECT_EQ(p.held_bytes, 7 * MiB);
}

TEST(Arena, AnAllocationLargerThanTheNextRegionDoublesItUntilItFitsAndTheSizeIsKeptOnce) {
  // 5 MiB first: 1 -> 2 -> 4 -> 8 MiB, and 8 MiB stays the next size (it was raised for this allocation), so a second
  // 5 MiB that does not fit the rest gets 8 MiB again, and a third 16 MiB.
  ArenaPrediction p = run({buffer_alloc(0, 5 * MiB), buffer_alloc(1, 5 * MiB), buffer_alloc(2, 5 * MiB)});
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{8 * MiB, 8 * MiB, 16 * MiB}));
}

TEST(Arena, ReleasedMemoryIsReusedByBestFitAndNeighboursCoalesce) {
  // Three 256 KiB chunks in the first region; freeing the first two merges them into 512 KiB, which a 400 KiB
  // allocation takes (best fit: the 256 KiB rest at the region's end is too small) without a new region.
  const uint64_t q = 256 * 1024;
  ArenaPrediction p = run({buffer_alloc(0, q), buffer_alloc(1, q), buffer_alloc(2, q), buffer_release(0), buffer_release(1), buffer_alloc(3, 400 * 1024)});
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{MiB}));
  EXPECT_EQ(p.in_use_peak_bytes, 3 * q);
  // Without the merge (only the first freed) 400 KiB fits neither 256 KiB hole: a second region.
  ArenaPrediction q2 = run({buffer_alloc(0, q), buffer_alloc(1, q), buffer_alloc(2, q), buffer_alloc(4, q), buffer_release(0), buffer_release(2), buffer_alloc(3, 400 * 1024)});
  EXPECT_EQ(q2.regions, (std::vector<uint64_t>{MiB, 2 * MiB}));
}

TEST(Arena, AChunkUnderTwiceTheAllocationIsHandedOutWholeAndCountsWholeInUse) {
  // 600 KiB from a fresh 1 MiB region: 1 MiB < 2 x 600 KiB and the 424 KiB rest is under the 128 MiB dead-bytes
  // limit, so the whole region is the chunk (ORT's in-use figure jumps by the region); 300 KiB then needs a region.
  ArenaPrediction p = run({buffer_alloc(0, 600 * 1024), buffer_alloc(1, 300 * 1024)});
  EXPECT_EQ(p.in_use_peak_bytes, MiB + 300 * 1024);  // the second allocation's 2 MiB region is split: 300 KiB counted
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{MiB, 2 * MiB}));
}

TEST(Arena, AllocationsAreRoundedTo256BytesAndNoChunkSpansTwoRegions) {
  // 1000 allocations of 1 byte take 256 bytes each: 256,000 bytes in use, one region. A free 1 MiB region and a free
  // 600 KiB chunk at the start of the next region cannot serve 1.5 MiB between them: a new region (4 MiB).
  std::vector<BufferEvent> small;
  for (int i = 0; i < 1000; ++i) small.push_back(buffer_alloc(i, 1));
  EXPECT_EQ(run(small).in_use_peak_bytes, 256000u);
  ArenaPrediction p = run({buffer_alloc(0, 600 * 1024), buffer_alloc(1, 600 * 1024), buffer_alloc(2, 2 * MiB - 600 * 1024), buffer_release(0),
                           buffer_release(1), buffer_alloc(3, 3 * MiB / 2)});
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{MiB, 2 * MiB, 4 * MiB}));
}

TEST(Arena, WrittenPagesAreTheTensorsBytesAtTheirChunksNotTheWholeRegion) {
  // One 10,000-byte tensor in a 1 MiB region writes 3 pages; written again elsewhere after a free, the same chunk is
  // reused (best fit, lowest address): no new pages. A tensor handed a whole unsplit chunk writes only its own bytes.
  ArenaPrediction p = run({buffer_alloc(0, 10000), buffer_release(0), buffer_alloc(1, 10000)});
  EXPECT_EQ(p.written_bytes, 3u * 4096);
  EXPECT_EQ(p.held_bytes, MiB);
  ArenaPrediction whole = run({buffer_alloc(0, 600 * 1024)});
  EXPECT_EQ(whole.written_bytes, 600u * 1024);
  EXPECT_EQ(whole.in_use_peak_bytes, MiB);
}

TEST(Arena, SameAsRequestedGrowsByExactlyTheAllocation) {
  ArenaRules r = ort::cpu_arena_rules();
  r.doubling = false;
  ArenaPrediction p = simulate_arena(r, {buffer_alloc(0, 1000), buffer_alloc(1, 3 * MiB)});
  EXPECT_EQ(p.regions, (std::vector<uint64_t>{1024, 3 * MiB}));
}

TEST(Arena, TheLivenessWalkHandsItsBuffersToTheArenaInOrderWithoutTheCallersInputs) {
  // x (input) -> a -> b (output): a is allocated, b allocated, a released; x is the caller's and b never released.
  std::vector<LiveTensor> t(3);
  t[0].name = "x"; t[0].bytes = 100; t[0].graph_input = true;
  t[1].name = "a"; t[1].bytes = 200;
  t[2].name = "b"; t[2].bytes = 300; t[2].graph_output = true;
  LiveStep s1, s2;
  s1.reads = {0}; s1.writes = {1};
  s2.reads = {1}; s2.writes = {2};
  const Liveness l = liveness(t, {s1, s2});
  ASSERT_EQ(l.events.size(), 3u);
  EXPECT_TRUE(l.events[0].allocate && l.events[0].buffer == 1 && l.events[0].bytes == 200);
  EXPECT_TRUE(l.events[1].allocate && l.events[1].buffer == 2);
  EXPECT_TRUE(!l.events[2].allocate && l.events[2].buffer == 1);
  EXPECT_EQ(simulate_arena(ort::cpu_arena_rules(), l.events).in_use_peak_bytes, 512u + 256u);
}

TEST(Arena, ThePredictionsBandRoundTripsAndAnInvertedBandIsRefused) {
  RunMemory m;
  m.predicted.weights_source = "executed_graph";
  m.predicted.arena = ArenaPrediction{{MiB, 2 * MiB}, 3 * MiB, 12288, 4096, 64, 100, 200, {}};
  json j = m;
  EXPECT_EQ(j.at("predicted").at("arena").at("regions"), json::array({MiB, 2 * MiB}));
  EXPECT_EQ(j.get<RunMemory>().predicted.arena->high_bytes, 200u);
  EXPECT_EQ(j.get<RunMemory>().predicted.arena->inputs_bytes, 64u);
  // A report written before the band counted the caller's inputs reads them as 0.
  json before = j;
  before["predicted"]["arena"].erase("inputs_bytes");
  EXPECT_EQ(before.get<RunMemory>().predicted.arena->inputs_bytes, 0u);
  j["predicted"]["arena"]["low_bytes"] = 300;
  EXPECT_THROW(j.get<RunMemory>(), UserError);
  j["predicted"].erase("arena");
  EXPECT_FALSE(j.get<RunMemory>().predicted.arena);
}
