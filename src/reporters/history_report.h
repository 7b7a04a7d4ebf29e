#pragma once
// Renderings of `rooflens history`: the trend table (one row per model × configuration × machine), the runs of
// each trend, the --check verdicts, and the HTML page of trend charts (web/history.html, built at compile time
// like the report page).
#include <string>
#include <string_view>

#include "core/trend.h"

namespace rooflens {

struct TrendTextOptions {
  size_t points = 10;      // runs listed per trend (the most recent); 0: the trend table only
};

std::string trends_text(const Trends& t, const TrendTextOptions& options = {});
// The --check section alone (also part of trends_text when t.check_options is set).
std::string checks_text(const Trends& t);

// One self-contained page: a chart per trend (run centres over time, each run's repetition medians as dots, change
// points marked), the trend table and the check results. Opens from file://, no network request.
std::string history_html(const Trends& t);

}  // namespace rooflens
