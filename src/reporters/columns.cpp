#include "reporters/columns.h"

namespace rooflens {

using json = nlohmann::ordered_json;

std::string csv_cell(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) return exact(v.get<double>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) {
      if (!e.is_array()) {
        parts.push_back(csv_cell(e));
        continue;
      }
      // A shape: 1x3x224x224 (-1 or a non-integer dim reads "?").
      std::vector<int64_t> shape;
      for (const auto& d : e) shape.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
      parts.push_back(shape_text(shape));
    }
    return join(parts, ";");
  }
  return v.is_null() ? "" : v.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace rooflens
