#pragma once
// A plain aligned text table for the terminal, plus CSV and Markdown renderings of the same rows, so every
// tabular view (analyze today, top and compare later) formats identically.
#include <string>
#include <vector>

namespace rooflens {

struct TextTable {
  struct Column { std::string title; bool right = false; size_t max_width = 0; };  // 0 = no limit
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;

  std::string render() const;    // aligned, with a header rule; cells longer than max_width get "…"
  std::string csv() const;       // RFC 4180 quoting
  std::string markdown() const;  // pipes escaped
};

// One CSV record (RFC 4180 quoting) ending with "\n", for files written a line at a time.
std::string csv_row(const std::vector<std::string>& cells);

}  // namespace rooflens
