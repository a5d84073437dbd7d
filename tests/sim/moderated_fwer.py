#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Holm's family-wise error and power of the report's moderated t (docs/reports.md, "Moderated t")
on simulated studies: 24 cells x 5 metrics, two labels, 3 or 5 repetitions, each cell's CV
equal (spread 1) or log-uniform over [0.5 %, 0.5 % * spread]. Not run by `make test`; needs
numpy and scipy:  /usr/bin/python3 tests/sim/moderated_fwer.py [studies]   (default 1000)

"limma" is fitFDist's moment estimate as published; "report" is what iomatrix does: the spread
of the log-variances at its upper 95 % bound (Wilson-Hilferty chi-square quantile), and Welch's
test for a metric whose prior is worth fewer than 4 df or has fewer than 10 comparisons.
"""
import sys
import numpy as np
from scipy import stats
from scipy.optimize import brentq
from scipy.special import digamma, polygamma


def trigamma_inv(y):
    return brentq(lambda x: polygamma(1, x) - y, 1e-12, 1e12, xtol=1e-300, rtol=1e-15)


def wh(p, k):
    h = 2 / (9 * k)
    return k * (1 - h + stats.norm.ppf(p) * np.sqrt(h)) ** 3


def fit_prior(s2, d, conf):
    n = len(s2)
    m = np.median(s2)
    s2 = np.maximum(s2, 1e-5 * m)
    e = np.log(s2) - digamma(d / 2) + np.log(d / 2)
    em = e.mean()
    ev = ((e - em) ** 2).sum() / (n - 1)
    if conf:
        ev = ev * (n - 1) / wh(1 - conf, n - 1)
    ev -= polygamma(1, d / 2).mean()
    if ev > 0:
        d0 = 2 * trigamma_inv(ev)
        return d0, np.exp(em + digamma(d0 / 2) - np.log(d0 / 2)), d.sum()
    return np.inf, np.exp(em), d.sum()


def holm_count(p, a=0.05):
    o = np.sort(p)
    for i, pi in enumerate(o):
        if pi * (len(o) - i) >= a:
            return i
    return len(o)


def study(rng, spread, reps, mode, effect, ncell=24, nk=5):
    allp = []
    for _ in range(nk):
        if spread > 1:
            cvs = 0.005 * np.exp(rng.uniform(0, np.log(spread), ncell))
        else:
            cvs = np.full(ncell, 0.03)
        x = np.log(1 + cvs[:, None] * rng.standard_normal((ncell, reps)))
        y = np.log((1 + effect) * (1 + cvs[:, None] * rng.standard_normal((ncell, reps))))
        d = 2 * reps - 2
        s2 = (x.var(axis=1, ddof=1) + y.var(axis=1, ddof=1)) / 2
        d0, s0, cap = fit_prior(s2, np.full(ncell, float(d)), 0.95 if mode == "report" else 0)
        if mode == "report" and (d0 < 4 or ncell < 10):
            allp += list(stats.ttest_ind(x, y, axis=1, equal_var=False).pvalue)
            continue
        if np.isinf(d0):
            v, df = np.full(ncell, s0), cap
        else:
            v, df = (d0 * s0 + d * s2) / (d0 + d), min(d0 + d, cap)
        t = (x.mean(1) - y.mean(1)) / np.sqrt(v * 2 / reps)
        allp += list(2 * stats.t.sf(abs(t), df))
    return holm_count(np.array(allp))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(1)
    print("null studies: share with a false Holm win (5 % nominal)")
    for spread in (1, 2, 3, 5, 10, 20):
        for reps in (3, 5):
            r = [np.mean([study(rng, spread, reps, mode, 0) > 0 for _ in range(n)])
                 for mode in ("limma", "report")]
            print(f"  CV spread {spread:2}x, {reps} reps: limma {r[0]:.3f}  report {r[1]:.3f}")
    print("10 % difference, CV 3 %, 5 reps: comparisons found of 120 (min / mean)")
    for mode in ("limma", "report"):
        f = [study(rng, 1, 5, mode, 0.10) for _ in range(max(n // 10, 10))]
        print(f"  {mode}: {min(f)} / {np.mean(f):.1f}")


main()
