// `history --fleet`'s merge (history/fleet_merge.h) on rows built by hand: kept rows grouped by CPU name with their
// machines and nodes, the count of rows each kept one superseded, the summary's counts, task order; and its
// renderings (reporters/fleet_report.h) carry those figures.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/fleet_tags.h"
#include "history/fleet_merge.h"
#include "reporters/fleet_report.h"

using namespace rooflens;

namespace {

FleetStoredRun fleet_merge_run(const std::string& model, const std::string& session, const std::string& machine,
                               const std::string& cpu, const std::map<std::string, std::string>& tags,
                               const std::string& superseded_by = "", const std::string& status = "pass") {
  FleetStoredRun r;
  r.point.model = model;
  r.point.config = "ort";
  r.point.session = session;
  r.point.machine = machine;
  r.point.tags = tags;
  r.point.status = status;
  r.point.latency_ms.n = status == "pass" ? 9 : 0;
  r.point.latency_ms.median = status == "pass" ? 4.25 : 0;
  r.point.superseded_by = superseded_by;
  r.cpu = cpu;
  return r;
}

std::map<std::string, std::string> fleet_merge_tags(const std::string& task, const std::string& attempt,
                                                    const std::string& node) {
  return {{kFleetTag, "F"}, {kTaskTag, task}, {kAttemptTag, attempt}, {kNodeTag, node}};
}

// Task 10 ran twice (attempts 0 and 1, on nodes n3 then n4, same machine); task 2 ran once on another class; task 9
// on a second machine of the first class, with a failure.
FleetStored fleet_merge_input() {
  FleetStored s;
  s.fleet = "F";
  s.database = "db";
  const auto t10a0 = fleet_merge_tags("10", "0", "n3"), t10a1 = fleet_merge_tags("10", "1", "n4"),
             t2 = fleet_merge_tags("2", "0", "n1"), t9 = fleet_merge_tags("9", "0", "n5");
  s.sessions = {{"s10a0", "m1", "Xeon", t10a0}, {"s2", "m2", "Epyc", t2}, {"s10a1", "m1", "Xeon", t10a1},
                {"s9", "m3", "Xeon", t9}};
  s.runs = {fleet_merge_run("resnet", "s10a0", "m1", "Xeon", t10a0, "s10a1"),
            fleet_merge_run("vgg", "s10a0", "m1", "Xeon", t10a0, "s10a1"),
            fleet_merge_run("bert", "s2", "m2", "Epyc", t2),
            fleet_merge_run("resnet", "s10a1", "m1", "Xeon", t10a1),
            fleet_merge_run("vgg", "s10a1", "m1", "Xeon", t10a1),
            fleet_merge_run("alexnet", "s9", "m3", "Xeon", t9, "", "timeout")};
  FleetStoredScore sc;
  sc.uuid = "sc1";
  sc.machine = "m2";
  sc.cpu = "Epyc";
  sc.tags = fleet_merge_tags("11", "1", "n1");
  sc.suite = "v2";
  sc.kind = "measured";
  sc.overall = 1200;
  sc.low = 1150;
  sc.high = 1260;
  FleetStoredScore old = sc;
  old.uuid = "sc0";
  old.tags = fleet_merge_tags("11", "0", "n1");
  old.superseded_by = "sc1";
  s.scores = {old, sc};
  return s;
}

TEST(FleetMerge, KeptRowsGroupByCpuWithWhatTheyReplaced) {
  FleetSummary f = merge_fleet(fleet_merge_input());
  EXPECT_EQ(f.fleet, "F");
  EXPECT_EQ(f.models, 4);
  EXPECT_EQ(f.runs, 4);
  EXPECT_EQ(f.superseded_runs, 2);
  EXPECT_EQ(f.scores, 1);
  EXPECT_EQ(f.superseded_scores, 1);
  EXPECT_EQ(f.sessions, 4);
  EXPECT_EQ(f.statuses.at("pass"), 3);
  EXPECT_EQ(f.statuses.at("timeout"), 1);
  EXPECT_EQ(f.tasks, (std::vector<std::string>{"2", "9", "10", "11"})) << "array indices in numeric order";
  ASSERT_EQ(f.classes.size(), 2u);
  const FleetClass& epyc = f.classes[0];
  const FleetClass& xeon = f.classes[1];
  EXPECT_EQ(epyc.cpu, "Epyc");
  EXPECT_EQ(xeon.cpu, "Xeon");
  EXPECT_EQ(xeon.machines, (std::vector<std::string>{"m1", "m3"}));
  EXPECT_EQ(xeon.nodes, (std::vector<std::string>{"n4", "n5"})) << "the superseded attempt's node n3 is not counted";
  ASSERT_EQ(xeon.runs.size(), 3u);
  EXPECT_EQ(xeon.runs[0].model, "alexnet");
  EXPECT_EQ(xeon.runs[0].status, "timeout");
  EXPECT_EQ(xeon.runs[0].median_ms, 0);
  EXPECT_EQ(xeon.runs[0].superseded, 0);
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(xeon.runs[i].attempt, "1");
    EXPECT_EQ(xeon.runs[i].node, "n4");
    EXPECT_EQ(xeon.runs[i].task, "10");
    EXPECT_EQ(xeon.runs[i].session, "s10a1");
    EXPECT_EQ(xeon.runs[i].superseded, 1);
    EXPECT_EQ(xeon.runs[i].median_ms, 4.25);
  }
  ASSERT_EQ(epyc.runs.size(), 1u);
  ASSERT_EQ(epyc.scores.size(), 1u);
  EXPECT_EQ(epyc.scores[0].uuid, "sc1");
  EXPECT_EQ(epyc.scores[0].attempt, "1");
  EXPECT_EQ(epyc.scores[0].superseded, 1);
}

TEST(FleetMerge, TheRenderingsCarryTheFigures) {
  const FleetSummary f = merge_fleet(fleet_merge_input());
  auto j = nlohmann::json::parse(fleet_to_json(f));
  EXPECT_EQ(j.at("schema").get<std::string>(), kFleetSchema);
  EXPECT_EQ(j.at("summary").at("models").get<int64_t>(), f.models);
  EXPECT_EQ(j.at("summary").at("superseded_runs").get<int64_t>(), f.superseded_runs);
  ASSERT_EQ(j.at("classes").size(), f.classes.size());
  const auto& xeon = j.at("classes")[1];
  EXPECT_EQ(xeon.at("runs").size(), f.classes[1].runs.size());
  EXPECT_EQ(xeon.at("runs")[1].at("attempt").get<std::string>(), f.classes[1].runs[1].attempt);
  EXPECT_EQ(j.at("classes")[0].at("scores")[0].at("overall").get<double>(), 1200);

  const std::string text = fleet_text(f);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), fleet_summary_line(f));
  for (const char* s : {"Xeon", "Epyc", "alexnet", "timeout", "n4", "1150.0", "1260.0"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  EXPECT_EQ(text.find("n3"), std::string::npos) << "the superseded attempt's node\n" << text;
}

}  // namespace
