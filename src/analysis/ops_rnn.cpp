// Recurrent layers, from the ONNX spec equations. Per time step, batch row and direction each of the G
// gates multiplies the input (I) and the previous hidden state (H) by its weights:
//   MACs = seq x batch x directions x G x H x (I + H)
// and each hidden unit then does the gate arithmetic below (activations from the elementwise table).
#include <array>
#include <string>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_rnn_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

struct RnnSpec {
  uint64_t gates;
  uint64_t base;        // per hidden unit, without activations: gate combines + state update
  uint64_t bias;        // extra adds when B is present (Wb and Rb per gate)
  uint64_t peephole;    // extra when P is present (LSTM only)
  std::vector<std::pair<const char*, uint64_t>> acts;  // default activation per slot, uses per step
  std::vector<int> params;  // W, R, B (and LSTM's peepholes P); initial states are inputs, not weights
};

OpWork rnn(const CostInput& c, const RnnSpec& s) {
  if (auto bad = need_in(c, {0, 1, 2})) return *bad;
  const bool batch_first = c.node && c.node->attr_i("layout", 0) != 0;
  const int64_t seq = c.in_dim(0, batch_first ? 1 : 0), batch = c.in_dim(0, batch_first ? 0 : 1);
  const int64_t dirs = c.in_dim(1, 0), input = c.in_dim(1, -1);
  const int64_t hidden = c.node ? c.node->attr_i("hidden_size", c.in_dim(2, -1)) : c.in_dim(2, -1);
  if (auto bad = need_dims({seq, batch, dirs, input, hidden}, "RNN dims")) return *bad;

  const uint64_t cells = sat_mul(u(seq), u(batch), u(dirs));  // (step, row, direction) triples
  const uint64_t macs = sat_mul(cells, s.gates, u(hidden), sat_add(u(input), u(hidden)));

  // Custom activations: the attribute lists one name per slot per direction; direction 0's are used.
  std::vector<std::string> names;
  if (c.node)
    if (const auto* a = c.node->attr("activations")) names = a->strings;
  uint64_t per_unit = s.base + (c.has_in(3) ? s.bias : 0) + (c.has_in(7) ? s.peephole : 0);
  std::string note;
  for (size_t i = 0; i < s.acts.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : s.acts[i].first;
    auto f = activation_flops(name);
    if (!f) note = "activation " + name + " costed as Tanh";
    per_unit += s.acts[i].second * f.value_or(kTrans);
  }
  OpWork w = mac_work(macs, sat_mul(cells, u(hidden), per_unit));
  w.note = note;
  return w;
}

}  // namespace
}  // namespace ops_rnn_file

void register_rnn_ops(CostRegistry& r) {
  using namespace ops_rnn_file;
  const std::array<std::pair<const char*, RnnSpec>, 3> specs{{
      // RNN: Ht = f(Xt W + Ht-1 R + Wb + Rb): 1 combine add.
      {"RNN", {1, 1, 2, 0, {{"Tanh", 1}}, {1, 2, 3}}},
      // GRU: 3 combine adds, reset multiply (1), Ht = (1-z) h~ + z Ht-1 (4); f for z and r, g for h~.
      {"GRU", {3, 8, 6, 0, {{"Sigmoid", 2}, {"Tanh", 1}}, {1, 2, 3}}},
      // LSTM: 4 combine adds, Ct = f*Ct-1 + i*c (3), Ht = o * h(Ct) (1); f for i, f, o; g for c; h for Ht.
      {"LSTM", {4, 8, 8, 6, {{"Sigmoid", 3}, {"Tanh", 1}, {"Tanh", 1}}, {1, 2, 3, 7}}},
  }};
  for (const auto& entry : specs) {
    const auto& spec = entry.second;  // clang 14 cannot capture structured bindings
    r.add(kOnnx, entry.first, with_params([spec](const CostInput& c) { return rnn(c, spec); }, spec.params));
  }
}

}  // namespace rooflens
