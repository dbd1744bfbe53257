"""ONNX models exported from PyTorch (random weights, eval mode), imported by
dlc.onnx, compiled and run, against PyTorch. Tolerance: atol 1e-4, rtol 1e-4
(float32; dlc's exp/erf are polynomial, < 2e-7 relative error)."""

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
import dlc  # noqa: E402
import dlc.onnx  # noqa: E402

F = torch.nn.functional
TOL = dict(atol=1e-4, rtol=1e-4)


def export(model, *args, opset=13, **kw):
    f = io.BytesIO()
    torch.onnx.export(model.eval(), args, f, opset_version=opset, **kw)
    return onnx.load_from_string(f.getvalue())


def check(model, *args, opset=13, tol=TOL, **kw):
    torch.manual_seed(0)
    proto = export(model, *args, opset=opset, **kw)
    mod = dlc.compile(proto)
    with torch.no_grad():
        ref = model(*args)
    refs = ref if isinstance(ref, (tuple, list)) else [ref]
    outs = mod.run(*[a.numpy() for a in args])
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        np.testing.assert_allclose(o, r.numpy(), **tol)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


X = torch.randn(2, 3, 5, 7)
UNARY = {
    "relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "exp": torch.exp,
    "neg": torch.neg, "erf": torch.erf, "sqrt": lambda x: torch.sqrt(x.abs() + 1),
    "log": lambda x: torch.log(x.abs() + 1), "reciprocal": lambda x: 1 / (x.abs() + 1),
    "clip": lambda x: torch.clamp(x, -0.5, 0.7), "relu6": F.relu6,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish, "gelu": F.gelu, "softmax": lambda x: torch.softmax(x, -1),
    "log_softmax": lambda x: F.log_softmax(x, 1), "flatten": lambda x: torch.flatten(x, 1),
    "reshape": lambda x: x.reshape(6, -1), "transpose": lambda x: x.permute(0, 2, 3, 1),
    "squeeze_unsqueeze": lambda x: x.unsqueeze(1).squeeze(1) * 2,
    "reduce_mean": lambda x: x.mean((2, 3), keepdim=True), "reduce_sum": lambda x: x.sum(1),
    "reduce_max": lambda x: x.amax(-1), "reduce_min": lambda x: x.amin(-2, keepdim=True),
    "slice": lambda x: x[:, 1:, ::2, 2:-1], "split": lambda x: torch.split(x, [2, 5], -1)[1],
    "concat": lambda x: torch.cat([x, x * 2], 1), "pad": lambda x: F.pad(x, (1, 2, 0, 1), value=0.5),
    "gather": lambda x: x[:, 1], "expand": lambda x: x[:, :1].expand(2, 3, 5, 7) + x,
    "where": lambda x: torch.where(torch.arange(7) % 2 == 0, x, x * 3),  # constant mask
    "pow": lambda x: torch.pow(x.abs(), 1.5),
    "where_runtime_mask": lambda x: torch.where(x > 0, x, x * 0.1),
    "equal_cast": lambda x: (torch.relu(x) == 0).float() + (torch.relu(x) != x).float() * 2,
    "less_and_ge": lambda x: torch.where((x < 0.5) & (x >= -0.5), x, -x),
    "not_or_le": lambda x: torch.where(~(x > 1) | (x <= -1), x, x * 0),
    "xor": lambda x: torch.where((x > 0) ^ (x.abs() < 0.5), x, x + 1),
    "instance_norm": torch.nn.InstanceNorm2d(3, affine=True),
    "instance_norm_plain": torch.nn.InstanceNorm2d(3),
    "global_avg_pool": lambda x: F.adaptive_avg_pool2d(x, 1),
    "max_pool": lambda x: F.max_pool2d(x, 2, 1, 1), "avg_pool": lambda x: F.avg_pool2d(x, 3, 1, 1),
    "layer_norm": lambda x: F.layer_norm(x, (7,)), "sub_div": lambda x: (x - 1) / 3,
    "shape_reshape": lambda x: x.reshape(x.shape[0], -1),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_op(name):
    check(Fn(UNARY[name]), X)


def test_conv_bn_gemm():
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, groups=1),
                            torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Linear(8 * 3 * 4, 10))
    m.eval()
    with torch.no_grad():
        m[1].running_mean.uniform_(-1, 1)
        m[1].running_var.uniform_(0.5, 2)
    check(m, X, do_constant_folding=False, training=torch.onnx.TrainingMode.EVAL)


def test_depthwise_conv():
    check(torch.nn.Conv2d(3, 3, 3, padding=1, groups=3), X)


def test_matmul_batched():
    check(Fn(lambda a, b: a @ b), torch.randn(2, 4, 8), torch.randn(2, 8, 3))


def test_resnet18():
    tv = pytest.importorskip("torchvision")
    m = tv.models.resnet18()
    check(m, torch.randn(1, 3, 64, 64), do_constant_folding=False,
          training=torch.onnx.TrainingMode.EVAL, tol=dict(atol=2e-4, rtol=1e-3))


def test_mobilenet_v2():
    tv = pytest.importorskip("torchvision")
    check(tv.models.mobilenet_v2(), torch.randn(1, 3, 64, 64), tol=dict(atol=2e-4, rtol=1e-3))


