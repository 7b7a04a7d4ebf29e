#include "cli/score_list.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/history.h"
#include "db/score_store.h"
#include "db/store.h"
#include "reporters/score_leaderboard.h"

namespace rooflens::cli {
namespace {

// A score file from outside: validated as the database's rows are (JSON reader, then the figures a listing shows).
LeaderboardInput read_score_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open it (give a file written by rooflens score -o)");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    ScoreResult r = score_from_json(text.str());
    db::check_score_figures(r, "score result");
    const std::string machine = fingerprint_of(r.machine.machine, nullptr).id;
    return {path, machine, std::move(r)};
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
}

}  // namespace

int run_score_list(const ScoreListOptions& o) {
  std::vector<LeaderboardInput> inputs;
  std::string source;
  if (o.files.empty() || !o.db.empty()) {
    const std::string url = db::resolve_db_url(o.db);
    auto store = db::ResultStore::open(url);
    db::ScoreQuery q{o.suite, o.machine, o.since, o.measured_only};
    for (auto& s : db::load_scores(store->connection(), q))
      inputs.push_back({s.uuid, s.machine, std::move(s.result)});
    source = db::parse_db_url(url).shown;
  }
  for (const auto& f : o.files) {
    LeaderboardInput x = read_score_file(f);
    if ((!o.suite.empty() && x.result.suite != o.suite) || (o.measured_only && x.result.kind != "measured") ||
        (!o.machine.empty() && x.machine.compare(0, o.machine.size(), o.machine) != 0) ||
        (!o.since.empty() && x.result.created_at < o.since))
      continue;
    inputs.push_back(std::move(x));
    source += (source.empty() ? "" : " and ") + f;
  }
  Leaderboard b = build_leaderboard(std::move(inputs), source, !o.all);
  if (!o.html.empty()) {
    write_file_atomically(o.html, leaderboard_html(b));
    if (!o.quiet) std::cerr << "rooflens: leaderboard written to " << o.html << "\n";
  }
  const std::string text = o.json ? leaderboard_json(b) : leaderboard_text(b);
  if (o.output.empty() || o.output == "-") std::cout << text;
  else write_file_atomically(o.output, text);
  return 0;
}

}  // namespace rooflens::cli
