"""dlc.onnx on hand-built ONNX graphs: one regression test per importer bug
of issue 13 (each was a silent wrong answer, a traceback or a false
rejection), and the errors that replace silent wrong answers. Reference:
NumPy (or PyTorch), float32 within 1e-5 unless said."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402
from dlc.graph import float_literal  # noqa: E402

F = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def model(nodes, inputs, outputs, opset=13, inits=()):
    """inputs/outputs: (name, elem type, shape)."""
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
                          [helper.make_tensor_value_info(*o) for o in outputs],
                          initializer=[numpy_helper.from_array(v, n) for n, v in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def run(m, *args):
    out = dlc.compile(m).run(*args)
    return out


def test_shape_start_end():
    """Shape's start/end (opset 15) were ignored: the whole shape came back."""
    x = rand(2, 3, 4, 5)
    for start, end, want in ((1, None, [3, 4, 5]), (0, -1, [2, 3, 4]), (-2, None, [4, 5]),
                             (1, 3, [3, 4]), (-10, 10, [2, 3, 4, 5])):
        kw = {"start": start} if end is None else {"start": start, "end": end}
        # the shape, and a Reshape by it (the shape as a compile-time constant)
        m = model([helper.make_node("Shape", ["x"], ["s"], **kw),
                   helper.make_node("Concat", ["minus1", "s"], ["s2"], axis=0),
                   helper.make_node("Reshape", ["x", "s2"], ["y"])],
                  [("x", F, x.shape)], [("s", TensorProto.INT64, None), ("y", F, None)],
                  opset=15, inits=[("minus1", np.array([-1], np.int64))])
        s, y = run(m, x)
        np.testing.assert_array_equal(s, want)
        assert list(y.shape) == [x.size // int(np.prod(want))] + want


def test_split_sizes_input():
    """Split's `split` given as an input was ignored (an even split was done)."""
    x = rand(2, 7)
    nodes = [helper.make_node("Split", ["x", "split"], ["a", "b"], axis=1)]
    outs = [("a", F, None), ("b", F, None)]
    # as a constant
    a, b = run(model(nodes, [("x", F, x.shape)], outs,
                     inits=[("split", np.array([2, 5], np.int64))]), x)
    np.testing.assert_array_equal(a, x[:, :2])
    np.testing.assert_array_equal(b, x[:, 2:])
    # as a graph input: dlc specialises on its value, per value
    mod = dlc.compile(model(nodes, [("x", F, x.shape), ("split", TensorProto.INT64, [2])], outs))
    for k in (2, 6):
        a, b = mod.run(x, np.array([k, 7 - k], np.int64))
        np.testing.assert_array_equal(a, x[:, :k])
        np.testing.assert_array_equal(b, x[:, k:])
    # sizes that do not add up are an error, not a silent split
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"\(Split, opset 13\): split sizes"):
        mod.run(x, np.array([2, 2], np.int64))


def test_pad_opset6_value():
    """Opset < 11 Pad takes pads and value as attributes; the value was ignored."""
    x = rand(2, 3)
    m = model([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 1, 2], value=1.5)],
              [("x", F, x.shape)], [("y", F, None)], opset=6)
    y, = run(m, x)
    np.testing.assert_array_equal(y, np.pad(x, ((0, 1), (1, 2)), constant_values=1.5))


@pytest.mark.parametrize("mode", ["reflect", "edge"])
def test_pad_reflect_edge(mode):
    x = rand(3, 4)
    m = model([helper.make_node("Pad", ["x"], ["y"], pads=[2, 1, 1, 3], mode=mode)],
              [("x", F, x.shape)], [("y", F, None)], opset=6)
    y, = run(m, x)
    np.testing.assert_array_equal(y, np.pad(x, ((2, 1), (1, 3)), mode=mode))


def test_pad_wrap_is_an_error():
    m = model([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 1, 2], mode="wrap")],
              [("x", F, [2, 3])], [("y", F, None)], opset=6)
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"\(Pad, opset 7, converted from 6\): mode 'wrap'"):
        dlc.compile(m)


