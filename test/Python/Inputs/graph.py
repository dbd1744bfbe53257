import numpy as np

import dlc

rng = np.random.default_rng(0)
g = dlc.Graph("mlp")
x = g.input((4, 8), name="x")
w, b = rng.random((8, 3), np.float32), rng.random(3, np.float32)
y = g.reshape(g.softmax(g.relu(g.add(g.matmul(x, g.constant(w)), g.constant(b))), axis=-1), (12,))
g.output(y)
print(g.mlir())
xv = rng.random((4, 8), np.float32)
ref = np.maximum(xv @ w + b, 0)
ref = np.exp(ref - ref.max(-1, keepdims=True))
ref /= ref.sum(-1, keepdims=True)
err = np.abs(g.compile()(xv) - ref.reshape(12)).max()
print(f"max error {err:.3g}", "ok" if err < 1e-6 else "BAD")
g2 = dlc.Graph()
a, c = g2.input((2, 3)), g2.input((4, 3))
try:
    g2.matmul(a, c, name="x2")
except dlc.CompileError as e:
    print(str(e).splitlines()[-1].replace("loc(\"x2\")", "x2"))
