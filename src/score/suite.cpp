#include "score/suite.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "score/suite_data.h"

namespace rooflens::score {
namespace {

using json = nlohmann::ordered_json;

// Reading with context: every error names the file and the field.
struct Reader {
  std::string what;

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw UserError(fmt::format("{}: {}: {}", what, field, why));
  }
  const json& at(const json& j, const std::string& key, const std::string& field) const {
    if (!j.is_object()) fail(field, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(field + "." + key, "missing");
    return *it;
  }
  std::string str(const json& j, const std::string& key, const std::string& field) const {
    const json& v = at(j, key, field);
    if (!v.is_string()) fail(field + "." + key, "expected a string");
    return v.get<std::string>();
  }
  double num(const json& j, const std::string& key, const std::string& field, double lo, double hi) const {
    const json& v = at(j, key, field);
    if (!v.is_number()) fail(field + "." + key, "expected a number");
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) fail(field + "." + key, fmt::format("{} is outside [{:g}, {:g}]", x, lo, hi));
    return x;
  }
  int64_t integer(const json& j, const std::string& key, const std::string& field, int64_t lo, int64_t hi) const {
    const json& v = at(j, key, field);
    if (!v.is_number_integer()) fail(field + "." + key, "expected a whole number");
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) fail(field + "." + key, fmt::format("{} is outside [{}, {}]", x, lo, hi));
    return x;
  }
  const json& array(const json& j, const std::string& key, const std::string& field, size_t max) const {
    const json& v = at(j, key, field);
    if (!v.is_array()) fail(field + "." + key, "expected an array");
    if (v.size() > max) fail(field + "." + key, fmt::format("more than {} entries", max));
    return v;
  }
};

constexpr int64_t kMaxDim = 1 << 20;
constexpr size_t kMaxValues = 1 << 16;

ModeSettings read_mode(const Reader& r, const json& j, const std::string& f) {
  ModeSettings m;
  m.repetitions = r.integer(j, "repetitions", f, 1, 100);
  m.offline_seconds = r.num(j, "offline_seconds", f, 0, 3600);
  m.offline_min_queries = r.integer(j, "offline_min_queries", f, 1, 1000000);
  m.generate_requests = r.integer(j, "generate_requests", f, 1, 10000);
  // The p90's early stopping needs 64 queries at least (capacity/loadgen/early_stopping.h): fewer would never pass.
  if (j.contains("latency_queries")) m.latency_queries = r.integer(j, "latency_queries", f, 64, 1000000);
  return m;
}

ModeConstants read_constants(const Reader& r, const json& j, const std::string& f) {
  ModeConstants c;
  c.configuration = r.str(j, "configuration", f);
  const json& p = r.at(j, "provisional", f);
  if (!p.is_boolean()) r.fail(f + ".provisional", "expected true or false");
  c.provisional = p.get<bool>();
  const json& h = r.at(j, "harness", f);
  if (!h.is_object()) r.fail(f + ".harness", "expected an object of texts");
  for (const auto& [k, v] : h.items()) c.harness[k] = r.str(h, k, f + ".harness");
  return c;
}

FigureReference read_figure(const Reader& r, const json& v, const std::string& f) {
  FigureReference fr;
  fr.time_ms = r.num(v, "time_ms", f, 0, 1e9);
  fr.roof_time_ms = r.num(v, "roof_time_ms", f, 0, 1e9);
  return fr;
}