@pytest.mark.parametrize("op", ["Max", "Min", "Sum", "Mean"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_variadic(op, n):
    """Max/Min/Sum/Mean used only two of 3+ inputs; one input raised IndexError."""
    xs = [rand(3, 4), rand(4), rand(1, 4), rand(3, 1)][:n]
    names = [f"x{i}" for i in range(n)]
    m = model([helper.make_node(op, names, ["y"])],
              [(nm, F, x.shape) for nm, x in zip(names, xs)], [("y", F, None)])
    y, = run(m, *xs)
    ref = {"Max": np.maximum, "Min": np.minimum, "Sum": np.add, "Mean": np.add}[op]
    want = xs[0]
    for x in xs[1:]:
        want = ref(want, x)
    if op == "Mean":
        want = want / n
    np.testing.assert_allclose(y, np.broadcast_to(want, y.shape), rtol=1e-6, atol=1e-6)


def test_dropout_mask_and_training():
    """Dropout's mask output raised KeyError; training mode was the identity
    (silently wrong): it is now an error, except ratio 0 (exactly the identity)."""
    x = rand(3, 4)
    ins = [("x", F, x.shape)]
    outs = [("y", F, None), ("mask", TensorProto.BOOL, None)]
    y, mask = run(model([helper.make_node("Dropout", ["x"], ["y", "mask"])], ins, outs), x)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.bool_ and mask.all() and mask.shape == x.shape

    def training(ratio):
        return model([helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"])], ins, outs,
                     inits=[("r", np.array(ratio, np.float32)), ("t", np.array(True))])
    y, mask = run(training(0.0), x)
    np.testing.assert_array_equal(y, x)
    assert mask.all()
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"\(Dropout, opset 13\): training-mode Dropout \(ratio 0.5"):
        dlc.compile(training(0.5))


def test_layer_norm_mean_invstddev():
    """LayerNormalization's Mean/InvStdDev outputs raised KeyError; the default
    epsilon (1e-05) was printed as an invalid MLIR float."""
    x, s, b = rand(2, 3, 5), rand(3, 5), rand(3, 5)
    m = model([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "inv"],
                                axis=1)],
              [("x", F, x.shape), ("s", F, s.shape), ("b", F, b.shape)],
              [("y", F, None), ("mean", F, None), ("inv", F, None)], opset=17)
    y, mean, inv = run(m, x, s, b)
    mu = x.mean((1, 2), keepdims=True)
    iv = 1 / np.sqrt(((x - mu) ** 2).mean((1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inv, iv, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, (x - mu) * iv * s + b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("v", [1e-05, 1e-5 * 3, 1e20, -2.5e-30, 0.1, 3.0, 1 / 3, float("inf"),
                               -float("inf"), 5e-324, np.float32(1e-5)])
def test_float_attributes_round_trip(v):
    """Every float the importer or dlc.Graph writes is an MLIR float literal
    that reads back as the same double."""
    text = dlc.parse(f'func.func @f() attributes {{a = {float_literal(v)} : f64}} {{ return }}')
    got = float(text.split("a = ")[1].split(" : f64")[0].replace("0x7FF0000000000000", "inf")
                .replace("0xFFF0000000000000", "-inf"))
    assert got == float(v)


def test_norms_default_epsilon():
    """BatchNormalization/InstanceNormalization with the default epsilon were rejected."""
    x = rand(2, 3, 4, 4)
    sc, bi, mu, var = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    inits = [("s", sc), ("b", bi), ("m", mu), ("v", var)]
    bn = model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
               [("x", F, x.shape)], [("y", F, None)], inits=inits)
    y, = run(bn, x)
    c = (-1, 1, 1)
    np.testing.assert_allclose(y, (x - mu.reshape(c)) / np.sqrt(var.reshape(c) + 1e-5)
                               * sc.reshape(c) + bi.reshape(c), rtol=1e-5, atol=1e-5)
    inn = model([helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])],
                [("x", F, x.shape)], [("y", F, None)], inits=inits[:2])
    y, = run(inn, x)
    m_, v_ = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    np.testing.assert_allclose(y, (x - m_) / np.sqrt(v_ + 1e-5) * sc.reshape(c) + bi.reshape(c),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMean", "ReduceMin", "ReduceSum"])
def test_reduce_default_axes_keepdims(op):
    """Reductions over all axes with keepdims failed to lower (collapse_shape rank error)."""
    x = rand(3, 2, 2)
    m = model([helper.make_node(op, ["x"], ["y"], keepdims=1)], [("x", F, x.shape)],
              [("y", F, None)], opset=11)
    y, = run(m, x)
    ref = {"ReduceMax": np.max, "ReduceMean": np.mean, "ReduceMin": np.min, "ReduceSum": np.sum}
    np.testing.assert_allclose(y, ref[op](x, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("kernel,stride,pad,size", [(3, 2, 0, 13), (3, 2, 0, 14), (2, 2, 0, 5),
                                                    (3, 2, 1, 6), (2, 3, 1, 7)])
def test_pool_ceil_mode(kernel, stride, pad, size):
    """MaxPool ceil_mode=1 was unsupported (SqueezeNet 1.1 uses it); AvgPool's
    too, where padding is not counted. Reference: PyTorch."""
    torch = pytest.importorskip("torch")
    x = rand(1, 2, size, size + 1)
    for op, fn, kw in (("MaxPool", torch.nn.functional.max_pool2d, {}),
                       ("AveragePool", torch.nn.functional.avg_pool2d,
                        {"count_include_pad": False})):
        m = model([helper.make_node(op, ["x"], ["y"], kernel_shape=[kernel, kernel],
                                    strides=[stride, stride], pads=[pad] * 4, ceil_mode=1)],
                  [("x", F, x.shape)], [("y", F, None)], opset=11)
        y, = run(m, x)
        want = fn(torch.from_numpy(x), kernel, stride, pad, ceil_mode=True, **kw).numpy()
        np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_avg_pool_ceil_mode_counting_padding_is_an_error():
    m = model([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                                strides=[2, 2], ceil_mode=1, count_include_pad=1)],
              [("x", F, [1, 1, 6, 6])], [("y", F, None)], opset=11)
    with pytest.raises(dlc.onnx.UnsupportedError, match="count_include_pad=1"):
        dlc.compile(m)


def test_unsupported_element_type_names_node_and_type():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
              [("x", TensorProto.UINT16, [2])], [("y", TensorProto.UINT16, None)])
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"ONNX node 'r' \(Relu, opset 13\): input 'x' has element type UINT16"):
        dlc.compile(m)


