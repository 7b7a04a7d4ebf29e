#pragma once
// Symbolic integer expressions for dims that stay symbolic during shape resolution: polynomials over dim names
// with integer coefficients ("batch*197", "seq+past", "2*n"). Kept deliberately small — a few terms of a few
// factors — so arithmetic on them is cheap; anything larger (or an inexact division) is simply unknown.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

class SymExpr {
 public:
  static SymExpr constant(int64_t c);
  static SymExpr symbol(const std::string& name);

  bool is_constant() const;                 // no symbol left (including 0)
  int64_t constant_term() const;            // the coefficient of the empty monomial
  // "batch*197", "seq+past+1", "2*n-1": symbols of a term joined by '*', its coefficient last.
  std::string to_string() const;
  bool operator==(const SymExpr& o) const { return terms_ == o.terms_; }

  // Arithmetic; nullopt on int64 overflow or when the result would outgrow the size limits.
  std::optional<SymExpr> add(const SymExpr& o) const;
  std::optional<SymExpr> sub(const SymExpr& o) const;
  std::optional<SymExpr> mul(const SymExpr& o) const;
  std::optional<SymExpr> neg() const;
  // Exact division by a non-zero constant: every coefficient must be divisible, else nullopt.
  std::optional<SymExpr> div_exact(int64_t d) const;

  static constexpr size_t kMaxTerms = 8;    // terms in one expression
  static constexpr size_t kMaxFactors = 4;  // symbols in one term

 private:
  using Monomial = std::vector<std::string>;  // sorted symbol names, repeated for powers
  std::map<Monomial, int64_t> terms_;         // non-zero coefficients only
  bool small_enough() const;
};

}  // namespace rooflens
