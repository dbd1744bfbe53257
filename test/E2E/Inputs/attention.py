"""Scaled-dot-product attention against NumPy: multi-head attention built
as BERT builds it (Q, K, V of [s, heads*d] reshaped and transposed per
head, K^T by transpose), with a scale, an additive mask given as an input,
a causal mask as a constant, and without; at sequence lengths no vector
tile divides (1, 7, 37, 100, 134) and at 128; matmuls with
transpose_b; and standalone transposes (exact). These are the shapes whose transposed B the CPU schedule
copies in square blocks (schedule/transpose_tile.h), and those it leaves
to the plain tile (134 = 2 x 67); each at 1 and 2 threads."""
import math
import re

import numpy as np

import dlc
from models import constant as const, t as T
from dlc._capi import run_pipeline

# The fused call with q, k and v alone (a causal mask folded, not passed),
# its profile attributes (dlc.profile_root/flops) between the operands and
# the type.
THREE_OPERANDS = re.compile(r"call @dlc_attention_0\(%arg0, %arg1, %arg2\)( \{[^}]*\})? :")

rng = np.random.default_rng(15)


# Causal masks as models write them: -1e9 (BERT-style code), the most
# negative f32 (Hugging Face's finfo.min) and -inf, above the diagonal.
CAUSAL = {"causal": -1e9, "causal-min": np.finfo(np.float32).min, "causal-inf": -np.inf}


def attention_source(s, heads, d, mask):
    h = heads * d
    sh, hsd, hds, hss = (s, h), (heads, s, d), (heads, d, s), (heads, s, s)
    args = [f"%q: {T(sh)}", f"%k: {T(sh)}", f"%v: {T(sh)}"]
    lines = [f"  %scale = dlg.constant dense<{1.0 / math.sqrt(d)}> : tensor<f32>"]
    if mask == "input":
        args.append(f"%mask: {T((s, s))}")
    elif mask in CAUSAL:
        lines.append(const("mask", np.triu(np.full((s, s), CAUSAL[mask], np.float32), 1)))
    for n, perm, ty in (("q", "1, 0, 2", hsd), ("k", "1, 2, 0", hds), ("v", "1, 0, 2", hsd)):
        lines.append(f"  %{n}2 = dlg.reshape %{n} : {T(sh)} -> {T((s, heads, d))}")
        lines.append(f"  %{n}t = dlg.transpose %{n}2 perm = [{perm}] : {T((s, heads, d))} -> {T(ty)}")
    lines.append(f"  %s0 = dlg.matmul %qt, %kt : {T(hsd)}, {T(hds)} -> {T(hss)}")
    lines.append(f"  %s1 = dlg.mul %s0, %scale : {T(hss)}, tensor<f32> -> {T(hss)}")
    last = "%s1"
    if mask:
        lines.append(f"  %s2 = dlg.add %s1, %mask : {T(hss)}, {T((s, s))} -> {T(hss)}")
        last = "%s2"
    lines.append(f"  %p = dlg.softmax {last} {{axis = -1 : i64}} : {T(hss)}")
    lines.append(f"  %c = dlg.matmul %p, %vt : {T(hss)}, {T(hsd)} -> {T(hsd)}")
    lines.append(f"  %c1 = dlg.transpose %c perm = [1, 0, 2] : {T(hsd)} -> {T((s, heads, d))}")
    lines.append(f"  %y = dlg.reshape %c1 : {T((s, heads, d))} -> {T(sh)}")
    return (f"func.func @main({', '.join(args)}) -> {T(sh)} {{\n" + "\n".join(lines) +
            f"\n  return %y : {T(sh)}\n}}")


def attention_ref(q, k, v, heads, mask):
    s, h = q.shape
    d = h // heads
    qh = q.reshape(s, heads, d).transpose(1, 0, 2).astype(np.float64)
    kh = k.reshape(s, heads, d).transpose(1, 2, 0).astype(np.float64)
    vh = v.reshape(s, heads, d).transpose(1, 0, 2).astype(np.float64)
    sc = qh @ kh / math.sqrt(d)
    if mask is not None:
        sc = sc + mask
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ vh).transpose(1, 0, 2).reshape(s, h)


def transpose_case(shape, perm):
    x = rng.standard_normal(shape).astype(np.float32)
    out = tuple(shape[p] for p in perm)
    src = (f"func.func @main(%x: {T(shape)}) -> {T(out)} {{\n"
           f"  %y = dlg.transpose %x perm = [{', '.join(map(str, perm))}] : {T(shape)} -> {T(out)}\n"
           f"  return %y : {T(out)}\n}}")
    exact = all(np.array_equal(dlc.compile(src, threads=t)(x), np.transpose(x, perm)) for t in (1, 2))
    print(f"{'ok  ' if exact else 'FAIL'} transpose {shape} {perm}: {'exact' if exact else 'differs'}")


