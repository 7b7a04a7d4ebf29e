#include "whatif/perf_table.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/errors.h"

namespace rooflens {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, sep)) {
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
    out.push_back(cell);
  }
  return out;
}

double perf_number(const std::string& s, const std::string& where) {
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw UserError(where + ": '" + s + "' is not a number");
}

bool same_ratio(double a, double b) { return std::fabs(a - b) < 1e-9; }

}  // namespace

PerfTable parse_perf_table(const std::string& text, const std::string& source) {
  PerfTable t;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string where = source + ":" + std::to_string(n);
    if (line.empty() || line[0] == '#' || line.rfind("weight_shape", 0) == 0) continue;
    auto cells = split(line, ',');
    if (cells.size() != 4)
      throw UserError(where + ": expected 4 columns weight_shape,pattern,sparse_ratio,perf_ratio, got " +
                      std::to_string(cells.size()));
    PerfRatioRow r{cells[0], cells[1], perf_number(cells[2], where), perf_number(cells[3], where)};
    if (!(r.sparse_ratio > 0 && r.sparse_ratio < 1)) throw UserError(where + ": sparse_ratio must be in (0, 1)");
    if (!(r.perf_ratio > 0)) throw UserError(where + ": perf_ratio must be positive");
    t.rows.push_back(std::move(r));
  }
  return t;
}

PerfRatio lookup_perf_ratio(const PerfTable& t, const std::string& shape, const std::string& pattern, double ratio) {
  const PerfRatioRow* any = nullptr;
  for (const auto& r : t.rows) {
    if (r.pattern != pattern || !same_ratio(r.sparse_ratio, ratio)) continue;
    if (r.weight_shape == shape) return {r.perf_ratio, "table row " + shape};
    if (r.weight_shape == "*" && !any) any = &r;
  }
  if (any) return {any->perf_ratio, "table row *"};
  char buf[64];
  std::snprintf(buf, sizeof buf, "ideal 1/(1-%g)", ratio);
  return {1.0 / (1.0 - ratio), buf};
}

std::string perf_table_csv(const PerfTable& t) {
  std::string out = "weight_shape,pattern,sparse_ratio,perf_ratio\n";
  char buf[64];
  for (const auto& r : t.rows) {
    std::snprintf(buf, sizeof buf, ",%g,%.6g\n", r.sparse_ratio, r.perf_ratio);
    out += r.weight_shape + "," + r.pattern + buf;
  }
  return out;
}

}  // namespace rooflens
