"""Hostile input through the Python API (issue 17): malformed ONNX graphs and
bad options raise dlc.CompileError / ValueError naming what is wrong, two
threads calling one model get the single-threaded results bit for bit, and
a seeded mutation fuzzer over small exported models finds no other
exception type."""

import io
import os
import random
import threading

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402
from dlc import onnx_check  # noqa: E402

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "..")
MLP = os.path.join(SRC, "examples", "mlp_block.mlir")


def _vi(name, shape=(2, 3)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _model(nodes, inputs=("x",), outputs=("y",), opset=13, inits=()):
    g = helper.make_graph(nodes, "g", [_vi(i) for i in inputs], [_vi(o) for o in outputs],
                          initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _raises(model, *fragments):
    with pytest.raises(dlc.CompileError) as e:
        dlc.onnx.import_model(model)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return str(e.value)


# --- malformed graphs -------------------------------------------------------

def test_cycle():
    m = _model([helper.make_node("Relu", ["x", ], ["a"], name="r0"),
                helper.make_node("Add", ["a", "c"], ["b"], name="add"),
                helper.make_node("Relu", ["b"], ["c"], name="r1"),
                helper.make_node("Relu", ["c"], ["y"], name="r2")])
    _raises(m, "ONNX node 'add' (Add)", "input 'c'", "cycle")


def test_self_cycle():
    m = _model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")])
    _raises(m, "ONNX node 'loop' (Add)", "input 'y' is its own output")


def test_input_nobody_produces():
    m = _model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")])
    _raises(m, "ONNX node 'add' (Add)", "input 'ghost' is produced by no node")


def test_missing_graph_output():
    m = _model([helper.make_node("Relu", ["x"], ["a"], name="r")], outputs=("y",))
    _raises(m, "graph output 'y' is produced by no node")


def test_duplicate_producer():
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r0"),
                helper.make_node("Neg", ["x"], ["y"], name="r1")])
    _raises(m, "ONNX node 'r1' (Neg)", "output 'y' is also produced by", "'r0'")


def test_out_of_order_is_sorted():
    """Acyclic but out of order: sorted (stably), imported and run right."""
    nodes = [helper.make_node("Neg", ["a"], ["y"], name="last"),
             helper.make_node("Relu", ["x"], ["a"], name="first")]
    m = _model(nodes)
    checked = onnx_check.check(m)
    assert [n.name for n in checked.graph.node] == ["first", "last"]
    assert [n.name for n in m.graph.node] == ["last", "first"]  # the caller's model is kept
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(dlc.compile(m)(x), -np.maximum(x, 0))


def test_in_order_untouched():
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r")])
    assert onnx_check.check(m) is m


def test_non_utf8_op_type():
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r")])
    bad = onnx.load_from_string(m.SerializeToString().replace(b"Relu", b"R\xfflu"))
    _raises(bad, "ONNX node 'r'", "op_type b'R\\xfflu' is not valid UTF-8")


def test_non_utf8_input_name():
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r")], inputs=("x",))
    data = m.SerializeToString().replace(b"\n\x01x", b"\n\x01\xff")  # graph input 'x'
    _raises(onnx.load_from_string(data), "not valid UTF-8")


@pytest.mark.parametrize("opset", [18, 99])
def test_opset_outside_range(opset):
    m = _model([helper.make_node("Relu", ["x"], ["y"])], opset=opset)
    with pytest.raises(dlc.onnx.UnsupportedOpsetError) as e:
        dlc.onnx.import_model(m)
    assert f"ONNX opset {opset} is outside dlc's native range 7-17" in str(e.value), str(e.value)


@pytest.mark.parametrize("opset", [1, 6, 10])
def test_old_opset_converted(opset):
    # Older than the importer's native range: onnx.version_converter brings it
    # up, and the answer is right (not merely accepted).
    m = _model([helper.make_node("Relu", ["x"], ["y"])], opset=opset)
    x = np.array([[-1.0, 2.0, 0.5], [3.0, -4.0, -0.0]], np.float32)
    np.testing.assert_array_equal(dlc.compile(m)(x), np.maximum(x, 0))


def test_no_default_opset():
    m = _model([helper.make_node("Relu", ["x"], ["y"])])
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    _raises(m, "declares no opset for the default domain")


def test_checker_message():
    """What our structural checks pass but onnx.checker rejects: named."""
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r", bogus=3)])
    _raises(m, "the ONNX model is invalid (onnx.checker)", "bogus")


