// Nsight Compute CSV -> Measurement. Every profiled kernel launch is a layer, in the file's order, timed by its
// gpu__time_duration.sum; its FLOPs and its bytes at DRAM, L2 and L1 come from the hierarchical roofline's metrics
// when the file has them (ncu_roofline.h), and the device's ceilings from the same file's peak_sustained metrics.
// Nsight Compute replays kernels one at a time, so the run's span is the sum of their durations.
#include "importers/ncu/ncu.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/errors.h"
#include "core/units.h"
#include "importers/ncu/ncu_csv.h"
#include "importers/ncu/ncu_roofline.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

// "void cudnn::detail::implicit_convolve_sgemm<float, 1024>(int, ...)" -> "implicit_convolve_sgemm": the function's
// own name, which groups and colours layers (the full name stays the layer's name).
std::string short_name(std::string s) {
  for (size_t at; (at = s.find("(anonymous namespace)")) != std::string::npos;) s.erase(at, 21);
  s = trim(s.substr(0, s.find_first_of("(<[")));
  if (size_t colons = s.rfind("::"); colons != std::string::npos) s = s.substr(colons + 2);
  if (size_t space = s.rfind(' '); space != std::string::npos) s = s.substr(space + 1);
  return s.empty() ? "kernel" : s;
}

// A counter as a whole number; a hostile file's absurd figure saturates (the roof check then names it).
uint64_t whole(double v) { return v >= 9.2e18 ? uint64_t{9200000000000000000u} : static_cast<uint64_t>(std::llround(v)); }

KernelRecord ncu_record_of(const ncu::Kernel& k, const ncu::Work& w, const std::string& name, double start_ms) {
  KernelRecord r;
  r.name = name;
  r.op = short_name(k.name);
  r.device = k.device.empty() ? "cuda" : "cuda:" + k.device;
  r.device_class = Device::gpu;
  if (!k.grid.empty() || !k.block.empty()) r.implementation = "grid " + k.grid + " block " + k.block;
  r.per_iteration_ms = {w.seconds * 1e3};
  r.start_ms = start_ms;
  if (!w.flops.empty()) {
    double total = 0, most = -1;
    for (const auto& [dtype, n] : w.flops) {
      total += n;
      if (n > most) most = n, r.precision = dtype;  // placed under the ceiling of the precision it mostly computed in
    }
    r.flops = whole(total);
  }
  for (const auto& [level, bytes] : w.level_bytes) {
    r.level_bytes.push_back({level, whole(bytes)});
    if (level == "DRAM") r.bytes = whole(bytes);  // the classic roofline's point: device memory traffic
  }
  return r;
}

// The device's ceilings: the highest each kernel's own peaks reach (each is at the clocks that kernel ran at, so no
// kernel's point can lie above it); nullopt when the file states no peak.
std::optional<HardwareInfo> hardware_of(const std::vector<ncu::Peaks>& peaks, const std::string& model) {
  std::map<std::string, double> compute, memory;
  for (const ncu::Peaks& p : peaks) {
    for (const auto& [dtype, v] : p.flops_per_s) compute[dtype] = std::max(compute[dtype], v);
    for (const auto& [level, v] : p.bytes_per_s) memory[level] = std::max(memory[level], v);
  }
  if (compute.empty() && memory.empty()) return std::nullopt;
  HardwareInfo h;
  h.source = "profile";
  h.machine.vendor = "NVIDIA";
  h.machine.model = model;
  for (const auto& [dtype, v] : compute) h.compute.push_back({dtype + "_fma", "sm", dtype, 1, v / 1e9});
  for (const ncu::LevelMetrics& l : ncu::kLevels)
    if (memory.count(l.level)) h.memory.push_back({l.level, "peak", 1, memory[l.level] / 1e9, 0});
  h.notes.push_back("peaks from the profile's own metrics, as Nsight Compute's roofline computes them: FLOP/s = "
                    "sm__sass_thread_inst_executed_op_{f,d}fma_pred_on.sum.peak_sustained x 2 (hfma x 4) x "
                    "sm__cycles_elapsed.avg.per_second; bytes/s = <level>.sum.peak_sustained x <level>__cycles_elapsed"
                    ".avg.per_second; the highest over the file's kernels");
  return h;
}

