#!/usr/bin/env python3
"""Which test for repetitions? Monte Carlo (stdlib only) of false-positive rate and power.
A run (repetition) gets a machine factor exp(sigma_b*Z) (or a heavy-tailed 'busy machine' factor); its samples
scatter around it with within-run CV and slow AR(1) drift. Methods (alpha = 0.05):
  welch   Welch's t on log(repetition medians)
  mw      exact Mann-Whitney on repetition medians
  cboot   cluster bootstrap (resample repetitions) percentile interval of the pooled-median ratio excludes 1
  blocks  today's single-run method on the pooled samples: MW on 20 block medians + block bootstrap"""
import math, random, statistics, itertools, sys
from tdist import welch_log

ALPHA = 0.05

def run_samples(rng, level, n, cv, drift):
    out, a = [], 0.0
    for _ in range(n):
        a = 0.98 * a + rng.gauss(0, drift)
        out.append(level * (1 + a) * (1 + rng.gauss(0, cv)))
    return out

def machine_factor(rng, kind, sb):
    if kind == 'lognormal':
        return math.exp(rng.gauss(0, sb))
    # heavy: mostly quiet, sometimes a busy run 10-50% slower
    if rng.random() < 0.2:
        return 1 + rng.uniform(0.10, 0.50)
    return math.exp(rng.gauss(0, 0.02))

def side(rng, reps, true_ms, kind, sb, n=60, cv=0.05, drift=0.003):
    return [run_samples(rng, true_ms * machine_factor(rng, kind, sb), n, cv, drift) for _ in range(reps)]

def mw_exact_p(a, b):
    # exact two-sided p (no ties) by counting via recurrence
    m, n = len(a), len(b)
    u = sum(1 for x in a for y in b if x > y)
    umin = min(u, m * n - u)
    from functools import lru_cache
    @lru_cache(None)
    def cnt(i, j, k):
        if k < 0: return 0
        if i == 0 or j == 0: return 1 if k == 0 else 0
        return cnt(i - 1, j, k - j) + cnt(i, j - 1, k)
    total = math.comb(m + n, m)
    p = sum(cnt(m, n, k) for k in range(umin + 1)) / total
    return min(1.0, 2 * p)

def mw_normal_p(a, b):
    m, n = len(a), len(b)
    u = sum(1 for x in a for y in b if x > y)
    mu = m * n / 2; sd = math.sqrt(m * n * (m + n + 1) / 12)
    z = max(0, abs(u - mu) - 0.5) / sd
    return math.erfc(z / math.sqrt(2))

def boot_ci(base_blocks, new_blocks, rng, B=300):
    rs = []
    for _ in range(B):
        b = [v for _ in base_blocks for v in rng.choice(base_blocks)]
        nw = [v for _ in new_blocks for v in rng.choice(new_blocks)]
        rs.append(statistics.median(nw) / statistics.median(b))
    rs.sort()
    cut = int(ALPHA / 2 * B)
    return rs[cut], rs[B - 1 - cut]

def blocks_of(samples, B=20):
    n = len(samples)
    return [samples[b * n // B:(b + 1) * n // B] for b in range(B)]

def decide(base, new, rng, methods):
    med_b = [statistics.median(r) for r in base]; med_n = [statistics.median(r) for r in new]
    out = {}
    if 'welch' in methods:
        w = welch_log(med_b, med_n)
        out['welch'] = (w['p'] < ALPHA, w['ratio'])
    if 'mw' in methods:
        out['mw'] = (mw_exact_p(med_b, med_n) < ALPHA, None)
    if 'cboot' in methods:
        lo, hi = boot_ci(base, new, rng)
        out['cboot'] = (lo > 1 or hi < 1, None)
    if 'blocks' in methods:
        pb = [v for r in base for v in r]; pn = [v for r in new for v in r]
        bb, nb = blocks_of(pb), blocks_of(pn)
        p = mw_normal_p([statistics.median(x) for x in bb], [statistics.median(x) for x in nb])
        lo, hi = boot_ci(bb, nb, rng)
        out['blocks'] = (p < ALPHA and (lo > 1 or hi < 1), None)
    return out

def scenario(name, reps, kind, sb, slow, trials, methods, seed):
    rng = random.Random(seed)
    hits = {m: 0 for m in methods}
    for _ in range(trials):
        base = side(rng, reps, 10.0, kind, sb)
        new = side(rng, reps, 10.0 * slow, kind, sb)
        for m, (sig, _) in decide(base, new, rng, methods).items():
            hits[m] += sig
    print(f"{name:62s} " + "  ".join(f"{m} {hits[m] / trials:5.3f}" for m in methods), flush=True)

if __name__ == '__main__':
    T = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    part = sys.argv[2] if len(sys.argv) > 2 else 'all'
    M = ['welch', 'mw', 'cboot', 'blocks']
    rows = [
        ("no change, 5 vs 5 runs, runs vary 10% (log-normal)", 5, 'lognormal', 0.10, 1.0, 1),
        ("no change, 3 vs 3 runs, runs vary 10%", 3, 'lognormal', 0.10, 1.0, 2),
        ("no change, 5 vs 5 runs, runs vary 2%", 5, 'lognormal', 0.02, 1.0, 3),
        ("no change, 5 vs 5 runs, heavy tail (20% of runs +10..50%)", 5, 'heavy', 0, 1.0, 4),
        ("no change, 3 vs 3 runs, heavy tail", 3, 'heavy', 0, 1.0, 5),
        ("+10%, 5 vs 5 runs, runs vary 3%", 5, 'lognormal', 0.03, 1.10, 6),
        ("+10%, 3 vs 3 runs, runs vary 3%", 3, 'lognormal', 0.03, 1.10, 7),
        ("+10%, 5 vs 5 runs, runs vary 10%", 5, 'lognormal', 0.10, 1.10, 8),
        ("+10%, 5 vs 5 runs, heavy tail", 5, 'heavy', 0, 1.10, 9),
    ]
    if part == 'a': rows = rows[:5]
    elif part == 'b': rows = rows[5:]
    for name, reps, kind, sb, slow, seed in rows:
        scenario(name, reps, kind, sb, slow, T, M, seed)
