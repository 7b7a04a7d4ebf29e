#pragma once
// Student's t distribution at any real degrees of freedom (Welch's are fractional), through the regularized
// incomplete beta function. Pure functions.
namespace rooflens::stats {

// P(T <= t) with `df` > 0 degrees of freedom: 1 - I_{df/(df+t^2)}(df/2, 1/2) / 2 for t >= 0, by symmetry below.
double student_t_cdf(double t, double df);

// P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2): the two-sided p of a t statistic (exact in the tails, where 1 - cdf
// would lose digits).
double student_t_two_sided_p(double t, double df);

// The t with student_t_cdf(t, df) = p, for p in (0, 1): bracketing, then bisection to double precision.
double student_t_quantile(double p, double df);

}  // namespace rooflens::stats
