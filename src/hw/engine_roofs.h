#pragma once
// An engine's own roofs (core/report_hardware.h EngineRoofs: WebAssembly in Node or Chromium) as the native ones are
// kept: memory levels found on its sweep by the same rules (hw/levels.h), and cached per machine class, rooflens
// version and engine build, so a run of a backend in that engine measures them once.
#include <functional>
#include <optional>
#include <string>

#include "core/report_hardware.h"

namespace rooflens::hw {

// e.levels and e.memory from e.sweep, as `rooflens hw` finds the native levels, with `m`'s reported caches as hints.
void find_engine_levels(EngineRoofs& e, const MachineDesc& m);
// The same, with the levels the native sweep of this machine found (`native`, at the same thread counts) as the
// hints where it has them: the engine's kernels run on the same caches, and a reported size can be far from any of
// them (a VM's 508 MiB "L3").
void find_engine_levels(EngineRoofs& e, const MachineDesc& m, const HardwareInfo& native);

// The key of `engine` as `runtime` runs it on this machine class (`native_key`: cache_key of the machine): a new Node
// or Chromium measures again.
std::string engine_cache_key(const std::string& native_key, const std::string& engine, const std::string& runtime);
std::optional<EngineRoofs> load_cached_engine(const std::string& dir, const std::string& key);
// Beside the native roofs, in a file of its own; throws UserError when the directory cannot be written.
void store_cached_engine(const std::string& dir, const std::string& key, const MachineDesc& m, const EngineRoofs& e);

}  // namespace rooflens::hw
