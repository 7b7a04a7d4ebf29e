// Statistics needed for the adaptive stop of the timed loop (the C++ side owns all reported statistics; this interval
// is src/stats/order.h's median_ci, and tests/fixtures/timed_loop_spec.json holds the two to the same values).

// Acklam's rational approximation of the inverse standard normal CDF: relative error < 1.2e-9, only the start of
// normInv below.
function acklamNormInv(p) {
  const a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
    -3.066479806614716e+01, 2.506628277459239e+00];
  const b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
    -1.328068155288572e+01];
  const c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
    4.374664141464968e+00, 2.938163982698783e+00];
  const d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
  const pl = 0.02425;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - pl) return -acklamNormInv(1 - p);
  const q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// Φ(x) for x >= 0, to about 2e-16 absolute, from the series Φ(x) = 1/2 + φ(x)·(x + x³/3 + x⁵/(3·5) + …): every term
// is positive for x >= 0, so nothing cancels; terms grow until (2k + 1) passes x², then fall.
function normCdfNonNegative(x) {
  let term = x, sum = x;
  for (let k = 3; term > sum * 1e-17; k += 2) {
    term *= (x * x) / k;
    sum += term;
  }
  return 0.5 + (sum * Math.exp(-(x * x) / 2)) / Math.sqrt(2 * Math.PI);
}

// The z with Φ(z) = p, to double precision: Acklam's start and one Halley step on Φ (the refinement Acklam gives).
// Its 1.2e-9 alone is not enough: the interval's ranks floor and ceil z√n, and at some (n, confidence) the error
// moves one across an integer where the C++ quantile (bisection on erfc to double precision) does not: n = 78,702
// at 0.793 and n = 30,122 at 0.988, two cases of tests/fixtures/timed_loop_spec.json.
function normInv(p) {
  if (p < 0.5) return -normInv(1 - p);
  const x = acklamNormInv(p);
  const u = (normCdfNonNegative(x) - p) * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

// Distribution-free confidence interval of the median from order statistics: ranks
// j = floor((n - z√n)/2), k = ceil(1 + (n + z√n)/2) (1-based). null when n is too small.
export function medianCi(samples, confidence) {
  const n = samples.length;
  const z = normInv(0.5 + confidence / 2);
  const j = Math.floor((n - z * Math.sqrt(n)) / 2);
  const k = Math.ceil(1 + (n + z * Math.sqrt(n)) / 2);
  if (j < 1 || k > n) return null;
  const s = Float64Array.from(samples).sort();
  return { median: median(s), low: s[j - 1], high: s[k - 1] };
}

// The median of numbers (the mean of the two middle ones for an even count).
export function median(xs) {
  const s = Float64Array.from(xs).sort();
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
