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
              [("x", TensorProto.COMPLEX64, [2])], [("y", TensorProto.COMPLEX64, None)])
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"ONNX node 'r' \(Relu, opset 13\): input 'x' has element type "
                       "COMPLEX64"):
        dlc.compile(m)
    # uint16 is held widened (int32): an op with no rule for it is named
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
              [("x", TensorProto.UINT16, [2])], [("y", TensorProto.UINT16, None)])
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"ONNX node 'r' \(Relu, opset 13\): Relu on UINT16"):
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


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype,elem", [(np.float32, F), (np.float64, TensorProto.DOUBLE),
                                        (np.float16, TensorProto.FLOAT16)])
def test_float_mod_exact_for_large_quotients(fmod, dtype, elem):
    """Float Mod was refused: x - trunc(x / y) * y rounds the quotient and the
    product, so 1e30 mod 0.7 came out wrong. dlg.fmod (arith.remf, C's fmod)
    is exact; fmod=0 follows np.mod's sign rules (a zero takes y's sign)."""
    big = np.finfo(dtype).max / 4
    a = np.array([big, -big, 1e4, -1e4, 7.5, -7.5, 7.5, -7.5, 6, -6, 0, np.inf, 3, -3, np.nan,
                  5, 1e-3], dtype)
    b = np.array([0.7, 0.7, -0.3, 0.3, 2, 2, -2, -2, 3, -3, -2, 2, np.inf, np.inf, 1, 0,
                  -7], dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.fmod(a, b) if fmod else np.mod(a, b)
    m = model([helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)],
              [("a", elem, a.shape), ("b", elem, b.shape)], [("y", elem, None)])
    y, = run(m, a, b)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(np.signbit(y), np.signbit(want))


def test_topk_ties_to_lower_index():
    x = np.array([[3, 1, 3, 2, -1], [0, 0, 5, 0, 5]], np.float32)
    m = model([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
              [("x", F, x.shape)], [("v", F, None), ("i", TensorProto.INT64, None)],
              opset=11, inits=[("k", np.array([3], np.int64))])
    v, i = run(m, x)
    np.testing.assert_array_equal(i, [[0, 2, 3], [2, 4, 0]])
    np.testing.assert_array_equal(v, [[3, 3, 2], [5, 5, 0]])


# --- element types dlg lacks (uint8/16/32/64, int16), held widened ------------

U8, U16, I16, U32, U64 = (TensorProto.UINT8, TensorProto.UINT16, TensorProto.INT16,
                          TensorProto.UINT32, TensorProto.UINT64)


def binary(op, elem, a, b, **kw):
    m = model([helper.make_node(op, ["a", "b"], ["y"], **kw)],
              [("a", elem, a.shape), ("b", elem, b.shape)], [("y", elem, None)], opset=14)
    y, = run(m, a, b)
    assert y.dtype == a.dtype
    return y


@pytest.mark.parametrize("op,fn", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)])
@pytest.mark.parametrize("dtype,elem", [(np.uint8, U8), (np.uint16, U16), (np.int16, I16),
                                        (np.uint32, U32), (np.uint64, U64)])
def test_narrow_integer_arithmetic_wraps(op, fn, dtype, elem):
    """Held widened, the result must still wrap modulo 2^bits like the type's own
    arithmetic (a widened sum that is not wrapped would be a silent wrong answer)."""
    info = np.iinfo(dtype)
    a = np.array([info.max, info.max - 3, info.min, 7, info.max // 2 + 1, 0], dtype)
    b = np.array([info.max, 5, 1, info.max, 3, info.min], dtype)
    np.testing.assert_array_equal(binary(op, elem, a, b), fn(a, b))


def test_uint64_ordering_and_shifts_above_2_63():
    """UINT64 is held as int64 bits: Max/Min/Greater and BitShift right must
    treat 2^63 and above as the large numbers they are."""
    a = np.array([2 ** 64 - 1, 2 ** 63, 5, 2 ** 63 + 7], np.uint64)
    b = np.array([1, 2 ** 63 - 1, 2 ** 64 - 2, 2 ** 63 + 9], np.uint64)
    np.testing.assert_array_equal(binary("Max", U64, a, b), np.maximum(a, b))
    np.testing.assert_array_equal(binary("Min", U64, a, b), np.minimum(a, b))
    s = np.array([63, 1, 0, 64], np.uint64)
    np.testing.assert_array_equal(binary("BitShift", U64, a, s, direction="RIGHT"),
                                  np.array([1, 2 ** 62, 5, 0], np.uint64))
    np.testing.assert_array_equal(binary("BitShift", U64, b, s, direction="LEFT"),
                                  np.array([2 ** 63, 2 ** 64 - 2, 2 ** 64 - 2, 0], np.uint64))
    m = model([helper.make_node("Cast", ["a"], ["y"], to=TensorProto.DOUBLE)],
              [("a", U64, a.shape)], [("y", TensorProto.DOUBLE, None)])
    y, = run(m, a)
    np.testing.assert_array_equal(y, a.astype(np.float64))


def test_int16_division_and_cast_to_uint8():
    """int16's -32768 / -1 wraps to -32768; a Cast to uint8 wraps (as astype)."""
    a = np.array([-32768, 7, -7, 300], np.int16)
    b = np.array([-1, -2, 2, 7], np.int16)
    np.testing.assert_array_equal(binary("Div", I16, a, b), np.array([-32768, -3, -3, 42],
                                                                     np.int16))
    m = model([helper.make_node("Cast", ["a"], ["y"], to=U8)], [("a", I16, a.shape)],
              [("y", U8, None)])
    y, = run(m, a)
    np.testing.assert_array_equal(y, a.astype(np.uint8))


def test_narrow_integer_unsupported_op_is_named():
    """An op that does not take a widened type says so (no silent int32 math)."""
    x = np.arange(4, dtype=np.uint8)
    m = model([helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0)], [("x", U8, x.shape)],
              [("y", U8, None)])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"ReduceSum on UINT8"):
        run(m, x)
    m = model([helper.make_node("ReduceProd", ["x"], ["y"], keepdims=0)], [("x", U64, [2])],
              [("y", U64, None)])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"ReduceProd on UINT64"):
        run(m, np.ones(2, np.uint64))


