// A report of two backends compared with itself: the second backend's runs against the first's, configuration by
// configuration, layers matched by the ONNX nodes they compute (what the HTML report shows side by side).
#include <gtest/gtest.h>

#include "compare/runtimes.h"
#include "reporters/html_report.h"

using namespace rooflens;

namespace {

Layer conv_layer(const std::string& name, std::vector<std::string> nodes, double ms) {
  Layer l;
  l.name = name;
  l.op = "Conv";
  l.onnx_nodes = std::move(nodes);
  l.time_ms = ms;
  return l;
}

ProfileRun backend_run(const std::string& backend, std::vector<Layer> layers, double ms) {
  ProfileRun r;
  r.backend = backend;
  r.batch = 1;
  r.threads = 2;
  r.latencies_ms = {ms, ms * 1.01, ms * 0.99, ms};
  r.repetitions = {4};
  r.layers = std::move(layers);
  return r;
}

}  // namespace

TEST(CompareRuntimes, SecondBackendAgainstTheFirstByOnnxNode) {
  Report r;
  r.model.name = "m";
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "ort", "onnxruntime", ""},
                BackendInfo{"other", "1", {}, "other runtime", "other", ""}};
  r.runs.push_back(backend_run("onnxruntime", {conv_layer("fused conv1", {"conv1", "relu1"}, 2), conv_layer("fc", {"fc"}, 1)}, 3));
  r.runs.push_back(backend_run("other", {conv_layer("conv1:x", {"conv1", "relu1"}, 6), conv_layer("fc:x", {"fc"}, 0.5)}, 7));
  std::vector<Comparison> cs = compare_backends(r);
  ASSERT_EQ(cs.size(), 1u);
  const Comparison& c = cs[0];
  EXPECT_EQ(c.base.path, "onnxruntime");
  EXPECT_EQ(c.head.path, "other");
  ASSERT_EQ(c.items.size(), 1u);  // the same configuration on both: one item
  EXPECT_EQ(c.items[0].config, "batch=1 threads=2");
  ASSERT_TRUE(c.items[0].latency);
  EXPECT_NEAR(c.items[0].latency->ratio, 7.0 / 3.0, 0.02);
  ASSERT_TRUE(c.items[0].layers);
  const auto& matched = c.items[0].layers->matched;
  ASSERT_EQ(matched.size(), 2u);
  EXPECT_EQ(matched[0].name, "conv1:x");  // largest |delta| first
  EXPECT_EQ(matched[0].base_name, "fused conv1");
  EXPECT_DOUBLE_EQ(matched[0].base_ms, 2);
  EXPECT_DOUBLE_EQ(matched[0].new_ms, 6);

  // The HTML page embeds them next to the report; one backend alone has nothing to compare.
  std::string page = html_report(r, cs);
  EXPECT_NE(page.find("\"runtime_comparisons\":[{"), std::string::npos);
  EXPECT_NE(page.find("\"base_name\": \"fused conv1\""), std::string::npos);
  r.backends.pop_back();
  EXPECT_TRUE(compare_backends(r).empty());
}
