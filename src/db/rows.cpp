#include "db/rows.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "db/url.h"

namespace rooflens::db {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const char* column, const std::string& what) {
  throw DbError(std::string("column ") + column + ": " + what + " (the database was not written by this rooflens?)");
}

const std::string& present(const std::optional<std::string>& text, const char* column) {
  if (!text) bad(column, "NULL where a value is required");
  return *text;
}

json array(const std::optional<std::string>& text, const char* column) {
  json j = json::parse(present(text, column), nullptr, false);
  if (j.is_discarded() || !j.is_array()) bad(column, "not a JSON array");
  return j;
}

}  // namespace

int64_t parse_int(const std::optional<std::string>& text, const char* column) {
  const std::string& s = present(text, column);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) bad(column, "not an integer");
  return v;
}

double parse_double(const std::optional<std::string>& text, const char* column) {
  const std::string& s = present(text, column);
  // strtod, not from_chars: both databases print doubles in forms strtod reads (SQLite "1.0e+15", PostgreSQL
  // "Infinity"/"NaN" — refused below), and GCC 12's from_chars for double is what the standard library ships.
  if (s.empty() || s.size() > 64) bad(column, "not a number");
  std::string copy = s;
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v)) bad(column, "not a finite number");
  return v;
}

std::string parse_text(const std::optional<std::string>& text, const char* column) { return present(text, column); }

std::vector<double> parse_doubles(const std::optional<std::string>& text, const char* column) {
  std::vector<double> out;
  for (const auto& v : array(text, column)) {
    if (!v.is_number()) bad(column, "an element is not a number");
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) bad(column, "an element is negative or not finite");
    out.push_back(d);
  }
  return out;
}

std::vector<int64_t> parse_counts(const std::optional<std::string>& text, const char* column) {
  std::vector<int64_t> out;
  for (const auto& v : array(text, column)) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0) bad(column, "an element is not a non-negative integer");
    out.push_back(v.get<int64_t>());
  }
  return out;
}

std::vector<std::string> parse_strings(const std::optional<std::string>& text, const char* column) {
  std::vector<std::string> out;
  for (const auto& v : array(text, column)) {
    if (!v.is_string()) bad(column, "an element is not a string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string doubles_json(const std::vector<double>& v) { return json(v).dump(); }
std::string counts_json(const std::vector<int64_t>& v) { return json(v).dump(); }
std::string strings_json(const std::vector<std::string>& v) {
  return json(v).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace rooflens::db