def test_slice_runtime_starts_specialised():
    x = rand(4, 6)
    m = model([helper.make_node("Slice", ["x", "s", "e"], ["y"])],
              [("x", F, x.shape), ("s", TensorProto.INT64, [2]), ("e", TensorProto.INT64, [2])],
              [("y", F, None)])
    mod = dlc.compile(m)
    for s, e in (([0, 1], [2, 5]), ([1, -3], [100, -1])):
        y, = mod.run(x, np.array(s, np.int64), np.array(e, np.int64))
        np.testing.assert_array_equal(y, x[s[0]:e[0], s[1]:e[1]])


def test_clip_runtime_bounds():
    x = rand(3, 4) * 3
    m = model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
              [("x", F, x.shape), ("lo", F, []), ("hi", F, [])], [("y", F, None)])
    y, = run(m, x, np.array(-1, np.float32), np.array(0.5, np.float32))
    np.testing.assert_array_equal(y, np.clip(x, -1, 0.5))


def test_clip_infinite_bound_keeps_infinities():
    x = np.array([-np.inf, -1, 2, np.inf], np.float32)
    m = model([helper.make_node("Clip", ["x", "", "hi"], ["y"])], [("x", F, x.shape)],
              [("y", F, None)], inits=[("hi", np.array(1, np.float32))])
    y, = run(m, x)
    np.testing.assert_array_equal(y, [-np.inf, -1, 1, 1])


def test_scalar_constant_output_keeps_rank_0():
    """A 0-d constant (Size) used to come back as shape (1,)."""
    x = rand(2, 3)
    y, = run(model([helper.make_node("Size", ["x"], ["y"])], [("x", F, x.shape)],
                   [("y", TensorProto.INT64, None)]), x)
    assert y.shape == () and y == 6


