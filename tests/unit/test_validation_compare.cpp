// Output validation: numpy assert_allclose semantics (|got - expected| <= atol + rtol * |expected|, NaN only
// matches NaN, infinities only themselves), exact integers/bools/strings, the percent-mismatch allowance, dtype and
// shape checks, float16, the first mismatches with their index, and TensorProto files as references.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "validation/allclose.h"
#include "validation/tensor_file.h"

using namespace rooflens;

namespace {

template <class T>
TensorValue tensor(int32_t type, std::vector<int64_t> dims, const std::vector<T>& values, std::string name = "y") {
  TensorValue t;
  t.name = std::move(name);
  t.data_type = type;
  t.dims = std::move(dims);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

TensorValue floats(std::vector<float> v, std::vector<int64_t> dims = {}) {
  if (dims.empty()) dims = {static_cast<int64_t>(v.size())};
  return tensor<float>(1, dims, v);
}

OutputCheck check(const TensorValue& e, const TensorValue& g, Tolerance tol, std::vector<Mismatch>* first = nullptr) {
  std::vector<Mismatch> local;
  return compare_tensors(e, g, tol, first ? *first : local);
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

uint16_t half_bits(float f) {  // exact for the values used below (representable in float16)
  if (f == 0) return 0;
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exp << 10) | ((x & 0x7fffff) >> 13));
}

}  // namespace

TEST(ValidationCompare, ToleranceIsAtolPlusRtolTimesExpected) {
  Tolerance tol{1e-3, 1e-5, 0};
  // 1000 * 1e-3 + 1e-5 = 1.00001 allowed around 1000.
  EXPECT_TRUE(check(floats({1000.f}), floats({1000.9f}), tol).passed);
  EXPECT_FALSE(check(floats({1000.f}), floats({1001.5f}), tol).passed);
  // Near zero only atol counts: rtol * |expected| is tiny.
  EXPECT_TRUE(check(floats({0.f}), floats({9e-6f}), tol).passed);
  EXPECT_FALSE(check(floats({0.f}), floats({2e-5f}), tol).passed);
  // The bound is relative to the expected value, not the got value (numpy's asymmetry).
  Tolerance rel{0.5, 0, 0};
  EXPECT_TRUE(check(floats({2.f}), floats({3.f}), rel).passed);   // |1| <= 0.5 * 2
  EXPECT_FALSE(check(floats({3.f}), floats({1.f}), rel).passed);  // |2| >  0.5 * 3
}

TEST(ValidationCompare, NanMustBeWhereExpectedAndInfinitiesMustMatchExactly) {
  Tolerance tol;
  EXPECT_TRUE(check(floats({kNaN, 1.f}), floats({kNaN, 1.f}), tol).passed);
  OutputCheck c = check(floats({kNaN, 1.f}), floats({1.f, 1.f}), tol);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatched, 1u);
  EXPECT_FALSE(check(floats({1.f}), floats({kNaN}), tol).passed);
  EXPECT_TRUE(check(floats({kInf, -kInf}), floats({kInf, -kInf}), tol).passed);
  EXPECT_FALSE(check(floats({kInf}), floats({-kInf}), tol).passed);
  EXPECT_FALSE(check(floats({kInf}), floats({3e38f}), Tolerance{1.0, 1e38, 0}).passed);  // no tolerance for inf
  EXPECT_FALSE(check(floats({1.f}), floats({kInf}), Tolerance{1.0, 1e38, 0}).passed);
}

TEST(ValidationCompare, PercentMismatchAllowsThatShareOfElements) {
  TensorValue e = floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  TensorValue g = floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 99});  // 1 of 10 = 10% differ
  EXPECT_FALSE(check(e, g, Tolerance{1e-3, 1e-7, 0}).passed);
  EXPECT_FALSE(check(e, g, Tolerance{1e-3, 1e-7, 9.9}).passed);
  OutputCheck c = check(e, g, Tolerance{1e-3, 1e-7, 10});
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.mismatched, 1u);  // still counted when allowed
}

TEST(ValidationCompare, ReportsTheFirstMismatchesWithIndexExpectedAndGot) {
  TensorValue e = floats({0, 1, 2, 3, 4, 5}, {2, 3});
  TensorValue g = floats({0, 1, 2.5f, 3, 4, 7}, {2, 3});
  std::vector<Mismatch> first;
  OutputCheck c = check(e, g, Tolerance{}, &first);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failure, "mismatch");
  EXPECT_EQ(c.mismatched, 2u);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].index, 2);
  EXPECT_EQ(first[0].expected, "2");
  EXPECT_EQ(first[0].got, "2.5");
  EXPECT_EQ(first[1].index, 5);
  EXPECT_EQ(multi_index(5, {2, 3}), "[1,2]");
  EXPECT_DOUBLE_EQ(c.max_abs_error, 2.0);
  EXPECT_DOUBLE_EQ(c.max_rel_error, 0.4);  // 2 / 5
  // At most max_first are kept.
  std::vector<Mismatch> one;
  compare_tensors(e, g, Tolerance{}, one, 1);
  EXPECT_EQ(one.size(), 1u);
}