def test_initializer_data_size():
    """Found by the mutation fuzzer: dims that disagree with the data raised
    NumPy's ValueError from numpy_helper."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.eye(3, dtype=np.float32).ravel())
    w.dims[0] = 2
    m = _model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], inits=[w])
    _raises(m, "ONNX initializer 'w': dims [2, 3] need 6 values of data, it holds 9")


def _tensor(name, code, dims, **fields):
    """A TensorProto as a file may hold it: helper.make_tensor checks sizes."""
    t = TensorProto(name=name, data_type=code, dims=dims)
    for field, values in fields.items():
        if field == "raw_data":
            t.raw_data = values
        else:
            getattr(t, field).extend(values)
    return t


@pytest.mark.parametrize("tensor, message", [
    # an INT64 initializer retyped INT16 (found by a mutation campaign:
    # numpy_helper raised NumPy's ValueError)
    (_tensor("w", TensorProto.INT16, [2], int64_data=[1, 2]),
     "ONNX initializer 'w': dims [2] need 2 values of data, it holds 0"),
    (_tensor("w", TensorProto.INT16, [3], raw_data=b"\0" * 4),
     "ONNX initializer 'w': dims [3] need 6 bytes of data, it holds 4"),
    (_tensor("w", TensorProto.BFLOAT16, [2, 2], raw_data=b"\0" * 4),
     "ONNX initializer 'w': dims [2, 2] need 8 bytes of data, it holds 4"),
    # a complex number is two values of float_data
    (_tensor("w", TensorProto.COMPLEX64, [2], float_data=[1.0, 2.0]),
     "ONNX initializer 'w': dims [2] need 4 values of data, it holds 2"),
    (_tensor("w", TensorProto.STRING, [2], string_data=[b"a"]),
     "ONNX initializer 'w': dims [2] need 2 strings of data, it holds 1"),
    # a code ONNX 1.12 does not define (numpy_helper: KeyError)
    (_tensor("w", 17, [1], raw_data=b"\0"),
     "ONNX initializer 'w': element type code 17 is not an ONNX tensor type"),
])
def test_initializer_types_checked(tensor, message):
    m = _model([helper.make_node("Identity", ["x"], ["y"], name="id")], inits=[tensor])
    _raises(m, message)


def test_subgraph_and_attribute_tensors_checked():
    """A subgraph's initializers and a Constant's value are read with
    numpy_helper too: checked the same way, named by their node."""
    bad = _tensor("c", TensorProto.INT16, [3], raw_data=b"\0" * 4)
    m = _model([helper.make_node("Constant", [], ["k"], name="konst", value=bad),
                helper.make_node("Add", ["x", "k"], ["y"], name="add")])
    _raises(m, "ONNX node 'konst' (Constant): attribute 'value': dims [3] need 6 bytes")
    branch = helper.make_graph([helper.make_node("Identity", ["c"], ["o"])], "b", [],
                               [_vi("o", (3,))], initializer=[bad])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    m = _model([helper.make_node("If", ["cond"], ["y"], name="branchy", then_branch=branch,
                                 else_branch=branch)], inits=[cond])
    _raises(m, "ONNX initializer 'c' (in the subgraph of ONNX node 'branchy' (If)): "
               "dims [3] need 6 bytes")


def test_negative_input_dim():
    """A graph input declaring dim -2 was imported as a static size of -2."""
    x = _vi("x")
    x.type.tensor_type.shape.dim[0].dim_value = -2
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [_vi("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    _raises(m, "ONNX graph input 'x': negative dim -2 in its shape")


def test_node_error_named():
    """Found by the mutation fuzzer: a constant Reshape to an impossible
    shape raised NumPy's ValueError; now a CompileError naming the node."""
    shape = helper.make_tensor("s", TensorProto.INT64, [1], [7])
    c = helper.make_tensor("c", TensorProto.FLOAT, [2, 3], np.zeros(6, np.float32))
    m = _model([helper.make_node("Reshape", ["c", "s"], ["r"], name="bad_reshape"),
                helper.make_node("Add", ["x", "r"], ["y"], name="add")], inits=[shape, c])
    _raises(m, "ONNX node 'bad_reshape' (Reshape)")


# --- options ----------------------------------------------------------------

def test_bad_target():
    with pytest.raises(ValueError, match="unknown target 'nonsense-arch'; one of host, avx2, avx512"):
        dlc.compile(MLP, target="nonsense-arch")


@pytest.mark.parametrize("threads", [-5, 1.5, "2", True])
def test_bad_threads(threads):
    with pytest.raises(ValueError, match="threads must be None, 0"):
        dlc.compile(MLP, threads=threads)


def test_good_options():
    dlc.compile(MLP, threads=1, target="avx2")


# --- threads ----------------------------------------------------------------

def _mlp_inputs(m, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape, dtype in m.inputs]


def test_two_threads_one_model_bit_identical():
    m = dlc.compile(MLP)
    sets = [_mlp_inputs(m, s) for s in range(4)]
    ref = [m(*xs) for xs in sets]
    assert not np.array_equal(ref[0], ref[1])
    bad = []

    def work(tid):
        for c in range(200):
            k = (c + tid) % len(sets)
            if not np.array_equal(m(*sets[k]), ref[k]):
                bad.append((tid, c))

    ts = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert bad == [], f"{len(bad)} of 400 calls differ"


def test_two_models_compile_at_once():
    xs = None
    results, errors = [None, None], []

    def work(i):
        try:
            m = dlc.compile(MLP)
            results[i] = m(*xs)
        except Exception as e:  # reported below
            errors.append(e)

    ref_model = dlc.compile(MLP)
    xs = _mlp_inputs(ref_model, 7)
    ref = ref_model(*xs)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for r in results:
        np.testing.assert_array_equal(r, ref)


# --- mutation fuzzing of ONNX models ------------------------------------------

def _seed_models():
    """Small models as PyTorch exports them when torch is there, else built
    with onnx.helper (same op mix)."""
    models = []
    try:
        import torch
        F = torch.nn.functional

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
                self.fc = torch.nn.Linear(4 * 4 * 4, 5)

            def forward(self, x):
                y = F.max_pool2d(F.relu(self.conv(x)), 2)
                return F.softmax(self.fc(y.reshape(y.shape[0], -1)), -1)

        class Mlp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Linear(8, 16)
                self.n = torch.nn.LayerNorm(16)

            def forward(self, x):
                h = self.n(F.gelu(self.a(x)))
                return (h.transpose(0, 1) @ h).sum(-1, keepdim=True) + x.mean()

        torch.manual_seed(0)
        for mod, x in ((Block(), torch.randn(1, 3, 8, 8)), (Mlp(), torch.randn(2, 8))):
            f = io.BytesIO()
            torch.onnx.export(mod.eval(), (x,), f, opset_version=13)
            models.append(onnx.load_from_string(f.getvalue()))
    except ImportError:
        pass
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.eye(3, dtype=np.float32).ravel())
    models.append(_model([helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
                          helper.make_node("Relu", ["m"], ["y"], name="relu")],
                         inits=[w]))
    return models