def rel_error(got, want):
    """Max error relative to the largest |want|; inf where `got` has a NaN
    that `want` has not (max() would pass over a NaN)."""
    e = float(np.max(np.abs(got - want)) / (1 + np.max(np.abs(want))))
    return math.inf if math.isnan(e) else e


def report(label, worst):
    print(f"{'ok  ' if worst < 1e-5 else 'FAIL'} {label}: max rel error {worst:.1e}")


def attention_case(s, heads, d, mask):
    src = attention_source(s, heads, d, mask)
    q, k, v = (rng.standard_normal((s, heads * d)).astype(np.float32) for _ in range(3))
    inputs = [q, k, v]
    m = None
    if mask == "input":
        m = np.where(rng.random((s, s)) < 0.2, -1e4, 0).astype(np.float32)
        m[:, 0] = 0  # every row keeps a key
        inputs.append(m)
    elif mask in CAUSAL:
        m = np.triu(np.full((s, s), CAUSAL[mask], np.float32), 1)
    want = attention_ref(q, k, v, heads, m)
    # The default pipeline (one kernel where measured faster, else three),
    # the one-kernel flash loops forced at every length (min-keys=0): its
    # module must hold the call to them; and the three kernels.
    fused = run_pipeline(src, "builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0})")
    if "call @dlc_attention_" not in fused or "dlg.softmax" in fused:
        print(f"FAIL attention s={s} heads={heads} d={d}: not one kernel")
    # a causal mask is folded into the loops: not an operand of the call
    if mask in CAUSAL and not THREE_OPERANDS.search(fused):
        print(f"FAIL attention s={s} heads={heads} d={d} mask={mask}: causal mask not folded")
    three = "module attributes {dlc.attention_min_keys = -1 : i64} {\n" + src + "\n}"
    # The one kernel with AVX2's tiles (8 lanes), as AVX2 code.
    fused8 = run_pipeline(src, "builtin.module(func.func(dlg-fuse),"
                               "dlc-cpu-attention{min-keys=0 vector-width=8})")
    for name, text, target in (("", src, "host"), (" one-kernel", fused, "host"),
                               (" three-kernel", three, "host"),
                               (" one-kernel avx2", fused8, "avx2")):
        worst = 0.0
        for threads in (1, 2):
            got = dlc.compile(text, threads=threads, target=target)(*inputs)
            worst = max(worst, rel_error(got, want))
        report(f"attention{name} s={s} heads={heads} d={d} mask={mask or 'none'}", worst)


def masked_row_case(s, heads, d):
    """A query row whose mask is -inf at every key: softmax is 0/0 there,
    NaN in NumPy and in the three kernels; the one kernel must say NaN too
    (not an average of V), and be right on the other rows."""
    src = attention_source(s, heads, d, "input")
    fused = run_pipeline(src, "builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0})")
    q, k, v = (rng.standard_normal((s, heads * d)).astype(np.float32) for _ in range(3))
    m = np.zeros((s, s), np.float32)
    m[3, :] = -np.inf
    with np.errstate(invalid="ignore"):
        want = attention_ref(q, k, v, heads, m)
    ok = True
    three = "module attributes {dlc.attention_min_keys = -1 : i64} {\n" + src + "\n}"
    for text in (src, fused, three):
        got = dlc.compile(text, threads=1)(q, k, v, m)
        ok &= bool(np.array_equal(np.isnan(got), np.isnan(want)))
        fin = ~np.isnan(want)
        ok &= bool(np.max(np.abs(got[fin] - want[fin])) < 1e-5 * (1 + np.max(np.abs(want[fin]))))
    print(f"{'ok  ' if ok else 'FAIL'} attention s={s} heads={heads} d={d} row 3 fully masked: NaN there")


def transpose_b_case(m, k, n):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    src = (f"func.func @main(%a: {T((m, k))}, %b: {T((n, k))}) -> {T((m, n))} {{\n"
           f"  %y = dlg.matmul %a, %b {{transpose_b = true}} : {T((m, k))}, {T((n, k))} -> {T((m, n))}\n"
           f"  return %y : {T((m, n))}\n}}")
    want = a.astype(np.float64) @ b.T.astype(np.float64)
    worst = 0.0
    for threads in (1, 2):
        got = dlc.compile(src, threads=threads)(a, b)
        worst = max(worst, rel_error(got, want))
    report(f"transpose_b {m}x{k} * ({n}x{k})^T", worst)


