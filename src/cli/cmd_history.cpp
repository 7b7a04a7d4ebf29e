// `rooflens history`: the results database as trends (model × configuration × machine) with change points, in
// the terminal, as JSON or as an HTML page of trend charts; `--check` is the CI gate: the latest run of each trend
// against the runs before it on this machine, exit 1 on a significant regression.
#include <chrono>
#include <ctime>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/db_flags.h"
#include "cli/fleet_view.h"
#include "cli/score_list.h"
#include "compare/compare.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "db/store.h"
#include "history/trends.h"
#include "reporters/history_report.h"

namespace rooflens::cli {
namespace {

struct HistoryArgs {
  std::string db, model, config, machine, since, html, output;
  std::vector<std::string> tags;
  bool check = false, json = false, quiet = false;
  int last = 10, min_runs = 3, points = 10;
  double alpha = 0.05;
  std::string threshold = "5%";
  std::string memory_threshold = "10%";
  // --scores: score results side by side instead of trends (cli/score_list.h).
  bool scores = false, all = false, measured_only = false;
  std::string suite;
  std::vector<std::string> score_files;
  std::string fleet;  // --fleet ID: one fleet run's merged result instead of trends (cli/fleet_view.h)
};

// --since: YYYY-MM-DD, a full ISO 8601 UTC time, or a span back from now (30m, 12h, 7d, 2w).
std::string since_of(const std::string& text) {
  if (text.empty()) return "";
  if (text.size() == 10 && text[4] == '-' && text[7] == '-') return text + "T00:00:00Z";
  if (text.size() >= 20 && text[10] == 'T') return text;
  size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
  }
  static const std::map<std::string, long long> unit{{"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 7 * 86400}};
  auto u = unit.find(text.substr(used));
  if (n < 0 || used == 0 || u == unit.end())
    throw UsageError("--since expects YYYY-MM-DD, an ISO 8601 UTC time or a span such as 12h, 7d, 2w; got '" + text + "'");
  std::time_t t = std::time(nullptr) - static_cast<std::time_t>(n * u->second);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

// --machine: "this" (the default for --check), a machine id or a prefix of one known to the database.
std::string machine_of(const std::string& flag, bool check, db::ResultStore& store) {
  std::string want = flag.empty() && check ? "this" : flag;
  if (want.empty()) return "";
  if (want == "this") return this_machine(nullptr).id;
  std::string found;
  for (const auto& m : store.machines())
    if (m.id.compare(0, want.size(), want) == 0) {
      if (!found.empty()) throw UsageError("--machine " + want + " matches several machines; give more of its id");
      found = m.id;
    }
  if (found.empty()) throw UserError("--machine " + want + ": no such machine in the database (rooflens history lists them)");
  return found;
}

// --scores: the leaderboard of stored score results. The trend options mean nothing there.
int run_scores_view(const HistoryArgs& a) {
  if (a.check || !a.model.empty() || !a.config.empty() || !a.tags.empty())
    throw UsageError("--scores lists score results: --check, --model, --config and --tag are trend options");
  ScoreListOptions o;
  o.db = a.db;
  o.machine = a.machine == "this" ? this_machine(nullptr).id : a.machine;
  o.since = since_of(a.since);
  o.suite = a.suite;
  o.files = a.score_files;
  o.measured_only = a.measured_only;
  o.all = a.all;
  o.json = a.json;
  o.html = a.html;
  o.output = a.output;
  o.quiet = a.quiet;
  return run_score_list(o);
}

// --fleet: what one fleet run stored, merged. It reads every run of the fleet, whatever machine or time: the
// filters and the gate are trend options.
int run_fleet_merged_view(const HistoryArgs& a) {
  if (a.scores || a.check || !a.model.empty() || !a.config.empty() || !a.machine.empty() || !a.since.empty() ||
      !a.tags.empty() || !a.html.empty() || a.all || a.measured_only || !a.suite.empty() || !a.score_files.empty())
    throw UsageError("--fleet shows one fleet run whole: it takes --db, --json and -o only");
  return run_fleet_view(FleetViewOptions{a.db, a.fleet, a.json, a.output});
}

int run_history_command(const HistoryArgs& a) {
  if (!a.fleet.empty()) return run_fleet_merged_view(a);
  if (a.scores) return run_scores_view(a);
  if (a.all || a.measured_only || !a.suite.empty() || !a.score_files.empty())
    throw UsageError("--all, --measured-only, --suite and --score-file go with --scores");
  db::HistoryQuery q;
  q.since = since_of(a.since);
  for (const auto& t : a.tags) {
    auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--tag expects key=value, got '" + t + "'");
    q.tags.emplace_back(t.substr(0, eq), t.substr(eq + 1));
  }
  CheckOptions co;
  co.last = a.last;
  co.min_runs = a.min_runs;
  co.alpha = a.alpha;
  co.threshold = parse_threshold(a.threshold);
  co.memory_threshold = parse_threshold(a.memory_threshold);
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  const std::string machine = machine_of(a.machine, a.check, *store);
  q.machine = machine;
  Trends t = build_trends(store->points(q), TrendFilter{a.model, a.config}, co.alpha, co.threshold);
  t.database = db::parse_db_url(url).shown;
  for (const auto& m : store->machines())
    for (const auto& s : t.series)
      if (s.machine == m.id) {
        t.machines.push_back(m);
        break;
      }
  if (a.check) {
    check_latest(t, machine, co);
    if (t.checks.empty())
      throw UserError("history --check: no runs of machine " + machine + " in " + t.database +
                      " match (store some with rooflens profile/bench --db, or give --machine)");
  }
  if (!a.html.empty()) {
    write_file_atomically(a.html, history_html(t));
    if (!a.quiet) std::cerr << "rooflens history: HTML written to " << a.html << "\n";
  }
  const std::string text = a.json ? trends_to_json(t) : trends_text(t, TrendTextOptions{static_cast<size_t>(a.points)});
  if (a.output.empty() || a.output == "-") std::cout << text;
  else write_file_atomically(a.output, text);
  if (a.check && check_fails(t)) {
    for (const auto& c : t.checks)
      if (c.memory_verdict == verdict::kRegression)
        std::cerr << "rooflens: history --check: memory regression: " << c.model << " "
                  << config_label(c.config, c.options) << " on machine " << c.machine.substr(0, 8)
                  << fmt::format(" (peak RSS {:+.1f}%: {:.1f} MB against a median of {:.1f} MB over the last {} runs)",
                                 c.memory_change * 100, static_cast<double>(c.latest_peak_rss_bytes) / 1e6,
                                 static_cast<double>(c.baseline_peak_rss_bytes) / 1e6, c.baseline_runs)
                  << "\n";
    for (const auto& c : t.checks)
      if (c.verdict == verdict::kRegression || c.verdict == verdict::kNewFailure)
        std::cerr << "rooflens: history --check: " << c.verdict << ": " << c.model << " "
                  << config_label(c.config, c.options) << " on machine " << c.machine.substr(0, 8)
                  << (c.verdict == verdict::kRegression
                          ? fmt::format(" ({:+.1f}%{} against the last {} runs)", c.change * 100,
                                        c.reference.empty() ? "" : " in the ratio to " + c.reference, c.baseline_runs)
                          : ": " + c.error)
                  << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void setup_history(CLI::App& root, Action& action) {
  auto a = std::make_shared<HistoryArgs>();
  CLI::App* cmd = root.add_subcommand(
      "history", "Trends of stored results (model × configuration × machine) with change points; --check: the CI gate");
  cmd->footer(
      "Examples:\n"
      "  rooflens history                                   every trend in the default database\n"
      "  rooflens history --model resnet --since 7d --html trends.html\n"
      "  rooflens history --db postgresql://ci@db/perf --tag branch=main --machine 3f2a\n"
      "  rooflens profile m.onnx --repeat 5 --commit $SHA && rooflens history --check --model '^m$'   (CI gate)\n"
      "  rooflens history --scores --html scores.html          score results side by side (docs/score.md)\n"
      "  rooflens history --fleet bench-20261129T001500Z-a1b2 --db postgresql://ci@db/perf   one fleet run, merged\n"
      "Timings are compared only within one machine (its fingerprint: CPU, cores, memory, OS). --check judges each\n"
      "trend's latest run (this machine's latest session) against up to --last earlier runs: Student's t of its\n"
      "centre (the median of its repetition medians) against theirs, on logs; exit 1 on a significant\n"
      "regression beyond --threshold or a new failure, naming model and configuration. See docs/history.md.");
  cmd->add_option("--db", a->db, "Results database (default $ROOFLENS_DB, else $XDG_DATA_HOME/rooflens/results.db)");
  cmd->add_option("--model", a->model, "Only models whose name matches this regular expression");
  cmd->add_option("--config", a->config, "Only configurations (label with backend options) matching this regex");
  cmd->add_option("--machine", a->machine, "Only this machine: an id (or a prefix) or 'this' (default for --check)");
  cmd->add_option("--since", a->since, "Only sessions since YYYY-MM-DD, an ISO 8601 UTC time, or 12h/7d/2w ago");
  cmd->add_option("--tag", a->tags, "Only sessions tagged key=value (repeatable: all must match)");
  cmd->add_flag("--check", a->check, "Judge each trend's latest run against the runs before it; exit 1 on a regression");
  cmd->add_option("--last", a->last, "--check: earlier runs to judge against, at most (default 10)")->check(CLI::Range(2, 100000));
  cmd->add_option("--min-runs", a->min_runs, "--check: fewer earlier runs than this is insufficient history (default 3)")
      ->check(CLI::Range(2, 100000));
  cmd->add_option("--alpha", a->alpha, "Significance level (default 0.05)")->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--threshold", a->threshold, "Smallest change that counts: 5% or 0.05 (default 5%)");
  cmd->add_option("--memory-threshold", a->memory_threshold,
                  "--check: a peak memory this much above the earlier runs' median (and above each of them) is a "
                  "memory regression (default 10%)");
  cmd->add_option("--points", a->points, "Runs listed per trend, most recent first (default 10; 0: table only)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--html", a->html, "Also write the trends as one self-contained HTML page of charts");
  cmd->add_flag("--json", a->json, "Print the trends (rooflens.trends/1) as JSON instead of the tables");
  cmd->add_option("-o,--output", a->output, "Write the tables (or the JSON) to FILE instead of stdout");
  cmd->add_option("--fleet", a->fleet,
                  "One fleet run merged (every task tagged fleet=ID): its kept runs and scores by machine class, the "
                  "attempt each kept and how many it superseded");
  cmd->add_flag("--scores", a->scores,
                "Score results (rooflens score) side by side instead of trends: overall, categories, 95% CIs, roof "
                "ratio × efficiency; one group per suite × quick/full, projected scores labelled and ranked apart");
  cmd->add_option("--suite", a->suite, "--scores: only this suite version (v1)");
  cmd->add_option("--score-file", a->score_files, "--scores: also list this score result (score -o FILE; repeatable)");
  cmd->add_flag("--all", a->all, "--scores: every stored score, not only each machine's latest");
  cmd->add_flag("--measured-only", a->measured_only, "--scores: leave projected scores out");
  cmd->add_flag("-q,--quiet", a->quiet, "Nothing on stderr but errors");
  cmd->callback([a, &action] { action = [a] { return run_history_command(*a); }; });
}

}  // namespace rooflens::cli
