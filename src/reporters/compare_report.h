#pragma once
// Renderings of a Comparison (compare/comparison.h): a terminal table, a Markdown pull-request comment, CSV (one
// row per item, exact values) and JSON ("rooflens.compare/1", everything including every layer delta).
// Formatters only present; every number and verdict was decided in src/compare/.
#include <functional>
#include <map>
#include <string>

#include "core/comparison.h"

namespace rooflens {

inline constexpr const char* kCompareSchema = "rooflens.compare/1";

struct CompareView {
  size_t top_layers = 10;   // table/md: layer deltas shown per configuration (0 = none)
};

using CompareFormatter = std::function<std::string(const Comparison&, const CompareView&)>;
const std::map<std::string, CompareFormatter>& compare_formats();  // table, md, csv, json

std::string compare_table(const Comparison& c, const CompareView& v);     // compare_report.cpp
std::string compare_markdown(const Comparison& c, const CompareView& v);  // compare_report.cpp
std::string compare_csv(const Comparison& c, const CompareView& v);       // compare_export.cpp
std::string compare_json(const Comparison& c, const CompareView& v);      // compare_export.cpp

// "1 regression, 2 within noise, 1 new failure (4 items)": the non-zero counts, worst first.
std::string compare_summary_line(const Comparison& c);

}  // namespace rooflens