TEST(ValidationCompare, DtypeAndShapeMustMatch) {
  OutputCheck c = check(floats({1, 2}), tensor<double>(11, {2}, {1, 2}), Tolerance{});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failure, "dtype");
  EXPECT_NE(c.note.find("expected float, got double"), std::string::npos) << c.note;
  c = check(floats({1, 2, 3, 4}, {2, 2}), floats({1, 2, 3, 4}, {4}), Tolerance{});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failure, "shape");
  EXPECT_NE(c.note.find("expected 2x2, got 4"), std::string::npos) << c.note;
  TensorValue short_data = floats({1, 2, 3}, {2, 2});  // dims say 4 elements, data holds 3
  EXPECT_EQ(check(floats({1, 2, 3, 4}, {2, 2}), short_data, Tolerance{}).failure, "shape");
}

TEST(ValidationCompare, IntegersAndBoolsCompareExactlyWhateverTheTolerance) {
  Tolerance loose{0.5, 10, 0};
  EXPECT_FALSE(check(tensor<int64_t>(7, {2}, {100, 5}), tensor<int64_t>(7, {2}, {101, 5}), loose).passed);
  EXPECT_TRUE(check(tensor<int64_t>(7, {2}, {-3, 1LL << 60}), tensor<int64_t>(7, {2}, {-3, 1LL << 60}), loose).passed);
  EXPECT_FALSE(check(tensor<uint8_t>(2, {1}, {255}), tensor<uint8_t>(2, {1}, {254}), loose).passed);
  EXPECT_FALSE(check(tensor<int8_t>(3, {1}, {-1}), tensor<int8_t>(3, {1}, {1}), loose).passed);
  std::vector<Mismatch> first;
  OutputCheck b = check(tensor<uint8_t>(9, {3}, {1, 0, 1}), tensor<uint8_t>(9, {3}, {1, 1, 1}), loose, &first);
  EXPECT_FALSE(b.passed);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].expected, "false");
  EXPECT_EQ(first[0].got, "true");
  EXPECT_TRUE(check(tensor<uint8_t>(9, {2}, {1, 0}), tensor<uint8_t>(9, {2}, {1, 0}), loose).passed);
}

TEST(ValidationCompare, StringsCompareExactly) {
  TensorValue e;
  e.name = "s";
  e.data_type = 8;
  e.dims = {2};
  e.strings = {"monday", "tuesday"};
  TensorValue g = e;
  EXPECT_TRUE(check(e, g, Tolerance{}).passed);
  g.strings[1] = "TUESDAY";
  std::vector<Mismatch> first;
  OutputCheck c = check(e, g, Tolerance{}, &first);
  EXPECT_FALSE(c.passed);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].index, 1);
  EXPECT_EQ(first[0].expected, "tuesday");
  EXPECT_EQ(first[0].got, "TUESDAY");
}

TEST(ValidationCompare, Float16IsComparedAsItsValue) {
  auto halves = [](std::vector<float> v) {
    std::vector<uint16_t> bits;
    for (float f : v) bits.push_back(half_bits(f));
    return tensor<uint16_t>(10, {static_cast<int64_t>(v.size())}, bits);
  };
  EXPECT_TRUE(check(halves({1.0f, -2.5f, 0.0f}), halves({1.0f, -2.5f, 0.0f}), Tolerance{}).passed);
  std::vector<Mismatch> first;
  OutputCheck c = check(halves({1.0f, 2.0f}), halves({1.0f, 2.5f}), Tolerance{1e-3, 1e-5, 0}, &first);
  EXPECT_FALSE(c.passed);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].expected, "2");
  EXPECT_EQ(first[0].got, "2.5");
  EXPECT_TRUE(check(halves({2.0f}), halves({2.5f}), Tolerance{0.3, 0, 0}).passed);  // 0.5 <= 0.3 * 2
  // Half infinity and NaN bits.
  TensorValue inf = tensor<uint16_t>(10, {1}, {0x7c00}), nan = tensor<uint16_t>(10, {1}, {0x7e00});
  EXPECT_TRUE(check(inf, inf, Tolerance{}).passed);
  EXPECT_TRUE(check(nan, nan, Tolerance{}).passed);
  EXPECT_FALSE(check(inf, nan, Tolerance{}).passed);
}

