#include "core/units.h"

#include <cmath>
#include <cstdio>

namespace rooflens {

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return out;
}

std::string fixed(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

std::string si(double v, int precision) {
  static const char* kPrefix[] = {"", "K", "M", "G", "T", "P", "E"};
  int k = 0;
  double a = std::fabs(v);
  while (a >= 1000.0 && k < 6) { a /= 1000.0; v /= 1000.0; ++k; }
  if (k == 0 && v == std::floor(v)) return fixed(v, 0);
  return fixed(v, precision) + kPrefix[k];
}

std::string si_bytes(double bytes) { return si(bytes, 2) + "B"; }

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace rooflens
