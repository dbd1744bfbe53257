"""Python: one JIT Module and one AOT library (Module.save / dlc.load) called
from two threads x 200 calls at once, bit-identical to a single-threaded
call; two models compiled in two threads at once; Module.memory; the AOT
library's errors."""

import sys
import threading

import numpy as np

import dlc

work, source = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
m = dlc.compile(source)
ins = [(rng.standard_normal(s) * 0.1).astype(d) for s, d in m.inputs]
ref = m(*ins)
print("memory", m.memory())


def hammer(fn, calls=200):
    bad = [0, 0]

    def worker(k):
        for _ in range(calls):
            bad[k] += not np.array_equal(fn(*ins), ref)
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(bad)


print("jit: 2 threads x 200 calls, mismatches", hammer(m))
plan = m.save(work, "mlp")
aot = dlc.load(work)
print("aot:", aot.name, aot.inputs[0], "workspace", aot.workspace_bytes == plan["workspace_bytes"])
print("aot vs jit identical:", np.array_equal(aot(*ins), ref))
print("aot: 2 threads x 200 calls, mismatches", hammer(aot))

# Two models compiled at once (each Module has its own MLIR context).
mods = [None, None]


def build(k):
    mods[k] = dlc.compile(source)
ts = [threading.Thread(target=build, args=(k,)) for k in range(2)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("compiled in two threads:", all(np.array_equal(x(*ins), ref) for x in mods))

try:
    aot(ins[0])
except ValueError as e:
    print("ValueError:", e)
try:
    dlc.compile("func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
                "  %0 = dlg.relu %x : tensor<?x4xf32>\n  return %0 : tensor<?x4xf32>\n}",
                output=work + "/dyn", name="dyn")
except dlc.CompileError as e:
    print("CompileError:", str(e).splitlines()[-1])
