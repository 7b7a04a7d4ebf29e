#include "compare/capacity_items.h"

#include <algorithm>

#include "core/comparison.h"
#include "core/stats.h"

namespace rooflens {

void add_capacity_items(CompareSource& src, const Report& report, const std::string& model) {
  const CapacityResult& c = *report.capacity;
  for (const CapacityItem& i : capacity_items(c)) {
    CompareItem item;
    item.model = model;
    item.config = i.config;
    item.status = status::kPass;
    item.samples_ms = i.samples_ms;
    item.stats = summarize(i.samples_ms);
    src.items.push_back(std::move(item));
  }
  for (const CapacityRun& run : c.runs) {
    if (run.failure.empty()) continue;
    CompareItem item;
    item.model = model;
    item.config = run.config.label();
    item.status = run.failure.rfind("not run", 0) == 0 ? status::kSkip : status::kFail;
    item.error = run.failure;
    src.items.push_back(std::move(item));
  }
}

void pair_instances_with_base(CompareSource& base, const CompareSource& head, std::vector<std::string>& notes) {
  std::vector<CompareItem> added;
  std::vector<std::string> copied;  // BASE runs now standing once per instance
  for (const CompareItem& n : head.items) {
    if (!n.profile_config || !n.profile_config->dims.count("instance")) continue;
    RunKey key = *n.profile_config;
    key.dims.erase("instance");
    auto same = [&](const CompareItem& b) { return b.profile_config && *b.profile_config == key && !b.config_requested; };
    auto it = std::find_if(base.items.begin(), base.items.end(), same);
    if (it == base.items.end()) continue;
    if (std::any_of(base.items.begin(), base.items.end(), [&](const CompareItem& b) { return b.config == n.config; }))
      continue;
    copied.push_back(it->config);
    CompareItem copy = *it;
    copy.config = n.config;
    copy.profile_config = n.profile_config;
    copy.model = n.model;
    added.push_back(std::move(copy));
    notes.push_back("BASE '" + it->config + "' compared with NEW '" + n.config +
                    "' (an instance's layers under load against the same configuration alone)");
  }
  std::erase_if(base.items, [&](const CompareItem& b) {
    return std::find(copied.begin(), copied.end(), b.config) != copied.end();
  });
  for (auto& a : added) base.items.push_back(std::move(a));
}

}  // namespace rooflens
