"""ONNX Loop at run time with scan outputs. A Loop whose condition depends
on tensor data is a dlg.while; each scan output is a buffer of M rows (the
trip count, known at import) whose row i the body replaces in place
(dlg.update_row), and the
loop's final iteration count cuts it (dlc.count), so the user sees ONNX's
[iterations, ...]. A static trip count without a data-dependent exit is
unrolled and has a static shape (checked here too). A trip count computed
from small graph inputs (ONNX's Range expansion) is specialised on their
values; no trip count, or one computed from other tensor data, leaves no
bound: a named error."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def body(limit_node="Less"):
    """y = y * 2 + i; scans: y, and i * i (i64); continue while sum(y) < 100."""
    return helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["y_in", "two"], ["y2"]),
         helper.make_node("Add", ["y2", "fi"], ["y_out"]),
         helper.make_node("ReduceSum", ["y_out"], ["y_sum"], keepdims=0),
         helper.make_node(limit_node, ["y_sum", "hundred"], ["c_out"]),
         helper.make_node("Identity", ["y_out"], ["s"]),
         helper.make_node("Mul", ["i", "i"], ["ii"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("y_in", F, [3])],
        [vi("c_out", B, []), vi("y_out", F, [3]), vi("s", F, [3]), vi("ii", I64, [])])


def loop_model(m_input=None, extra=(), outputs=("y_f", "ys", "iis"), cond="", trips=10,
               graph_inputs=(), name="grow"):
    inits = [numpy_helper.from_array(np.array(2, np.float32), "two"),
             numpy_helper.from_array(np.array(100, np.float32), "hundred")]
    if m_input is None:
        inits.append(numpy_helper.from_array(np.array(trips, np.int64), "M"))
    nodes = [helper.make_node("Loop", ["M" if m_input is None else m_input, cond, "y"], ["y_f", "ys", "iis"],
                              name=name, body=body()), *extra]
    g = helper.make_graph(nodes, "g", [vi("y", F, [3]), *graph_inputs],
                          [vi(o, TensorProto.UNDEFINED, None) for o in outputs], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def reference(y, trips):
    ys, iis = [], []
    for i in range(trips):
        y = y * 2 + i
        ys.append(y)
        iis.append(i * i)
        if not y.sum() < 100:
            break
    return y, np.stack(ys), np.array(iis, np.int64)


STARTS = [[0.1, 0.2, 0.3], [50, 60, 0], [-1e6, 0, 0], [1, 1, 1], [0, 0, 0]]


@pytest.mark.parametrize("trips", [1, 4, 10])
def test_early_exit_scan_outputs(trips):
    """One compiled loop: 1 to `trips` iterations as the data decide, each
    scan output cut to them (f32 rows and i64 scalars)."""
    m = dlc.compile(loop_model(trips=trips))
    assert m.outputs == [((3,), np.dtype(np.float32)), ((None, 3), np.dtype(np.float32)),
                         ((None,), np.dtype(np.int64))]
    # each trip writes its rows in place (dlg.update_row), no row select (equal(arange, i))
    dlg = m.ir("dlg")
    assert dlg.count("dlg.update_row") == 2 and "dlg.equal" not in dlg
    seen = set()
    for y0 in STARTS:
        y0 = np.array(y0, np.float32)
        y_f, ys, iis = m(y0)
        want = reference(y0, trips)
        np.testing.assert_allclose(y_f, want[0], rtol=1e-6)
        np.testing.assert_allclose(ys, want[1], rtol=1e-6)
        assert np.array_equal(iis, want[2])
        seen.add(len(iis))
    assert len(seen) > 1 or trips == 1  # the cut really varies


def test_runtime_initial_condition():
    """An initial condition computed from data: zero iterations give [0, 3]
    and [0] scan outputs, the carried value unchanged."""
    cond = [helper.make_node("ReduceSum", ["y"], ["s0"], keepdims=0),
            helper.make_node("Less", ["s0", "hundred"], ["c0"])]
    model = loop_model(cond="c0")
    model.graph.node.insert(0, cond[1])
    model.graph.node.insert(0, cond[0])
    m = dlc.compile(model)
    y_f, ys, iis = m(np.array([200, 0, 0], np.float32))
    assert ys.shape == (0, 3) and iis.shape == (0,) and y_f.tolist() == [200, 0, 0]
    y0 = np.array([1, 2, 3], np.float32)
    want = reference(y0, 10)
    y_f, ys, iis = m(y0)
    np.testing.assert_allclose(ys, want[1], rtol=1e-6)


def test_trip_count_graph_input():
    """M a graph input: dlc specialises on its value (one compile per M),
    the data still decide the exit."""
    m = dlc.compile(loop_model(m_input="M", graph_inputs=[vi("M", I64, [])]))
    for trips in (2, 7):
        y0 = np.array([0.5, 0.5, 0.5], np.float32)
        y_f, ys, iis = m(y0, np.array(trips, np.int64))
        want = reference(y0, trips)
        np.testing.assert_allclose(ys, want[1], rtol=1e-6)
        assert np.array_equal(iis, want[2])


def test_static_trip_count_without_exit_is_static():
    """A cond output that depends only on i (here always true): the loop is
    unrolled at import and its scan outputs have a static shape."""
    b = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Add", ["y_in", "y_in"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["s"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("y_in", F, [3])],
        [vi("c_out", B, []), vi("y_out", F, [3]), vi("s", F, [3])])
    g = helper.make_graph([helper.make_node("Loop", ["M", "", "y"], ["y_f", "ys"], body=b)],
                          "g", [vi("y", F, [3])], [vi("y_f", F, None), vi("ys", F, None)],
                          [numpy_helper.from_array(np.array(4, np.int64), "M")])
    m = dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    assert m.outputs == [((3,), np.dtype(np.float32)), ((4, 3), np.dtype(np.float32))]
    y0 = np.array([1, 2, 3], np.float32)
    assert np.array_equal(m(y0)[1], np.stack([y0 * 2, y0 * 4, y0 * 8, y0 * 16]))


def test_scan_output_through_row_keeping_ops():
    """The count follows the scan output through Transpose and Gather of a
    column; the count reaches each graph output."""
    extra = [helper.make_node("Transpose", ["ys"], ["yt"], perm=[1, 0]),
             helper.make_node("Gather", ["ys", "one"], ["col"], axis=1)]
    model = loop_model(extra=extra, outputs=("yt", "col"))
    model.graph.initializer.append(numpy_helper.from_array(np.array(1, np.int64), "one"))
    m = dlc.compile(model)
    y0 = np.array([0.1, 0.2, 0.3], np.float32)
    yt, col = m(y0)
    want = reference(y0, 10)[1]
    np.testing.assert_allclose(yt, want.T, rtol=1e-6)
    np.testing.assert_allclose(col, want[:, 1], rtol=1e-6)


def test_consumer_needing_the_count_refused():
    """A reduction over the scan output would read the padding rows: a named
    error (node, op, input), never a wrong answer."""
    model = loop_model(extra=[helper.make_node("ReduceSum", ["ys"], ["total"], name="tot")],
                       outputs=("total",))
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"'tot' \(ReduceSum, opset 13\): input 'ys' has a number of rows "
                             "known only at run time.*not into ReduceSum"):
        dlc.compile(model)


def test_no_trip_count_refused():
    """No trip count and a data-dependent condition: the scan outputs have
    no bound to pad to, a named error."""
    cond = [helper.make_node("ReduceSum", ["y"], ["s0"], keepdims=0),
            helper.make_node("Less", ["s0", "hundred"], ["c0"])]
    model = loop_model(m_input="", cond="c0")
    model.graph.node.insert(0, cond[1])
    model.graph.node.insert(0, cond[0])
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"'grow' \(Loop, opset 13\): 2 scan output\(s\) of a Loop with no "
                             "trip count M whose condition is decided at run time"):
        dlc.compile(model)


def test_computed_trip_count_refused():
    """A trip count computed from tensor data beyond the small inputs dlc
    specialises on (a sum of 32 floats): no bound at import, named."""
    model = loop_model(m_input="Mc", graph_inputs=[vi("n", F, [32])])
    model.graph.node.insert(0, helper.make_node("Cast", ["nsum"], ["Mc"], to=I64))
    model.graph.node.insert(0, helper.make_node("ReduceSum", ["n"], ["nsum"], keepdims=0))
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=r"'grow' \(Loop, opset 13\): the trip count M of a Loop with scan "
                             "outputs is computed from tensor data at run time: the scan "
                             "outputs need a length bound known at compile time"):
        dlc.compile(model)


def test_computed_trip_count_from_small_inputs_specialised():
    """A trip count computed from a float scalar input (Cast(Floor(n))):
    dlc specialises on n's value, as on Range's operands, so the scan
    outputs have M rows (cut by the data-dependent exit)."""
    model = loop_model(m_input="Mc", graph_inputs=[vi("n", F, [])])
    model.graph.node.insert(0, helper.make_node("Cast", ["nf"], ["Mc"], to=I64))
    model.graph.node.insert(0, helper.make_node("Floor", ["n"], ["nf"]))
    m = dlc.compile(model)
    for n in (2.5, 7.0, 1.0, 7.9):
        y0 = np.array([0.5, 0.5, 0.5], np.float32)
        y_f, ys, iis = m(y0, np.array(n, np.float32))
        want = reference(y0, int(n))
        np.testing.assert_allclose(y_f, want[0], rtol=1e-6)
        np.testing.assert_allclose(ys, want[1], rtol=1e-6)
        assert np.array_equal(iis, want[2])


def range_expanded(dtype):
    """ONNX's Range function body (onnx/defs/generator/defs.cc): the trip
    count ceil((limit - start) / delta), clamped at 0, computed from the
    three scalar inputs; the Loop's scan output is the range."""
    t = {np.float32: F, np.int32: TensorProto.INT32, np.int64: I64}[dtype]
    b = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Add", ["prev", "delta"], ["current"]),
         helper.make_node("Identity", ["prev"], ["range"])],
        "body", [vi("i", I64, []), vi("cond", B, []), vi("prev", t, [])],
        [vi("cond_out", B, []), vi("current", t, []), vi("range", t, [])])
    nodes = [helper.make_node("Sub", ["limit", "start"], ["d"]),
             helper.make_node("Cast", ["d"], ["df"], to=F),
             helper.make_node("Cast", ["delta"], ["deltaf"], to=F),
             helper.make_node("Div", ["df", "deltaf"], ["q"]),
             helper.make_node("Ceil", ["q"], ["qc"]),
             helper.make_node("Relu", ["qc"], ["qr"]),
             helper.make_node("Cast", ["qr"], ["M"], to=I64),
             helper.make_node("Cast", ["qr"], ["go"], to=B),
             helper.make_node("Loop", ["M", "go", "start"], ["last", "out"], body=b)]
    g = helper.make_graph(nodes, "range", [vi(n, t, []) for n in ("start", "limit", "delta")],
                          [vi("out", t, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_range_expanded(dtype):
    """Range's expansion: one model, several (start, limit, delta), each a
    specialisation, against np.arange; an empty range is a named error
    (zero-size tensors)."""
    m = dlc.compile(range_expanded(dtype))
    for start, limit, delta in ((1, 5, 2), (10, 6, -3), (0, 17, 1), (-4, 4, 3), (3, 4, 5)):
        args = [np.array(v, dtype) for v in (start, limit, delta)]
        got = m(*args)
        want = np.arange(*args, dtype=dtype)
        assert got.dtype == want.dtype and np.array_equal(got, want), (start, limit, delta)
    if dtype == np.float32:
        got = m(*[np.array(v, dtype) for v in (0.5, 2.0, 0.25)])
        np.testing.assert_array_equal(got, np.arange(0.5, 2.0, 0.25, dtype=np.float32))
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"zero iterations: empty scan outputs"):
        m(*[np.array(v, dtype) for v in (5, 1, 1)])


def test_scan_output_leaving_a_branch_refused():
    """A counted scan output may not leave an If branch (its size would be
    the branch's): named."""
    inner = loop_model()
    then_g = helper.make_graph(list(inner.graph.node), "then", [], [vi("ys", F, None)],
                               list(inner.graph.initializer))
    else_g = helper.make_graph([helper.make_node("Constant", [], ["z"],
                                                 value=numpy_helper.from_array(
                                                     np.zeros((1, 3), np.float32)))],
                               "else", [], [vi("z", F, None)])
    g = helper.make_graph([helper.make_node("ReduceSum", ["y"], ["s0"], keepdims=0),
                           helper.make_node("Less", ["s0", "h"], ["c"]),
                           helper.make_node("If", ["c"], ["out"], then_branch=then_g,
                                            else_branch=else_g)],
                          "g", [vi("y", F, [3])], [vi("out", F, None)],
                          [numpy_helper.from_array(np.array(100, np.float32), "h")])
    with pytest.raises(dlc.onnx.UnsupportedError, match="may not leave an If, Loop or Scan body"):
        dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
