// The shape-value evaluator op by op: exact results, symbolic dims kept as expressions, and the hostile cases
// (division by zero, overflow, negative sizes, a Range of 2^40 elements) ending as errors or "not computed",
// never as a crash or an allocation the file asked for.
#include <gtest/gtest.h>

#include <cmath>

#include "model/sym_expr.h"
#include "model/value_eval.h"

using namespace rooflens;

namespace {

// A 1-D integer value, or one of `dims` when given.
ShapeValue ints(std::vector<int64_t> v, std::vector<int64_t> dims = {}, DType t = DType::Int64) {
  ShapeValue s;
  s.dtype = t;
  s.dims = dims.empty() ? std::vector<int64_t>{static_cast<int64_t>(v.size())} : dims;
  for (auto x : v) s.elems.push_back(Elem::integer(x));
  return s;
}
ShapeValue scalar(int64_t v) {
  ShapeValue s;
  s.dtype = DType::Int64;
  s.elems.push_back(Elem::integer(v));
  return s;
}
ShapeValue reals(std::vector<double> v, std::vector<int64_t> dims) {
  ShapeValue s;
  s.dtype = DType::Float;
  s.dims = dims;
  for (auto x : v) s.elems.push_back(Elem::real(x));
  return s;
}

struct Call {
  Node node;
  std::vector<ShapeValue> values;
  std::vector<TensorInfo> types;
  SymTable syms;

