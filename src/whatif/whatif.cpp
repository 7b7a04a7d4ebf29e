#include "whatif/whatif.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <unordered_map>

#include "analysis/roofline.h"
#include "core/errors.h"
#include "core/units.h"

namespace rooflens {
namespace {

double dtype_bytes(const std::string& quantize) { return quantize == "int8" ? 1 : quantize == "fp16" ? 2 : 4; }

// The best ceiling of `dtype` at the thread count nearest `threads` (ties: fewer), as roofline.cpp picks fp32.
const ComputeRoof* peak_of(const HardwareInfo& hw, const std::string& dtype, int64_t threads) {
  int64_t best_t = -1;
  for (const auto& c : hw.compute)
    if (c.dtype == dtype && c.gflops > 0) {
      int64_t d = std::llabs(c.threads - threads), bd = std::llabs(best_t - threads);
      if (best_t < 0 || d < bd || (d == bd && c.threads < best_t)) best_t = c.threads;
    }
  const ComputeRoof* best = nullptr;
  for (const auto& c : hw.compute)
    if (c.dtype == dtype && c.threads == best_t && c.gflops > 0 && (!best || c.gflops > best->gflops)) best = &c;
  return best;
}

struct Attainable {
  double value = 0;            // GFLOP/s (GB/s for FLOP-free work)
  std::string bound, roof;
};

// What the target's roofline allows at this work's intensity, computing in `dtype`.
Attainable attainable(const HardwareInfo& hw, int64_t threads, double flops, double bytes, const std::string& dtype) {
  auto b = static_cast<uint64_t>(std::llround(bytes));
  RoofPlacement mem = place_on_roofline(hw, threads, 0, b, 1.0);  // the memory level these bytes fit in
  if (flops <= 0) return {mem.attainable, mem.bound, mem.roof};
  const ComputeRoof* peak = peak_of(hw, dtype, threads);
  if (!peak) peak = peak_of(hw, "fp32", threads);
  if (!peak) return {};
  double memory_limit = bytes > 0 && mem.attainable > 0 ? flops / bytes * mem.attainable : INFINITY;
  if (memory_limit < peak->gflops) return {memory_limit, "memory", mem.roof};
  return {peak->gflops, "compute", peak->name + " x" + std::to_string(peak->threads)};
}

using NodeIndex = std::unordered_map<std::string, const NodeAnalysis*>;

// A layer computing a MatMul/Gemm/Conv with weights; its weight's shape ("768x3072").
bool weighted_matmul(const NodeIndex& nodes, const Layer& l, std::string& weight_shape) {
  for (const auto& name : l.onnx_nodes) {
    auto it = nodes.find(name);
    if (it == nodes.end()) continue;
    const NodeAnalysis& n = *it->second;
    if (n.params == 0 || (n.op != "MatMul" && n.op != "Gemm" && n.op != "Conv") || n.input_shapes.size() < 2) continue;
    weight_shape.clear();
    for (int64_t d : n.input_shapes[1]) weight_shape += (weight_shape.empty() ? "" : "x") + std::to_string(d);
    return true;
  }
  return false;
}

uint64_t weight_bytes(const NodeIndex& nodes, const Layer& l) {
  uint64_t params = 0;
  for (const auto& name : l.onnx_nodes) {
    auto it = nodes.find(name);
    if (it != nodes.end()) params += it->second->params;
  }
  return std::min<uint64_t>(params * 4, l.bytes);  // fp32 weights, read once, never more than the layer reads
}

class Projector {
 public:
  Projector(const Report& r, const WhatIfOptions& o) : r_(r), o_(o) {
    check();
    for (const auto& n : r.model.analysis.nodes) nodes_.emplace(n.name, &n);
  }

  Projection run() {
    Projection p;
    describe(p);
    for (const auto& run : r_.runs) {
      if (run.layers.empty()) continue;
      p.runs.push_back(project_run(run));
    }
    if (p.runs.empty()) throw UserError("the report has no run with layer times to project (profiled with --no-layers?)");
    if (kept_ > 0)
      p.assumptions.push_back(std::to_string(kept_) + " layer(s) had no roofline position (no roofs, FLOPs or bytes) "
                              "and kept their measured time" + (o_.batch ? ", scaled with their work" : std::string()) +
                              ".");
    if (o_.roofs) p.hardware = o_.roofs;
    return p;
  }