std::string device_of(const ncu::Table& t) {
  for (const auto& k : t.kernels)
    if (auto it = k.metrics.find("device__attribute_display_name"); it != k.metrics.end() && !it->second.text.empty())
      return it->second.text;
  return "";
}

class NcuImporter : public Importer {
 public:
  std::string name() const override { return "ncu"; }
  std::vector<std::string> aliases() const override { return {"nsight-compute"}; }
  std::string description() const override {
    return "Nsight Compute CSV (ncu --csv: the details page or --page raw), with its hierarchical roofline";
  }
  int recognizes(const InputFile& f) const override {
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 1 << 16));
    return contains(head, "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\"") ? 10 : 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    if (files.size() != 1) throw UserError("ncu: give one CSV per import");
    const InputFile& f = files[0];
    const ncu::Table table = ncu::read_csv(f);
    Imported out;
    Measurement& m = out.measurement;
    std::vector<ncu::Peaks> peaks;
    std::set<std::string> seen;
    double span_ms = 0;
    int64_t tensor = 0, with_flops = 0;
    for (const ncu::Kernel& k : table.kernels) {
      const ncu::Work w = ncu::work_of(f, k);
      peaks.push_back(ncu::peaks_of(f, k));
      // A kernel launched again keeps its name, with its ID so the layers stay apart.
      const std::string name = seen.insert(k.name).second ? k.name : k.name + " [ID " + k.id + "]";
      m.kernels.push_back(ncu_record_of(k, w, name, span_ms));
      span_ms += w.seconds * 1e3;
      tensor += w.tensor_inst.value_or(0) > 0;
      with_flops += !w.flops.empty();
    }
    m.device_name = device_of(table);
    m.profiled_runs_ms = {span_ms};
    m.profiled_latencies_ms = {span_ms};
    m.latencies_ms = {span_ms};
    m.warnings.push_back("Nsight Compute replays each kernel on its own (serialised; by default caches flushed and "
                         "clocks locked to base): layer times are each kernel alone, the e2e figure is their sum");
    if (tensor)
      m.warnings.push_back(std::to_string(tensor) + " kernel(s) issued tensor-pipe instructions "
                           "(sm__inst_executed_pipe_tensor.sum), whose FLOPs depend on the MMA shape the file does not "
                           "state: their tensor work is not counted (FLOPs and intensity are lower bounds)");
    if (!with_flops)
      m.warnings.push_back("the file has no sass_thread_inst_executed_op_* metrics: no FLOPs (collect the "
                           "SpeedOfLight_Hierarchical*RooflineChart sections for a roofline)");
    const ncu::Kernel& first = table.kernels.front();
    const std::string model = !m.device_name.empty() ? m.device_name
                                                     : "CUDA device " + first.device + (first.cc.empty() ? "" : " (CC " + first.cc + ")");
    out.hardware = hardware_of(peaks, model);
    out.rules = &plain_mapping_rules();
    out.backend.name = "ncu";
    out.backend.runtime = "Nsight Compute (CSV, " + table.layout + " page)";
    out.read.push_back(f.path + ": Nsight Compute " + table.layout + " page, " + std::to_string(m.kernels.size()) +
                       " kernel(s), " + fixed(span_ms, 3) + " ms; " + std::to_string(with_flops) + " with FLOPs; " +
                       (out.hardware ? "peaks from the file's own metrics" : "no peak metrics (roofs: --device or --roofs)"));
    return out;
  }
};

}  // namespace

const Importer& ncu_importer() {
  static const NcuImporter importer;
  return importer;
}

}  // namespace rooflens::importers