U64_EDGES = [0, 1, 2, 3, 7, 2 ** 32, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 63 + 1, 2 ** 63 + 12345,
             10 ** 19, 12345678901234567890, 2 ** 64 - 2, 2 ** 64 - 1]


@pytest.mark.parametrize("op,attrs,ref", [("Mod", {}, np.mod), ("Mod", {"fmod": 1}, np.fmod),
                                          ("Div", {}, np.floor_divide)])
def test_uint64_division_unsigned(op, attrs, ref):
    """UINT64 is held as int64 bits: Div and Mod must divide the unsigned
    numbers (they were refused). Every pair of edge values: below and above
    2^63 on both sides, divisors that divide 2^63 or not, 1 (the quotient
    2^64 - 1 wraps to its bits) and 0 (0, as NumPy's uint64)."""
    a = np.array([x for x in U64_EDGES for _ in U64_EDGES], np.uint64)
    b = np.array([y for _ in U64_EDGES for y in U64_EDGES], np.uint64)
    m = model([helper.make_node(op, ["a", "b"], ["y"], **attrs)],
              [("a", U64, a.shape), ("b", U64, b.shape)], [("y", U64, None)])
    y, = run(m, a, b)
    with np.errstate(divide="ignore"):
        want = ref(a, b)
    want[b == 0] = 0
    assert y.dtype == np.uint64
    np.testing.assert_array_equal(y, want)


def test_narrow_integer_input_type_is_checked():
    m = model([helper.make_node("Identity", ["x"], ["y"])], [("x", U8, [3])], [("y", U8, None)])
    with pytest.raises(ValueError, match="expected uint8, got int32"):
        run(m, np.zeros(3, np.int32))


# --- quantization ---------------------------------------------------------------

I8 = TensorProto.INT8


@pytest.mark.parametrize("zp_dtype,elem", [(np.uint8, U8), (np.int8, I8)])
def test_quantize_rounds_half_to_even_and_saturates(zp_dtype, elem):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1000, -1000, 3.49, 127.5], np.float32)
    zp = np.array(3, zp_dtype)
    m = model([helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])],
              [("x", F, x.shape)], [("y", elem, None)],
              inits=[("s", np.array(1.0, np.float32)), ("zp", zp)])
    y, = run(m, x)
    info = np.iinfo(zp_dtype)
    np.testing.assert_array_equal(y, np.clip(np.round(x) + 3, info.min, info.max).astype(zp_dtype))


def test_matmulinteger_per_row_zero_point_int8():
    a = RNG.integers(-128, 128, (4, 5)).astype(np.int8)
    b = RNG.integers(-128, 128, (5, 3)).astype(np.int8)
    azp = np.array([1, -2, 3, 127], np.int8)
    bzp = np.array([-128, 0, 5], np.int8)
    m = model([helper.make_node("MatMulInteger", ["a", "b", "azp", "bzp"], ["y"])],
              [("a", I8, a.shape), ("b", I8, b.shape)], [("y", TensorProto.INT32, None)],
              opset=10, inits=[("azp", azp), ("bzp", bzp)])
    y, = run(m, a, b)
    want = (a.astype(np.int32) - azp[:, None]) @ (b.astype(np.int32) - bzp[None, :])
    np.testing.assert_array_equal(y, want)


def test_dequantize_uint8_per_axis_roundtrip():
    x = RNG.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    s = np.array([0.5, 2.0, 0.25], np.float32)
    zp = np.array([0, 128, 255], np.uint8)
    m = model([helper.make_node("DequantizeLinear", ["x", "s", "zp"], ["f"]),
               helper.make_node("QuantizeLinear", ["f", "s", "zp"], ["y"])],
              [("x", U8, x.shape)], [("f", F, None), ("y", U8, None)],
              inits=[("s", s), ("zp", zp)])
    f, y = run(m, x)
    np.testing.assert_array_equal(f, (x.astype(np.float32) - zp[:, None].astype(np.float32))
                                  * s[:, None])
    np.testing.assert_array_equal(y, x)


