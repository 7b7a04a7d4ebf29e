// Neural Engine profiles -> Measurement. The trace JSON times every operator in every iteration (dur = reshape +
// forward, µs) and names its tensors; the CSV gives one latency per operator (ms), its post op (a fused
// activation or sum) and weight shape. With both, times come from the trace and the post ops from the CSV.
// Tensor names are the ONNX model's with a ":0" suffix, so the operators and their tensors form an executed graph
// the mapper can walk (an InnerProduct named "Add_37" owns the MatMul and the Add it computes).
#include "importers/neural_engine/neural_engine.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

constexpr const char* kVerboseHeader = "operator type,post op,operator name";

std::string strip_port(const std::string& t) {
  std::string s = trim(t);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ":0") == 0) s.resize(s.size() - 2);
  return s;
}

std::vector<std::string> names(const std::string& list, char sep) {
  std::vector<std::string> out;
  for (const auto& n : split(list, sep))
    if (!trim(n).empty()) out.push_back(strip_port(n));
  return out;
}

std::string ne_dtype(const std::string& t) {
  std::string d = lower(trim(t));
  if (d == "fp32" || d == "f32") return "float";
  if (d == "bf16") return "bfloat16";
  if (d == "s8") return "int8";
  if (d == "u8") return "uint8";
  if (d == "s32") return "int32";
  return onnx_dtype(d);
}

struct Op {
  std::string type, post_op, name;
  std::vector<std::string> inputs, outputs, input_dtypes, output_dtypes;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
  std::vector<double> per_iteration_ms;
  double start_ms = 0;
};

std::vector<std::vector<int64_t>> shapes(const std::string& list, char list_sep, char dim_sep, const Where& w) {
  std::vector<std::vector<int64_t>> out;
  if (trim(list).empty()) return out;
  for (const auto& s : split(list, list_sep)) {
    auto d = parse_dims(s, dim_sep);
    if (!d) fail(w, "'" + s.substr(0, 60) + "' is not a shape");
    out.push_back(*d);
  }
  return out;
}

struct CsvResult {
  std::vector<Op> ops;
  std::optional<double> total_ms;
};

CsvResult parse_csv(const InputFile& f) {
  CsvResult out;
  auto lines = lines_of(f.text);
  size_t row = 0;
  while (row < lines.size() && lines[row].rfind(kVerboseHeader, 0) != 0) ++row;
  if (row == lines.size()) throw UserError(f.path + ": no '" + std::string(kVerboseHeader) + ",...' header (not a Neural Engine profiling CSV)");
  for (++row; row < lines.size(); ++row) {
    Where w{f.path, "line " + std::to_string(row + 1)};
    auto c = csv_fields(lines[row], ',');
    if (c.size() == 1 && trim(c[0]).empty()) continue;
    if (c.size() < 13) fail(w, "expected at least 13 comma-separated fields, got " + std::to_string(c.size()));
    if (trim(c[0]).empty()) {  // the totals rows
      if (trim(c[11]) == "total latency(ms)") {
        auto t = parse_nonneg(c[12]);
        if (!t) fail(w.at("total latency(ms)"), "not a number");
        out.total_ms = t;
      }
      continue;
    }
    Op op;
    op.type = trim(c[0]);
    op.post_op = trim(c[1]);
    op.name = trim(c[2]);
    op.inputs = names(c[3], ';');
    op.input_shapes = shapes(c[4], ';', 'x', w.at("input shape"));
    for (const auto& d : split(c[5], ';')) op.input_dtypes.push_back(ne_dtype(d));
    op.outputs = names(c[6], ';');
    op.output_shapes = shapes(c[7], ';', 'x', w.at("output shape"));
    for (const auto& d : split(c[8], ';')) op.output_dtypes.push_back(ne_dtype(d));
    auto lat = parse_nonneg(c[12]);
    if (!lat) fail(w.at("operator latency (ms)"), "'" + trim(c[12]).substr(0, 40) + "' is not a number >= 0");
    op.per_iteration_ms = {*lat};
    out.ops.push_back(std::move(op));
  }
  if (out.ops.empty()) throw UserError(f.path + ": no operator rows after the header");
  return out;
}

