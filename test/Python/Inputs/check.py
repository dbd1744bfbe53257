import re

import dlc

GOOD = """
func.func @f(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %1 = dlg.neg %0 : tensor<4x8xf32>
  %2 = dlg.neg %1 : tensor<4x8xf32>
  %3 = dlg.rms_norm %2 gamma %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
"""
BAD = """func.func @f(%a: tensor<4x64xf32>, %b: tensor<32x8xf32>) -> tensor<4x8xf32> {
  // wrong inner dimension
  %0 = dlg.matmul %a, %b : tensor<4x64xf32>, tensor<32x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""

print("parsed:", [l.strip() for l in dlc.parse(GOOD).splitlines() if "rms_norm" in l][0])
out = dlc.run_pipeline(GOOD, "builtin.module(func.func(dlg-simplify))")
print("simplified ops:", re.findall(r"dlg\.[a-z_]+", out))
try:
    dlc.parse(BAD, name="<model>")
except dlc.CompileError as e:
    line = e.diagnostics.splitlines()[0]
    loc, _, msg = line.partition(": error: ")
    print(f"error at {loc}: {msg}")
try:
    dlc.run_pipeline(GOOD, "builtin.module(nope)")
except dlc.CompileError as e:
    print("pipeline error:", e.diagnostics.splitlines()[0].split(": error: ")[1])
