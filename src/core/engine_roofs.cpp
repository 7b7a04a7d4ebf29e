// HardwareInfo's engines (core/report_hardware.h): finding one, and the machine seen through its ceilings.
#include "core/report_hardware.h"

namespace rooflens {

const EngineRoofs* find_engine_roofs(const HardwareInfo& hw, const std::string& engine) {
  for (const EngineRoofs& e : hw.engines)
    if (e.engine == engine) return &e;
  return nullptr;
}

HardwareInfo engine_hardware(const HardwareInfo& hw, const EngineRoofs& e) {
  HardwareInfo out;
  out.source = hw.source;
  out.cache_key = hw.cache_key;
  out.measured_at = e.measured_at;
  out.quick = e.quick;
  out.machine = hw.machine;
  out.compute = e.compute;
  out.memory = e.memory;
  out.levels = e.levels;
  out.sweep = e.sweep;
  out.notes = e.notes;
  return out;
}

}  // namespace rooflens