_OPS = ["Relu", "Add", "MatMul", "Reshape", "Transpose", "Softmax", "Conv", "Gemm",
        "Concat", "Slice", "Gather", "Unsqueeze", "ReduceMean", "Cast", "Pad", "Nope"]


def _mutate(model, rng):
    m = type(model)()
    m.CopyFrom(model)
    g = m.graph
    names = [n for node in g.node for n in list(node.input) + list(node.output)] + ["", "zz"]
    kind = rng.randrange(11)
    nodes = g.node
    if kind == 0 and nodes:      # drop a node
        del nodes[rng.randrange(len(nodes))]
    elif kind == 1 and nodes:    # rewire an input
        n = nodes[rng.randrange(len(nodes))]
        if n.input:
            n.input[rng.randrange(len(n.input))] = rng.choice(names)
    elif kind == 2 and nodes:    # change the op type
        nodes[rng.randrange(len(nodes))].op_type = rng.choice(_OPS)
    elif kind == 3 and nodes:    # a random attribute value
        n = nodes[rng.randrange(len(nodes))]
        if n.attribute:
            a = n.attribute[rng.randrange(len(n.attribute))]
            v = rng.choice([0, -1, 1, 2, 3, 1 << 31, -(1 << 62), (1 << 63) - 1])
            if a.ints:
                a.ints[rng.randrange(len(a.ints))] = v
            else:
                a.i = v
    elif kind == 4 and nodes:    # shuffle the node order
        order = list(nodes)
        rng.shuffle(order)
        del nodes[:]
        nodes.extend(order)
    elif kind == 5:              # an input dim
        for vi in g.input:
            dims = vi.type.tensor_type.shape.dim
            if dims:
                dims[rng.randrange(len(dims))].dim_value = rng.choice([0, 1, 7, 1 << 40, -2])
    elif kind == 6 and g.initializer:  # reshape an initializer's declared dims
        t = g.initializer[rng.randrange(len(g.initializer))]
        if t.dims:
            t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, 2, 1 << 33])
    elif kind == 9 and g.initializer:  # an initializer's element type code
        t = g.initializer[rng.randrange(len(g.initializer))]
        t.data_type = rng.choice([0, 4, 5, 8, 12, 14, 15, 16, 17, 99])
    elif kind == 7:              # the opset
        m.opset_import[0].version = rng.choice([1, 9, 11, 13, 17, 18, 99])
    elif kind == 8 and nodes:    # drop or add an input
        n = nodes[rng.randrange(len(nodes))]
        if n.input and rng.random() < 0.5:
            del n.input[-1]
        else:
            n.input.append(rng.choice(names))
    else:                        # flip bytes of the serialised model
        data = bytearray(m.SerializeToString())
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            return onnx.load_from_string(bytes(data))
        except Exception:
            return None          # not a parsable proto: onnx's own error
    return m


def test_onnx_mutation_fuzz():
    """400 seeded mutants; each imports, or raises CompileError (or
    ValueError from NumPy-level shape folding is NOT accepted: only
    CompileError). A sample of the importable ones compiles and runs."""
    rng = random.Random(17)
    seeds = _seed_models()
    counts = {"imported": 0, "rejected": 0, "compiled": 0}
    for i in range(400):
        mutant = _mutate(seeds[i % len(seeds)], rng)
        if mutant is None:
            continue
        try:
            text = dlc.onnx.import_model(mutant)
        except dlc.CompileError:
            counts["rejected"] += 1
            continue
        except Exception as e:
            pytest.fail(f"mutant {i}: {type(e).__name__}: {e}")
        counts["imported"] += 1
        if counts["compiled"] < 8:
            try:
                mod = dlc.compile(text)
                mod(*[np.ones([d or 1 for d in shape], dtype) for shape, dtype in mod.inputs])
            except (dlc.CompileError, ValueError):
                pass
            counts["compiled"] += 1
    print("onnx mutation fuzz:", counts)
    assert counts["rejected"] > 50 and counts["imported"] > 20, counts


# --- empty dims ----------------------------------------------------------------

@pytest.mark.parametrize("sa, sb", [((4, 0), (0, 20)), ((3, 2, 0), (3, 0, 5)), ((0, 64), (64, 64)),
                                    ((128, 0), (0, 256))])
