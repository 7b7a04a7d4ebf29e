#pragma once
// The report's hardware section (`hardware`, core/report.h): the machine and its measured (or user-supplied)
// ceilings; see docs/report-schema.md. `rooflens hw` caches this section alone, and --roofs files may hold just it.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

struct CacheInfo {
  std::string level;            // "L1d", "L2", "L3"
  uint64_t size_bytes = 0;      // one instance
  int64_t instances = 0;        // how many of them the machine has
  int64_t cores_sharing = 0;    // cores that share one instance
};

struct MachineDesc {
  std::string vendor, model;
  std::string signature;        // hw/cpu_features.h cpu_signature(): "family 25 model 17 stepping 1"; "" unknown
  int64_t sockets = 0, cores = 0, threads = 0, numa_nodes = 0;
  uint64_t memory_bytes = 0;
  double mhz = 0;               // nominal/max frequency if readable, else 0
  std::string os, kernel;
  std::vector<std::string> isa; // cpuid features usable here (OS-enabled register state included)
  std::vector<CacheInfo> caches;
};

struct ComputeRoof {
  std::string name, isa, dtype;  // "fp32_fma_avx512", "avx512", "fp32"
  int64_t threads = 0;
  double gflops = 0;             // giga-operations per second (for int8: multiply and add each count as one)
};

struct MemoryRoof {
  std::string level, kernel;     // "L1" | "L2" | "L3" | "L1+L2" (core/level_names.h) | "DRAM"; "read" | "write" |
                                 // "copy" | "triad"
  int64_t threads = 0;
  double gbps = 0;               // 1e9 bytes/s, bytes counted as STREAM counts them
  uint64_t working_set_bytes = 0;
};

struct MemoryLevel {             // a memory level the bandwidth sweep found (hw/levels.h), per thread count
  std::string level;             // "L1" .. "L4", "L1+L2" (caches that read alike) | "DRAM" (core/level_names.h)
  int64_t threads = 0;
  uint64_t first_bytes = 0, last_bytes = 0;  // working sets (total over arrays and threads) its plateau spans
  uint64_t reported_bytes = 0;   // the reported cache capacity that agreed with its fall; 0: named from the sweep
};

struct SweepPoint {
  std::string kernel;
  int64_t threads = 0;
  uint64_t working_set_bytes = 0;
  double gbps = 0;
};

struct HwError {
  std::string benchmark;         // which sub-benchmark failed ("compute fp32_fma_avx512 x2", ...)
  std::string message;
};

// The ceilings of an engine that runs on this machine without all of its instructions — WebAssembly (SIMD128, no AVX),
// in Node or in a browser — measured by that engine's own kernels (runners/ort/wasm_roofs.mjs), levels found on its
// sweep as on the native one. A layer the engine ran is held against these; the machine's native roofs stay the ceiling
// the CPU has (Layer::cpu_efficiency).
struct EngineRoofs {
  std::string engine;       // which engine, as Measurement::roofs_engine names it: "wasm:node" | "wasm:chromium"
  std::string runtime;      // what measured them, e.g. "WebAssembly in node 20.20.2 (V8 11.3.244.8-node.38)"
  std::string measured_at;  // ISO 8601 UTC
  bool quick = false;
  std::vector<ComputeRoof> compute;
  std::vector<MemoryRoof> memory;
  std::vector<MemoryLevel> levels;
  std::vector<SweepPoint> sweep;
  std::vector<std::string> notes;
};

struct HardwareInfo {
  std::string source = "measured";  // "measured" | "datasheet" | "profile" (the peaks an imported profile's own
                                    // metrics state for the device it ran on)
  std::string cache_key;            // machine class (hw/roof_cache.h) + rooflens version ("" for datasheets)
  std::string measured_at;          // ISO 8601 UTC, "" for datasheets
  bool quick = false;               // measured with --quick (fewer kernels and points)
  MachineDesc machine;
  std::vector<ComputeRoof> compute;
  std::vector<MemoryRoof> memory;
  std::vector<MemoryLevel> levels;  // where each level's plateau lies on the sweep; empty for datasheets
  std::vector<SweepPoint> sweep;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // implausible roofs (hw/plausibility.h); every report shows them
  std::vector<HwError> errors;
  std::vector<EngineRoofs> engines;   // engines' own roofs (WebAssembly), measured when a run needed them
};

// The roofs of `engine` in `hw`, or null.
const EngineRoofs* find_engine_roofs(const HardwareInfo& hw, const std::string& engine);
// `hw`'s machine with `e`'s ceilings: what a layer the engine ran is placed against.
HardwareInfo engine_hardware(const HardwareInfo& hw, const EngineRoofs& e);

// The hardware section alone (the `rooflens hw` cache and --roofs files may hold just this object).
std::string hardware_to_json(const HardwareInfo& h, int indent = 2);
// Accepts a whole report carrying "hardware" or the bare hardware object; throws UserError when malformed.
HardwareInfo hardware_from_json(const std::string& text);

}  // namespace rooflens
