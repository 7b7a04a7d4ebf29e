#include "cli/roofs.h"

#include <algorithm>
#include <iostream>

#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "hw/measure.h"
#include "hw/raise_roofs.h"
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

std::function<std::optional<HardwareInfo>(const HardwareInfo&, const ProfileRun&)> roof_recheck(const RoofsSpec& r) {
  if (r.none || !r.file.empty()) return {};
  return [r](const HardwareInfo& have, const ProfileRun& run) -> std::optional<HardwareInfo> {
    hw::HwOptions opts;
    opts.quick = true;
    opts.threads = {static_cast<int>(std::max<int64_t>(1, run.threads))};
    opts.compute = opts.bandwidth = false;
    int64_t above = 0;
    for (const Layer& l : run.layers) {
      if (l.attribution_error.empty()) continue;
      ++above;
      (l.bound == "compute" ? opts.compute : opts.bandwidth) = true;
    }
    if (!above) return std::nullopt;
    if (!r.quiet)
      std::cerr << "\nrooflens " << r.command << ": " << above << " layer(s) ran above the cached roofs; measuring the "
                << (opts.compute ? opts.bandwidth ? "compute and memory" : "compute" : "memory") << " ceilings at "
                << opts.threads[0] << " thread(s) again…\n";
    std::optional<HardwareInfo> raised = hw::raise_roofs(have, hw::measure_hardware(opts, ROOFLENS_VERSION));
    if (raised) {
      try {
        hw::store_cached(hw::cache_dir_from_env(), *raised);
      } catch (const std::exception&) {  // an unwritable cache costs the next run a recheck, not this report
      }
    }
    return raised;
  };
}

}  // namespace rooflens::cli
