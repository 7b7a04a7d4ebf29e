#include "reporters/memory_text.h"

#include <cmath>
#include <cstdlib>

#include "core/text_table.h"
#include "core/units.h"

namespace rooflens {
namespace {

std::string mb(uint64_t b) { return si_bytes(static_cast<double>(b)); }

std::string signed_mb(int64_t b) {
  return (b < 0 ? "-" : "+") + si_bytes(static_cast<double>(std::llabs(b)));
}

std::string error_text(const RunMemory& m) {
  if (!m.measured || m.measured->increase_bytes == 0) return "-";
  const double e = (static_cast<double>(m.predicted.total_bytes) - static_cast<double>(m.measured->increase_bytes)) /
                   static_cast<double>(m.measured->increase_bytes);
  return (e >= 0 ? "+" : "") + fixed(e * 100, 1) + "%";
}

}  // namespace

std::string model_memory_text(const ModelInfo& model) {
  if (!model.memory) return "";
  const ModelMemory& m = *model.memory;
  const ActivationsMemory& a = m.activations;
  std::string out = "memory weights " + mb(m.weights.bytes);
  if (m.weights.external_bytes) out += " (" + mb(m.weights.external_bytes) + " in " + std::to_string(m.weights.external_files) + " external file(s))";
  if (m.weights.unused_bytes) out += " (" + mb(m.weights.unused_bytes) + " read by no node)";
  out += " · activations: liveness peak " + mb(a.peak_bytes);
  if (!a.peak_node_name.empty()) out += " at " + a.peak_node_name;
  out += " (naive sum " + mb(a.naive_bytes) + "; largest tensor " + mb(a.largest_tensor_bytes) + ") · need " +
         mb(m.peak_bytes) + "\n";
  for (const auto& n : m.notes) out += "note   memory: " + n + "\n";
  return out;
}

std::string run_memory_text(const Report& r) {
  TextTable t;
  t.columns = {{"config"},           {"baseline", true}, {"weights", true}, {"activations", true},
               {"peak layer", false, 32}, {"predicted", true}, {"measured", true}, {"error", true},
               {"timed runs peak", true}};
  std::string parts;
  for (const auto& run : r.runs) {
    if (!run.memory) continue;
    const RunMemory& m = *run.memory;
    const MemoryPrediction& p = m.predicted;
    std::string weights = mb(p.weights_bytes);
    if (p.prepacked_bytes) weights += " + " + mb(p.prepacked_bytes) + " packed";
    std::string baseline = p.baseline_bytes ? mb(p.baseline_bytes) : "-";
    if (p.structures_bytes) baseline += " + " + mb(p.structures_bytes) + " nodes";
    std::string act = mb(p.activations_bytes);
    if (p.output_copies_bytes) act += " + " + mb(p.output_copies_bytes) + " out";
    t.rows.push_back({run.label(), baseline, weights, act,
                      p.peak_layer_name.empty() ? "-" : p.peak_layer_name, mb(p.total_bytes),
                      m.measured ? mb(m.measured->increase_bytes) : "-", error_text(m),
                      m.measured && m.measured->run_peak_bytes > m.measured->start_bytes
                          ? mb(m.measured->run_peak_bytes - m.measured->start_bytes)
                          : "-"});
    if (m.explained.empty() || !parts.empty()) continue;  // the parts of the first measured run
    parts += "  " + run.label() + ", measured - predicted in parts (the runner started at " +
             mb(m.measured->start_bytes) + "):\n";
    for (const auto& part : m.explained) parts += "    " + signed_mb(part.bytes) + "  " + part.name + ": " + part.note + "\n";
    // Most of the error is glibc's, not the model's: say so where a reader first sees the error, and how to compare.
    if (const uint64_t kept = allocator_retention_bytes(m))
      parts += "  the error is mostly the " + mb(kept) + " the C allocator kept after session creation (lint: "
               "allocator-retention); -B onnxruntime:mallocMmapThreshold=131072 gives it back and compares the "
               "prediction with what the runtime needs\n";
  }
  if (t.rows.empty()) return "";
  return "\nmemory (runner's resident set above its start; predicted = baseline (+ node structures) + weights "
         "+ activations in the executed order + output copies; measured = the first run's peak; docs/memory.md):\n" +
         t.render() + parts;
}

}  // namespace rooflens
