#pragma once
// Score results side by side (`rooflens history --scores`, docs/score.md "Side by side"): the leaderboard model
// built once — groups, ranks and labels — and its text, JSON ("rooflens.leaderboard/1") and HTML renderings, so the
// terminal and the page never re-derive a rank or a label.
//
// The rules the model enforces: scores of different suites or modes are never compared — one group per suite ×
// mode (quick | full), each ranked on its own; projected scores are ranked only among projected ones (ranks "P1",
// "P2", ...) and every projected row says PROJECTED and names its device; an incomplete overall (a workload
// INVALID, failed or unsupported) covers fewer workloads, so it gets no rank ("-").
#include <string>
#include <string_view>
#include <vector>

#include "core/score.h"

namespace rooflens {

struct LeaderboardInput {
  std::string id;          // where the score came from: its database row's uuid, or a file name
  std::string machine;     // the machine's fingerprint id (core/history.h)
  ScoreResult result;
};

struct LeaderboardRow {
  std::string id, machine;
  std::string rank;        // "1", "2", ... among complete measured scores; "P1", ... among complete projected; "-"
  std::string label;       // "Intel(R) Xeon(R) · 2 of 2 cores · onnxruntime 1.30.0", "PROJECTED NVIDIA A100 ..."
  ScoreResult result;
};

struct LeaderboardGroup {
  std::string suite;
  bool quick = false;
  std::string title;                    // "suite v1 · full" / "suite v1 · quick (never compared with full)"
  std::vector<std::string> categories;  // in the order the results give them
  std::vector<LeaderboardRow> rows;     // ranked measured, then unranked measured, then projected likewise
};

struct Leaderboard {
  std::string source;                   // the database shown, or the files read
  bool latest_only = true;              // one row per machine × kind × device × runtime: its latest score
  std::vector<LeaderboardGroup> groups; // by suite, full before quick
};

// `latest_only`: of several scores of one machine × kind × device × runtime in a group, the latest (created_at).
Leaderboard build_leaderboard(std::vector<LeaderboardInput> inputs, const std::string& source, bool latest_only);

std::string leaderboard_text(const Leaderboard& b);
std::string leaderboard_json(const Leaderboard& b, int indent = 2);
// One self-contained page (web/scores.html): a table per group with 95% intervals, per row a chart of its
// categories with their roof ratio × efficiency. Opens from file://, no network request.
std::string leaderboard_html(const Leaderboard& b);

}  // namespace rooflens
