"""End-to-end numerics of every dlg op: each case is compiled by
--lower-to-llvm, JIT-run on seeded random inputs and compared with a NumPy
reference computed here. Shapes include odd sizes (not multiples of the
vector width), broadcasting, negative axes and every attribute variant.

Tolerances (max |got - want| <= atol + rtol * |want|):
  exact data movement (transpose, reshape, concat, slice, gather, pad,
  where, cast, max/min, relu, clamp, abs, neg): 0
  arithmetic and transcendental elementwise ops: atol 1e-6, rtol 1e-5
  erf / gelu (two polynomials, scalar.c; erf_accuracy.py bounds them tightly): atol 2e-7
  reductions, softmax, norms: atol 1e-5, rtol 1e-5
  matmul / conv2d: atol 1e-4 * sqrt(K), rtol 1e-5  (f32 accumulation order)

With --fold, every input becomes a dlg.constant in the module, so
--dlg-fold-constants evaluates each op it supports with its C reference
kernel at compile time; the same references and tolerances then check those
kernels, and each case reports whether it was folded.

Usage: ops_numerics.py [-k SUBSTRING] [--target avx2|avx512|host] [--fold]
"""

import argparse
import math
import sys

import numpy as np

import dlc

rng = np.random.default_rng(1234)
EXACT = (0.0, 0.0)
ARITH = (1e-6, 1e-5)
ERF = (2e-7, 1e-5)
RED = (1e-5, 1e-5)


def ty(shape, dtype="f32"):
    return f"tensor<{'x'.join(str(d) for d in shape)}{'x' if shape else ''}{dtype}>"


NP2MLIR = {"float32": "f32", "float16": "f16", "int32": "i32", "int64": "i64", "bool": "i1",
           "int8": "i8", "float64": "f64"}


def mlir_type(a):
    return ty(a.shape, NP2MLIR[a.dtype.name])


def func(args, body, results):
    """A module with one function; `body` lines use %a0.. for arguments."""
    params = ", ".join(f"%a{i}: {mlir_type(a)}" for i, a in enumerate(args))
    rtypes = ", ".join(t for _, t in results)
    rets = ", ".join(v for v, _ in results)
    lines = "\n  ".join(body)
    return f"func.func @main({params}) -> ({rtypes}) {{\n  {lines}\n  return {rets} : {rtypes}\n}}\n"


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    return (rng.random(shape) + 0.1).astype(np.float32)


erf = np.vectorize(math.erf, otypes=[np.float64])

CASES = []


def case(name, src, inputs, ref, tol):
    CASES.append((name, src, inputs, ref, tol))


# --- elementwise binary, with broadcasting -----------------------------------
BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
       "max": np.maximum, "min": np.minimum, "pow": np.power}
for op, fn in BIN.items():
    for sa, sb in [((7, 13), (7, 13)), ((3, 1, 17), (5, 1)), ((33,), (4, 1, 33)), ((), (9,))]:
        a = pos(*sa) if op == "pow" else randn(*sa)
        b = randn(*sb) if op not in ("div",) else pos(*sb)
        out = np.broadcast_shapes(sa, sb)
        tol = EXACT if op in ("max", "min") else ARITH
        case(f"{op} {sa}x{sb}",
             func([a, b], [f"%r = dlg.{op} %a0, %a1 : {ty(sa)}, {ty(sb)} -> {ty(out)}"],
                  [("%r", ty(out))]),
             [a, b], lambda a, b, fn=fn: fn(a, b), tol)
for op, fn in [("add", np.add), ("mul", np.multiply), ("max", np.maximum), ("sub", np.subtract)]:
    a = rng.integers(-50, 50, (5, 11)).astype(np.int32)
    b = rng.integers(-50, 50, (11,)).astype(np.int32)
    case(f"{op} i32", func([a, b], [f"%r = dlg.{op} %a0, %a1 : {ty((5, 11), 'i32')}, "
                                     f"{ty((11,), 'i32')} -> {ty((5, 11), 'i32')}"],
                           [("%r", ty((5, 11), "i32"))]), [a, b], lambda a, b, fn=fn: fn(a, b),
         EXACT)