def test_qlinearmatmul_per_axis_output_scale_is_named():
    a = np.zeros((2, 2), np.uint8)
    inits = [("s", np.array(1.0, np.float32)), ("zp", np.array(0, np.uint8)),
             ("ys", np.array([1.0, 2.0], np.float32))]
    m = model([helper.make_node("QLinearMatMul", ["a", "s", "zp", "a", "s", "zp", "ys", "zp"],
                                ["y"])], [("a", U8, a.shape)], [("y", U8, None)], opset=10,
              inits=inits)
    with pytest.raises(dlc.onnx.UnsupportedError, match="per-axis output scale"):
        run(m, a)


# --- N-D pooling by slices (3-D, dilated, MaxPool's Indices) ----------------------

@pytest.mark.parametrize("dims,kw", [
    (3, dict(kernel_shape=[2, 3, 2], strides=[1, 2, 1], pads=[1, 0, 1, 1, 0, 1])),
    (3, dict(kernel_shape=[3, 2, 2], strides=[2, 2, 2], ceil_mode=1)),
    (2, dict(kernel_shape=[2, 3], dilations=[2, 1], pads=[1, 1, 1, 1], strides=[1, 2])),
    (1, dict(kernel_shape=[3], dilations=[2], ceil_mode=1, strides=[2])),
])
def test_pooling_by_slices_matches_torch(dims, kw):
    torch = pytest.importorskip("torch")
    x = rand(2, 3, *([7, 8, 9][:dims]))
    k, s = kw["kernel_shape"], kw.get("strides", [1] * dims)
    d, pads = kw.get("dilations", [1] * dims), kw.get("pads", [0] * 2 * dims)
    if pads[:dims] != pads[dims:]:  # torch pads symmetrically: pad by hand at -inf / 0
        pytest.skip("asymmetric pads")
    ceil = bool(kw.get("ceil_mode", 0))
    m = model([helper.make_node("MaxPool", ["x"], ["y", "i"], **kw)], [("x", F, x.shape)],
              [("y", F, None), ("i", TensorProto.INT64, None)], opset=12)
    y, i = run(m, x)
    mp = getattr(torch.nn.functional, f"max_pool{dims}d")
    ty, ti = mp(torch.from_numpy(x), k, s, pads[:dims], d, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(y, ty.numpy())
    plane = int(np.prod(x.shape[2:]))
    base = (np.arange(6) * plane).reshape([2, 3] + [1] * dims)
    np.testing.assert_array_equal(i, ti.numpy() + base)
    if "dilations" not in kw:
        m = model([helper.make_node("AveragePool", ["x"], ["y"], count_include_pad=1, **kw)],
                  [("x", F, x.shape)], [("y", F, None)], opset=12)
        y, = run(m, x)
        ap = getattr(torch.nn.functional, f"avg_pool{dims}d")
        np.testing.assert_allclose(y, ap(torch.from_numpy(x), k, s, pads[:dims], ceil_mode=ceil,
                                         count_include_pad=True).numpy(), rtol=1e-5, atol=1e-6)


def test_maxpool_indices_column_major():
    """storage_order=1: the spatial index is column-major (w * H + h)."""
    x = rand(1, 2, 4, 5)
    m = model([helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2],
                                storage_order=1)], [("x", F, x.shape)],
              [("y", F, None), ("i", TensorProto.INT64, None)], opset=12)
    y, i = run(m, x)
    for c in range(2):
        for h in range(3):
            for w in range(4):
                win = x[0, c, h:h + 2, w:w + 2]
                dh, dw = np.unravel_index(np.argmax(win), win.shape)
                assert y[0, c, h, w] == win.max()
                assert i[0, c, h, w] == c * 20 + (w + dw) * 4 + (h + dh)


# --- NonMaxSuppression: specialised on its operands' values ----------------------

@pytest.mark.parametrize("center", [0, 1])
def test_nonmaxsuppression_matches_torchvision(center):
    tv = pytest.importorskip("torchvision")
    torch = pytest.importorskip("torch")
    xy = RNG.uniform(0, 10, (1, 30, 2)).astype(np.float32)
    wh = RNG.uniform(0.5, 4, (1, 30, 2)).astype(np.float32)
    boxes = np.concatenate([xy + wh / 2, wh], -1) if center else np.concatenate([xy, xy + wh], -1)
    scores = RNG.permutation(60).reshape(1, 2, 30).astype(np.float32) / 60
    lim, iou, thr = np.array([7], np.int64), np.array([0.3], np.float32), \
        np.array([0.1], np.float32)
    m = model([helper.make_node("NonMaxSuppression", ["b", "s", "k", "iou", "thr"], ["y"],
                                center_point_box=center)],
              [("b", F, boxes.shape), ("s", F, scores.shape), ("k", TensorProto.INT64, [1]),
               ("iou", F, [1]), ("thr", F, [1])], [("y", TensorProto.INT64, None)], opset=11)
    mod = dlc.compile(m)
    y, = mod.run(boxes, scores, lim, iou, thr)
    corners = np.concatenate([xy, xy + wh], -1)[0]
    want = []
    for c in range(2):
        keep = scores[0, c] > thr[0]
        idx = np.nonzero(keep)[0]
        sel = tv.ops.nms(torch.from_numpy(corners[idx]), torch.from_numpy(scores[0, c, idx]),
                         float(iou[0])).numpy()[:7]
        want += [[0, c, int(idx[i])] for i in sel]
    np.testing.assert_array_equal(y, want)
    # other values: imported again for them
    y2, = mod.run(boxes, scores, np.array([2], np.int64), iou, thr)
    np.testing.assert_array_equal(y2, [w for w in want if w[1] == 0][:2] +
                                  [w for w in want if w[1] == 1][:2])


