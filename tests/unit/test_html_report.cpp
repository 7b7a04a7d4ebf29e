// The HTML report's C++ side: the page template linked into the binary, and the embedding of the report JSON
// so that no string in it (a node named "</script>...") can end the data element. The page's behaviour in a
// browser is tested with real Chromium in tests/browser/.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/report.h"
#include "reporters/page_templates.h"
#include "reporters/html_report.h"

using namespace rooflens;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// The text between the data element's tags.
std::string embedded_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"rooflens-data\">";
  size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  begin += open.size();
  size_t end = page.find("</script>", begin);
  EXPECT_NE(end, std::string::npos);
  return page.substr(begin, end - begin);
}

Report hostile_report() {
  Report r;
  r.tool.version = "0.1.0";
  r.tool.command = "analyze";
  r.model.name = "</script><script>alert(1)</script>";
  r.model.producer_name = "a & b <!-- \xE2\x80\xA8 \xE2\x80\xA9 é";  // U+2028, U+2029, then a plain é
  NodeAnalysis n;
  n.name = "\"><img src=x onerror=alert(2)>";
  n.op = "</SCRIPT >";
  r.model.analysis.nodes.push_back(n);
  return r;
}

}  // namespace

TEST(HtmlReport, JsonForScriptEscapesMarkupAndLineSeparators) {
  EXPECT_EQ(json_for_script(R"({"a":"</script>&"})"), R"({"a":"\u003c/script\u003e\u0026"})");
  EXPECT_EQ(json_for_script("\"\xE2\x80\xA8\xE2\x80\xA9\""), R"("\u2028\u2029")");
  // Other multi-byte characters, and E2 80 xx sequences that are not U+2028/9, pass through.
  EXPECT_EQ(json_for_script("\"\xE2\x80\x94 \xC3\xA9\""), "\"\xE2\x80\x94 \xC3\xA9\"");
  EXPECT_EQ(json_for_script("\xE2\x80"), "\xE2\x80");  // truncated at the end: left alone, no read past it
}

TEST(HtmlReport, TemplateIsTheAssembledPage) {
  std::string_view page = report_template();
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_EQ(count(std::string(page), std::string(kReportDataMarker)), 1u);
  // Inlined at build time: no file or URL is loaded at run time.
  EXPECT_EQ(page.find("@inline"), std::string_view::npos);
  EXPECT_EQ(page.find("<script src"), std::string_view::npos);
  EXPECT_EQ(page.find("<link"), std::string_view::npos);
  EXPECT_NE(page.find("echarts"), std::string_view::npos);
  EXPECT_GT(page.size(), 500u * 1024);  // ECharts' minified build alone is ~1 MB
}

TEST(HtmlReport, HostileStringsStayInsideTheDataElementAndReadBack) {
  Report r = hostile_report();
  std::string page = html_report(r);
  std::string data = embedded_data(page);
  // Nothing in the data can close an element, open a comment or end a line for a script parser.
  for (const char* bad : {"<", ">", "&", "\xE2\x80\xA8", "\xE2\x80\xA9"}) EXPECT_EQ(data.find(bad), std::string::npos) << bad;
  // The page keeps exactly its own three scripts.
  EXPECT_EQ(count(page, "<script"), 3u);
  EXPECT_EQ(count(page, "</script>"), 3u);
  // JSON.parse of the element's text gives the report back, byte for byte.
  Report back = report_from_json(data);
  EXPECT_EQ(back.model.name, r.model.name);
  EXPECT_EQ(back.model.producer_name, r.model.producer_name);
  ASSERT_EQ(back.model.analysis.nodes.size(), 1u);
  EXPECT_EQ(back.model.analysis.nodes[0].name, r.model.analysis.nodes[0].name);
  EXPECT_EQ(back.model.analysis.nodes[0].op, r.model.analysis.nodes[0].op);
  EXPECT_EQ(report_to_json(back), report_to_json(r));
}
