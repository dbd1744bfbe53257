"""Weights bound at load time (--dlc-external-weights): a model whose
weights are 256 KB keeps them out of the LLVM
module (declarations only; the data is in the module's dlc.weights) and
computes the same as NumPy through the JIT (static and dynamic batch),
the AOT library and Graph-built modules. Prints the LLVM stage's globals
for FileCheck."""

import re
import sys

import numpy as np

import dlc

rng = np.random.default_rng(0)
w1 = rng.standard_normal((256, 256)).astype(np.float32)   # 256 KB
b1 = rng.standard_normal(256).astype(np.float32)         # 1 KB: stays inside
w2 = rng.standard_normal((256, 80)).astype(np.float32)    # 80 KB
x = rng.standard_normal((4, 256)).astype(np.float32)
want = np.maximum(x @ w1 + b1, 0) @ w2


def build(batch):
    g = dlc.Graph("mlp")
    a = g.input((batch, 256))
    h = g.relu(g.add(g.matmul(a, g.constant(w1)), g.constant(b1)))
    g.output(g.matmul(h, g.constant(w2)))
    return g


text = build(4).mlir()
m = dlc.Module(text)
llvm = m.ir("llvm")
for line in llvm.splitlines():
    if line.lstrip().startswith("llvm.mlir.global"):
        # the line without its data: FileCheck must not find dense< on a weight
        print("global:", re.sub(r'"0x[0-9A-F]{64,}"', '"0x..."', line.strip())[:200])
print("weights attribute:", "dlc.weights = {" in llvm)
# The 256 KB weight as text is 512 K hex digits; no global line carries them.
print("largest global line:", max(len(l) for l in llvm.splitlines()
                                  if "llvm.mlir.global" in l) < 4096)


def close(y):
    return bool(np.allclose(y, want, rtol=1e-4, atol=1e-3))


print("jit:", close(m(x)))
print("jit again:", close(m(x)))
dyn = dlc.Module(build(None).mlir())
print("jit dynamic:", close(dyn(x)), bool(np.allclose(dyn(x[:1]), want[:1], rtol=1e-4, atol=1e-3)))
aot = dlc.compile(text, output=sys.argv[1], name="mlp")
print("aot:", close(aot(x)))
# The graph's arrays may go away: the compiled module owns what it binds.
del m
m2 = dlc.Module(text)
import gc
gc.collect()
print("after gc:", close(m2(x)))
