#pragma once
// Renderings of a whatif projection (src/whatif/): the terminal view (assumptions, per-run e2e, the layers with
// the most measured time next to their projection, the layers whose bound changes), Markdown and JSON.
#include <functional>
#include <map>
#include <string>

#include "core/report.h"

namespace rooflens {

struct WhatIfView {
  const Report* report = nullptr;     // the measured runs (report->whatif holds the projection)
  size_t top = 15;                    // layers per run (0 = all)
};

using WhatIfFormatter = std::function<std::string(const WhatIfView&)>;
const std::map<std::string, WhatIfFormatter>& whatif_formats();  // table, md, json

}  // namespace rooflens
