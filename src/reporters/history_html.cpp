#include <stdexcept>

#include "reporters/history_report.h"
#include "reporters/html_report.h"
#include "reporters/page_templates.h"

namespace rooflens {

std::string history_html(const Trends& t) {
  std::string_view page = history_template();
  size_t at = page.find(kReportDataMarker);
  if (at == std::string_view::npos) throw std::logic_error("the HTML history template has no data marker");
  // The same escaping as the report page: no string in the data (a model named "</script>") can end its element.
  std::string data = json_for_script(trends_to_json(t, -1));
  std::string out;
  out.reserve(page.size() + data.size());
  out.append(page.substr(0, at)).append(data).append(page.substr(at + kReportDataMarker.size()));
  return out;
}

}  // namespace rooflens