def test_float64_numerics():
    """float64 (ONNX DOUBLE) is computed in float64: exp, tanh, sigmoid,
    softmax, log, sqrt and sums to 1e-14 relative. erf (and gelu) use the
    float32 polynomial on doubles: about 3e-6 relative, stated here."""
    import math
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 8)), rng.standard_normal((8, 3))
    g = dlc.Graph("m")
    xi = g.input((4, 8), np.float64)
    h = g.matmul(xi, g.constant(w))
    g.output(g.exp(h), g.tanh(h), g.sigmoid(h), g.softmax(h, axis=-1),
             g.reduce_sum(g.sqrt(g.abs(xi)), axes=[1]), g.log(g.abs(h)), g.erf(h))
    outs = g.compile().run(x)
    hh = x @ w
    ref = [np.exp(hh), np.tanh(hh), 1 / (1 + np.exp(-hh)),
           np.exp(hh) / np.exp(hh).sum(-1, keepdims=True), np.sqrt(np.abs(x)).sum(1),
           np.log(np.abs(hh)), np.vectorize(math.erf)(hh)]
    for i, (o, r) in enumerate(zip(outs, ref)):
        assert o.dtype == np.float64
        np.testing.assert_allclose(o, r, rtol=5e-6 if i == 6 else 1e-14, atol=0)


def test_float64_onnx_constant_keeps_its_type():
    """A DOUBLE initializer is a float64 constant (it used to become float32)."""
    x = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    m = model([helper.make_node("Add", ["x", "c"], ["y"])], [("x", TensorProto.DOUBLE, x.shape)],
              [("y", TensorProto.DOUBLE, None)], inits=[("c", np.array(1 / 3, np.float64))])
    y, = run(m, x)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, x + 1 / 3)


@pytest.mark.parametrize("kw", [dict(scale_factor=2, mode="nearest"),
                                dict(size=(5, 9), mode="nearest"),
                                dict(scale_factor=2, mode="bilinear", align_corners=False),
                                dict(size=(3, 4), mode="bilinear", align_corners=True),
                                dict(scale_factor=2, mode="bicubic", align_corners=False)])
def test_resize_from_pytorch(kw):
    """F.interpolate exported by PyTorch (Resize, opset 13) against PyTorch."""
    torch = pytest.importorskip("torch")
    import io
    x = torch.randn(1, 2, 4, 6)

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.interpolate(x, **kw)
    f = io.BytesIO()
    torch.onnx.export(M(), (x,), f, opset_version=13)
    y = dlc.compile(onnx.load_from_string(f.getvalue()))(x.numpy())
    np.testing.assert_allclose(y, M()(x).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, output_padding=1),
                                dict(stride=3, padding=0, dilation=2, groups=2),
                                dict(stride=1, padding=2, groups=4),
                                dict(stride=2, padding=0, one_d=True)])
def test_conv_transpose_from_pytorch(kw):
    """nn.ConvTranspose2d/1d (strides, pads, output_padding, dilations, groups)."""
    torch = pytest.importorskip("torch")
    import io
    kw = dict(kw)
    one_d = kw.pop("one_d", False)
    torch.manual_seed(0)
    m = (torch.nn.ConvTranspose1d if one_d else torch.nn.ConvTranspose2d)(4, 8, 3, **kw).eval()
    x = torch.randn(2, 4, 5) if one_d else torch.randn(2, 4, 5, 6)
    f = io.BytesIO()
    torch.onnx.export(m, (x,), f, opset_version=13)
    y = dlc.compile(onnx.load_from_string(f.getvalue()))(x.numpy())
    with torch.no_grad():
        np.testing.assert_allclose(y, m(x).numpy(), rtol=1e-4, atol=1e-5)


def test_old_opset_is_converted():
    """Opset 5 (below dlc's native 7-17) goes through onnx.version_converter."""
    x = rand(2, 3)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["y"])]
    m = model(nodes, [("x", F, x.shape)], [("y", F, None)], opset=5,
              inits=[("shape", np.array([3, 2], np.int64))])
    y, = run(m, x)
    np.testing.assert_array_equal(y, np.maximum(x, 0).reshape(3, 2))


def test_unknown_opset_is_a_clear_error():
    m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])], [("y", F, None)],
              opset=19)
    with pytest.raises(dlc.onnx.UnsupportedOpsetError,
                       match=r"ONNX opset 19 is outside dlc's native range 7-17 and "
                             r"onnx.version_converter cannot convert it to 17"):
        dlc.compile(m)


@pytest.mark.parametrize("cell,bidirectional", [("LSTM", False), ("LSTM", True), ("GRU", True),
                                                ("RNN", False)])