def causal_offset_case(m, n, heads, d, c, value):
    """[b, h, s, d] operands with m queries and n keys, K by transpose_b, a
    constant causal mask that keeps key j of row i iff j <= i + c (the
    bottom-right alignment of a decoder step is c = n - m): folded into the
    loops, against NumPy, at 1 and 2 threads."""
    mask = np.where(np.arange(n)[None, :] <= np.arange(m)[:, None] + c, 0, value).astype(np.float32)
    q4, k4, v4 = (T((1, heads, r, d)) for r in (m, n, n))
    s4 = T((1, heads, m, n))
    src = (f"func.func @main(%q: {q4}, %k: {k4}, %v: {v4}) -> {T((1, heads, m, d))} {{\n"
           f"  %c = dlg.constant dense<{1.0 / math.sqrt(d)}> : tensor<f32>\n"
           + const("mask", mask) + "\n"
           f"  %s0 = dlg.matmul %q, %k {{transpose_b = true}} : {q4}, {k4} -> {s4}\n"
           f"  %s1 = dlg.mul %s0, %c : {s4}, tensor<f32> -> {s4}\n"
           f"  %s2 = dlg.add %s1, %mask : {s4}, {T((m, n))} -> {s4}\n"
           f"  %p = dlg.softmax %s2 {{axis = -1 : i64}} : {s4}\n"
           f"  %o = dlg.matmul %p, %v : {s4}, {v4} -> {T((1, heads, m, d))}\n"
           f"  return %o : {T((1, heads, m, d))}\n}}")
    fused = run_pipeline(src, "builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0})")
    folded = bool(THREE_OPERANDS.search(fused))
    q, k, v = (rng.standard_normal((1, heads, r, d)).astype(np.float32) for r in (m, n, n))
    sc = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2) / math.sqrt(d) + mask
    p = np.exp(sc - sc.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    worst = 0.0
    for text in (src, fused):
        for threads in (1, 2):
            got = dlc.compile(text, threads=threads)(q, k, v)
            worst = max(worst, rel_error(got, want))
    ok = folded and worst < 1e-5
    print(f"{'ok  ' if ok else 'FAIL'} attention causal m={m} n={n} c={c} mask {value}: "
          f"folded {folded}, max rel error {worst:.1e}")


def default_path_case():
    """The default pipeline computes attention as one kernel on an AVX-512
    host (dlc-cpu-attention's default) and, with AVX2 code (an AVX2 host's
    too), under a causal mask or from 128 keys (three kernels otherwise):
    the profile of a compiled model has a softmax kernel only where it
    takes three."""
    heads, d = 12, 64
    with open("/proc/cpuinfo") as f:
        avx512 = " avx512f" in f.read()
    for target, s, mask, one in (("host", 128, None, True), ("host", 64, None, avx512),
                                 ("host", 128, "causal", True),
                                 ("avx2", 64, None, False), ("avx2", 128, None, True),
                                 ("avx2", 64, "causal", True), ("avx2", 512, None, True)):
        x = [rng.standard_normal((s, heads * d)).astype(np.float32) for _ in range(3)]
        mod = dlc.compile(attention_source(s, heads, d, mask), threads=1, target=target)
        took = "three kernels" if "softmax" in mod.profile(*x, runs=1) else "one kernel"
        print(f"{'ok  ' if (took == 'one kernel') == one else 'FAIL'} default pipeline, "
              f"target {target}, s={s}, mask {mask or 'none'}: {took}")


def main():
    for s, heads, d, mask in [(128, 12, 64, None), (128, 4, 64, "causal"), (100, 2, 64, "input"),
                              (37, 3, 40, "causal"), (7, 2, 16, "input"), (1, 2, 8, None),
                              (134, 2, 64, "causal"), (300, 2, 64, "causal-min"),
                              (70, 2, 32, "causal-inf"), (16, 2, 16, "causal"), (64, 2, 128, "input")]:
        attention_case(s, heads, d, mask)
    for m, n, heads, d, c, value in [(37, 50, 2, 16, 13, -1e9), (64, 200, 2, 64, 136, -np.inf),
                                     (130, 130, 2, 64, 5, -1e9), (20, 20, 1, 8, 0, -1e30)]:
        causal_offset_case(m, n, heads, d, c, value)
    default_path_case()
    masked_row_case(20, 2, 16)
    for m, k, n in [(100, 64, 96), (37, 33, 19), (128, 768, 768), (5, 16, 48)]:
        transpose_b_case(m, k, n)
    for shape, perm in [((128, 12, 64), (1, 2, 0)), ((37, 20), (1, 0)), ((2, 48, 80), (0, 2, 1)),
                        ((1, 32, 7, 7), (0, 2, 3, 1)), ((3, 134, 64), (0, 2, 1))]:
        transpose_case(shape, perm)


if __name__ == "__main__":
    main()
