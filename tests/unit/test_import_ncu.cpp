// The Nsight Compute importer on a real details page (tests/fixtures/import/ncu/copy_blocked.csv, from nsightful)
// and on hand-built files in its two layouts (SOURCE.md there): every kernel a layer, time in = time out, each
// kernel's roofline points worked out here by hand from the strings in the files, and no kernel above the peaks
// its own file states.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "assembly/assemble.h"
#include "assembly/layers.h"
#include "core/errors.h"
#include "core/report.h"
#include "importers/driver/import.h"
#include "importers/ncu/ncu_csv.h"
#include "importers/registry/registry.h"
#include "importers/support.h"
#include "reporters/import_summary.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using importers::ncu::parse_number;
using importers::ncu::parse_unit;

using NcuRead = test::ImportedRun;

NcuRead ncu_import_text(const importers::InputFile& f) {
  return test::assembled(importers::find_importer("ncu").read({f}, {}));
}

NcuRead ncu_import(const std::string& rel) { return ncu_import_text(test::fixture(rel)); }

const LevelPoint& level(const Layer& l, const std::string& name) {
  for (const auto& p : l.levels)
    if (p.level == name) return p;
  throw std::runtime_error(l.name + " has no level " + name);
}

double roof_gbps(const HardwareInfo& hw, const std::string& level) {
  for (const auto& m : hw.memory)
    if (m.level == level) return m.gbps;
  return 0;
}

double roof_gflops(const HardwareInfo& hw, const std::string& dtype) {
  for (const auto& c : hw.compute)
    if (c.dtype == dtype) return c.gflops;
  return 0;
}

// Every layer and every level point at or under the ceilings its file states (within the shared tolerance).
void expect_under_peaks(const NcuRead& r) {
  ASSERT_TRUE(r.in.hardware);
  const HardwareInfo& hw = *r.in.hardware;
  const double slack = 1 + kRoofTolerance;
  for (const Layer& l : r.run.layers) {
    EXPECT_EQ(l.attribution_error, "") << l.name;
    const std::string dtype = l.precision == "double" ? "fp64" : l.precision == "float16" ? "fp16" : "fp32";
    if (l.flops) {
      EXPECT_LE(l.gflops, roof_gflops(hw, dtype) * slack) << l.name;
    }
    for (const LevelPoint& p : l.levels) {
      EXPECT_EQ(p.attribution_error, "") << l.name << " " << p.level;
      EXPECT_GT(roof_gbps(hw, p.level), 0) << p.level;
      EXPECT_LE(p.gbps, roof_gbps(hw, p.level) * slack) << l.name << " " << p.level;
      EXPECT_LE(p.efficiency, slack) << l.name << " " << p.level;
    }
  }
}

TEST(ImportNcu, DetectsBothLayouts) {
  for (const char* f : {"ncu/copy_blocked.csv", "ncu/resnet_block_t4.raw.csv", "ncu/gemv_a100_de.details.csv"})
    EXPECT_EQ(importers::detect_importer({test::fixture(f)}).name(), "ncu") << f;
}

TEST(ImportNcu, RealDetailsPageEveryKernelAndItsTime) {
  importers::InputFile f = test::fixture("ncu/copy_blocked.csv");
  // Count in: the distinct IDs of the file's rows (all "0": one kernel launch, 83 metric and rule rows).
  std::set<std::string> ids;
  for (auto line : importers::lines_of(f.text))
    if (!line.empty() && line.rfind("\"ID\"", 0) != 0) ids.insert(importers::csv_fields(line, ',')[0]);
  NcuRead r = ncu_import_text(f);
  ASSERT_EQ(r.run.layers.size(), ids.size());
  const Layer& l = r.run.layers[0];
  EXPECT_EQ(l.op, "copy_blocked");
  EXPECT_EQ(l.device, Device::gpu);
  // Time in: "Duration","ns","21,058,944" -> 21.058944 ms; Σ time out is that.
  EXPECT_NEAR(l.time_ms, 21.058944, 1e-12);
  EXPECT_NEAR(r.run.latency_ms.median, 21.058944, 1e-12);
  // DRAM bytes: "Memory Throughput","byte/s","196,456,177,859.63" x 21,058,944 ns.
  const double dram = 196456177859.63 * 21058944e-9;
  EXPECT_EQ(l.bytes, static_cast<uint64_t>(std::llround(dram)));
  ASSERT_EQ(l.levels.size(), 1u);
  EXPECT_EQ(l.levels[0].level, "DRAM");
  EXPECT_NEAR(l.levels[0].gbps, 196.45617785963, 1e-6);
  EXPECT_EQ(l.flops, 0u);  // the file has no instruction counters: no FLOPs, said in a warning
  EXPECT_FALSE(l.cost_known);
  EXPECT_FALSE(r.in.hardware);  // nor peaks: roofs come from --device or --roofs
}

