#pragma once
// The per-machine cache of measured roofs, so other commands (and a second `rooflens hw`) reuse them.
// Key = the machine's class (CPU model, cores, the ISA extensions usable here, cache sizes, memory) + rooflens version +
// roofs revision: a new CPU (VM migrated, image moved), a new rooflens (kernels may have changed) or a new way of
// measuring measures again. The class is more than the model's name: a KVM guest reports "Intel(R) Xeon(R) Processor"
// or "AMD EPYC Processor" whatever the host, and a home directory that moves between hosts with it would otherwise hand
// one host's AVX-512 roofs to an AVX2-only one. The key is also stored inside the file and checked on load.
#include <cstdint>
#include <optional>
#include <string>

#include "core/report_hardware.h"

namespace rooflens::hw {

// How roofs are measured, as a number: raised whenever a change makes earlier measurements wrong, so cached roofs
// of the same rooflens version are measured again. 2: levels from the sweep, not named by reported cache sizes
// (roofs of revision 1 could call a cache-sized working set DRAM, or a DRAM-sized one L3). 3: quick roofs hold the
// best peak of every dtype (revision 2's held fp32 only, so an int8 layer met the fp32 ceiling). 4: a level is named
// after the caches its plateau spans ("L1+L2"), alike at every thread count (revision 3 could call one plateau "L2"
// at 1 thread and "L1" at 2). 5: quick roofs measure the write kernel (revision 4's had none, so a layer that reads and
// writes met the read figure alone as its cache ceiling, where full roofs give reads and writes their own paths). 6: an
// int8 roof without VNNI (AVX2's vpmaddubsw/vpmaddwd, as ONNX Runtime's u8s8 kernels run there; revision 5 had none on
// such CPUs, so their int8 layers met the fp32 ceiling and ran above it). 7: the read kernel reads four streams (one
// stream left the prefetchers idle at each page and read DRAM below triad's figure on a thread). 8: DRAM's figures from
// beyond 4x the last cache only (revision 7's could come from exactly 4x, part cached: 66 vs 64 GB/s on a Zen 4 guest).
inline constexpr int kRoofsRevision = 8;

std::string cache_key(const MachineDesc& machine, const std::string& version);

// $XDG_CACHE_HOME/rooflens, else $HOME/.cache/rooflens; "" when neither is set. Values passed in, not read
// here, so callers and tests decide the environment.
std::string cache_dir(const char* xdg_cache_home, const char* home);
std::string cache_dir_from_env();

std::string cache_file(const std::string& dir, const std::string& key);

// The cached roofs for `key`, or nullopt when absent, unreadable, for another key, or quick when a full
// measurement is wanted.
std::optional<HardwareInfo> load_cached(const std::string& dir, const std::string& key, bool need_full);
// Writes atomically (temp file + rename); throws UserError when the directory cannot be written.
void store_cached(const std::string& dir, const HardwareInfo& hw);

// Reads a user-supplied roofs file (a report with "hardware", or the bare object); UserError when bad.
HardwareInfo load_roofs_file(const std::string& path);

}  // namespace rooflens::hw
