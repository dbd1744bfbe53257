"""GEMMs with B as an argument, packed inside the first row block's compute
(dlc-gemm-fuse-packing): BERT's shapes, rows that MR does not divide (a
remainder row loop after the fused one; 67x512x384 in AVX-512's 9 x 48
register tiles, which dlc-split-register-tiles splits, with a 4-row one), 32 rows (MLP b=32: packed, fused,
from 32 rows on, gemm_packing.c; from 16 where B's rows are 4 KiB
apart: 16x1024x1024, 24x512x2048), a bias + GELU epilogue, many Kc
blocks, at 1 and 2 threads. Each case checks that the
pass fused what it should for AVX2 and for AVX-512 (the IR after it,
from dlc-opt), that the result
is NumPy's, and that it is bit for bit the result of the same GEMM with B
a constant, which dlc-prepack-weights packs at compile time and no copy
touches. A K of one Kc block (no Kc loop) and a transposed B keep their
copy, and must still be right. Prints one
line per case for FileCheck; exits 1 on any FAIL."""

import os
import subprocess
import sys

import numpy as np

import dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "E2E",
                                "Inputs"))
import models  # noqa: E402

# The GEMM cases (IR, inputs, NumPy's answer) are prepack_weights.py's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prepack_weights import gemm_case as case  # noqa: E402


# Not fused: K in one Kc block (no Kc loop), and a transposed B, whose
# copy reads square blocks (schedule/transpose_tile.h), not rows.
UNFUSED = ("gemm 64x160", "gemm 130x768x384 transpose_b")
# Not fused with AVX-512 either: parallel tiles whose Kc rows are runs of
# 2 KiB or more of B, which the copy streams faster
# (dlcGemmFusePackingMaxRunBytes): 128x768x4096's and 24x512x2048's tiles
# of 16 panels of 32 floats. 128x768x3072's panels are 48 wide, and the avx512 model's tiles
# of 8 of them make runs of 1.5 KiB: fused. The fixed avx2 and avx512
# targets make the count independent of the machine; the numerics run on
# this one, so an AVX-512 machine checks both the fused GEMMs and the copy
# (on a 2 MiB L2, 128x768x3072 takes tiles of 16 panels: the copy).
UNFUSED_AVX512 = UNFUSED + ("gemm 128x768x4096", "gemm 24x512x2048")
# Not fused with AVX2: B's rows 4, 8, 12 and 16 KiB apart (N = 1024, 2048,
# 3072, 4096), whose Kc = 256 or 384 rows map onto 16, 8, 16 and 4 sets of
# the avx2 model's 512 KiB 8-way L2, 128, 64, 128 and 32 lines: the rows the first row block reads would evict
# each other before it gets to them (dlcCacheLinesForRows).
UNFUSED_AVX2 = UNFUSED + ("gemm 128x768x3072", "gemm 128x768x4096", "gemm 16x1024x1024",
                          "gemm 24x512x2048")


def fused_loops(src, target):
    ir = subprocess.run(["dlc-opt", f"--lower-to-llvm=target={target}",
                         "--mlir-print-ir-after=dlc-gemm-fuse-packing", "-", "-o", os.devnull],
                        input=src, capture_output=True, text=True, check=True).stderr
    return ir.count("dlc.fused_packing")


def main():
    cases = [case(128, 768, 768), case(128, 3072, 768), case(128, 768, 3072, epilogue=True),
             case(100, 512, 256), case(67, 512, 256), case(32, 784, 512), case(130, 768, 384, tb=True),
             case(64, 160, 256), case(128, 768, 4096), case(67, 512, 384),
             case(16, 1024, 1024), case(24, 512, 2048, epilogue=True)]
    failed = 0
    for name, src, args, want in cases:
        fused = fused_loops(src, "avx2")
        fused512 = fused_loops(src, "avx512")
        const_src, rest = models.with_constant_weights(src, args)
        for threads in (1, 2):
            got = dlc.compile(src, threads=threads)(*args)
            ref = dlc.compile(const_src, threads=threads)(*rest)
            err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
            same = np.array_equal(got, ref)
            ok = (same and err < 1e-4 and fused == (0 if name.startswith(UNFUSED_AVX2) else 1)
                  and fused512 == (0 if name.startswith(UNFUSED_AVX512) else 1))
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}, {threads} thread{'s' if threads > 1 else ''}: "
                  f"fused Kc loops {fused} (avx2) {fused512} (avx512), same as prepacked {same}, "
                  f"error {'%.0e' % err if err else 0}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
