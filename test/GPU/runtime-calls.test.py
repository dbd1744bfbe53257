import ctypes
import gc
import sys

import numpy as np

import dlc

VALUES = ", ".join(f"{i * 0.5}" for i in range(256))
SRC = f"""
func.func @main(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {{
  %w = dlg.constant dense<[{VALUES}]> : tensor<256xf32>
  %0 = dlg.add %x, %w : tensor<4x256xf32>, tensor<256xf32> -> tensor<4x256xf32>
  return %0 : tensor<4x256xf32>
}}
"""

try:
    m = dlc.compile(SRC, target="cuda")
except dlc.CompileError as e:
    print("CompileError:", e.diagnostics.strip().splitlines()[0] if e.diagnostics else e)
    sys.exit(0)
print("compiled for cuda")
fake = ctypes.CDLL(sys.argv[1])  # the library the runtime opened: same counters
x = np.ones((4, 256), np.float32)
for call in range(3):
    m(x)
    if call in (0, 2):
        print(f"after call {call + 1}: ", end="", flush=True)
        fake.fakeCudaReport(ctypes.c_size_t(256 * 4))
print("input and output copies: ", end="", flush=True)
fake.fakeCudaReport(ctypes.c_size_t(4 * 256 * 4))
del m
gc.collect()
print("after destroy: ", end="", flush=True)
fake.fakeCudaReport(ctypes.c_size_t(256 * 4))
