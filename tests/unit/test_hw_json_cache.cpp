// The hardware section's JSON form and the per-machine roof cache.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/report.h"
#include "core/history.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "hw/roof_cache.h"

using namespace rooflens;
using namespace rooflens::hw;
namespace fs = std::filesystem;

namespace {
// A KVM guest's view of a machine: the model's name is the hypervisor's, whatever the host.
MachineDesc guest(const std::string& model, int64_t cores, std::vector<std::string> isa = {"sse2", "avx2", "avx512f"}) {
  MachineDesc m;
  m.model = model;
  m.cores = cores;
  m.isa = std::move(isa);
  m.caches = {{"L1d", 49152, 2, 1}, {"L2", 2097152, 2, 1}, {"L3", 272629760, 1, 2}};
  m.memory_bytes = 25276510208ull;
  return m;
}
std::string cache_key(const std::string& model, int64_t cores, const std::string& version) {
  return hw::cache_key(guest(model, cores), version);
}

HardwareInfo sample_hw(const std::string& key) {
  HardwareInfo h;
  h.cache_key = key;
  h.measured_at = "2025-01-02T03:04:05Z";
  h.machine.vendor = "GenuineIntel";
  h.machine.model = "Intel(R) Xeon(R) \"Processor\" @ 2.50GHz";
  h.machine.sockets = 1;
  h.machine.cores = 2;
  h.machine.threads = 2;
  h.machine.numa_nodes = 1;
  h.machine.memory_bytes = 25769803776ull;
  h.machine.mhz = 2500.5;
  h.machine.isa = {"sse2", "avx2", "avx512f"};
  h.machine.caches = {{"L1d", 32768, 2, 1}, {"L3", 37486592, 1, 2}};
  h.compute = {{"fp32_fma_avx512", "avx512", "fp32", 1, 1.0 / 3.0 * 300}, {"int8_dot_avx512_vnni", "avx512_vnni", "int8", 2, 612.25}};
  h.memory = {{"L1", "read", 1, 151.2, 16384}, {"DRAM", "triad", 2, 11.75, 1073741824}};
  h.levels = {{"L1", 1, 4096, 45056, 49152}, {"DRAM", 2, 268435456, 1073741824, 0}};
  h.sweep = {{"read", 1, 4096, 150.125}};
  h.notes = {"bytes counted as STREAM does"};
  h.warnings = {"no DRAM level at 1 thread(s)"};
  h.errors = {{"compute x", "boom"}};
  return h;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("rooflens-hw-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};
}  // namespace

TEST(HwJson, ReportWithHardwareRoundTripsByteForByte) {
  Report r;
  r.tool.version = "0.1.0";
  r.tool.command = "hw";
  r.hardware = sample_hw("k");
  std::string first = report_to_json(r);
  Report back = report_from_json(first);
  ASSERT_TRUE(back.hardware.has_value());
  EXPECT_EQ(report_to_json(back), first);
  EXPECT_EQ(back.hardware->compute[1].gflops, 612.25);
  EXPECT_EQ(back.hardware->machine.model, "Intel(R) Xeon(R) \"Processor\" @ 2.50GHz");
  EXPECT_EQ(hardware_to_json(hardware_from_json(hardware_to_json(*r.hardware))), hardware_to_json(*r.hardware));
}

TEST(HwJson, NoHardwareMeansNoHardwareKey) {
  Report r;
  r.tool.command = "analyze";
  std::string text = report_to_json(r);
  EXPECT_EQ(text.find("\"hardware\""), std::string::npos);
  EXPECT_FALSE(report_from_json(text).hardware.has_value());
}

TEST(HwJson, MinimalDatasheetLoadsAndBadSourceIsRefused) {
  std::string sheet = R"({"source": "datasheet",
    "compute": [{"name": "fp16 tensor", "isa": "tensor", "dtype": "fp16", "threads": 1, "gflops": 312000}],
    "memory": [{"level": "DRAM", "kernel": "triad", "threads": 1, "gbps": 2039}]})";
  HardwareInfo h = hardware_from_json(sheet);
  EXPECT_EQ(h.source, "datasheet");
  EXPECT_EQ(h.compute[0].gflops, 312000);
  EXPECT_EQ(h.memory[0].working_set_bytes, 0u);
  EXPECT_EQ(hardware_from_json("{\"hardware\": " + sheet + "}").compute.size(), 1u);
  std::string guessed = sheet;
  guessed.replace(guessed.find("datasheet"), 9, "guessed");
  EXPECT_THROW(hardware_from_json(guessed), UserError);
  EXPECT_THROW(hardware_from_json(R"({"source": "datasheet"})"), UserError);
  EXPECT_THROW(hardware_from_json("[1,2]"), UserError);
}

TEST(HwCache, DirectoryFollowsXdgThenHome) {
  EXPECT_EQ(cache_dir("/x/cache", "/home/u"), "/x/cache/rooflens");
  EXPECT_EQ(cache_dir("", "/home/u"), "/home/u/.cache/rooflens");
  EXPECT_EQ(cache_dir(nullptr, "/home/u"), "/home/u/.cache/rooflens");
  EXPECT_EQ(cache_dir(nullptr, nullptr), "");
}

TEST(HwCache, HitOnSameKeyMissOnVersionOrCpuChange) {
  TempDir d;
  std::string key = cache_key("Xeon A", 2, "0.1.0");
  store_cached(d.path.string(), sample_hw(key));
  auto hit = load_cached(d.path.string(), key, true);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hardware_to_json(*hit), hardware_to_json(sample_hw(key)));
  EXPECT_FALSE(load_cached(d.path.string(), cache_key("Xeon A", 2, "0.2.0"), true));  // new rooflens
  EXPECT_FALSE(load_cached(d.path.string(), cache_key("Xeon B", 2, "0.1.0"), true));  // other CPU model
  EXPECT_FALSE(load_cached(d.path.string(), cache_key("Xeon A", 4, "0.1.0"), true));  // other core count
}

