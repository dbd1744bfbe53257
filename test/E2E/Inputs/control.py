"""Runtime control flow end to end: dlg.if and dlg.while compiled by
--lower-to-llvm (JIT) and by the AOT path (a shared library loaded back),
run on inputs that take each branch and several trip counts, and compared
with NumPy. The loop body holds a matmul (a packed, tiled GEMM kernel inside
scf.while) so scheduling, bufferization and the memory plan all meet the
regions. Tolerance: max |got - want| <= 1e-4 + 1e-4 |want| (f32)."""

import sys
import tempfile

import numpy as np

import dlc
from dlc.module import compile_mlir

rng = np.random.default_rng(11)

# y = relu(x) * 2 if sum(x) > 0 else -x (the branch reads x from above).
IF_SRC = """
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = dlg.reduce_sum %x {axes = array<i64>} : tensor<8x16xf32> -> tensor<f32>
  %z = dlg.constant dense<0.0> : tensor<f32>
  %c = dlg.greater %s, %z : tensor<f32>, tensor<f32> -> tensor<i1>
  %r = dlg.if %c : tensor<i1> -> tensor<8x16xf32> {
    %y = dlg.relu %x : tensor<8x16xf32>
    %two = dlg.constant dense<2.0> : tensor<f32>
    %y2 = dlg.mul %y, %two : tensor<8x16xf32>, tensor<f32> -> tensor<8x16xf32>
    dlg.yield %y2 : tensor<8x16xf32>
  } else {
    %n = dlg.neg %x : tensor<8x16xf32>
    dlg.yield %n : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}"""


def if_ref(x):
    return np.maximum(x, 0) * 2 if x.sum() > 0 else -x


# h = tanh(h @ w + b) for i < n and while max|h| > eps (an RNN-like
# recurrence with a data-dependent exit); returns h and the trip count.
WHILE_SRC = """
func.func @main(%h0: tensor<4x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>,
                %n: tensor<i64>, %eps: tensor<f32>) -> (tensor<4x64xf32>, tensor<i64>) {
  %i0 = dlg.constant dense<0> : tensor<i64>
  %r:2 = dlg.while (%h0, %i0) : (tensor<4x64xf32>, tensor<i64>) -> (tensor<4x64xf32>, tensor<i64>) {
  ^bb0(%h: tensor<4x64xf32>, %i: tensor<i64>):
    %lt = dlg.less %i, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    %a = dlg.abs %h : tensor<4x64xf32>
    %m = dlg.reduce_max %a {axes = array<i64>} : tensor<4x64xf32> -> tensor<f32>
    %big = dlg.greater %m, %eps : tensor<f32>, tensor<f32> -> tensor<i1>
    %f = dlg.constant dense<false> : tensor<i1>
    %go = dlg.where %lt, %big, %f : tensor<i1>, tensor<i1>, tensor<i1> -> tensor<i1>
    dlg.condition(%go : tensor<i1>) %h, %i : tensor<4x64xf32>, tensor<i64>
  } do {
  ^bb0(%h: tensor<4x64xf32>, %i: tensor<i64>):
    %p = dlg.matmul %h, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
    %q = dlg.add %p, %b : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
    %t = dlg.tanh %q : tensor<4x64xf32>
    %one = dlg.constant dense<1> : tensor<i64>
    %j = dlg.add %i, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    dlg.yield %t, %j : tensor<4x64xf32>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<4x64xf32>, tensor<i64>
}"""


def while_ref(h, w, b, n, eps):
    h, i = h.astype(np.float64), 0
    while i < n and np.abs(h).max() > eps:
        h = np.tanh(h @ w + b)
        i += 1
    return h, i


def check(name, got, want):
    err = max(float(np.abs(g.astype(np.float64) - np.asarray(v)).max()) for g, v in zip(got, want))
    ok = all(g.shape == np.shape(v) and (np.abs(g - v) <= 1e-4 + 1e-4 * np.abs(v)).all()
             for g, v in zip(got, want))
    print(f"{'ok  ' if ok else 'FAIL'} {name}: max err {err:.3g}")
    return ok


def main():
    failed = 0
    work = tempfile.mkdtemp()
    for how in ("jit", "aot"):
        out = lambda n: {} if how == "jit" else {"output": f"{work}/{n}", "name": n}
        m_if = compile_mlir(IF_SRC, **out("cf_if"))
        for k, x in enumerate((rng.standard_normal((8, 16)).astype(np.float32) + 1,
                               rng.standard_normal((8, 16)).astype(np.float32) - 1)):
            got = m_if(x)
            failed += not check(f"{how} if, {'then' if x.sum() > 0 else 'else'} branch",
                                [got], [if_ref(x)])
        m_w = compile_mlir(WHILE_SRC, **out("cf_while"))
        w = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32)
        b = (rng.standard_normal(64) * 0.01).astype(np.float32)
        h = rng.standard_normal((4, 64)).astype(np.float32)
        for n, eps in ((0, 0.0), (1, 0.0), (7, 0.0), (200, 0.3), (200, 0.05), (50, 10.0)):
            got_h, got_i = m_w(h, w, b, np.array(n, np.int64), np.array(eps, np.float32))
            want_h, want_i = while_ref(h, w, b, n, eps)
            ok = int(got_i) == want_i
            failed += not ok
            failed += not check(f"{how} while n={n} eps={eps}: {int(got_i)} trips "
                                f"(want {want_i})", [got_h], [want_h])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
