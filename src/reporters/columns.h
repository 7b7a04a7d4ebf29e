#pragma once
// One column registry per tabular view, rendered in every format from the same definitions: the terminal and
// Markdown show human units (4.09G, 12.3%), CSV and JSON carry exact values under machine keys. `rooflens top`
// (layers of a profile) and `rooflens analyze` (nodes of a static analysis) both describe their tables this
// way, so a column means the same thing, and is spelt the same, whichever format a user asks for.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "reporters/report_text.h"

namespace rooflens {

template <class Row>
struct Column {
  std::string key;                      // CSV header and JSON field
  TextTable::Column display;            // terminal / Markdown title, alignment, clipping
  bool human = true;                    // false: only in the exact formats (CSV, JSON)
  bool model_text = false;              // model-supplied text: a code span in Markdown
  std::function<std::string(const Row&)> text;          // human units
  std::function<nlohmann::ordered_json(const Row&)> value;  // exact value
};

// A JSON value as one CSV cell: numbers exact, lists joined with ';', shapes as 1x3x224x224.
std::string csv_cell(const nlohmann::ordered_json& v);

// The columns of a registry a format shows: every column for exact formats (or only the human ones), or just
// the keys in `only` (registry order) when given.
template <class Row>
std::vector<const Column<Row>*> pick_columns(const std::vector<Column<Row>>& registry, bool exact,
                                             const std::vector<std::string>& only = {}) {
  std::vector<const Column<Row>*> out;
  for (const auto& c : registry) {
    bool wanted = only.empty() ? exact || c.human : std::find(only.begin(), only.end(), c.key) != only.end();
    if (wanted) out.push_back(&c);
  }
  return out;
}

// Human table (display titles, human text) or exact table (keys as titles, csv_cell values: for CSV).
template <class Row>
TextTable column_table(const std::vector<const Column<Row>*>& cols, const std::vector<Row>& rows, bool exact) {
  TextTable table;
  for (const auto* c : cols) table.columns.push_back(exact ? TextTable::Column{c->key, false, 0} : c->display);
  for (const Row& r : rows) {
    std::vector<std::string> cells;
    for (const auto* c : cols) cells.push_back(exact ? csv_cell(c->value(r)) : c->text(r));
    table.rows.push_back(std::move(cells));
  }
  return table;
}

// The human table as GitHub-flavoured Markdown, model-supplied text in code spans.
template <class Row>
std::string column_markdown(const std::vector<const Column<Row>*>& cols, const std::vector<Row>& rows) {
  TextTable table = column_table(cols, rows, false);
  for (auto& cells : table.rows)
    for (size_t i = 0; i < cols.size() && i < cells.size(); ++i)
      if (cols[i]->model_text) cells[i] = md_code(cells[i]);
  return table.markdown();
}

// One JSON object per row, keyed by column key, exact values.
template <class Row>
nlohmann::ordered_json column_json(const std::vector<const Column<Row>*>& cols, const std::vector<Row>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Row& r : rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto* c : cols) obj[c->key] = c->value(r);
    out.push_back(std::move(obj));
  }
  return out;
}

}  // namespace rooflens