TEST(HwCache, AGuestOfAnotherCpuClassWithTheSameNameMisses) {
  // Both hosts' guests say "Intel(R) Xeon(R) Processor" with 2 cores: the roofs of the AVX-512 one must not serve the
  // AVX2-only one, nor those of a host with other caches or memory.
  TempDir d;
  const std::string name = "Intel(R) Xeon(R) Processor";
  MachineDesc avx512 = guest(name, 2);
  std::string key = hw::cache_key(avx512, "0.1.0");
  store_cached(d.path.string(), sample_hw(key));
  EXPECT_TRUE(load_cached(d.path.string(), hw::cache_key(guest(name, 2), "0.1.0"), true));
  EXPECT_FALSE(load_cached(d.path.string(), hw::cache_key(guest(name, 2, {"sse2", "avx2"}), "0.1.0"), true));
  MachineDesc other_l3 = avx512;
  other_l3.caches.back().size_bytes = 33554432;
  EXPECT_FALSE(load_cached(d.path.string(), hw::cache_key(other_l3, "0.1.0"), true));
  MachineDesc other_memory = avx512;
  other_memory.memory_bytes /= 2;
  EXPECT_FALSE(load_cached(d.path.string(), hw::cache_key(other_memory, "0.1.0"), true));
}

TEST(HwCache, TwoGenerationsBehindOneMaskedBrandMiss) {
  // A Zen 4 and a Zen 5 guest both say "AMD EPYC", with the same ISA bits, caches and memory; their peaks differ.
  TempDir d;
  MachineDesc zen4 = guest("AMD EPYC", 2, {"sse2", "avx2", "avx512f", "avx512_vnni", "avx512_bf16"});
  zen4.signature = "family 25 model 17 stepping 1";
  MachineDesc zen5 = zen4;
  zen5.signature = "family 26 model 2 stepping 1";
  store_cached(d.path.string(), sample_hw(hw::cache_key(zen4, "0.1.0")));
  EXPECT_TRUE(load_cached(d.path.string(), hw::cache_key(zen4, "0.1.0"), true));
  EXPECT_FALSE(load_cached(d.path.string(), hw::cache_key(zen5, "0.1.0"), true));
  EXPECT_NE(fingerprint_of(zen4, nullptr).id, fingerprint_of(zen5, nullptr).id);
  EXPECT_EQ(fingerprint_of(zen4, nullptr).cpu, "AMD EPYC (family 25 model 17 stepping 1)");
}

TEST(HwCache, ThisCpusSignatureIsReadFromCpuid) {
#if defined(__x86_64__)
  // Every x86-64 CPU has CPUID leaf 1; its family is at least 6 (the P6 and later, and every AMD64 part).
  const std::string sig = cpu_signature();
  int family = 0, model = -1, stepping = -1;
  ASSERT_EQ(std::sscanf(sig.c_str(), "family %d model %d stepping %d", &family, &model, &stepping), 3) << sig;
  EXPECT_GE(family, 6);
  EXPECT_GE(model, 0);
  EXPECT_EQ(describe_machine(detect_features()).signature, sig);
#else
  GTEST_SKIP() << "CPUID is x86's";
#endif
}

TEST(HwCache, RoofsMeasuredTheOldWayAreMeasuredAgain) {
  // Revision 1 named levels by the reported cache sizes (issue 26); its key had no revision.
  TempDir d;
  std::string old_key = "Xeon A|2 cores|rooflens 0.1.0";
  store_cached(d.path.string(), sample_hw(old_key));
  EXPECT_TRUE(load_cached(d.path.string(), old_key, false));
  EXPECT_NE(cache_key("Xeon A", 2, "0.1.0"), old_key);
  EXPECT_FALSE(load_cached(d.path.string(), cache_key("Xeon A", 2, "0.1.0"), false));
}

TEST(HwCache, StoredKeyIsCheckedNotJustTheFileName) {
  TempDir d;
  std::string old_key = cache_key("Xeon A", 2, "0.1.0"), new_key = cache_key("Xeon A", 2, "0.2.0");
  store_cached(d.path.string(), sample_hw(old_key));
  fs::copy_file(cache_file(d.path.string(), old_key), cache_file(d.path.string(), new_key));
  EXPECT_FALSE(load_cached(d.path.string(), new_key, false));
}

TEST(HwCache, QuickResultsDoNotSatisfyAFullRequestAndDamageIsAMiss) {
  TempDir d;
  std::string key = cache_key("Xeon A", 2, "0.1.0");
  HardwareInfo quick = sample_hw(key);
  quick.quick = true;
  store_cached(d.path.string(), quick);
  EXPECT_FALSE(load_cached(d.path.string(), key, true));
  EXPECT_TRUE(load_cached(d.path.string(), key, false));
  std::ofstream(cache_file(d.path.string(), key)) << "{\"source\": \"measured\", \"compute\": [";
  EXPECT_FALSE(load_cached(d.path.string(), key, false));
  EXPECT_FALSE(load_cached((d.path / "nowhere").string(), key, false));
}

TEST(HwRoofsFile, ErrorsNameTheFile) {
  TempDir d;
  std::string path = (d.path / "sheet.json").string();
  EXPECT_THROW(load_roofs_file(path), UserError);
  std::ofstream(path) << R"({"source": "datasheet", "compute": [], "memory": []})";
  try {
    load_roofs_file(path);
    FAIL() << "empty ceilings accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}