def test_nonmaxsuppression_on_computed_boxes_runs():
    """Boxes computed by the model: NMS at run time (dlg.non_max_suppression,
    its padded result sliced; test_nms.py tests it in depth)."""
    m = model([helper.make_node("Relu", ["b"], ["r"]),
               helper.make_node("NonMaxSuppression", ["r", "s", "k"], ["y"])],
              [("b", F, [1, 5, 4]), ("s", F, [1, 1, 5])], [("y", TensorProto.INT64, None)],
              opset=11, inits=[("k", np.array([2], np.int64))])
    b, s = rand(1, 5, 4), rand(1, 1, 5)
    want = dlc.onnx._nms(None, None, [np.maximum(b, 0), s, np.array([2], np.int64)], {})
    y, = dlc.compile(m).run(b, s)
    np.testing.assert_array_equal(y, np.zeros((0, 3), np.int64) if want is None else want)


def test_compress_and_unique_specialise_on_values():
    x = rand(3, 4)
    cond = np.array([True, False, True, True, False])  # longer than axis 1: the rest unused
    m = model([helper.make_node("Relu", ["x"], ["r"]),
               helper.make_node("Compress", ["r", "c"], ["y"], axis=1)],
              [("x", F, x.shape), ("c", TensorProto.BOOL, cond.shape)], [("y", F, None)],
              opset=11)
    mod = dlc.compile(m)
    for c in (cond, np.array([False, True, False, False, False])):
        y, = mod.run(x, c)
        np.testing.assert_array_equal(y, np.compress(c[:4], np.maximum(x, 0), axis=1))
    v = np.array([3, 1, 3, 2, 1, 7], np.float32)
    m = model([helper.make_node("Unique", ["v"], ["y", "i", "inv", "n"], sorted=0)],
              [("v", F, v.shape)], [("y", F, None)] + [(o, TensorProto.INT64, None)
                                                      for o in ("i", "inv", "n")], opset=11)
    y, i, inv, n = dlc.compile(m).run(v)
    np.testing.assert_array_equal(y, [3, 1, 2, 7])
    np.testing.assert_array_equal(i, [0, 1, 3, 5])
    np.testing.assert_array_equal(inv, [0, 1, 0, 2, 1, 3])
    np.testing.assert_array_equal(n, [2, 2, 1, 1])
    assert (y[inv] == v).all()


# --- 3-D convolutions (composed of 2-D ones over the kernel's depth) -------------

@pytest.mark.parametrize("kw", [dict(), dict(strides=[2, 1, 2], pads=[1, 0, 1, 1, 0, 1]),
                                dict(dilations=[2, 1, 1], group=2, pads=[2, 1, 0, 2, 1, 0])])
def test_conv3d_matches_torch(kw):
    torch = pytest.importorskip("torch")
    g = kw.get("group", 1)
    x, w, b = rand(2, 4, 6, 5, 7), rand(6, 4 // g, 3, 2, 3), rand(6)
    m = model([helper.make_node("Conv", ["x", "w", "b"], ["y"], **kw)], [("x", F, x.shape)],
              [("y", F, None)], inits=[("w", w), ("b", b)])
    y, = run(m, x)
    p = kw.get("pads", [0] * 6)
    want = torch.nn.functional.conv3d(torch.from_numpy(x), torch.from_numpy(w),
                                      torch.from_numpy(b), kw.get("strides", 1), p[:3],
                                      kw.get("dilations", 1), g).numpy()
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kw", [dict(), dict(strides=[2, 1, 2], pads=[1, 0, 1, 1, 0, 1],
                                             output_padding=[1, 0, 1]),
                                dict(strides=[3, 2, 1], dilations=[2, 1, 1], group=2)])
def test_conv_transpose3d_matches_torch(kw):
    torch = pytest.importorskip("torch")
    g = kw.get("group", 1)
    x, w, b = rand(2, 4, 3, 4, 5), rand(4, 6 // g, 3, 2, 3), rand(6)
    m = model([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **kw)],
              [("x", F, x.shape)], [("y", F, None)], inits=[("w", w), ("b", b)])
    y, = run(m, x)
    p = kw.get("pads", [0] * 6)
    want = torch.nn.functional.conv_transpose3d(
        torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), kw.get("strides", 1),
        p[:3], kw.get("output_padding", 0), g, kw.get("dilations", 1)).numpy()
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


# --- GridSample, DFT, STFT, Det ------------------------------------------------

