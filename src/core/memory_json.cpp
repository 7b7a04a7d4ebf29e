// JSON form of the memory sections (core/memory.h). Every field of a present object is written, in a fixed order,
// so reports round-trip byte for byte; readers require them (a present section is this version's) except the
// optional ones, and refuse figures that cannot be (a peak below the start, a curve that does not fit its run).
#include "core/memory_json.h"

#include <array>
#include <type_traits>
#include <utility>

#include "core/errors.h"

namespace rooflens {

ROOFLENS_JSON_FIELDS(WeightsMemory, bytes, constant_bytes, external_bytes, external_files, unused_bytes)
ROOFLENS_JSON_FIELDS(ActivationsMemory, naive_bytes, peak_bytes, peak_node, peak_node_name, inputs_bytes,
                     outputs_bytes, largest_tensor_bytes, largest_tensor)
ROOFLENS_JSON_FIELDS(ModelMemory, weights, activations, peak_bytes, live_bytes, notes)
ROOFLENS_JSON_FIELDS(MemoryPart, name, bytes, note)
// ArenaPrediction: inputs_bytes and region_written_bytes came after reports with an arena band were first written
// (read as 0 / empty when absent).
void to_json(json& j, const ArenaPrediction& a) {
  j["regions"] = a.regions;
  j["region_written_bytes"] = a.region_written_bytes;
  j["held_bytes"] = a.held_bytes;
  j["written_bytes"] = a.written_bytes;
  j["in_use_peak_bytes"] = a.in_use_peak_bytes;
  j["inputs_bytes"] = a.inputs_bytes;
  j["low_bytes"] = a.low_bytes;
  j["high_bytes"] = a.high_bytes;
}
void from_json(const json& j, ArenaPrediction& a) {
  read_field(j, "regions", a.regions);
  if (j.contains("region_written_bytes")) read_field(j, "region_written_bytes", a.region_written_bytes);
  if (!a.region_written_bytes.empty() && a.region_written_bytes.size() != a.regions.size())
    throw UserError("memory.predicted.arena: region_written_bytes has " + std::to_string(a.region_written_bytes.size()) +
                    " entries for " + std::to_string(a.regions.size()) + " regions");
  read_field(j, "held_bytes", a.held_bytes);
  read_field(j, "written_bytes", a.written_bytes);
  read_field(j, "in_use_peak_bytes", a.in_use_peak_bytes);
  a.inputs_bytes = optional_integer<uint64_t>(j, "inputs_bytes", 0);
  read_field(j, "low_bytes", a.low_bytes);
  read_field(j, "high_bytes", a.high_bytes);
}
ROOFLENS_JSON_FIELDS(CAllocatorPrediction, setting, creation_peak_bytes, session_bytes, session_live_bytes,
                     run_peak_bytes, low_creation_peak_bytes, low_session_bytes, low_run_peak_bytes, serialized_bytes, copies_bytes,
                     temporaries_bytes, rewritten_bytes, packed_bytes)
// MemoryPrediction's fields but the arena, which only a run with the runtime's arena on has.
#define ROOFLENS_MEMORY_PREDICTION_FIELDS                                                                        \
  weights_bytes, weights_source, prepacked_bytes, activations_bytes, peak_layer, peak_layer_name,               \
      topological_bytes, naive_bytes, baseline_bytes, output_copies_bytes, total_bytes
void to_json(json& nlohmann_json_j, const MemoryPrediction& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, ROOFLENS_MEMORY_PREDICTION_FIELDS))
  nlohmann_json_j["structures_bytes"] = nlohmann_json_t.structures_bytes;
  nlohmann_json_j["baseline_run_bytes"] = nlohmann_json_t.baseline_run_bytes;
  nlohmann_json_j["peak_bytes"] = nlohmann_json_t.peak_bytes;
  if (nlohmann_json_t.c_allocator) nlohmann_json_j["c_allocator"] = *nlohmann_json_t.c_allocator;
  if (nlohmann_json_t.arena) nlohmann_json_j["arena"] = *nlohmann_json_t.arena;
}
void from_json(const json& nlohmann_json_j, MemoryPrediction& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLENS_JSON_FROM, ROOFLENS_MEMORY_PREDICTION_FIELDS))
  // Added after reports with a run's memory were first written: absent reads as not measured.
  nlohmann_json_t.structures_bytes = optional_integer(nlohmann_json_j, "structures_bytes", uint64_t{0});
  nlohmann_json_t.baseline_run_bytes = optional_integer(nlohmann_json_j, "baseline_run_bytes", uint64_t{0});
  // Reports before the inference session's creation was predicted: the peak is the first run's.
  nlohmann_json_t.peak_bytes = optional_integer(nlohmann_json_j, "peak_bytes", nlohmann_json_t.total_bytes);
  if (nlohmann_json_j.contains("c_allocator")) {
    nlohmann_json_t.c_allocator = nlohmann_json_j.at("c_allocator").get<CAllocatorPrediction>();
  }
  if (nlohmann_json_j.contains("arena")) {
    ArenaPrediction a = nlohmann_json_j.at("arena").get<ArenaPrediction>();
    if (a.low_bytes > a.high_bytes || a.written_bytes > a.held_bytes)
      throw UserError("memory.predicted.arena: low_bytes above high_bytes, or written_bytes above held_bytes");
    nlohmann_json_t.arena = a;
  }
}
#undef ROOFLENS_MEMORY_PREDICTION_FIELDS
ROOFLENS_JSON_FIELDS(MemoryProjection, measured_predicted_bytes, weights_bytes, activations_bytes, output_copies_bytes,
                     baseline_bytes, total_bytes)
