"""dlc's CUDA target against NumPy (numerics) and PyTorch CUDA (timings:
cuBLAS for the GEMM, PyTorch's kernels for the rest) on one GPU.

Where no GPU is usable (torch.cuda.is_available() is False, or dlc finds no
CUDA driver) it prints one line saying so and exits 0: nothing is measured.

Timings are interleaved best-of-N (`--reps`), each side on the same GPU in
the same run; dlc's figure is one whole call through the Python API (inputs
copied to the device, the kernels, results copied back: the API takes and
returns NumPy arrays), PyTorch's is its kernels on device tensors timed with
CUDA events, so the ratio is a lower bound for dlc's kernels.

Run: DLC_LIB=build/lib/libdlc.so PYTHONPATH=python /usr/bin/python3 bench/gpu.py [--reps N] [-k NAME]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))


def cases():
    """name -> (dlg source, input shapes, NumPy reference, torch reference, tolerance)."""
    def softmax_ref(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def layer_norm_ref(x, g):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-5) * g

    return {
        "add+relu 4096x4096": (
            """func.func @main(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = dlg.add %a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %1 = dlg.relu %0 : tensor<4096x4096xf32>
  return %1 : tensor<4096x4096xf32>
}""", [(4096, 4096), (4096, 4096)], lambda a, b: np.maximum(a + b, 0),
            lambda t, a, b: t.relu(a + b), 1e-6),
        "softmax 4096x768": (
            """func.func @main(%x: tensor<4096x768xf32>) -> tensor<4096x768xf32> {
  %0 = dlg.softmax %x : tensor<4096x768xf32>
  return %0 : tensor<4096x768xf32>
}""", [(4096, 768)], softmax_ref, lambda t, x: t.softmax(x, -1), 1e-5),
        "layer_norm 4096x768": (
            """func.func @main(%x: tensor<4096x768xf32>, %g: tensor<768xf32>) -> tensor<4096x768xf32> {
  %0 = dlg.layer_norm %x gamma %g : (tensor<4096x768xf32>, tensor<768xf32>) -> tensor<4096x768xf32>
  return %0 : tensor<4096x768xf32>
}""", [(4096, 768), (768,)], layer_norm_ref,
            lambda t, x, g: t.nn.functional.layer_norm(x, (768,), g), 1e-4),
        "matmul 1024x1024x1024 f32": (
            """func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = dlg.matmul %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}""", [(1024, 1024), (1024, 1024)], lambda a, b: a @ b, lambda t, a, b: a @ b, 1e-3),
    }


def unavailable():
    """Why no GPU can be used here, or None."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False"
    import dlc
    try:
        dlc.compile(cases()["softmax 4096x768"][0], target="cuda")
    except Exception as e:  # the CompileError says "no CUDA driver: ..."
        return f"dlc target cuda: {e}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("-k", default="")
    opts = ap.parse_args()
    why = unavailable()
    if why:
        print(f"bench/gpu.py: no GPU to measure on ({why}); nothing measured")
        return 0
    import torch
    import dlc
    rng = np.random.default_rng(0)
    failed = 0
    for name, (src, shapes, ref, tref, tol) in cases().items():
        if opts.k not in name:
            continue
        m = dlc.compile(src, target="cuda")
        args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        got = m(*args)
        got = got[0] if isinstance(got, (list, tuple)) else got
        err = float(np.max(np.abs(got - ref(*args)) / (1 + np.abs(ref(*args)))))
        ok = err <= tol
        failed += not ok
        targs = [torch.from_numpy(a).cuda() for a in args]
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ours = theirs = float("inf")
        for _ in range(opts.reps):  # interleaved best-of
            t0 = time.perf_counter()
            m(*args)
            ours = min(ours, (time.perf_counter() - t0) * 1e3)
            start.record()
            tref(torch, *targs)
            stop.record()
            torch.cuda.synchronize()
            theirs = min(theirs, start.elapsed_time(stop))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max rel err {err:.2e}; dlc {ours:.3f} ms "
              f"(whole call, copies included), PyTorch {theirs:.3f} ms, "
              f"ratio {theirs / ours:.2f} (best of {opts.reps}, interleaved)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