def test_recurrent_language_model_from_pytorch(cell, bidirectional):
    """An embedding + 2-layer LSTM/GRU/RNN + linear language model (random
    weights) exported by PyTorch, unrolled over its 7 steps, against PyTorch."""
    torch = pytest.importorskip("torch")
    import io
    torch.manual_seed(0)

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(50, 16)
            self.rnn = getattr(torch.nn, cell)(16, 24, num_layers=2, bidirectional=bidirectional)
            self.out = torch.nn.Linear(48 if bidirectional else 24, 50)

        def forward(self, tokens):
            y, _ = self.rnn(self.emb(tokens))
            return torch.log_softmax(self.out(y), -1)
    m = LM().eval()
    tokens = torch.randint(0, 50, (7, 3))
    f = io.BytesIO()
    torch.onnx.export(m, (tokens,), f, opset_version=13)
    y = dlc.compile(onnx.load_from_string(f.getvalue()))(tokens.numpy())
    with torch.no_grad():
        np.testing.assert_allclose(y, m(tokens).numpy(), rtol=1e-4, atol=1e-4)


def test_integer_pow():
    """dlg.pow on integers (math.ipowi) failed to lower; it now goes through
    convert-math-to-funcs (exponentiation by squaring, vectors scalarised)."""
    a = (np.arange(37, dtype=np.int64) % 7 - 3).reshape(1, 37)
    b = (np.arange(37, dtype=np.int64) % 5).reshape(1, 37)
    m = model([helper.make_node("Pow", ["a", "b"], ["y"])],
              [("a", TensorProto.INT64, a.shape), ("b", TensorProto.INT64, b.shape)],
              [("y", TensorProto.INT64, None)], opset=15)
    y, = run(m, a, b)
    np.testing.assert_array_equal(y, a ** b)
    m = model([helper.make_node("Pow", ["a", "b"], ["y"])],
              [("a", TensorProto.INT32, a.shape), ("b", F, b.shape)],
              [("y", TensorProto.INT32, None)], opset=15)
    a = np.abs(a)  # (a negative base to a fractional power is NaN: no integer)
    y, = run(m, a.astype(np.int32), b.astype(np.float32) / 2)
    np.testing.assert_array_equal(y, np.power(a, b / 2).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_pow_special_cases(dtype):
    """dlg.pow on floats was expanded to exp(y * log(x)): 0^0, a negative
    base to an integer power and 0^2 came out NaN or 1e-38. It is libm's pow now."""
    a = np.array([0, -2, -2, 2, 0, 3, -0.5, 1e-3], dtype)
    b = np.array([0, 3, 2, 0.5, 2, -1, -3, 0.25], dtype)
    m = model([helper.make_node("Pow", ["a", "b"], ["y"])],
              [("a", F if dtype == np.float32 else TensorProto.DOUBLE, a.shape),
               ("b", F if dtype == np.float32 else TensorProto.DOUBLE, b.shape)],
              [("y", F if dtype == np.float32 else TensorProto.DOUBLE, None)], opset=15)
    y, = run(m, a, b)
    np.testing.assert_allclose(y, np.power(a, b), rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_topk_ties_to_lower_index():
    x = np.array([[3, 1, 3, 2, -1], [0, 0, 5, 0, 5]], np.float32)
    m = model([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
              [("x", F, x.shape)], [("v", F, None), ("i", TensorProto.INT64, None)],
              opset=11, inits=[("k", np.array([3], np.int64))])
    v, i = run(m, x)
    np.testing.assert_array_equal(i, [[0, 2, 3], [2, 4, 0]])
    np.testing.assert_array_equal(v, [[3, 3, 2], [5, 5, 0]])


# --- control flow (If, Loop, Scan: resolved at import, unrolled inline) ------

B, I64 = TensorProto.BOOL, TensorProto.INT64


def graph(nodes, inputs, outputs, name="body"):
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                             [helper.make_tensor_value_info(*o) for o in outputs])


def test_if_outer_scope_and_runtime_condition():
    """The branch reads outer-scope tensors; a condition given as an input is
    specialised on (both values); one computed from tensor data is a clear
    error naming the node, never a guess."""
    x = rand(3, 4)
    then_g = graph([helper.make_node("Mul", ["x", "two"], ["t"])], [], [("t", F, None)], "then")
    else_g = graph([helper.make_node("Neg", ["x"], ["e"])], [], [("e", F, None)], "else")
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              [("c", B, []), ("x", F, x.shape)], [("y", F, None)],
              inits=[("two", np.array(2, np.float32))])
    mod = dlc.compile(m)
    np.testing.assert_allclose(mod.run(np.array(True), x)[0], 2 * x)
    np.testing.assert_allclose(mod.run(np.array(False), x)[0], -x)
    big = rand(8, 8)
    m = model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
               helper.make_node("Greater", ["s", "zero"], ["c"]),
               helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then_g,
                                else_branch=else_g)],
              [("x", F, big.shape)], [("y", F, None)],
              inits=[("two", np.array(2, np.float32)), ("zero", np.array(0, np.float32))])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"'pick' \(If, opset 13\).*run time"):
        dlc.compile(m).run(big)


