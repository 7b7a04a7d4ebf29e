#pragma once
// The timing flags of the commands that time a model (profile, bench), bound straight to the TimingOptions the
// command passes whole to its backend. The help shows the struct's defaults, so they are written in one place.
#include <string>

#include <CLI/CLI.hpp>

#include "core/timing.h"

namespace rooflens::cli {

struct TimingFlagStyle {
  std::string prefix;                      // "Benchmark: " when the flags apply to one mode only
  std::string no_layers = "--no-layers";   // the flag that skips the profiled run
  std::string no_layers_help = "Skip the profiled run (e2e only)";
  bool adaptive = true;                    // offer --adaptive
};

void add_timing_flags(CLI::App& cmd, TimingOptions& t, const TimingFlagStyle& style = {});

}  // namespace rooflens::cli
