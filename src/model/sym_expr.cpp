#include "model/sym_expr.h"

#include <algorithm>

namespace rooflens {

SymExpr SymExpr::constant(int64_t c) {
  SymExpr e;
  if (c != 0) e.terms_[{}] = c;
  return e;
}

SymExpr SymExpr::symbol(const std::string& name) {
  SymExpr e;
  e.terms_[{name}] = 1;
  return e;
}

bool SymExpr::is_constant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }

int64_t SymExpr::constant_term() const {
  auto it = terms_.find({});
  return it == terms_.end() ? 0 : it->second;
}

bool SymExpr::small_enough() const {
  if (terms_.size() > kMaxTerms) return false;
  for (const auto& [m, _] : terms_)
    if (m.size() > kMaxFactors) return false;
  return true;
}

std::string SymExpr::to_string() const {
  if (terms_.empty()) return "0";
  std::string s;
  // Terms with symbols first (in name order), the constant last: "seq+past+1" rather than "1+past+seq".
  std::vector<std::pair<Monomial, int64_t>> order(terms_.begin(), terms_.end());
  std::stable_partition(order.begin(), order.end(), [](const auto& t) { return !t.first.empty(); });
  for (const auto& [m, c] : order) {
    const bool negative = c < 0;
    // |c| without negating INT64_MIN (which has no positive counterpart).
    const uint64_t mag = negative ? uint64_t{0} - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
    if (!s.empty()) s += negative ? "-" : "+";
    else if (negative) s += "-";
    std::string term;
    for (const auto& sym : m) term += (term.empty() ? "" : "*") + sym;
    if (term.empty()) term = std::to_string(mag);
    else if (mag != 1) term += "*" + std::to_string(mag);
    s += term;
  }
  return s;
}

std::optional<SymExpr> SymExpr::add(const SymExpr& o) const {
  SymExpr r = *this;
  for (const auto& [m, c] : o.terms_) {
    int64_t sum = 0;
    auto it = r.terms_.find(m);
    if (__builtin_add_overflow(it == r.terms_.end() ? 0 : it->second, c, &sum)) return std::nullopt;
    if (sum == 0) r.terms_.erase(m);
    else r.terms_[m] = sum;
  }
  if (!r.small_enough()) return std::nullopt;
  return r;
}

std::optional<SymExpr> SymExpr::neg() const {
  SymExpr r;
  for (const auto& [m, c] : terms_) {
    if (c == INT64_MIN) return std::nullopt;
    r.terms_[m] = -c;
  }
  return r;
}

std::optional<SymExpr> SymExpr::sub(const SymExpr& o) const {
  auto n = o.neg();
  return n ? add(*n) : std::nullopt;
}

std::optional<SymExpr> SymExpr::mul(const SymExpr& o) const {
  SymExpr r;
  for (const auto& [ma, ca] : terms_)
    for (const auto& [mb, cb] : o.terms_) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t prod = 0;
      if (__builtin_mul_overflow(ca, cb, &prod)) return std::nullopt;
      if (m.size() > kMaxFactors) return std::nullopt;
      int64_t sum = 0;
      auto it = r.terms_.find(m);
      if (__builtin_add_overflow(it == r.terms_.end() ? 0 : it->second, prod, &sum)) return std::nullopt;
      if (sum == 0) r.terms_.erase(m);
      else r.terms_[m] = sum;
      if (r.terms_.size() > kMaxTerms * kMaxTerms) return std::nullopt;  // cancellation may still shrink it
    }
  if (!r.small_enough()) return std::nullopt;
  return r;
}

std::optional<SymExpr> SymExpr::div_exact(int64_t d) const {
  if (d == 0) return std::nullopt;
  SymExpr r;
  for (const auto& [m, c] : terms_) {
    if (d == -1 && c == INT64_MIN) return std::nullopt;  // the one division that overflows
    if (c % d != 0) return std::nullopt;
    r.terms_[m] = c / d;
  }
  return r;
}

}  // namespace rooflens
