#pragma once
// How fast this machine serves a capacity test's model, measured on it: every rate, SLO, duration and timeout the
// capacity tests give `rooflens capacity` is a multiple of it. A sanitizer build on a 2 GHz Zen-1 core serves
// squeezenet several times slower than a fast Xeon does; with fixed figures a test that meant "far below capacity"
// overloads the slow machine, and one that meant "an SLO long beside a call" gives it an SLO of one call. Measured,
// each test meets every machine at the same load, and its bound stays wide enough for a machine that runs at half
// (or twice) the speed it was measured at a moment before, yet narrow enough to catch the defect it is about.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace rooflens::testing {

// `v` to 3 significant digits, written as rooflens writes a number back ({:g}: "13.2", "1230", "0.0421").
inline std::string three_digits(double v) {
  if (!(v > 0)) return "0";
  const double unit = std::pow(10.0, std::floor(std::log10(v)) - 2);
  return fmt::format("{:g}", std::round(v / unit) * unit);
}

struct CapacityPace {
  double offline_qps = 0;  // one instance, one thread, Offline: queries (of one sample) per second
  double call_ms() const { return 1000 / offline_qps; }
  // `share` of the Offline rate, as the --qps flag takes it and a label prints it ("server qps=13.2").
  std::string qps(double share) const { return three_digits(share * offline_qps); }
  // `calls` runtime calls' time, as --slo takes it ("475ms").
  std::string ms(double calls) const { return three_digits(calls * call_ms()) + "ms"; }
  // `calls` runtime calls' time in seconds, at least `floor_s` (--duration, --timeout).
  std::string seconds(double calls, double floor_s) const {
    return three_digits(std::max(floor_s, calls * call_ms() / 1000));
  }
  // How long a test waits for what takes `calls` calls' time, on top of the minute its runners may take to start.
  std::chrono::seconds patience(double calls) const {
    return std::chrono::seconds(60 + static_cast<int64_t>(std::ceil(calls * call_ms() / 1000)));
  }
};

// An Offline run of `model` at 1 instance × 1 thread (its warm-up first), in `dir`. offline_qps 0 when it failed.
inline CapacityPace measure_capacity_pace(const std::string& model, const std::string& dir) {
  const std::string out = dir + "/pace.json";
  const CliResult r = run_cli("capacity " + shell_quote(model) + " --scenario offline --duration 1 --min-queries 40 "
                              "--no-predict --threads 1 --no-roofs --no-db -q -o " + shell_quote(out), dir);
  CapacityPace p;
  if (r.rc != 0) return p;
  const nlohmann::json rep = nlohmann::json::parse(slurp(out), nullptr, false);
  if (!rep.is_discarded()) p.offline_qps = rep["capacity"]["runs"][0]["points"].back().value("completed_qps", 0.0);
  return p;
}

}  // namespace rooflens::testing
