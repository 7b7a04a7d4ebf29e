#include "importers/ncu/ncu_csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers::ncu {
namespace {

bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "1,234,567" with `sep` as the thousands separator: a first group of 1-3 digits, then groups of exactly 3.
bool grouped(std::string_view s, char sep) {
  std::vector<std::string> groups = split(s, sep);
  if (groups.size() < 2 || groups[0].size() > 3 || !digits(groups[0])) return false;
  for (size_t i = 1; i < groups.size(); ++i)
    if (groups[i].size() != 3 || !digits(groups[i])) return false;
  return true;
}

// The digits of a mantissa without its grouping marks, its decimal mark a point ("1234.5"); "" when it is not a
// number in that convention.
std::string plain_mantissa(std::string_view m, char decimal, char group) {
  const size_t at = m.find(decimal);
  std::string_view whole = m.substr(0, at);
  if (at != std::string_view::npos && !digits(m.substr(at + 1))) return "";
  if (whole.find(group) != std::string_view::npos && !grouped(whole, group)) return "";
  std::string out;
  for (char c : whole)
    if (c != group) out += c;
  if (!digits(out)) return "";
  return at == std::string_view::npos ? out : out + "." + std::string(m.substr(at + 1));
}

// The base words whose prefixes are read: anything else ("warp", "%", "register/thread") is a word of its own.
std::optional<Unit> base_word(std::string_view w) {
  if (w == "byte" || w == "B") return Unit{1, "byte", ""};
  if (w == "second" || w == "s") return Unit{1, "second", ""};
  if (w == "cycle") return Unit{1, "cycle", ""};
  if (w == "inst") return Unit{1, "inst", ""};
  if (w == "hz" || w == "Hz") return Unit{1, "cycle", "second"};
  return std::nullopt;
}

std::optional<double> prefix_scale(char p) {
  switch (p) {
    case 'K': case 'k': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    case 'm': return 1e-3;
    case 'u': return 1e-6;
    case 'n': return 1e-9;
    case 'p': return 1e-12;
    default: return std::nullopt;
  }
}

Unit unit_part(std::string_view w) {
  if (std::optional<Unit> u = base_word(w)) return *u;
  if (w.size() > 1)
    if (std::optional<double> p = prefix_scale(w[0]))
      if (std::optional<Unit> u = base_word(w.substr(1))) return Unit{*p * u->scale, u->num, u->den};
  return Unit{1, std::string(w), ""};
}

[[noreturn]] void fail_at(const InputFile& f, size_t line, const std::string& what) {
  throw UserError(f.path + ": line " + std::to_string(line) + ": " + what);
}

struct Header {
  std::vector<std::string> names;
  std::map<std::string, size_t> at;
  size_t line = 0;
  std::optional<size_t> col(const std::string& name) const {
    auto it = at.find(name);
    return it == at.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
};

// The fixed columns every layout starts with; a raw page's metrics are the columns after them.
const std::vector<std::string> kKernelColumns = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
                                                 "Context", "Stream", "Block Size", "Grid Size", "Device", "CC"};

std::string field(const std::vector<std::string>& row, std::optional<size_t> c) {
  return c && *c < row.size() ? trim(row[*c]) : "";
}

// The details page names some metrics by their label only ("Duration"): the ones the roofline needs, under the
// metric names the raw page gives them (the SpeedOfLight and MemoryWorkloadAnalysis sections' definitions).
std::string details_key(const std::string& name, const std::string& unit, const std::string& section) {
  if (contains(name, "__")) return name;
  if (name == "Duration") return "gpu__time_duration.sum";
  if (name == "Memory Throughput") {
    std::optional<Unit> u = parse_unit(unit);
    if (u && u->num == "byte" && u->den == "second") return "dram__bytes.sum.per_second";
  }
  return section + "/" + name;
}

class Reader {
 public:
  Reader(const InputFile& f) : f_(f), lines_(lines_of(f.text)) {}

  Table read() {
    Header h = header();
    table_.preamble_lines = h.line - 1;
    const bool details = h.col("Metric Name") && h.col("Metric Value");
    table_.layout = details ? "details" : "raw";
    if (details) read_details(h);
    else read_raw(h);
    if (table_.kernels.empty()) throw UserError(f_.path + ": no kernel rows after the header (line " + std::to_string(h.line) + ")");
    int votes = 0;
    for (const Kernel& k : table_.kernels)
      for (const auto& [name, cell] : k.metrics) votes += decimal_evidence(cell.text);
    for (Kernel& k : table_.kernels) k.decimal_comma = votes < 0;
    return std::move(table_);
  }

 private:
  bool skipped(std::string_view line) const { return trim(line).empty() || line.rfind("==", 0) == 0; }

  Header header() {
    for (next_ = 0; next_ < lines_.size(); ++next_) {
      std::vector<std::string> row = csv_fields(lines_[next_], ',');
      if (trim(row[0]) != "ID") continue;
      Header h;
      h.line = ++next_;
      for (size_t i = 0; i < row.size(); ++i) {
        h.names.push_back(trim(row[i]));
        h.at.emplace(h.names.back(), i);
      }
      if (!h.col("Kernel Name")) fail_at(f_, h.line, "the header has no \"Kernel Name\" column");
      return h;
    }
    throw UserError(f_.path + ": no Nsight Compute header row (\"ID\",\"Process ID\",...,\"Kernel Name\",...)");
  }

