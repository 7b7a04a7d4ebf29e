// `rooflens db`: the results database itself — `export` writes every session as JSON lines (rooflens.history/1),
// `import` stores such lines (from another database, or a session a failed store saved), `info` says what is in
// it. Moving a machine's history to the fleet's PostgreSQL: rooflens db export | rooflens db import --db postgresql://...
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "db/schema.h"
#include "db/store.h"

namespace rooflens::cli {
namespace {

struct DbArgs {
  std::string db, output;
  std::vector<std::string> inputs;
  bool quiet = false;
};

int run_export(const DbArgs& a) {
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  std::ostringstream text;
  size_t sessions = 0;
  for (const auto& id : store->session_ids()) {
    text << history_session_to_json_line(store->load_session(id)) << "\n";
    ++sessions;
  }
  if (a.output.empty() || a.output == "-") std::cout << text.str();
  else write_file_atomically(a.output, text.str());
  if (!a.quiet)
    std::cerr << "rooflens db export: " << sessions << " session" << (sessions == 1 ? "" : "s") << " from "
              << db::parse_db_url(url).shown << (a.output.empty() || a.output == "-" ? "" : " to " + a.output) << "\n";
  return 0;
}

// Every line is read and checked before the first one is stored: a file with a bad line stores nothing.
std::vector<HistorySession> read_sessions(const std::vector<std::string>& inputs) {
  std::vector<HistorySession> out;
  for (const auto& in : inputs) {
    std::ifstream file;
    if (in != "-") {
      file.open(in, std::ios::binary);
      if (!file) throw UserError(in + ": cannot open it (give a file written by rooflens db export)");
    }
    std::istream& s = in == "-" ? std::cin : file;
    std::string line;
    for (size_t n = 1; std::getline(s, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        out.push_back(history_session_from_json(line));
      } catch (const UserError& e) {
        throw UserError((in == "-" ? std::string("stdin") : in) + ":" + std::to_string(n) + ": " + e.what() +
                        "; nothing was imported");
      }
    }
  }
  return out;
}

int run_import(const DbArgs& a) {
  std::vector<HistorySession> sessions = read_sessions(a.inputs.empty() ? std::vector<std::string>{"-"} : a.inputs);
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  size_t stored = 0, present = 0, runs = 0;
  for (const auto& s : sessions) {
    if (store->store(s)) {
      ++stored;
      runs += s.runs.size();
    } else {
      ++present;
    }
  }
  if (!a.quiet)
    std::cerr << "rooflens db import: " << stored << " session" << (stored == 1 ? "" : "s") << " (" << runs
              << " runs) stored in " << db::parse_db_url(url).shown << ", " << present << " already there\n";
  return 0;
}

int run_info(const DbArgs& a) {
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  db::StoreCounts c = store->counts();
  std::cout << db::parse_db_url(url).shown << ": schema " << db::schema_version(store->connection()) << ", "
            << c.sessions << " sessions, " << c.runs << " runs, " << c.layers << " layers, " << c.machines
            << " machines\n";
  for (const auto& m : store->machines())
    std::cout << "  machine " << m.id << ": " << m.cpu << ", " << m.cores << " cores, " << m.os << "\n";
  return 0;
}

}  // namespace

void setup_db(CLI::App& root, Action& action) {
  auto a = std::make_shared<DbArgs>();
  CLI::App* cmd = root.add_subcommand("db", "The results database: export and import history as JSON lines, info");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  rooflens db export -o history.jsonl                  the default database, every session\n"
      "  rooflens db export | rooflens db import --db postgresql://ci@db/perf   move it to a shared server\n"
      "  rooflens db import ~/.local/share/rooflens/unstored/*.jsonl          store what a failed write kept\n"
      "A session already in the target (same id) is skipped, so importing twice stores once.");
  auto add_db = [&a](CLI::App* sub) {
    sub->add_option("--db", a->db, "Results database (default $ROOFLENS_DB, else $XDG_DATA_HOME/rooflens/results.db)");
    sub->add_flag("-q,--quiet", a->quiet, "Nothing on stderr but errors");
  };
  CLI::App* ex = cmd->add_subcommand("export", "Write every session as one JSON line (rooflens.history/1), oldest first");
  add_db(ex);
  ex->add_option("-o,--output", a->output, "File to write (default: stdout)");
  ex->callback([a, &action] { action = [a] { return run_export(*a); }; });
  CLI::App* im = cmd->add_subcommand("import", "Store sessions from JSON-lines files (default: stdin)");
  add_db(im);
  im->add_option("files", a->inputs, "Files written by rooflens db export ('-' for stdin)");
  im->callback([a, &action] { action = [a] { return run_import(*a); }; });
  CLI::App* info = cmd->add_subcommand("info", "Schema version, counts of sessions, runs and layers, machines");
  add_db(info);
  info->callback([a, &action] { action = [a] { return run_info(*a); }; });
}

}  // namespace rooflens::cli
