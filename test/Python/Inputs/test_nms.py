"""dlg.non_max_suppression end to end: the JIT's loops and the constant
folder's C kernel against dlc.onnx's NumPy reference (_nms, onnxruntime's
semantics) on random cases; dlc.Module's slicing of padded results
(dlc.count); the ONNX importer's run-time NonMaxSuppression, the ops that
keep its rows, and the named errors for everything else."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402
from dlc.errors import CompileError  # noqa: E402


def reference(boxes, scores, k, iou, score=None, center=0):
    c = [boxes, scores, np.array([k], np.int64), np.array([iou], np.float32)]
    if score is not None:
        c.append(np.array([score], np.float32))
    out = dlc.onnx._nms(None, None, c, {"center_point_box": center})
    return np.zeros((0, 3), np.int64) if out is None else out


def random_case(rng, b, c, n, center):
    """Boxes clustered so that many overlap; some corners flipped, some of
    zero area, some repeated; scores on a grid of 1/16 so that ties occur."""
    if center:
        xy = rng.random((b, n, 2), dtype=np.float32) * 4
        wh = rng.random((b, n, 2), dtype=np.float32) * 3
        wh[:, ::7] = 0  # zero area
        boxes = np.concatenate([xy, wh], -1)
    else:
        lo = rng.random((b, n, 2), dtype=np.float32) * 4
        hi = lo + rng.random((b, n, 2), dtype=np.float32) * 3
        hi[:, ::7, 0] = lo[:, ::7, 0]  # zero area
        boxes = np.concatenate([lo, hi], -1)
        flip = rng.random((b, n)) < 0.3  # [y2, x2, y1, x1]: the same box
        boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    boxes[:, 5::9] = boxes[:, 4::9][:, :boxes[:, 5::9].shape[1]]  # repeats
    scores = np.floor(rng.random((b, c, n), dtype=np.float32) * 16) / 16
    return boxes.astype(np.float32), scores.astype(np.float32)


def graph_module(shape_b, shape_s, **attrs):
    g = dlc.Graph("nms")
    sel, n = g.non_max_suppression(g.input(shape_b), g.input(shape_s), **attrs)
    g.output(sel, n, counts={0: 1})
    return dlc.Module(g.mlir())


def folded_module(boxes, scores, **attrs):
    """The same op on constants: folded by the C reference kernel."""
    g = dlc.Graph("folded")
    sel, cnt = g.non_max_suppression(g.constant(boxes), g.constant(scores), **attrs)
    g.output(sel, cnt, counts={0: 1})
    m = dlc.Module(g.mlir())
    assert "non_max_suppression" not in m.ir("dlg")
    return m


def run_both(boxes, scores, **attrs):
    """The rows the JIT's loops give and the rows the folder gives, checked
    equal (both sort the candidates once)."""
    got = graph_module(boxes.shape, scores.shape, **attrs)(boxes, scores)
    folded = folded_module(boxes, scores, **attrs)()
    assert np.array_equal(got, folded), (got, folded)
    return got


CASES = [(seed, center, score) for seed in range(6) for center in (0, 1)
         for score in (None, 0.3)]


@pytest.mark.parametrize("seed,center,score", CASES)
def test_random_against_reference(seed, center, score):
    """JIT (inputs) and folding (constants) both give the reference's rows,
    in order, for several limits and thresholds on one compiled shape."""
    rng = np.random.default_rng(seed)
    b, c, n = 1 + seed % 2, 1 + seed % 3, 20 + 3 * seed
    for k, iou in ((3, 0.5), (n + 5, 0.2), (1 << 62, 0.0), (2, 1.0)):
        attrs = dict(max_output_boxes_per_class=k, iou_threshold=iou,
                     center_point_box=bool(center))
        if score is not None:
            attrs["score_threshold"] = score
        m = graph_module((b, n, 4), (b, c, n), **attrs)
        assert m.outputs == [((None, 3), np.dtype(np.int64))]
        for _ in range(2):  # one module, new data each run
            boxes, scores = random_case(rng, b, c, n, center)
            want = reference(boxes, scores, k, iou, score, center)
            got = m(boxes, scores)
            assert got.dtype == np.int64 and np.array_equal(got, want), (k, iou)
        g = dlc.Graph("folded")
        sel, cnt = g.non_max_suppression(g.constant(boxes), g.constant(scores), **attrs)
        g.output(sel, cnt, counts={0: 1})
        folded = dlc.Module(g.mlir())
        assert "non_max_suppression" not in folded.ir("dlg")
        assert np.array_equal(folded(), want), (k, iou)


def test_nan_scores_last():
    """A NaN score ranks below every number (NumPy's argsort, onnxruntime's
    order for the numbers), several NaNs in index order, and a threshold
    drops them; JIT and folder alike."""
    boxes = np.array([[[0, 0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 5], [0, 6, 1, 7],
                       [0, 8, 1, 9]]], np.float32)
    scores = np.array([[[np.nan, 0.5, np.nan, 0.7, np.nan]]], np.float32)
    assert run_both(boxes, scores, max_output_boxes_per_class=5,
                    iou_threshold=0.5)[:, 2].tolist() == [3, 1, 0, 2, 4]
    assert run_both(boxes, scores, max_output_boxes_per_class=5, iou_threshold=0.5,
                    score_threshold=0.0)[:, 2].tolist() == [3, 1]


def test_nothing_kept():
    """A zero limit pads to no rows at all; a threshold above every score
    keeps none of the rows: both come back as [0, 3]."""
    boxes, scores = random_case(np.random.default_rng(1), 1, 2, 8, 0)
    m = graph_module((1, 8, 4), (1, 2, 8), max_output_boxes_per_class=0)
    assert m(boxes, scores).shape == (0, 3)
    m = graph_module((1, 8, 4), (1, 2, 8), max_output_boxes_per_class=4, score_threshold=2.0)
    assert m(boxes, scores).shape == (0, 3)


def test_ties_keep_the_lower_index_first():
    """Equal scores are taken in index order (ONNX and onnxruntime: a stable
    descending sort), before and after a higher score and below a score
    threshold that drops some of the tied boxes. The boxes are disjoint, so
    every box is kept and the rows are exactly the sort order; a sort that
    is not stable or that breaks ties the other way changes them."""
    n = 11
    boxes = np.array([[[0, 2 * i, 1, 2 * i + 1] for i in range(n)]], np.float32)
    scores = np.array([[[0.5, 0.5, 0.9, 0.5, 0.2, 0.9, 0.5, 0.2, 0.5, 0.9, 0.2]]], np.float32)
    order = [2, 5, 9, 0, 1, 3, 6, 8, 4, 7, 10]
    assert run_both(boxes, scores, max_output_boxes_per_class=n,
                    iou_threshold=0.5)[:, 2].tolist() == order
    assert run_both(boxes, scores, max_output_boxes_per_class=4, iou_threshold=0.5,
                    score_threshold=0.3).tolist() == [[0, 0, i] for i in order[:4]]
    # strictly above: the 0.5 ties drop out
    assert run_both(boxes, scores, max_output_boxes_per_class=n, iou_threshold=0.5,
                    score_threshold=0.5)[:, 2].tolist() == [2, 5, 9]


def test_tied_overlapping_boxes():
    """Two equal boxes with equal scores: the lower index is kept and
    suppresses the other, whichever comes first in memory."""
    box = [0, 0, 2, 2]
    boxes = np.array([[box, [5, 5, 6, 6], box]], np.float32)
    scores = np.array([[[0.7, 0.1, 0.7], [0.1, 0.1, 0.1]]], np.float32)
    assert run_both(boxes, scores, max_output_boxes_per_class=3, iou_threshold=0.5).tolist() \
        == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1]]


@pytest.mark.parametrize("n", [1, 2, 3, 64, 65, 300, 1000])
def test_sizes_against_reference(n):
    """Sizes around the merge sort's powers of two, up to a thousand boxes
    with many tied scores, with and without a score threshold that drops
    about half the candidates: the JIT's loops and the folder's kernel."""
    rng = np.random.default_rng(n)
    boxes, scores = random_case(rng, 1, 2, n, 0)
    for score in (None, 0.5):
        attrs = dict(max_output_boxes_per_class=n, iou_threshold=0.3)
        if score is not None:
            attrs["score_threshold"] = score
        assert np.array_equal(run_both(boxes, scores, **attrs),
                              reference(boxes, scores, n, 0.3, score)), score


def test_out_refused():
    m = graph_module((1, 4, 4), (1, 1, 4), max_output_boxes_per_class=2)
    with pytest.raises(ValueError, match="out= cannot take a result whose size is known only"):
        m.run(np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32),
              out=[np.empty((2, 3), np.int64)])


BAD_COUNTS = [
    ("{dlc.count = 0 : i64}", "result 0: dlc.count = 0 names no other result"),
    ("{dlc.count = 5 : i64}", "result 0: dlc.count = 5 names no other result"),
    ("{dlc.count = 1.0 : f32}", "result 0: dlc.count must be an integer"),
]


@pytest.mark.parametrize("attr,why", BAD_COUNTS)
def test_bad_count_attribute(attr, why):
    text = f"""func.func @main(%x: tensor<4xi64>, %n: tensor<i64>) -> (tensor<4xi64> {attr}, tensor<i64>) {{
  return %x, %n : tensor<4xi64>, tensor<i64>
}}"""
    with pytest.raises(CompileError, match=why):
        dlc.Module(text)


def test_count_must_be_i64_scalar():
    text = """func.func @main(%x: tensor<4xi64>, %n: tensor<1xi64>) -> (tensor<4xi64> {dlc.count = 1 : i64}, tensor<1xi64>) {
  return %x, %n : tensor<4xi64>, tensor<1xi64>
}"""
    with pytest.raises(CompileError, match="names a result that is not a 0-d i64 tensor"):
        dlc.Module(text)


def test_hand_written_count_slices():
    """Any entry may mark a padded result: run() slices it, drops the count."""
    text = """func.func @main(%x: tensor<4x2xf32>, %n: tensor<i64>) -> (tensor<4x2xf32> {dlc.count = 1 : i64}, tensor<i64>) {
  return %x, %n : tensor<4x2xf32>, tensor<i64>
}"""
    m = dlc.Module(text)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = m.run(x, np.array(3, np.int64))
    assert len(out) == 1 and np.array_equal(out[0], x[:3])


def test_aot_refused(tmp_path):
    m = graph_module((1, 4, 4), (1, 1, 4), max_output_boxes_per_class=2)
    with pytest.raises(CompileError, match="a number of rows known only at run time"):
        m.save(str(tmp_path))


# --- the ONNX importer -------------------------------------------------------

def nms_model(b, c, n, extra_nodes=(), outputs=("sel",), k=3, iou=0.4, score=None, center=0,
              opset=13):
    """boxes and scores computed from the inputs (x + 0, y * 1), then
    NonMaxSuppression with constant limits, then `extra_nodes`."""
    inits = [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
             helper.make_tensor("k", TensorProto.INT64, [1], [k]),
             helper.make_tensor("iou", TensorProto.FLOAT, [1], [iou])]
    ins = ["boxes", "scores", "k", "iou"]
    if score is not None:
        inits.append(helper.make_tensor("thr", TensorProto.FLOAT, [1], [score]))
        ins.append("thr")
    nodes = [helper.make_node("Add", ["x", "zero"], ["boxes"]),
             helper.make_node("Mul", ["y", "one"], ["scores"]),
             helper.make_node("NonMaxSuppression", ins, ["sel"], center_point_box=center),
             *extra_nodes]
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b, n, 4]),
                     helper.make_tensor_value_info("y", TensorProto.FLOAT, [b, c, n])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("center,score", [(0, None), (1, 0.25)])
def test_onnx_computed_boxes(center, score):
    """One compiled module (no specialisation on the data) matches the
    reference on new boxes every run."""
    m = dlc.compile(nms_model(2, 3, 12, k=4, center=center, score=score))
    assert isinstance(m, dlc.Module)
    rng = np.random.default_rng(7)
    for _ in range(3):
        boxes, scores = random_case(rng, 2, 3, 12, center)
        want = reference(boxes, scores, 4, 0.4, score, center)
        assert np.array_equal(m(boxes, scores), want)


def test_onnx_rows_kept_through_gather_and_squeeze():
    """torchvision's export: Gather(sel, [2], axis=1) then Squeeze(axis 1);
    then the kept boxes' rows, Gather(boxes[0], idx, axis=0), and a Cast."""
    extra = [helper.make_node("Constant", [], ["two"],
                              value=helper.make_tensor("v", TensorProto.INT64, [1], [2])),
             helper.make_node("Gather", ["sel", "two"], ["col"], axis=1),
             helper.make_node("Constant", [], ["ax1"],
                              value=helper.make_tensor("a", TensorProto.INT64, [1], [1])),
             helper.make_node("Squeeze", ["col", "ax1"], ["idx"]),
             helper.make_node("Constant", [], ["zero_i"],
                              value=helper.make_tensor("z", TensorProto.INT64, [], [0])),
             helper.make_node("Gather", ["boxes", "zero_i"], ["boxes0"], axis=0),
             helper.make_node("Gather", ["boxes0", "idx"], ["kept"], axis=0),
             helper.make_node("Cast", ["idx"], ["idx32"], to=TensorProto.INT32)]
    m = dlc.compile(nms_model(1, 2, 16, extra, outputs=("sel", "idx", "kept", "idx32"), k=5))
    boxes, scores = random_case(np.random.default_rng(3), 1, 2, 16, 0)
    want = reference(boxes, scores, 5, 0.4)
    sel, idx, kept, idx32 = m(boxes, scores)
    assert np.array_equal(sel, want)
    assert np.array_equal(idx, want[:, 2]) and np.array_equal(idx32, want[:, 2].astype(np.int32))
    assert np.array_equal(kept, boxes[0][want[:, 2]])


