#include "cli/roofs.h"

#include <iostream>

#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "hw/measure.h"
#include "hw/roof_cache.h"

namespace rooflens::cli {

std::optional<HardwareInfo> obtain_roofs(const RoofsSpec& r) {
  if (r.none) return std::nullopt;
  if (!r.file.empty()) return hw::load_roofs_file(r.file);
  MachineDesc here = hw::describe_machine(hw::detect_features());
  std::string dir = hw::cache_dir_from_env();
  std::string key = hw::cache_key(here, ROOFLENS_VERSION);
  if (auto cached = hw::load_cached(dir, key, false)) return cached;
  if (!r.quiet) std::cerr << "rooflens " << r.command << ": no cached roofs for this machine; measuring them (hw --quick)…\n";
  hw::HwOptions opts;
  opts.quick = true;
  HardwareInfo h = hw::measure_hardware(opts, ROOFLENS_VERSION);
  try {
    hw::store_cached(dir, h);
  } catch (const std::exception&) {
  }
  return h;
}

}  // namespace rooflens::cli
