#pragma once
// Builds one node with hand-written tensor shapes and runs its registered cost function.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis/cost.h"

namespace rooflens::testing {

inline const CostRegistry& registry() {
  static const CostRegistry r = CostRegistry::builtin();
  return r;
}

class OpCase {
 public:
  explicit OpCase(std::string op, std::string domain = "") {
    node_.name = op + "_0";
    node_.op = std::move(op);
    node_.domain = std::move(domain);
    node_.opset = 17;
  }
  // A resolved input; dims < 0 become unknown dims.
  OpCase& in(std::vector<int64_t> dims, DType t = DType::Float) { return push_in(make_tensor_info(t, dims)); }
  OpCase& init(std::vector<int64_t> dims, DType t = DType::Float) {
    push_in(make_tensor_info(t, dims));
    init_.back() = true;
    return *this;
  }
  OpCase& none() {  // omitted optional input
    node_.inputs.emplace_back();
    ins_.emplace_back();
    init_.push_back(false);
    return *this;
  }
  OpCase& unresolved() {  // named input whose type/shape nobody knows
    node_.inputs.push_back("in" + std::to_string(ins_.size()));
    ins_.emplace_back();
    init_.push_back(false);
    return *this;
  }
  OpCase& out(std::vector<int64_t> dims, DType t = DType::Float) {
    node_.outputs.push_back("out" + std::to_string(outs_.size()));
    outs_.push_back(make_tensor_info(t, dims));
    return *this;
  }
  OpCase& attr(const std::string& name, int64_t v) { return push_attr(name, Attribute::Kind::Int).i = v, *this; }
  OpCase& attr_f(const std::string& name, float v) { return push_attr(name, Attribute::Kind::Float).f = v, *this; }
  OpCase& attr_s(const std::string& name, std::string v) {
    return push_attr(name, Attribute::Kind::String).s = std::move(v), *this;
  }
  OpCase& attr_ints(const std::string& name, std::vector<int64_t> v) {
    return push_attr(name, Attribute::Kind::Ints).ints = std::move(v), *this;
  }
  OpCase& attr_strings(const std::string& name, std::vector<std::string> v) {
    return push_attr(name, Attribute::Kind::Strings).strings = std::move(v), *this;
  }
  OpCase& opset(int v) { return node_.opset = v, *this; }

  OpWork run() const {
    const CostFn* fn = registry().find(node_.domain, node_.op);
    if (!fn) {
      ADD_FAILURE() << "no cost function for " << node_.domain << "::" << node_.op;
      OpWork w;
      w.known = false;
      w.note = "unregistered";
      return w;
    }
    CostInput c;
    c.node = &node_;
    for (const auto& t : ins_) c.in.push_back(t ? &*t : nullptr);
    for (const auto& t : outs_) c.out.push_back(&t);
    c.in_is_initializer = init_;
    return (*fn)(c);
  }

 private:
  OpCase& push_in(TensorInfo t) {
    node_.inputs.push_back("in" + std::to_string(ins_.size()));
    ins_.emplace_back(std::move(t));
    init_.push_back(false);
    return *this;
  }
  Attribute& push_attr(const std::string& name, Attribute::Kind kind) {
    node_.attrs.push_back(Attribute{});
    node_.attrs.back().name = name;
    node_.attrs.back().kind = kind;
    return node_.attrs.back();
  }

  Node node_;
  std::vector<std::optional<TensorInfo>> ins_;
  std::vector<TensorInfo> outs_;
  std::vector<bool> init_;
};

// Expects a known result with exactly these counts.
#define EXPECT_WORK(work, want_flops, want_macs)       \
  do {                                                 \
    const ::rooflens::OpWork w_ = (work);              \
    EXPECT_TRUE(w_.known) << w_.note;                  \
    EXPECT_EQ(w_.flops, uint64_t{want_flops});         \
    EXPECT_EQ(w_.macs, uint64_t{want_macs});           \
  } while (0)

}  // namespace rooflens::testing
