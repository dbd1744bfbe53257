"""Main-job demo: export a small PyTorch CNN to ONNX, compile it with dlc,
run it, and compare outputs and times with PyTorch."""

import io
import time

import numpy as np
import onnx
import torch

import dlc

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2), torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10),
    torch.nn.Softmax(-1)).eval()
x = torch.randn(8, 3, 32, 32)
buf = io.BytesIO()
torch.onnx.export(model, (x,), buf, opset_version=13)
proto = onnx.load_from_string(buf.getvalue())

t0 = time.perf_counter()
mod = dlc.compile(proto)
t1 = time.perf_counter()
ours = mod(x.numpy())
with torch.no_grad():
    ref = model(x).numpy()


def best(fn, n=20):
    ts = []
    for _ in range(n):
        s = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - s)
    return min(ts) * 1e3


with torch.no_grad():
    t_torch = best(lambda: model(x))
t_dlc = best(lambda: mod(x.numpy()))
err = float(np.abs(ours - ref).max())
print(f"ONNX model: {len(proto.graph.node)} nodes; dlc compile {(t1 - t0) * 1e3:.0f} ms")
print(f"max |dlc - PyTorch| = {err:.2e} ({'match' if err < 1e-4 else 'MISMATCH'}, atol 1e-4)")
print(f"run (batch 8, best of 20): dlc {t_dlc:.3f} ms, PyTorch eager {t_torch:.3f} ms")
