// An engine's own roofs (WebAssembly): a run whose kernels ran in it is placed against them, with the machine's native
// roofs as the CPU's ceiling beside; they survive the report's JSON; an engine's sweep gets levels as the native one.
#include <gtest/gtest.h>

#include "assembly/assemble.h"
#include "core/report.h"
#include "hw/engine_roofs.h"
#include "support/byte_units.h"

using namespace rooflens;
using rooflens::testing::KiB;
using rooflens::testing::MiB;

namespace {

HardwareInfo native_roofs() {
  HardwareInfo hw;
  hw.machine.cores = hw.machine.threads = 1;
  hw.machine.caches = {{"L1d", 32 * KiB, 1, 1}, {"L2", 512 * KiB, 1, 1}, {"L3", 32 * MiB, 1, 1}};
  hw.compute = {{"fp32_fma_avx2", "avx2", "fp32", 1, 100}};
  hw.memory = {{"L1", "read", 1, 200, 16 * KiB}, {"L2", "read", 1, 100, 256 * KiB},
               {"L3", "read", 1, 60, 8 * MiB},   {"DRAM", "read", 1, 20, 512 * MiB}};
  return hw;
}

EngineRoofs wasm_roofs() {
  EngineRoofs e;
  e.engine = "wasm:node";
  e.runtime = "WebAssembly (SIMD128) in node 20";
  e.compute = {{"fp32_muladd_wasm_simd128", "wasm_simd128", "fp32", 1, 40}};
  e.memory = {{"L1", "read", 1, 80, 16 * KiB}, {"DRAM", "read", 1, 10, 512 * MiB}};
  return e;
}

ProfileRun one_layer_run(double ms, uint64_t flops) {
  ProfileRun run;
  run.threads = 1;
  Layer l;
  l.name = "conv";
  l.op = "Conv";
  l.time_ms = ms;
  l.flops = flops;
  l.bytes = 8 * KiB;  // high intensity: compute bound on both roofs
  run.layers = {l};
  return run;
}

TEST(EngineRoofs, AWebLayerIsHeldAgainstWebAssemblyAndShownAgainstTheCpu) {
  HardwareInfo hw = native_roofs();
  hw.engines = {wasm_roofs()};
  ProfileRun run = one_layer_run(1.0, 30'000'000);  // 30 GFLOP/s: 75% of WebAssembly's 40, 30% of the CPU's 100
  run.roofs_engine = "wasm:node";
  place_run_again(run, nullptr, hw, 0);
  const Layer& l = run.layers[0];
  EXPECT_EQ(l.roof, "fp32_muladd_wasm_simd128 x1");
  EXPECT_NEAR(l.efficiency, 0.75, 1e-9);
  ASSERT_TRUE(l.cpu_efficiency);
  EXPECT_NEAR(*l.cpu_efficiency, 0.30, 1e-9);
  EXPECT_EQ(l.cpu_roof, "fp32_fma_avx2 x1");
  EXPECT_TRUE(l.attribution_error.empty());
}

// DRAM is DRAM for both: two sweeps measure one ceiling, and the native one can come out lower (a slow spell). The
// machine allows at least what WebAssembly's kernel did there, so the layer's share of the CPU's roof is not above its
// share of WebAssembly's, and the CPU's roof says whose figure it is.
TEST(EngineRoofs, WhereWebAssemblyMeasuredMoreThanTheNativeSweepItsFigureIsTheCpusToo) {
  HardwareInfo hw = native_roofs();
  EngineRoofs wasm = wasm_roofs();
  wasm.memory[1].gbps = 25;  // DRAM read: 25 GB/s against the native sweep's 20
  hw.engines = {wasm};
  ProfileRun run = one_layer_run(4.0, 1'000'000);
  run.layers[0].bytes = 64 * MiB;  // past the 32 MiB L3, 0.015 FLOP/B: DRAM-bound on both, 16.8 GB/s
  run.roofs_engine = "wasm:node";
  place_run_again(run, nullptr, hw, 0);
  const Layer& l = run.layers[0];
  EXPECT_EQ(l.bound, "memory");
  const double gbps = 64.0 * MiB / 4e-3 / 1e9;
  EXPECT_NEAR(l.efficiency, gbps / 25, 1e-9);
  ASSERT_TRUE(l.cpu_efficiency);
  EXPECT_NEAR(*l.cpu_efficiency, l.efficiency, 1e-12);
  EXPECT_EQ(l.cpu_roof, l.roof + " (the engine's figure; the native DRAM read x1 is lower)");
  // Where the native figure is the higher, it is the CPU's roof as measured.
  hw.engines[0].memory[1].gbps = 18;
  place_run_again(run, nullptr, hw, 0);
  EXPECT_NEAR(*run.layers[0].cpu_efficiency, gbps / 20, 1e-9);
  EXPECT_EQ(run.layers[0].cpu_roof, "DRAM read x1");
}

TEST(EngineRoofs, AWebLayerAboveWebAssemblysRoofIsAnAttributionErrorEvenBelowTheCpus) {
  HardwareInfo hw = native_roofs();
  hw.engines = {wasm_roofs()};
  ProfileRun run = one_layer_run(1.0, 60'000'000);  // 60 GFLOP/s: 1.5x WebAssembly's roof, 60% of the CPU's
  run.roofs_engine = "wasm:node";
  place_run_again(run, nullptr, hw, 0);
  EXPECT_FALSE(run.layers[0].attribution_error.empty());
}

TEST(EngineRoofs, ANativeRunIgnoresTheEnginesRoofs) {
  HardwareInfo hw = native_roofs();
  hw.engines = {wasm_roofs()};
  ProfileRun run = one_layer_run(1.0, 60'000'000);
  place_run_again(run, nullptr, hw, 0);
  EXPECT_EQ(run.layers[0].roof, "fp32_fma_avx2 x1");
  EXPECT_FALSE(run.layers[0].cpu_efficiency);
}

TEST(EngineRoofs, EnginesAndTheCpuEfficiencySurviveTheReportJson) {
  Report r;
  r.tool.version = "0.1.0";
  r.tool.command = "profile";
  r.model.name = "m";
  BackendInfo web;
  web.name = web.label = "ortweb";
  r.backends = {web};
  r.hardware = native_roofs();
  r.hardware->engines = {wasm_roofs()};
  ProfileRun run = one_layer_run(1.0, 30'000'000);
  run.roofs_engine = "wasm:node";
  place_run_again(run, nullptr, *r.hardware, 0);
  r.runs = {run};
  const Report back = report_from_json(report_to_json(r));
  ASSERT_TRUE(back.hardware);
  ASSERT_EQ(back.hardware->engines.size(), 1u);
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.hardware->engines[0].engine, "wasm:node");
  EXPECT_EQ(back.hardware->engines[0].compute[0].gflops, 40);
  EXPECT_EQ(back.runs[0].roofs_engine, "wasm:node");
  ASSERT_TRUE(back.runs[0].layers[0].cpu_efficiency);
  EXPECT_NEAR(*back.runs[0].layers[0].cpu_efficiency, 0.30, 1e-9);
  EXPECT_EQ(report_to_json(back), report_to_json(r));
}

