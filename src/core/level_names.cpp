#include "core/level_names.h"

#include <tuple>

namespace rooflens {

std::string cache_level_name(int first, int last) {
  std::string name = "L" + std::to_string(first);
  for (int k = first + 1; k <= last; ++k) name += "+L" + std::to_string(k);
  return name;
}

std::optional<LevelSpan> level_span(std::string_view name) {
  if (name == "DRAM") return LevelSpan{kDramLevel, kDramLevel};
  LevelSpan s;
  for (size_t at = 0; at < name.size(); at += 3) {  // "L<digit>" parts joined by '+', consecutive
    if (at > 0 && name[at - 1] != '+') return std::nullopt;
    if (at + 2 > name.size() || name[at] != 'L' || name[at + 1] < '1' || name[at + 1] >= '0' + kDramLevel)
      return std::nullopt;
    int k = name[at + 1] - '0';
    if (s.first == 0) s.first = k;
    else if (k != s.last + 1) return std::nullopt;
    s.last = k;
    if (at + 2 < name.size() && name[at + 2] != '+') return std::nullopt;
  }
  if (s.first == 0 || name.back() == '+') return std::nullopt;
  return s;
}

bool level_nearer(std::string_view a, std::string_view b) {
  std::optional<LevelSpan> x = level_span(a), y = level_span(b);
  if (!x || !y) return x.has_value() && !y.has_value();
  return std::tie(x->first, x->last) < std::tie(y->first, y->last);
}

}  // namespace rooflens
