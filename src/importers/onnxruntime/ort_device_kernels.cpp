#include "importers/onnxruntime/ort_device_kernels.h"

#include <map>

namespace rooflens::importers {

DeviceKernels device_kernels(const ort::OrtProfile& p) {
  DeviceKernels out;
  out.by_event.resize(p.events.size());
  int last_node = -1;
  for (size_t i = 0; i < p.events.size(); ++i) {
    const auto& e = p.events[i];
    if (e.is_kernel()) {
      last_node = static_cast<int>(i);
      continue;
    }
    if (e.cat != "Kernel") continue;
    ++out.count;
    out.total_us += e.dur_us;
    if (last_node < 0) {
      ++out.unattributed;
      out.unattributed_us += e.dur_us;
      continue;
    }
    auto& launched = out.by_event[static_cast<size_t>(last_node)];
    launched.device_us += e.dur_us;
    launched.names.push_back(e.name);
  }
  return out;
}

std::string kernel_summary(const std::vector<std::string>& names) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  for (const auto& n : names)
    if (count[n]++ == 0) order.push_back(n);
  std::string s;
  for (const auto& n : order) {
    if (!s.empty()) s += "; ";
    s += n;
    if (count[n] > 1) s += " ×" + std::to_string(count[n]);
  }
  return s;
}

}  // namespace rooflens::importers
