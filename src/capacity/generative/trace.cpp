#include "capacity/generative/trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace rooflens::capacity::generative {
namespace {

const char* const kLineForm = "each line must be {\"timestamp\": MS, \"input_tokens\": N, \"output_tokens\": M}";

int64_t tokens_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 10'000'000)
    throw UserError(where + ": '" + key + "' must be a whole number of tokens from 1; " + kLineForm);
  return it->get<int64_t>();
}

}  // namespace

Trace parse_trace(const std::string& text, const std::string& file) {
  struct Line {
    double ms;
    RequestShape shape;
  };
  std::vector<Line> lines;
  std::istringstream in(text);
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file + ":" + std::to_string(number);
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw UserError(where + ": not a JSON object; " + kLineForm);
    const auto t = j.find("timestamp");
    if (t == j.end() || !t->is_number() || !std::isfinite(t->get<double>()) || t->get<double>() < 0)
      throw UserError(where + ": 'timestamp' must be a number of milliseconds, 0 or more; " + kLineForm);
    lines.push_back({t->get<double>(), {tokens_field(j, "input_tokens", where), tokens_field(j, "output_tokens", where)}});
  }
  if (lines.empty()) throw UserError(file + ": the trace holds no request; " + kLineForm);
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.ms < b.ms; });
  Trace out;
  for (const auto& l : lines) {
    out.arrival_ns.push_back(static_cast<int64_t>(std::llround((l.ms - lines.front().ms) * 1e6)));
    out.shapes.push_back(l.shape);
  }
  return out;
}

Trace read_trace(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw UserError(file + ": cannot read the trace file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_trace(ss.str(), file);
}

}  // namespace rooflens::capacity::generative
