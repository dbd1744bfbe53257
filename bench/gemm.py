"""GEMM against OpenBLAS, interleaved and best-of-N in one process, for a
noisy (shared, virtualised) machine where bench/run.py's single medians
swing by 30%: each round times dlc and cblas_sgemm back to back.

Run: env -u OPENBLAS_CORETYPE /usr/bin/python3 bench/gemm.py [MxKxN ...] [--threads T]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlc  # noqa: E402
from run import gemm_source, openblas  # noqa: E402


def best(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", default=["512x512x512", "128x768x3072"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    opts = ap.parse_args()
    blas = openblas()
    blas.openblas_set_num_threads(opts.threads)
    for size in opts.sizes:
        m, k, n = map(int, size.split("x"))
        a = np.random.rand(m, k).astype(np.float32)
        b = np.random.rand(k, n).astype(np.float32)
        c = np.empty((m, n), np.float32)
        mod = dlc.compile(gemm_source(m, k, n), threads=opts.threads)
        flop = 2.0 * m * n * k
        ours = ref = 0.0
        for _ in range(opts.rounds):
            ours = max(ours, flop / best(lambda: mod.run(a, b, out=[c]), opts.reps) / 1e9)
            ref = max(ref, flop / best(lambda: blas.cblas_sgemm(
                101, 111, 111, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data, n, 0.0,
                c.ctypes.data, n), opts.reps) / 1e9)
        print(f"gemm {size} ({opts.threads} thread{'s' if opts.threads > 1 else ''}): "
              f"dlc {ours:.1f} GFLOP/s, OpenBLAS {ref:.1f} GFLOP/s, ratio {ours / ref:.2f}x")


if __name__ == "__main__":
    main()
