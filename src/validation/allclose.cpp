#include "validation/allclose.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "core/units.h"

namespace rooflens {
namespace {

enum class Kind { floating, signed_int, unsigned_int, boolean, text, unsupported };

// ONNX TensorProto.DataType -> how its elements compare.
Kind kind_of(int32_t t) {
  switch (t) {
    case 1: case 10: case 11: case 16: return Kind::floating;    // float, float16, double, bfloat16
    case 3: case 5: case 6: case 7: return Kind::signed_int;     // int8, int16, int32, int64
    case 2: case 4: case 12: case 13: return Kind::unsigned_int; // uint8, uint16, uint32, uint64
    case 9: return Kind::boolean;
    case 8: return Kind::text;
    default: return Kind::unsupported;                           // complex, float8, int4, ...
  }
}

template <class T>
T load(const std::string& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

float bfloat16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double float_at(const TensorValue& t, int64_t i) {
  switch (t.data_type) {
    case 1: return load<float>(t.bytes, i);
    case 11: return load<double>(t.bytes, i);
    case 10: return float16_to_float(load<uint16_t>(t.bytes, i));
    default: return bfloat16_to_float(load<uint16_t>(t.bytes, i));
  }
}

int64_t signed_at(const TensorValue& t, int64_t i) {
  switch (t.data_type) {
    case 3: return load<int8_t>(t.bytes, i);
    case 5: return load<int16_t>(t.bytes, i);
    case 6: return load<int32_t>(t.bytes, i);
    default: return load<int64_t>(t.bytes, i);
  }
}

uint64_t unsigned_at(const TensorValue& t, int64_t i) {
  switch (t.data_type) {
    case 2: case 9: return load<uint8_t>(t.bytes, i);
    case 4: return load<uint16_t>(t.bytes, i);
    case 12: return load<uint32_t>(t.bytes, i);
    default: return load<uint64_t>(t.bytes, i);
  }
}

// Shortest text that reads back as the same value at the element's own precision.
template <class T>
std::string shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string element_text(const TensorValue& t, int64_t i) {
  switch (kind_of(t.data_type)) {
    case Kind::floating: return t.data_type == 11 ? shortest(float_at(t, i)) : shortest(static_cast<float>(float_at(t, i)));
    case Kind::signed_int: return std::to_string(signed_at(t, i));
    case Kind::unsigned_int: return std::to_string(unsigned_at(t, i));
    case Kind::boolean: return unsigned_at(t, i) ? "true" : "false";
    case Kind::text: return t.strings[static_cast<size_t>(i)];
    default: return "?";
  }
}

// assert_allclose for one pair of floating-point elements.
bool floats_match(double e, double g, const Tolerance& tol) {
  if (std::isnan(e) || std::isnan(g)) return std::isnan(e) && std::isnan(g);
  if (std::isinf(e) || std::isinf(g)) return e == g;
  return std::fabs(g - e) <= tol.atol + tol.rtol * std::fabs(e);
}

bool elements_match(const TensorValue& e, const TensorValue& g, int64_t i, Kind kind, const Tolerance& tol) {
  switch (kind) {
    case Kind::floating: return floats_match(float_at(e, i), float_at(g, i), tol);
    case Kind::signed_int: return signed_at(e, i) == signed_at(g, i);
    case Kind::unsigned_int: return unsigned_at(e, i) == unsigned_at(g, i);
    case Kind::boolean: return (unsigned_at(e, i) != 0) == (unsigned_at(g, i) != 0);
    default: return e.strings[static_cast<size_t>(i)] == g.strings[static_cast<size_t>(i)];
  }
}

// Largest absolute and relative errors over elements where both values are finite (relative: expected != 0).
void track_errors(const TensorValue& e, const TensorValue& g, int64_t i, Kind kind, OutputCheck& c) {
  double ev, gv;
  if (kind == Kind::floating) {
    ev = float_at(e, i);
    gv = float_at(g, i);
  } else if (kind == Kind::signed_int) {
    ev = static_cast<double>(signed_at(e, i));
    gv = static_cast<double>(signed_at(g, i));
  } else if (kind == Kind::unsigned_int || kind == Kind::boolean) {
    ev = static_cast<double>(unsigned_at(e, i));
    gv = static_cast<double>(unsigned_at(g, i));
  } else {
    return;
  }
  if (!std::isfinite(ev) || !std::isfinite(gv)) return;
  double abs_err = std::fabs(gv - ev);
  c.max_abs_error = std::max(c.max_abs_error, abs_err);
  if (ev != 0) c.max_rel_error = std::max(c.max_rel_error, abs_err / std::fabs(ev));
}

OutputCheck failed(OutputCheck c, const std::string& failure, const std::string& note) {
  c.passed = false;
  c.failure = failure;
  c.note = note;
  return c;
}

// Whether `t` carries as much data as its dims say (a backend or a file could be inconsistent).
bool data_complete(const TensorValue& t, Kind kind) {
  if (kind == Kind::text) return static_cast<int64_t>(t.strings.size()) == t.elements();
  return t.bytes.size() == static_cast<size_t>(t.elements()) * static_cast<size_t>(onnx_type_size(t.data_type));
}

std::string percent_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, p >= 1 || p == 0 ? "%.0f%%" : "%.2g%%", p);
  return buf;
}

}  // namespace

