#pragma once
// The standard normal distribution (the Mann-Whitney test's large-sample approximation, the median's confidence
// interval). Pure functions.
namespace rooflens::stats {

// P(Z <= z) = erfc(-z / √2) / 2.
double normal_cdf(double z);

// The z with normal_cdf(z) = p, for p in (0, 1), by bisection on [-10, 10] to double precision.
double normal_quantile(double p);

}  // namespace rooflens::stats
