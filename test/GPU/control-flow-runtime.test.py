"""dlg.if / dlg.while on the GPU path against the fake driver (kernels do
not run, copies do): the host reads each condition back from device memory
(a 1-byte copy) and launches the kernels of the region it takes. The
condition is a program input, so which branch and how many trips are known
without running a kernel: a while's later conditions are kernel results,
which the fake leaves zero (false), so a loop entered runs one trip."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from fake_cuda import compile_cuda, fake_driver, report  # noqa: E402

IF_SRC = """
func.func @main(%c: tensor<i1>, %x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r = dlg.if %c : tensor<i1> -> tensor<4x256xf32> {
    %e = dlg.exp %x : tensor<4x256xf32>
    dlg.yield %e : tensor<4x256xf32>
  } else {
    dlg.yield %x : tensor<4x256xf32>
  }
  return %r : tensor<4x256xf32>
}"""

WHILE_SRC = """
func.func @main(%c0: tensor<i1>, %x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r:2 = dlg.while (%c0, %x) : (tensor<i1>, tensor<4x256xf32>) -> (tensor<i1>, tensor<4x256xf32>) {
  ^bb0(%c: tensor<i1>, %a: tensor<4x256xf32>):
    dlg.condition(%c : tensor<i1>) %c, %a : tensor<i1>, tensor<4x256xf32>
  } do {
  ^bb0(%c: tensor<i1>, %a: tensor<4x256xf32>):
    %e = dlg.exp %a : tensor<4x256xf32>
    %s = dlg.reduce_sum %e {axes = array<i64>} : tensor<4x256xf32> -> tensor<f32>
    %z = dlg.constant dense<0.0> : tensor<f32>
    %n = dlg.less %s, %z : tensor<f32>, tensor<f32> -> tensor<i1>
    dlg.yield %n, %e : tensor<i1>, tensor<4x256xf32>
  }
  return %r#1 : tensor<4x256xf32>
}"""

x = np.ones((4, 256), np.float32)
for name, src in (("if", IF_SRC), ("while", WHILE_SRC)):
    m = compile_cuda(src)
    if m is None:
        sys.exit(0)
    fake = fake_driver(sys.argv[1])
    for cond in (True, False, True):
        got = m(np.array(cond), x)
        # the fake copies: an input passed through comes back unchanged
        if not cond:
            print(f"{name} false: output is the input: {bool((got == x).all())}")
        report(fake, f"{name} {str(cond).lower()}: 1-byte ", 1)
    del m
