"""GEMMs whose A is packed block by block (dlc-gemm-pack-a): A of at least
twice L2 (AVX-512) or more than four times (AVX2), rows that MR does not
divide (a remainder block of its own), K whose Kc may be no multiple of the
copy's columns (no packing, no row padding), at 1 and 2 threads. Each case
prints how many blocks of A the AVX-512 and AVX2 pipelines pack (their
fixed cache models: a 1 MiB and a 512 KiB L2, so A >= 2 MiB and A > 2 MiB;
dlc-opt's IR, the same on every host) and checks the host's JIT result
against NumPy (the host packs by its own ISA and L2). One line per case
for FileCheck; exits 1 on any FAIL."""

import os
import subprocess
import sys

import numpy as np

import dlc


def source(m, k, n):
    return f"""func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = dlg.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""


def packed_blocks(src, target):
    ir = subprocess.run(["dlc-opt", f"--lower-to-llvm=target={target}",
                         "--mlir-print-ir-after=dlc-gemm-pack-a", "-", "-o", os.devnull],
                        input=src, capture_output=True, text=True, check=True).stderr
    return ir.count("func.call @dlc_pack_a_")


def main():
    rng = np.random.default_rng(0)
    failed = False
    # (m, k, n): 8 MiB A; 2 MiB exactly (packed with AVX-512: twice L2);
    # 1.75 MiB (not packed); rows 2056 (a 2-row remainder: with AVX2 a
    # block of its own); K 1000 (Kc 200 with AVX2, 168 + 160 with
    # AVX-512); K 1032 (Kc 344 with AVX2, 8-column copy tiles)
    for m, k, n in [(2048, 1024, 256), (512, 1024, 256), (448, 1024, 256), (2056, 1024, 256),
                    (1200, 1000, 256), (2048, 1032, 256)]:
        src = source(m, k, n)
        blocks = packed_blocks(src, "avx512")
        avx2 = packed_blocks(src, "avx2")
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        for threads in (1, 2):
            out = dlc.compile(src, threads=threads).run(a, b)
            out = out[0] if isinstance(out, (list, tuple)) else out
            err = float(np.abs(out - ref).max() / np.abs(ref).max())
            ok = err < 1e-5
            failed |= not ok
            print(f"{'ok  ' if ok else 'FAIL'} gemm {m}x{k}x{n}, {threads} thread"
                  f"{'s' if threads > 1 else ''}: AVX-512 code packs A at {blocks} sites, "
                  f"AVX2 code at {avx2}"
                  + ("" if ok else f", relative error {err:.2e}"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