// A sweep that falls at 32 KiB and at 512 KiB and settles past 32 MiB: levels as `rooflens hw` names them.
TEST(EngineRoofs, AnEnginesSweepGetsLevelsAsTheNativeOne) {
  EngineRoofs e = wasm_roofs();
  e.memory.clear();
  for (uint64_t ws = 4 * KiB; ws <= 1024 * MiB; ws *= 2) {
    const double gbps = ws <= 32 * KiB ? 90 : ws <= 512 * KiB ? 70 : ws <= 32 * MiB ? 50 : 10;
    e.sweep.push_back({"read", 1, ws, gbps});
  }
  hw::find_engine_levels(e, native_roofs().machine);
  ASSERT_GE(e.levels.size(), 2u);
  EXPECT_EQ(e.levels.back().level, "DRAM");
  ASSERT_FALSE(e.memory.empty());
  EXPECT_GT(e.memory.front().gbps, e.memory.back().gbps);  // levels fall with size
  EXPECT_EQ(e.memory.back().level, "DRAM");
  EXPECT_NEAR(e.memory.back().gbps, 10, 1e-9);
}

}  // namespace

namespace {

// A 2-vCPU Zen 5 EPYC guest as its native sweep saw it: hwloc reports L1d 48 KiB, L2 1 MiB and a 508 MiB "L3"; the
// native sweep found L1 to 32 KiB, L2 to 512 KiB, L3 to 16 MiB (named from the sweep) and DRAM. The engine's sweep is
// the quick WebAssembly one measured there in Node at 1 thread (GB/s by working set, KiB): its loads read L1 and L2
// alike, and leaving the L3 it passes a slope at 32-64 MiB that reads as a plateau of its own.
TEST(EngineRoofs, AnEnginesLevelsAreNamedAfterTheCachesTheNativeSweepFound) {
  HardwareInfo native;
  native.machine.cores = native.machine.threads = 1;
  native.machine.caches = {{"L1d", 48 * KiB, 1, 1}, {"L2", 1024 * KiB, 1, 1}, {"L3", 508 * MiB, 1, 1}};
  native.levels = {{"L1", 1, 4 * KiB, 32 * KiB, 48 * KiB},
                   {"L2", 1, 64 * KiB, 512 * KiB, 1024 * KiB},
                   {"L3", 1, 2 * MiB, 16 * MiB, 0},
                   {"DRAM", 1, 128 * MiB, 1024 * MiB, 0}};
  const std::vector<std::pair<uint64_t, double>> read = {
      {16, 116.1},   {32, 115.6},   {64, 103.2},    {128, 115.3},    {256, 115.2},    {512, 115.4},
      {1024, 102.8}, {2048, 91.5},  {4096, 86.0},   {8192, 83.0},    {16384, 91.8},   {32768, 51.5},
      {65536, 48.0}, {131072, 39.5}, {262144, 34.7}, {524288, 34.6}, {1048576, 35.4}};
  const std::vector<std::pair<uint64_t, double>> copy = {
      {16, 192.8},   {32, 192.4},   {64, 167.7},    {128, 167.5},    {256, 169.7},    {512, 173.6},
      {1024, 123.2}, {2048, 95.9},  {4096, 87.7},   {8192, 86.4},    {16384, 79.3},   {32768, 62.7},
      {65536, 53.9}, {131072, 42.9}, {262144, 41.1}, {524288, 34.5}, {1048576, 34.5}};
  EngineRoofs e = wasm_roofs();
  for (const auto& [kib, gbps] : read) e.sweep.push_back({"read", 1, kib * KiB, gbps});
  for (const auto& [kib, gbps] : copy) e.sweep.push_back({"copy", 1, kib * KiB, gbps});
  auto names = [&] {
    std::vector<std::string> out;
    for (const MemoryLevel& l : e.levels) out.push_back(l.level);
    return out;
  };
  hw::find_engine_levels(e, native.machine, native);
  EXPECT_EQ(names(), (std::vector<std::string>{"L1+L2", "L3", "DRAM"}));
  EXPECT_EQ(e.notes, std::vector<std::string>{});
  // DRAM from 4x where the L3 ended (16 MiB), as for the native levels: past the slope at 32-64 MiB.
  EXPECT_GE(e.levels.back().first_bytes, 64 * MiB);
  // The reported sizes alone name the slope: what the engine's levels were before.
  hw::find_engine_levels(e, native.machine);
  EXPECT_NE(names(), (std::vector<std::string>{"L1+L2", "L3", "DRAM"}));
}

}  // namespace