def test_loop_early_exit_and_scan_outputs():
    """Loop: the cond output stops it before the trip count; loop-carried
    values and scan outputs (stacked per iteration) as ONNX defines them."""
    # y = y * 2 + i while i < 3 (cond_out = i + 1 < 3), trip count 10
    body = graph([helper.make_node("Cast", ["i"], ["fi"], to=F),
                  helper.make_node("Mul", ["y_in", "two"], ["y2"]),
                  helper.make_node("Add", ["y2", "fi"], ["y_out"]),
                  helper.make_node("Add", ["i", "one"], ["i1"]),
                  helper.make_node("Less", ["i1", "three"], ["c_out"]),
                  helper.make_node("Identity", ["y_out"], ["s"])],
                 [("i", I64, []), ("c_in", B, []), ("y_in", F, [2])],
                 [("c_out", B, []), ("y_out", F, [2]), ("s", F, [2])])
    m = model([helper.make_node("Loop", ["M", "", "y"], ["y_f", "ys"], body=body)],
              [("y", F, [2])], [("y_f", F, None), ("ys", F, None)], opset=13,
              inits=[("M", np.array(10, np.int64)), ("two", np.array(2, np.float32)),
                     ("one", np.array(1, np.int64)), ("three", np.array(3, np.int64))])
    y0 = np.array([1.0, -0.5], np.float32)
    want, ys = y0.copy(), []
    for i in range(3):
        want = want * 2 + i
        ys.append(want)
    y_f, s = run(m, y0)
    np.testing.assert_allclose(y_f, want)
    np.testing.assert_allclose(s, np.stack(ys))
    # an exit that depends on tensor data cannot be unrolled: a clear error
    body.node[4].CopyFrom(helper.make_node("Less", ["y_sum", "hundred"], ["c_out"]))
    body.node.insert(4, helper.make_node("ReduceSum", ["y_out"], ["y_sum"], keepdims=0))
    m = model([helper.make_node("Loop", ["M", "", "y"], ["y_f", "ys"], name="grow", body=body)],
              [("y", F, [64])], [("y_f", F, None), ("ys", F, None)], opset=13,
              inits=[("M", np.array(10, np.int64)), ("two", np.array(2, np.float32)),
                     ("one", np.array(1, np.int64)), ("hundred", np.array(100, np.float32))])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"'grow' \(Loop.*cond output"):
        dlc.compile(m).run(rand(64))


def test_scan_axes_and_directions():
    """Scan (opset 9+): scan input axis 1 read backwards, scan output stacked
    on axis 1 and reversed, a state carried through."""
    x = rand(2, 5)
    body = graph([helper.make_node("Add", ["acc", "xt"], ["acc_out"]),
                  helper.make_node("Mul", ["acc_out", "xt"], ["o"])],
                 [("acc", F, [2]), ("xt", F, [2])], [("acc_out", F, [2]), ("o", F, [2])])
    m = model([helper.make_node("Scan", ["init", "x"], ["acc", "os"], body=body,
                                num_scan_inputs=1, scan_input_axes=[1],
                                scan_input_directions=[1], scan_output_axes=[-1],
                                scan_output_directions=[1])],
              [("init", F, [2]), ("x", F, x.shape)], [("acc", F, None), ("os", F, None)])
    acc, outs = np.zeros(2, np.float32), []
    for t in range(4, -1, -1):
        acc = acc + x[:, t]
        outs.append(acc * x[:, t])
    got_acc, got_os = run(m, np.zeros(2, np.float32), x)
    np.testing.assert_allclose(got_acc, acc, rtol=1e-5)
    np.testing.assert_allclose(got_os, np.stack(outs[::-1], axis=1), rtol=1e-5)