# --- fmod: exact for any quotient (x - trunc(x / y) * y is not), C's sign
# rules (the remainder takes x's sign), inf and NaN -----------------------------
def quiet_fmod(a, b):
    with np.errstate(invalid="ignore"):  # NaN where fmod is undefined, as wanted
        return np.fmod(a, b)


def fmod_operands(dtype):
    x = (randn(5, 12) * np.float32(1e6)).astype(dtype)
    x[0, :6] = np.array([3e38, -3e38, 1e30, -7.5, 0.0, -0.0]).astype(dtype)
    x[1, :4] = np.array([np.inf, -np.inf, np.nan, 5.0]).astype(dtype)
    y = (pos(12) * np.float32(3.7)).astype(dtype)
    y[:6] = np.array([1e-3, -0.7, 3.3, 2.0, -1.5, 0.1]).astype(dtype)
    return x, y


for dt, mt in [(np.float32, "f32"), (np.float64, "f64")]:
    a, b = fmod_operands(dt)
    case(f"fmod {mt} large quotients", func([a, b], [
        f"%r = dlg.fmod %a0, %a1 : {ty((5, 12), mt)}, {ty((12,), mt)} -> {ty((5, 12), mt)}"],
        [("%r", ty((5, 12), mt))]), [a, b], quiet_fmod, EXACT)
a = np.array([np.inf, 7.0, -7.0, 7.0, np.nan, 1e30], np.float32)
b = np.array([2.0, np.inf, -np.inf, 0.0, 1.0, -np.inf], np.float32)
case("fmod f32 inf nan zero", func([a, b], [
    f"%r = dlg.fmod %a0, %a1 : {ty((6,))}, {ty((6,))} -> {ty((6,))}"], [("%r", ty((6,)))]),
    [a, b], quiet_fmod, EXACT)
a = rng.integers(-1000, 1000, (4, 9)).astype(np.int32)
b = rng.integers(1, 30, (9,)).astype(np.int32) * np.where(np.arange(9) % 2, 1, -1).astype(np.int32)
case("fmod i32", func([a, b], [f"%r = dlg.fmod %a0, %a1 : {ty((4, 9), 'i32')}, "
                               f"{ty((9,), 'i32')} -> {ty((4, 9), 'i32')}"],
                      [("%r", ty((4, 9), "i32"))]), [a, b], lambda a, b: np.fmod(a, b), EXACT)

# --- comparisons (i1 masks), with broadcasting, ties and NaN ------------------------
CMP = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
       "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal}
for op, fn in CMP.items():
    a = np.round(randn(6, 13), 1)  # rounded: many ties
    a[0, :3] = np.nan
    b = np.round(randn(13), 1)
    case(f"{op} f32 (6, 13)x(13,)",
         func([a, b], [f"%r = dlg.{op} %a0, %a1 : {ty((6, 13))}, {ty((13,))} -> {ty((6, 13), 'i1')}"],
              [("%r", ty((6, 13), "i1"))]), [a, b], lambda a, b, fn=fn: fn(a, b), EXACT)
    a = rng.integers(-5, 5, (4, 1, 9)).astype(np.int64)
    b = rng.integers(-5, 5, (3, 9)).astype(np.int64)
    case(f"{op} i64 (4, 1, 9)x(3, 9)",
         func([a, b], [f"%r = dlg.{op} %a0, %a1 : {ty((4, 1, 9), 'i64')}, {ty((3, 9), 'i64')} "
                       f"-> {ty((4, 3, 9), 'i1')}"], [("%r", ty((4, 3, 9), "i1"))]),
         [a, b], lambda a, b, fn=fn: fn(a, b), EXACT)
x = randn(5, 7)
case("where(greater) fused", func([x], ["%z = dlg.constant dense<0.0> : tensor<f32>",
                                        f"%m = dlg.greater %a0, %z : {ty((5, 7))}, tensor<f32> -> {ty((5, 7), 'i1')}",
                                        f"%n = dlg.neg %a0 : {ty((5, 7))}",
                                        f"%r = dlg.where %m, %a0, %n : {ty((5, 7), 'i1')}, {ty((5, 7))}, {ty((5, 7))} -> {ty((5, 7))}"],
                                  [("%r", ty((5, 7)))]), [x], np.abs, EXACT)

