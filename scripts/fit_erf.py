"""Derives the erf coefficient tables of passes/lowering/scalar.c (erfApprox)
and prints them as C, with the error of the f32 evaluation they get there
(fused multiply-adds, emulated in f64 and rounded to f32 at each step) on
every STRIDE-th float in (0, 6] against math.erf.

  |x| < SPLIT:           erf(x) = x + x P(x^2)        P relative to erf(x)/x
  SPLIT <= |x| <= CLAMP: erf(x) = copysign(Q(|x| - CENTRE), x)   Q absolute
  |x| > CLAMP:           as at CLAMP

Each fit is a minimax approximation by Lawson's iteration (weighted least
squares, weights multiplied by the residual each round) on Chebyshev nodes in
f64. Coefficients are rounded to f32 from the highest degree down, the lower
ones refitted after each rounding, so the f32 table is itself near minimax.

Usage: /usr/bin/python3 scripts/fit_erf.py [--stride N]   (numpy only; ~1 min)
"""

import argparse
import math

import numpy as np

SPLIT, CLAMP, DEG_SMALL, DEG_LARGE = 1.0, 3.84, 5, 12
f32 = np.float32
erf = np.vectorize(math.erf, otypes=[np.float64])


def chebyshev_nodes(a, b, n=8000):
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    return np.sort((t + 1) / 2 * (b - a) + a)


def lawson(f, basis, weight, rounds=60):
    """Coefficients c minimising max |(basis c - f) weight| (approximately)."""
    w = np.full(f.size, 1.0 / f.size)
    for _ in range(rounds):
        s = np.sqrt(w) * weight
        c, *_ = np.linalg.lstsq(basis * s[:, None], f * s, rcond=None)
        e = np.abs((basis @ c - f) * weight)
        w = w * e
        w /= w.sum()
    return c


def fit_f32(v, f, weight, degree):
    """Monomial coefficients in v, each an f32, rounded highest first."""
    basis = np.vander(v, degree + 1, increasing=True)
    fixed = {}
    for j in range(degree, -1, -1):
        free = [k for k in range(degree + 1) if k not in fixed]
        rest = f - sum(fixed[k] * basis[:, k] for k in fixed) if fixed else f
        c = lawson(rest, basis[:, free], weight)
        fixed[j] = float(f32(c[free.index(j)]))
    return [fixed[k] for k in range(degree + 1)]


def fma(a, b, c):
    return (a.astype(np.float64) * b + c).astype(f32)


def horner(c, v):
    h = np.full_like(v, f32(c[-1]))
    for cj in reversed(c[:-1]):
        h = fma(h, v, np.full_like(v, f32(cj)))
    return h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stride", type=int, default=997)
    opts = ap.parse_args()
    centre = float(f32((SPLIT + CLAMP) / 2))
    u = chebyshev_nodes(1e-12, SPLIT * SPLIT)
    g = erf(np.sqrt(u)) / np.sqrt(u)
    p = fit_f32(u, g - 1, 1 / g, DEG_SMALL)
    a = chebyshev_nodes(SPLIT, CLAMP)
    q = fit_f32(a - centre, erf(a), np.ones_like(a), DEG_LARGE)

    print(f"static const double kErfSplit = {SPLIT}, kErfClamp = {float(f32(CLAMP)):.9g}, "
          f"kErfCentre = {centre:.9g};")
    print(f"static const double kErfSmall[{len(p)}] = {{{', '.join(f'{v:.9g}' for v in p)}}};")
    print(f"static const double kErfLarge[{len(q)}] = {{{', '.join(f'{v:.9g}' for v in q)}}};")

    b0, b1 = np.array([1e-38, 6.0], f32).view(np.uint32)
    x = np.arange(b0, b1, opts.stride, dtype=np.uint32).view(f32)
    small = fma(x, horner(p, (x * x).astype(f32)), x)
    t = (np.minimum(x, f32(CLAMP)) - f32(centre)).astype(f32)
    y = np.where(x < f32(SPLIT), small, horner(q, t)).astype(np.float64)
    ref = erf(x.astype(np.float64))
    err = np.abs(y - ref)
    ulps = err / np.spacing(ref.astype(f32)).astype(np.float64)
    print(f"f32 evaluation on {x.size} floats in (0, 6]: max |error| {err.max():.3g}, "
          f"max {ulps.max():.3g} ulp")


if __name__ == "__main__":
    main()
