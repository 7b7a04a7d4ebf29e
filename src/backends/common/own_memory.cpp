#include "backends/common/own_memory.h"

#include <fstream>
#include <sstream>

namespace rooflens {

uint64_t vm_hwm_bytes(const std::string& status_text) {
  std::istringstream in(status_text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    uint64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB") return kib * 1024;
    return 0;
  }
  return 0;
}

uint64_t own_peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  if (!f) return 0;
  std::stringstream text;
  text << f.rdbuf();
  return vm_hwm_bytes(text.str());
}

}  // namespace rooflens