# --- elementwise unary -----------------------------------------------------------
UN = {
    "neg": (np.negative, randn, EXACT), "abs": (np.abs, randn, EXACT),
    "exp": (np.exp, randn, ARITH), "log": (np.log, pos, ARITH), "sqrt": (np.sqrt, pos, ARITH),
    "rsqrt": (lambda x: 1 / np.sqrt(x), pos, ARITH), "tanh": (np.tanh, randn, ARITH),
    "erf": (erf, randn, ERF), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), randn, ARITH),
    "relu": (lambda x: np.maximum(x, 0), randn, EXACT),
    "silu": (lambda x: x / (1 + np.exp(-x)), randn, ARITH),
    "sin": (np.sin, randn, ARITH), "cos": (np.cos, randn, ARITH),
    "tan": (np.tan, lambda *s: randn(*s) * 0.4, ARITH),
    "asin": (np.arcsin, lambda *s: np.tanh(randn(*s)) / 3, ARITH),
    "acos": (np.arccos, lambda *s: np.tanh(randn(*s)) / 3, ARITH),
    "atan": (np.arctan, randn, ARITH), "sinh": (np.sinh, randn, ARITH),
    "cosh": (np.cosh, randn, ARITH), "asinh": (np.arcsinh, randn, ARITH),
    "acosh": (np.arccosh, lambda *s: pos(*s) + 1, ARITH),
    "atanh": (np.arctanh, lambda *s: np.tanh(randn(*s)) / 3, ARITH),
}
for op, (fn, gen, tol) in UN.items():
    for shape in [(37,), (3, 5, 19)]:
        x = gen(*shape) * (3 if gen is randn else 1)
        case(f"{op} {shape}", func([x], [f"%r = dlg.{op} %a0 : {ty(shape)}"], [("%r", ty(shape))]),
             [x], fn, tol)
for approx, fn in [("none", lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
                   ("tanh", lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                             (x + 0.044715 * x ** 3))))]:
    x = randn(6, 23) * 3
    case(f"gelu {approx}", func([x], [f'%r = dlg.gelu %a0 {{approximate = "{approx}"}} : {ty((6, 23))}'],
                                [("%r", ty((6, 23)))]), [x], fn, ERF)
for attrs, lo, hi in [("{min = 0.0 : f64, max = 6.0 : f64}", 0, 6), ("{min = -0.5 : f64}", -0.5, None),
                      ("{max = 0.25 : f64}", None, 0.25)]:
    x = randn(4, 21) * 4
    case(f"clamp {attrs}", func([x], [f"%r = dlg.clamp %a0 {attrs} : {ty((4, 21))}"],
                                [("%r", ty((4, 21)))]),
         [x], lambda x, lo=lo, hi=hi: np.clip(x, lo, hi), EXACT)
c = rng.random((4, 1, 9)) > 0.5
a, b = randn(5, 9), randn(1, 9)
case("where broadcast", func([c, a, b], [f"%r = dlg.where %a0, %a1, %a2 : {ty((4, 1, 9), 'i1')}, "
                                         f"{ty((5, 9))}, {ty((1, 9))} -> {ty((4, 5, 9))}"],
                             [("%r", ty((4, 5, 9)))]),
     [c, a, b], lambda c, a, b: np.where(c, a, b), EXACT)
for src_t, dst_t, gen in [("f32", "i32", lambda: randn(3, 17) * 10), ("i32", "f32",
                          lambda: rng.integers(-99, 99, (3, 17)).astype(np.int32)),
                          ("f32", "f16", lambda: randn(3, 17)), ("f32", "i1", lambda: randn(3, 17)),
                          ("i64", "i32", lambda: rng.integers(-99, 99, (3, 17)))]:
    x = gen()
    npdst = {"i32": np.int32, "f32": np.float32, "f16": np.float16, "i1": np.bool_}[dst_t]
    case(f"cast {src_t}->{dst_t}",
         func([x], [f"%r = dlg.cast %a0 : {ty((3, 17), src_t)} -> {ty((3, 17), dst_t)}"],
              [("%r", ty((3, 17), dst_t))]),
         [x], lambda x, t=npdst: x.astype(t), EXACT)