// KvMemory's named parts, added after reports with a decoder's memory were first written (read as 0 when absent).
template <typename Kv>
auto kv_memory_parts(Kv& k) {
  using Field = std::conditional_t<std::is_const_v<Kv>, const uint64_t*, uint64_t*>;
  return std::array<std::pair<const char*, Field>, 11>{{
      {"baseline_run_bytes", &k.baseline_run_bytes},
      {"prefill_copies_bytes", &k.prefill_copies_bytes},
      {"decode_copies_bytes", &k.decode_copies_bytes},
      {"uncollected_copies_bytes", &k.uncollected_copies_bytes},
      {"session_beyond_bytes", &k.session_beyond_bytes},
      {"prefill_caller_buffers_bytes", &k.prefill_caller_buffers_bytes},
      {"decode_caller_buffers_bytes", &k.decode_caller_buffers_bytes},
      {"caller_heap_bytes", &k.caller_heap_bytes},
      {"prefill_collected_bytes", &k.prefill_collected_bytes},
      {"decode_collected_bytes", &k.decode_collected_bytes},
      {"collected_heap_bytes", &k.collected_heap_bytes}}};
}

// KvMemory's fields but the ones added after reports with a decoder's memory were first written.
#define ROOFLENS_KV_MEMORY_FIELDS                                                                               \
  weights_bytes, kv_bytes_per_token, prefill_kv_bytes, decode_kv_bytes, prefill_activations_bytes,              \
      decode_activations_bytes, prefill_peak_bytes, decode_peak_bytes, baseline_bytes, predicted_bytes,         \
      prefill_measured_bytes, decode_measured_bytes, measured_increase_bytes, per_step_kv_bytes

void to_json(json& nlohmann_json_j, const KvMemory& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, ROOFLENS_KV_MEMORY_FIELDS))
  nlohmann_json_j["weights_source"] = nlohmann_json_t.weights_source;
  nlohmann_json_j["prepacked_bytes"] = nlohmann_json_t.prepacked_bytes;
  for (const auto& [key, value] : kv_memory_parts(nlohmann_json_t)) nlohmann_json_j[key] = *value;
  if (!nlohmann_json_t.not_predicted.empty()) nlohmann_json_j["not_predicted"] = nlohmann_json_t.not_predicted;
}
void from_json(const json& nlohmann_json_j, KvMemory& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLENS_JSON_FROM, ROOFLENS_KV_MEMORY_FIELDS))
  // Reports written before the executed graph's weights were used hold the analysis' figure and no packed copies.
  nlohmann_json_t.weights_source = nlohmann_json_j.value("weights_source", std::string("analysis"));
  nlohmann_json_t.prepacked_bytes = optional_integer(nlohmann_json_j, "prepacked_bytes", uint64_t{0});
  for (const auto& [key, value] : kv_memory_parts(nlohmann_json_t))
    *value = optional_integer(nlohmann_json_j, key, uint64_t{0});
  if (nlohmann_json_j.contains("not_predicted")) read_field(nlohmann_json_j, "not_predicted", nlohmann_json_t.not_predicted);
}
#undef ROOFLENS_KV_MEMORY_FIELDS

