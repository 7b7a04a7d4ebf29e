// Where `rooflens bench` finds models: ONNX test-layout folders (recursively), single files, JSON model lists;
// names, test data sets, --filter, and one-line refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/model_source.h"
#include "core/errors.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::bench;

namespace {

class BenchSources : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("rooflens-sources-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    touch("zoo/a/case1/model.onnx");
    for (int i : {0, 2, 10}) fs::create_directories(root_ / ("zoo/a/case1/test_data_set_" + std::to_string(i)));
    fs::create_directories(root_ / "zoo/a/case1/test_data_set_x");  // not a data set
    touch("zoo/a/case1/extra.onnx");                               // part of the test case, not a model
    touch("zoo/a/case2/only.onnx");
    fs::create_directories(root_ / "zoo/a/case2/test_data_set_0");
    touch("zoo/b/loose.onnx");
    touch("zoo/b/sub/deeper.ONNX");
    fs::create_directories(root_ / "zoo/c/empty_case/test_data_set_0");
    touch("zoo/.hidden/x.onnx");
    touch("zoo/notes.txt");
  }
  void TearDown() override { fs::remove_all(root_); }
  void touch(const std::string& rel) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << "x";
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  std::string p(const std::string& rel) const { return (root_ / rel).string(); }
  static std::vector<std::string> names(const Discovery& d) {
    std::vector<std::string> n;
    for (const auto& m : d.models) n.push_back(m.name);
    return n;
  }
  fs::path root_;
};

}  // namespace

TEST_F(BenchSources, FindsTestCasesAndLooseModelsRecursively) {
  Discovery d = discover_models({p("zoo")}, {});
  EXPECT_EQ(names(d), (std::vector<std::string>{"a/case1", "a/case2", "b/loose", "b/sub/deeper", "c/empty_case"}));
  const BenchModel& c1 = d.models[0];
  EXPECT_EQ(c1.path.filename(), "model.onnx");
  ASSERT_EQ(c1.data_sets.size(), 3u);
  EXPECT_EQ(c1.data_sets[1].filename(), "test_data_set_2");
  EXPECT_EQ(c1.data_sets[2].filename(), "test_data_set_10");  // numeric order, not text order
  EXPECT_EQ(d.models[1].path.filename(), "only.onnx");         // the one .onnx of a test case without model.onnx
  EXPECT_EQ(d.models[1].data_sets.size(), 1u);
  EXPECT_TRUE(d.models[2].data_sets.empty());
  EXPECT_TRUE(d.models[2].skip.empty());
  // Test data without a model is still a model of the zoo: it ends as a skip with the reason.
  EXPECT_EQ(d.models[4].skip_type, "no-model");
  EXPECT_NE(d.models[4].skip.find("no .onnx file"), std::string::npos);
}

TEST_F(BenchSources, NamesStartBelowEachSourceAndASingleTestCaseIsNamedByItsFolder) {
  EXPECT_EQ(names(discover_models({p("zoo/a")}, {})), (std::vector<std::string>{"case1", "case2"}));
  EXPECT_EQ(names(discover_models({p("zoo/a/case1")}, {})), (std::vector<std::string>{"case1"}));
  Discovery file = discover_models({p("zoo/b/loose.onnx")}, {});
  EXPECT_EQ(names(file), (std::vector<std::string>{"loose"}));
  Discovery model = discover_models({p("zoo/a/case1/model.onnx")}, {});
  EXPECT_EQ(names(model), (std::vector<std::string>{"case1"}));
  EXPECT_EQ(model.models[0].data_sets.size(), 3u);
}

TEST_F(BenchSources, FilterKeepsMatchingNames) {
  DiscoveryOptions o;
  o.filter = "case[12]$";
  EXPECT_EQ(names(discover_models({p("zoo")}, o)), (std::vector<std::string>{"a/case1", "a/case2"}));
  o.filter = "^b/";
  EXPECT_EQ(names(discover_models({p("zoo")}, o)), (std::vector<std::string>{"b/loose", "b/sub/deeper"}));
  o.filter = "([";
  EXPECT_THROW(discover_models({p("zoo")}, o), UsageError);
}

