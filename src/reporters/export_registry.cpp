#include "reporters/export.h"

namespace rooflens {

const std::map<std::string, Exporter>& exporters() {
  static const std::map<std::string, Exporter> registry{
      {"csv", export_csv},
      {"md", export_markdown},
      {"trace", export_trace},
  };
  return registry;
}

}  // namespace rooflens
