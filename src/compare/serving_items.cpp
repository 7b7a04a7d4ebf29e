#include "compare/serving_items.h"

#include <algorithm>

#include "core/comparison.h"
#include "core/serving_items.h"

namespace rooflens {

void add_serving_items(CompareSource& src, const Report& report, const std::string& model) {
  for (const ServingResult* run : serving_runs(report)) {
    for (ServingItem& s : serving_items(*run)) {
      CompareItem i;
      i.model = model;
      i.config = std::move(s.config);
      i.status = status::kPass;
      if (!s.samples_ms.empty()) i.repetitions = {static_cast<int64_t>(s.samples_ms.size())};
      i.samples_ms = std::move(s.samples_ms);
      i.stats = s.stats;
      src.items.push_back(std::move(i));
    }
    if (!run->fault.empty()) {
      CompareItem i;
      i.model = model;
      i.config = serving_label(run->settings);
      i.status = status::kFail;
      i.error = run->fault;
      std::replace(i.error.begin(), i.error.end(), '\n', ' ');
      src.items.push_back(std::move(i));
    }
  }
}

}  // namespace rooflens
