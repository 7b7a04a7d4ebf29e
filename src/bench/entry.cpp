#include "bench/entry.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "analysis/input_bounds.h"
#include "analysis/int8_weights.h"
#include "core/errors.h"
#include "core/stats.h"
#include "model/loader.h"
#include "validation/tensor_file.h"
#include "stats/order.h"

namespace rooflens::bench {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// Ends an entry early with a verdict (thrown by the steps below, caught once in run_entry).
struct Verdict {
  std::string status, stage, error_type, message;
};

Tolerance tolerance_for(const BenchModel& m, const BenchPlan& plan) {
  Tolerance t = plan.tolerance;
  if (m.rtol) t.rtol = *m.rtol;
  if (m.atol) t.atol = *m.atol;
  if (m.percent_mismatch) t.percent_mismatch = *m.percent_mismatch;
  return t;
}

ShapeOverrides overrides_of(const BenchModel& m) {
  ShapeOverrides o;
  o.shapes = m.shapes;
  o.dims = m.dims;
  o.values = m.values;
  return o;
}

// Inputs for a model without test data: rooflens' own reading of the model gives the symbolic dims, the fixed
// input shapes and the id bounds of embedding inputs; when it cannot read the model, the runner generates from
// its own metadata and the list's shapes/dims (an unresolved dim then ends as an input error naming it).
const FeedSpec& generated_feed(ModelContext& ctx) {
  if (ctx.generated) return *ctx.generated;
  FeedSpec f;
  f.dims = ctx.model.dims;
  f.shapes = ctx.model.shapes;
  f.values = ctx.model.values;
  try {
    Model m = load_model(ctx.model.path.string(), overrides_of(ctx.model));
    GeneratedInputPlan p = plan_generated_inputs(m);
    for (auto& [k, v] : p.dims) f.dims.emplace(k, v);
    for (auto& [k, v] : p.shapes) f.shapes.emplace(k, v);
    f.int_input_max = std::move(p.int_input_max);
    ctx.model_nodes = m.graphs.empty() ? 0 : static_cast<int64_t>(m.graphs[0].nodes.size());
  } catch (const std::exception&) {
  }
  ctx.generated = std::move(f);
  return *ctx.generated;
}

int64_t model_nodes(ModelContext& ctx) {
  if (!ctx.model_nodes) {
    try {
      Model m = load_model(ctx.model.path.string(), overrides_of(ctx.model));
      ctx.model_nodes = m.graphs.empty() ? 0 : static_cast<int64_t>(m.graphs[0].nodes.size());
    } catch (const std::exception&) {
      ctx.model_nodes = 0;  // unknown: metrics then report no fused ratio
    }
  }
  return *ctx.model_nodes;
}

// Sequences, maps and optionals cannot be fed (inputs) or returned for comparison (outputs) by the runner.
void refuse_non_tensors(const ServedModel& s, bool outputs_matter) {
  auto check = [](const std::vector<IoDesc>& list, const std::string& what, const std::string& verb) {
    for (const auto& io : list)
      if (!io.is_tensor)
        throw Verdict{"skip", "load", "non-tensor",
                      what + " '" + io.name + "' is a sequence, map or optional value; rooflens " + verb + " tensors only"};
  };
  check(s.inputs, "input", "feeds");
  if (outputs_matter) check(s.outputs, "output", "compares");
}

std::string data_sets_label(const std::vector<fs::path>& sets) {
  if (sets.size() == 1) return sets[0].filename().string();
  return sets.front().filename().string() + ".." + sets.back().filename().string();
}

// The line a failed validation of an int8 model adds on a CPU whose u8s8 kernels saturate, when the model's weights
// use the full int8 range (core/int8_kernels.h): the likely cause of its deviation, and where to measure it. "" else.
std::string int8_saturation_note(const BenchModel& m, const BenchPlan& plan) {
  if (!u8s8_saturates(plan.isa)) return "";
  std::optional<Int8Weights> w;
  try {
    w = int8_weights(load_model(m.path.string(), overrides_of(m)));
  } catch (const std::exception&) {
    return "";
  }
  if (!w || w->reduced_range()) return "";
  return "; int8 on a CPU without VNNI: ONNX Runtime's u8s8 kernels sum uint8 x int8 pairs in 16 bits, which "
         "saturate with this model's full-range weights (" + std::to_string(w->min) + ".." + std::to_string(w->max) +
         "): a likely cause (rooflens profile measures it against --opt-level disabled; -B "
         "onnxruntime:session.x64quantprecision=1 runs kernels that do not saturate; docs/lint.md, u8s8-saturation)";
}

// A failed validation's verdict: the first failed output, and for an int8 model what this CPU does to it.
Verdict validation_failure(const Validation& v, const Tolerance& tol, const BenchModel& m, const BenchPlan& plan) {
  std::string message = validation_message(v, tol);
  if (validation_error_type(v) == "mismatch") message += int8_saturation_note(m, plan);
  return Verdict{"fail", "validate", validation_error_type(v), message};
}

void validate_with_test_data(const BenchModel& m, const BenchPlan& plan, LiveRunner& runner, BenchEntry& e) {
  Validation v;
  v.reference = data_sets_label(m.data_sets);
  const Tolerance tol = tolerance_for(m, plan);
  for (size_t i = 0; i < m.data_sets.size(); ++i) {
    FeedSpec feed;
    feed.test_data_dir = m.data_sets[i];
    std::vector<TensorValue> got = runner.outputs(feed, plan.timeout);
    std::vector<TensorValue> expected;
    try {
      expected = read_expected_outputs(m.data_sets[i]);
    } catch (const UserError& x) {
      throw Verdict{"fail", "validate", "reference", one_line(x.what())};
    }
    if (expected.empty()) continue;  // inputs only: nothing to compare in this set
    check_outputs(expected, got, tol, static_cast<int64_t>(i), v);
    ++v.data_sets;
  }
  if (v.data_sets == 0) {
    e.message = "not validated: the test data sets hold no output_*.pb";
    return;
  }
  e.validation = v;
  if (!validation_passed(v)) throw validation_failure(v, tol, m, plan);
}

void validate_against_reference(ModelContext& ctx, const EntrySetup& s, LiveRunner& runner, BenchEntry& e) {
  const FeedSpec& feed = generated_feed(ctx);
  if (s.is_reference_config && s.has_other_configs) {
    ctx.reference = runner.outputs(feed, s.plan.timeout);
    ctx.reference_label = s.config_label;
    ctx.reference_tried = true;
    e.message = "no test data: these outputs are the reference for the other configurations";
    return;
  }
  if (!ctx.reference) {
    runner.outputs(feed, s.plan.timeout);  // it must at least run
    e.message = s.has_other_configs ? "not validated: no test data, and the reference configuration failed"
                                    : "not validated: no test data (give a second -B to compare configurations)";
    return;
  }
  Validation v;
  v.reference = "config:" + ctx.reference_label;
  v.data_sets = 1;
  const Tolerance tol = tolerance_for(ctx.model, s.plan);
  check_outputs(*ctx.reference, runner.outputs(feed, s.plan.timeout), tol, 0, v);
  e.validation = v;
  if (!validation_passed(v)) throw validation_failure(v, tol, ctx.model, s.plan);
}

BenchMetrics metrics_of(const Measurement& br, int64_t nodes) {
  BenchMetrics m;
  m.model_nodes = nodes;
  m.kernels = static_cast<int64_t>(br.kernels.size());
  m.fused_ratio = nodes > 0 ? 1.0 - static_cast<double>(m.kernels) / static_cast<double>(nodes) : 0;
  std::map<std::string, ProviderShare> by;
  double total = 0;
  for (const auto& k : br.kernels) {
    ProviderShare& p = by[k.device];
    p.provider = k.device;
    ++p.nodes;
    double t = stats::median_of(k.per_iteration_ms);
    p.time_ms += t;
    total += t;
  }
  for (auto& [name, p] : by) {
    p.time_share = total > 0 ? p.time_ms / total : 0;
    m.providers.push_back(p);
  }
  std::sort(m.providers.begin(), m.providers.end(),
            [](const ProviderShare& a, const ProviderShare& b) { return a.time_ms > b.time_ms; });
  return m;
}

void benchmark(ModelContext& ctx, const EntrySetup& s, LiveRunner& runner, BenchEntry& e) {
  FeedSpec feed;
  if (!ctx.model.data_sets.empty()) feed.test_data_dir = ctx.model.data_sets[0];
  else feed = generated_feed(ctx);
  TimingOptions timing = s.plan.timing;
  timing.layers = timing.layers && s.round == 1;  // metrics come from the first round's profiled run
  Measurement br = runner.measure(feed, timing, s.work_dir, s.plan.timeout);
  e.latencies_ms = br.latencies_ms;
  if (!br.latencies_ms.empty()) e.repetitions = {static_cast<int64_t>(br.latencies_ms.size())};
  e.latency_ms = summarize(br.latencies_ms);
  e.throughput_per_s = br.wall_s > 0 ? static_cast<double>(br.latencies_ms.size()) / br.wall_s : 0;
  e.peak_rss_bytes = br.peak_rss_bytes;
  if (timing.layers && !br.kernels.empty()) e.metrics = metrics_of(br, model_nodes(ctx));
}

Verdict verdict_of(const BackendError& x) {
  const std::string stage = x.stage == "profile" ? "run" : x.stage;
  const std::string msg = one_line(x.detail);
  if (x.kind == "timeout") return {"timeout", stage, "timeout", msg};
  if (x.kind == "died" || x.kind == "not_running") return {"crash", stage, "crash", msg};
  if (!x.error_class.empty()) return {"fail", stage, x.error_class, msg};
  if (x.code == "input" && stage == "run") return {"skip", stage, "input", msg};  // the runner cannot feed it
  return {"fail", stage, x.code.empty() ? "error" : x.code, msg};
}

void run_stages(ModelContext& ctx, const EntrySetup& s, LiveRunner& runner, BenchEntry& e) {
  const BenchModel& m = ctx.model;
  ModelLoad load;
  load.model = m.path;
  load.name = m.name;
  load.options = m.options;
  load.dims = m.dims;
  load.timeout = s.plan.timeout;
  ServedModel served = runner.load(load);
  e.load_ms = served.load_ms;
  refuse_non_tensors(served, s.plan.validates() && s.round == 1);
  if (s.plan.validates() && s.round == 1) {
    if (!m.data_sets.empty()) validate_with_test_data(m, s.plan, runner, e);
    else validate_against_reference(ctx, s, runner, e);
  }
  if (s.plan.benchmarks()) benchmark(ctx, s, runner, e);
  runner.unload();
}

}  // namespace