// Trace: {"traceEvents":[{cat:"inference",name:"model_inference"}, {cat:"iteration",name:"IterationN",ts,dur},
// {cat:<op type>,name:<op>,tid:"Operator",ts,dur,args:{...}}]} — ts/dur in µs.
std::vector<Op> parse_trace(const InputFile& f, std::vector<double>& iterations_ms) {
  json doc = parse_json(f);
  Where w{f.path, ""};
  const json* events = doc.is_object() ? optional_member(doc, "traceEvents") : &doc;
  if (!events) fail(w.at("traceEvents"), "missing");
  array_at(*events, w.at("traceEvents"));
  struct Iter {
    double ts, dur;
  };
  std::vector<Iter> iters;
  for (size_t i = 0; i < events->size(); ++i) {
    const json& e = object_at((*events)[i], w.at("traceEvents").at(i));
    const json* cat = optional_member(e, "cat");
    if (cat && cat->is_string() && cat->get<std::string>() == "iteration") {
      Where at = w.at("traceEvents").at(i);
      iters.push_back({nonneg_at(member(e, "ts", at), at.at("ts")), nonneg_at(member(e, "dur", at), at.at("dur"))});
      iterations_ms.push_back(iters.back().dur / 1000.0);
    }
  }
  std::stable_sort(iters.begin(), iters.end(), [](const Iter& a, const Iter& b) { return a.ts < b.ts; });
  std::vector<Op> ops;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    Where at = w.at("traceEvents").at(i);
    const json* tid = optional_member(e, "tid");
    if (!tid || !tid->is_string() || tid->get<std::string>() != "Operator") continue;
    std::string name = string_at(member(e, "name", at), at.at("name"));
    double ts = nonneg_at(member(e, "ts", at), at.at("ts")), dur = nonneg_at(member(e, "dur", at), at.at("dur"));
    // The last iteration that started at or before ts (0 when the trace has none); iterations are sorted.
    size_t iter = static_cast<size_t>(
        std::upper_bound(iters.begin(), iters.end(), ts + 1e-3, [](double t, const Iter& x) { return t < x.ts; }) -
        iters.begin());
    iter = iter > 0 ? iter - 1 : 0;
    auto [it, fresh] = index.emplace(name, ops.size());
    if (fresh) {
      Op op;
      op.name = name;
      if (const json* c = optional_member(e, "cat")) op.type = string_at(*c, at.at("cat"));
      op.per_iteration_ms.assign(std::max<size_t>(iters.size(), 1), 0.0);
      op.start_ms = (ts - (iters.empty() ? 0 : iters[iter].ts)) / 1000.0;
      if (const json* a = optional_member(e, "args")) {
        Where aw = at.at("args");
        auto text = [&](const char* key) {
          const json* v = optional_member(*a, key);
          return v ? string_at(*v, aw.at(key)) : std::string();
        };
        op.inputs = names(text("input_tensor_name"), ',');
        op.outputs = names(text("output_tensor_name"), ',');
        for (const auto& d : split(text("input_type"), ',')) if (!trim(d).empty()) op.input_dtypes.push_back(ne_dtype(d));
        for (const auto& d : split(text("output_type"), ',')) if (!trim(d).empty()) op.output_dtypes.push_back(ne_dtype(d));
        op.input_shapes = shapes(text("input_shape"), ',', '*', aw.at("input_shape"));
        op.output_shapes = shapes(text("output_shape"), ',', '*', aw.at("output_shape"));
      }
      ops.push_back(std::move(op));
    }
    Op& op = ops[it->second];
    if (iter < op.per_iteration_ms.size()) op.per_iteration_ms[iter] += dur / 1000.0;
  }
  if (ops.empty()) throw UserError(f.path + ": no operator events (tid \"Operator\") in the trace");
  return ops;
}

class NeuralEngineImporter : public Importer {
 public:
  std::string name() const override { return "neural-engine"; }
  std::string description() const override {
    return "Intel Neural Engine ENGINE_PROFILING=1 profiling CSV and/or trace JSON";
  }
  int recognizes(const InputFile& f) const override {
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 1 << 16));
    if (contains(head, kVerboseHeader) || contains(head, "90% 4x1 perf ratio")) return 10;
    if (contains(head, "\"model_inference\"") && contains(head, "\"forward_time\"")) return 10;
    return 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    std::optional<CsvResult> csv;
    std::optional<std::vector<Op>> trace;
    std::vector<double> iterations_ms;
    Imported out;
    for (const auto& f : files) {
      if (first_char(f.text) == '{' || first_char(f.text) == '[') {
        if (trace) throw UserError(f.path + ": a second Neural Engine trace (give one per import)");
        trace = parse_trace(f, iterations_ms);
        out.read.push_back(f.path + ": Neural Engine trace, " + std::to_string(trace->size()) + " operators, " +
                           std::to_string(iterations_ms.size()) + " iterations");
      } else {
        if (csv) throw UserError(f.path + ": a second Neural Engine CSV (give one per import)");
        csv = parse_csv(f);
        out.read.push_back(f.path + ": Neural Engine CSV, " + std::to_string(csv->ops.size()) + " operators");
      }
    }
    std::vector<Op> ops = trace ? std::move(*trace) : csv->ops;
    if (trace && csv) {
      std::map<std::string, std::string> post;
      for (const auto& o : csv->ops) post[o.name] = o.post_op;
      for (auto& o : ops)
        if (post.count(o.name)) o.post_op = post[o.name];
    }
    Measurement& m = out.measurement;
    GraphView g;
    bool tensors = true;
    for (auto& o : ops) {
      KernelRecord k;
      k.name = o.name;
      k.op = o.type;
      k.device = "cpu";
      k.device_class = Device::cpu;
      k.per_iteration_ms = o.per_iteration_ms;
      k.start_ms = o.start_ms;
      k.input_shapes = o.input_shapes;
      k.output_shapes = o.output_shapes;
      k.input_dtypes = o.input_dtypes;
      k.output_dtypes = o.output_dtypes;
      if (!k.input_dtypes.empty()) k.precision = k.input_dtypes.front();
      if (!o.post_op.empty()) k.implementation = "post op " + o.post_op;
      m.kernels.push_back(std::move(k));
      tensors = tensors && !o.outputs.empty();
      g.nodes.push_back({o.name, o.type, "", o.inputs, o.outputs, {}});
    }
    if (tensors) m.executed_graph = std::move(g);
    if (!iterations_ms.empty()) {
      m.profiled_runs_ms = iterations_ms;
      m.profiled_latencies_ms = iterations_ms;
      m.latencies_ms = iterations_ms;
    } else if (csv && csv->total_ms) {
      m.profiled_runs_ms = {*csv->total_ms};
      m.profiled_latencies_ms = {*csv->total_ms};
      m.latencies_ms = {*csv->total_ms};
    }
    m.warnings.push_back("e2e latency is the profiled iterations' (Neural Engine profiles only with profiling on)");
    out.rules = &plain_mapping_rules();
    out.backend.name = "neural-engine";
    out.backend.runtime = "Intel Neural Engine (ENGINE_PROFILING output)";
    return out;
  }
};

}  // namespace

const Importer& neural_engine_importer() {
  static const NeuralEngineImporter importer;
  return importer;
}

}  // namespace rooflens::importers