def test_matmul_empty_dims(sa, sb):
    """A contraction over K = 0 is its initial value (zeros, then the
    epilogue): found by an ONNX mutation campaign, the schedule's tiling
    crashed (SEGV in linalg::computeTileSizes) on the empty K loop."""
    out = np.matmul(np.zeros(sa, np.float32), np.zeros(sb, np.float32)).shape
    t = lambda s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    n = out[-1]
    src = f"""func.func @main(%a: {t(sa)}, %b: {t(sb)}, %c: {t((n,))}) -> {t(out)} {{
  %0 = dlg.matmul %a, %b : {t(sa)}, {t(sb)} -> {t(out)}
  %1 = dlg.add %0, %c : {t(out)}, {t((n,))} -> {t(out)}
  %2 = dlg.relu %1 : {t(out)}
  return %2 : {t(out)}
}}"""
    rng = np.random.default_rng(0)
    a, b = np.ones(sa, np.float32), np.ones(sb, np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    for threads in (1, 2):
        got = dlc.compile(src, threads=threads)(a, b, c)
        np.testing.assert_array_equal(got, np.maximum(np.matmul(a, b) + c, 0))


def test_onnx_gemm_empty_k():
    """The campaign's models: MatMul and Gemm (with C) whose inner dim is 0."""
    for op, extra in (("MatMul", {}), ("Gemm", {"beta": 2.0})):
        ins = ["x", "w"] + (["c"] if op == "Gemm" else [])
        inits = [helper.make_tensor("w", TensorProto.FLOAT, [0, 3], []),
                 helper.make_tensor("c", TensorProto.FLOAT, [3], [1.0, -2.0, 3.0])]
        g = helper.make_graph([helper.make_node(op, ins, ["y"], name="mm", **extra)], "g",
                              [_vi("x", (2, 0))], [_vi("y", (2, 3))],
                              initializer=inits[:len(ins) - 1])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        got = dlc.compile(m)(np.zeros((2, 0), np.float32))
        want = np.zeros((2, 3), np.float32) + (np.float32([2.0, -4.0, 6.0]) if op == "Gemm" else 0)
        np.testing.assert_array_equal(got, want)


# --- axes out of range ---------------------------------------------------------

def _i64(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


@pytest.mark.parametrize("node, inits, message", [
    # each used to wrap modulo the rank and import (found by an ONNX mutation
    # campaign): ArgMax axis=5 of a rank-2 input reduced axis 1
    (helper.make_node("ArgMax", ["x"], ["y"], name="n", axis=5), [],
     "ONNX node 'n' (ArgMax, opset 13): axis 5 is out of range for rank 2 (valid: -2 to 1)"),
    (helper.make_node("Slice", ["x", "s", "e", "a"], ["y"], name="n"),
     [_i64("s", [0]), _i64("e", [2]), _i64("a", [5])],
     "ONNX node 'n' (Slice, opset 13): axes entry 5 is out of range for rank 2"),
    (helper.make_node("Unsqueeze", ["x", "a"], ["y"], name="n"), [_i64("a", [9])],
     "axes entry 9 is out of range for rank 3 (valid: -3 to 2)"),
    (helper.make_node("Unsqueeze", ["x", "a"], ["y"], name="n"), [_i64("a", [1, -3])],
     "axes [1, -3] name an output axis twice"),
    (helper.make_node("Squeeze", ["x", "a"], ["y"], name="n"), [_i64("a", [1])],
     "cannot squeeze axis 1 of size 3"),
    (helper.make_node("Split", ["x"], ["y", "z", "w"], name="n", axis=-3), [],
     "axis -3 is out of range for rank 2"),
    (helper.make_node("Flatten", ["x"], ["y"], name="n", axis=3), [],
     "axis 3 is out of range for rank 2 (valid: -2 to 2)"),
    (helper.make_node("TopK", ["x", "k"], ["y", "i"], name="n", axis=2), [_i64("k", [1])],
     "axis 2 is out of range for rank 2"),
    (helper.make_node("Hardmax", ["x"], ["y"], name="n", axis=7), [],
     "axis 7 is out of range for rank 2"),
])
def test_axis_out_of_range(node, inits, message):
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in node.output]
    g = helper.make_graph([node], "g", [_vi("x", (2, 3))], outs, initializer=inits)
    _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), message)


# --- more of the ONNX mutation campaign's findings -----------------------------

def test_complex_initializer_named():
    """onnx 1.12's numpy_helper raised TypeError on complex data: a
    traceback from `python3 -m dlc.onnx`, even for an unused initializer."""
    w = helper.make_tensor("w", TensorProto.COMPLEX64, [1], [1 + 2j])
    m = _model([helper.make_node("Relu", ["x"], ["y"], name="r")], inits=[w])
    _raises(m, "ONNX initializer 'w': element type COMPLEX64 is not supported")


@pytest.mark.parametrize("op", ["LSTM", "Scan"])
def test_long_recurrence_refused(op):
    """RNNs and Scan are unrolled: a 2^20-step sequence imported for minutes
    (a hang to the user); now refused past the Loop limit, 4096 steps."""
    steps = 1 << 20
    if op == "LSTM":
        w = helper.make_tensor("w", TensorProto.FLOAT, [1, 4, 2], np.zeros(8, np.float32))
        r = helper.make_tensor("r", TensorProto.FLOAT, [1, 4, 1], np.zeros(4, np.float32))
        node = helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="rnn", hidden_size=1)
        g = helper.make_graph([node], "g", [_vi("x", (steps, 1, 2))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[w, r])
        want = "ONNX node 'rnn' (LSTM, opset 13): a sequence of 1048576 steps"
    else:
        body = helper.make_graph([helper.make_node("Add", ["s", "e"], ["s2"]),
                                  helper.make_node("Identity", ["s2"], ["o"])], "body",
                                 [_vi("s", (2,)), _vi("e", (2,))], [_vi("s2", (2,)), _vi("o", (2,))])
        node = helper.make_node("Scan", ["s0", "x"], ["sf", "ys"], name="scan", body=body,
                                num_scan_inputs=1)
        g = helper.make_graph([node], "g", [_vi("s0", (2,)), _vi("x", (steps, 2))],
                              [_vi("sf", (2,)), _vi("ys", (steps, 2))])
        want = "ONNX node 'scan' (Scan, opset 13): a scan of length 1048576"
    _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), want,
            "at most 4096")


def test_constant_two_values():
    """ONNX allows exactly one value attribute; the first used to win."""
    node = helper.make_node("Constant", [], ["k"], name="c", value_float=1.0, value_int=2)
    m = _model([node, helper.make_node("Add", ["x", "k"], ["y"], name="add")])
    _raises(m, "ONNX node 'c' (Constant", "given together")


