#include "generate/traffic.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "core/saturating.h"

namespace rooflens {

uint64_t weight_bytes_read(const Model& m) {
  struct Use {
    bool only_gathered = true;
    uint64_t rows = 0;  // indices gathered over all Gather uses
  };
  std::unordered_map<std::string, Use> uses;
  for (size_t g = 0; g < m.graphs.size(); ++g)
    for (const auto& n : m.graphs[g].nodes)
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i].empty() || !m.find_initializer(static_cast<int>(g), n.inputs[i])) continue;
        Use& u = uses[n.inputs[i]];
        const bool gather_data = n.op == "Gather" && n.domain.empty() && i == 0 && n.attr_i("axis", 0) == 0 &&
                                 n.inputs.size() > 1;
        if (!gather_data) {
          u.only_gathered = false;
          continue;
        }
        const TensorInfo* idx = m.find_tensor(static_cast<int>(g), n.inputs[1]);
        const int64_t count = idx ? idx->elements() : -1;
        if (count < 0) u.only_gathered = false;  // unknown index count: assume the whole table
        else u.rows = sat_add(u.rows, static_cast<uint64_t>(count));
      }
  uint64_t total = 0;
  for (const auto& init : m.initializers) {
    auto it = uses.find(init.name);
    if (it == uses.end()) continue;  // unused
    const uint64_t bits = static_cast<uint64_t>(dtype_bits(init.dtype));
    const uint64_t full = sat_mul(static_cast<uint64_t>(std::max<int64_t>(0, init.elements)), bits) / 8;
    if (it->second.only_gathered && !init.dims.empty() && init.dims[0] > 0) {
      const uint64_t row = full / static_cast<uint64_t>(init.dims[0]);
      total = sat_add(total, std::min(full, sat_mul(row, it->second.rows)));
    } else {
      total = sat_add(total, full);
    }
  }
  return total;
}

}  // namespace rooflens