// A workload's constants: by mode ({"full": {metric: ...}, "quick": {...}}), or — suite v1's layout — by metric
// alone, which v1 scored both modes against.
FigureConstants read_figures(const Reader& r, const WorkloadDef& w, const json& figs, const std::string& f) {
  if (!figs.is_object()) r.fail(f, "expected an object by mode");
  const auto metrics = metrics_of(w);
  auto metric = [&](const std::string& m, const std::string& at) {
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end())
      r.fail(at, "not a metric of a " + w.kind + " workload");
  };
  FigureConstants out;
  const bool by_mode = figs.contains("full") || figs.contains("quick");
  if (!by_mode) {
    for (const auto& [m, v] : figs.items()) {
      metric(m, f + "." + m);
      out["full"][m] = out["quick"][m] = read_figure(r, v, f + "." + m);
    }
    return out;
  }
  for (const auto& [mode, by_metric] : figs.items()) {
    if (mode != "full" && mode != "quick") r.fail(f + "." + mode, "not a mode (full, quick)");
    if (!by_metric.is_object()) r.fail(f + "." + mode, "expected an object by metric");
    for (const auto& [m, v] : by_metric.items()) {
      metric(m, f + "." + mode + "." + m);
      out[mode][m] = read_figure(r, v, f + "." + mode + "." + m);
    }
  }
  return out;
}

OutputSample read_output(const Reader& r, const json& j, const std::string& f) {
  OutputSample o;
  o.name = r.str(j, "name", f);
  o.data_type = static_cast<int32_t>(r.integer(j, "data_type", f, 1, 1));  // float
  for (const auto& d : r.array(j, "shape", f, 8)) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > kMaxDim)
      r.fail(f + ".shape", "dims must be whole numbers in [0, 2^20]");
    o.shape.push_back(d.get<int64_t>());
  }
  o.stride = r.integer(j, "stride", f, 1, int64_t{1} << 40);
  for (const auto& v : r.array(j, "values", f, kMaxValues)) {
    if (!v.is_number()) r.fail(f + ".values", "expected numbers");
    o.values.push_back(v.get<double>());
  }
  return o;
}

WorkloadDef read_workload(const Reader& r, const json& j, const std::string& f) {
  WorkloadDef w;
  w.id = r.str(j, "id", f);
  const std::string wf = "workload '" + w.id + "'";
  w.kind = r.str(j, "kind", wf);
  if (w.kind != "served" && w.kind != "decoder") r.fail(wf + ".kind", "'" + w.kind + "' is not served or decoder");
  w.model = r.str(j, "model", wf);
  w.precision = r.str(j, "precision", wf);
  if (w.precision != "fp32" && w.precision != "int8" && w.precision != "fp16")
    r.fail(wf + ".precision", "'" + w.precision + "' is not fp32, int8 or fp16");
  const json& q = r.at(j, "quick", wf);
  if (!q.is_boolean()) r.fail(wf + ".quick", "expected true or false");
  w.quick = q.get<bool>();
  w.seed = static_cast<uint64_t>(r.integer(j, "seed", wf, 0, int64_t{1} << 53));
  w.image = r.integer(j, "image", wf, 0, 4096);
  w.seq = r.integer(j, "seq", wf, 0, 65536);
  const json& d = r.at(j, "decoder", wf);
  if (!d.is_object()) r.fail(wf + ".decoder", "expected an object");
  for (const auto& [k, v] : d.items()) {
    static const std::set<std::string> known{"layers", "hidden", "heads", "kv_heads", "ffn", "vocab"};
    if (!known.count(k)) r.fail(wf + ".decoder." + k, "not one of layers, hidden, heads, kv_heads, ffn, vocab");
    w.decoder[k] = r.integer(d, k, wf + ".decoder", 1, 1 << 20);
  }
  w.prompt = r.integer(j, "prompt", wf, 0, 65536);
  w.gen = r.integer(j, "gen", wf, 0, 65536);
  if (w.kind == "decoder" && (w.prompt < 1 || w.gen < 1)) r.fail(wf, "a decoder needs prompt and gen of at least 1");
  if (j.contains("test_hook")) w.test_hook = r.str(j, "test_hook", wf);
  if (j.contains("reduce_range")) {
    const json& rr = j.at("reduce_range");
    if (!rr.is_boolean()) r.fail(wf + ".reduce_range", "expected true or false");
    if (w.precision != "int8") r.fail(wf + ".reduce_range", "only an int8 workload is quantized");
    w.reduce_range = rr.get<bool>();
  }
  const json& ref = r.at(j, "reference", wf);
  const std::string rf = wf + ".reference";
  for (const auto& o : r.array(ref, "outputs", rf, 64)) w.outputs.push_back(read_output(r, o, rf + ".outputs"));
  for (const auto& seq : r.array(ref, "tokens", rf, 64)) {
    if (!seq.is_array() || seq.size() > kMaxValues) r.fail(rf + ".tokens", "expected arrays of token ids");
    std::vector<int64_t> ids;
    for (const auto& t : seq) {
      if (!t.is_number_integer()) r.fail(rf + ".tokens", "token ids must be whole numbers");
      ids.push_back(t.get<int64_t>());
    }
    w.tokens.push_back(std::move(ids));
  }
  w.figures = read_figures(r, w, r.at(ref, "figures", rf), rf + ".figures");
  return w;
}

