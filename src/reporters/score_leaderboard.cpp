#include "reporters/score_leaderboard.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "reporters/html_report.h"
#include "reporters/page_templates.h"

namespace rooflens {
namespace {

using ojson = nlohmann::ordered_json;

bool projected(const ScoreResult& r) { return r.kind == "projected"; }

std::string label_of(const ScoreResult& r) {
  const ScoreMachine& m = r.machine;
  std::string runtime = m.runtime.name.empty() ? "" : " · " + m.runtime.name + " " + m.runtime.version;
  if (projected(r))
    return "PROJECTED " + (r.device.empty() ? std::string("unnamed device") : r.device) +
           (m.roofs.empty() ? "" : " (" + m.roofs + " roofs)") + runtime;
  std::string cpu = m.machine.model.empty() ? "unnamed CPU" : m.machine.model;
  return fmt::format("{} · {} of {} cores{}", cpu, m.cores_used, m.machine.cores, runtime);
}

// Of several scores of one machine × kind × device × runtime, the latest.
std::vector<LeaderboardInput> latest(std::vector<LeaderboardInput> in) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> at;
  std::vector<LeaderboardInput> out;
  for (auto& x : in) {
    const ScoreResult& r = x.result;
    auto key = std::make_tuple(x.machine, r.kind, r.device, r.machine.runtime.name + " " + r.machine.runtime.version);
    auto it = at.find(key);
    if (it == at.end()) {
      at.emplace(key, out.size());
      out.push_back(std::move(x));
    } else if (out[it->second].result.created_at <= r.created_at) {
      out[it->second] = std::move(x);
    }
  }
  return out;
}

// Complete before incomplete, then the higher overall, then the earlier; ranks count complete ones only.
void rank(std::vector<LeaderboardRow>& rows, const std::string& prefix) {
  std::stable_sort(rows.begin(), rows.end(), [](const LeaderboardRow& a, const LeaderboardRow& b) {
    const ScoreAggregate &x = a.result.overall, &y = b.result.overall;
    if (x.incomplete != y.incomplete) return !x.incomplete;
    if (x.score != y.score) return x.score > y.score;
    return a.result.created_at < b.result.created_at;
  });
  int n = 0;
  for (auto& r : rows) r.rank = r.result.overall.incomplete || r.result.overall.score <= 0 ? "-" : prefix + std::to_string(++n);
}

LeaderboardGroup group_of(const std::string& suite, bool quick, std::vector<LeaderboardInput> in) {
  LeaderboardGroup g;
  g.suite = suite;
  g.quick = quick;
  g.title = "suite " + suite + " · " + (quick ? "quick (a subset with shorter runs: never compared with full)" : "full");
  std::vector<LeaderboardRow> measured, proj;
  for (auto& x : in) {
    for (const auto& c : x.result.categories)
      if (std::find(g.categories.begin(), g.categories.end(), c.name) == g.categories.end()) g.categories.push_back(c.name);
    LeaderboardRow row{x.id, x.machine, "", label_of(x.result), std::move(x.result)};
    (projected(row.result) ? proj : measured).push_back(std::move(row));
  }
  rank(measured, "");
  rank(proj, "P");
  g.rows = std::move(measured);
  for (auto& r : proj) g.rows.push_back(std::move(r));
  return g;
}

const ScoreAggregate* category(const ScoreResult& r, const std::string& name) {
  for (const auto& c : r.categories)
    if (c.name == name) return &c;
  return nullptr;
}

std::string score_cell(const ScoreAggregate* a) {
  if (!a) return "";
  if (a->score <= 0) return a->members > 0 ? "none valid" : "-";
  return fmt::format("{:.0f}{}", a->score, a->incomplete ? "*" : "");
}

std::string ci_cell(const ScoreAggregate& a) {
  if (a.score <= 0) return "";
  if (a.ci.high <= 0) return "n/a";
  return fmt::format("[{:.0f}, {:.0f}]", a.ci.low, a.ci.high);
}

std::string decomposition_cell(const ScoreAggregate* a) {
  if (!a || a->score <= 0) return "";
  if (a->roof_ratio <= 0) return "no roofs";
  return fmt::format("{:.2f}× × {:.2f}×", a->roof_ratio, a->efficiency);
}

std::string group_text(const LeaderboardGroup& g) {
  TextTable scores, parts;
  scores.columns = {{"rank"}, {"machine", false, 64}, {"kind"}, {"overall", true}, {"95% CI", true}};
  parts.columns = {{"rank"}, {"machine", false, 64}, {"overall", true}};
  for (const auto& c : g.categories) {
    scores.columns.push_back({c, true});
    parts.columns.push_back({c, true});
  }
  scores.columns.push_back({"date (UTC)"});
  bool incomplete = false, projected_rows = false;
  for (const auto& row : g.rows) {
    const ScoreResult& r = row.result;
    incomplete = incomplete || r.overall.incomplete;
    projected_rows = projected_rows || projected(r);
    std::vector<std::string> s{row.rank, row.label, projected(r) ? "PROJECTED" : "measured", score_cell(&r.overall),
                               ci_cell(r.overall)};
    std::vector<std::string> p{row.rank, row.label, decomposition_cell(&r.overall)};
    for (const auto& c : g.categories) {
      s.push_back(score_cell(category(r, c)));
      p.push_back(decomposition_cell(category(r, c)));
    }
    s.push_back(r.created_at.substr(0, 16));
    scores.rows.push_back(std::move(s));
    parts.rows.push_back(std::move(p));
  }
  std::string out = g.title + "\n" + scores.render();
  if (incomplete)
    out += "  * incomplete: a workload was INVALID, failed or unsupported, so the score covers fewer workloads and is "
           "not ranked (-)\n";
  if (projected_rows)
    out += "  PROJECTED: computed from the model's analysis on the device's roofs, not measured; ranked only among "
           "projected scores (P1, P2, ...)\n";
  out += "\nwhat drives each score: roof ratio × efficiency (score / 1000 = roof ratio × efficiency against the "
         "suite's reference)\n" +
         parts.render();
  return out;
}

ojson aggregate_json(const ScoreAggregate& a) {
  return {{"name", a.name},           {"score", a.score},         {"low", a.ci.low},
          {"high", a.ci.high},        {"roof_ratio", a.roof_ratio}, {"efficiency", a.efficiency},
          {"members", a.members},     {"valid_members", a.valid_members}, {"incomplete", a.incomplete},
          {"explanation", a.explanation}};
}

ojson row_json(const LeaderboardRow& row) {
  const ScoreResult& r = row.result;
  const MachineDesc& m = r.machine.machine;
  ojson cats = ojson::array();
  for (const auto& c : r.categories) cats.push_back(aggregate_json(c));
  return {{"id", row.id},
          {"machine_id", row.machine},
          {"rank", row.rank},
          {"label", row.label},
          {"kind", r.kind},
          {"device", r.device},
          {"quick", r.quick},
          {"created_at", r.created_at},
          {"machine", {{"cpu", m.model}, {"cores", m.cores}, {"threads", m.threads}, {"cores_used", r.machine.cores_used},
                       {"memory_bytes", m.memory_bytes}, {"os", m.os}, {"isa", m.isa}}},
          {"runtime", r.machine.runtime.name + " " + r.machine.runtime.version},
          {"rooflens", r.machine.tool.version},
          {"roofs", r.machine.roofs},
          {"ci_method", r.ci_method},
          {"partial", r.partial},
          {"overall", aggregate_json(r.overall)},
          {"categories", cats}};
}

}  // namespace

