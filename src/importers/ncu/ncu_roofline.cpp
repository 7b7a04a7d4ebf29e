#include "importers/ncu/ncu_roofline.h"

#include <cmath>
#include <tuple>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers::ncu {
namespace {

enum class Dim { count, bytes, seconds, per_second, per_cycle };

const char* dim_words(Dim d) {
  switch (d) {
    case Dim::count: return "a count (inst)";
    case Dim::bytes: return "bytes (byte, Kbyte, ...)";
    case Dim::seconds: return "a time (nsecond, usecond, ...)";
    case Dim::per_second: return "a rate (.../second, hz)";
    case Dim::per_cycle: return "a rate per cycle (.../cycle)";
  }
  return "";
}

bool fits(const Unit& u, Dim d) {
  switch (d) {
    case Dim::count: return u.den.empty() && (u.num.empty() || u.num == "inst");
    case Dim::bytes: return u.den.empty() && (u.num.empty() || u.num == "byte");
    case Dim::seconds: return u.den.empty() && u.num == "second";  // no unit: nanoseconds or seconds? not guessed
    case Dim::per_second: return u.den == "second" && (u.num == "byte" || u.num == "cycle");
    case Dim::per_cycle: return u.den == "cycle" && (u.num == "byte" || u.num == "inst");
  }
  return false;
}

[[noreturn]] void bad(const InputFile& f, const Kernel& k, const Cell& c, const std::string& what) {
  throw UserError(f.path + ": line " + std::to_string(c.line) + ": " + c.column + " (kernel ID " + k.id + "): " + what);
}

// The metric in SI units when the kernel has it (absent or "n/a": nullopt).
std::optional<double> value(const InputFile& f, const Kernel& k, const std::string& metric, Dim want) {
  auto it = k.metrics.find(metric);
  if (it == k.metrics.end() || it->second.text.empty() || lower(it->second.text) == "n/a") return std::nullopt;
  const Cell& c = it->second;
  std::optional<double> v = parse_number(c.text, k.decimal_comma);
  if (!v) bad(f, k, c, "'" + c.text + "' is not a number >= 0");
  std::optional<Unit> u = parse_unit(c.unit);
  if (!u || !fits(*u, want)) bad(f, k, c, "unit '" + c.unit + "' is not " + dim_words(want));
  const double si = *v * u->scale;
  if (!std::isfinite(si) || si > 1e30) bad(f, k, c, "'" + c.text + " " + c.unit + "' is beyond any GPU's counters");
  return si;
}

// Thread-level executions of one SASS floating-point op ("ffma"): the counter itself (sm__ or smsp__, the same sum),
// else its per-cycle rate times the SM sub-partitions' clock and the duration, as Nsight Compute's (non
// hierarchical) roofline section collects it.
std::optional<double> inst_count(const InputFile& f, const Kernel& k, const std::string& op, double seconds) {
  const std::string name = "sass_thread_inst_executed_op_" + op + "_pred_on.sum";
  for (const char* unit : {"sm__", "smsp__"})
    if (std::optional<double> v = value(f, k, unit + name, Dim::count)) return v;
  std::optional<double> per_cycle = value(f, k, "smsp__" + name + ".per_cycle_elapsed", Dim::per_cycle);
  std::optional<double> hz = value(f, k, "smsp__cycles_elapsed.avg.per_second", Dim::per_second);
  if (per_cycle && hz) return *per_cycle * *hz * seconds;
  return std::nullopt;
}

// FLOPs of one precision: add and mul count once and FMA twice; a half-precision instruction works on a pair
// (HADD2, HMUL2, HFMA2), which Nsight Compute's derived metrics count twice (_x2, and _x4 for the FMA).
std::optional<double> flops_of(const InputFile& f, const Kernel& k, char p, double seconds) {
  const double lanes = p == 'h' ? 2 : 1;
  std::optional<double> total;
  for (auto [op, weight] : {std::pair{"add", 1.0}, {"mul", 1.0}, {"fma", 2.0}})
    if (std::optional<double> n = inst_count(f, k, std::string(1, p) + op, seconds))
      total = total.value_or(0) + *n * weight * lanes;
  return total;
}

}  // namespace

Work work_of(const InputFile& f, const Kernel& k) {
  Work w;
  std::optional<double> t = value(f, k, "gpu__time_duration.sum", Dim::seconds);
  if (!t)
    throw UserError(f.path + ": line " + std::to_string(k.line) + ": kernel ID " + k.id +
                    " has no gpu__time_duration.sum (Duration; collect --section SpeedOfLight or --metrics "
                    "gpu__time_duration.sum)");
  w.seconds = *t;
  for (auto [p, dtype] : {std::pair{'f', "float"}, {'d', "double"}, {'h', "float16"}})
    if (std::optional<double> n = flops_of(f, k, p, w.seconds)) w.flops.emplace_back(dtype, *n);
  for (const char* unit : {"sm__", "smsp__"})
    if (!w.tensor_inst) w.tensor_inst = value(f, k, std::string(unit) + "inst_executed_pipe_tensor.sum", Dim::count);
  for (const LevelMetrics& l : kLevels) {
    std::optional<double> b = value(f, k, std::string(l.bytes) + ".sum", Dim::bytes);
    if (!b)
      if (std::optional<double> rate = value(f, k, std::string(l.bytes) + ".sum.per_second", Dim::per_second))
        b = *rate * w.seconds;
    if (b) w.level_bytes.emplace_back(l.level, *b);
  }
  return w;
}

Peaks peaks_of(const InputFile& f, const Kernel& k) {
  Peaks p;
  // Peak work = the FMA pipe's sustained instructions per cycle x 2 (x 4 for a half pair) x the SM clock.
  std::optional<double> sm_hz = value(f, k, "sm__cycles_elapsed.avg.per_second", Dim::per_second);
  for (auto [op, dtype, flops] : {std::tuple{"ffma", "fp32", 2.0}, {"dfma", "fp64", 2.0}, {"hfma", "fp16", 4.0}}) {
    std::optional<double> ipc =
        value(f, k, std::string("sm__sass_thread_inst_executed_op_") + op + "_pred_on.sum.peak_sustained", Dim::per_cycle);
    if (ipc && sm_hz && *ipc > 0 && *sm_hz > 0) p.flops_per_s.emplace_back(dtype, *ipc * flops * *sm_hz);
  }
  // Peak traffic = the level's sustained bytes per cycle x that level's own clock.
  for (const LevelMetrics& l : kLevels) {
    std::optional<double> per_cycle = value(f, k, std::string(l.bytes) + ".sum.peak_sustained", Dim::per_cycle);
    std::optional<double> hz = value(f, k, l.clock, Dim::per_second);
    if (per_cycle && hz && *per_cycle > 0 && *hz > 0) p.bytes_per_s.emplace_back(l.level, *per_cycle * *hz);
  }
  return p;
}

}  // namespace rooflens::importers::ncu
