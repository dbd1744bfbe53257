"""ONNX -> dlg, over dlc.Graph (the C API builders).

    import dlc.onnx
    text = dlc.onnx.import_model("model.onnx")      # dlg module as MLIR text
    python3 -m dlc.onnx model.onnx -o model.mlir

Initializers become dlg.constant (large ones dense_resource). Every node
whose inputs are all constant is evaluated here with NumPy, so the shape
subgraphs PyTorch exports (Shape, Gather, Unsqueeze, Concat, Cast, ...)
fold away and Reshape/Expand/Slice get static shapes. A node that cannot be
expressed raises UnsupportedError naming the node, its op type and why.

Dynamic input dims (dim_param) stay `?` where the graph allows (dlc then
compiles per input shape); where a shape computation needs their value the
importer raises DynamicShapeError, and `import_model(m, input_shapes=...)`
imports the graph for given input shapes instead (dlc.compile does that
per call).
"""

import argparse
import sys

import numpy as np

from . import CompileError, onnx_check
from .graph import Graph, Value

try:
    import onnx as _onnx
    from onnx import numpy_helper as _nh
except ImportError:  # pragma: no cover - onnx is an optional dependency
    _onnx = None


class UnsupportedError(CompileError):
    """An ONNX node dlc cannot express."""

    def __init__(self, node, why):
        name = node.name or (node.output[0] if node.output else "?")
        super().__init__(f"ONNX node '{name}' ({node.op_type}): {why}", "")


class DynamicShapeError(UnsupportedError):
    """A shape computation needs the value of a dynamic input dimension."""


# Slice end meaning "to the end of the dimension", whatever its size.
_END = 2 ** 62


def _static(node, dims, what):
    if any(d < 0 for d in dims):
        raise DynamicShapeError(node, f"{what} depends on a dynamic dimension")
    return dims


_ONNX_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_,
                10: np.float16, 11: np.float64}


def _attrs(node):
    return {a.name: _onnx.helper.get_attribute_value(a) for a in node.attribute}


