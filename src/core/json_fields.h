#pragma once
// Shared JSON plumbing for the data models (Report, BenchResults): the ordered json type, the field-list macro,
// and the converters of the Report's structs that other documents embed (latency statistics, backend, machine).
#include <limits>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/errors.h"
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
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLENS_JSON_FROM, __VA_ARGS__))                           \
  }
#define ROOFLENS_JSON_FROM(field) ::rooflens::read_field(nlohmann_json_j, #field, nlohmann_json_t.field);

// An integer of an outside document. nlohmann converts a floating-point number into an integer with a plain cast,
// undefined behaviour when it is out of the integer's range (a fuzzer's "valid_members": 8.9e22): such a number is
// refused with a UserError naming the field. Any json type (reports use ordered_json, some readers plain json).
template <class T, class Json>
T checked_integer(const Json& v, const char* what) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (v.is_number_float()) {
    const double d = v.template get<double>();
    // max() + 1 is a power of two, exact as a double: `<` keeps every value that fits and no more.
    if (!(d >= static_cast<double>(std::numeric_limits<T>::min()) &&
          d < static_cast<double>(std::numeric_limits<T>::max()) + 1.0))
      throw UserError(std::string("field '") + what + "': " + v.dump() + " does not fit an integer");
  }
  return v.template get<T>();
}

// j.value(key, fallback) for an integer, checked as above.
template <class T, class Json>
T optional_integer(const Json& j, const char* key, T fallback) {
  if (!j.is_object()) return j.value(key, fallback);  // the same type error as value() gives
  auto it = j.find(key);
  return it == j.end() ? fallback : checked_integer<T>(*it, key);
}

// One field of an outside document into its member (ROOFLENS_JSON_FIELDS' reader).
template <class T>
void read_field(const json& j, const char* key, T& out) {
  const json& v = j.at(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) out = checked_integer<T>(v, key);
  else v.get_to(out);
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
void to_json(json& j, const Validation& v);    // bench_results_json.cpp
void from_json(const json& j, Validation& v);
void to_json(json& j, const Int8Weights& v);   // int8_kernels.cpp
void from_json(const json& j, Int8Weights& v);
void to_json(json& j, const Int8Check& v);
void from_json(const json& j, Int8Check& v);

}  // namespace rooflens
