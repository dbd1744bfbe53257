"""--dlg-conv-phase-split against NumPy: strided convs on few input
channels (an image stem, stride 3, cropped and asymmetric padding, batches,
a bias) compiled by the CPU pipeline, which splits them into a stride-1
conv on the input's column phases; the profile's conv row shows the split
shape, so a pipeline that skipped the split fails here. A conv on many
channels is left as it is and must still match."""
import numpy as np

import dlc
from models import constant as const, t as T

rng = np.random.default_rng(5)


def reference(x, w, b, strides, pads):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    ho = (h + pads[0] + pads[2] - kh) // strides[0] + 1
    wo = (wd + pads[1] + pads[3] - kw) // strides[1] + 1
    y = np.zeros((n, o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i:i + strides[0] * (ho - 1) + 1:strides[0],
                     j:j + strides[1] * (wo - 1) + 1:strides[1]]
            y += np.einsum("nchw,oc->nohw", win, w[:, :, i, j].astype(np.float64))
    return y + (0 if b is None else b.astype(np.float64)[None, :, None, None]), (ho, wo)


def case(label, xshape, o, k, strides, pads, bias, split):
    n, c, h, wd = xshape
    w = (rng.standard_normal((o, c) + k) * 0.1).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if bias else None
    x = rng.standard_normal(xshape).astype(np.float32)
    want, (ho, wo) = reference(x, w, b, strides, pads)
    yt = T((n, o, ho, wo))
    lines = [const("w", w)] + ([const("b", b)] if bias else [])
    operands = "%x, %w, %b" if bias else "%x, %w"
    types = f"{T(xshape)}, {T(w.shape)}" + (f", {T(b.shape)}" if bias else "")
    lines.append(f"  %y = dlg.conv2d {operands} {{strides = array<i64: {strides[0]}, {strides[1]}>, "
                 f"padding = array<i64: {', '.join(map(str, pads))}>}} : ({types}) -> {yt}")
    src = (f"func.func @main(%x: {T(xshape)}) -> {yt} {{\n" + "\n".join(lines) +
           f"\n  return %y : {yt}\n}}")
    s = strides[1]
    taps = -(-k[1] // s)
    phased = f"conv2d {n}x{c * s}x{h}x{wo + taps - 1} * {o}x{c * s}x{k[0]}x{taps}"
    mod = dlc.compile(src, threads=2)
    got = mod(x)
    err = float(np.max(np.abs(got - want)) / (1 + np.max(np.abs(want))))
    table = mod.profile(x, runs=1)
    did = phased in table
    ok = err < 1e-5 and did == split
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {'split' if did else 'not split'}, "
          f"max rel error {err:.1e}")


case("stem 3->64 7x7 s2 p3 224x224 with bias", (1, 3, 224, 224), 64, (7, 7), (2, 2),
     (3, 3, 3, 3), True, True)
case("2->16 3x4 s(1,2) cropped column, batch 2", (2, 2, 9, 11), 16, (3, 4), (1, 2),
     (0, 0, 0, 0), False, True)
case("2->32 5x5 s3 p2 with bias", (1, 2, 10, 20), 32, (5, 5), (3, 3), (2, 2, 2, 2), True, True)
case("1->8 5x3 s2 pads 1,2,0,1, batch 3", (3, 1, 12, 13), 8, (5, 3), (2, 2), (1, 2, 0, 1),
     False, True)
case("16->32 3x3 s2 p1 (many channels: im2col)", (1, 16, 14, 14), 32, (3, 3), (2, 2),
     (1, 1, 1, 1), True, False)
