"""The JIT's compiled code allocates its per-call buffers through the
process's allocator: run under count_alloc.so (argv[1], preloaded in front
of libc's as tcmalloc or jemalloc would be), a GEMM whose schedule packs
blocks of B too large for the stack (1 MiB, dlc-hoist-scratch's budget is
512 KiB) must show them in the preloaded allocator's count, and give
NumPy's result. Resolved through the runtime libraries' own dependencies
instead, they went to libc's malloc, unseen here.

The cost model's GEMM allocates nothing per call: its packing buffers are
on the stack, one per parallel tile (dlc-hoist-scratch), not malloc'd per
Kc block (what glibc's trimming turned into page faults)."""
import ctypes
import sys

import numpy as np

import dlc

count = ctypes.CDLL(sys.argv[1])
count.countAllocStop.restype = ctypes.c_long
rng = np.random.default_rng(3)
m, k, n = 256, 1024, 512
t = lambda r, c: f"tensor<{r}x{c}xf32>"
gemm = (f"func.func @main(%a: {t(m, k)}, %b: {t(k, n)}) -> {t(m, n)} {{\n"
        f"  %c = dlg.matmul %a, %b : {t(m, k)}, {t(k, n)} -> {t(m, n)}\n"
        f"  return %c : {t(m, n)}\n}}")
big = (f"func.func @main(%a: {t(m, k)}, %b: {t(k, n)}) -> {t(m, n)} {{\n"
       f"  %y = dlk.kernel \"contraction\" schedule #dlk.schedule<tile = [16, 0, 0, 1024], "
       f"vector = 8, register = [4, 16], parallel = [0]> (%a, %b) : "
       f"({t(m, k)}, {t(k, n)}) -> {t(m, n)} {{\n"
       f"  ^bb0(%x: {t(m, k)}, %w: {t(k, n)}):\n"
       f"    %0 = dlg.matmul %x, %w : {t(m, k)}, {t(k, n)} -> {t(m, n)}\n"
       f"    dlk.yield %0 : {t(m, n)}\n  }}\n"
       f"  return %y : {t(m, n)}\n}}")
a = rng.standard_normal((m, k)).astype(np.float32)
b = rng.standard_normal((k, n)).astype(np.float32)
want = a.astype(np.float64) @ b
for name, src in (("gemm", gemm), ("gemm, 1 MiB blocks of B", big)):
    for threads in (1, 2):
        mod = dlc.compile(src, threads=threads)
        out = np.empty((m, n), np.float32)
        mod.run(a, b, out=[out])
        count.countAllocStart()
        mod.run(a, b, out=[out])
        seen = count.countAllocStop()
        ok = np.allclose(out, want, rtol=1e-4, atol=1e-3)
        print(f"{name} {m}x{k}x{n} threads {threads}: "
              f"{'allocations seen' if seen > 0 else 'no allocation'}, "
              f"result {'ok' if ok else 'WRONG'}")
