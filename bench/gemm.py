"""GEMM against OpenBLAS on chosen shapes, with more runs than bench/run.py
(the same interleaved best-of measurement), for tuning a schedule.

Run: env -u OPENBLAS_CORETYPE /usr/bin/python3 bench/gemm.py [MxKxN ...] [--threads T] [--reps N]
     [--cold-b COPIES]

--cold-b rotates each call over COPIES copies of B (both libraries alike),
so that B comes from memory as a model's weights do; 24 copies of a
BERT-base FFN weight (9.4 MB each) are well past any cache.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (sets up the environment OpenBLAS and PyTorch load with)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", default=["512x512x512", "128x768x3072"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--cold-b", type=int, default=1, metavar="COPIES",
                    help="rotate B over this many copies, so that it comes from memory")
    opts = ap.parse_args()
    blas = run.openblas()
    for size in opts.sizes:
        m, k, n = map(int, size.split("x"))
        ours, ref = run.gemm(m, k, n, opts.threads, opts.reps, blas, opts.cold_b)
        ref_text = "n/a" if ref is None else f"{ref:.1f} GFLOP/s"
        cold = f", B over {opts.cold_b} copies" if opts.cold_b > 1 else ""
        print(f"gemm {size} ({opts.threads} thread{'s' if opts.threads > 1 else ''}{cold}): "
              f"dlc {ours:.1f} GFLOP/s, OpenBLAS {ref_text}, ratio {run.ratio(ours, ref, True)}")


if __name__ == "__main__":
    main()
