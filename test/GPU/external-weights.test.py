import ctypes
import gc
import sys

import numpy as np

import dlc

VALUES = ", ".join(f"{i * 0.5}" for i in range(2048))
SRC = f"""
func.func @main(%x: tensor<4x2048xf32>) -> tensor<4x2048xf32> {{
  %w = dlg.constant dense<[{VALUES}]> : tensor<2048xf32>
  %0 = dlg.add %x, %w : tensor<4x2048xf32>, tensor<2048xf32> -> tensor<4x2048xf32>
  return %0 : tensor<4x2048xf32>
}}
"""

try:
    m = dlc.compile(SRC, target="cuda")
except dlc.CompileError as e:
    print("CompileError:", e.diagnostics.strip().splitlines()[0] if e.diagnostics else e)
    sys.exit(0)
print("compiled for cuda")
fake = ctypes.CDLL(sys.argv[1])  # the library the runtime opened: same counters
x = np.ones((4, 2048), np.float32)
for call in range(3):
    m(x)
    if call in (0, 2):
        print(f"after call {call + 1}: ", end="", flush=True)
        fake.fakeCudaReport(ctypes.c_size_t(2048 * 4))
print("input and output copies: ", end="", flush=True)
fake.fakeCudaReport(ctypes.c_size_t(4 * 2048 * 4))
del m
gc.collect()
print("after destroy: ", end="", flush=True)
fake.fakeCudaReport(ctypes.c_size_t(2048 * 4))
from dlc._capi import run_pipeline  # noqa: E402

host = run_pipeline(SRC, "builtin.module(lower-to-nvvm)")
print("host:", next(l.strip() for l in host.splitlines() if "@__constant_2048xf32" in l
                    and "llvm.mlir.global" in l)[:300])
print("weights attribute:", "dlc.weights = {" in host)
