#pragma once
// Reading the text of database columns back into values. A database is outside data — another rooflens, another
// tool or a person may have written it — so every parser is strict and throws DbError naming the column, never
// crashes (tests/fuzz/fuzz_history.cpp feeds them arbitrary bytes).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooflens::db {

int64_t parse_int(const std::optional<std::string>& text, const char* column);
double parse_double(const std::optional<std::string>& text, const char* column);  // finite only
std::string parse_text(const std::optional<std::string>& text, const char* column);  // NULL refused
// JSON arrays in TEXT columns: finite non-negative numbers / non-negative integers / strings.
std::vector<double> parse_doubles(const std::optional<std::string>& text, const char* column);
std::vector<int64_t> parse_counts(const std::optional<std::string>& text, const char* column);
std::vector<std::string> parse_strings(const std::optional<std::string>& text, const char* column);

// The JSON text of such arrays, as the store writes them.
std::string doubles_json(const std::vector<double>& v);
std::string counts_json(const std::vector<int64_t>& v);
std::string strings_json(const std::vector<std::string>& v);

}  // namespace rooflens::db