json output_json(const OutputSample& o) {
  return json{{"name", o.name}, {"data_type", o.data_type}, {"shape", o.shape}, {"stride", o.stride}, {"values", o.values}};
}

}  // namespace

std::vector<std::string> metrics_of(const WorkloadDef& w) {
  if (w.kind == "decoder") return {"prefill", "decode"};
  return {"latency", "throughput"};
}

std::string unit_of(const std::string& metric) {
  if (metric == "latency") return "ms";
  if (metric == "throughput") return "samples/s";
  return "tokens/s";
}

std::string mode_name(bool quick) { return quick ? "quick" : "full"; }

const FigureReference* reference_of(const WorkloadDef& w, bool quick, const std::string& metric) {
  auto mode = w.figures.find(mode_name(quick));
  if (mode == w.figures.end()) return nullptr;
  auto it = mode->second.find(metric);
  return it == mode->second.end() ? nullptr : &it->second;
}

ScoreFigure figure_of(const WorkloadDef& w, const std::string& metric, bool quick) {
  ScoreFigure f;
  f.metric = metric;
  f.category = category_of(w, metric);
  f.unit = unit_of(metric);
  if (const FigureReference* ref = reference_of(w, quick, metric)) {
    f.reference_time_ms = ref->time_ms;
    f.reference_roof_time_ms = ref->roof_time_ms;
  }
  return f;
}

std::string category_of(const WorkloadDef& w, const std::string& metric) {
  if (w.kind == "decoder") return "generative";
  return w.precision + " " + metric;
}

Suite parse_suite(const std::string& text, const std::string& what) {
  const Reader r{what};
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError(what + ": not a rooflens suite file (invalid JSON)");
  Suite s;
  s.version = r.str(j, "suite", "suite");
  s.reference_configuration = r.str(j, "reference_configuration", "suite");
  if (j.contains("reference_roofs")) {
    try {
      s.reference_roofs = hardware_from_json(j.at("reference_roofs").dump());
    } catch (const UserError& e) {
      r.fail("suite.reference_roofs", e.what());
    }
  }
  for (const auto& c : r.array(j, "categories", "suite", 64)) {
    if (!c.is_string()) r.fail("suite.categories", "expected names");
    s.categories.push_back(c.get<std::string>());
  }
  const json& tol = r.at(j, "tolerances", "suite");
  if (!tol.is_object()) r.fail("suite.tolerances", "expected an object by precision");
  for (const auto& [p, t] : tol.items()) {
    Tolerance x;
    x.rtol = r.num(t, "rtol", "tolerances." + p, 0, 1e6);
    x.atol = r.num(t, "atol", "tolerances." + p, 0, 1e6);
    x.percent_mismatch = r.num(t, "percent_mismatch", "tolerances." + p, 0, 100);
    s.tolerances[p] = x;
  }
  s.full = read_mode(r, r.at(j, "full", "suite"), "full");
  s.quick = read_mode(r, r.at(j, "quick", "suite"), "quick");
  if (j.contains("constants")) {
    const json& c = j.at("constants");
    if (!c.is_object()) r.fail("suite.constants", "expected an object by mode");
    for (const auto& [mode, v] : c.items()) {
      if (mode != "full" && mode != "quick") r.fail("suite.constants." + mode, "not a mode (full, quick)");
      s.constants[mode] = read_constants(r, v, "suite.constants." + mode);
    }
  }
  std::set<std::string> ids;
  for (const auto& w : r.array(j, "workloads", "suite", 256)) {
    s.workloads.push_back(read_workload(r, w, "workloads[]"));
    const WorkloadDef& d = s.workloads.back();
    if (!ids.insert(d.id).second) r.fail("workload '" + d.id + "'", "id given twice");
    if (d.precision != "fp16" && !s.tolerances.count(d.precision))
      r.fail("workload '" + d.id + "'", "no tolerance for precision " + d.precision);
    for (const auto& m : metrics_of(d))
      if (std::find(s.categories.begin(), s.categories.end(), category_of(d, m)) == s.categories.end() &&
          d.precision != "fp16")
        r.fail("workload '" + d.id + "'", "its category '" + category_of(d, m) + "' is not in suite.categories");
  }
  return s;
}

