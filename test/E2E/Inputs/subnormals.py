"""No subnormal f32 out of dlc's exp where the exact result is below f32's
smallest normal: those results are 0 (flush-to-zero), not the clamped
polynomial's floor e^-87.3 = 1.24e-38, which a softmax's 1/sum made
subnormal for every far-negative score (expand_exp.c). Checked on exp
itself (exact zeros below the floor, NaN and -inf kept), on softmax over
wide rows, and on attention with large scores through the one-kernel and
three-kernel paths, each against NumPy. Each case prints one line; a
failure prints FAIL and the script exits 1."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlc  # noqa: E402
from attention import attention_ref, attention_source, rel_error  # noqa: E402
from dlc._capi import run_pipeline  # noqa: E402
from models import t as T  # noqa: E402

TINY = np.finfo(np.float32).tiny  # the smallest normal f32
failed = 0


def subnormals(x):
    x = np.asarray(x)
    return int(np.count_nonzero((x != 0) & (np.abs(x) < TINY)))


def report(ok, label):
    global failed
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {label}")


def unary(op, shape):
    return dlc.compile(f"func.func @main(%x: {T(shape)}) -> {T(shape)} {{\n"
                       f"  %y = dlg.{op} %x {{}} : {T(shape)}\n  return %y : {T(shape)}\n}}")


# exp: below ln(TINY) = -87.34 the result is exactly 0; above it, e^x
# within the polynomial's accuracy; -inf gives 0 and NaN stays NaN. 37
# lanes: two full vectors and a scalar tail.
x = np.concatenate([[-np.inf, -1e30, -1000.0, -104.0, -90.0, -87.5, -87.35, np.nan],
                    np.linspace(-87.0, 80.0, 29)]).astype(np.float32)
got = unary("exp", x.shape)(x)
with np.errstate(under="ignore"):
    want = np.exp(x.astype(np.float64))
flushed = want < TINY
report(np.all(got[flushed] == 0) and np.isnan(got[7]) and subnormals(got) == 0 and
       np.allclose(got[~flushed & ~np.isnan(want)], want[~flushed & ~np.isnan(want)],
                   rtol=1e-6, atol=0),
       f"exp: {int(flushed.sum())} results below f32's smallest normal are 0, "
       f"{subnormals(got)} subnormal, NaN kept, the rest within 1e-6")

# softmax over rows whose logits span thousands: no subnormal probability,
# NumPy's result within 1e-6 (the flushed ones are below 1.2e-38).
rows = (np.random.default_rng(3).standard_normal((64, 300)) * 300).astype(np.float32)
got = dlc.compile(f"func.func @main(%x: {T(rows.shape)}) -> {T(rows.shape)} {{\n"
                  f"  %y = dlg.softmax %x {{axis = -1 : i64}} : {T(rows.shape)}\n"
                  f"  return %y : {T(rows.shape)}\n}}")(rows)
z = rows.astype(np.float64) - rows.max(-1, keepdims=True)
want = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
report(subnormals(got) == 0 and np.abs(got - want).max() < 1e-6,
       f"softmax (64, 300) logits x300: {subnormals(got)} subnormal, "
       f"max error {np.abs(got - want).max():.1e}")

# attention with scores in the thousands (q, k of scale 20): the one kernel
# and the three kernels, at 1 and 2 threads.
s, heads, d = 64, 2, 32
rng = np.random.default_rng(4)
q, k, v = ((rng.standard_normal((s, heads * d)) * 20).astype(np.float32) for _ in range(3))
src = attention_source(s, heads, d, None)
want = attention_ref(q, k, v, heads, None)
fused = run_pipeline(src, "builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0})")
three = "module attributes {dlc.attention_min_keys = -1 : i64} {\n" + src + "\n}"
for name, text in (("one-kernel", fused), ("three-kernel", three)):
    worst = max(rel_error(dlc.compile(text, threads=t)(q, k, v), want) for t in (1, 2))
    report(worst < 1e-5 and not math.isnan(worst),
           f"attention {name} s={s} scores x400: max rel error {worst:.1e}")

sys.exit(1 if failed else 0)
