#pragma once
// JSON converters of the memory sections (core/memory.h) for the documents that embed them (report, generation).
#include "core/json_fields.h"
#include "core/memory.h"

namespace rooflens {

void to_json(json& j, const ModelMemory& v);
void from_json(const json& j, ModelMemory& v);
void to_json(json& j, const RunMemory& v);
void from_json(const json& j, RunMemory& v);
void to_json(json& j, const KvMemory& v);
void from_json(const json& j, MemoryProjection& v);
void to_json(json& j, const MemoryProjection& v);
void from_json(const json& j, KvMemory& v);

// Consistency with the section a memory object belongs to; throw UserError naming what does not fit.
void check_run_memory(const RunMemory& m, size_t layers, const std::string& run);
void check_model_memory(const ModelMemory& m, size_t nodes);

}  // namespace rooflens
