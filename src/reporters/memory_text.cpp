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

// Predicted against measured, both the high-water over inference session creation and the first run.
std::string error_text(const RunMemory& m) {
  if (!m.measured || m.measured->peak_bytes == 0) return "-";
  const double e = (static_cast<double>(m.predicted.peak_bytes) - static_cast<double>(m.measured->peak_bytes)) /
                   static_cast<double>(m.measured->peak_bytes);
  return (e >= 0 ? "+" : "") + fixed(e * 100, 1) + "%";
}

// The C allocator's part: what it keeps after the inference session's creation, and the spread glibc's placement
// allows.
std::string kept_text(const MemoryPrediction& p) {
  if (!p.c_allocator) return "-";
  const CAllocatorPrediction& c = *p.c_allocator;
  const uint64_t live = p.weights_bytes + p.prepacked_bytes;
  const uint64_t kept = c.session_bytes > live ? c.session_bytes - live : 0;
  const uint64_t low = c.low_session_bytes > live ? c.low_session_bytes - live : 0;
  return low + (uint64_t{1} << 20) < kept ? mb(low) + "–" + mb(kept) : mb(kept);
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
  t.columns = {{"config"},           {"baseline", true}, {"weights", true}, {"kept by allocator", true},
               {"activations", true}, {"peak layer", false, 28}, {"predicted peak", true}, {"measured peak", true},
               {"error", true}, {"first run", true}, {"timed runs", true}};
  std::string parts, unpredicted;
  for (const auto& run : r.runs) {
    if (!run.memory) continue;
    const RunMemory& m = *run.memory;
    if (!m.not_predicted.empty()) {  // measured only: no predicted column says anything
      const bool seen = m.measured.has_value();
      t.rows.push_back({run.label(), "-", "-", "-", "-", "-", "not predicted", seen ? mb(m.measured->peak_bytes) : "-",
                        "-", seen ? mb(m.measured->increase_bytes) : "-",
                        seen && m.measured->run_peak_bytes > m.measured->start_bytes
                            ? mb(m.measured->run_peak_bytes - m.measured->start_bytes)
                            : "-"});
      if (unpredicted.empty()) unpredicted = "  " + run.label() + ": not predicted: " + m.not_predicted + "\n";
      continue;
    }
    const MemoryPrediction& p = m.predicted;
    std::string weights = mb(p.weights_bytes);
    if (p.prepacked_bytes) weights += " + " + mb(p.prepacked_bytes) + " packed";
    std::string baseline = p.baseline_bytes ? mb(p.baseline_bytes) : "-";
    if (p.structures_bytes) baseline += " + " + mb(p.structures_bytes) + " nodes";
    std::string act = mb(p.activations_bytes);
    if (p.output_copies_bytes) act += " + " + mb(p.output_copies_bytes) + " out";
    std::string predicted = mb(p.peak_bytes);
    if (p.c_allocator && p.c_allocator->low_run_peak_bytes + (uint64_t{1} << 20) < p.c_allocator->run_peak_bytes) {
      const uint64_t calibrated = p.baseline_bytes + p.structures_bytes;
      const uint64_t low =
          calibrated + std::max(p.c_allocator->low_creation_peak_bytes, p.c_allocator->low_run_peak_bytes);
      predicted = mb(std::min(low, p.peak_bytes)) + "–" + predicted;
    }
    std::string first = m.measured ? mb(m.measured->increase_bytes) + " (" + mb(p.total_bytes) + ")" : mb(p.total_bytes);
    t.rows.push_back({run.label(), baseline, weights, kept_text(p), act,
                      p.peak_layer_name.empty() ? "-" : p.peak_layer_name, predicted,
                      m.measured ? mb(m.measured->peak_bytes) : "-", error_text(m), first,
                      m.measured && m.measured->run_peak_bytes > m.measured->start_bytes
                          ? mb(m.measured->run_peak_bytes - m.measured->start_bytes)
                          : "-"});
    if (m.explained.empty() || !parts.empty()) continue;  // the parts of the first measured run
    parts += "  " + run.label() + ", measured - predicted in parts (the runner started at " +
             mb(m.measured->start_bytes) + "):\n";
    for (const auto& part : m.explained) parts += "    " + signed_mb(part.bytes) + "  " + part.name + ": " + part.note + "\n";
    // Most of the error is glibc's, not the model's: say so where a reader first sees the error, and how to compare.
    if (const uint64_t kept = allocator_retention_bytes(m))
      parts += "  the C allocator keeps " + mb(kept) + " beyond the weights after inference session creation (" +
               (p.c_allocator ? "predicted" : "measured") + "; lint: allocator-retention): "
               "-B onnxruntime:mallocMmapThreshold=131072 gives it back\n";
  }
  if (t.rows.empty()) return "";
  return "\nmemory (the runner's resident set above its start, at its high-water over the inference session's creation "
         "and first run; predicted before the inference session existed = the runtime's baseline and node structures "
         "(calibrated in a process of their own) + the inference session's creation and first run replayed through "
         "the C allocator "
         "(weights, what the allocator keeps, activations, output copies; a range where glibc's placement varies); "
         "first run = measured (predicted) increase at the first run's peak; docs/memory.md):\n" +
         t.render() + unpredicted + parts;
}

}  // namespace rooflens