def _gather(index, shape=(4, 6)):
    i = helper.make_tensor("i", TensorProto.INT64, np.shape(index), np.ravel(index))
    g = helper.make_graph([helper.make_node("Gather", ["x", "i"], ["y"], name="g")], "g",
                          [_vi("x", shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=[i])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("index", [[7], [0, -5], 1 << 40])
def test_gather_constant_index_out_of_range(index):
    """Constant indices past the axis were compiled into a kernel that read
    outside the data (garbage for 7, SIGSEGV for 2^40)."""
    bad = index if np.ndim(index) == 0 else [v for v in index if not -4 <= v < 4][0]
    _raises(_gather(index), f"ONNX node 'g' (Gather, opset 13): index {bad} is out of range "
            "for axis 0 of size 4 (valid: -4 to 3)")


@pytest.mark.parametrize("index", [-1, -4, 0, 3, [-1, 2]])
def test_gather_negative_constant_index(index):
    """A scalar -1 became the empty slice [-1, 0) (a compile error); negative
    constant indices count from the end."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(dlc.compile(_gather(index))(x), x[np.asarray(index)])


def test_unreadable_model_reason_never_empty(monkeypatch, tmp_path):
    """External data declaring 2^40 bytes made onnx.load raise a MemoryError
    with no text: the message ended at 'cannot read ONNX model X:'."""
    def fail(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(onnx, "load", fail)
    path = tmp_path / "m.onnx"
    path.write_bytes(b"")
    with pytest.raises(dlc.CompileError, match=r"cannot read ONNX model .*m\.onnx: MemoryError$"):
        dlc.onnx.import_model(str(path))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("ids_type", ["i64", "i32"])
def test_gather_runtime_index_out_of_range(dtype, ids_type):
    """Indices given at run time cannot be refused at compile time. An
    index outside the axis once read past the data (10 returned what
    followed a 4-row table, 2^40 crashed), then yielded a marker (NaN, an
    integer type's lowest value: a silent wrong answer for integers); now
    the run is an error naming the gather and the valid range
    (dlg-runtime-checks), at every index type, thread count and either
    end of the range, and in-range indices, negative ones included, are
    unaffected."""
    t = {np.float32: "f32", np.int32: "i32", np.int64: "i64"}[dtype]
    src = f"""func.func @main(%x: tensor<4x6x{t}>, %i: tensor<6x{ids_type}>) -> tensor<6x6x{t}> {{
  %0 = dlg.gather %x[%i] : (tensor<4x6x{t}>, tensor<6x{ids_type}>) -> tensor<6x6x{t}> loc("emb")
  return %0 : tensor<6x6x{t}>
}}"""
    x = np.arange(24).reshape(4, 6).astype(dtype)
    itype = np.int64 if ids_type == "i64" else np.int32
    good = np.array([0, -1, 3, -4, 2, 1], itype)
    big = (1 << 40) if itype == np.int64 else (1 << 30)
    for threads in (1, 2):
        m = dlc.compile(src, threads=threads)
        np.testing.assert_array_equal(m(x, good), x[good])
        for bad in (4, -5, big, -big):
            ids = good.copy()
            ids[3] = bad
            with pytest.raises(ValueError, match=r"^dlg.gather at 'emb': an index given at run "
                               r"time is outside \[-4, 4\), the range of axis 0 of its data$"):
                m(x, ids)
        np.testing.assert_array_equal(m(x, good), x[good])  # a failed run leaves no state


def test_gather_runtime_index_aot(tmp_path):
    """The same check in a library from Module.save, loaded back: the
    library's code 4 (NAME_ERROR_CHECK) is a ValueError with the message,
    as from the JIT."""
    src = """func.func @main(%x: tensor<4x6xf32>, %i: tensor<3xi64>) -> tensor<3x6xf32> {
  %0 = dlg.gather %x[%i] : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<3x6xf32> loc("emb")
  return %0 : tensor<3x6xf32>
}"""
    dlc.compile(src).save(str(tmp_path), "g")
    m = dlc.load(str(tmp_path))
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(m(x, np.array([3, -4, 1], np.int64)), x[[3, 0, 1]])
    with pytest.raises(ValueError, match=r"^g_run: dlg.gather at 'emb': an index given at run "
                       r"time is outside \[-4, 4\)"):
        m(x, np.array([0, 4, 1], np.int64))


def test_gather_runtime_index_onnx_node_named():
    """An ONNX Gather on a graph input (token ids into an embedding table):
    an id outside the table is an error naming the node; with two gathers
    the failing one is named; the dynamic batch dim is checked as well."""
    table = helper.make_tensor("table", TensorProto.FLOAT, [5, 3], np.arange(15.0))
    pos = helper.make_tensor("pos", TensorProto.FLOAT, [4, 3], np.arange(12.0))
    nodes = [helper.make_node("Gather", ["table", "ids"], ["e"], name="word_embeddings"),
             helper.make_node("Gather", ["pos", "p"], ["q"], name="position_embeddings"),
             helper.make_node("Add", ["e", "q"], ["y"], name="sum")]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["n", 4])
    p = helper.make_tensor_value_info("p", TensorProto.INT64, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, 3])
    g = helper.make_graph(nodes, "g", [ids, p], [y], initializer=[table, pos])
    m = dlc.compile(dlc.onnx.import_model(
        helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])))
    t, q = np.arange(15.0, dtype=np.float32).reshape(5, 3), np.arange(12.0, dtype=np.float32).reshape(4, 3)
    good = np.array([[0, 4, -5, 2], [1, 1, 3, -1]], np.int64)
    pp = np.array([0, 1, 2, 3], np.int64)
    np.testing.assert_array_equal(m(good, pp), t[good] + q[pp])
    with pytest.raises(ValueError, match=r"dlg.gather at 'word_embeddings': .* outside \[-5, 5\)"):
        m(np.array([[0, 5, 1, 2]], np.int64), pp)
    with pytest.raises(ValueError, match=r"dlg.gather at 'position_embeddings': .* outside "
                       r"\[-4, 4\)"):
        m(good, np.array([0, 1, 2, 4], np.int64))


def test_gather_runtime_index_in_loop_body_and_if_branch():
    """A Gather inside an ONNX Loop body (a dlg.while: its exit depends on
    the data) or an If branch (a dlg.if: its condition is computed) is
    checked too: its status leaves the region as one more carried value or
    result. An index outside the table in an iteration that runs, or in the
    branch taken, is an error naming the node; one in an iteration the exit
    skips, or in the branch not taken, is not."""
    vi = helper.make_tensor_value_info
    table = helper.make_tensor("table", TensorProto.FLOAT, [5, 3], np.arange(15.0))
    limit = helper.make_tensor("limit", TensorProto.FLOAT, [], [1000.0])
    trips = helper.make_tensor("M", TensorProto.INT64, [], [4])
    body = helper.make_graph(
        [helper.make_node("Add", ["ids", "i"], ["j"], name="shift"),
         helper.make_node("Gather", ["table", "j"], ["row"], name="lookup"),
         helper.make_node("Add", ["acc", "row"], ["acc_out"], name="accumulate"),
         helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0, name="total"),
         helper.make_node("Less", ["total", "limit"], ["c_out"], name="go_on")],
        "body", [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []),
                 vi("acc", TensorProto.FLOAT, [2, 3])],
        [vi("c_out", TensorProto.BOOL, []), vi("acc_out", TensorProto.FLOAT, [2, 3])])
    g = helper.make_graph([helper.make_node("Loop", ["M", "", "acc0"], ["y"], body=body,
                                            name="walk")],
                          "g", [vi("ids", TensorProto.INT64, [2]),
                                vi("acc0", TensorProto.FLOAT, [2, 3])],
                          [vi("y", TensorProto.FLOAT, [2, 3])], initializer=[table, limit, trips])
    onnx_model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    assert "dlg.while" in dlc.onnx.import_graph(onnx_model).mlir()
    m = dlc.compile(onnx_model)
    t = np.arange(15.0, dtype=np.float32).reshape(5, 3)

    def reference(ids, acc, lim=1000.0):
        for i in range(4):
            acc = acc + t[ids + i]
            if not acc.sum() < lim:
                break
        return acc

    zero = np.zeros((2, 3), np.float32)
    for ids in ([0, 1], [-5, -3], [1, 0]):
        ids = np.array(ids, np.int64)
        np.testing.assert_array_equal(m(ids, zero), reference(ids, zero))
    # iteration 3 reads row 2 + 3 = 5 of 5
    with pytest.raises(ValueError, match=r"dlg.gather at 'lookup': .* outside \[-5, 5\)"):
        m(np.array([0, 2], np.int64), zero)
    # the loop exits after its first iteration (the sum passes the limit):
    # the index the later ones would read is never used
    big = np.full((2, 3), 400.0, np.float32)
    np.testing.assert_array_equal(m(np.array([0, 2], np.int64), big),
                                  reference(np.array([0, 2]), big))

    then_g = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["t"],
                                                 name="then_lookup")],
                               "then", [], [vi("t", TensorProto.FLOAT, [2, 3])])
    else_g = helper.make_graph([helper.make_node("Gather", ["table", "other"], ["e0"],
                                                 name="else_lookup"),
                                helper.make_node("Neg", ["e0"], ["e"], name="negate")],
                               "else", [], [vi("e", TensorProto.FLOAT, [2, 3])])
    zero_f = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
         helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
         helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g,
                          name="pick")],
        "g", [vi("x", TensorProto.FLOAT, [4]), vi("ids", TensorProto.INT64, [2]),
              vi("other", TensorProto.INT64, [2])],
        [vi("y", TensorProto.FLOAT, [2, 3])], initializer=[table, zero_f])
    onnx_model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    assert "dlg.if" in dlc.onnx.import_graph(onnx_model).mlir()
    m = dlc.compile(onnx_model)
    pos, neg = np.ones(4, np.float32), -np.ones(4, np.float32)
    good, bad = np.array([1, -2], np.int64), np.array([1, 7], np.int64)
    np.testing.assert_array_equal(m(pos, good, bad), t[good])
    np.testing.assert_array_equal(m(neg, bad, good), -t[good])
    with pytest.raises(ValueError, match=r"dlg.gather at 'then_lookup': .* outside \[-5, 5\)"):
        m(pos, bad, good)
    with pytest.raises(ValueError, match=r"dlg.gather at 'else_lookup': .* outside \[-5, 5\)"):
        m(neg, good, bad)


def test_gather_nd_runtime_index_in_if_branch():
    """The verdict the importer builds for GatherND (an op marked dlc.check)
    inside an If branch leaves the branch as a gather's check does."""
    vi = helper.make_tensor_value_info
    table = helper.make_tensor("table", TensorProto.FLOAT, [3, 4], np.arange(12.0))
    then_g = helper.make_graph([helper.make_node("GatherND", ["table", "idx"], ["t"],
                                                 name="nd_then")],
                               "then", [], [vi("t", TensorProto.FLOAT, [2])])
    else_g = helper.make_graph([helper.make_node("Identity", ["z"], ["e"], name="keep")],
                               "else", [], [vi("e", TensorProto.FLOAT, [2])])
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
         helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
         helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g,
                          name="pick")],
        "g", [vi("x", TensorProto.FLOAT, [4]), vi("idx", TensorProto.INT64, [2, 2])],
        [vi("y", TensorProto.FLOAT, [2])],
        initializer=[table, helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
                     helper.make_tensor("z", TensorProto.FLOAT, [2], [0.0, 0.0])])
    onnx_model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    assert "dlg.if" in dlc.onnx.import_graph(onnx_model).mlir()
    m = dlc.compile(onnx_model)
    t = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    pos, neg = np.ones(4, np.float32), -np.ones(4, np.float32)
    good, bad = np.array([[0, 1], [2, 3]], np.int64), np.array([[0, 1], [3, 0]], np.int64)
    np.testing.assert_array_equal(m(pos, good), [t[0, 1], t[2, 3]])
    np.testing.assert_array_equal(m(neg, bad), [0.0, 0.0])
    with pytest.raises(ValueError, match=r"GatherND 'nd_then': an index given at run time is "
                       r"outside the data's dims \[3, 4\]"):
        m(pos, bad)