Leaderboard build_leaderboard(std::vector<LeaderboardInput> inputs, const std::string& source, bool latest_only) {
  Leaderboard b;
  b.source = source;
  b.latest_only = latest_only;
  std::map<std::pair<std::string, bool>, std::vector<LeaderboardInput>> groups;  // suite, quick: full first
  for (auto& x : inputs) groups[{x.result.suite, x.result.quick}].push_back(std::move(x));
  for (auto& [key, in] : groups) b.groups.push_back(group_of(key.first, key.second, latest_only ? latest(std::move(in)) : std::move(in)));
  return b;
}

std::string leaderboard_text(const Leaderboard& b) {
  std::string out = "Scores side by side from " + b.source +
                    (b.latest_only ? " (the latest score of each machine; --all for every one)" : " (every score)") +
                    "\n";
  if (b.groups.empty()) return out + "no scores stored (rooflens score stores them)\n";
  for (const auto& g : b.groups) out += "\n" + group_text(g);
  return out;
}

std::string leaderboard_json(const Leaderboard& b, int indent) {
  ojson groups = ojson::array();
  for (const auto& g : b.groups) {
    ojson rows = ojson::array();
    for (const auto& r : g.rows) rows.push_back(row_json(r));
    groups.push_back({{"suite", g.suite}, {"quick", g.quick}, {"title", g.title}, {"categories", g.categories},
                      {"rows", rows}});
  }
  ojson j{{"schema", "rooflens.leaderboard/1"}, {"source", b.source}, {"latest_only", b.latest_only},
          {"groups", groups}};
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace) + (indent >= 0 ? "\n" : "");
}

std::string leaderboard_html(const Leaderboard& b) {
  std::string_view page = leaderboard_template();
  size_t at = page.find(kReportDataMarker);
  if (at == std::string_view::npos) throw std::logic_error("the HTML leaderboard template has no data marker");
  std::string data = json_for_script(leaderboard_json(b, -1));  // no string in the data can end its element
  std::string out;
  out.reserve(page.size() + data.size());
  out.append(page.substr(0, at)).append(data).append(page.substr(at + kReportDataMarker.size()));
  return out;
}

}  // namespace rooflens