std::string multi_index(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] <= 0) return "[" + std::to_string(flat) + "]";
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) s += (k ? "," : "") + std::to_string(idx[k]);
  return s + "]";
}

OutputCheck compare_tensors(const TensorValue& expected, const TensorValue& got, const Tolerance& tol,
                            std::vector<Mismatch>& first, size_t max_first) {
  OutputCheck c;
  c.name = expected.name.empty() ? got.name : expected.name;
  c.dtype = onnx_type_name(expected.data_type);
  c.shape = expected.dims;
  c.elements = static_cast<uint64_t>(expected.elements());
  if (got.data_type != expected.data_type)
    return failed(c, "dtype", "type differs: expected " + onnx_type_name(expected.data_type) + ", got " +
                                  onnx_type_name(got.data_type));
  if (got.dims != expected.dims)
    return failed(c, "shape", "shape differs: expected " + shape_text(expected.dims) + ", got " + shape_text(got.dims));
  const Kind kind = kind_of(expected.data_type);
  if (kind == Kind::unsupported)
    return failed(c, "unsupported", "rooflens cannot compare " + c.dtype + " outputs");
  if (!data_complete(expected, kind) || !data_complete(got, kind))
    return failed(c, "shape", std::string(data_complete(expected, kind) ? "the output" : "the reference") +
                                  " holds less data than its dims " + shape_text(expected.dims) + " need");
  const int64_t n = expected.elements();
  for (int64_t i = 0; i < n; ++i) {
    track_errors(expected, got, i, kind, c);
    if (elements_match(expected, got, i, kind, tol)) continue;
    ++c.mismatched;
    if (first.size() < max_first) first.push_back({c.name, i, element_text(expected, i), element_text(got, i)});
  }
  double percent = n > 0 ? 100.0 * static_cast<double>(c.mismatched) / static_cast<double>(n) : 0;
  if (c.mismatched > 0 && percent > tol.percent_mismatch) {
    c.passed = false;
    c.failure = "mismatch";
    c.note = std::to_string(c.mismatched) + " of " + std::to_string(n) + " elements differ (" + percent_text(percent) + ")";
  }
  return c;
}

void check_outputs(const std::vector<TensorValue>& expected, const std::vector<TensorValue>& got,
                   const Tolerance& tol, int64_t data_set, Validation& into) {
  for (size_t k = 0; k < expected.size(); ++k) {
    const TensorValue& e = expected[k];
    const TensorValue* g = nullptr;
    for (const auto& t : got)
      if (!e.name.empty() && t.name == e.name) g = &t;
    if (!g && e.name.empty() && k < got.size()) g = &got[k];
    OutputCheck c;
    if (!g) {
      c.name = e.name.empty() ? "#" + std::to_string(k) : e.name;
      c.dtype = onnx_type_name(e.data_type);
      c.shape = e.dims;
      c.elements = static_cast<uint64_t>(e.elements());
      c = failed(c, "missing-output", "the model returned no output '" + c.name + "'");
    } else {
      std::vector<Mismatch> first;
      size_t room = kMaxReportedMismatches - std::min(kMaxReportedMismatches, into.first_mismatches.size());
      c = compare_tensors(e, *g, tol, first, room);
      for (auto& m : first) {
        m.data_set = data_set;
        into.first_mismatches.push_back(std::move(m));
      }
    }
    c.data_set = data_set;
    into.outputs.push_back(std::move(c));
  }
}

bool validation_passed(const Validation& v) {
  for (const auto& c : v.outputs)
    if (!c.passed) return false;
  return true;
}

std::string validation_error_type(const Validation& v) {
  for (const auto& c : v.outputs)
    if (!c.passed) return c.failure;
  return "";
}

std::string validation_message(const Validation& v, const Tolerance& tol) {
  for (const auto& c : v.outputs) {
    if (c.passed) continue;
    std::string msg = "output '" + c.name + "' (data set " + std::to_string(c.data_set) + "): " + c.note;
    if (c.failure != "mismatch") return msg;
    msg += " beyond rtol " + shortest(tol.rtol) + ", atol " + shortest(tol.atol);
    if (c.max_abs_error > 0) msg += "; max abs error " + shortest(static_cast<float>(c.max_abs_error));
    for (const auto& m : v.first_mismatches) {
      if (m.output != c.name || m.data_set != c.data_set) continue;
      msg += "; first at " + multi_index(m.index, c.shape) + ": expected " + m.expected + ", got " + m.got;
      break;
    }
    return msg;
  }
  return "";
}

}  // namespace rooflens