@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_gridsample_matches_torch(mode, padding, align):
    torch = pytest.importorskip("torch")
    x = rand(2, 3, 5, 6)
    grid = RNG.uniform(-1.6, 1.6, (2, 4, 7, 2)).astype(np.float32)
    m = model([helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode,
                                padding_mode=padding, align_corners=align)],
              [("x", F, x.shape), ("g", F, grid.shape)], [("y", F, None)], opset=16)
    y, = run(m, x, grid)
    want = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode,
                                           padding, bool(align)).numpy()
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kw,length", [(dict(axis=1), None), (dict(axis=2, onesided=1), 9),
                                       (dict(axis=1, inverse=1), 5)])
def test_dft_matches_numpy(kw, length):
    x = rand(2, 7, 6, 1 if kw.get("onesided") else 2)
    inputs = ["x"] + (["n"] if length else [])
    m = model([helper.make_node("DFT", inputs, ["y"], **kw)], [("x", F, x.shape)],
              [("y", F, None)], opset=17,
              inits=[("n", np.array(length, np.int64))] if length else [])
    y, = run(m, x)
    z = x[..., 0] if kw.get("onesided") else x[..., 0] + 1j * x[..., 1]
    fn = np.fft.ifft if kw.get("inverse") else (np.fft.rfft if kw.get("onesided") else np.fft.fft)
    want = fn(z, n=length, axis=kw["axis"])
    np.testing.assert_allclose(y, np.stack([want.real, want.imag], -1), rtol=1e-4, atol=1e-4)


def test_stft_matches_numpy():
    x = rand(2, 40, 1)
    win = np.hanning(8).astype(np.float32)
    m = model([helper.make_node("STFT", ["x", "step", "w"], ["y"])], [("x", F, x.shape)],
              [("y", F, None)], opset=17,
              inits=[("step", np.array(3, np.int64)), ("w", win)])
    y, = run(m, x)
    frames = np.stack([x[:, i * 3:i * 3 + 8, 0] * win for i in range(11)], 1)
    want = np.fft.rfft(frames, axis=-1)
    np.testing.assert_allclose(y, np.stack([want.real, want.imag], -1), rtol=1e-4, atol=1e-4)


def test_det_up_to_3x3_and_larger_is_named():
    x = rand(4, 3, 3)
    m = model([helper.make_node("Det", ["x"], ["y"])], [("x", F, x.shape)], [("y", F, None)])
    y, = run(m, x)
    np.testing.assert_allclose(y, np.linalg.det(x), rtol=1e-4, atol=1e-5)
    m = model([helper.make_node("Det", ["x"], ["y"])], [("x", F, [4, 4])], [("y", F, None)])
    with pytest.raises(dlc.onnx.UnsupportedError, match="Det of 4x4 matrices"):
        run(m, rand(4, 4))


def test_bfloat16_held_as_float32():
    """bfloat16 arrays are uint16 bits at the boundary; Max is exact on them;
    a Cast to bfloat16 truncates (ONNX 1.12) and may only be an output."""
    BF = TensorProto.BFLOAT16
    a = (np.array([1.5, -2.25, 3e38, 0.1], np.float32).view(np.uint32) >> 16).astype(np.uint16)
    b = (np.array([1.0, -2.0, -1.0, 0.2], np.float32).view(np.uint32) >> 16).astype(np.uint16)
    y = binary("Max", BF, a, b)
    f = lambda v: (v.astype(np.uint32) << 16).view(np.float32)  # noqa: E731
    np.testing.assert_array_equal(f(y), np.maximum(f(a), f(b)))
    x = np.array([0.47892547, -1e-3, np.inf, 1 + 2 ** -9], np.float32)
    m = model([helper.make_node("Cast", ["x"], ["y"], to=BF)], [("x", F, x.shape)],
              [("y", BF, None)])
    y, = run(m, x)
    np.testing.assert_array_equal(y, (x.view(np.uint32) >> 16).astype(np.uint16))
    m = model([helper.make_node("Cast", ["x"], ["c"], to=BF),
               helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)],
              [("x", F, x.shape)], [("y", F, None)])
    with pytest.raises(dlc.onnx.UnsupportedError, match="a Cast to BFLOAT16, used in the graph"):
        run(m, x)
    with pytest.raises(dlc.onnx.UnsupportedError, match="Add on BFLOAT16"):
        binary("Add", BF, a, b)


def test_maxpool_indices_then_maxunpool_matches_torch():
    """MaxUnpool reads ONNX's flat indices (with the (n * C + c) plane offset),
    including overlapping windows that chose the same cell."""
    torch = pytest.importorskip("torch")
    x = rand(2, 3, 7, 7)
    m = model([helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[3, 3],
                                strides=[2, 2]),
               helper.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[3, 3],
                                strides=[2, 2])],
              [("x", F, x.shape)], [("y", F, None)], opset=12)
    y, = run(m, x)
    tp, ti = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, 2, return_indices=True)
    want = torch.nn.functional.max_unpool2d(tp, ti, 3, 2).numpy()
    np.testing.assert_array_equal(y, want)


def _unpool(idx_init=None):
    ins = [("x", F, (1, 2, 2, 2))] + ([] if idx_init is not None else
                                      [("i", TensorProto.INT64, (1, 2, 2, 2))])
    return model([helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2],
                                   strides=[2, 2])], ins, [("y", F, None)], opset=11,
                 inits=[] if idx_init is None else [("i", idx_init)])