TEST(ImportNcu, RawPageKernelsTimesAndPeaks) {
  NcuRead r = ncu_import("ncu/resnet_block_t4.raw.csv");
  ASSERT_EQ(r.run.layers.size(), 5u);  // IDs 0-4
  // Σ "gpu__time_duration.sum" (usecond): 60.22 + 9.50 + 30.05 + 6.08 + 9.47 = 115.32 µs.
  double sum = 0;
  for (const auto& l : r.run.layers) sum += l.time_ms;
  EXPECT_NEAR(sum, 0.11532, 1e-12);
  EXPECT_NEAR(r.run.latency_ms.median, 0.11532, 1e-12);
  EXPECT_EQ(r.run.layers[4].name, r.run.layers[1].name + " [ID 4]");  // the relu launched again
  EXPECT_EQ(r.in.measurement.device_name, "Tesla T4");
  const HardwareInfo& hw = *r.in.hardware;
  EXPECT_EQ(hw.source, "profile");
  // fp32: ffma peak_sustained "2,560" inst/cycle x 2 x the highest sm__cycles_elapsed.avg.per_second "1.59"
  // cycle/nsecond; fp64 "80" x 2; fp16 (a HFMA2 pair) "2,560" x 4.
  EXPECT_NEAR(roof_gflops(hw, "fp32"), 2560 * 2 * 1.59, 1e-6);
  EXPECT_NEAR(roof_gflops(hw, "fp64"), 80 * 2 * 1.59, 1e-6);
  EXPECT_NEAR(roof_gflops(hw, "fp16"), 2560 * 4 * 1.59, 1e-6);
  // DRAM "64" byte/cycle x "4.96" cycle/nsecond; L2 "1,024" byte/cycle x "1,590.42" cycle/usecond; L1 "5.12"
  // Kbyte/cycle x "1,590.42" cycle/usecond (GB/s).
  EXPECT_NEAR(roof_gbps(hw, "DRAM"), 64 * 4.96, 1e-9);
  EXPECT_NEAR(roof_gbps(hw, "L2"), 1024 * 1.59042, 1e-9);
  EXPECT_NEAR(roof_gbps(hw, "L1"), 5120 * 1.59042, 1e-9);
  expect_under_peaks(r);
  // The summary names each level, its layers, their bytes (1.79 + 1.61 + 8.20 + 1.21 + 1.61 MB) and the one
  // nearest its roof (the SGEMM at DRAM: 86.0%).
  Report rep;
  rep.runs = {r.run};
  const std::string summary = import_summary(rep);
  EXPECT_NE(summary.find("  DRAM: 5 layer(s), 14.42MB; nearest its roof: volta_sgemm_128x64_nn 86.0% of DRAM peak x1"),
            std::string::npos) << summary;
  EXPECT_NE(summary.find("  L1: 5 layer(s)"), std::string::npos) << summary;
}