TEST(ValidationCompare, OutputsMatchByNameAndMissingOnesFail) {
  std::vector<TensorValue> expected{tensor<float>(1, {1}, {1.f}, "a"), tensor<float>(1, {1}, {2.f}, "b")};
  std::vector<TensorValue> got{tensor<float>(1, {1}, {2.f}, "b"), tensor<float>(1, {1}, {1.f}, "a"),
                               tensor<float>(1, {1}, {9.f}, "extra")};
  Validation v;
  check_outputs(expected, got, Tolerance{}, 0, v);
  EXPECT_TRUE(validation_passed(v));
  ASSERT_EQ(v.outputs.size(), 2u);

  Validation missing;
  check_outputs(expected, {got[0]}, Tolerance{}, 3, missing);
  EXPECT_FALSE(validation_passed(missing));
  EXPECT_EQ(validation_error_type(missing), "missing-output");
  EXPECT_EQ(missing.outputs[0].data_set, 3);
  EXPECT_NE(validation_message(missing, Tolerance{}).find("no output 'a'"), std::string::npos);
}

TEST(ValidationCompare, MessageNamesOutputIndexExpectedAndGot) {
  Validation v;
  check_outputs({floats({0, 1, 2, 3}, {2, 2})}, {floats({0, 1, 2, 30}, {2, 2})}, Tolerance{1e-3, 1e-7, 0}, 0, v);
  std::string msg = validation_message(v, Tolerance{1e-3, 1e-7, 0});
  EXPECT_NE(msg.find("output 'y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 of 4 elements differ (25%)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("first at [1,1]: expected 3, got 30"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  ASSERT_EQ(v.first_mismatches.size(), 1u);
  EXPECT_EQ(v.first_mismatches[0].index, 3);
}

// Expected outputs come from TensorProto files, in raw_data or typed-field form.
TEST(ValidationTensorFile, ReadsRawAndTypedTensorProtos) {
  onnx::TensorProto raw;
  raw.set_name("y");
  raw.set_data_type(onnx::TensorProto::FLOAT);
  raw.add_dims(2);
  float vals[2] = {1.5f, -2.0f};
  raw.set_raw_data(std::string(reinterpret_cast<const char*>(vals), sizeof vals));
  TensorValue a = parse_tensor_proto(raw.SerializeAsString(), "raw.pb");
  EXPECT_EQ(a.name, "y");
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2}));
  EXPECT_TRUE(check(floats({1.5f, -2.0f}), a, Tolerance{0, 0, 0}).passed);

  onnx::TensorProto typed;
  typed.set_data_type(onnx::TensorProto::INT16);
  typed.add_dims(3);
  for (int v : {-7, 0, 300}) typed.add_int32_data(v);
  TensorValue b = parse_tensor_proto(typed.SerializeAsString(), "typed.pb");
  EXPECT_TRUE(check(tensor<int16_t>(5, {3}, {-7, 0, 300}), b, Tolerance{}).passed);

  onnx::TensorProto strings;
  strings.set_data_type(onnx::TensorProto::STRING);
  strings.add_dims(2);
  strings.add_string_data("a");
  strings.add_string_data("b");
  EXPECT_EQ(parse_tensor_proto(strings.SerializeAsString(), "s.pb").strings, (std::vector<std::string>{"a", "b"}));

  onnx::TensorProto wrong = typed;
  wrong.add_dims(2);  // 6 elements now, 3 values
  EXPECT_THROW(parse_tensor_proto(wrong.SerializeAsString(), "w.pb"), UserError);
  onnx::TensorProto short_raw = raw;
  short_raw.set_raw_data("abc");
  try {
    parse_tensor_proto(short_raw.SerializeAsString(), "short.pb");
    FAIL() << "accepted raw_data shorter than its dims";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("short.pb"), std::string::npos);
  }
}

TEST(ValidationTensorFile, ExpectedOutputsAreReadInIndexOrder) {
  auto dir = std::filesystem::temp_directory_path() / ("rooflens-tf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (int i : {0, 1, 2, 10}) {
    onnx::TensorProto t;
    t.set_name("o" + std::to_string(i));
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_int64_data(i);
    t.add_dims(1);
    std::ofstream(dir / ("output_" + std::to_string(i) + ".pb"), std::ios::binary) << t.SerializeAsString();
  }
  std::ofstream(dir / "input_0.pb") << "x";
  std::ofstream(dir / "output_x.pb") << "x";
  auto outs = read_expected_outputs(dir);
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(outs[2].name, "o2");
  EXPECT_EQ(outs[3].name, "o10");
  std::filesystem::remove_all(dir);
}