def test_gather_runtime_index_in_hand_written_kernel():
    """A gather inside a dlk.kernel written by hand is checked on the
    kernel operand its indices are; one on indices the kernel computes is
    refused at compile time, not left with an unchecked marker."""
    kernel = """func.func @main(%t: tensor<5x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %y = dlk.kernel "elementwise" (%t, %i) : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<5x4xf32>, %b: tensor<2xi64>):
    BODY
    %g = dlg.gather %a[IDX] : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("in_kernel")
    dlk.yield %g : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}"""
    t = np.arange(20.0, dtype=np.float32).reshape(5, 4)
    m = dlc.compile(kernel.replace("BODY", "").replace("IDX", "%b"))
    np.testing.assert_array_equal(m(t, np.array([4, -5], np.int64)), t[[4, -5]])
    with pytest.raises(ValueError, match=r"dlg.gather at 'in_kernel': .* outside \[-5, 5\)"):
        m(t, np.array([0, 5], np.int64))
    with pytest.raises(dlc.CompileError, match=r"dlg.gather at 'in_kernel' inside a dlk.kernel "
                       r"checks indices the kernel computes"):
        dlc.compile(kernel.replace("BODY", "%j = dlg.add %b, %b : tensor<2xi64>, tensor<2xi64> "
                                           "-> tensor<2xi64>").replace("IDX", "%j"))