class _Importer:
    def __init__(self, model, input_shapes=None):
        self.model = model
        self.input_shapes = list(input_shapes) if input_shapes is not None else None
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)
        self.g = Graph("main")
        self.vals = {}      # name -> Value or np.ndarray (constant)
        self.materialized = {}

    # --- values -----------------------------------------------------------

    def const(self, name):
        v = self.vals.get(name)
        return v if isinstance(v, np.ndarray) else None

    def value(self, name, node=None):
        v = self.vals[name]
        if isinstance(v, Value):
            return v
        if name not in self.materialized:
            a = v.astype(np.float32) if v.dtype == np.float64 else v
            self.materialized[name] = self.g.constant(a, name=name)
        return self.materialized[name]

    def shape(self, name):
        v = self.vals[name]
        return tuple(v.shape)

    # --- import -----------------------------------------------------------

    def run(self):
        graph = self.model.graph
        for init in graph.initializer:
            self.vals[init.name] = _nh.to_array(init)
        fixed = iter(self.input_shapes or [])
        for name, shape, elem_type in _graph_inputs(self.model):
            dims = [-1 if d is None else d for d in shape]
            if self.input_shapes is not None:
                given = list(next(fixed, dims))
                if len(given) != len(dims) or any(d >= 0 and d != g for d, g in zip(dims, given)):
                    raise CompileError(f"ONNX input '{name}': shape {tuple(given)} does not "
                                       f"fit {tuple('?' if d < 0 else d for d in dims)}", "")
                dims = given
            dtype = _ONNX_DTYPES.get(elem_type)
            if dtype is None:
                raise CompileError(f"ONNX input '{name}': unsupported element type "
                                   f"{elem_type}", "")
            self.vals[name] = self.g.input(dims, dtype, name=name)
        for node in graph.node:
            with onnx_check.node_errors(node):  # any other exception: CompileError naming node
                self.node(node)
        outs = [self.value(o.name) for o in graph.output]
        self.g.output(*outs)
        return self.g

    def node(self, node):
        fn = getattr(self, "op_" + node.op_type, None)
        folder = _FOLD.get(node.op_type)
        if node.domain not in ("", "ai.onnx") or (fn is None and folder is None):
            raise UnsupportedError(node, "op type is not supported")
        ins = list(node.input)
        consts = [self.const(i) if i else None for i in ins]
        foldable = folder and all(c is not None for c, i in zip(consts, ins) if i)
        if fn is None and not foldable:
            raise UnsupportedError(node, "supported only on constant inputs (shape computations)")
        if foldable:
            out = folder(self, node, [c for c in consts], _attrs(node))
            # NumPy returns scalars (np.int64) for 0-d results: keep arrays
            outs = [np.asarray(o) for o in (out if isinstance(out, list) else [out])]
        else:
            try:
                out = fn(node, _attrs(node))
            except CompileError as e:
                if isinstance(e, UnsupportedError):
                    raise
                raise UnsupportedError(node, str(e)) from None
            outs = out if isinstance(out, list) else [out]
        for name, v in zip(node.output, outs):
            self.vals[name] = v

    # --- ops --------------------------------------------------------------

    def _x(self, node, i=0):
        return self.value(node.input[i])

    def _bin(op):
        def f(self, node, a):
            return self.g.op(op, self._x(node, 0), self._x(node, 1), name_hint=node.name)
        return f

    op_Add, op_Sub, op_Mul = _bin("dlg.add"), _bin("dlg.sub"), _bin("dlg.mul")
    op_Div, op_Pow, op_MatMul = _bin("dlg.div"), _bin("dlg.pow"), _bin("dlg.matmul")
    op_Max, op_Min = _bin("dlg.max"), _bin("dlg.min")
    op_Equal, op_Greater, op_Less = _bin("dlg.equal"), _bin("dlg.greater"), _bin("dlg.less")
    op_GreaterOrEqual, op_LessOrEqual = _bin("dlg.greater_equal"), _bin("dlg.less_equal")

    # Boolean logic on masks as selects: not a = a ? false : true, and so on.
    def _mask(self, v):
        return self.g.constant(np.array(v))

    def op_Not(self, node, a):
        return self.g.where(self._x(node), self._mask(False), self._mask(True), name=node.name)

    def op_And(self, node, a):
        return self.g.where(self._x(node), self._x(node, 1), self._mask(False), name=node.name)

    def op_Or(self, node, a):
        return self.g.where(self._x(node), self._mask(True), self._x(node, 1), name=node.name)

    def op_Xor(self, node, a):
        b = self._x(node, 1)
        nb = self.g.where(b, self._mask(False), self._mask(True))
        return self.g.where(self._x(node), nb, b, name=node.name)

    def _un(op):
        def f(self, node, a):
            return self.g.op(op, self._x(node), name_hint=node.name)
        return f

    op_Sqrt, op_Neg, op_Exp, op_Log = _un("dlg.sqrt"), _un("dlg.neg"), _un("dlg.exp"), _un("dlg.log")
    op_Erf, op_Tanh, op_Sigmoid, op_Relu = _un("dlg.erf"), _un("dlg.tanh"), _un("dlg.sigmoid"), \
        _un("dlg.relu")
    op_Abs = _un("dlg.abs")

    def _scalar(self, x, v):
        dtype = np.float32 if "f32" in x.type else np.int64
        return self.g.constant(np.array(v, dtype))

    def op_Reciprocal(self, node, a):
        x = self._x(node)
        return self.g.div(self._scalar(x, 1.0), x, name=node.name)

    def op_Identity(self, node, a):
        return self.vals[node.input[0]]

    op_Dropout = op_Identity

    def op_Clip(self, node, a):
        lo, hi = a.get("min", -np.inf), a.get("max", np.inf)
        if len(node.input) > 1 and node.input[1]:
            c = self.const(node.input[1])
            if c is None:
                raise UnsupportedError(node, "min must be a constant")
            lo = float(c)
        if len(node.input) > 2 and node.input[2]:
            c = self.const(node.input[2])
            if c is None:
                raise UnsupportedError(node, "max must be a constant")
            hi = float(c)
        return self.g.clamp(self._x(node), min=float(max(lo, -3.4e38)), max=float(min(hi, 3.4e38)),
                            name=node.name)

    def op_LeakyRelu(self, node, a):
        x = self._x(node)
        return self.g.max(x, self.g.mul(x, self._scalar(x, a.get("alpha", 0.01))), name=node.name)

    def op_HardSigmoid(self, node, a, alpha=None, beta=None):
        x = self._x(node)
        alpha = a.get("alpha", 0.2) if alpha is None else alpha
        beta = a.get("beta", 0.5) if beta is None else beta
        y = self.g.add(self.g.mul(x, self._scalar(x, alpha)), self._scalar(x, beta))
        return self.g.clamp(y, min=0.0, max=1.0, name=node.name)

    def op_HardSwish(self, node, a):
        return self.g.mul(self._x(node), self.op_HardSigmoid(node, a, 1.0 / 6, 0.5), name=node.name)

    def op_Gelu(self, node, a):
        return self.g.gelu(self._x(node), approximate=a.get("approximate", b"none").decode()
                           if isinstance(a.get("approximate"), bytes) else "none", name=node.name)

    def op_Softmax(self, node, a, op="dlg.softmax"):
        x = self._x(node)
        axis = a.get("axis", -1 if self.opset >= 13 else 1)
        rank = len(x.shape)
        if self.opset < 13 and axis % rank != rank - 1:
            raise UnsupportedError(node, "opset < 13 softmax over a non-last axis (flattening semantics)")
        return self.g.op(op, x, axis=axis, name_hint=node.name)

    def op_LogSoftmax(self, node, a):
        return self.op_Softmax(node, a, "dlg.log_softmax")

    def op_Conv(self, node, a):
        if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise UnsupportedError(node, "auto_pad is not supported; export with explicit pads")
        w = self.shape(node.input[1]) if node.input[1] in self.vals else None
        if w is None or len(w) != 4:
            raise UnsupportedError(node, "only 2-D convolutions are supported")
        pads = list(a.get("pads", [0, 0, 0, 0]))
        ops = [self._x(node, 0), self._x(node, 1)]
        if len(node.input) > 2 and node.input[2]:
            ops.append(self._x(node, 2))
        return self.g.op("dlg.conv2d", *ops, strides=list(a.get("strides", [1, 1])),
                         padding=pads, dilations=list(a.get("dilations", [1, 1])),
                         groups=int(a.get("group", 1)), name_hint=node.name)

    def op_Gemm(self, node, a):
        y = self.g.matmul(self._x(node, 0), self._x(node, 1), transpose_a=bool(a.get("transA", 0)),
                          transpose_b=bool(a.get("transB", 0)), name=node.name)
        if a.get("alpha", 1.0) != 1.0:
            y = self.g.mul(y, self._scalar(y, a["alpha"]))
        if len(node.input) > 2 and node.input[2]:
            c = self._x(node, 2)
            if a.get("beta", 1.0) != 1.0:
                c = self.g.mul(c, self._scalar(c, a["beta"]))
            y = self.g.add(y, c)
        return y

    def op_BatchNormalization(self, node, a):
        if a.get("training_mode", 0):
            raise UnsupportedError(node, "training-mode batch normalization")
        return self.g.batch_norm(*[self._x(node, i) for i in range(5)],
                                 epsilon=float(a.get("epsilon", 1e-5)), name=node.name)

    def op_LayerNormalization(self, node, a):
        ops = [self._x(node, 0)]
        seg = [1, 0, 0]
        for i in (1, 2):
            if len(node.input) > i and node.input[i]:
                ops.append(self._x(node, i))
                seg[i] = 1
        return self.g.layer_norm(*ops, axis=int(a.get("axis", -1)),
                                 epsilon=float(a.get("epsilon", 1e-5)),
                                 operandSegmentSizes=f"array<i32: {seg[0]}, {seg[1]}, {seg[2]}>",
                                 name=node.name)

    def op_InstanceNormalization(self, node, a):
        """layer_norm over the spatial dims [2, rank) of each (n, c), then the
        per-channel scale and bias broadcast over them."""
        x = self._x(node)
        rank = len(x.shape)
        if rank < 3:
            raise UnsupportedError(node, "input of rank < 3")
        y = self.g.layer_norm(x, axis=2, epsilon=float(a.get("epsilon", 1e-5)),
                              operandSegmentSizes="array<i32: 1, 0, 0>")
        chan = (-1,) + (1,) * (rank - 2)
        for i, op in ((1, "dlg.mul"), (2, "dlg.add")):
            c = self.const(node.input[i])
            p = self.g.constant(c.astype(np.float32).reshape(chan)) if c is not None else \
                self.g.reshape(self._x(node, i), (x.shape[1],) + chan[1:])
            y = self.g.op(op, y, p, name_hint=node.name if i == 2 else None)
        return y

    def _pool(self, node, a, op):
        if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise UnsupportedError(node, "auto_pad is not supported")
        if a.get("ceil_mode", 0):
            raise UnsupportedError(node, "ceil_mode=1 is not supported")
        if any(d != 1 for d in a.get("dilations", [1, 1])):
            raise UnsupportedError(node, "dilated pooling is not supported")
        k = list(a["kernel_shape"])
        if len(k) != 2:
            raise UnsupportedError(node, "only 2-D pooling is supported")
        extra = {"count_include_pad": bool(a.get("count_include_pad", 0))} \
            if op == "dlg.avg_pool2d" else {}
        return self.g.op(op, self._x(node), kernel=k, strides=list(a.get("strides", [1, 1])),
                         padding=list(a.get("pads", [0, 0, 0, 0])), name_hint=node.name, **extra)

    def op_MaxPool(self, node, a):
        if len(node.output) > 1 and node.output[1]:
            raise UnsupportedError(node, "the Indices output is not supported")
        return self._pool(node, a, "dlg.max_pool2d")

    def op_AveragePool(self, node, a):
        return self._pool(node, a, "dlg.avg_pool2d")

    def op_GlobalAveragePool(self, node, a):
        return self.g.reduce_mean(self._x(node), axes=[2, 3], keepdims=True, name=node.name)

    def _reduce(op):
        def f(self, node, a):
            x = self._x(node)
            axes = a.get("axes")
            if axes is None and len(node.input) > 1 and node.input[1]:
                c = self.const(node.input[1])
                if c is None:
                    raise UnsupportedError(node, "axes must be a constant")
                axes = [int(v) for v in c]
            if not axes and a.get("noop_with_empty_axes", 0):
                return x
            return self.g.op(op, x, axes=list(axes or []), keepdims=bool(a.get("keepdims", 1)),
                             name_hint=node.name)
        return f

    op_ReduceMean, op_ReduceSum = _reduce("dlg.reduce_mean"), _reduce("dlg.reduce_sum")
    op_ReduceMax, op_ReduceMin = _reduce("dlg.reduce_max"), _reduce("dlg.reduce_min")

    def op_Transpose(self, node, a):
        x = self._x(node)
        perm = a.get("perm", list(range(len(x.shape)))[::-1])
        return self.g.transpose(x, perm=list(perm), name=node.name)

    def _reshape_to(self, node, x, shape):
        return self.g.reshape(x, tuple(int(d) for d in shape), name=node.name)

    def op_Reshape(self, node, a):
        x = self._x(node)
        shape = self.const(node.input[1])
        if shape is None:
            raise UnsupportedError(node, "the target shape is not a constant after folding")
        return self._reshape_to(node, x, _reshape_dims(x.shape, shape, a.get("allowzero", 0), node))

    def op_Flatten(self, node, a):
        x = self._x(node)
        axis = a.get("axis", 1) % max(1, len(x.shape))
        tail = int(np.prod(_static(node, x.shape[axis:], "Flatten's inner size")))
        lead = -1 if any(d < 0 for d in x.shape[:axis]) else int(np.prod(x.shape[:axis]))
        return self._reshape_to(node, x, (lead, tail))

    def _axes(self, node, a):
        if "axes" in a:
            return list(a["axes"])
        if len(node.input) > 1 and node.input[1]:
            c = self.const(node.input[1])
            if c is None:
                raise UnsupportedError(node, "axes must be a constant")
            return [int(v) for v in c]
        return None

    def op_Squeeze(self, node, a):
        x = self._x(node)
        axes = self._axes(node, a)
        shape = list(x.shape)
        axes = [d % len(shape) for d in axes] if axes is not None else \
            [i for i, d in enumerate(shape) if d == 1]
        return self._reshape_to(node, x, [d for i, d in enumerate(shape) if i not in axes])

    def op_Unsqueeze(self, node, a):
        x = self._x(node)
        shape = list(x.shape)
        axes = sorted(d % (len(shape) + len(self._axes(node, a))) for d in self._axes(node, a))
        for d in axes:
            shape.insert(d, 1)
        return self._reshape_to(node, x, shape)

    def op_Concat(self, node, a):
        return self.g.concat(*[self._x(node, i) for i in range(len(node.input))],
                             axis=int(a["axis"]), name=node.name)

    def op_Gather(self, node, a):
        idx = self.const(node.input[1])
        data = self._x(node)
        axis = int(a.get("axis", 0))
        if idx is not None and idx.ndim == 0:  # a scalar index drops the axis
            rank = len(data.shape)
            ax = axis % rank
            s = self.g.slice(data, starts=[int(idx) if i == ax else 0 for i in range(rank)],
                             ends=[int(idx) + 1 if i == ax else _END for i in range(rank)],
                             steps=[1] * rank)
            return self._reshape_to(node, s, [d for i, d in enumerate(data.shape) if i != ax])
        return self.g.gather(data, self._x(node, 1), axis=axis, name=node.name)

    def op_Slice(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        cs = [self.const(node.input[i]) if len(node.input) > i and node.input[i] else None
              for i in range(1, 5)]
        if cs[0] is None or cs[1] is None:
            raise UnsupportedError(node, "starts and ends must be constants")
        axes = [int(v) % rank for v in cs[2]] if cs[2] is not None else list(range(len(cs[0])))
        steps = [int(v) for v in cs[3]] if cs[3] is not None else [1] * len(axes)
        st, en, sp = [0] * rank, [_END] * rank, [1] * rank
        for ax, s, e, p in zip(axes, cs[0], cs[1], steps):
            st[ax], en[ax], sp[ax] = int(s), int(max(min(e, 2**62), -2**62)), p
        return self.g.slice(x, starts=st, ends=en, steps=sp, name=node.name)

    def op_Split(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        axis = int(a.get("axis", 0)) % rank
        split = a.get("split")
        if split is None and len(node.input) > 1 and node.input[1]:
            split = self.const(node.input[1])
        n = len(node.output)
        if split is None:
            split = [_static(node, [x.shape[axis]], "an even Split")[0] // n] * n
        outs, off = [], 0
        for s in split:
            st = [off if i == axis else 0 for i in range(rank)]
            en = [off + int(s) if i == axis else _END for i in range(rank)]
            outs.append(self.g.slice(x, starts=st, ends=en, steps=[1] * rank))
            off += int(s)
        return outs

    def op_Expand(self, node, a):
        x = self._x(node)
        shape = self.const(node.input[1])
        if shape is None:
            raise UnsupportedError(node, "the target shape is not a constant after folding")
        out = np.broadcast_shapes(tuple(_static(node, x.shape, "Expand")),
                                  tuple(int(d) for d in shape))
        zeros = self.g.constant(np.zeros(out, np.float32 if "f32" in x.type else np.int64))
        return self.g.add(x, zeros, name=node.name)

    def op_Where(self, node, a):
        return self.g.where(*[self._x(node, i) for i in range(3)], name=node.name)

    def op_Cast(self, node, a):
        dtype = _ONNX_DTYPES.get(a["to"])
        if dtype is None:
            raise UnsupportedError(node, f"cast to ONNX type {a['to']}")
        return self.g.cast(self._x(node), dtype, name=node.name)

    def op_Pad(self, node, a):
        if a.get("mode", b"constant") not in (b"constant", "constant"):
            raise UnsupportedError(node, "only constant padding is supported")
        pads = self.const(node.input[1]) if len(node.input) > 1 else np.array(a.get("pads"))
        if pads is None:
            raise UnsupportedError(node, "pads must be a constant")
        value = 0.0
        if len(node.input) > 2 and node.input[2]:
            value = float(self.const(node.input[2]))
        return self.g.pad(self._x(node), pads=[int(p) for p in pads], value=value, name=node.name)

    def op_Constant(self, node, a):
        for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
            if key in a:
                v = a[key]
                return _nh.to_array(v) if key == "value" else np.array(v)
        raise UnsupportedError(node, "unsupported Constant attribute")

    def op_Shape(self, node, a):
        return np.array(_static(node, self.shape(node.input[0]), "Shape"), np.int64)


def _reshape_dims(in_shape, shape, allowzero, node=None):
    """ONNX Reshape's target (0 copies, -1 infers). With dynamic input dims
    (-1) the inferred dim is dynamic too; dlc resolves it from the element
    count once the input shapes are known, so at most one may be dynamic."""
    dims = [int(d) for d in shape]
    copied = [i for i, d in enumerate(dims) if d == 0 and not allowzero]
    for i in copied:
        dims[i] = in_shape[i]
    infer = [i for i, d in enumerate(dims) if d == -1 and i not in copied]
    if infer:
        if any(d < 0 for d in in_shape):
            dims[infer[0]] = -1
        else:
            known = int(np.prod([d for i, d in enumerate(dims) if i != infer[0]]))
            dims[infer[0]] = int(np.prod(in_shape)) // max(1, known)
    if sum(d < 0 for d in dims) > 1 and node is not None:
        raise DynamicShapeError(node, "Reshape target with several dynamic dimensions")
    return dims


# Constant folding in NumPy, for nodes whose inputs are all constants.
def _np_slice(imp, node, c, a):
    x = c[0]
    axes = c[3] if len(c) > 3 and c[3] is not None else range(len(c[1]))
    steps = c[4] if len(c) > 4 and c[4] is not None else [1] * len(c[1])
    sl = [slice(None)] * x.ndim
    for ax, s, e, p in zip(axes, c[1], c[2], steps):
        sl[int(ax)] = slice(int(s), int(e), int(p))
    return x[tuple(sl)]


_FOLD = {
    "Shape": lambda imp, n, c, a: np.array(c[0].shape, np.int64),
    "Gather": lambda imp, n, c, a: np.take(c[0], c[1], axis=a.get("axis", 0)),
    "Unsqueeze": lambda imp, n, c, a: np.expand_dims(
        c[0], tuple(a["axes"]) if "axes" in a else tuple(int(v) for v in c[1])),
    "Squeeze": lambda imp, n, c, a: np.squeeze(
        c[0], tuple(a["axes"]) if "axes" in a else (tuple(int(v) for v in c[1]) if len(c) > 1
                                                    else None)),
    "Concat": lambda imp, n, c, a: np.concatenate(c, axis=a["axis"]),
    "Cast": lambda imp, n, c, a: c[0].astype(_ONNX_DTYPES[a["to"]]),
    "Add": lambda imp, n, c, a: c[0] + c[1],
    "Sub": lambda imp, n, c, a: c[0] - c[1],
    "Mul": lambda imp, n, c, a: c[0] * c[1],
    "Div": lambda imp, n, c, a: (c[0] // c[1]) if c[0].dtype.kind in "iu" else c[0] / c[1],
    "Equal": lambda imp, n, c, a: np.equal(c[0], c[1]),
    "Greater": lambda imp, n, c, a: np.greater(c[0], c[1]),
    "Less": lambda imp, n, c, a: np.less(c[0], c[1]),
    "GreaterOrEqual": lambda imp, n, c, a: np.greater_equal(c[0], c[1]),
    "LessOrEqual": lambda imp, n, c, a: np.less_equal(c[0], c[1]),
    "Not": lambda imp, n, c, a: np.logical_not(c[0]),
    "And": lambda imp, n, c, a: np.logical_and(c[0], c[1]),
    "Or": lambda imp, n, c, a: np.logical_or(c[0], c[1]),
    "Xor": lambda imp, n, c, a: np.logical_xor(c[0], c[1]),
    "Where": lambda imp, n, c, a: np.where(c[0], c[1], c[2]),
    "ConstantOfShape": lambda imp, n, c, a: np.full(
        tuple(int(d) for d in c[0]), _nh.to_array(a["value"])[0] if "value" in a else 0.0,
        dtype=_nh.to_array(a["value"]).dtype if "value" in a else np.float32),
    "Range": lambda imp, n, c, a: np.arange(c[0], c[1], c[2]),
    "Reshape": lambda imp, n, c, a: c[0].reshape(_reshape_dims(c[0].shape, c[1],
                                                               a.get("allowzero", 0))),
    "Slice": _np_slice,
    "Trilu": lambda imp, n, c, a: (np.triu if a.get("upper", 1) else np.tril)(
        c[0], int(c[1]) if len(c) > 1 and c[1] is not None else 0),
    "Identity": lambda imp, n, c, a: c[0],
    "Transpose": lambda imp, n, c, a: np.transpose(c[0], a.get("perm")),
    "Sqrt": lambda imp, n, c, a: np.sqrt(c[0]),
    "Neg": lambda imp, n, c, a: -c[0],
    "Expand": lambda imp, n, c, a: c[0] * np.ones(tuple(int(d) for d in c[1]), c[0].dtype),
}


def load(path_or_proto):
    if _onnx is None:
        raise ImportError("dlc.onnx needs python3-onnx")
    if isinstance(path_or_proto, (str, bytes)) or hasattr(path_or_proto, "__fspath__"):
        try:
            return _onnx.load(path_or_proto)
        except Exception as e:  # onnx raises DecodeError and friends
            raise CompileError(f"cannot read ONNX model {path_or_proto}: {e}", "") from None
    return path_or_proto


def import_graph(model, input_shapes=None):
    """An ONNX model (path or ModelProto) as a dlc.Graph; `input_shapes`
    (one per graph input, in order) fixes dynamic input dims."""
    model = load(model)
    if not model.graph.node and not model.graph.output:
        raise CompileError("the ONNX model has an empty graph", "")
    model = onnx_check.check(model)  # CompileError naming node and input, or a sorted copy
    return _Importer(model, input_shapes).run()


def import_model(model, input_shapes=None):
    """An ONNX model (path or ModelProto) as dlg MLIR text."""
    return import_graph(model, input_shapes).mlir()


def _graph_inputs(model):
    """(name, shape with None for dynamic dims, ONNX element type) of each
    graph input that is not an initializer."""
    inits = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name not in inits:
            tt = inp.type.tensor_type
            yield (inp.name, tuple(d.dim_value if d.HasField("dim_value") else None
                                   for d in tt.shape.dim), tt.elem_type)


def input_specs(model):
    """(name, shape with None for dynamic dims, dtype) of each graph input."""
    return [(name, shape, np.dtype(_ONNX_DTYPES.get(elem, np.float32)))
            for name, shape, elem in _graph_inputs(load(model))]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m dlc.onnx", description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("-o", "--output", default="-")
    opts = ap.parse_args(argv)
    try:
        text = import_model(opts.model)
    except CompileError as e:
        print(f"dlc.onnx: {e}", file=sys.stderr)
        return 1
    if opts.output == "-":
        sys.stdout.write(text)
    else:
        with open(opts.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
