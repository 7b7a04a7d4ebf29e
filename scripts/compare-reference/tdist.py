#!/usr/bin/env python3
"""Independent Student-t / incomplete-beta reference (stdlib only).
I_x(a,b) via the hypergeometric power series x^a(1-x)^b/(a B(a,b)) * 2F1(a+b,1;a+1;x)
(a different algorithm from the C++ continued fraction), and the t CDF also by Simpson
integration of the density, as a second check."""
import math

def lbeta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)

def _series(a, b, x):
    # 2F1(a+b, 1; a+1; x) = sum_n (a+b)_n/(a+1)_n x^n
    term, total, n = 1.0, 1.0, 0
    while True:
        term *= (a + b + n) / (a + 1 + n) * x
        total += term
        n += 1
        if abs(term) < 1e-17 * abs(total) or n > 200000:
            break
    return math.exp(a * math.log(x) + b * math.log1p(-x) - lbeta(a, b)) / a * total

def betainc(a, b, x):
    if x <= 0: return 0.0
    if x >= 1: return 1.0
    if x < a / (a + b):
        return _series(a, b, x)
    return 1.0 - _series(b, a, 1.0 - x)

def t_cdf(t, nu):
    x = nu / (nu + t * t)
    tail = 0.5 * betainc(nu / 2, 0.5, x)
    return 1 - tail if t > 0 else tail

def t_two_sided_p(t, nu):
    return betainc(nu / 2, 0.5, nu / (nu + t * t))

def t_quantile(q, nu):
    lo, hi = -1e6, 1e6
    for _ in range(300):
        mid = (lo + hi) / 2
        if t_cdf(mid, nu) < q: lo = mid
        else: hi = mid
    return (lo + hi) / 2

def t_pdf(t, nu):
    return math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)) / math.sqrt(nu * math.pi) * (1 + t * t / nu) ** (-(nu + 1) / 2)

def t_cdf_simpson(t, nu, steps=200000):
    # 1/2 + integral_0^t pdf (composite Simpson)
    if t == 0: return 0.5
    h = t / steps
    s = t_pdf(0, nu) + t_pdf(t, nu)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, nu)
    return 0.5 + s * h / 3

def welch_log(base, new, alpha=0.05):
    x = [math.log(v) for v in base]; y = [math.log(v) for v in new]
    n1, n2 = len(x), len(y)
    m1, m2 = sum(x) / n1, sum(y) / n2
    v1 = sum((v - m1) ** 2 for v in x) / (n1 - 1)
    v2 = sum((v - m2) ** 2 for v in y) / (n2 - 1)
    se2 = v1 / n1 + v2 / n2
    d = m2 - m1
    se = math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    t = d / se
    p = t_two_sided_p(t, df)
    q = t_quantile(1 - alpha / 2, df)
    return dict(ratio=math.exp(d), t=t, df=df, p=p, lo=math.exp(d - q * se), hi=math.exp(d + q * se))


if __name__ == '__main__':
    # The reference values of tests/unit/test_compare_repetitions.cpp.
    print('I_0.3(2.5, 0.5) =', repr(betainc(2.5, 0.5, 0.3)))
    print('I_0.9(10, 0.5)  =', repr(betainc(10, 0.5, 0.9)))
    print('I_0.95(50, 3.5) =', repr(betainc(50, 3.5, 0.95)))
    print('F_t(2; 5)       =', repr(t_cdf(2, 5)), '(Simpson:', repr(t_cdf_simpson(2, 5)), ')')
    print('p(3.5; 2.7)     =', repr(t_two_sided_p(3.5, 2.7)))
    print('p(10; 30)       =', repr(t_two_sided_p(10, 30)))
    for q, nu in ((0.975, 1), (0.975, 2), (0.975, 5), (0.975, 10), (0.975, 30), (0.995, 4), (0.975, 3.4)):
        print(f't_{q}({nu})', '=', repr(t_quantile(q, nu)))
    print(welch_log([8.62, 8.70, 7.61, 6.66, 12.11], [9.1, 8.4, 10.2, 7.9, 8.8]))
    print(welch_log([10.0, 10.3, 9.8], [11.2, 10.9, 11.5, 11.0]))
    print(welch_log([10.0, 10.5], [12.0, 12.2]))
