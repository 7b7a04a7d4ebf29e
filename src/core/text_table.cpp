#include "core/text_table.h"

#include <algorithm>

namespace rooflens {
namespace {

// Display width in code points (UTF-8 continuation bytes do not advance the cursor).
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string clip(const std::string& s, size_t max) {
  if (max == 0 || width(s) <= max) return s;
  std::string out;
  size_t w = 0;
  for (char c : s) {
    if ((c & 0xC0) != 0x80 && ++w > max - 1) break;
    out += c;
  }
  return out + "…";
}

std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string TextTable::render() const {
  std::vector<size_t> w(columns.size());
  std::vector<std::vector<std::string>> cells;
  for (size_t c = 0; c < columns.size(); ++c) w[c] = width(columns[c].title);
  for (const auto& row : rows) {
    std::vector<std::string> r;
    for (size_t c = 0; c < columns.size(); ++c) {
      r.push_back(clip(c < row.size() ? row[c] : "", columns[c].max_width));
      w[c] = std::max(w[c], width(r.back()));
    }
    cells.push_back(std::move(r));
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      std::string pad(w[c] - width(r[c]), ' ');
      out += c ? "  " : "";
      out += columns[c].right ? pad + r[c] : (c + 1 == columns.size() ? r[c] : r[c] + pad);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> head;
  for (const auto& col : columns) head.push_back(col.title);
  std::string out = line(head);
  size_t total = 0;
  for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
  std::string rule;
  for (size_t i = 0; i < total; ++i) rule += "─";
  out += rule + "\n";
  for (const auto& r : cells) out += line(r);
  return out;
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_quoted(cells[c]);
  return out + "\n";
}

std::string TextTable::csv() const {
  std::vector<std::string> head;
  for (const auto& col : columns) head.push_back(col.title);
  std::string out = csv_row(head);
  for (const auto& row : rows) {
    std::vector<std::string> cells(columns.size());
    for (size_t c = 0; c < columns.size() && c < row.size(); ++c) cells[c] = row[c];
    out += csv_row(cells);
  }
  return out;
}

std::string TextTable::markdown() const {
  std::string out = "|";
  for (const auto& col : columns) out += " " + md_cell(col.title) + " |";
  out += "\n|";
  for (const auto& col : columns) out += col.right ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (size_t c = 0; c < columns.size(); ++c) out += " " + md_cell(c < row.size() ? row[c] : "") + " |";
    out += "\n";
  }
  return out;
}

}  // namespace rooflens