  Call(std::string op, int opset = 17) {
    node.op = std::move(op);
    node.opset = opset;
  }
  Call& in(ShapeValue v) {
    node.inputs.push_back("in" + std::to_string(node.inputs.size()));
    values.push_back(std::move(v));
    return *this;
  }
  Call& attr_i(const std::string& name, int64_t v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    node.attrs.push_back(a);
    return *this;
  }
  Call& attr_ints(const std::string& name, std::vector<int64_t> v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    node.attrs.push_back(a);
    return *this;
  }
  EvalOutputs run(size_t outputs = 1) {
    for (size_t i = 0; i < outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
    EvalInput e;
    e.node = &node;
    e.syms = &syms;
    for (auto& v : values) e.values.push_back(&v);
    for (auto& t : types) e.types.push_back(&t);
    const EvalFn* fn = ValueOpRegistry::builtin().find("", node.op);
    if (!fn) throw std::runtime_error("no value function for " + node.op);
    return (*fn)(e);
  }
  ShapeValue one() {
    auto r = run();
    if (!r.at(0)) throw std::runtime_error("not computed");
    return *r[0];
  }
};

std::vector<int64_t> as_ints(const ShapeValue& v) { return v.ints().value(); }

TensorInfo symbolic_info(std::vector<Dim> dims) {
  TensorInfo t;
  t.dtype = DType::Float;
  t.has_rank = true;
  t.dims = std::move(dims);
  return t;
}

}  // namespace

TEST(SymExpr, PrintsTermsWithTheConstantLastAndFoldsConstants) {
  auto b = SymExpr::symbol("batch");
  EXPECT_EQ(b.mul(SymExpr::constant(197))->to_string(), "batch*197");
  EXPECT_EQ(SymExpr::symbol("seq").add(SymExpr::symbol("past"))->add(SymExpr::constant(1))->to_string(), "past+seq+1");
  EXPECT_EQ(b.sub(SymExpr::constant(2))->to_string(), "batch-2");
  EXPECT_EQ(b.mul(SymExpr::constant(197))->div_exact(197)->to_string(), "batch");
  EXPECT_FALSE(b.mul(SymExpr::constant(197))->div_exact(2));  // not exact: unknown, not rounded
  EXPECT_TRUE(b.sub(b)->is_constant());
}

TEST(SymExpr, OverflowAndGrowthGiveNothing) {
  auto big = SymExpr::symbol("n").mul(SymExpr::constant(INT64_MAX));
  ASSERT_TRUE(big);
  EXPECT_FALSE(big->mul(SymExpr::constant(2)));
  EXPECT_FALSE(SymExpr::constant(INT64_MIN).neg());
  EXPECT_FALSE(SymExpr::constant(INT64_MIN).div_exact(-1));
  SymExpr e = SymExpr::symbol("a");
  for (int i = 0; i < 3; ++i) e = e.mul(SymExpr::symbol("a")).value();  // a^4: kMaxFactors
  EXPECT_FALSE(e.mul(SymExpr::symbol("a")));  // more factors than kMaxFactors
}

TEST(ValueEval, ShapeWithStartEndAndSymbolicDims) {
  Call c("Shape", 15);
  c.node.inputs = {"x"};
  c.types = {symbolic_info({Dim{-1, "batch"}, Dim{197, {}}, Dim{768, {}}})};
  c.attr_i("start", -2);
  ShapeValue v = c.one();
  EXPECT_EQ(as_ints(v), (std::vector<int64_t>{197, 768}));

  Call all("Shape");
  all.node.inputs = {"x"};
  all.types = c.types;
  ShapeValue s = all.one();
  ASSERT_EQ(s.elems.size(), 3u);
  EXPECT_EQ(s.elems[0].kind, Elem::Kind::Sym);
  EXPECT_EQ(s.to_string(), "[batch, 197, 768]");
}

TEST(ValueEval, PyTorchPatchEmbeddingChainStaysSymbolic) {
  // ViT's reshape target: Shape -> Gather(0) -> Mul(197) and back through Div: batch*197, then batch.
  Call shape("Shape");
  shape.node.inputs = {"x"};
  shape.types = {symbolic_info({Dim{-1, "batch"}, Dim{197, {}}, Dim{768, {}}})};
  ShapeValue dims = shape.one();
  ShapeValue b = Call("Gather").in(dims).in(scalar(0)).one();
  ShapeValue bt = Call("Mul").in(b).in(scalar(197)).one();
  EXPECT_EQ(bt.to_string(), "batch*197");
  ShapeValue back = Call("Div").in(bt).in(scalar(197)).one();
  EXPECT_EQ(back.to_string(), "batch");
  // Cast to float and back keeps the symbolic integer.
  Call to_float("Cast");
  to_float.in(back).attr_i("to", static_cast<int64_t>(DType::Float));
  Call to_int("Cast");
  to_int.in(to_float.one()).attr_i("to", static_cast<int64_t>(DType::Int64));
  EXPECT_EQ(to_int.one().to_string(), "batch");
  ShapeValue target = Call("Concat").attr_i("axis", 0).in(Call("Unsqueeze", 11).attr_ints("axes", {0}).in(bt).one())
                          .in(ints({768})).one();
  EXPECT_EQ(target.to_string(), "[batch*197, 768]");
  // Comparisons decide what a constant difference decides.
  EXPECT_EQ(Call("Equal").in(back).in(back).one().elems[0].i, 1);
  EXPECT_EQ(Call("Less").in(back).in(Call("Add").in(back).in(scalar(1)).one()).one().elems[0].i, 1);
  EXPECT_FALSE(Call("Less").in(back).in(scalar(4)).one().elems[0].known());  // batch < 4: not decidable
}

TEST(ValueEval, IntegerArithmeticFollowsTheRuntime) {
  EXPECT_EQ(as_ints(Call("Div").in(ints({7, -7})).in(scalar(2)).one()), (std::vector<int64_t>{3, -3}));  // truncates
  EXPECT_EQ(as_ints(Call("Mod").in(ints({7, -7})).in(scalar(3)).one()), (std::vector<int64_t>{1, 2}));  // divisor's sign
  EXPECT_EQ(as_ints(Call("Mod").attr_i("fmod", 1).in(ints({7, -7})).in(scalar(3)).one()), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(as_ints(Call("Pow").in(ints({2, -1, 1})).in(ints({10, 63, INT64_MAX})).one()),
            (std::vector<int64_t>{1024, -1, 1}));
  EXPECT_EQ(as_ints(Call("Max").in(ints({1, 9})).in(scalar(4)).in(ints({2, 3})).one()), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(as_ints(Call("ReduceProd", 13).attr_i("keepdims", 0).in(ints({2, 3, 4}, {3})).one()),
            (std::vector<int64_t>{24}));
}

TEST(ValueEval, DivisionByZeroAndOverflowAreErrorsNotCrashes) {
  EXPECT_THROW(Call("Div").in(scalar(1)).in(scalar(0)).one(), EvalError);
  EXPECT_THROW(Call("Mod").in(scalar(1)).in(scalar(0)).one(), EvalError);
  EXPECT_THROW(Call("Div").in(scalar(INT64_MIN)).in(scalar(-1)).one(), EvalError);
  EXPECT_THROW(Call("Mul").in(scalar(INT64_MAX)).in(scalar(2)).one(), EvalError);
  EXPECT_THROW(Call("Add").in(scalar(INT64_MAX)).in(scalar(1)).one(), EvalError);
  EXPECT_THROW(Call("Pow").in(scalar(3)).in(scalar(1000)).one(), EvalError);
  EXPECT_THROW(Call("Neg").in(scalar(INT64_MIN)).one(), EvalError);
  // Floats follow IEEE: the runtime would produce inf too.
  EXPECT_TRUE(std::isinf(Call("Div").in(reals({1}, {})).in(reals({0}, {})).one().elems[0].f));
}

TEST(ValueEval, HugeOrNegativeSizesAreNeverAllocated) {
  // A Range of 2^40 elements is not computed (its shape is libonnx's business); nothing is allocated.
  auto r = Call("Range").in(scalar(0)).in(scalar(int64_t{1} << 40)).in(scalar(1)).run();
  EXPECT_FALSE(r[0]);
  EXPECT_EQ(as_ints(Call("Range").in(scalar(10)).in(scalar(0)).in(scalar(-3)).one()), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_THROW(Call("Range").in(scalar(0)).in(scalar(5)).in(scalar(0)).one(), EvalError);
  EXPECT_FALSE(Call("ConstantOfShape").in(ints({1 << 20, 1 << 20})).run()[0]);
  EXPECT_THROW(Call("ConstantOfShape").in(ints({-1})).run(), EvalError);
  EXPECT_THROW(Call("Reshape").in(ints({1, 2, 3, 4})).in(ints({-2, 2})).run(), EvalError);
  EXPECT_THROW(Call("Reshape").in(ints({1, 2, 3, 4})).in(ints({-1, -1})).run(), EvalError);
  EXPECT_THROW(Call("Tile").in(ints({1, 2})).in(ints({-3})).run(), EvalError);
  EXPECT_FALSE(Call("Tile").in(ints({1, 2})).in(ints({INT64_MAX})).run()[0]);
  EXPECT_FALSE(Call("Expand").in(scalar(1)).in(ints({1 << 30})).run()[0]);
  // A float Range with a non-finite count is an error; with an absurd one, not computed.
  EXPECT_THROW(Call("Range").in(reals({0}, {})).in(reals({INFINITY}, {})).in(reals({1}, {})).run(), EvalError);
  EXPECT_FALSE(Call("Range").in(reals({0}, {})).in(reals({1e300}, {})).in(reals({1}, {})).run()[0]);
}

TEST(ValueEval, CastOfNonFiniteOrOutOfRangeFloatsIsUnknownNotUndefinedBehaviour) {
  Call c("Cast");
  c.in(reals({NAN, INFINITY, 1e30, -2.7}, {4})).attr_i("to", static_cast<int64_t>(DType::Int64));
  ShapeValue v = c.one();
  EXPECT_FALSE(v.elems[0].known());
  EXPECT_FALSE(v.elems[1].known());
  EXPECT_FALSE(v.elems[2].known());
  EXPECT_EQ(v.elems[3].i, -2);  // truncation toward zero
  Call narrow("Cast");
  narrow.in(scalar(300)).attr_i("to", static_cast<int64_t>(DType::UInt8));
  EXPECT_EQ(narrow.one().elems[0].i, 44);  // wraps like a C cast
}

TEST(ValueEval, SliceClampsLikeOnnxIncludingExtremeEndsAndNegativeSteps) {
  ShapeValue x = ints({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(as_ints(Call("Slice").in(x).in(ints({1})).in(ints({INT64_MAX})).in(ints({0})).in(ints({3})).one()),
            (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(as_ints(Call("Slice").in(x).in(ints({-1})).in(ints({INT64_MIN})).in(ints({0})).in(ints({-4})).one()),
            (std::vector<int64_t>{9, 5, 1}));
  EXPECT_EQ(as_ints(Call("Slice").in(x).in(ints({8})).in(ints({2})).one()), std::vector<int64_t>{});
  EXPECT_THROW(Call("Slice").in(x).in(ints({0})).in(ints({5})).in(ints({0})).in(ints({0})).one(), EvalError);
  EXPECT_EQ(as_ints(Call("Slice", 9).attr_ints("starts", {-3}).attr_ints("ends", {100}).in(x).one()),
            (std::vector<int64_t>{7, 8, 9}));
}

TEST(ValueEval, GatherConcatSplitTransposeMoveElements) {
  ShapeValue m = ints({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(as_ints(Call("Gather").attr_i("axis", 1).in(m).in(ints({-1, 0})).one()), (std::vector<int64_t>{3, 1, 6, 4}));
  EXPECT_THROW(Call("Gather").in(m).in(ints({2})).one(), EvalError);
  EXPECT_EQ(as_ints(Call("Transpose").in(m).one()), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(as_ints(Call("Concat").attr_i("axis", 1).in(m).in(ints({7, 8}, {2, 1})).one()),
            (std::vector<int64_t>{1, 2, 3, 7, 4, 5, 6, 8}));
  auto parts = Call("Split", 13).attr_i("axis", 1).in(m).in(ints({1, 2})).run(2);
  EXPECT_EQ(as_ints(*parts[0]), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(as_ints(*parts[1]), (std::vector<int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(as_ints(Call("GatherElements").attr_i("axis", 1).in(m).in(ints({2, 0, 1, 1}, {2, 2})).one()),
            (std::vector<int64_t>{3, 1, 5, 5}));
  EXPECT_EQ(Call("Reshape").in(m).in(ints({0, -1})).one().dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Call("Flatten").attr_i("axis", 0).in(m).one().dims, (std::vector<int64_t>{1, 6}));
}

TEST(ValueEval, WhereNonZeroAndLogic) {
  ShapeValue cond = ints({1, 0, 1}, {3}, DType::Bool);
  EXPECT_EQ(as_ints(Call("Where").in(cond).in(ints({1, 2, 3})).in(scalar(-1)).one()), (std::vector<int64_t>{1, -1, 3}));
  ShapeValue nz = Call("NonZero").in(ints({0, 5, 0, 7}, {2, 2})).one();
  EXPECT_EQ(nz.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(as_ints(nz), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(as_ints(Call("Not").in(cond).one()), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(as_ints(Call("And").in(cond).in(ints({1, 1, 0}, {3}, DType::Bool)).one()), (std::vector<int64_t>{1, 0, 0}));
}