@pytest.mark.parametrize("node,why", [
    (helper.make_node("Add", ["sel", "sel"], ["bad"]), "not into Add"),
    (helper.make_node("ReduceMax", ["sel"], ["bad"]), "not into ReduceMax"),
    (helper.make_node("Gather", ["sel", "k"], ["bad"], axis=0), "not into Gather"),
    (helper.make_node("Squeeze", ["sel"], ["bad"]), "not into Squeeze"),
])
def test_onnx_other_consumers_refused(node, why):
    """Padding rows would reach the result: a named error, never a wrong answer."""
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match=f"input 'sel' has a number of rows known only at run time.*{why}"):
        dlc.compile(nms_model(1, 1, 6, [node], outputs=("bad",)))


def test_onnx_bad_attributes():
    with pytest.raises(dlc.onnx.UnsupportedError, match="center_point_box must be 0 or 1, got 2"):
        dlc.compile(nms_model(1, 1, 6, center=2))
    with pytest.raises(dlc.onnx.UnsupportedError, match=r"iou_threshold 1.5 is outside \[0, 1\]"):
        dlc.compile(nms_model(1, 1, 6, iou=1.5))


def test_onnx_computed_limit_refused():
    """A limit computed from tensors at run time is named (a constant, or a
    graph input dlc specialises on, is needed)."""
    model = nms_model(1, 1, 6)
    g = model.graph
    g.node.insert(0, helper.make_node("ReduceMax", ["x"], ["xm"], keepdims=0))
    g.node.insert(1, helper.make_node("Cast", ["xm"], ["k"], to=TensorProto.INT64))
    del g.initializer[2]  # k
    with pytest.raises(dlc.onnx.UnsupportedError,
                       match="max_output_boxes_per_class must be a constant"):
        dlc.compile(model)


def test_onnx_empty_constant_selection():
    """All-constant operands that select nothing: the run-time op (folded)
    returns [0, 3], where the folder alone had to refuse a zero-size constant."""
    boxes = helper.make_tensor("b", TensorProto.FLOAT, [1, 2, 4], [0, 0, 1, 1, 0, 0, 1, 1])
    scores = helper.make_tensor("s", TensorProto.FLOAT, [1, 1, 2], [0.1, 0.2])
    inits = [boxes, scores, helper.make_tensor("k", TensorProto.INT64, [1], [2]),
             helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.5]),
             helper.make_tensor("thr", TensorProto.FLOAT, [1], [0.9])]
    g = helper.make_graph([helper.make_node("NonMaxSuppression", ["b", "s", "k", "iou", "thr"],
                                            ["sel"])], "g", [],
                          [helper.make_tensor_value_info("sel", TensorProto.INT64, None)], inits)
    m = dlc.compile(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    assert m().shape == (0, 3)