def test_if_branch_reads_a_later_listed_node():
    """Nodes out of order where an If branch reads an outer value produced by
    a node listed after the If: the sort must count the branch's reads."""
    x = rand(3)
    then_g = graph([helper.make_node("Add", ["x2", "x"], ["t"])], [], [("t", F, None)], "then")
    else_g = graph([helper.make_node("Neg", ["x2"], ["e"])], [], [("e", F, None)], "else")
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
               helper.make_node("Mul", ["x", "x"], ["x2"])],
              [("c", B, []), ("x", F, x.shape)], [("y", F, None)])
    np.testing.assert_allclose(run(m, np.array(True), x)[0], x * x + x, rtol=1e-6)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),                      # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 5)]),  # broadcast batch dims
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),                                 # trace
    ("bii->b", [(2, 3, 3)]),
    ("i,j->ij", [(3,), (4,)]),                        # outer product
    ("ij,ij->ij", [(3, 4), (3, 4)]),                  # Hadamard
    ("ijk->kji", [(2, 3, 4)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),  # three operands
    ("i,i->", [(5,), (5,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),  # attention scores
])
def test_einsum_against_numpy(eq, shapes):
    xs = [rand(*s) for s in shapes]
    names = [f"x{i}" for i in range(len(xs))]
    m = model([helper.make_node("Einsum", names, ["y"], equation=eq)],
              [(n, F, x.shape) for n, x in zip(names, xs)], [("y", F, None)], opset=12)
    (y,) = run(m, *xs)
    want = np.einsum(eq, *xs)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_einsum_errors_name_the_equation():
    m = model([helper.make_node("Einsum", ["x"], ["y"], name="e", equation="ij,jk->ik")],
              [("x", F, (2, 2))], [("y", F, None)], opset=12)
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"'e' \(Einsum.*2 operands"):
        run(m, rand(2, 2))


def test_resize_empty_roi_opset11():
    """PyTorch's opset-11 export of F.interpolate gives Resize an empty roi
    constant: it was indexed anyway (IndexError) though only
    tf_crop_and_resize reads it."""
    x = rand(1, 2, 3, 4)
    m = model([helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="nearest",
                                coordinate_transformation_mode="asymmetric",
                                nearest_mode="floor")],
              [("x", F, x.shape)], [("y", F, None)], opset=11,
              inits=[("roi", np.zeros(0, np.float32)),
                     ("scales", np.array([1, 1, 2, 2], np.float32))])
    np.testing.assert_array_equal(run(m, x)[0], x.repeat(2, axis=2).repeat(2, axis=3))


def test_scripted_pytorch_loop():
    """A TorchScript for-loop over x.size(0) exports as Loop with a constant
    trip count and Gather(x, i) in the body: unrolled. The same loop with a
    data-dependent `if` in its body is a clear error, even though x is
    small enough for dlc to specialise on shape-like inputs: float data
    never decides control flow at compile time."""
    torch = pytest.importorskip("torch")
    import io

    class Decay(torch.nn.Module):
        def forward(self, x):
            acc = torch.zeros_like(x[0])
            for i in range(x.size(0)):
                acc = acc * 0.5 + x[i]
            return acc

    class Branchy(torch.nn.Module):
        def forward(self, x):
            acc = torch.zeros_like(x[0])
            for i in range(x.size(0)):
                acc = acc * 0.5 + x[i]
                if bool(acc.sum() > 1.0):
                    acc = acc - 1
            return acc

    x = torch.randn(4, 3)
    for cls, ok in ((Decay, True), (Branchy, False)):
        f = io.BytesIO()
        torch.onnx.export(torch.jit.script(cls()), (x,), f, opset_version=13)
        m = onnx.load_from_string(f.getvalue())
        if ok:
            np.testing.assert_allclose(run(m, x.numpy())[0], cls()(x).numpy(), rtol=1e-6)
        else:
            with pytest.raises(dlc.onnx.UnsupportedError, match=r"\(If, opset 13\): the "
                               "condition is computed from tensors at run time"):
                run(m, x.numpy())
