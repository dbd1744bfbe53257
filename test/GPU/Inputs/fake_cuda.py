"""The harness of the tests that run dlc's CUDA runtime against the fake
driver library (Inputs/fake_libcuda.c, loaded through DLC_CUDA_DRIVER_PATH:
"device" memory is host memory, copies are memcpy, kernels do not run).
Shared by runtime-calls.test.py, external-weights.test.py and
control-flow-runtime.test.py."""

import ctypes
import gc
import sys

import numpy as np

import dlc


def compile_cuda(src):
    """The program compiled with target="cuda", or None after printing the
    CompileError's first line (the no-driver RUN lines check that line)."""
    try:
        m = dlc.compile(src, target="cuda")
    except dlc.CompileError as e:
        print("CompileError:", e.diagnostics.strip().splitlines()[0] if e.diagnostics else e)
        return None
    print("compiled for cuda")
    return m


def fake_driver(path):
    """The fake library the runtime opened (same process: same counters)."""
    return ctypes.CDLL(path)


def report(fake, label, nbytes):
    """`label` then the fake's counts for copies and live buffers of
    `nbytes` bytes, and launches so far."""
    print(label, end="", flush=True)
    fake.fakeCudaReport(ctypes.c_size_t(nbytes))


def check_weight_uploads(src, x, weight_bytes, fake_path):
    """Three calls of a program with one weight of `weight_bytes` bytes and
    an input/output like `x`: the weight is uploaded on the first call only
    and freed with the program; inputs and outputs cross every call. Returns
    False where the program did not compile (the message is printed)."""
    m = compile_cuda(src)
    if m is None:
        return False
    fake = fake_driver(fake_path)
    for call in range(3):
        m(x)
        if call in (0, 2):
            report(fake, f"after call {call + 1}: ", weight_bytes)
    report(fake, "input and output copies: ", x.nbytes)
    del m
    gc.collect()
    report(fake, "after destroy: ", weight_bytes)
    return True


def main_weight_test(values, width):
    """runtime-calls / external-weights: x[4, width] + w[width] with
    w = values, through check_weight_uploads; argv[1] is the fake's path.
    Returns the source, or None where it did not compile."""
    src = f"""
func.func @main(%x: tensor<4x{width}xf32>) -> tensor<4x{width}xf32> {{
  %w = dlg.constant dense<[{values}]> : tensor<{width}xf32>
  %0 = dlg.add %x, %w : tensor<4x{width}xf32>, tensor<{width}xf32> -> tensor<4x{width}xf32>
  return %0 : tensor<4x{width}xf32>
}}
"""
    path = sys.argv[1] if len(sys.argv) > 1 else ""
    ok = check_weight_uploads(src, np.ones((4, width), np.float32), width * 4, path)
    return src if ok else None
