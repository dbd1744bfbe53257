"""Outputs larger than the last-level cache (the AVX2 model's 8 MiB) written
with non-temporal stores (passes/streaming_stores.c): the lowered module
has them, fenced, and a smaller model has none; the results are NumPy's and
bit-identical whether the output starts on a cache line (streaming stores)
or 4, 16 or 36 bytes past one (plain stores, checked per store), at 1 and
2 threads; dlc's own result arrays start on a line (dlc.empty_aligned).

Each case prints one line; a mismatch prints FAIL."""
import numpy as np

import dlc


def chain(n):
    ty = f"tensor<{n}xf32>"
    return f"""func.func @main(%x: {ty}, %y: {ty}) -> {ty} {{
  %one = dlg.constant dense<1.0> : tensor<f32>
  %0 = dlg.mul %x, %y : {ty}, {ty} -> {ty}
  %1 = dlg.add %0, %one : {ty}, tensor<f32> -> {ty}
  %2 = dlg.relu %1 : {ty}
  %3 = dlg.sub %2, %y : {ty}, {ty} -> {ty}
  return %3 : {ty}
}}"""


def lowered(src):
    return dlc.run_pipeline(src, "builtin.module(lower-to-llvm{target=avx2})")


def at(n, offset_bytes):
    """n floats starting `offset_bytes` past a cache line."""
    raw = dlc.empty_aligned(n * 4 + 64, np.uint8)
    return raw[offset_bytes:offset_bytes + n * 4].view(np.float32)


big = (9 << 20) // 4 + 40  # 9 MiB and 40 floats: not a whole number of lines
for n, want in ((big, True), (1 << 16, False)):
    text = lowered(chain(n))
    has = "nontemporal" in text and "llvm.x86.sse.sfence" in text
    print(f"{'ok  ' if has == want else 'FAIL'} {n} floats: streaming stores {has}")

rng = np.random.default_rng(0)
x = rng.standard_normal(big).astype(np.float32)
y = rng.standard_normal(big).astype(np.float32)
ref = np.maximum(x.astype(np.float64) * y + 1, 0) - y
for threads in (1, 2):
    mod = dlc.compile(chain(big), threads=threads, target="avx2")
    outs = {}
    for off in (0, 4, 16, 36):
        o = at(big, off)
        o[:] = np.nan
        mod.run(x, y, out=[o])
        outs[off] = o.copy()
    same = all(np.array_equal(outs[0], outs[k]) for k in outs)
    err = float(np.abs(outs[0] - ref).max())
    own = mod.run(x, y)[0]
    print(f"{'ok  ' if same and err < 1e-5 and np.array_equal(own, outs[0]) else 'FAIL'} "
          f"{threads} thread(s): offsets 0/4/16/36 bytes bit-identical {same}, "
          f"max err {err:.1e}, own result on a line {own.ctypes.data % 64 == 0}")