 private:
  void check() {
    if (!o_.roofs && !o_.threads && o_.quantize.empty() && !o_.batch && !o_.sparse)
      throw UsageError("nothing to project: give --roofs, --device, --threads, --quantize, --batch or --sparse");
    if (!o_.roofs && !r_.hardware)
      throw UserError("the report carries no roofs (profiled with --no-roofs): give --roofs FILE or --device NAME");
    if (o_.roofs && o_.roofs->source == "datasheet" && o_.threads)
      throw UsageError("--threads does not apply to a datasheet device (its ceilings are the whole device's)");
    if (o_.threads && !o_.roofs) {
      std::set<int64_t> measured;
      for (const auto& c : r_.hardware->compute) measured.insert(c.threads);
      if (!measured.count(*o_.threads)) {
        std::string list;
        for (int64_t t : measured) list += (list.empty() ? "" : ", ") + std::to_string(t);
        throw UserError("--threads " + std::to_string(*o_.threads) + ": the report's roofs were measured at " + list +
                        " thread(s) only; measure " + std::to_string(*o_.threads) + " with `rooflens hw --refresh "
                        "--threads 1," + std::to_string(*o_.threads) + "` and profile again, or give --roofs");
      }
    }
  }

  const HardwareInfo& target_hw() const { return o_.roofs ? *o_.roofs : *r_.hardware; }
  int64_t target_threads(const ProfileRun& run) const {
    if (o_.roofs && o_.roofs->source == "datasheet") return 1;
    return o_.threads ? *o_.threads : run.threads;
  }

  void describe(Projection& p) {
    std::vector<std::string> target;
    auto& a = p.assumptions;
    a.push_back("Each layer reaches the same fraction of what the roofline allows it (its measured efficiency) on "
                "the target as it did here; its bound is recomputed from the target's ceilings at its new intensity.");
    if (o_.roofs) {
      bool sheet = o_.roofs->source == "datasheet";
      p.modes.push_back(sheet ? "device" : "roofs");
      target.push_back(o_.roofs_label);
      if (sheet) {
        a.push_back("Target ceilings: " + o_.roofs_label + " — DATASHEET peaks, not measured. fp32 layers use the "
                    "fp32 vector peak (TF32 tensor cores are not assumed: they change the results' precision); every "
                    "layer streams from device memory (a datasheet gives no cache bandwidths). Host-device copies "
                    "and launch overheads are not modelled.");
        for (const auto& n : o_.roofs->notes) a.push_back("  " + n);
      } else {
        a.push_back("Target ceilings: " + o_.roofs_label + " (" + o_.roofs->source + " roofs of " +
                    o_.roofs->machine.model + "), at the run's thread count (nearest measured).");
      }
    }
    if (o_.threads) {
      p.modes.push_back("threads");
      target.push_back("threads=" + std::to_string(*o_.threads));
      a.push_back("Intra-op threads become " + std::to_string(*o_.threads) + ": ceilings at " +
                  std::to_string(*o_.threads) + " thread(s) as rooflens hw measured them; a layer's memory level is "
                  "re-chosen for the caches that many cores hold. Thread-pool costs that grow with threads are not "
                  "modelled.");
    }
    if (!o_.quantize.empty()) {
      p.modes.push_back("quantize");
      target.push_back(o_.quantize);
      const ComputeRoof* peak = peak_of(target_hw(), o_.quantize, 1);
      a.push_back(o_.quantize + ": every tensor shrinks from 4 to " + fixed(dtype_bytes(o_.quantize), 0) +
                  " byte(s) per element (weights and activations); matmul-class layers (MACs > 0) compute at the " +
                  o_.quantize + " ceiling" +
                  (peak ? " (" + peak->name + ")" : std::string(" — none in the roofs, so they keep the fp32 peak and "
                                                                "only their bytes shrink")) +
                  ", other layers at the fp32 one. No quantize/dequantize layers are added.");
    }
    if (o_.batch) {
      p.modes.push_back("batch");
      target.push_back("batch=" + std::to_string(*o_.batch));
      a.push_back("Batch " + std::to_string(*o_.batch) + ": a layer's FLOPs and activation bytes scale with the batch; "
                  "its weight bytes (params x 4 bytes of the nodes it owns) do not. A larger working set may fall to a "
                  "slower memory level (re-chosen from its bytes).");
    }
    if (o_.sparse) {
      p.modes.push_back("sparse");
      target.push_back("sparse " + fixed(o_.sparse->ratio * 100, 0) + "% " + o_.sparse->pattern);
      a.push_back("Sparse weights (" + fixed(o_.sparse->ratio * 100, 0) + "% zeros, pattern " + o_.sparse->pattern +
                  ") in weighted MatMul/Gemm/Conv layers: target latency = latency / perf ratio (Neural Engine "
                  "semantics), perf ratio by weight shape from " +
                  (o_.perf_table.rows.empty() ? std::string("no table: the ideal 1 / (1 - ratio), an upper bound")
                                              : "the --perf-table (rows not listed: the ideal 1 / (1 - ratio))") +
                  "; other layers unchanged.");
    }
    // Only runs with a memory prediction get a memory projection (an import has none): say it only then.
    if (std::any_of(r_.runs.begin(), r_.runs.end(), [](const ProfileRun& run) { return run.memory.has_value(); }))
      a.push_back("Memory: the run's predicted need (runtime baseline + weights + activations in the executed order + "
                  "output copies) with activations and output copies scaled by the batch and every float tensor by "
                  "the quantized element size; the baseline stays. A projection of the prediction, not of the "
                  "measurement.");
    a.push_back("The time between kernels (the runtime's own, measured per profiled iteration) is kept as measured; the "
                "end-to-end projection scales the profiling-off median by (projected layers + that gap) / (measured "
                "layers + gap).");
    for (const auto& t : target) p.target += (p.target.empty() ? "" : ", ") + t;
  }

