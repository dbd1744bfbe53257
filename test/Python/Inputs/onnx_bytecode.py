"""The ONNX importer hands its module over as MLIR bytecode
(import_model(..., bytecode=True), what dlc.compile uses): the weights
travel as raw bytes instead of hex text. The bytecode must be the same
module as the text (dlc-opt prints both the same), compile to the same
numerics (JIT, AOT, Module.ir), and an invalid import still fails with the
text path's diagnostics. argv[1]: a scratch directory."""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import dlc
import dlc.onnx

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
w = rng.standard_normal((256, 128)).astype(np.float32)    # 128 KB: a dense_resource blob
b = rng.standard_normal(128).astype(np.float32)            # 512 B: dense<...>
x = rng.standard_normal((4, 256)).astype(np.float32)
want = np.maximum(x @ w + b, 0)

graph = helper.make_graph(
    [helper.make_node("Gemm", ["x", "w", "b"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
    "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 256])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 128])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

text = dlc.onnx.import_model(model)
code = dlc.onnx.import_model(model, bytecode=True)
print("bytecode:", isinstance(code, bytes) and code[:4] == b"ML\xefR")
# 128 KB of weights as hex text is 256 K digits; as bytecode about 128 KB.
print("smaller than text:", len(code) < len(text) * 0.6, len(text) > 2 * w.nbytes)
with open(os.path.join(out, "model.mlir"), "w") as f:
    f.write(text)
with open(os.path.join(out, "model.mlirbc"), "wb") as f:
    f.write(code)

print("dlg ir same:", dlc.Module(code).ir("dlg") == dlc.Module(text).ir("dlg"))
for name, src in (("text", text), ("bytecode", code)):
    m = dlc.Module(src)
    print(f"jit {name}:", np.allclose(m(x), want, rtol=1e-5, atol=1e-5))
print("jit same:", np.array_equal(dlc.Module(code)(x), dlc.Module(text)(x)))
print("compile:", np.allclose(dlc.compile(model)(x), want, rtol=1e-5, atol=1e-5))
lib = dlc.compile(model, output=os.path.join(out, "aot"), name="mlp")
print("aot:", np.allclose(lib(x), want, rtol=1e-5, atol=1e-5))

# A graph without outputs goes the text path's way (Graph.mlir's error).
g = dlc.Graph()
g.input((2,))
try:
    dlc.onnx._bytecode(g)
    print("no outputs: accepted")
except ValueError as e:
    print("no outputs:", e)
