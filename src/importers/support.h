#pragma once
// What every importer needs to read outside files defensively: JSON with a nesting limit, fields read with
// one-line errors that name the file and the field, numbers checked for sign and range, CSV lines, dtype words.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/layer_kind.h"
#include "importers/importer.h"

namespace rooflens::importers {

using json = nlohmann::json;

inline constexpr int kMaxJsonDepth = 64;  // the formats nest 4-6 deep; more is hostile or not theirs

// The JSON of `f`. Throws UserError "<path>: not valid JSON (...)" or "...: nested deeper than 64 levels".
json parse_json(const InputFile& f);
// True when `text` (JSON) nests deeper than `limit`; strings are skipped. Never throws.
bool nests_deeper_than(std::string_view text, int limit);
// The first non-space character of the text, 0 when none (format sniffing).
char first_char(std::string_view text);

// Where a value sits, for messages: "<path>: Layers[3].Inputs[0].Dimensions".
struct Where {
  std::string file, field;
  Where at(const std::string& key) const { return {file, field.empty() ? key : field + "." + key}; }
  Where at(size_t index) const { return {file, field + "[" + std::to_string(index) + "]"}; }
  std::string text() const { return file + ": " + (field.empty() ? "the document" : field); }
};

[[noreturn]] void fail(const Where& w, const std::string& what);

const json& member(const json& obj, const std::string& key, const Where& w);        // required
const json* optional_member(const json& obj, const std::string& key);               // nullptr when absent
const json& array_at(const json& v, const Where& w);                                 // v must be an array
const json& object_at(const json& v, const Where& w);                                // v must be an object
std::string string_at(const json& v, const Where& w);                                // a string
// A finite number >= 0 (numbers written as strings accepted: several tools write "12" or "0.5ms").
double nonneg_at(const json& v, const Where& w);
std::optional<double> nonneg_member(const json& obj, const std::string& key, const Where& w);
// A count or dimension: an integer in [0, max]. Beyond max a file is lying or hostile.
int64_t count_at(const json& v, const Where& w, int64_t max = int64_t{1} << 40);
// A list of dimensions ([1,3,224,224]); each in [-1, 2^40] (-1 = dynamic).
std::vector<int64_t> dims_at(const json& v, const Where& w);

// "12.5", "12.5ms", " 3 " -> number; nullopt when not a finite number >= 0.
std::optional<double> parse_nonneg(std::string_view s);
// "1x3x224x224" / "1*3*224" -> dims; nullopt when any part is not an integer in [0, 2^40].
std::optional<std::vector<int64_t>> parse_dims(std::string_view s, char sep);
std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
std::string lower(std::string_view s);
bool contains(std::string_view s, std::string_view part);
// One CSV line (RFC 4180 quotes: "a,b" is one field, "" inside quotes is a quote).
std::vector<std::string> csv_fields(std::string_view line, char sep);
// The lines of a text file, "\r\n" or "\n".
std::vector<std::string_view> lines_of(std::string_view text);

// Throws UsageError naming the first key of `options` not in `known` ("<format>: unknown --option KEY (known: ...)").
void reject_options(const std::string& format, const ImportOptions& options, const std::vector<std::string>& known);
// The value of option `key` (`fallback` when absent); UsageError unless it is one of `allowed`.
std::string option_choice(const std::string& format, const ImportOptions& options, const std::string& key,
                          const std::vector<std::string>& allowed, const std::string& fallback);

// The ONNX element type a tool's dtype word means: "FP32"/"Float"/"f32"/"fp32" -> "float", "FP16"/"Half" ->
// "float16", "Int8"/"I8"/"s8" -> "int8", "U8" -> "uint8", "INT32"/"I32" -> "int32", "BF16" -> "bfloat16",
// "I64" -> "int64", "Bool" -> "bool", "FP8" -> "float8e4m3fn"; "" when unknown.
std::string onnx_dtype(std::string_view word);
// Bytes per element of an ONNX element type name (0 when unknown).
int dtype_size(const std::string& onnx_dtype);

}  // namespace rooflens::importers
