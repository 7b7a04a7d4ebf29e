#include "score/references.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/units.h"

namespace rooflens::score {
namespace {

constexpr int32_t kFloat = 1;

float element(const TensorValue& v, int64_t i) {
  float x = 0;
  std::memcpy(&x, v.bytes.data() + static_cast<size_t>(i) * sizeof(float), sizeof(float));
  return x;
}

TensorValue float_tensor(const std::string& name, const std::vector<float>& xs) {
  TensorValue t;
  t.name = name;
  t.data_type = kFloat;
  t.dims = {static_cast<int64_t>(xs.size())};
  t.bytes.assign(reinterpret_cast<const char*>(xs.data()), xs.size() * sizeof(float));
  return t;
}

}  // namespace

std::string tolerance_text(const Tolerance& t) {
  return fmt::format("rtol {:g} atol {:g}{}", t.rtol, t.atol,
                     t.percent_mismatch > 0 ? fmt::format(", up to {:g}% of elements beyond", t.percent_mismatch) : "");
}

OutputSample sample_output(const TensorValue& v) {
  if (v.data_type != kFloat)
    throw UserError(fmt::format("score: output '{}' is {}, the suite keeps float outputs only", v.name,
                                onnx_type_name(v.data_type)));
  OutputSample o;
  o.name = v.name;
  o.data_type = kFloat;
  o.shape = v.dims;
  const int64_t n = static_cast<int64_t>(v.bytes.size() / sizeof(float));
  o.stride = std::max<int64_t>(1, (n + kSampleValues - 1) / kSampleValues);
  for (int64_t i = 0; i < n; i += o.stride) o.values.push_back(element(v, i));
  return o;
}

GateResult check_outputs_against(const std::vector<OutputSample>& expected, const std::vector<TensorValue>& got,
                                 const Tolerance& tol) {
  GateResult g;
  for (const auto& e : expected) {
    auto it = std::find_if(got.begin(), got.end(), [&](const TensorValue& t) { return t.name == e.name; });
    if (it == got.end()) {
      g.passed = false;
      g.message = fmt::format("output '{}' missing", e.name);
      return g;
    }
    if (it->data_type != e.data_type || it->dims != e.shape) {
      g.passed = false;
      g.message = fmt::format("output '{}' is {} {}, the reference {} {}", e.name, onnx_type_name(it->data_type),
                              shape_text(it->dims), onnx_type_name(e.data_type), shape_text(e.shape));
      return g;
    }
    const int64_t n = static_cast<int64_t>(it->bytes.size() / sizeof(float));
    std::vector<float> want, have;
    for (size_t k = 0; k < e.values.size(); ++k) {
      const int64_t i = static_cast<int64_t>(k) * e.stride;
      if (i >= n) {
        g.passed = false;
        g.message = fmt::format("output '{}': the reference samples element {} of {}", e.name, i, n);
        return g;
      }
      want.push_back(static_cast<float>(e.values[k]));
      have.push_back(element(*it, i));
    }
    std::vector<Mismatch> first;
    const OutputCheck c = compare_tensors(float_tensor(e.name, want), float_tensor(e.name, have), tol, first, 1);
    g.max_abs_error = std::max(g.max_abs_error, c.max_abs_error);
    g.max_rel_error = std::max(g.max_rel_error, c.max_rel_error);
    if (!c.passed && g.passed) {
      g.passed = false;
      g.message = fmt::format("output '{}': {} of {} compared elements differ beyond {}; max abs error {:.3g}",
                              e.name, c.mismatched, c.elements, tolerance_text(tol), c.max_abs_error);
      if (!c.note.empty()) g.message += " (" + c.note + ")";
    }
  }
  return g;
}

GateResult check_tokens_against(const std::vector<std::vector<int64_t>>& expected,
                                const std::vector<std::vector<int64_t>>& got) {
  GateResult g;
  if (expected.size() != got.size()) {
    g.passed = false;
    g.message = fmt::format("{} sequences generated, the reference has {}", got.size(), expected.size());
    return g;
  }
  for (size_t s = 0; s < expected.size(); ++s) {
    const auto& e = expected[s];
    const auto& h = got[s];
    for (size_t i = 0; i < std::max(e.size(), h.size()); ++i) {
      if (i < e.size() && i < h.size() && e[i] == h[i]) continue;
      g.passed = false;
      g.message = i < e.size() && i < h.size()
                      ? fmt::format("greedy token {} of sequence {} is {}, the reference {}", i, s, h[i], e[i])
                      : fmt::format("sequence {}: {} tokens generated, the reference has {}", s, h.size(), e.size());
      return g;
    }
  }
  return g;
}

}  // namespace rooflens::score