def _index_model(op, inputs, attrs=None, inits=()):
    node = helper.make_node(op, [i[0] for i in inputs], ["y"], name="n1", **(attrs or {}))
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs
                           if n not in {i.name for i in inits}],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


_F, _I = TensorProto.FLOAT, TensorProto.INT64


def test_gather_elements_and_nd_runtime_index_out_of_range():
    """GatherElements, ScatterElements, GatherND and ScatterND are built
    from compares against each position: an index outside the axis matched
    none (zeros, or no update), and GatherND's (0, 5) into a [3, 4] table
    read the element (1, 1). Each is now an error of the run naming the
    node; in-range indices, negative ones included, are unaffected."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = dlc.compile(dlc.onnx.import_model(_index_model(
        "GatherElements", [("x", _F, [3, 4]), ("i", _I, [3, 2])], {"axis": 1})))
    i = np.array([[0, 3], [-1, 2], [1, -4]], np.int64)
    np.testing.assert_array_equal(m(x, i), np.take_along_axis(x, i % 4, 1))
    for bad in (4, -5):
        j = i.copy()
        j[2, 1] = bad
        with pytest.raises(ValueError, match=r"^GatherElements 'n1': an index given at run time "
                           r"is outside \[-4, 4\), the range of axis 1 of its data$"):
            m(x, j)
    m = dlc.compile(dlc.onnx.import_model(_index_model(
        "ScatterElements", [("x", _F, [3, 4]), ("i", _I, [1, 4]), ("u", _F, [1, 4])],
        {"axis": 0})))
    want = x.copy()
    want[[2, 0, 1, 2], range(4)] = -1
    np.testing.assert_array_equal(m(x, np.array([[2, 0, -2, -1]], np.int64),
                                    -np.ones((1, 4), np.float32)), want)
    with pytest.raises(ValueError, match=r"^ScatterElements 'n1': .* outside \[-3, 3\)"):
        m(x, np.array([[2, 0, 3, 1]], np.int64), -np.ones((1, 4), np.float32))
    m = dlc.compile(dlc.onnx.import_model(_index_model(
        "GatherND", [("x", _F, [3, 4]), ("i", _I, [2, 2])])))
    np.testing.assert_array_equal(m(x, np.array([[0, 3], [2, -1]], np.int64)), [3, 11])
    for bad in ([0, 5], [3, 0], [-4, 0], [0, -5]):
        with pytest.raises(ValueError, match=r"^GatherND 'n1': an index given at run time is "
                           r"outside the data's dims \[3, 4\]"):
            m(x, np.array([bad, [1, 1]], np.int64))
    m = dlc.compile(dlc.onnx.import_model(_index_model(
        "ScatterND", [("x", _F, [3, 4]), ("i", _I, [1, 2]), ("u", _F, [1])])))
    want = x.copy()
    want[1, 3] = 100
    np.testing.assert_array_equal(m(x, np.array([[1, -1]], np.int64),
                                    np.array([100], np.float32)), want)
    with pytest.raises(ValueError, match=r"^ScatterND 'n1': .* dims \[3, 4\]"):
        m(x, np.array([[1, 4]], np.int64), np.array([100], np.float32))


def test_gather_elements_constant_index_out_of_range():
    """Constant indices out of range are an import error naming the node,
    as Gather's are."""
    i = helper.make_tensor("i", _I, [3, 1], [0, 4, 1])
    _raises(_index_model("GatherElements", [("x", _F, [3, 4]), ("i", _I, [3, 1])], {"axis": 1},
                         inits=[i]),
            "ONNX node 'n1' (GatherElements, opset 13): index 4 is outside [-4, 4), the range "
            "of axis 1 of its data")
    i = helper.make_tensor("i", _I, [1, 2], [0, 5])
    _raises(_index_model("GatherND", [("x", _F, [3, 4]), ("i", _I, [1, 2])], inits=[i]),
            "index 5 is outside the data's dims [3, 4]")


