"""GEMMs that run as dot products (cost_model.c's dlcScheduleDot): B
transposed and an argument, fewer than 16 rows of A. A GEMV, a prime
number of columns (no parallel tiles, a tail tile), a bias + relu
epilogue, a K no multiple of the vector (four-lane partial sums), a
decoder's attention scores over 197 keys per head, and a batched A by
one 2-d B. Each equals NumPy (float64) at 1 and 2 threads, and ran as
dot products for AVX2 and for AVX-512 (the schedule's group kind, from
dlc-opt). A K shorter than a vector keeps the GEMM schedule. Prints one
line per case for FileCheck; exits 1 on any FAIL."""

import os
import subprocess
import sys

import numpy as np

import dlc

# The GEMM cases (IR, inputs, NumPy's answer) are gemm_ragged.py's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_ragged import case as gemm_case  # noqa: E402


def case(m, k, n, batch=None, b_batched=True, epilogue=False):
    name, src, args, want, _ = gemm_case(m, k, n, tb=True, epilogue=epilogue, batch=batch,
                                         b_batched=b_batched)
    return name, src, args, want


def kinds(src, target):
    """The schedule's group kinds of the kernels (dot, gemm, loops ...)."""
    err = subprocess.run(["dlc-opt", "-", "--pass-pipeline=builtin.module(func.func(dlg-fuse),"
                          "dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,"
                          f"dlc-cpu-schedule{{target={target} print-transform=true}})",
                          "-o", os.devnull], input=src, capture_output=True, text=True,
                         check=True).stderr
    return sorted({line.rsplit(", ", 1)[1] for line in err.splitlines()
                   if "// group" in line and " ops, " in line})


def main():
    cases = [(case(1, 1024, 1024), "dot"), (case(1, 768, 5003), "dot"),
             (case(4, 768, 3072, epilogue=True), "dot"), (case(13, 100, 77), "dot"),
             (case(1, 64, 197, batch=12), "dot"), (case(5, 256, 96, batch=3, b_batched=False), "dot"),
             (case(8, 4, 64), "gemm"), (case(3, 256, 1003, epilogue=True), "dot")]
    failed = 0
    for (name, src, args, want), kind in cases:
        seen = [kinds(src, t) for t in ("avx2", "avx512")]
        for threads in (1, 2):
            got = dlc.compile(src, threads=threads)(*args)
            err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
            ok = err < 1e-5 and got.shape == want.shape and all(kind in s for s in seen)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}, {threads} thread{'s' if threads > 1 else ''}: "
                  f"{'/'.join(seen[0])} (avx2) {'/'.join(seen[1])} (avx512)"
                  + ("" if ok else f", error {err:.1e}"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
