"""dlg.non_zero end to end: the JIT's loop and the constant folder's C
kernel against np.nonzero; dlc.Module's and dlc-run's cut of a result
counted along dim 1 (dlc.count_dim); the ONNX importer's run-time NonZero,
the ops that keep its count (torch's x[mask] export: NonZero, Transpose,
GatherND) and the named errors for everything else."""

import os
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402
from dlc.errors import CompileError  # noqa: E402


def nonzero_module(shape, dtype):
    g = dlc.Graph("nz")
    idx, n = g.non_zero(g.input(shape, dtype))
    g.output(idx, n, counts={0: (1, 1)})
    return dlc.Module(g.mlir())


def sample(rng, shape, dtype, density):
    """Values of `dtype` with about `density` of them nonzero; floats also
    get NaN (nonzero) and -0.0 (zero)."""
    keep = rng.random(shape) < density
    if dtype == "bool":
        return keep
    x = np.where(keep, rng.integers(1, 100, shape), 0).astype(dtype)
    if np.issubdtype(x.dtype, np.floating) and x.size >= 4:
        flat = x.reshape(-1)
        flat[0], flat[-1] = np.nan, -0.0
    return x


TYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "bool"]
SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 2, 2)]


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_against_numpy(shape, dtype):
    """JIT (an input, new data each run) and folding (a constant) give
    np.nonzero's indices, row-major order, for dense, sparse, all-zero and
    all-nonzero inputs; the result is C-contiguous, i64, [rank, count]."""
    rng = np.random.default_rng(len(shape))
    m = nonzero_module(shape, dtype)
    assert m.outputs == [((len(shape), None), np.dtype(np.int64))]
    for density in (0.0, 0.1, 0.6, 1.0):
        x = sample(rng, shape, dtype, density)
        want = np.array(np.nonzero(x), np.int64)
        got = m(x)
        assert got.dtype == np.int64 and got.flags.c_contiguous
        assert got.shape == want.shape and np.array_equal(got, want), density
        g = dlc.Graph("folded")
        idx, n = g.non_zero(g.constant(x))
        g.output(idx, n, counts={0: (1, 1)})
        folded = dlc.Module(g.mlir())
        assert "non_zero" not in folded.ir("dlg")
        assert np.array_equal(folded(), want), density


def test_nan_and_negative_zero():
    """NaN compares unequal to 0 (nonzero); -0.0 equals it (zero)."""
    m = nonzero_module((4,), "float32")
    x = np.array([np.nan, -0.0, 0.0, -2.0], np.float32)
    assert m(x).tolist() == [[0, 3]]


def test_uncounted_run_shows_padding():
    """Without the count marks the padded result comes back whole: the
    valid columns, then -1; the count is the second result."""
    g = dlc.Graph("raw")
    idx, n = g.non_zero(g.input((2, 2), "int32"))
    g.output(idx, n)
    idx, n = dlc.Module(g.mlir())(np.array([[0, 5], [7, 0]], np.int32))
    assert idx.tolist() == [[0, 1, -1, -1], [1, 0, -1, -1]] and int(n) == 2


