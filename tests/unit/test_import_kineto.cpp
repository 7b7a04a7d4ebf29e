// `import kineto` on real PyTorch profiler traces (tests/fixtures/import/kineto/, see SOURCE.md there): every GPU
// activity of the trace is in the measurement, counted here by walking the trace's JSON independently (zlib's gz
// reader and nlohmann, not the importer's code), and kernels sit under the cpu_op that launched them.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "assembly/assemble.h"
#include "core/errors.h"
#include "importers/registry/registry.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using nlohmann::json;

std::string kineto_text(const std::string& rel) {  // gzread reads plain files unchanged, too
  gzFile g = gzopen(test::fixture_path(rel).c_str(), "rb");
  std::string out;
  char buf[1 << 14];
  for (int n; g && (n = gzread(g, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  if (g) gzclose(g);
  return out;
}

std::string kineto_gzip(const std::string& text) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

bool is_kineto_gpu(const json& e) {
  std::string c = e.value("cat", "");
  return e.value("ph", "") == "X" && (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset");
}

using KinetoRead = test::ImportedRun;

KinetoRead read_kineto(const importers::InputFile& f) {
  return test::assembled(importers::find_importer("kineto").read({f}, {}));
}

double kineto_sum_ms(const Measurement& m, size_t iteration) {
  double s = 0;
  for (const auto& k : m.kernels) s += k.per_iteration_ms.at(iteration);
  return s;
}

const KernelRecord& kineto_record(const Measurement& m, const std::string& name) {
  for (const auto& k : m.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no record " + name);
}

TEST(ImportKineto, EveryGpuActivityOfTheGzippedTraceIsCounted) {
  json doc = json::parse(kineto_text("kineto/simple_add.trace.json.gz"));
  size_t count = 0;
  double dur_us = 0, first = 1e300, last = 0;
  std::vector<std::pair<double, double>> spans;
  for (const auto& e : doc["traceEvents"])
    if (is_kineto_gpu(e)) {
      ++count, dur_us += e["dur"].get<double>();
      first = std::min(first, e["ts"].get<double>());
      last = std::max(last, e["ts"].get<double>() + e["dur"].get<double>());
      spans.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
  ASSERT_EQ(count, 98u);  // 79 kernels, 16 memcpys, 3 memsets

  KinetoRead r = read_kineto(test::fixture("kineto/simple_add.trace.json.gz"));
  const Measurement& m = r.in.measurement;
  EXPECT_EQ(m.kernels.size(), count);  // no steps: one iteration, every launch a record of its own
  EXPECT_NEAR(kineto_sum_ms(m, 0), dur_us / 1000.0, 1e-9);
  EXPECT_EQ(m.device_name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(m.kernels.front().device, "cuda:0");
  // Between kernels: the span less the time the GPU was busy (the union of the activities), computed here.
  std::sort(spans.begin(), spans.end());
  double busy = 0, open_s = spans[0].first, open_e = spans[0].second;
  for (auto [s, e] : spans) {
    if (s > open_e) busy += open_e - open_s, open_s = s;
    open_e = std::max(open_e, e);
  }
  busy += open_e - open_s;
  ASSERT_TRUE(r.run.between_kernels_ms.has_value());
  EXPECT_NEAR(*r.run.between_kernels_ms, (last - first - busy) / 1000.0, 1e-6);
  EXPECT_GT(*r.run.between_kernels_ms, 0.0);
}

TEST(ImportKineto, KernelsSitUnderTheCpuOpThatLaunchedThem) {
  const Measurement m = read_kineto(test::fixture("kineto/simple_add.trace.json.gz")).in.measurement;
  // cuDNN's convolution kernel, launched inside aten::cudnn_convolution (under conv2d/convolution/_convolution).
  EXPECT_EQ(kineto_record(m, "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1").op, "aten::cudnn_convolution");
  // The bias add after it: aten::add_ inside aten::_convolution.
  const KernelRecord& add = kineto_record(m, "at::native::elementwise_kernel");
  EXPECT_EQ(add.op, "aten::add_");
  EXPECT_NE(add.implementation.find("CUDAFunctor_add<float>"), std::string::npos);
  EXPECT_EQ(kineto_record(m, "at::native::vectorized_elementwise_kernel").op, "aten::clamp_min_");
  const KernelRecord& copy = kineto_record(m, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(copy.kind, LayerKind::copy);
  EXPECT_EQ(copy.op, "aten::copy_");
  EXPECT_EQ(copy.bytes, 92928u);
}

TEST(ImportKineto, FlowEventsAloneTieKernelsToTheirLaunch) {
  // The same trace with the correlation ids taken off every GPU event: only the ac2g arrows link them.
  json doc = json::parse(kineto_text("kineto/simple_add.trace.json.gz"));
  for (auto& e : doc["traceEvents"])
    if (is_kineto_gpu(e)) e["args"].erase("correlation"), e["args"].erase("External id");
  importers::InputFile f{"flows_only.json", doc.dump()};
  KinetoRead flows = read_kineto(f);
  KinetoRead both = read_kineto(test::fixture("kineto/simple_add.trace.json.gz"));
  ASSERT_EQ(flows.in.measurement.kernels.size(), both.in.measurement.kernels.size());
  size_t linked = 0;
  for (size_t i = 0; i < both.in.measurement.kernels.size(); ++i) {
    EXPECT_EQ(flows.in.measurement.kernels[i].op, both.in.measurement.kernels[i].op) << i;
    linked += !both.in.measurement.kernels[i].op.empty();
  }
  EXPECT_EQ(linked, both.in.measurement.kernels.size());
  EXPECT_NE(flows.in.read.at(0).find(" 98 tied to their launch by flow events alone"), std::string::npos)
      << flows.in.read.at(0);
  EXPECT_EQ(kineto_record(flows.in.measurement, "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1").op,
            "aten::cudnn_convolution");
}

TEST(ImportKineto, ProfilerStepsAreIterationsAndPlainAndGzipReadAlike) {
  std::string text = kineto_text("kineto/profiler_steps.trace.json");
  KinetoRead plain = read_kineto(test::fixture("kineto/profiler_steps.trace.json"));
  KinetoRead zipped = read_kineto({"steps.json.gz", kineto_gzip(text)});
  const Measurement& m = plain.in.measurement;
  ASSERT_EQ(m.profiled_runs_ms.size(), 2u);  // ProfilerStep#1009 and #1010
  EXPECT_EQ(m.latencies_ms, (std::vector<double>{100.298, 122.149}));
  ASSERT_EQ(zipped.in.measurement.kernels.size(), m.kernels.size());
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    EXPECT_EQ(zipped.in.measurement.kernels[i].name, m.kernels[i].name);
    EXPECT_EQ(zipped.in.measurement.kernels[i].per_iteration_ms, m.kernels[i].per_iteration_ms);
  }
  // Independently: each GPU event goes to the step its launch (else itself) started in; the rest is left out.
  json doc = json::parse(text);
  std::map<int64_t, double> launch_ts;
  std::vector<std::pair<double, double>> steps;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "cuda_runtime") launch_ts[e["args"]["correlation"].get<int64_t>()] = e["ts"].get<double>();
    if (e.value("name", "").rfind("ProfilerStep#", 0) == 0) steps.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
  }
  std::sort(steps.begin(), steps.end());
  double in_step[2] = {0, 0}, left_out = 0;
  size_t counted = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (!is_kineto_gpu(e)) continue;
    auto it = launch_ts.find(e["args"]["correlation"].get<int64_t>());
    double t = it != launch_ts.end() ? it->second : e["ts"].get<double>();
    bool placed = false;
    for (size_t s = 0; s < steps.size(); ++s)
      if (steps[s].first <= t && t <= steps[s].second) in_step[s] += e["dur"].get<double>(), placed = true, ++counted;
    if (!placed) left_out += 1;
  }
  EXPECT_NEAR(kineto_sum_ms(m, 0), in_step[0] / 1000.0, 1e-9);
  EXPECT_NEAR(kineto_sum_ms(m, 1), in_step[1] / 1000.0, 1e-9);
  EXPECT_GT(left_out, 0);
  bool warned = false;
  for (const auto& w : m.warnings) warned |= w.rfind(std::to_string(static_cast<int>(left_out)) + " GPU activities", 0) == 0;
  EXPECT_TRUE(warned) << "no warning about the " << left_out << " activities outside the steps";
  EXPECT_NE(plain.in.read.at(0).find(std::to_string(counted) + " GPU activities in 2 ProfilerStep(s)"), std::string::npos)
      << plain.in.read.at(0);
}

TEST(ImportKineto, ACpuOnlyTraceIsRefusedInOneLine) {
  importers::InputFile f = test::fixture("kineto/cpu_only.trace.json.gz");
  try {
    importers::find_importer("kineto").read({f}, {});
    FAIL() << "imported";
  } catch (const UserError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(f.path + ": a CPU-only PyTorch profile (4 cpu_op events", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(ImportKineto, DamagedFilesNameTheField) {
  auto message = [](const std::string& rel) {
    try {
      importers::find_importer("kineto").read({test::fixture(rel)}, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("malformed/kineto/negative_dur.json").find(": traceEvents[11].dur: "), std::string::npos)
      << message("malformed/kineto/negative_dur.json");
  EXPECT_NE(message("malformed/kineto/truncated.json.gz").find("not a complete gzip file"), std::string::npos);
  EXPECT_NE(message("malformed/kineto/kernel_without_name.json").find("traceEvents[11].name: missing"), std::string::npos)
      << message("malformed/kineto/kernel_without_name.json");
}

TEST(ImportKineto, AutoDetectionKnowsGzippedAndPlainTraces) {
  EXPECT_EQ(importers::detect_importer({test::fixture("kineto/simple_add.trace.json.gz")}).name(), "kineto");
  EXPECT_EQ(importers::detect_importer({test::fixture("kineto/profiler_steps.trace.json")}).name(), "kineto");
  EXPECT_EQ(importers::detect_importer({test::fixture("kineto/cpu_only.trace.json.gz")}).name(), "kineto");
}

}  // namespace
}  // namespace rooflens
