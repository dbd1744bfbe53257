"""Models with a dynamic leading (batch) dimension: compiled once, run with
several batch sizes (each specialised and JIT-compiled at its first use,
dlc-c/Compile.h), compared with NumPy float64 references.

Tolerance: atol 1e-4, rtol 1e-4 (the MLP and matmul accumulate over K = 784
and 512 in f32); 1e-5 for the elementwise and reduction kernels.
"""

import math
import sys

import numpy as np

import dlc
from models import mlp

rng = np.random.default_rng(11)
erf = np.vectorize(math.erf, otypes=[np.float64])


def t(shape, e="f32"):
    return f"tensor<{'x'.join(map(str, shape))}x{e}>"


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def elementwise():
    x, b = ("?", 37), (37,)
    src = f"""
func.func @main(%x: {t(x)}, %b: {t(b)}) -> ({t(x)}, {t(x)}) {{
  %0 = dlg.add %x, %b : {t(x)}, {t(b)} -> {t(x)}
  %1 = dlg.mul %0, %x : {t(x)}, {t(x)} -> {t(x)}
  %2 = dlg.gelu %1 : {t(x)}
  %3 = dlg.clamp %2 {{min = -0.5 : f64, max = 2.0 : f64}} : {t(x)}
  %4 = dlg.sigmoid %0 : {t(x)}
  return %3, %4 : {t(x)}, {t(x)}
}}"""

    def ref(x, b):
        z = (x + b) * x
        g = 0.5 * z * (1 + erf(z / math.sqrt(2)))
        return [np.clip(g, -0.5, 2.0), 1 / (1 + np.exp(-(x + b)))]
    return src, lambda n: [rng.standard_normal((n, 37)).astype(np.float32),
                           rng.standard_normal(37).astype(np.float32)], ref, 1e-5


def reductions():
    x = ("?", 37)
    src = f"""
func.func @main(%x: {t(x)}, %g: {t((37,))}) -> ({t(('?',))}, {t(('?', 1))}, {t((37,))}, {t(x)}, {t(x)}, {t(x)}) {{
  %0 = dlg.reduce_sum %x {{axes = array<i64: 1>}} : {t(x)} -> {t(('?',))}
  %1 = dlg.reduce_max %x {{axes = array<i64: -1>, keepdims = true}} : {t(x)} -> {t(('?', 1))}
  %2 = dlg.reduce_mean %x {{axes = array<i64: 0>}} : {t(x)} -> {t((37,))}
  %3 = dlg.softmax %x : {t(x)}
  %4 = dlg.layer_norm %x gamma %g : ({t(x)}, {t((37,))}) -> {t(x)}
  %5 = dlg.rms_norm %x gamma %g : ({t(x)}, {t((37,))}) -> {t(x)}
  return %0, %1, %2, %3, %4, %5 : {t(('?',))}, {t(('?', 1))}, {t((37,))}, {t(x)}, {t(x)}, {t(x)}
}}"""

    def ref(x, g):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return [x.sum(1), x.max(-1, keepdims=True), x.mean(0), softmax(x),
                (x - mu) / np.sqrt(var + 1e-5) * g,
                x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * g]
    return src, lambda n: [rng.standard_normal((n, 37)).astype(np.float32),
                           rng.standard_normal(37).astype(np.float32)], ref, 1e-5


def layout():
    x = ("?", 4, 8)
    src = f"""
func.func @main(%x: {t(x)}, %w: {t((8, 5))}) -> ({t(('?', 32))}, {t((8, '?', 4))}, {t(('?', 4, 5))}) {{
  %0 = dlg.reshape %x : {t(x)} -> {t(('?', 32))}
  %1 = dlg.transpose %x perm = [2, 0, 1] : {t(x)} -> {t((8, '?', 4))}
  %2 = dlg.matmul %x, %w : {t(x)}, {t((8, 5))} -> {t(('?', 4, 5))}
  return %0, %1, %2 : {t(('?', 32))}, {t((8, '?', 4))}, {t(('?', 4, 5))}
}}"""

    def ref(x, w):
        return [x.reshape(len(x), 32), x.transpose(2, 0, 1), x @ w]
    return src, lambda n: [rng.standard_normal((n, 4, 8)).astype(np.float32),
                           rng.standard_normal((8, 5)).astype(np.float32)], ref, 1e-5


def mlp_dynamic():
    src, args, ref, _ = mlp("?")
    weights = args[1:]
    return src, lambda n: [rng.standard_normal((n, 784)).astype(np.float32)] + weights, \
        lambda *a: [ref(*a)], 1e-4


CASES = {
    "mlp": (mlp_dynamic, [1, 3, 32, 3]),
    "elementwise": (elementwise, [1, 2, 7, 64]),
    "reductions": (reductions, [1, 5, 16]),
    # more shapes than the 8 variants kept: the oldest are recompiled
    "layout": (layout, [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2]),
}


def main():
    failed = 0
    for name, (make, batches) in CASES.items():
        src, inputs, ref, tol = make()
        m = dlc.compile(src)
        for n in batches:
            args = inputs(n)
            try:
                got = m.run(*args)
            except Exception as e:
                print(f"FAIL {name} batch {n}: {type(e).__name__}: {str(e).splitlines()[0]}")
                failed += 1
                continue
            want = ref(*[a.astype(np.float64) for a in args])
            errs = [np.abs(g - w).max() if g.shape == w.shape else np.inf
                    for g, w in zip(got, want)]
            ok = all(np.allclose(g, w, atol=tol, rtol=tol) for g, w in zip(got, want)
                     if g.shape == w.shape) and max(errs) < np.inf
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} batch {n}: shapes "
                  f"{', '.join(str(g.shape) for g in got)}; max err {max(errs):.3g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