TEST(ImportNcu, RawPageRooflinePointsByHand) {
  NcuRead r = ncu_import("ncu/resnet_block_t4.raw.csv");
  // ID 2, volta_sgemm_128x64_nn: ffma "2,048,000" x 2 + fadd "1,000" = 4,097,000 FLOPs in "30.05" usecond.
  const Layer& g = r.run.layers[2];
  EXPECT_EQ(g.op, "volta_sgemm_128x64_nn");
  EXPECT_EQ(g.precision, "float");
  EXPECT_EQ(g.flops, 4097000u);
  const double gflops = 4097000 / 30.05e-6 / 1e9;
  EXPECT_NEAR(g.gflops, gflops, 1e-9);
  // DRAM "8.20" Mbyte: intensity 4,097,000 / 8,200,000; the DRAM roof 64 x 4.96 GB/s is the lower ceiling there
  // (0.4996 x 317.44 = 158.6 < 8140.8 GFLOP/s): memory bound, at gflops / (intensity x 317.44).
  const LevelPoint& dram = level(g, "DRAM");
  EXPECT_EQ(dram.bytes, 8200000u);
  EXPECT_NEAR(dram.intensity, 4097000.0 / 8200000.0, 1e-12);
  EXPECT_EQ(dram.bound, "memory");
  EXPECT_NEAR(dram.efficiency, gflops / (4097000.0 / 8200000.0 * 64 * 4.96), 1e-9);
  // L2 "8.31" Mbyte against 1,024 x 1,590.42e6 B/s; L1 "16,588.80" Kbyte against 5,120 x 1,590.42e6 B/s.
  const LevelPoint& l2 = level(g, "L2");
  EXPECT_EQ(l2.bytes, 8310000u);
  EXPECT_NEAR(l2.efficiency, gflops / (4097000.0 / 8310000.0 * 1024 * 1.59042), 1e-9);
  const LevelPoint& l1 = level(g, "L1");
  EXPECT_EQ(l1.bytes, 16588800u);
  EXPECT_NEAR(l1.gbps, 16588800 / 30.05e-6 / 1e9, 1e-9);
  EXPECT_NEAR(l1.efficiency, gflops / (4097000.0 / 16588800.0 * 5120 * 1.59042), 1e-9);
  // The layer's own point is its DRAM one.
  EXPECT_EQ(g.bytes, 8200000u);
  EXPECT_NEAR(g.efficiency, dram.efficiency, 1e-12);

  // ID 0, the cuDNN convolution: ffma "115,605,504" x 2 + fadd "200,704" in "60.22" usecond, compute bound at every
  // level (intensity 129 against DRAM): 231,411,712 / 60.22e-6 over 2,560 x 2 x 1.59e9.
  const Layer& c = r.run.layers[0];
  EXPECT_EQ(c.flops, 231411712u);
  EXPECT_EQ(level(c, "L1").bytes, 96468990u);  // "96,468.99" Kbyte
  for (const auto& p : c.levels) {
    EXPECT_EQ(p.bound, "compute") << p.level;
    EXPECT_NEAR(p.efficiency, 231411712 / 60.22e-6 / (2560 * 2 * 1.59e9), 1e-9) << p.level;
  }
  // ID 3, the half-precision add: hadd "100,352" pair instructions = 200,704 FLOPs, under the fp16 ceiling.
  const Layer& h = r.run.layers[3];
  EXPECT_EQ(h.precision, "float16");
  EXPECT_EQ(h.flops, 200704u);
  // ID 1, the relu: no floating-point instructions counted, its bytes still placed per level (memory bound).
  EXPECT_EQ(r.run.layers[1].flops, 0u);
  EXPECT_EQ(level(r.run.layers[1], "DRAM").bound, "memory");
  EXPECT_NEAR(level(r.run.layers[1], "DRAM").efficiency, 1610000 / 9.5e-6 / 1e9 / (64 * 4.96), 1e-9);
}

TEST(ImportNcu, DetailsPageWithDecimalCommasAndRates) {
  NcuRead r = ncu_import("ncu/gemv_a100_de.details.csv");
  ASSERT_EQ(r.run.layers.size(), 2u);
  // "Duration" "msecond" "0,12" and gpu__time_duration.sum "nsecond" "245.760,5".
  EXPECT_NEAR(r.run.layers[0].time_ms, 0.12, 1e-15);
  EXPECT_NEAR(r.run.layers[1].time_ms, 0.2457605, 1e-15);
  const Layer& a = r.run.layers[0];
  EXPECT_EQ(a.flops, 104857600u);                    // ffma "52.428.800" x 2, fadd "0", fmul "n/a"
  EXPECT_EQ(level(a, "DRAM").bytes, 210000000u);     // "0,21" Gbyte
  EXPECT_EQ(level(a, "L2").bytes, 228000000u);       // "1,9" Tbyte/second x 0.12 ms
  EXPECT_EQ(level(a, "L1").bytes, 230500000u);       // "230,5" Mbyte
  // ID 1 gives rates only: smsp per-cycle counts x smsp__cycles_elapsed.avg.per_second "1,40" x the duration.
  const double t = 245760.5e-9, hz = 1.40e9;
  const Layer& b = r.run.layers[1];
  EXPECT_EQ(b.flops, static_cast<uint64_t>(std::llround(2 * 1024.5 * hz * t + 12.5 * hz * t)));
  EXPECT_EQ(level(b, "DRAM").bytes, static_cast<uint64_t>(std::llround(1530.2e9 * t)));  // "1.530,2" Gbyte/second
  EXPECT_EQ(b.levels.size(), 1u);  // no L2 or L1 counters for it: no points there
  const HardwareInfo& hw = *r.in.hardware;
  EXPECT_EQ(hw.machine.model, "CUDA device 0 (CC 8.0)");
  EXPECT_NEAR(roof_gflops(hw, "fp32"), 6912 * 2 * 1.41, 1e-6);  // "6.912" inst/cycle at the higher "1,41" GHz
  EXPECT_NEAR(roof_gbps(hw, "DRAM"), 1280 * 1.593, 1e-9);       // "1,28" Kbyte/cycle x "1.593" cycle/usecond
  EXPECT_NEAR(roof_gbps(hw, "L2"), 5120 * 1.41, 1e-9);
  EXPECT_NEAR(roof_gbps(hw, "L1"), 13824 * 1.41, 1e-9);
  expect_under_peaks(r);
}