TEST_F(BenchSources, RefusesMissingSourcesAndDuplicateNames) {
  try {
    discover_models({p("nope")}, {});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("nope: no such file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(discover_models({p("zoo/a"), p("zoo/a")}, {}), UserError);
}

TEST_F(BenchSources, ModelListEntriesCarryTheirSettings) {
  write("lists/models.json", R"({"models": [
    {"name": "first", "path": "../zoo/b/loose.onnx", "shapes": {"x": [1, 3, 8, 8]}, "dims": {"batch": 2},
     "options": {"graphOptimizationLevel": "basic", "intraOpNumThreads": 1, "enableCpuMemArena": false},
     "rtol": 0.01, "atol": 0.001, "percent_mismatch": 0.5},
    {"model_name": "perf-style", "working_directory": "../zoo/a", "model_path": "case1/model.onnx",
     "test_data_path": "case1"},
    {"path": "../zoo/a/case2/only.onnx", "test_data": "../zoo/a/case2/test_data_set_0"},
    {"path": "../zoo/b/sub/deeper.ONNX", "skip": "needs 40 GB"}
  ]})");
  Discovery d = discover_models({p("lists/models.json")}, {});
  ASSERT_EQ(d.models.size(), 4u);
  const BenchModel& a = d.models[0];
  EXPECT_EQ(a.name, "first");
  EXPECT_EQ(fs::weakly_canonical(a.path), fs::weakly_canonical(root_ / "zoo/b/loose.onnx"));
  EXPECT_EQ(a.shapes.at("x"), (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(a.dims.at("batch"), 2);
  ASSERT_EQ(a.options.size(), 3u);
  EXPECT_EQ(a.options[1], (std::pair<std::string, std::string>{"intraOpNumThreads", "1"}));
  EXPECT_EQ(a.options[2].second, "false");
  EXPECT_DOUBLE_EQ(*a.rtol, 0.01);
  EXPECT_DOUBLE_EQ(*a.percent_mismatch, 0.5);
  EXPECT_EQ(d.models[1].name, "perf-style");  // ONNX Runtime perf-script keys
  EXPECT_EQ(d.models[1].data_sets.size(), 3u);
  EXPECT_EQ(d.models[2].name, "only");
  ASSERT_EQ(d.models[2].data_sets.size(), 1u);  // a test_data_set folder itself
  EXPECT_EQ(d.models[2].data_sets[0].filename(), "test_data_set_0");
  EXPECT_EQ(d.models[3].skip, "needs 40 GB");
  EXPECT_EQ(d.models[3].skip_type, "listed");
}

TEST_F(BenchSources, ModelListRefusesUnknownFieldsAndBadValuesInOneLine) {
  write("bad1.json", R"({"models": [{"path": "x.onnx", "rtool": 0.1}]})");
  try {
    discover_models({p("bad1.json")}, {});
    FAIL();
  } catch (const UserError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("bad1.json: entry 1: unknown field 'rtool'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  write("bad2.json", R"([{"path": "x.onnx", "shapes": {"x": "1x3"}}])");
  EXPECT_THROW(discover_models({p("bad2.json")}, {}), UserError);
  write("bad3.json", R"({"model": []})");
  EXPECT_THROW(discover_models({p("bad3.json")}, {}), UserError);
  write("bad4.json", "{not json");
  EXPECT_THROW(discover_models({p("bad4.json")}, {}), UserError);
  write("bad5.json", R"([{"name": "no path"}])");
  EXPECT_THROW(discover_models({p("bad5.json")}, {}), UserError);
}

TEST_F(BenchSources, TestHooksAreHonouredOnlyWhenEnabled) {
  write("hooks.json", R"([{"name": "boom", "path": "zoo/b/loose.onnx", "test_hook": "segv"}])");
  Discovery off = discover_models({p("hooks.json")}, {});
  EXPECT_TRUE(off.models[0].test_hook.empty());
  ASSERT_EQ(off.notes.size(), 1u);
  EXPECT_NE(off.notes[0].find("ROOFLENS_TEST_HOOKS=1"), std::string::npos);
  DiscoveryOptions on;
  on.test_hooks = true;
  EXPECT_EQ(discover_models({p("hooks.json")}, on).models[0].test_hook, "segv");
  write("badhook.json", R"([{"path": "zoo/b/loose.onnx", "test_hook": "explode"}])");
  EXPECT_THROW(discover_models({p("badhook.json")}, on), UserError);
}