  LayerProjection project_layer(const ProfileRun& run, const Layer& l) {
    LayerProjection x;
    x.name = l.name;
    double f = o_.batch && run.batch > 0 ? static_cast<double>(*o_.batch) / static_cast<double>(run.batch) : 1;
    double weights = static_cast<double>(weight_bytes(nodes_, l));
    const double flops = static_cast<double>(l.placed_flops());  // the work its efficiency was measured on
    x.flops = flops * f;
    x.bytes = (weights + (static_cast<double>(l.bytes) - weights) * f) * dtype_bytes(o_.quantize) / 4;
    bool placed = l.efficiency > 0 && !l.bound.empty() && l.time_ms > 0 && (flops > 0 || l.bytes > 0);
    if (!placed) {
      ++kept_;
      double work = flops > 0 ? x.flops / flops
                                : l.bytes > 0 ? x.bytes / static_cast<double>(l.bytes) : 1;
      x.time_ms = l.time_ms * (o_.batch ? work : 1);
      x.note = "no roofline position: kept as measured";
    } else {
      std::string dtype = !o_.quantize.empty() && l.macs > 0 ? o_.quantize : "fp32";
      Attainable a = attainable(target_hw(), target_threads(run), x.flops, x.bytes, dtype);
      if (a.value <= 0) {
        ++kept_;
        x.time_ms = l.time_ms;
        x.note = "the target has no ceiling for it: kept as measured";
      } else {
        x.bound = a.bound;
        x.roof = a.roof;
        x.attainable = a.value;
        x.bound_changed = a.bound != l.bound;
        double achieved = l.efficiency * a.value;  // GFLOP/s (GB/s when FLOP-free)
        x.time_ms = (x.flops > 0 ? x.flops : x.bytes) / (achieved * 1e9) * 1000;
      }
    }
    std::string shape;
    if (o_.sparse && weighted_matmul(nodes_, l, shape)) {
      PerfRatio pr = lookup_perf_ratio(o_.perf_table, shape, o_.sparse->pattern, o_.sparse->ratio);
      x.time_ms /= pr.value;
      x.note += (x.note.empty() ? "" : "; ") + std::string("sparse: weight ") + shape + ", perf ratio " +
                fixed(pr.value, 2) + " (" + pr.source + ")";
    }
    if (x.time_ms > 0) {
      x.intensity = x.bytes > 0 ? x.flops / x.bytes : 0;
      x.gflops = x.flops / (x.time_ms / 1000) / 1e9;
    }
    return x;
  }

