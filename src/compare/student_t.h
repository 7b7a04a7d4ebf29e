#pragma once
// Student's t distribution for Welch's test on repetitions (any real degrees of freedom, since Welch's are
// fractional), through the regularized incomplete beta function. Pure functions, no state.
namespace rooflens {

// I_x(a, b) for a, b > 0 and x in [0, 1]: the regularized incomplete beta function, by its continued fraction
// (modified Lentz), using I_x(a, b) = 1 - I_{1-x}(b, a) where that converges faster. Relative error ~1e-14.
double incomplete_beta(double a, double b, double x);

// P(T <= t) for Student's t with `df` > 0 degrees of freedom:
// 1 - I_{df/(df+t^2)}(df/2, 1/2) / 2 for t >= 0, and by symmetry below.
double student_t_cdf(double t, double df);

// P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2): the two-sided p of a t statistic (exact in the tails, where
// 1 - cdf would lose digits).
double student_t_two_sided_p(double t, double df);

// The t with student_t_cdf(t, df) = p, for p in (0, 1): bracketing, then bisection to double precision.
double student_t_quantile(double p, double df);

}  // namespace rooflens
