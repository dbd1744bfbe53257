"""One conv2d with an optional fused epilogue (bias, batch norm, residual
add, relu), compiled by dlc at 1 and 2 threads and checked against a
float64 NumPy reference; the conv E2E scripts share it."""
import numpy as np

import dlc
from models import constant as const, t as T

rng = np.random.default_rng(15)


def conv_ref(x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + ho, j:j + wo],
                           w[:, :, i, j].astype(np.float64))
    return y + (0 if b is None else b.astype(np.float64)[None, :, None, None])


def case(label, xshape, o, k, bias=False, bn=False, residual=False, relu=False, target=None):
    n, c, h, wd = xshape
    pad = k // 2
    w = (rng.standard_normal((o, c, k, k)) * 0.1).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if bias else None
    x = rng.standard_normal(xshape).astype(np.float32)
    yshape = (n, o, h, wd)
    yt, vt = T(yshape), T((o,))
    r = rng.standard_normal(yshape).astype(np.float32)
    want = conv_ref(x, w, b, pad)
    lines = [const("w", w)] + ([const("b", b)] if bias else [])
    operands = "%x, %w, %b" if bias else "%x, %w"
    types = f"{T(xshape)}, {T(w.shape)}" + (f", {vt}" if bias else "")
    lines.append(f"  %c = dlg.conv2d {operands} {{padding = array<i64: {pad}, {pad}, {pad}, {pad}>}}"
                 f" : ({types}) -> {yt}")
    last = "c"
    if bn:
        s, sh, m = (rng.standard_normal(o).astype(np.float32) for _ in range(3))
        v = (rng.random(o) + 0.5).astype(np.float32)
        lines += [const("s", s), const("sh", sh), const("m", m), const("v", v)]
        lines.append(f"  %n = dlg.batch_norm %c, %s, %sh, %m, %v : ({yt}, {vt}, {vt}, {vt}, {vt}) -> {yt}")
        last = "n"
        sc = s.astype(np.float64) / np.sqrt(v.astype(np.float64) + 1e-5)
        want = (want - m[None, :, None, None]) * sc[None, :, None, None] + sh[None, :, None, None]
    if residual:
        lines.append(f"  %a = dlg.add %{last}, %r : {yt}, {yt} -> {yt}")
        last = "a"
        want = want + r
    if relu:
        lines.append(f"  %z = dlg.relu %{last} : {yt}")
        last = "z"
        want = np.maximum(want, 0)
    args = f"%x: {T(xshape)}" + (f", %r: {yt}" if residual else "")
    src = (f"func.func @main({args}) -> {yt} {{\n" + "\n".join(lines) +
           f"\n  return %{last} : {yt}\n}}")
    inputs = [x] + ([r] if residual else [])
    for threads in (1, 2):
        got = dlc.compile(src, threads=threads, target=target)(*inputs)
        err = float(np.max(np.abs(got - want)) / (1 + np.max(np.abs(want))))
        where = f", {target}" if target else ""
        print(f"{'ok  ' if err < 1e-5 else 'FAIL'} {label}{where}, {threads} thread(s): "
              f"max rel error {err:.1e}")