void to_json(json& j, const MemoryMeasured& m) {
  j = json{{"start_bytes", m.start_bytes},
           {"after_session_bytes", m.after_session_bytes},
           {"session_peak_bytes", m.session_peak_bytes},
           {"run_peak_bytes", m.run_peak_bytes},
           {"probe_peak_bytes", m.probe_peak_bytes},
           {"peak_reset", m.peak_reset},
           {"increase_bytes", m.increase_bytes},
           {"peak_bytes", measured_peak(m)}};
  if (m.allocator_held_bytes) j["allocator_held_bytes"] = *m.allocator_held_bytes;
  if (m.allocator_in_use_peak_bytes) j["allocator_in_use_peak_bytes"] = *m.allocator_in_use_peak_bytes;
}
void from_json(const json& j, MemoryMeasured& m) {
  j.at("start_bytes").get_to(m.start_bytes);
  j.at("after_session_bytes").get_to(m.after_session_bytes);
  j.at("session_peak_bytes").get_to(m.session_peak_bytes);
  j.at("run_peak_bytes").get_to(m.run_peak_bytes);
  j.at("probe_peak_bytes").get_to(m.probe_peak_bytes);
  j.at("peak_reset").get_to(m.peak_reset);
  j.at("increase_bytes").get_to(m.increase_bytes);
  if (j.contains("allocator_held_bytes")) m.allocator_held_bytes = checked_integer<uint64_t>(j.at("allocator_held_bytes"), "allocator_held_bytes");
  if (j.contains("allocator_in_use_peak_bytes"))
    m.allocator_in_use_peak_bytes = checked_integer<uint64_t>(j.at("allocator_in_use_peak_bytes"), "allocator_in_use_peak_bytes");
  if (m.increase_bytes != measured_increase(m))
    throw UserError("memory.measured: increase_bytes is not (probe_peak_bytes, else run_peak_bytes) - start_bytes");
  // Derived from the phases (reports before it was written have none).
  m.peak_bytes = optional_integer(j, "peak_bytes", measured_peak(m));
  if (m.peak_bytes != measured_peak(m))
    throw UserError("memory.measured: peak_bytes is not max(session_peak_bytes, probe_peak_bytes else run_peak_bytes) "
                    "- start_bytes");
}

void to_json(json& j, const RunMemory& m) {
  j = json{};
  if (!m.not_predicted.empty()) j["not_predicted"] = m.not_predicted;  // reports before it round-trip unchanged
  j.update(json{{"predicted", m.predicted}, {"curve", m.curve}});
  if (m.measured) j["measured"] = *m.measured;
  j["explained"] = m.explained;
  j["notes"] = m.notes;
}
void from_json(const json& j, RunMemory& m) {
  if (j.contains("not_predicted")) read_field(j, "not_predicted", m.not_predicted);
  j.at("predicted").get_to(m.predicted);
  j.at("curve").get_to(m.curve);
  if (j.contains("measured")) m.measured = j.at("measured").get<MemoryMeasured>();
  j.at("explained").get_to(m.explained);
  j.at("notes").get_to(m.notes);
  const MemoryPrediction& p = m.predicted;
  if (!m.not_predicted.empty()) return;  // measured only
  if (p.weights_source != "executed_graph" && p.weights_source != "analysis")
    throw UserError("memory.predicted.weights_source must be \"executed_graph\" or \"analysis\", not \"" +
                    p.weights_source + "\"");
  if (p.peak_layer >= static_cast<int64_t>(m.curve.size()))
    throw UserError("memory.predicted.peak_layer " + std::to_string(p.peak_layer) + " lies past its curve (" +
                    std::to_string(m.curve.size()) + " layers)");
}

void check_run_memory(const RunMemory& m, size_t layers, const std::string& run) {
  if (!m.curve.empty() && m.curve.size() != layers)
    throw UserError("run " + run + ": memory.curve has " + std::to_string(m.curve.size()) + " entries for " +
                    std::to_string(layers) + " layers");
}

void check_model_memory(const ModelMemory& m, size_t nodes) {
  if (!m.live_bytes.empty() && m.live_bytes.size() != nodes)
    throw UserError("model.memory.live_bytes has " + std::to_string(m.live_bytes.size()) + " entries for " +
                    std::to_string(nodes) + " nodes");
  if (m.activations.peak_node >= static_cast<int64_t>(nodes))
    throw UserError("model.memory.activations.peak_node lies past the node list");
}

}  // namespace rooflens