namespace {

// A 2-vCPU Zen 4 EPYC guest (L2 1 MiB per core, L3 32 MiB): its native sweep at 1 thread found DRAM from 256 MiB on.
// WebAssembly's quick sweep there in Chromium (GB/s by working set, MiB) keeps falling past that point, so levels.cpp
// finds no plateau to call DRAM; the engine's DRAM starts where the native one did, at each kernel's best point there.
TEST(EngineRoofs, AnEnginesSweepThatKeepsFallingGetsDramWhereTheNativeSweepFoundIt) {
  HardwareInfo native;
  native.machine.cores = native.machine.threads = 1;
  native.machine.caches = {{"L1d", 32 * KiB, 1, 1}, {"L2", 1024 * KiB, 1, 1}, {"L3", 32 * MiB, 1, 1}};
  native.levels = {{"L1", 1, 4 * KiB, 8 * KiB, 0},
                   {"L2", 1, 16 * KiB, 512 * KiB, 1024 * KiB},
                   {"L3", 1, 1 * MiB, 8 * MiB, 0},
                   {"DRAM", 1, 256 * MiB, 512 * MiB, 0}};
  const std::vector<std::pair<double, double>> read = {
      {0.015625, 118.4}, {0.03125, 116.5}, {0.0625, 116.0}, {0.125, 115.0}, {0.25, 114.0}, {0.5, 110.0},
      {1, 95.0},         {2, 94.7},        {4, 94.5},       {8, 93.6},     {16, 86.0},   {32, 44.4},
      {64, 34.0},        {128, 29.7},      {256, 27.1},     {512, 18.8},   {1024, 11.5}};
  EngineRoofs e = wasm_roofs();
  for (const auto& [mib, gbps] : read) e.sweep.push_back({"read", 1, static_cast<uint64_t>(mib * MiB), gbps});
  hw::find_engine_levels(e, native.machine);  // the reported sizes alone: no DRAM
  ASSERT_FALSE(e.levels.empty());
  EXPECT_NE(e.levels.back().level, "DRAM");
  hw::find_engine_levels(e, native.machine, native);
  ASSERT_FALSE(e.levels.empty());
  EXPECT_EQ(e.levels.back().level, "DRAM");
  EXPECT_EQ(e.levels.back().first_bytes, 256 * MiB);
  EXPECT_EQ(e.levels.back().last_bytes, 1024 * MiB);
  ASSERT_EQ(e.memory.back().level, "DRAM");
  EXPECT_NEAR(e.memory.back().gbps, 27.1, 1e-9);
  EXPECT_EQ(e.memory.back().working_set_bytes, 256 * MiB);
  ASSERT_FALSE(e.notes.empty());
  EXPECT_NE(e.notes.back().find("DRAM from 256 MiB on"), std::string::npos) << e.notes.back();
}

}  // namespace