@pytest.mark.parametrize("bad,why", [(32, "outside the output of 32 elements"),
                                     (-1, "outside the output"),
                                     (20, "in plane 1, not its own")])
def test_maxunpool_index_outside_its_plane_is_an_error(bad, why):
    """An index outside the output (onnxruntime raises) or in another (n, c)
    plane was dropped silently: now a clear error, at compile time for
    constant indices and per value for indices given as an input."""
    x = rand(1, 2, 2, 2)
    idx = np.array([0, 3, 9, 15, 16, 19, 25, 31], np.int64).reshape(1, 2, 2, 2)
    y, = run(_unpool(idx), x)
    want = np.zeros(32, np.float32)
    want[idx.reshape(-1)] = x.reshape(-1)
    np.testing.assert_array_equal(y.reshape(-1), want)
    idx.reshape(-1)[2] = bad
    with pytest.raises(dlc.onnx.UnsupportedError, match=f"MaxUnpool.*index {bad} .*{why}"):
        run(_unpool(idx), x)
    with pytest.raises(dlc.onnx.UnsupportedError, match=f"index {bad} .*{why}"):
        run(_unpool(), x, idx)


def test_maxunpool_computed_indices_are_refused():
    """Indices computed at run time other than MaxPool's own (which lie in
    their plane by construction) cannot be checked: refused, named."""
    m = model([helper.make_node("Cast", ["f"], ["i"], to=TensorProto.INT64),
               helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2],
                                strides=[2, 2])],
              [("x", F, (1, 1, 8, 8)), ("f", F, (1, 1, 8, 8))], [("y", F, None)], opset=11)
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match="MaxUnpool.*indices .*must be a constant"):
        run(m, rand(1, 1, 8, 8), np.zeros((1, 1, 8, 8), np.float32))


def test_tfidfvectorizer_counts_with_skips():
    """Each n-gram once per start and per item distance 1..max_skip_count+1,
    unigrams once per position (onnxruntime's counting), TFIDF weighted."""
    x = RNG.integers(0, 4, (3, 9)).astype(np.int64)
    idx = [4, 0, 1, 2, 3, 6, 5]
    grams = [(1,), (2,), (3,), (1, 2), (2, 0), (3, 1), (1, 2, 2)]
    pool = [1, 2, 3, 1, 2, 2, 0, 3, 1, 1, 2, 2]
    counts = [0, 3, 9]
    w = [0.5, 1, 2, 3, 4, 5, 6]
    m = model([helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TFIDF", min_gram_length=1,
                                max_gram_length=3, max_skip_count=2, ngram_counts=counts,
                                ngram_indexes=idx, pool_int64s=pool, weights=w)],
              [("x", TensorProto.INT64, x.shape)], [("y", F, None)], opset=9)
    y, = run(m, x)
    want = np.zeros((3, 7), np.float32)
    for r in range(3):
        for g, (gram, o) in enumerate(zip(grams, idx)):
            n = len(gram)
            c = 0
            for dist in (range(1, 4) if n > 1 else [1]):
                for i in range(9 - (n - 1) * dist):
                    c += all(x[r, i + j * dist] == gram[j] for j in range(n))
            want[r, o] = c * w[g]
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("ctm,aligned", [("half_pixel", True), ("output_half_pixel", False)])
def test_roialign_matches_torchvision(ctm, aligned):
    tv = pytest.importorskip("torchvision")
    torch = pytest.importorskip("torch")
    x = rand(2, 3, 9, 11)
    xy = RNG.uniform(-2, 9, (5, 2)).astype(np.float32)
    rois = np.concatenate([xy, xy + RNG.uniform(0.2, 6, (5, 2)).astype(np.float32)], 1)
    bidx = np.array([0, 1, 1, 0, 1], np.int64)
    m = model([helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=3,
                                output_width=4, sampling_ratio=2, spatial_scale=0.75,
                                coordinate_transformation_mode=ctm)],
              [("x", F, x.shape), ("r", F, rois.shape), ("b", TensorProto.INT64, bidx.shape)],
              [("y", F, None)], opset=16)
    y, = run(m, x, rois, bidx)
    boxes = torch.from_numpy(np.concatenate([bidx[:, None].astype(np.float32), rois], 1))
    want = tv.ops.roi_align(torch.from_numpy(x), boxes, (3, 4), 0.75, 2, aligned).numpy()
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_narrow_integer_through_per_shape_module():
    """A uint8 model that dlc specialises per input value (PerShapeModule):
    the boundary conversion wraps it too, and a specialised uint8 input is
    folded as uint8 (Add wraps)."""
    x = np.array([[250, 1, 2], [3, 4, 255]], np.uint8)
    m = model([helper.make_node("Add", ["x", "c"], ["a"]),
               helper.make_node("Reshape", ["a", "s"], ["y"])],
              [("x", U8, x.shape), ("c", U8, [1]), ("s", TensorProto.INT64, [2])],
              [("y", U8, None)], opset=14)
    mod = dlc.compile(m)
    for s in ([3, 2], [1, 6]):
        y, = mod.run(x, np.array([10], np.uint8), np.array(s, np.int64))
        np.testing.assert_array_equal(y, (x + np.uint8(10)).reshape(s))