  Kernel& kernel_of(const std::vector<std::string>& row, const Header& h, size_t line) {
    const std::string id = field(row, h.col("ID"));
    if (!digits(id) || id.size() > 12) fail_at(f_, line, "ID '" + id + "' is not a kernel number");
    auto it = index_.find(id);
    if (it != index_.end()) return table_.kernels[it->second];
    index_.emplace(id, table_.kernels.size());
    Kernel k;
    k.id = id;
    k.name = field(row, h.col("Kernel Name"));
    if (k.name.empty()) fail_at(f_, line, "Kernel Name is empty");
    k.device = field(row, h.col("Device"));
    k.cc = field(row, h.col("CC"));
    k.block = field(row, h.col("Block Size"));
    k.grid = field(row, h.col("Grid Size"));
    k.line = line;
    table_.kernels.push_back(std::move(k));
    return table_.kernels.back();
  }

  void read_details(const Header& h) {
    const size_t value = *h.col("Metric Value");
    for (; next_ < lines_.size(); ++next_) {
      if (skipped(lines_[next_])) continue;
      const size_t line = next_ + 1;
      std::vector<std::string> row = csv_fields(lines_[next_], ',');
      if (row.size() <= value)
        fail_at(f_, line, std::to_string(row.size()) + " fields, fewer than the header's " + std::to_string(value + 1) +
                              " up to Metric Value (a truncated row?)");
      Kernel& k = kernel_of(row, h, line);
      const std::string name = field(row, h.col("Metric Name"));
      if (name.empty()) continue;  // a rule's row: its advice, no metric
      const std::string unit = field(row, h.col("Metric Unit"));
      k.metrics.emplace(details_key(name, unit, field(row, h.col("Section Name"))),
                        Cell{field(row, value), unit, line, "Metric Value of '" + name + "'"});
    }
  }

  void read_raw(const Header& h) {
    std::vector<std::string> units(h.names.size());
    while (next_ < lines_.size() && skipped(lines_[next_])) ++next_;
    if (next_ < lines_.size()) {
      std::vector<std::string> row = csv_fields(lines_[next_], ',');
      if (trim(row[0]).empty()) {  // the units row (its kernel columns are empty)
        for (size_t i = 0; i < row.size() && i < units.size(); ++i) units[i] = trim(row[i]);
        ++next_;
      }
    }
    for (; next_ < lines_.size(); ++next_) {
      if (skipped(lines_[next_])) continue;
      const size_t line = next_ + 1;
      std::vector<std::string> row = csv_fields(lines_[next_], ',');
      if (row.size() != h.names.size())
        fail_at(f_, line, std::to_string(row.size()) + " fields where the header has " + std::to_string(h.names.size()) +
                              " (a truncated or damaged row?)");
      const size_t before = table_.kernels.size();
      Kernel& k = kernel_of(row, h, line);
      if (table_.kernels.size() == before) fail_at(f_, line, "ID " + k.id + " appears twice on a raw page");
      for (size_t i = 0; i < row.size(); ++i) {
        const std::string& name = h.names[i];
        if (std::find(kKernelColumns.begin(), kKernelColumns.end(), name) != kKernelColumns.end()) continue;
        k.metrics.emplace(name, Cell{trim(row[i]), units[i], line, name});
      }
    }
  }

  const InputFile& f_;
  std::vector<std::string_view> lines_;
  size_t next_ = 0;
  Table table_;
  std::map<std::string, size_t> index_;
};

}  // namespace

std::optional<double> parse_number(std::string_view s, bool decimal_comma) {
  std::string t = trim(s);
  if (t.empty() || t.size() > 64) return std::nullopt;
  const size_t e = t.find_first_of("eE");
  std::string mantissa = plain_mantissa(std::string_view(t).substr(0, e), decimal_comma ? ',' : '.', decimal_comma ? '.' : ',');
  if (mantissa.empty()) return std::nullopt;
  std::string plain = mantissa + (e == std::string::npos ? "" : t.substr(e));
  double v = 0;
  auto [end, ec] = std::from_chars(plain.data(), plain.data() + plain.size(), v);
  if (ec != std::errc() || end != plain.data() + plain.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

int decimal_evidence(std::string_view s) {
  std::string t = trim(s.substr(0, s.find_first_of("eE")));
  if (t.empty() || t.find_first_not_of("0123456789,.") != std::string::npos) return 0;
  const size_t comma = t.rfind(','), dot = t.rfind('.');
  if (comma != std::string::npos && dot != std::string::npos) return dot > comma ? 1 : -1;
  const size_t at = comma != std::string::npos ? comma : dot;
  if (at == std::string::npos) return 0;
  const int mark = at == dot ? 1 : -1;
  if (t.find(t[at]) != at) return -mark;   // the mark repeats: it groups, so the other one is the decimal mark
  return t.size() - at - 1 == 3 ? 0 : mark;  // "1,024": a group of three, or three decimals
}

std::optional<Unit> parse_unit(std::string_view unit) {
  std::string u = trim(unit);
  std::vector<std::string> parts = split(u, '/');
  if (u.empty()) return Unit{};
  if (parts.size() > 2) return std::nullopt;
  Unit num = unit_part(parts[0]);
  if (parts.size() == 1) return num;
  Unit den = unit_part(parts[1]);
  if (!num.den.empty() || !den.den.empty()) return std::nullopt;  // "hz/second": not a unit
  return Unit{num.scale / den.scale, num.num, den.num};
}

Table read_csv(const InputFile& f) { return Reader(f).read(); }

}  // namespace rooflens::importers::ncu
