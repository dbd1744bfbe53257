"""The JIT's compiled code allocates its per-call buffers through the
process's allocator: run under count_alloc.so (argv[1], preloaded in front
of libc's as tcmalloc or jemalloc would be), a GEMM whose tiles allocate
packing buffers must show them in the preloaded allocator's count, and
give NumPy's result. Resolved through the runtime libraries' own
dependencies instead, they went to libc's malloc, unseen here."""
import ctypes
import sys

import numpy as np

import dlc

count = ctypes.CDLL(sys.argv[1])
count.countAllocStop.restype = ctypes.c_long
rng = np.random.default_rng(3)
m = k = n = 256
t = lambda r, c: f"tensor<{r}x{c}xf32>"
src = (f"func.func @main(%a: {t(m, k)}, %b: {t(k, n)}) -> {t(m, n)} {{\n"
       f"  %c = dlg.matmul %a, %b : {t(m, k)}, {t(k, n)} -> {t(m, n)}\n"
       f"  return %c : {t(m, n)}\n}}")
a = rng.standard_normal((m, k)).astype(np.float32)
b = rng.standard_normal((k, n)).astype(np.float32)
want = a.astype(np.float64) @ b
for threads in (1, 2):
    mod = dlc.compile(src, threads=threads)
    out = np.empty((m, n), np.float32)
    mod.run(a, b, out=[out])
    count.countAllocStart()
    mod.run(a, b, out=[out])
    seen = count.countAllocStop()
    ok = np.allclose(out, want, rtol=1e-4, atol=1e-3)
    print(f"gemm {m}x{k}x{n} threads {threads}: "
          f"{'allocations seen' if seen > 0 else 'NO allocation seen'}, "
          f"result {'ok' if ok else 'WRONG'}")
