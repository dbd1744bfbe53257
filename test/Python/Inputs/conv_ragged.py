"""Convolutions whose output channels are no multiple of half a vector (a
segmentation head's 21 classes, YOLO's 255, 13, 30) run direct on weights
padded with zero channels, the padded result sliced back
(passes/lowering/contraction.c): each equals PyTorch's conv2d in float64
at 1 and 2 threads, with bias and relu or not, stride 1 and 2, with the
weights as arguments and as constants (padded and packed at compile
time), bit for bit the same both ways. A stride-2 conv to 21 channels
at 14x14 stays on the plain loops (no direct conv at stride 2, and 32
channels for a GEMM's panels would pad by more than a quarter): nothing
packed. One line per case for FileCheck; exits 1 on any FAIL."""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "E2E",
                                "Inputs"))
import models  # noqa: E402

import gemm_ragged  # noqa: E402  (its check of a case, weights as arguments and constants)

T = models.t
rng = np.random.default_rng(46)


def case(n, c, hw, o, k, stride, pad, bias, relu, packs=True):
    ho = (hw + 2 * pad - k) // stride + 1
    xs, ws, ys = (n, c, hw, hw), (o, c, k, k), (n, o, ho, ho)
    params = f"%x: {T(xs)}, %w: {T(ws)}" + (f", %b: {T((o,))}" if bias else "")
    operands = "%x, %w" + (", %b" if bias else "")
    types = f"{T(xs)}, {T(ws)}" + (f", {T((o,))}" if bias else "")
    body = (f"  %y = dlg.conv2d {operands} {{padding = array<i64: {pad}, {pad}, {pad}, {pad}>, "
            f"strides = array<i64: {stride}, {stride}>}} : ({types}) -> {T(ys)}\n")
    out = "%y"
    if relu:
        body += f"  %r = dlg.relu %y : {T(ys)}\n"
        out = "%r"
    src = f"func.func @f({params}) -> {T(ys)} {{\n{body}  return {out} : {T(ys)}\n}}"
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.1).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    args = [x, w] + ([b] if bias else [])
    want = torch.nn.functional.conv2d(
        torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
        torch.tensor(b, dtype=torch.float64) if bias else None, stride=stride,
        padding=pad).numpy()
    if relu:
        want = np.maximum(want, 0)
    name = (f"conv {c}->{o} {k}x{k} stride {stride} at {hw}x{hw}" + (" +bias" if bias else "") +
            (" +relu" if relu else ""))
    return name, src, args, want, packs


def main():
    cases = [case(1, 64, 56, 21, 3, 1, 1, True, True), case(1, 256, 13, 255, 1, 1, 0, True, False),
             case(2, 16, 20, 30, 3, 1, 1, False, True),
             case(1, 32, 28, 21, 3, 2, 1, True, True, packs=False),
             case(1, 8, 17, 13, 5, 1, 2, True, False)]
    sys.exit(1 if gemm_ragged.run_cases(cases, "weights") else 0)


if __name__ == "__main__":
    main()