def test_gather_runtime_no_indices():
    """An empty index tensor (a dynamic dim of 0) is no error: the empty
    max is not a failing verdict."""
    src = """func.func @main(%x: tensor<4x6xf32>, %i: tensor<?xi64>) -> tensor<?x6xf32> {
  %0 = dlg.gather %x[%i] : (tensor<4x6xf32>, tensor<?xi64>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}"""
    m = dlc.compile(src)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert m(x, np.zeros(0, np.int64)).shape == (0, 6)
    np.testing.assert_array_equal(m(x, np.array([3, -4], np.int64)), x[[3, 0]])
    with pytest.raises(ValueError, match=r"outside \[-4, 4\)"):
        m(x, np.array([4], np.int64))


@pytest.mark.parametrize("op, inits, count", [
    ("Range", [("s", np.array(0, np.int64)), ("l", np.array(300_000_000, np.int64)),
               ("d", np.array(1, np.int64))], 300_000_000),
    ("Range", [("s", np.array(0.0, np.float32)), ("l", np.array(1.0, np.float32)),
               ("d", np.array(1e-9, np.float32))], None),
    ("ConstantOfShape", [("shape", np.array([100_000, 100_000], np.int64))], 10_000_000_000),
    ("Expand", [("v", np.ones((1, 3), np.float32)), ("shape", np.array([1 << 40, 3], np.int64))],
     3 << 40),
])
def test_folded_constant_size_limit(op, inits, count):
    """Constant operands fold into a constant of the result; one far beyond
    any model's (a mutation campaign's 3e8-element Range took 32 s and 1.2
    GB) is an error naming the node and the count, before NumPy allocates."""
    node = helper.make_node(op, [n for n, _ in inits], ["y"], name="big")
    g = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", _F, None)],
                          initializer=[numpy_helper.from_array(v, n) for n, v in inits])
    msg = _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                  f"ONNX node 'big' ({op}, opset 13): its constant result would hold ")
    assert "more than dlc folds into a model (134217728)" in msg
    if count is not None:
        assert f"would hold {count} elements" in msg


def test_wrapped_errors_said_plainly():
    """Three errors the campaign left clean but cryptic ('cannot import:
    ValueError: Enum DataType has no name defined for value 99', a
    UnicodeDecodeError, int('abc')), now said in ONNX's terms."""
    x = _vi("x")
    x.type.tensor_type.elem_type = 99
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [_vi("y")])
    _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
            "ONNX graph input 'x': element type code 99 is not an ONNX tensor type")
    node = helper.make_node("Resize", ["x", "", "sc"], ["y"], name="rs")
    node.attribute.append(helper.make_attribute("mode", b"\xff\xfe"))
    sc = helper.make_tensor("sc", TensorProto.FLOAT, [2], [1.0, 1.0])
    _raises(_model([node], inits=[sc]),
            "ONNX node 'rs' (Resize): attribute 'mode' value b'\\xff\\xfe' is not valid UTF-8")
    shape = helper.make_tensor("s", TensorProto.STRING, [1], [b"abc"])
    _raises(_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], inits=[shape]),
            "ONNX node 'r' (Reshape, opset 13): the target shape is a string tensor")


def test_declared_types_enforced():
    """Accepted before (an ONNX mutation campaign): a graph output declared
    INT64 that computes float32, and an If whose condition is a float."""
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [_vi("x")],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])])
    _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
            "ONNX output 'y' is declared INT64 but computes f32")
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["o"])], "b", [],
                               [_vi("o")])
    cond = helper.make_tensor("c", TensorProto.FLOAT, [], [1.0])
    m = _model([helper.make_node("If", ["c"], ["y"], name="iff", then_branch=branch,
                                 else_branch=branch)], inits=[cond])
    _raises(m, "ONNX node 'iff' (If, opset 13): the condition is float32, not bool")


def test_initializer_disagreeing_with_its_input():
    """An initializer is its graph input's default value: one of another type
    or shape than the input declares was taken as it was."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 2], np.zeros(6, np.float32))
    for decl, want in ((helper.make_tensor_value_info("w", TensorProto.INT64, [3, 2]),
                        "ONNX graph input 'w': declared element type INT64, its initializer "
                        "holds FLOAT"),
                       (helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 3]),
                        "ONNX graph input 'w': declared shape [2, 3], its initializer has dims "
                        "[3, 2]")):
        g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
                              [_vi("x"), decl], [_vi("y", (2, 2))], initializer=[w])
        _raises(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), want)


def test_subgraph_output_nobody_produces():
    """A Loop body whose declared output no node produces raised
    KeyError: 'cond_out' (wrapped, naming the node but not the problem)."""
    scalar = lambda n, t: helper.make_tensor_value_info(n, t, [])
    body = helper.make_graph([helper.make_node("Relu", ["s"], ["s_out"])], "body",
                             [scalar("i", TensorProto.INT64), scalar("c", TensorProto.BOOL),
                              _vi("s")],
                             [scalar("cond_out", TensorProto.BOOL), _vi("s_out")])
    trips = helper.make_tensor("n", TensorProto.INT64, [], [2])
    loop = helper.make_node("Loop", ["n", "", "x"], ["y"], name="lp", body=body)
    _raises(_model([loop], inits=[trips]),
            "ONNX subgraph 'body': output 'cond_out' is produced by no node")