# --- matmul ------------------------------------------------------------------------
for sa, sb, ta, tb in [((5, 7), (7, 3), False, False), ((33, 65), (65, 17), False, False),
                       ((64, 48), (48, 80), False, False), ((9, 5), (9, 11), True, False),
                       ((5, 9), (11, 9), False, True), ((9, 5), (11, 9), True, True),
                       ((2, 3, 5, 7), (7, 4), False, False), ((4, 1, 6, 7), (3, 7, 5), False, False),
                       ((2, 8, 16), (2, 8, 16), False, True)]:
    a, b = randn(*sa), randn(*sb)
    at = np.swapaxes(a, -1, -2) if ta else a
    bt = np.swapaxes(b, -1, -2) if tb else b
    out = np.matmul(at, bt).shape
    k = at.shape[-1]
    attrs = []
    if ta: attrs.append("transpose_a = true")
    if tb: attrs.append("transpose_b = true")
    attr = f" {{{', '.join(attrs)}}}" if attrs else ""
    case(f"matmul {sa}@{sb} ta={ta} tb={tb}",
         func([a, b], [f"%r = dlg.matmul %a0, %a1{attr} : {ty(sa)}, {ty(sb)} -> {ty(out)}"],
              [("%r", ty(out))]),
         [a, b], lambda a, b, ta=ta, tb=tb: np.matmul(np.swapaxes(a, -1, -2) if ta else a,
                                                       np.swapaxes(b, -1, -2) if tb else b),
         (1e-4 * math.sqrt(k), 1e-5))