std::string suite_to_json(const Suite& s) {
  json j{{"suite", s.version}, {"reference_configuration", s.reference_configuration}, {"categories", s.categories}};
  json tol = json::object();
  for (const auto& [p, t] : s.tolerances)
    tol[p] = json{{"rtol", t.rtol}, {"atol", t.atol}, {"percent_mismatch", t.percent_mismatch}};
  j["tolerances"] = tol;
  auto mode = [](const ModeSettings& m) {
    return json{{"repetitions", m.repetitions}, {"offline_seconds", m.offline_seconds},
                {"offline_min_queries", m.offline_min_queries}, {"generate_requests", m.generate_requests},
                {"latency_queries", m.latency_queries}};
  };
  j["full"] = mode(s.full);
  j["quick"] = mode(s.quick);
  json constants = json::object();
  for (const auto& [name, c] : s.constants) {
    json harness = json::object();
    for (const auto& [k, v] : c.harness) harness[k] = v;
    constants[name] = json{{"configuration", c.configuration}, {"provisional", c.provisional}, {"harness", harness}};
  }
  if (!s.constants.empty()) j["constants"] = constants;
  json ws = json::array();
  for (const auto& w : s.workloads) {
    json figs = json::object();
    for (const auto& [mode_key, by_metric] : w.figures) {
      json m = json::object();
      for (const auto& [metric, f] : by_metric) m[metric] = json{{"time_ms", f.time_ms}, {"roof_time_ms", f.roof_time_ms}};
      figs[mode_key] = m;
    }
    json outs = json::array();
    for (const auto& o : w.outputs) outs.push_back(output_json(o));
    json dec = json::object();
    for (const auto& [k, v] : w.decoder) dec[k] = v;
    ws.push_back(json{{"id", w.id}, {"kind", w.kind}, {"model", w.model}, {"precision", w.precision},
                      {"quick", w.quick}, {"seed", w.seed}, {"image", w.image}, {"seq", w.seq}, {"decoder", dec},
                      {"prompt", w.prompt}, {"gen", w.gen},
                      {"reference", json{{"figures", figs}, {"outputs", outs}, {"tokens", w.tokens}}}});
    if (!w.test_hook.empty()) ws.back()["test_hook"] = w.test_hook;
    if (w.precision == "int8") ws.back()["reduce_range"] = w.reduce_range;
  }
  j["workloads"] = ws;
  if (s.reference_roofs) j["reference_roofs"] = json::parse(hardware_to_json(*s.reference_roofs));
  return j.dump(1) + "\n";
}

const Suite& builtin_suite() {
  static const Suite s = parse_suite(std::string(builtin_suite_json()), "the built-in suite (data/score/v2/suite.json)");
  return s;
}

}  // namespace rooflens::score