# --- control flow (If, Loop, Scan: resolved at import, unrolled inline) ------

B, I64 = TensorProto.BOOL, TensorProto.INT64


def graph(nodes, inputs, outputs, name="body"):
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                             [helper.make_tensor_value_info(*o) for o in outputs])


def test_if_outer_scope_and_runtime_condition():
    """The branch reads outer-scope tensors; a condition given as an input is
    specialised on (both values); one computed from tensor data is read at
    run time (dlg.if), both ways compared with NumPy."""
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
    assert "dlg.if" in dlc.onnx.import_graph(m).mlir()
    mod = dlc.compile(m)
    for v in (big, -big, np.abs(big), -np.abs(big)):
        want = 2 * v if v.sum() > 0 else -v
        np.testing.assert_allclose(mod.run(v)[0], want, rtol=1e-6)


def test_if_runtime_branches_of_different_types_is_an_error():
    """Branches whose outputs differ in shape cannot be one dlg.if result."""
    then_g = graph([helper.make_node("Identity", ["x"], ["t"])], [], [("t", F, None)], "then")
    else_g = graph([helper.make_node("ReduceSum", ["x"], ["e"], keepdims=0)], [],
                   [("e", F, None)], "else")
    m = model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
               helper.make_node("Greater", ["s", "zero"], ["c"]),
               helper.make_node("If", ["c"], ["y"], name="odd", then_branch=then_g,
                                else_branch=else_g)],
              [("x", F, [4])], [("y", F, None)], inits=[("zero", np.array(0, np.float32))])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"'odd' \(If, opset 13\).*differ"):
        dlc.compile(m).run(rand(4))


def loop_body(cond_from_data, scan=False):
    """y = y * 2 + i; the exit: i + 1 < 3, or sum(y) < 100 (data)."""
    nodes = [helper.make_node("Cast", ["i"], ["fi"], to=F),
             helper.make_node("Mul", ["y_in", "two"], ["y2"]),
             helper.make_node("Add", ["y2", "fi"], ["y_out"])]
    if cond_from_data:
        nodes += [helper.make_node("ReduceSum", ["y_out"], ["y_sum"], keepdims=0),
                  helper.make_node("Less", ["y_sum", "hundred"], ["c_out"])]
    else:
        nodes += [helper.make_node("Add", ["i", "one"], ["i1"]),
                  helper.make_node("Less", ["i1", "three"], ["c_out"])]
    outs = [("c_out", B, []), ("y_out", F, [2])]
    if scan:
        nodes.append(helper.make_node("Identity", ["y_out"], ["s"]))
        outs.append(("s", F, [2]))
    return graph(nodes, [("i", I64, []), ("c_in", B, []), ("y_in", F, [2])], outs)


LOOP_INITS = [("two", np.array(2, np.float32)), ("one", np.array(1, np.int64)),
              ("three", np.array(3, np.int64)), ("hundred", np.array(100, np.float32))]


def loop_ref(y, trips, data_exit):
    i = 0
    while i < trips:
        y = y * 2 + i
        i += 1
        if (y.sum() >= 100) if data_exit else (i >= 3):
            break
    return y


def test_loop_runtime_condition_from_data():
    """A Loop whose early exit is computed from tensor data runs as a real
    loop (dlg.while), trip count a constant."""
    m = model([helper.make_node("Loop", ["M", "", "y"], ["y_f"], name="grow",
                                body=loop_body(True))],
              [("y", F, [2])], [("y_f", F, None)],
              inits=[("M", np.array(10, np.int64))] + LOOP_INITS)
    assert "dlg.while" in dlc.onnx.import_graph(m).mlir()
    mod = dlc.compile(m)
    for y0 in ([1.0, -0.5], [0.0, 0.0], [200.0, 1.0], [-5.0, 1.0]):
        y0 = np.array(y0, np.float32)
        np.testing.assert_allclose(mod.run(y0)[0], loop_ref(y0, 10, True), rtol=1e-6)


