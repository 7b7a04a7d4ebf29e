// The leaderboard model (reporters/score_leaderboard.h): groups per suite × mode, ranks among complete measured
// scores, projected rows labelled and ranked apart, the latest score per machine, and the JSON the page reads.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reporters/score_leaderboard.h"
#include "support/score_builder.h"

using namespace rooflens;
using rooflens::testing::score_result;

namespace {

LeaderboardInput input(const std::string& id, const std::string& machine, ScoreResult r) { return {id, machine, std::move(r)}; }

}  // namespace

TEST(ScoreLeaderboard, QuickAndFullAreSeparateGroupsAndProjectedRanksApart) {
  std::vector<LeaderboardInput> in;
  in.push_back(input("a", "m1", score_result("Slow", 900, {{"fp32 latency", 900}})));
  in.push_back(input("b", "m2", score_result("Fast", 2000, {{"fp32 latency", 2000}})));
  ScoreResult q = score_result("Quick one", 9000, {{"fp32 latency", 9000}});
  q.quick = true;
  in.push_back(input("c", "m3", q));
  ScoreResult p = score_result("Fast", 50000, {{"fp32 latency", 50000}});
  p.kind = "projected";
  p.device = "NVIDIA A100";
  in.push_back(input("d", "m2", p));
  ScoreResult inc = score_result("Broken", 3000, {{"fp32 latency", 3000}});
  inc.overall.incomplete = true;
  in.push_back(input("e", "m4", inc));
  Leaderboard b = build_leaderboard(in, "test.db", true);
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_FALSE(b.groups[0].quick);
  EXPECT_TRUE(b.groups[1].quick);
  const auto& rows = b.groups[0].rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].id, "b");
  EXPECT_EQ(rows[0].rank, "1");
  EXPECT_EQ(rows[1].id, "a");
  EXPECT_EQ(rows[1].rank, "2");
  EXPECT_EQ(rows[2].id, "e");
  EXPECT_EQ(rows[2].rank, "-") << "an incomplete overall covers fewer workloads: no rank";
  EXPECT_EQ(rows[3].id, "d");
  EXPECT_EQ(rows[3].rank, "P1") << "the projection is the highest number yet ranked only among projections";
  EXPECT_EQ(rows[3].label.rfind("PROJECTED NVIDIA A100", 0), 0u) << rows[3].label;
  ASSERT_EQ(b.groups[1].rows.size(), 1u);
  EXPECT_EQ(b.groups[1].rows[0].rank, "1");
  const std::string text = leaderboard_text(b);
  EXPECT_NE(text.find("quick (a subset with shorter runs: never compared with full)"), std::string::npos);
  EXPECT_NE(text.find("3000*"), std::string::npos);
  auto j = nlohmann::json::parse(leaderboard_json(b));
  EXPECT_EQ(j["schema"], "rooflens.leaderboard/1");
  EXPECT_EQ(j["groups"][0]["rows"][3]["kind"], "projected");
  EXPECT_EQ(j["groups"][0]["rows"][0]["overall"]["low"], 2000 * 0.96);
}

TEST(ScoreLeaderboard, TheLatestScoreOfEachMachineUnlessAll) {
  std::vector<LeaderboardInput> in;
  in.push_back(input("old", "m1", score_result("cpu", 1000, {}, "2026-03-01T00:00:00Z")));
  in.push_back(input("new", "m1", score_result("cpu", 1100, {}, "2026-03-02T00:00:00Z")));
  ScoreResult other = score_result("cpu", 1500, {}, "2026-03-01T12:00:00Z");
  other.machine.runtime.version = "1.31.0";  // another runtime on the same machine: its own row
  in.push_back(input("ort131", "m1", other));
  Leaderboard latest = build_leaderboard(in, "db", true);
  ASSERT_EQ(latest.groups[0].rows.size(), 2u);
  EXPECT_EQ(latest.groups[0].rows[0].id, "ort131");
  EXPECT_EQ(latest.groups[0].rows[1].id, "new");
  EXPECT_EQ(build_leaderboard(in, "db", false).groups[0].rows.size(), 3u);
  EXPECT_NE(leaderboard_text(build_leaderboard({}, "db", true)).find("no scores stored"), std::string::npos);
}
