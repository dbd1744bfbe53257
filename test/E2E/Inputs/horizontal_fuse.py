"""--dlg-horizontal-fuse against NumPy: Q/K/V-style projections with
constant weights (and biases), as plain [M, K] and batched inputs, with
and without transpose_b, at sizes no tile divides; the fused module's
results must match NumPy as the unfused module's do."""
import numpy as np

import dlc
from models import constant as const, t as T

rng = np.random.default_rng(3)


def case(label, xshape, ns, tb, bias):
    k = xshape[-1]
    ws = [rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32) * 0.1 for n in ns]
    bs = [rng.standard_normal(n).astype(np.float32) for n in ns]
    x = rng.standard_normal(xshape).astype(np.float32)
    lines, rets, types = [], [], []
    for i, (w, b, n) in enumerate(zip(ws, bs, ns)):
        lines.append(const(f"w{i}", w))
        lines.append(const(f"b{i}", b))
        yt = T(xshape[:-1] + (n,))
        attr = " {transpose_b = true}" if tb else ""
        lines.append(f"  %m{i} = dlg.matmul %x, %w{i}{attr} : {T(xshape)}, {T(w.shape)} -> {yt}")
        if bias:
            lines.append(f"  %y{i} = dlg.add %m{i}, %b{i} : {yt}, {T(b.shape)} -> {yt}")
        rets.append(f"%y{i}" if bias else f"%m{i}")
        types.append(yt)
    src = (f"func.func @main(%x: {T(xshape)}) -> ({', '.join(types)}) {{\n" + "\n".join(lines) +
           f"\n  return {', '.join(rets)} : {', '.join(types)}\n}}")
    fused = dlc.run_pipeline(src, "builtin.module(func.func(dlg-horizontal-fuse))")
    matmuls, slices = fused.count("dlg.matmul"), fused.count("dlg.slice")
    want = [x @ (w.T if tb else w) + (b if bias else 0) for w, b in zip(ws, bs)]
    worst = 0.0
    for text in (src, fused):
        got = dlc.compile(text, threads=2)(x)
        got = got if isinstance(got, (list, tuple)) else [got]
        for g, r in zip(got, want):
            worst = max(worst, float(np.max(np.abs(g - r)) / (1 + np.max(np.abs(r)))))
    ok = worst < 1e-5 and matmuls == 1 and slices == len(ns)
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {matmuls} matmul, {slices} slices, "
          f"max rel error {worst:.1e}")


case("qkv 37x48 -> 40,24,40 with bias", (37, 48), (40, 24, 40), False, True)
case("qkv batched 3x13x64 -> 64,64,64 with bias", (3, 13, 64), (64, 64, 64), False, True)
case("transpose_b 19x33 -> 17,5 no bias", (19, 33), (17, 5), True, False)
case("bert-base 128x768 -> 3x768 with bias", (128, 768), (768, 768, 768), False, True)