std::string one_line(const std::string& text, size_t max) {
  std::string out;
  out.reserve(std::min(text.size(), max));
  for (char c : text) {
    char d = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    if (d == ' ' && !out.empty() && out.back() == ' ') continue;
    out += d;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 char
    out = out.substr(0, cut) + "…";
  }
  return out;
}

BenchEntry run_entry(ModelContext& ctx, const EntrySetup& s, LiveRunner& runner) {
  const auto t0 = Clock::now();
  BenchEntry e;
  e.model = ctx.model.name;
  e.model_path = ctx.model.path.string();
  e.config = s.config_label;
  Verdict v{"pass", "", "", ""};
  if (!ctx.model.skip.empty()) {
    v = {"skip", "", ctx.model.skip_type, ctx.model.skip};
  } else {
    try {
      run_stages(ctx, s, runner, e);
    } catch (const Verdict& x) {
      v = x;
      runner.unload();
    } catch (const BackendError& x) {
      v = verdict_of(x);
      e.stderr_tail = v.status == "crash" || v.status == "timeout" ? x.stderr_tail : "";
      if (v.status != "crash" && v.status != "timeout") runner.unload();
    } catch (const std::exception& x) {  // a rooflens bug or resource exhaustion: recorded, the run goes on
      v = {"fail", "run", "internal", one_line(x.what())};
    }
  }
  e.status = v.status;
  e.stage = v.status == "pass" ? "" : v.stage;
  e.error_type = v.error_type;
  if (!v.message.empty()) e.message = v.message;
  e.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return e;
}

void compute_reference(ModelContext& ctx, const BenchPlan& plan, const std::string& label, LiveRunner& runner) {
  if (ctx.reference_tried) return;
  ctx.reference_tried = true;
  try {
    ModelLoad load;
    load.model = ctx.model.path;
    load.name = ctx.model.name;
    load.options = ctx.model.options;
    load.dims = ctx.model.dims;
    load.timeout = plan.timeout;
    runner.load(load);
    ctx.reference = runner.outputs(generated_feed(ctx), plan.timeout);
    ctx.reference_label = label;
    runner.unload();
  } catch (const std::exception&) {
    ctx.reference.reset();
  }
}

}  // namespace rooflens::bench
