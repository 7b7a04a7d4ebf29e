#include "importers/support.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "core/errors.h"

namespace rooflens::importers {

bool nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

char first_char(std::string_view text) {
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) return c;
  return 0;
}

json parse_json(const InputFile& f) {
  if (nests_deeper_than(f.text, kMaxJsonDepth))
    throw UserError(f.path + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (not a profile file)");
  json doc = json::parse(f.text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw UserError(f.path + ": not valid JSON (truncated? the tool writes the file when the run ends)");
  return doc;
}

void fail(const Where& w, const std::string& what) { throw UserError(w.text() + ": " + what); }

const json& member(const json& obj, const std::string& key, const Where& w) {
  if (!obj.is_object()) fail(w, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(w.at(key), "missing");
  return *it;
}

const json* optional_member(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& array_at(const json& v, const Where& w) {
  if (!v.is_array()) fail(w, "expected an array");
  return v;
}

const json& object_at(const json& v, const Where& w) {
  if (!v.is_object()) fail(w, "expected an object");
  return v;
}

std::string string_at(const json& v, const Where& w) {
  if (!v.is_string()) fail(w, "expected a string");
  return v.get<std::string>();
}

std::optional<double> parse_nonneg(std::string_view s) {
  std::string t = trim(s);
  while (!t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) t.pop_back();  // "0.044ms"
  if (t.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

double nonneg_at(const json& v, const Where& w) {
  std::optional<double> d;
  if (v.is_number()) {
    double x = v.get<double>();
    if (std::isfinite(x) && x >= 0) d = x;
  } else if (v.is_string()) {
    d = parse_nonneg(v.get_ref<const std::string&>());
  }
  if (!d) fail(w, "expected a number >= 0");
  return *d;
}

std::optional<double> nonneg_member(const json& obj, const std::string& key, const Where& w) {
  const json* v = optional_member(obj, key);
  if (!v) return std::nullopt;
  return nonneg_at(*v, w.at(key));
}

int64_t count_at(const json& v, const Where& w, int64_t max) {
  double d = nonneg_at(v, w);
  if (d != std::floor(d) || d > static_cast<double>(max)) fail(w, "expected a whole number up to " + std::to_string(max));
  return static_cast<int64_t>(d);
}

std::vector<int64_t> dims_at(const json& v, const Where& w) {
  array_at(v, w);
  if (v.size() > 16) fail(w, "more than 16 dimensions");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& d = v[i];
    if (d.is_number_integer() && d.get<int64_t>() == -1) {
      out.push_back(-1);
      continue;
    }
    out.push_back(count_at(d, w.at(i)));
  }
  return out;
}

std::optional<std::vector<int64_t>> parse_dims(std::string_view s, char sep) {
  std::vector<int64_t> out;
  std::string t = trim(s);
  if (t.empty()) return out;
  for (const auto& part : split(t, sep)) {
    if (out.size() >= 16) return std::nullopt;
    std::string p = trim(part);
    int64_t v = 0;
    auto [e, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
    if (p.empty() || ec != std::errc() || e != p.data() + p.size() || v < -1 || v > (int64_t{1} << 40))
      return std::nullopt;
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    size_t next = s.find(sep, pos);
    out.emplace_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) return out;
    pos = next + 1;
  }
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::vector<std::string> csv_fields(std::string_view line, char sep) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

void reject_options(const std::string& format, const ImportOptions& options, const std::vector<std::string>& known) {
  for (const auto& [k, v] : options)
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (const auto& x : known) list += (list.empty() ? "" : ", ") + x;
      throw UsageError(format + ": unknown --option " + k + (list.empty() ? " (this format takes none)" : " (known: " + list + ")"));
    }
}

std::string option_choice(const std::string& format, const ImportOptions& options, const std::string& key,
                          const std::vector<std::string>& allowed, const std::string& fallback) {
  auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end()) {
    std::string list;
    for (const auto& x : allowed) list += (list.empty() ? "" : ", ") + x;
    throw UsageError(format + ": --option " + key + "=" + it->second + " (choose " + list + ")");
  }
  return it->second;
}

std::string onnx_dtype(std::string_view word) {
  static const std::pair<const char*, const char*> table[] = {
      {"fp32", "float"},   {"float", "float"},     {"f32", "float"},      {"float32", "float"},
      {"fp16", "float16"}, {"half", "float16"},    {"f16", "float16"},    {"float16", "float16"},
      {"bf16", "bfloat16"}, {"bfloat16", "bfloat16"},
      {"int8", "int8"},    {"i8", "int8"},         {"s8", "int8"},        {"u8", "uint8"},
      {"uint8", "uint8"},  {"int32", "int32"},     {"i32", "int32"},      {"s32", "int32"},
      {"int64", "int64"},  {"i64", "int64"},       {"bool", "bool"},      {"boolean", "bool"},
      {"fp8", "float8e4m3fn"}, {"fp64", "double"}, {"double", "double"},  {"int16", "int16"},
      {"i16", "int16"},    {"uint16", "uint16"},   {"u16", "uint16"},     {"uint32", "uint32"},
      {"u32", "uint32"},   {"uint64", "uint64"},   {"u64", "uint64"},     {"u1", "bool"},
  };
  std::string w = lower(trim(word));
  for (const auto& [k, v] : table)
    if (w == k) return v;
  return "";
}

int dtype_size(const std::string& t) {
  if (t == "float" || t == "int32" || t == "uint32") return 4;
  if (t == "float16" || t == "bfloat16" || t == "int16" || t == "uint16") return 2;
  if (t == "int8" || t == "uint8" || t == "bool" || t == "float8e4m3fn") return 1;
  if (t == "int64" || t == "uint64" || t == "double") return 8;
  return 0;
}

}  // namespace rooflens::importers