  RunProjection project_run(const ProfileRun& run) {
    RunProjection rp;
    rp.run = run.label();
    rp.measured_ms = run.latency_ms.median;
    for (const auto& l : run.layers) {
      rp.layers.push_back(project_layer(run, l));
      rp.layers_measured_ms += l.time_ms;
      rp.layers_projected_ms += rp.layers.back().time_ms;
    }
    // The runtime's own time between kernels, measured per iteration (older reports: the profiled run minus the
    // sum of layer medians, which also holds the noise inside kernels).
    rp.gap_ms = run.between_kernels_ms.value_or(
        run.coverage > 0 ? std::max(0.0, rp.layers_measured_ms / run.coverage - rp.layers_measured_ms) : 0);
    double before = rp.layers_measured_ms + rp.gap_ms;
    rp.projected_ms = before > 0 ? rp.measured_ms * (rp.layers_projected_ms + rp.gap_ms) / before : 0;
    if (run.memory) rp.memory = project_memory(run);
    return rp;
  }

  // The run's predicted memory as the projection changes it: activations and output copies scale with the batch,
  // every float tensor (weights included) shrinks to the quantized element size; the runtime's baseline and the
  // node structures stay.
  MemoryProjection project_memory(const ProfileRun& run) const {
    const MemoryPrediction& p = run.memory->predicted;
    const double batch = o_.batch && run.batch > 0 ? static_cast<double>(*o_.batch) / static_cast<double>(run.batch) : 1;
    const double size = dtype_bytes(o_.quantize) / 4;
    auto scaled = [](uint64_t b, double f) { return static_cast<uint64_t>(std::llround(static_cast<double>(b) * f)); };
    MemoryProjection m;
    m.measured_predicted_bytes = p.total_bytes;
    m.weights_bytes = scaled(p.weights_bytes + p.prepacked_bytes, size);
    m.activations_bytes = scaled(p.activations_bytes, batch * size);
    m.output_copies_bytes = scaled(p.output_copies_bytes, batch * size);
    m.baseline_bytes = p.baseline_bytes + p.structures_bytes;
    m.total_bytes = m.baseline_bytes + m.weights_bytes + m.activations_bytes + m.output_copies_bytes;
    return m;
  }

  const Report& r_;
  const WhatIfOptions& o_;
  NodeIndex nodes_;
  size_t kept_ = 0;
};

}  // namespace

SparseSpec parse_sparse(const std::string& text) {
  SparseSpec s;
  std::string ratio = text, pattern;
  auto colon = text.find(':');
  if (colon != std::string::npos) {
    ratio = text.substr(0, colon);
    pattern = text.substr(colon + 1);
  }
  bool percent = !ratio.empty() && ratio.back() == '%';
  if (percent) ratio.pop_back();
  try {
    size_t used = 0;
    s.ratio = std::stod(ratio, &used) / (percent ? 100 : 1);
    if (used != ratio.size()) throw std::invalid_argument(ratio);
  } catch (const std::exception&) {
    throw UsageError("--sparse " + text + ": expected RATIO[:PATTERN], e.g. 0.9, 90%:4x1, 0.5:2:4");
  }
  if (!(s.ratio > 0 && s.ratio < 1)) throw UsageError("--sparse " + text + ": the ratio must be between 0 and 1");
  if (!pattern.empty()) s.pattern = pattern;
  return s;
}

Projection project(const Report& report, const WhatIfOptions& options) { return Projector(report, options).run(); }

}  // namespace rooflens