def test_dlc_run_writes_counted_columns(tmp_path):
    """dlc-run writes a result counted along dim 1 compacted to its count."""
    src = tmp_path / "nz.mlir"
    src.write_text("""func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x6xi64> {dlc.count = 1 : i64, dlc.count_dim = 1 : i64}, tensor<i64>) {
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  return %i, %n : tensor<2x6xi64>, tensor<i64>
}
""")
    x = np.array([[0, 1, 0], [2, 0, 3]], np.float32)
    np.save(tmp_path / "x.npy", x)
    tool = os.path.join(os.path.dirname(os.environ.get("DLC_LIB", "build/lib/libdlc.so")), "..",
                        "bin", "dlc-run")
    r = subprocess.run([tool, str(src), "--input", str(tmp_path / "x.npy"), "--output",
                        str(tmp_path / "i.npy"), "--output", str(tmp_path / "n.npy")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert np.load(tmp_path / "i.npy").tolist() == [[0, 1, 1], [1, 0, 2]]
    assert int(np.load(tmp_path / "n.npy")) == 3


BAD_DIMS = [
    ("{dlc.count = 1 : i64, dlc.count_dim = 2 : i64}",
     "result 0: dlc.count_dim = 2 is not a dim of a rank-2 result"),
    ("{dlc.count = 1 : i64, dlc.count_dim = -1 : i64}",
     "result 0: dlc.count_dim = -1 is not a dim of a rank-2 result"),
    ("{dlc.count = 1 : i64, dlc.count_dim = 1.0 : f32}",
     "result 0: dlc.count_dim must be an integer"),
]


@pytest.mark.parametrize("attr,why", BAD_DIMS)
def test_bad_count_dim(attr, why):
    text = f"""func.func @main(%x: tensor<2x4xi64>, %n: tensor<i64>) -> (tensor<2x4xi64> {attr}, tensor<i64>) {{
  return %x, %n : tensor<2x4xi64>, tensor<i64>
}}"""
    with pytest.raises(CompileError, match=why):
        dlc.Module(text)


def test_hand_written_count_dim_slices():
    """Any entry may count a dim past 0: run() cuts that dim, contiguous."""
    text = """func.func @main(%x: tensor<2x4x3xf32>, %n: tensor<i64>) -> (tensor<2x4x3xf32> {dlc.count = 1 : i64, dlc.count_dim = 1 : i64}, tensor<i64>) {
  return %x, %n : tensor<2x4x3xf32>, tensor<i64>
}"""
    m = dlc.Module(text)
    assert m.outputs == [((2, None, 3), np.dtype(np.float32))]
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    out = m.run(x, np.array(2, np.int64))
    assert len(out) == 1 and np.array_equal(out[0], x[:, :2]) and out[0].flags.c_contiguous


def test_aot_refused(tmp_path):
    m = nonzero_module((4,), "float32")
    with pytest.raises(CompileError, match="known only at run time"):
        m.save(str(tmp_path))


# --- the ONNX importer -------------------------------------------------------

F = TensorProto.FLOAT


def model(nodes, outputs, shape=(3, 4), opset=13, inits=()):
    """x [shape] float; `half` = 0.5; `nodes` after m = x > half."""
    g = helper.make_graph(
        [helper.make_node("Greater", ["x", "half"], ["m"]), *nodes], "g",
        [helper.make_tensor_value_info("x", F, list(shape))],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        [helper.make_tensor("half", F, [], [0.5]), *inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def i64(name, values):
    v = np.asarray(values, np.int64)
    return helper.make_tensor(name, TensorProto.INT64, list(v.shape), v.reshape(-1).tolist())


@pytest.mark.parametrize("opset", [9, 13])
def test_onnx_computed_mask(opset):
    """NonZero of a mask the model computes: a run-time op, not an error,
    and no per-value specialisation (one compile serves every input)."""
    m = dlc.compile(model([helper.make_node("NonZero", ["m"], ["nz"])], ["nz"], opset=opset))
    rng = np.random.default_rng(opset)
    for _ in range(3):
        x = rng.random((3, 4), dtype=np.float32)
        assert np.array_equal(m(x), np.array(np.nonzero(x > 0.5)))
    assert m(np.zeros((3, 4), np.float32)).shape == (2, 0)


def test_onnx_graph_input():
    """NonZero of a graph input runs at run time too (it was specialised
    on the input's values before)."""
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.INT32, [5])],
                          [helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    m = dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    for x in ([0, 3, 0, -1, 2], [0] * 5, [1] * 5):
        x = np.array(x, np.int32)
        assert np.array_equal(m(x), np.array(np.nonzero(x)))


def test_onnx_boolean_index_export():
    """torch's x[mask] and torch.nonzero: NonZero, Transpose (the count
    moves to dim 0), GatherND; Gather of one coordinate row, Squeeze and
    Unsqueeze around it, Cast: every output cut to the count."""
    nodes = [helper.make_node("NonZero", ["m"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["t"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "t"], ["v"]),
             helper.make_node("Gather", ["nz", "one"], ["cols"], axis=0),
             helper.make_node("Unsqueeze", ["cols", "zero"], ["cols2"]),
             helper.make_node("Squeeze", ["cols2", "zero"], ["cols3"]),
             helper.make_node("Cast", ["cols3"], ["cols32"], to=TensorProto.INT32),
             helper.make_node("Gather", ["x", "cols3"], ["xc"], axis=1)]
    m = dlc.compile(model(nodes, ["v", "t", "cols32", "xc"],
                          inits=[i64("one", 1), i64("zero", [0])]))
    x = np.random.default_rng(5).random((3, 4), dtype=np.float32)
    v, t, cols, xc = m(x)
    mask = x > 0.5
    assert np.array_equal(v, x[mask]) and np.array_equal(t, np.argwhere(mask))
    assert np.array_equal(cols, np.nonzero(mask)[1].astype(np.int32))
    assert np.array_equal(xc, x[:, np.nonzero(mask)[1]])


def test_onnx_constant_folded_and_empty():
    """A constant input folds (no run-time op); an all-zero constant gives
    [rank, 0] through the run-time op (the folder alone refused it)."""
    for values, want in (([[0, 1], [2, 0]], [[0, 1], [1, 0]]), ([[0, 0], [0, 0]], None)):
        c = helper.make_tensor("c", TensorProto.INT64, [2, 2], np.reshape(values, -1).tolist())
        g = helper.make_graph([helper.make_node("NonZero", ["c"], ["nz"])], "g", [],
                              [helper.make_tensor_value_info("nz", TensorProto.INT64, None)], [c])
        mod = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        out = dlc.compile(mod)()
        assert out.shape == ((2, 0) if want is None else (2, 2))
        if want is not None:
            assert out.tolist() == want


@pytest.mark.parametrize("node,why", [
    (helper.make_node("ReduceMax", ["nz"], ["bad"]), "not into ReduceMax"),
    (helper.make_node("Add", ["nz", "nz"], ["bad"]), "not into Add"),
    (helper.make_node("Gather", ["nz", "one"], ["bad"], axis=1), "not into Gather"),
    (helper.make_node("Squeeze", ["nz", "one1"], ["bad"]), "not into Squeeze"),
    (helper.make_node("Shape", ["nz"], ["bad"]), "not into Shape"),
])
def test_onnx_consumers_needing_the_count_refused(node, why):
    """A consumer that needs the exact count inside the graph (or would
    read the padding) is a named error, never a wrong answer."""
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=f"node 'bad' \\({node.op_type}, opset 13\\): input 'nz' has a "
                             "number of entries along dim 1 known only at run time \\(indices "
                             f"from NonMaxSuppression or NonZero, padded\\).*{why}"):
        dlc.compile(model([helper.make_node("NonZero", ["m"], ["nz"]), node], ["bad"],
                          inits=[i64("one", 1), i64("one1", [1])]))


def test_onnx_scalar_refused():
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"], name="nz0")], "g",
                          [helper.make_tensor_value_info("x", F, [])],
                          [helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"'nz0' \(NonZero.*a 0-d input"):
        dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
