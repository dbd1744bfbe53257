"""GEMMs of sizes without convenient divisors (issue 15: "GEMM at every
size"): a prime M (ViT's 197 tokens, 257, 1021; batched, attention's
scores and context at 197 tokens), a prime K (389), N no
whole number of panels (770, 129, 100 with transpose_b) or, on the plain
loops of few rows or few columns, of vectors (127, a 5003-word
vocabulary, a batched 45, 17; below 8 rows B streams, read in place in
whole vectors and one partial vector: 1003, 5003, 1001, a batched 333),
with and without a bias + relu epilogue,
a classifier of 1004 classes behind a flatten, and a transposed B whose
Kc blocks (196 of K = 784; 324 of 1604, the last one shorter) no square
8 x 8 block divides. Each equals NumPy
(float64) at 1 and 2 threads, with B as an argument (padded and packed on every call) and
as a constant (padded and packed at compile time, dlc-prepack-weights),
and the two are bit for bit the same: the padding adds zeros only to
columns that are sliced off. One line per case for FileCheck; exits 1 on
any FAIL."""

import os
import sys

import numpy as np

import dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "E2E",
                                "Inputs"))
import models  # noqa: E402

rng = np.random.default_rng(46)
T = models.t


def case(m, k, n, tb=False, epilogue=False, batch=None, packs=True, b_batched=True):
    """`packs`: a constant B is padded or packed at compile time (a batched
    B of whole vectors is read as it is). `b_batched` False: a batched A by
    one 2-d B."""
    lead = (batch,) if batch else ()
    w = (rng.standard_normal((lead if b_batched else ()) + ((n, k) if tb else (k, n))) *
         0.1).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    xs, ys = lead + (m, k), lead + (m, n)
    attr = " {transpose_b = true}" if tb else ""
    ops = [f"  %y0 = dlg.matmul %x, %w{attr} : {T(xs)}, {T(w.shape)} -> {T(ys)}"]
    out = "%y0"
    if epilogue:
        ops += [f"  %y1 = dlg.add %y0, %b : {T(ys)}, {T((n,))} -> {T(ys)}",
                f"  %y2 = dlg.relu %y1 : {T(ys)}"]
        out = "%y2"
    src = (f"func.func @f(%x: {T(xs)}, %w: {T(w.shape)}, %b: {T((n,))}) -> {T(ys)} {{\n" +
           "\n".join(ops) + f"\n  return {out} : {T(ys)}\n}}")
    x = rng.standard_normal(xs).astype(np.float32)
    wt = np.swapaxes(w, -1, -2) if tb else w
    z = np.matmul(x.astype(np.float64), wt.astype(np.float64))
    want = np.maximum(z + bias, 0) if epilogue else z
    name = (f"gemm {'%dx' % batch if batch else ''}{m}x{k}x{n}" + (" transpose_b" if tb else "") +
            ("" if b_batched else " (2-d B)") + (" +bias+relu" if epilogue else ""))
    return name, src, [x, w, bias], want, packs


def classifier_case(k, n):
    """A classifier behind a flatten: x [1, K, 1, 1] reshaped to [1, K] by
    W [N, K] (transpose_b), + bias; its B reaches the pad through a
    reshape."""
    w = (rng.standard_normal((n, k)) * 0.05).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    x4, x2, y = T((1, k, 1, 1)), T((1, k)), T((1, n))
    src = (f"func.func @f(%x: {x4}, %w: {T((n, k))}, %b: {T((n,))}) -> {y} {{\n"
           f"  %f = dlg.reshape %x : {x4} -> {x2}\n"
           f"  %y = dlg.matmul %f, %w {{transpose_b = true}} : {x2}, {T((n, k))} -> {y}\n"
           f"  %z = dlg.add %y, %b : {T((1, n))}, {T((n,))} -> {T((1, n))}\n"
           f"  return %z : {T((1, n))}\n}}")
    x = rng.standard_normal((1, k, 1, 1)).astype(np.float32)
    want = x.reshape(1, k).astype(np.float64) @ w.T.astype(np.float64) + bias
    # W an argument: dot products (cpu-schedule-dot.mlir), whose partial
    # sums add in another order than the constant's GEMM: not bit for bit
    return f"classifier 1x{k}x{n} after a flatten", src, [x, w, bias], want, True, False


def run_cases(cases, operand):
    """Checks each (name, source, args, want, packs[, bitwise]) at 1 and 2
    threads, with the weights as arguments and as constants; one line per
    case, naming the constant `operand`. The two agree bit for bit unless
    `bitwise` is False (then to 1e-6). Returns how many failed."""
    failed = 0
    for name, src, args, want, packs, *rest in cases:
        bitwise = rest[0] if rest else True
        const_src, rest = models.with_constant_weights(src, args)
        for threads in (1, 2):
            got = dlc.compile(src, threads=threads)(*args)
            packed = dlc.compile(const_src, threads=threads)
            const = packed(*rest)
            # the pad (and packing) of the constant ran at compile time
            prepacked = "dlc_packed" in packed.ir("llvm") if threads == 1 else packs
            err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
            same = np.array_equal(got, const)
            close = float(np.abs(got - const).max()) <= 1e-6 * max(1.0, np.abs(want).max())
            ok = (err < 1e-5 and (same if bitwise else close) and prepacked == packs
                  and got.shape == want.shape)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}, {threads} thread{'s' if threads > 1 else ''}"
                  f": constant {operand} prepacked {prepacked}, the same {same}"
                  + ("" if ok else f", error {err:.1e}"))
    return failed


def main():
    cases = [case(197, 768, 768), case(257, 511, 129, epilogue=True), case(1021, 64, 48),
             case(128, 389, 512), case(128, 768, 770, epilogue=True),
             case(64, 160, 100, tb=True, epilogue=True), case(8, 512, 127),
             case(1, 768, 5003), case(20, 33, 45, batch=3), case(33, 65, 17, epilogue=True),
             case(197, 64, 197, batch=2), case(197, 197, 64, batch=2, packs=False),
             classifier_case(1280, 1004), case(32, 784, 512, tb=True),
             case(32, 1604, 256, tb=True, epilogue=True),
             case(1, 256, 1003), case(3, 96, 5003, epilogue=True), case(7, 64, 1001),
             case(2, 48, 333, batch=3)]
    sys.exit(1 if run_cases(cases, "B") else 0)


if __name__ == "__main__":
    main()
