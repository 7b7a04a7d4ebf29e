#pragma once
// What `rooflens bench` does with each model × configuration: the mode, the tolerances, the timeout, the timing.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "validation/allclose.h"

namespace rooflens::bench {

struct BenchPlan {
  std::string mode = "benchmark";  // benchmark | validate | both
  Tolerance tolerance;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // per message to the runner (load, run, ...)
  int workers_asked = 1;           // parallel workers (-j), each with its own runners; timings run one at a time
  TimingOptions timing = TimingOptions::bench();  // benchmark mode; timing.layers: a short profiled run for
                                                 // metrics.csv
  int repeat = 1;                  // benchmark modes: rounds over the zoo (each entry timed `repeat` times)
  // The CPU features of the machine the runners run on (results.json's system.isa): a failed validation of an int8
  // model says when they make its u8s8 kernels saturate (core/int8_kernels.h).
  std::vector<std::string> isa;
  // TEST ONLY (ROOFLENS_TEST_HOOKS=1): model name -> fault its runner process suffers (backends/fault_injection.h)
  std::map<std::string, std::string> test_faults;

  bool validates() const { return mode == "validate" || mode == "both"; }
  bool benchmarks() const { return mode == "benchmark" || mode == "both"; }
  // Workers actually used: timed runs must not share the CPUs with each other or with validation.
  int workers() const { return benchmarks() ? 1 : (workers_asked < 1 ? 1 : workers_asked); }
};

}  // namespace rooflens::bench
