#pragma once
// Shared JSON plumbing for the data models (Report, BenchResults): the ordered json type, the field-list macro,
// and the converters of the Report's structs that other documents embed (latency statistics, backend, machine).
#include <nlohmann/json.hpp>

#include "core/report.h"

namespace rooflens {

using json = nlohmann::ordered_json;

// to_json/from_json for a struct whose JSON keys are its member names, in declaration order. nlohmann's own
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE is fixed to the unordered json type; reports need ordered_json so the
// field order (and thus the bytes) is stable. from_json uses at(): a missing field is a malformed report.
#define ROOFLENS_JSON_FIELDS(Type, ...)                                                                  \
  void to_json(json& nlohmann_json_j, const Type& nlohmann_json_t) {                                     \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                             \
  }                                                                                                      \
  void from_json(const json& nlohmann_json_j, Type& nlohmann_json_t) {                                   \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM, __VA_ARGS__))                           \
  }

// Defined in report_json.cpp; declared here for documents that embed these structs.
void to_json(json& j, const ToolInfo& v);
void from_json(const json& j, ToolInfo& v);
void to_json(json& j, const LatencyStats& v);
void from_json(const json& j, LatencyStats& v);
void to_json(json& j, const BackendInfo& v);
void from_json(const json& j, BackendInfo& v);
void to_json(json& j, const MachineDesc& v);
void from_json(const json& j, MachineDesc& v);
void to_json(json& j, const Finding& v);
void from_json(const json& j, Finding& v);
void to_json(json& j, const Evidence& v);
void from_json(const json& j, Evidence& v);
void to_json(json& j, const HardwareInfo& v);
void to_json(json& j, const Projection& v);
void from_json(const json& j, Projection& v);
void from_json(const json& j, HardwareInfo& v);
void to_json(json& j, const Layer& v);
void from_json(const json& j, Layer& v);
void to_json(json& j, const NodeFate& v);
void from_json(const json& j, NodeFate& v);
void to_json(json& j, const RunSetting& v);      // run_settings.cpp
void from_json(const json& j, RunSetting& v);
void to_json(json& j, const ThreadsObserved& v);
void from_json(const json& j, ThreadsObserved& v);
void to_json(json& j, const DispatchBreakdown& v);
void from_json(const json& j, DispatchBreakdown& v);
void to_json(json& j, const Generation& v);    // generation_json.cpp
void from_json(const json& j, Generation& v);

}  // namespace rooflens
