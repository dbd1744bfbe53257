"""The split JIT (capi/lib/jit_*.c): models of several kernels compiled with
DLC_COMPILE_THREADS=1 (the module whole) and 2 and 3 (split into parts
compiled on threads of their own, linked in one LLJIT) give bit-identical
outputs, within tolerance of NumPy; DLC_JIT_DEBUG reports the parts and
threads; bad settings and unresolved symbols are named errors.

Each case prints one line; a mismatch prints FAIL and the script exits 1.
"""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlc  # noqa: E402
import models  # noqa: E402


def with_threads(threads, fn):
    """fn() with DLC_COMPILE_THREADS=threads and DLC_JIT_DEBUG on; returns
    its result and the split JIT's report lines (from stderr)."""
    os.environ["DLC_COMPILE_THREADS"] = threads
    os.environ["DLC_JIT_DEBUG"] = "1"
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as f:
        os.dup2(f.fileno(), 2)
        try:
            result = fn()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            del os.environ["DLC_COMPILE_THREADS"], os.environ["DLC_JIT_DEBUG"]
        f.seek(0)
        lines = [ln.strip() for ln in f if ln.startswith("dlc-jit:")]
    return result, lines


def compile_with(src, threads):
    # AVX2 code, whose cost model is fixed: the host's caches (read with
    # sysconf for target=host) change how many loop nests stay functions
    # of their own, and so how many parts there are.
    return with_threads(threads, lambda: dlc.Module(src, target="avx2"))


def summary(lines):
    """'8 parts, 2 compile threads (2 asked), entry in 1' from the report:
    its first line, and how many parts define the entry."""
    if not lines:
        return "no report"
    entry = sum(ln.split(";")[0].endswith(", entry") for ln in lines[1:])
    return lines[0].split(": ", 1)[1].rsplit(",", 1)[0] + f", entry in {entry}"


def bert_small():
    s, h, heads, f = 32, 64, 2, 128
    src = models.bert_source(s=s, h=h, heads=heads, f=f)
    args = models.bert_args(s=s, h=h, f=f)
    src, rest = models.with_constant_weights(src, args)
    ref = lambda x: models.bert_ref(*[a.astype(np.float64) for a in [x] + args[1:]], heads=heads)
    return src, rest, ref, 1e-4


def resnet_small():
    c, hw = 16, 14
    src = models.resnet_source(c=c, hw=hw)
    args = models.resnet_args(c=c, hw=hw)
    ref = lambda *a: models.resnet_ref(*[x.astype(np.float64) for x in a])
    return src, args, ref, 1e-4


def mlp():
    src, args, ref, _ = models.mlp(32)
    return src, args, lambda *a: ref(*[x.astype(np.float64) for x in a]), 1e-4


def integer_pow():
    # MLIR outlines integer powers into linkonce_odr helpers
    # (__mlir_math_ipowi_i32/_i64), which LLVM drops from a part that
    # defines but does not call them: they must stay defined for the rest.
    src = """
func.func @main(%a: tensor<64xi32>, %b: tensor<64xi32>, %c: tensor<8x8xi64>, %d: tensor<8x8xi64>) -> (tensor<64xi32>, tensor<8x8xi64>) {
  %0 = dlg.pow %a, %b : tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
  %1 = dlg.pow %c, %d : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi64>
  return %0, %1 : tensor<64xi32>, tensor<8x8xi64>
}
"""
    a = np.arange(-32, 32, dtype=np.int32)
    b = (np.arange(64) % 5).astype(np.int32)
    c = np.arange(64, dtype=np.int64).reshape(8, 8) - 20
    d = (np.arange(64) % 4).astype(np.int64).reshape(8, 8)
    return src, [a, b, c, d], lambda a, b, c, d: (a ** b, c ** d), 0


CASES = {
    "mlp batch 32 (weights as arguments)": mlp,
    "resnet basic block 16x14x14": resnet_small,
    "bert layer s=32 h=64 (constant weights)": bert_small,
    "integer pow i32 and i64": integer_pow,
}


def main():
    failed = 0
    for name, make in CASES.items():
        src, args, ref, atol = make()
        outs, reports = {}, {}
        for threads in ("1", "2", "3"):
            m, lines = compile_with(src, threads)
            outs[threads] = m(*args)
            reports[threads] = summary(lines)
        flat = lambda r: r if isinstance(r, (tuple, list)) else (r,)
        same = all(np.array_equal(x, y) for t in ("2", "3")
                   for x, y in zip(flat(outs["1"]), flat(outs[t])))
        err = max(np.abs(x - y).max() for x, y in zip(flat(outs["2"]), flat(ref(*args))))
        ok = same and err <= atol
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: bitwise equal across threads {same}, "
              f"max err {err:.2g}")
        for t in ("1", "2", "3"):
            print(f"     {t} thread{'s' if t != '1' else ''}: {reports[t]}")

    # The profiler's hooks are registered symbols: a profiled split program
    # times every kernel.
    src, args, _, _ = mlp()
    plain = dlc.Module(src)
    table, lines = with_threads("2", lambda: plain.profile(*args, runs=2))
    timed = [ln.split() for ln in table.splitlines() if ln.startswith("main_kernel")]
    timed = sum(row[-6] == "1" and float(row[-5]) > 0 for row in timed)
    ok = lines and timed == 4
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} profiled, 2 threads: {summary(lines)}; "
          f"{timed} of 4 kernels timed once a run")

    # Named errors.
    for bad in ("0", "two", "-3", "100000"):
        os.environ["DLC_COMPILE_THREADS"] = bad
        try:
            dlc.Module(src)
            print(f"FAIL DLC_COMPILE_THREADS={bad} compiled")
            failed += 1
        except dlc.CompileError as e:
            print(f"ok   DLC_COMPILE_THREADS={bad}: {str(e).splitlines()[-1]}")
        finally:
            del os.environ["DLC_COMPILE_THREADS"]
    undefined = """
func.func private @dlc_nowhere(f32) -> f32
func.func @main(%a: tensor<4xf32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %a[%c0] : tensor<4xf32>
  %y = func.call @dlc_nowhere(%s) : (f32) -> f32
  %r = tensor.from_elements %y : tensor<1xf32>
  return %r : tensor<1xf32>
}
"""
    for threads in ("1", "2"):
        try:
            compile_with(undefined, threads)
            print(f"FAIL undefined symbol, {threads} thread(s): compiled")
            failed += 1
        except dlc.CompileError as e:
            print(f"ok   undefined symbol, {threads} thread(s): {str(e).splitlines()[-1]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
