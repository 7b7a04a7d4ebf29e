#pragma once
// What a hierarchical roofline needs of one profiled kernel, from its Nsight Compute metrics, in SI units: its time,
// its floating-point work per precision, the bytes it moved at each memory level; and the device's peaks as the
// same kernel's metrics state them. The formulas are Nsight Compute's own roofline sections' (docs/import.md).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "importers/ncu/ncu_csv.h"

namespace rooflens::importers::ncu {

// The memory levels of the hierarchical roofline, nearest last as Nsight Compute draws them: rooflens' level name,
// the byte counter's base name and the clock its peak_sustained is per cycle of.
struct LevelMetrics {
  const char* level;
  const char* bytes;
  const char* clock;
};
inline constexpr LevelMetrics kLevels[] = {
    {"DRAM", "dram__bytes", "dram__cycles_elapsed.avg.per_second"},
    {"L2", "lts__t_bytes", "lts__cycles_elapsed.avg.per_second"},
    {"L1", "l1tex__t_bytes", "l1tex__cycles_elapsed.avg.per_second"},
};

struct Work {
  double seconds = 0;                                     // gpu__time_duration.sum
  std::vector<std::pair<std::string, double>> flops;      // by ONNX dtype ("float", "double", "float16"), counted
  std::optional<double> tensor_inst;                      // tensor-pipe instructions, when collected
  std::vector<std::pair<std::string, double>> level_bytes;  // by level name, those the file gives
};

struct Peaks {
  std::vector<std::pair<std::string, double>> flops_per_s;  // by roof dtype ("fp32", "fp64", "fp16")
  std::vector<std::pair<std::string, double>> bytes_per_s;  // by level name
};

// Throws UserError naming the line and field of a value that is no number or has a unit of the wrong kind, and
// of a kernel without its duration.
Work work_of(const InputFile& f, const Kernel& k);
Peaks peaks_of(const InputFile& f, const Kernel& k);

}  // namespace rooflens::importers::ncu
