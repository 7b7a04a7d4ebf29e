#include "backends/onnxruntime/ort_web_graph.h"

#include <deque>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>

namespace rooflens::ort {
namespace {

// What two inference sessions' optimisations agree on in a name ORT generated. Their counters differ
// ("Transpose_token_223" -> "Transpose_token_"). And a precision cast ORT inserted is named after the tensor it
// converts, which for a constant the model repeats (one per layer) is whichever copy ORT's constant sharing kept —
// an order the two builds need not share ("InsertedPrecisionFreeCast_/layers.2/Constant_23_output_0" in one,
// "..layers.3.." in the other, the same cast of the same values): without its numbers.
std::string pairing_key(const std::string& name) {
  static const std::string kInsertedCast = "InsertedPrecisionFreeCast_";
  static const std::regex counter(R"(_token_\d+)");
  static const std::regex numbers(R"(\d+)");
  if (name.rfind(kInsertedCast, 0) == 0) return std::regex_replace(name, numbers, "#");
  return std::regex_replace(name, counter, "_token_");
}

// Pairs every kernel with a node of `graph` — by name and op; else (a name ORT generated) the next node of the same
// op whose name differs only where two optimisations may differ (pairing_key), which is then renamed after the
// kernel; else an unnamed node of the op. Returns the first kernel left without one, as "'name' (op)"; empty when
// every kernel has its node.
std::string pair_kernels_with_nodes(const std::vector<KernelRecord>& kernels, GraphView& graph) {
  std::set<std::string> kernel_names;
  for (const auto& k : kernels) kernel_names.insert(k.name);
  std::unordered_map<std::string, std::string> op_of;
  std::map<std::pair<std::string, std::string>, std::deque<size_t>> renamable;  // (op, name without counter)
  std::map<std::string, int> unnamed_left;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& n = graph.nodes[i];
    if (n.unnamed) ++unnamed_left[n.op];
    else op_of.emplace(n.name, n.op);
    if (!n.unnamed && !kernel_names.count(n.name)) renamable[{n.op, pairing_key(n.name)}].push_back(i);
  }
  for (const auto& k : kernels) {
    auto it = op_of.find(k.name);
    if (it != op_of.end() && it->second == k.op) continue;
    if (auto r = renamable.find({k.op, pairing_key(k.name)}); r != renamable.end() && !r->second.empty()) {
      graph.nodes[r->second.front()].name = k.name;
      r->second.pop_front();
      continue;
    }
    if (it == op_of.end() && unnamed_left[k.op] > 0) {
      --unnamed_left[k.op];
      continue;
    }
    return "'" + k.name + "' (" + k.op + ")";
  }
  return "";
}

}  // namespace

RunSetting check_web_executed_graph(Measurement& profiled) {
  RunSetting s;
  s.name = "executed_graph";
  s.source = SettingSource::rooflens;
  if (!profiled.executed_graph) {
    s.value = "none";
    s.note = "ONNX Runtime Web writes no files and the native build could not optimise the model: kernels mapped "
             "by ORT's names alone";
    return s;
  }
  // A kernel per distinct name and op is enough: every iteration of the profile runs the same ones.
  std::vector<KernelRecord> once;
  std::map<std::pair<std::string, std::string>, bool> seen;
  for (const auto& k : profiled.kernels)
    if (!seen[{k.name, k.op}]) seen[{k.name, k.op}] = true, once.push_back(k);
  if (std::string missing = pair_kernels_with_nodes(once, *profiled.executed_graph); !missing.empty()) {
    profiled.executed_graph.reset();
    profiled.warnings.push_back("the native build's optimisation of the model is not the graph ONNX Runtime Web ran "
                                "(its kernel " + missing + " is not in it): kernels mapped by ORT's names alone");
    s.value = "none";
    s.note = "the native build's graph did not match the web profile (see warnings)";
    return s;
  }
  s.value = "the native build's, checked";
  s.note = "ONNX Runtime Web writes no files: onnxruntime-node of the same version optimised the model with the same "
           "options without its x86 NCHWc pass; every kernel of the web profile is one of its nodes, with its op (names "
           "ORT generated paired in order)";
  return s;
}

}  // namespace rooflens::ort
