"""Accuracy of the compiled f32 erf and exact GELU (passes/lowering/scalar.c,
erfApprox) against math.erf in f64, on a dense grid of floats, with bounds
just above what the polynomials reach, so that any loss of accuracy fails.

The grid is every STRIDE-th f32 bit pattern in [0, 6] and its negation,
plus the points where the approximation changes (|x| = SPLIT, where it
switches polynomial, and CLAMP; a few ulp either side), zeros, denormals,
+-inf and NaN. With --stride 1 it is every float in [-6, 6] (2.1e9 of
them; about ten minutes).

erf bounds: max |error| <= 1e-7 and <= 1.8 ulp of the f32 result (measured
over every float in [-6, 6]: 9.95e-8 and 1.67 ulp; the A&S 7.1.26 code before
reached 6.0e-7 and 1.7e7 ulp near 0 on the default grid). Exact GELU, x/2 (1 + erf(x / sqrt 2))
on [-10, 10]: |error| <= |x|/2 1e-7 + 2 ulp of the result (erf's error
carried by x/2, plus the roundings of x / sqrt 2, of x/2 and of the result;
0.89 of that at most with --stride 16).

Usage: erf_accuracy.py [--stride N] [--target avx2|avx512|host]
"""

import argparse
import math
import sys

import numpy as np

import dlc

ERF_ABS, ERF_ULP, GELU_REL = 1e-7, 1.8, 1.0
SPLIT, CLAMP = 1.0, 3.84  # kErfSplit, kErfClamp in scalar.c


def f32_bits_grid(lo, hi, stride):
    """Every stride-th f32 in [lo, hi) (lo, hi >= 0), by bit pattern."""
    b0 = np.array([lo], np.float32).view(np.uint32)[0]
    b1 = np.array([hi], np.float32).view(np.uint32)[0]
    return np.arange(b0, b1, stride, dtype=np.uint32).view(np.float32)


def near(v, k=4):
    """v and its k neighbouring floats either side."""
    b = np.array([v], np.float32).view(np.uint32)[0]
    return np.arange(b - k, b + k + 1, dtype=np.uint32).view(np.float32)


def ulp_of(ref):
    """Spacing of f32 at |ref| (ref rounded to f32; the smallest denormal at 0)."""
    r = np.abs(ref).astype(np.float32)
    return np.spacing(r).astype(np.float64)


def module(op, n):
    t = f"tensor<{n}xf32>"
    return f"func.func @main(%x: {t}) -> {t} {{\n  %0 = dlg.{op} %x : {t}\n  return %0 : {t}\n}}\n"


def run_chunks(fn, x, n):
    out = np.empty_like(x)
    for i in range(0, x.size, n):
        part = x[i:i + n]
        pad = np.zeros(n, np.float32)
        pad[:part.size] = part
        out[i:i + part.size] = np.asarray(fn(pad))[:part.size]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stride", type=int, default=509)
    ap.add_argument("--target", default=None)
    opts = ap.parse_args()
    n = 1 << 16
    erf = dlc.compile(module("erf", n), target=opts.target)
    gelu = dlc.compile(module("gelu", n), target=opts.target)
    ok = True

    # erf: the dense grid, chunked through the reference so --stride 1 fits in memory
    specials = np.concatenate([near(SPLIT), near(CLAMP),
                               np.array([0.0, 1e-30, 1e-38, 1e-45, 1e-20, 1e-8, 0.5, 1.0,
                                         2.0, 3.0, 5.9], np.float32)])
    worst_abs = worst_ulp = 0.0
    where_abs = where_ulp = 0.0
    total = 0
    pos = f32_bits_grid(0.0, 6.0, opts.stride)
    step = 1 << 22
    for part in [pos[i:i + step] for i in range(0, pos.size, step)] + [specials]:
        x = np.concatenate([part, -part])
        got = run_chunks(erf, x, n).astype(np.float64)
        half = np.array([math.erf(v) for v in part.astype(np.float64).tolist()])
        ref = np.concatenate([half, -half])  # erf is odd
        err = np.abs(got - ref)
        ulps = err / ulp_of(ref)
        total += x.size
        if err.max() > worst_abs:
            worst_abs, where_abs = float(err.max()), float(x[err.argmax()])
        if ulps.max() > worst_ulp:
            worst_ulp, where_ulp = float(ulps.max()), float(x[ulps.argmax()])
        # exactly odd, and erf(+-0) keeps the sign of the zero
        if not np.array_equal(got[:part.size], -got[part.size:]):
            print("FAIL erf is not odd")
            ok = False
    print(f"erf over {total} floats in [-6, 6]: max |error| {worst_abs:.3g} at {where_abs:.9g}, "
          f"max {worst_ulp:.3g} ulp at {where_ulp:.9g}")
    if worst_abs > ERF_ABS or worst_ulp > ERF_ULP:
        print(f"FAIL erf error above {ERF_ABS:g} absolute or {ERF_ULP:g} ulp")
        ok = False

    edge = np.array([np.inf, -np.inf, np.nan, -0.0, 1e30, -1e30], np.float32)
    got = run_chunks(erf, edge, n)
    want = np.array([1.0, -1.0, np.nan, -0.0, 1.0, -1.0], np.float32)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if not same.all() or not np.signbit(got[3]):
        print(f"FAIL erf at inf, -inf, nan, -0, 1e30, -1e30: {got.tolist()}")
        ok = False
    else:
        print("erf(inf, -inf, nan, -0, +-1e30) = 1, -1, nan, -0, +-1")

    # exact GELU, x/2 (1 + erf(x / sqrt 2)) in f64, in chunks as erf above;
    # erf's error carried by x/2, plus the roundings of x / sqrt 2 and of the result
    grid = f32_bits_grid(0.0, 10.0, opts.stride * 4)
    edges = np.concatenate([near(SPLIT * math.sqrt(2)), near(CLAMP * math.sqrt(2))])
    worst, where, total = 0.0, 0.0, 0
    for part in [grid[i:i + step] for i in range(0, grid.size, step)] + [edges]:
        x = np.concatenate([part, -part])
        got = run_chunks(gelu, x, n).astype(np.float64)
        xd = x.astype(np.float64)
        ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in xd.tolist()])
        rel = np.abs(got - ref) / (0.5 * np.abs(xd) * ERF_ABS + 2 * ulp_of(ref))
        total += x.size
        if rel.max() > worst:
            worst, where = float(rel.max()), float(x[rel.argmax()])
    print(f"gelu over {total} floats in [-10, 10]: max |error| / (|x|/2 {ERF_ABS:g} + 2 ulp) "
          f"{worst:.3g} at {where:.9g}")
    if not worst <= GELU_REL:
        print(f"FAIL gelu error above {GELU_REL:g} (|x|/2 {ERF_ABS:g} + 2 ulp)")
        ok = False
    got = run_chunks(gelu, np.array([np.nan, np.inf, 0.0], np.float32), n)
    if not (np.isnan(got[0]) and got[1] == np.inf and got[2] == 0):
        print(f"FAIL gelu at nan, inf, 0: {got.tolist()}")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
