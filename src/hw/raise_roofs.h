#pragma once
// Roofs measured again after a layer ran above the cached ones. A roof is the most the machine was seen to do; a
// host's clock moves (a KVM guest of a turbo-capable Xeon measured its fp32 peak at 358 and at 460 GFLOP/s a minute
// apart), so roofs measured in a slow spell sit under what a layer measured in a fast one can reach. Measuring the
// exceeded ceilings again, right after the run, and keeping the higher figure holds the layer to what the machine
// did near its time — never to a figure nobody measured.
#include <functional>
#include <optional>

#include "core/report_hardware.h"

namespace rooflens::hw {

// `have` with every ceiling of `now` that beats its counterpart (the same compute kernel, or the same memory level
// and kernel, at the same thread count) raised to `now`'s figure, and a compute kernel measured at a thread count
// `have` lacks added; each change is noted in `notes`. A memory level `have` does not name at that thread count is
// not added (levels come from `have`'s own sweep). nullopt: nothing in `now` was higher.
std::optional<HardwareInfo> raise_roofs(const HardwareInfo& have, const HardwareInfo& now);

// The same for an engine's roofs (WebAssembly's): compute ceilings raised by the same rule; the sweep becomes the
// two sweeps' upper envelope (each point at the higher figure), on which `find_levels` (hw/engine_roofs.h's rules)
// finds the memory levels and their figures again; each figure above `have`'s counterpart, or without one, is noted.
// nullopt: nothing of `now` was higher.
std::optional<EngineRoofs> raise_engine_roofs(const EngineRoofs& have, const EngineRoofs& now,
                                              const std::function<void(EngineRoofs&)>& find_levels);

}  // namespace rooflens::hw