TEST(ImportNcu, LevelAbovePeakIsAnAttributionError) {
  importers::InputFile f = test::fixture("ncu/resnet_block_t4.raw.csv");
  // The convolution's L1 bytes x 10: 964.69 MB in 60.22 µs is 16 TB/s, twice the file's own L1 peak.
  const size_t at = f.text.find("\"96,468.99\"");
  ASSERT_NE(at, std::string::npos);
  f.text.replace(at, 11, "\"964,689.90\"");
  NcuRead r = ncu_import_text(f);
  const LevelPoint& l1 = level(r.run.layers[0], "L1");
  EXPECT_NE(l1.attribution_error, "");
  EXPECT_EQ(level(r.run.layers[0], "DRAM").attribution_error, "");
  bool warned = false;
  for (const auto& w : r.run.warnings) warned = warned || w.find("above") != std::string::npos;
  EXPECT_TRUE(warned);
  // The points survive the report's JSON.
  Report rep;
  rep.hardware = *r.in.hardware;
  rep.backends = {r.in.backend};
  rep.runs = {r.run};
  Report back = report_from_json(report_to_json(rep));
  ASSERT_EQ(back.runs.size(), 1u);
  ASSERT_TRUE(back.hardware);
  ASSERT_EQ(back.runs[0].layers[0].levels.size(), 3u);
  EXPECT_EQ(back.runs[0].layers[0].levels[2].attribution_error, l1.attribution_error);
  EXPECT_EQ(back.hardware->source, "profile");
}

TEST(ImportNcu, RoofsFromTheFileUnlessTheUserNamesOthers) {
  ImportSpec spec;
  spec.format = "ncu";
  spec.files = {test::fixture_path("ncu/resnet_block_t4.raw.csv")};
  ImportResult own = run_import(spec);
  ASSERT_TRUE(own.report.hardware);
  EXPECT_EQ(own.report.hardware->source, "profile");
  spec.device = "t4";
  ImportResult sheet = run_import(spec);
  ASSERT_TRUE(sheet.report.hardware);
  EXPECT_EQ(sheet.report.hardware->source, "datasheet");
  spec.device = "";
  spec.files = {test::fixture_path("ncu/copy_blocked.csv")};
  EXPECT_TRUE(run_import(spec).roofs.empty());  // no peaks, no device name: no roofs, never invented
}

TEST(ImportNcu, NumbersInBothConventions) {
  EXPECT_DOUBLE_EQ(*parse_number("4,963,609,951.19", false), 4963609951.19);
  EXPECT_DOUBLE_EQ(*parse_number("4.963.609.951,19", true), 4963609951.19);
  EXPECT_DOUBLE_EQ(*parse_number("1,024", false), 1024);
  EXPECT_DOUBLE_EQ(*parse_number("1,024", true), 1.024);
  EXPECT_DOUBLE_EQ(*parse_number("4.0e-05", false), 4e-5);
  EXPECT_DOUBLE_EQ(*parse_number("0,5", true), 0.5);
  EXPECT_FALSE(parse_number("0,5", false));      // no group of three after a thousands separator
  EXPECT_FALSE(parse_number("1,23,456", false));
  EXPECT_FALSE(parse_number("-3", false));
  EXPECT_FALSE(parse_number("n/a", false));
  EXPECT_FALSE(parse_number("(256, 1, 1)", false));
  EXPECT_FALSE(parse_number("1e999", false));
  EXPECT_EQ(importers::ncu::decimal_evidence("1,590.42"), 1);
  EXPECT_EQ(importers::ncu::decimal_evidence("1.530,2"), -1);
  EXPECT_EQ(importers::ncu::decimal_evidence("52.428.800"), -1);
  EXPECT_EQ(importers::ncu::decimal_evidence("1,024"), 0);
}

TEST(ImportNcu, UnitsToSi) {
  auto u = [](const char* s) { return *parse_unit(s); };
  EXPECT_DOUBLE_EQ(u("Kbyte").scale, 1e3);
  EXPECT_EQ(u("Kbyte").num, "byte");
  EXPECT_DOUBLE_EQ(u("Gbyte/second").scale, 1e9);
  EXPECT_DOUBLE_EQ(u("cycle/usecond").scale, 1e6);
  EXPECT_EQ(u("cycle/usecond").den, "second");
  EXPECT_DOUBLE_EQ(u("cycle/nsecond").scale, 1e9);
  EXPECT_DOUBLE_EQ(u("msecond").scale, 1e-3);
  EXPECT_DOUBLE_EQ(u("ns").scale, 1e-9);
  EXPECT_EQ(u("hz").den, "second");
  EXPECT_DOUBLE_EQ(u("Mhz").scale, 1e6);
  EXPECT_DOUBLE_EQ(u("byte/s").scale, 1);
  EXPECT_DOUBLE_EQ(u("Kbyte/cycle").scale, 1e3);
  EXPECT_EQ(u("%").num, "%");
  EXPECT_FALSE(parse_unit("byte/second/cycle"));
}

}  // namespace
}  // namespace rooflens
