#include "capacity/generative/step_model.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace rooflens::capacity::generative {
namespace {

// Least squares of y over the columns of x (each row: its regressors), the columns in `use` only (the others 0), by
// the normal equations and Gaussian elimination with partial pivoting. Empty when singular.
std::vector<double> least_squares(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                                  const std::vector<bool>& use) {
  std::vector<size_t> cols;
  for (size_t c = 0; c < use.size(); ++c)
    if (use[c]) cols.push_back(c);
  const size_t n = cols.size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0));
  for (size_t r = 0; r < x.size(); ++r)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) a[i][j] += x[r][cols[i]] * x[r][cols[j]];
      a[i][n] += x[r][cols[i]] * y[r];
    }
  for (size_t i = 0; i < n; ++i) {
    size_t pivot = i;
    for (size_t k = i + 1; k < n; ++k)
      if (std::fabs(a[k][i]) > std::fabs(a[pivot][i])) pivot = k;
    if (std::fabs(a[pivot][i]) < 1e-12) return {};
    std::swap(a[i], a[pivot]);
    for (size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      const double f = a[k][i] / a[i][i];
      for (size_t j = i; j <= n; ++j) a[k][j] -= f * a[i][j];
    }
  }
  std::vector<double> out(use.size(), 0);
  for (size_t i = 0; i < n; ++i) out[cols[i]] = a[i][n] / a[i][i];
  return out;
}

// Fitted with every coefficient >= 0: a negative one is held at 0 and the rest fitted again.
std::vector<double> nonnegative_fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                                    const char* what) {
  std::vector<bool> use(x.empty() ? 0 : x[0].size(), false);
  for (const auto& row : x)  // a column no call exercises cannot be fitted: it stays 0
    for (size_t c = 0; c < row.size(); ++c) use[c] = use[c] || row[c] != 0;
  for (;;) {
    std::vector<double> c = least_squares(x, y, use);
    if (c.empty()) throw std::invalid_argument(std::string("the ") + what + " calls cannot separate the terms");
    bool negative = false;
    for (size_t i = 0; i < c.size(); ++i)
      if (use[i] && c[i] < 0) {
        use[i] = false;
        negative = true;
      }
    if (!negative) return c;
  }
}

}  // namespace

StepCost fit_step_cost(const std::vector<TimedCall>& prefill, const std::vector<TimedCall>& decode) {
  std::vector<std::vector<double>> xp, xd;
  std::vector<double> yp, yd;
  for (const auto& c : prefill) {
    xp.push_back({1.0, static_cast<double>(c.prefill_tokens)});
    yp.push_back(c.ms);
  }
  for (const auto& c : decode) {
    xd.push_back({1.0, static_cast<double>(c.rows), static_cast<double>(c.context), static_cast<double>(c.rebuilt)});
    yd.push_back(c.ms);
  }
  if (xp.size() < 2 || xd.size() < 3) throw std::invalid_argument("too few calibration calls");
  const std::vector<double> p = nonnegative_fit(xp, yp, "prefill");
  const std::vector<double> d = nonnegative_fit(xd, yd, "decode");
  StepCost s;
  s.per_prefill_call_ms = p[0];
  s.per_prefill_token_ms = p[1];
  s.per_decode_call_ms = d[0];
  s.per_decode_row_ms = d[1];
  s.per_context_token_ms = d[2];
  s.per_rebuilt_token_ms = d[3];
  return s;
}

}  // namespace rooflens::capacity::generative