def test_loop_runtime_trip_count_from_data():
    """A trip count computed from tensor data (Cast(ReduceSum(n))) and an
    initial condition computed from data: both read at run time."""
    m = model([helper.make_node("ReduceSum", ["n"], ["nsum"], keepdims=0),
               helper.make_node("Cast", ["nsum"], ["M"], to=I64),
               helper.make_node("ReduceSum", ["y"], ["ys"], keepdims=0),
               helper.make_node("Less", ["ys", "hundred"], ["c0"]),
               helper.make_node("Loop", ["M", "c0", "y"], ["y_f"], body=loop_body(True))],
              [("n", F, [2]), ("y", F, [2])], [("y_f", F, None)], inits=LOOP_INITS)
    mod = dlc.compile(m)
    for trips in (0, 1, 2, 5, 9):
        for y0 in ([0.25, -0.5], [150.0, 0.0]):
            y0 = np.array(y0, np.float32)
            n = np.array([trips, 0], np.float32)
            want = y0 if y0.sum() >= 100 else loop_ref(y0, trips, True)
            np.testing.assert_allclose(mod.run(n, y0)[0], want, rtol=1e-6)


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
    # an exit that depends on tensor data makes a real loop, whose scan
    # outputs have a length known only at run time: padded to M rows and
    # cut to the iterations run (test_loop_scan.py has the details)
    body.node[4].CopyFrom(helper.make_node("Less", ["y_sum", "hundred"], ["c_out"]))
    body.node.insert(4, helper.make_node("ReduceSum", ["y_out"], ["y_sum"], keepdims=0))
    m = model([helper.make_node("Loop", ["M", "", "y"], ["y_f", "ys"], name="grow", body=body)],
              [("y", F, [64])], [("y_f", F, None), ("ys", F, None)], opset=13,
              inits=[("M", np.array(10, np.int64)), ("two", np.array(2, np.float32)),
                     ("one", np.array(1, np.int64)), ("hundred", np.array(100, np.float32))])
    y0 = rand(64)
    want, ys = y0.copy(), []
    for i in range(10):
        want = want * 2 + i
        ys.append(want)
        if not want.sum() < 100:
            break
    y_f, s = run(m, y0)
    np.testing.assert_allclose(y_f, want, rtol=1e-6)
    np.testing.assert_allclose(s, np.stack(ys), rtol=1e-6)


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
    for cls, ok in ((Decay, True), (Branchy, True)):
        f = io.BytesIO()
        torch.onnx.export(torch.jit.script(cls()), (x,), f, opset_version=13)
        m = onnx.load_from_string(f.getvalue())
        if ok:
            np.testing.assert_allclose(run(m, x.numpy())[0], cls()(x).numpy(), rtol=1e-6)
        else:
            with pytest.raises(dlc.onnx.UnsupportedError, match=r"\(If, opset 13\): the "
                               "condition is computed from tensors at run time"):
                run(m, x.numpy())


def slice_model(shape, starts, ends, axes, steps=None, elem=F, extra=(), out="y"):
    inits = [("st", np.array(starts, np.int64)), ("en", np.array(ends, np.int64)),
             ("ax", np.array(axes, np.int64))]
    ins = ["x", "st", "en", "ax"]
    if steps is not None:
        inits.append(("sp", np.array(steps, np.int64)))
        ins.append("sp")
    return model([helper.make_node("Slice", ins, ["y"], name="s"), *extra],
                  [("x", elem, shape)], [(out, elem, None)], inits=inits)


@pytest.mark.parametrize("starts,ends,axes,steps", [
    ([1000], [1000], [1], None),        # start past the end (ONNX's case)
    ([3], [3], [-1], None),             # start == end
    ([2], [5], [0], [-1]),              # a negative step going up
    ([-100], [-200], [1], None),        # both clamped to the start
])
@pytest.mark.parametrize("dtype,elem", [(np.float32, F), (np.int64, TensorProto.INT64),
                                        (np.uint8, TensorProto.UINT8)])
def test_slice_empty_axis(starts, ends, axes, steps, dtype, elem):
    """A Slice with no entries along one axis (was a named error): held as
    one padded entry counted by 0, so run() returns NumPy's empty array of
    the right shape and dtype, also through a Transpose that moves the axis."""
    x = (np.arange(4 * 6 * 5) % 200).astype(dtype).reshape(4, 6, 5)
    sl = [slice(None)] * 3
    for s, e, a, p in zip(starts, ends, axes, steps or [1] * len(axes)):
        sl[a] = slice(s, e, p)
    want = x[tuple(sl)]
    assert want.size == 0
    y, = run(slice_model(x.shape, starts, ends, axes, steps, elem), x)
    assert y.dtype == want.dtype and y.shape == want.shape
    tr = [helper.make_node("Transpose", ["y"], ["t"], perm=[2, 0, 1])]
    t, = run(slice_model(x.shape, starts, ends, axes, steps, elem, tr, "t"), x)
    assert t.dtype == want.dtype and t.shape == want.transpose(2, 0, 1).shape


def test_slice_empty_refusals():
    """Two empty axes, and an op that would compute on the padding: named."""
    x = np.zeros((4, 6, 5), np.float32)
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"'s' \(Slice, opset 13\): an empty slice of axes \[0, 2\]"):
        run(slice_model(x.shape, [9, 9], [9, 9], [0, 2]), x)
    add = [helper.make_node("Add", ["y", "y"], ["z"], name="add")]
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"'add' \(Add, opset 13\): input 'y' is empty along dim 1 \(an "
                             "empty Slice.*not into Add"):
        run(slice_model(x.shape, [7], [9], [1], extra=add, out="z"), x)


def test_uint64_mod_constant_divisor():
    """A UINT64 divisor given as an initializer (held as int64 bits too)."""
    a = np.array([2 ** 64 - 1, 2 ** 64 - 1, 2 ** 64 - 3, 2 ** 63], np.uint64)
    b = np.array([3, 2 ** 63 + 5, 10 ** 19, 7], np.uint64)
    m = model([helper.make_node("Mod", ["a", "b"], ["y"])], [("a", U64, a.shape)],
              [("y", U64, None)], inits=[("b", b)])
    y, = run(m, a)
    assert y.dtype == np.uint64 and np.array_equal(y, a % b)