class Encoder(torch.nn.Module):
    def __init__(self, h=64, heads=4, ffn=128):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.o = torch.nn.Linear(h, h)
        self.n1, self.n2 = torch.nn.LayerNorm(h), torch.nn.LayerNorm(h)
        self.f1, self.f2 = torch.nn.Linear(h, ffn), torch.nn.Linear(ffn, h)

    def attend(self, x, mask=None):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, -1)
        q, k, v = [t.reshape(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v)]
        a = q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5
        if mask is not None:
            a = a + mask
        return self.o((torch.softmax(a, -1) @ v).transpose(1, 2).reshape(b, s, h))

    def forward(self, x):
        x = self.n1(x + self.attend(x))
        return self.n2(x + self.f2(F.gelu(self.f1(x))))


class GPT2Block(Encoder):
    def forward(self, x):
        s = x.shape[1]
        mask = torch.triu(torch.full((s, s), -1e9), 1)
        x = x + self.attend(self.n1(x), mask)
        return x + self.f2(F.gelu(self.f1(self.n2(x)), approximate="tanh"))


def test_bert_encoder_layer():
    check(Encoder(), torch.randn(2, 16, 64), opset=17)


def test_gpt2_block_causal():
    check(GPT2Block(), torch.randn(1, 16, 64), opset=17)


def test_malformed_onnx(tmp_path):
    p = tmp_path / "bad.onnx"
    p.write_bytes(b"this is not a protobuf")
    with pytest.raises(dlc.CompileError, match="cannot read ONNX model"):
        dlc.compile(str(p))


def test_unsupported_op():
    from onnx import helper, TensorProto
    # a valid graph (onnx.checker runs first) of an op dlc does not import
    # (Bernoulli draws random numbers: dlc compiles deterministic graphs)
    node = helper.make_node("Bernoulli", ["x"], ["y"], name="hm")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 2])])
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"ONNX node 'hm' \(Bernoulli, opset \d+\): op type is not supported"):
        dlc.compile(helper.make_model(g))


def test_wrong_input_shape():
    mod = dlc.compile(export(torch.nn.Linear(4, 2), torch.randn(3, 4)))
    with pytest.raises(ValueError, match="input 0: expected"):
        mod(np.zeros((5, 4), np.float32))


def test_cli(tmp_path):
    import subprocess
    import sys
    p = tmp_path / "m.onnx"
    onnx.save(export(torch.nn.Linear(4, 2), torch.randn(3, 4)), str(p))
    out = tmp_path / "m.mlir"
    subprocess.check_call([sys.executable, "-m", "dlc.onnx", str(p), "-o", str(out)])
    assert "dlg.matmul" in out.read_text()


def _batch_model(fn):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.fc = torch.nn.Conv2d(3, 8, 3), torch.nn.Linear(8 * 6 * 6, 4)
            self.norm = torch.nn.LayerNorm(4)

        def forward(self, x):
            return self.norm(self.fc(fn(torch.relu(self.conv(x)))))
    return M().eval()


@pytest.mark.parametrize("flatten", ["flatten", "view_size0"])
def test_dynamic_batch(flatten):
    """A batch dim exported as dynamic: Flatten keeps it `?` (dlc specialises
    per shape), x.view(x.size(0), -1) needs its value (imported per shape)."""
    fn = (lambda y: torch.flatten(y, 1)) if flatten == "flatten" else \
        (lambda y: y.view(y.size(0), -1))
    model = _batch_model(fn)
    proto = export(model, torch.randn(2, 3, 8, 8), input_names=["x"], output_names=["y"],
                   dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    mod = dlc.compile(proto)
    assert isinstance(mod, dlc.compiler.PerShapeModule) == (flatten == "view_size0")
    assert mod.inputs[0][0] == (None, 3, 8, 8)
    for n in (1, 5, 2):
        x = torch.randn(n, 3, 8, 8)
        with torch.no_grad():
            np.testing.assert_allclose(mod(x.numpy()), model(x).numpy(), **TOL)
    with pytest.raises(ValueError, match=r"input 0: expected float32\[\?x3x8x8\], got float32\[2x3x9x8\]"):
        mod(np.zeros((2, 3, 9, 8), np.float32))
    assert "dlg.conv2d" in mod.ir("dlg")


class _OpsetMix(torch.nn.Module):
    """Ops whose ONNX form changed across opsets 11-17: Squeeze/Unsqueeze/
    Split/ReduceSum axes (attribute -> input in 13), Clip bounds (inputs
    from 11), Dropout (ratio input from 12), plus Identity."""

    def forward(self, x):
        a, b = torch.split(x, [3, 4], -1)
        y = torch.clamp(a.unsqueeze(1).squeeze(1), -0.5, 0.5).sum(-1, keepdim=True)
        return F.dropout(b, 0.3, training=False) * y + torch.nn.Identity()(b)


@pytest.mark.parametrize("opset", [11, 12, 13, 15, 17])
def test_opsets(opset):
    check(_OpsetMix(), X, opset=opset)


def test_identity_and_dropout_nodes():
    """Explicit Identity and Dropout nodes (PyTorch drops them on export)."""
    from onnx import helper, TensorProto
    nodes = [helper.make_node("Identity", ["x"], ["i"]),
             helper.make_node("Dropout", ["i"], ["d"]),
             helper.make_node("Relu", ["d"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    out = dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))(x)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
