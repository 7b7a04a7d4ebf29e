#pragma once
// The regularized incomplete beta function, which Student's t (Welch's test, score intervals) and the binomial
// tail (MLPerf's early stopping) both reduce to. Pure functions of their arguments.
namespace rooflens::stats {

// I_x(a, b) for a, b > 0 and x in [0, 1], by its continued fraction (DLMF 8.17.22, modified Lentz), using
// I_x(a, b) = 1 - I_{1-x}(b, a) where that converges faster. Relative error ~1e-14; NaN outside the domain.
double incomplete_beta(double a, double b, double x);

}  // namespace rooflens::stats