# --- conv2d and pools ----------------------------------------------------------------
def conv_ref(x, w, bias, strides, pads, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    ho = (h + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (wd + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]: i * dil[0] + strides[0] * (ho - 1) + 1: strides[0],
                           j * dil[1]: j * dil[1] + strides[1] * (wo - 1) + 1: strides[1]]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    if bias is not None:
        out += bias[None, :, None, None]
    return out


for xs, ws, st, pd, dl, g, with_bias in [
        ((1, 3, 9, 11), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        ((2, 4, 10, 10), (6, 2, 3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 2, False),
        ((1, 6, 8, 9), (6, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 6, True),
        ((1, 2, 12, 12), (3, 2, 3, 3), (1, 2), (2, 2, 2, 2), (2, 2), 1, True),
        ((1, 5, 7, 7), (8, 5, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
        # im2col + packed GEMM (16+ output channels, Ho*Wo a multiple of 16):
        ((1, 8, 16, 16), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        ((1, 4, 16, 17), (24, 4, 3, 3), (2, 2), (1, 0, 1, 0), (1, 1), 1, False),
        ((1, 3, 20, 20), (16, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1, True),
        ((1, 32, 8, 8), (32, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
        ((3, 8, 8, 8), (16, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        # one image whose Ho*Wo no panel divides: transposed, channel panels
        ((1, 16, 14, 14), (64, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        ((1, 32, 7, 7), (48, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
        ((1, 8, 13, 13), (32, 8, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1, True),
        # direct conv (stride-1 rows, output channels in vector panels): two
        # images, 5x5 dilated with vertical stride 2, a half-vector panel
        ((2, 12, 10, 14), (64, 12, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        ((1, 6, 15, 11), (32, 6, 5, 5), (2, 1), (2, 3, 1, 3), (1, 2), 1, False),
        ((1, 16, 7, 7), (24, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True),
        # the copy back to NCHW in transposed blocks: 16 channels x 5 pixels
        # (Wo = 5), and Wo = 3, too narrow for a block (pixel vectors)
        ((1, 8, 6, 5), (32, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
        ((1, 8, 3, 3), (16, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True),
        # depthwise (vectorised rows): dilated, vertical stride 2, two images
        ((2, 32, 9, 12), (32, 1, 3, 3), (2, 1), (2, 2, 2, 2), (2, 2), 32, True),
        ((1, 16, 14, 14), (16, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 16, False),
        # depthwise rows in whole vectors plus power-of-two pieces:
        # 37 = 32 + 4 + 1 (AVX-512), 23 = 16 + 4 + 2 + 1, 5 wide
        ((1, 8, 5, 37), (8, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8, True),
        ((1, 5, 6, 21), (5, 1, 3, 3), (1, 1), (1, 0, 1, 0), (1, 1), 5, False),
        ((1, 3, 4, 5), (3, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3, True),
        # 100 = 2 x 48 (3-vector accumulators) + 4; 5x5 taps, all unrolled
        ((1, 4, 3, 100), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4, False),
        ((1, 6, 9, 20), (6, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 6, True),
        # depthwise with a horizontal stride (MobileNetV2's downsampling
        # blocks): odd and even widths, asymmetric pads, 5x5, stride 3
        ((1, 6, 13, 17), (6, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 6, True),
        ((2, 4, 12, 22), (4, 1, 3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 4, False),
        ((1, 5, 11, 35), (5, 1, 5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 5, True),
        ((1, 3, 10, 19), (3, 1, 3, 3), (1, 3), (1, 2, 0, 1), (1, 1), 3, False),
        ((1, 4, 9, 21), (4, 1, 3, 3), (2, 2), (2, 2, 2, 2), (2, 2), 4, True)]:
    x, w = randn(*xs), randn(*ws)
    bias = randn(ws[0]) if with_bias else None
    want = conv_ref(x, w, bias, st, pd, dl, g)
    args = [x, w] + ([bias] if with_bias else [])
    operands = "%a0, %a1" + (", %a2" if with_bias else "")
    types = ", ".join(mlir_type(a) for a in args)
    attrs = (f"{{strides = array<i64: {st[0]}, {st[1]}>, padding = array<i64: {', '.join(map(str, pd))}>, "
             f"dilations = array<i64: {dl[0]}, {dl[1]}>, groups = {g} : i64}}")
    case(f"conv2d {xs}*{ws} s={st} p={pd} d={dl} g={g} bias={with_bias}",
         func(args, [f"%r = dlg.conv2d {operands} {attrs} : ({types}) -> {ty(want.shape)}"],
              [("%r", ty(want.shape))]),
         args, lambda *a, want=want: want, (1e-4 * math.sqrt(ws[1] * ws[2] * ws[3]), 1e-5))


def pool_ref(x, k, st, pd, ceil, kind, include):
    n, c, h, w = x.shape
    def osz(d, i):
        num = d + pd[i] + pd[i + 2] - k[i]
        o = (-(-num // st[i]) if ceil else num // st[i]) + 1
        if ceil and (o - 1) * st[i] >= d + pd[i]:
            o -= 1
        return o
    ho, wo = osz(h, 0), osz(w, 1)
    out = np.zeros((n, c, ho, wo), np.float64)
    for i in range(ho):
        for j in range(wo):
            h0, w0 = i * st[0] - pd[0], j * st[1] - pd[1]
            h1, w1 = min(h0 + k[0], h + pd[2]), min(w0 + k[1], w + pd[3])
            size = (h1 - h0) * (w1 - w0)
            hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            win = x[:, :, hs:he, ws:we]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                out[:, :, i, j] = win.sum(axis=(2, 3)) / (size if include else (he - hs) * (we - ws))
    return out


for kind in ["max", "avg"]:
    for xs, k, st, pd, ceil, inc in [((1, 3, 9, 9), (3, 3), (2, 2), (1, 1, 1, 1), False, False),
                                     ((2, 2, 8, 11), (2, 3), (2, 1), (0, 0, 0, 0), False, False),
                                     ((1, 2, 10, 10), (3, 3), (2, 2), (0, 0, 0, 0), True, False),
                                     ((1, 2, 7, 7), (3, 3), (1, 1), (1, 1, 1, 1), False, True)]:
        if kind == "max" and inc:
            continue
        x = randn(*xs)
        want = pool_ref(x, k, st, pd, ceil, kind, inc)
        extra = f", count_include_pad = {'true' if inc else 'false'}" if kind == "avg" else ""
        attrs = (f"{{kernel = array<i64: {k[0]}, {k[1]}>, strides = array<i64: {st[0]}, {st[1]}>, "
                 f"padding = array<i64: {', '.join(map(str, pd))}>, ceil_mode = "
                 f"{'true' if ceil else 'false'}{extra}}}")
        case(f"{kind}_pool2d {xs} k={k} s={st} p={pd} ceil={ceil} inc={inc}",
             func([x], [f"%r = dlg.{kind}_pool2d %a0 {attrs} : {ty(xs)} -> {ty(want.shape)}"],
                  [("%r", ty(want.shape))]),
             [x], lambda x, want=want: want, RED)

# --- normalisations, softmax, reductions ------------------------------------------------
for shape, axis in [((4, 16), 1), ((4, 16, 16), 1), ((3, 5, 37), -1), ((2, 7, 9), -2)]:
    x = randn(*shape) * 2
    nd = tuple(range(axis % len(shape), len(shape)))
    g, b = randn(*shape[axis % len(shape):]), randn(*shape[axis % len(shape):])
    gt = ty(g.shape)

    def ln(x, g=None, b=None, nd=nd):
        m = x.mean(axis=nd, keepdims=True)
        v = ((x - m) ** 2).mean(axis=nd, keepdims=True)
        y = (x - m) / np.sqrt(v + 1e-5)
        return y * (g if g is not None else 1) + (b if b is not None else 0)

    def rms(x, g=None, nd=nd):
        y = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=nd, keepdims=True) + 1e-5)
        return y * (g if g is not None else 1)

    case(f"layer_norm {shape} axis={axis}",
         func([x, g, b], [f"%r = dlg.layer_norm %a0 gamma %a1 beta %a2 {{axis = {axis} : i64}} : "
                          f"({ty(shape)}, {gt}, {gt}) -> {ty(shape)}"], [("%r", ty(shape))]),
         [x, g, b], ln, RED)
    case(f"layer_norm {shape} axis={axis} no affine",
         func([x], [f"%r = dlg.layer_norm %a0 {{axis = {axis} : i64, epsilon = 1.0e-5 : f64}} : "
                    f"({ty(shape)}) -> {ty(shape)}"], [("%r", ty(shape))]), [x], ln, RED)
    case(f"rms_norm {shape} axis={axis}",
         func([x, g], [f"%r = dlg.rms_norm %a0 gamma %a1 {{axis = {axis} : i64, epsilon = 1.0e-5 : f64}} : "
                       f"({ty(shape)}, {gt}) -> {ty(shape)}"], [("%r", ty(shape))]), [x, g], rms, RED)
    case(f"rms_norm {shape} axis={axis} no gamma",
         func([x], [f"%r = dlg.rms_norm %a0 {{axis = {axis} : i64}} : ({ty(shape)}) -> {ty(shape)}"],
              [("%r", ty(shape))]), [x], rms, RED)
    for op in ["softmax", "log_softmax"]:
        def sm(x, axis=axis, op=op):
            z = x - x.max(axis=axis, keepdims=True)
            s = np.exp(z).sum(axis=axis, keepdims=True)
            return np.exp(z) / s if op == "softmax" else z - np.log(s)
        case(f"{op} {shape} axis={axis}",
             func([x * 10], [f"%r = dlg.{op} %a0 {{axis = {axis} : i64}} : {ty(shape)}"],
                  [("%r", ty(shape))]), [x * 10], sm, RED)

x = randn(2, 5, 3, 3)
sc, bi, mu, var = randn(5), randn(5), randn(5), pos(5)
case("batch_norm", func([x, sc, bi, mu, var],
                        [f"%r = dlg.batch_norm %a0, %a1, %a2, %a3, %a4 {{epsilon = 1.0e-3 : f64}} : "
                         f"({ty(x.shape)}, {ty((5,))}, {ty((5,))}, {ty((5,))}, {ty((5,))}) -> {ty(x.shape)}"],
                        [("%r", ty(x.shape))]),
     [x, sc, bi, mu, var],
     lambda x, s, b, m, v: (x - m[:, None, None]) / np.sqrt(v[:, None, None] + 1e-3) * s[:, None, None]
     + b[:, None, None], RED)

RED_OPS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min}
for op, fn in RED_OPS.items():
    for shape, axes, keep in [((5, 13), [1], False), ((3, 4, 17), [0, 2], True), ((3, 4, 17), [-1], False),
                              ((6, 9), [], False), ((2, 3, 5), [-2], True)]:
        x = randn(*shape)
        want = fn(x, axis=tuple(axes) if axes else None, keepdims=keep)
        want = np.asarray(want)
        attrs = f"{{axes = array<i64{': ' + ', '.join(map(str, axes)) if axes else ''}>, keepdims = {'true' if keep else 'false'}}}"
        case(f"{op} {shape} axes={axes} keep={keep}",
             func([x], [f"%r = dlg.{op} %a0 {attrs} : {ty(shape)} -> {ty(want.shape)}"],
                  [("%r", ty(want.shape))]), [x], lambda x, want=want: want, RED)

# --- data movement ------------------------------------------------------------------------
for shape, perm in [((3, 5), (1, 0)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((4, 6, 7), (2, 0, 1))]:
    x = randn(*shape)
    out = tuple(shape[p] for p in perm)
    case(f"transpose {shape} {perm}",
         func([x], [f"%r = dlg.transpose %a0 perm = [{', '.join(map(str, perm))}] : {ty(shape)} -> {ty(out)}"],
              [("%r", ty(out))]), [x], lambda x, perm=perm: np.transpose(x, perm), EXACT)
for shape, out in [((4, 6), (24,)), ((2, 3, 4), (6, 4)), ((24,), (2, 3, 4)), ((1, 12), (3, 1, 4))]:
    x = randn(*shape)
    case(f"reshape {shape}->{out}", func([x], [f"%r = dlg.reshape %a0 : {ty(shape)} -> {ty(out)}"],
                                         [("%r", ty(out))]),
         [x], lambda x, out=out: x.reshape(out), EXACT)
for shapes, axis in [([(2, 3), (2, 5)], 1), ([(1, 4), (3, 4), (2, 4)], 0), ([(2, 2, 3), (2, 1, 3)], -2)]:
    xs = [randn(*s) for s in shapes]
    out = np.concatenate(xs, axis=axis).shape
    ops = ", ".join(f"%a{i}" for i in range(len(xs)))
    types = ", ".join(ty(s) for s in shapes)
    case(f"concat {shapes} axis={axis}",
         func(xs, [f"%r = dlg.concat {ops} {{axis = {axis} : i64}} : ({types}) -> {ty(out)}"],
              [("%r", ty(out))]), xs, lambda *xs, axis=axis: np.concatenate(xs, axis=axis), EXACT)
for shape, starts, ends, steps in [((10, 7), (1, 0), (8, 7), (1, 2)), ((10, 7), (-3, 2), (100, -1), None),
                                   ((9, 6), (8, 5), (0, -100), (-2, -1)), ((5, 5, 5), (0, 1, 2), (5, 4, 3), (2, 1, 1))]:
    x = randn(*shape)
    sl = tuple(slice(s, e, st) for s, e, st in zip(starts, ends, steps or [1] * len(shape)))
    out = x[sl].shape
    st_attr = f", steps = array<i64: {', '.join(map(str, steps))}>" if steps else ""
    case(f"slice {shape} {starts}:{ends}:{steps}",
         func([x], [f"%r = dlg.slice %a0 {{starts = array<i64: {', '.join(map(str, starts))}>, "
                    f"ends = array<i64: {', '.join(map(str, ends))}>{st_attr}}} : {ty(shape)} -> {ty(out)}"],
              [("%r", ty(out))]), [x], lambda x, sl=sl: x[sl], EXACT)
for dshape, ishape, axis, itype in [((10, 8), (3, 4), 0, np.int64), ((4, 9, 3), (5,), 1, np.int32),
                                    ((6, 5), (2,), -1, np.int64)]:
    data = randn(*dshape)
    ids = rng.integers(-dshape[axis], dshape[axis], ishape).astype(itype)
    out = np.take(data, ids, axis=axis).shape
    it = "i64" if itype == np.int64 else "i32"
    case(f"gather {dshape}[{ishape}] axis={axis}",
         func([data, ids], [f"%r = dlg.gather %a0[%a1] {{axis = {axis} : i64}} : ({ty(dshape)}, "
                            f"{ty(ishape, it)}) -> {ty(out)}"], [("%r", ty(out))]),
         [data, ids], lambda d, i, axis=axis: np.take(d, i, axis=axis), EXACT)
for shape, pads, value in [((3, 4), (1, 0, 2, 3), 0.0), ((2, 3, 5), (0, 1, 2, 1, 0, 0), -1.5)]:
    x = randn(*shape)
    r = len(shape)
    pw = [(pads[i], pads[i + r]) for i in range(r)]
    out = np.pad(x, pw).shape
    case(f"pad {shape} {pads} value={value}",
         func([x], [f"%r = dlg.pad %a0 {{pads = array<i64: {', '.join(map(str, pads))}>, value = {value} : f64}} "
                    f": {ty(shape)} -> {ty(out)}"], [("%r", ty(out))]),
         [x], lambda x, pw=pw, v=value: np.pad(x, pw, constant_values=v), EXACT)
c = randn(3, 5)
case("constant + add", func([c], ["%c = dlg.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>",
                                  f"%r = dlg.add %a0, %c : {ty((3, 5))}, {ty((5,))} -> {ty((3, 5))}"],
                            [("%r", ty((3, 5)))]),
     [c], lambda x: x + np.arange(1, 6, dtype=np.float32), ARITH)


def literal(a):
    """A dense attribute literal of array `a`: hex bytes, or nested bools."""
    if a.dtype == np.bool_:
        def nest(x):
            return "[" + ", ".join(nest(y) for y in x) + "]" if isinstance(x, list) else str(x).lower()
        return f"dense<{nest(a.tolist())}>"
    return f'dense<"0x{np.ascontiguousarray(a).tobytes().hex().upper()}">'


def constant_inputs(src, inputs):
    """`src` with its arguments replaced by constants holding `inputs`."""
    head, body = src.split("{\n", 1)
    defs = "".join(f"  %a{i} = dlg.constant {literal(a)} : {mlir_type(a)}\n"
                   for i, a in enumerate(inputs))
    return "func.func @main() -> " + head.split(") -> ", 1)[1] + "{\n" + defs + body


def folded(src):
    """Whether --dlg-fold-constants leaves no op but constants."""
    ir = dlc.run_pipeline(src, "builtin.module(func.func(dlg-fold-constants))")
    return all(line.split("=")[-1].strip().startswith("dlg.constant")
               for line in ir.splitlines() if "dlg." in line)


def compare(got, want, atol, rtol):
    """(None, max error) when `got` matches `want` -- floats within atol +
    rtol * |want| (NaN where want has NaN), other types exactly -- else (what
    differs, None). Shared with test/GPU/gpu_check.py."""
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}", None
    if want.dtype.kind in "fc" or got.dtype.kind == "f":
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bound = atol + rtol * np.abs(want.astype(np.float64))
        bad = ~(err <= bound) & ~(np.isnan(want) & np.isnan(got.astype(np.float64)))
    else:
        bad = got != want.astype(got.dtype)
        err = bad.astype(float)
    if bad.any():
        return (f"max err {err.max():.3g} (atol {atol:g}, rtol {rtol:g}), "
                f"{int(bad.sum())} of {bad.size} elements"), None
    return None, float(err.max()) if err.size else 0.0


def report(name, got, want, atol, rtol, note=""):
    """Prints the case's `ok` or `FAIL` line; True when it failed."""
    problem, err = compare(got, want, atol, rtol)
    print(f"FAIL {name}: {problem}" if problem else f"ok   {name}: max err {err:.3g}{note}")
    return problem is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("--target", default=None)
    ap.add_argument("--fold", action="store_true")
    opts = ap.parse_args()
    nfolded = 0
    failed = 0
    ran = 0
    for name, src, inputs, ref, (atol, rtol) in CASES:
        if opts.k not in name:
            continue
        ran += 1
        args = inputs
        try:
            if opts.fold:
                src, args = constant_inputs(src, inputs), []
                how = "folded" if folded(src) else "run"
                nfolded += how == "folded"
                name = f"{name} [{how}]"
            m = dlc.compile(src, target=opts.target)
            got = m(*args)
            want = np.asarray(ref(*[i.astype(np.float64) if i.dtype == np.float32 else i
                                    for i in inputs]))
        except Exception as e:  # report and go on: one line per failing case
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        failed += report(name, got, want, atol, rtol)
    if opts.fold:
        print(f"{nfolded} of {ran} cases folded at compile time")
    print(f"{ran - failed} of {ran} cases passed")
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
