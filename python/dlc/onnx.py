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
import ctypes
import sys

import numpy as np

from . import control as _control  # noqa: F401  (Graph.if_, Graph.while_)
from . import onnx_check
from .errors import CompileError
from ._capi import _Handle
from .graph import _DTYPES, Graph, Value, _elt_dtype

try:
    import onnx as _onnx
    from onnx import numpy_helper as _nh
except ImportError:  # pragma: no cover - onnx is an optional dependency
    _onnx = None


class UnsupportedError(CompileError):
    """An ONNX node dlc cannot express: one line naming the node, its op
    type, the model's opset and what is missing."""

    def __init__(self, node, why, opset=None):
        name = node.name or (node.output[0] if node.output else "?")
        at = f", opset {opset}" if opset else ""
        super().__init__(f"ONNX node '{name}' ({node.op_type}{at}): {why}", "")
        self.node, self.why, self.opset = node, why, opset


def _tensor_value(t, what):
    """numpy_helper.to_array of a tensor onnx_check has sized. Complex data
    is refused by name: dlg has no complex type, and onnx 1.12's to_array
    raises a TypeError on it (a traceback from `python3 -m dlc.onnx`, found
    by an ONNX mutation campaign)."""
    if t.data_type in (14, 15):
        raise CompileError(f"{what}: element type {_type_name(t.data_type)} is not supported "
                           "(dlg has no complex type)", "")
    try:
        return _nh.to_array(t)
    except Exception as e:  # anything numpy_helper cannot decode
        raise CompileError(f"{what}: cannot read its data: {type(e).__name__}: {e}", "") from None


def _axis(node, axis, rank, what="axis", inclusive=False):
    """ONNX's axis rule: -rank <= axis < rank (<= rank where `inclusive`, as
    Flatten's), a negative one counting from the end. Any other value is an
    error naming the node, the attribute and the value: these sites used to
    wrap it modulo the rank, so ArgMax axis=5 of a rank-2 tensor quietly
    meant axis 1 (found by an ONNX mutation campaign)."""
    axis, top = int(axis), rank + 1 if inclusive else rank
    if not -rank <= axis < top:  # rank 0 (not inclusive): no axis at all
        raise UnsupportedError(node, f"{what} {axis} is out of range for rank {rank} "
                               f"(valid: {-rank} to {top - 1})")
    return axis + rank if axis < 0 else axis


class DynamicShapeError(UnsupportedError):
    """A shape computation needs the value of a dynamic input dimension."""


class ValueDependentError(DynamicShapeError):
    """A shape-like operand (Reshape's shape, Slice's starts, Split's sizes,
    ...) is a graph input: dlc imports the graph again for each value of
    `inputs` (their names), which then are constants."""

    def __init__(self, node, why, inputs, opset=None):
        super().__init__(node, why, opset)
        self.inputs = sorted(inputs)


_FLOATS = ("f32", "f64", "f16", "bf16")


# A graph input whose element type dlc lacks: an error at the first node that uses it.
class _BadInput:
    def __init__(self, name, elem_type):
        self.name, self.elem_type = name, elem_type

    def why(self):
        t = _onnx.TensorProto.DataType.Name(self.elem_type) if _onnx else str(self.elem_type)
        return f"input '{self.name}' has element type {t}, which dlg lacks"


# Graph inputs of at most this many elements can be shape-like operands dlc
# specialises on (only where an op needs a constant: need_const).
_VALUE_INPUT_ELEMENTS = 16


# Slice end meaning "to the end of the dimension", whatever its size.
_END = 2 ** 62


def _static(node, dims, what):
    if any(d < 0 for d in dims):
        raise DynamicShapeError(node, f"{what} depends on a dynamic dimension")
    return dims


# ONNX element types dlg has: float32, float64, int8, int32, int64, bool, float16
# (not bfloat16, int16 or unsigned types: no silent conversion; a node
# using them raises UnsupportedError).
_ONNX_DTYPES = {1: np.float32, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
                11: np.float64}
# NumPy types of every ONNX element type, for constants folded here.
_NP_DTYPES = {**_ONNX_DTYPES, 2: np.uint8, 4: np.uint16, 5: np.int16, 11: np.float64,
              12: np.uint32, 13: np.uint64}


# Integer element types dlg lacks, held widened in the graph: ONNX type ->
# (storage dtype, bits, signed). The stored value is always the exact number
# (kept in range: an op that can leave it, like Add, wraps its result modulo
# 2^bits as ONNX's integer arithmetic does), except UINT64, held as the int64
# of the same bits (two's complement: Add/Sub/Mul wrap alike; ordering is
# through the sign-bit flip; Div/Mod are unsigned, _divmod_u64). dlc.compile
# widens such inputs before the call and narrows such outputs after it
# (TypedModule); both are exact.
_WIDE = {2: (np.int32, 8, False), 4: (np.int32, 16, False), 5: (np.int32, 16, True),
         12: (np.int64, 32, False), 13: (np.int64, 64, False)}
_WIDE_NP = {np.uint8: 2, np.uint16: 4, np.int16: 5, np.uint32: 12, np.uint64: 13}
# BFLOAT16 is held as float32 (exact; NumPy has no bfloat16: at the boundary
# its arrays are uint16 bits, as ONNX's tests give them). Only data movement,
# max/min and compares run on it (exact); a Cast to it (from float32/16)
# truncates at the boundary, as ONNX 1.12's reference does, so such a result
# may only be a graph output.
_BF16 = 16
_WIDE[_BF16] = (np.float32, 16, None)


def _widen(a):
    """A NumPy array of a _WIDE type as its storage array (exact)."""
    e = _WIDE_NP[a.dtype.type]
    return a.view(np.int64) if e == 13 else a.astype(_WIDE[e][0])


def _narrow(a, elem):
    """A storage array back in ONNX type `elem` (as is for other types)."""
    if elem not in _WIDE or elem == _BF16 or a.dtype == _NP_DTYPES[elem]:
        return a
    return a.astype(np.int64).view(np.uint64) if elem == 13 else a.astype(_NP_DTYPES[elem])


# Ops on widened values, by what the result is: SAME keeps the operands'
# numbers (data movement, max/min, pooling; Div/Mod of in-range numbers stay
# in range except int16's -32768 / -1, wrapped), WRAP can leave the range and
# is wrapped, BOOL gives a mask, SHAPE reads only the shape. ORDERED ops
# compare numbers: UINT64 goes through the sign-bit flip for those in FLIP,
# and Div/Mod through _divmod_u64 (unsigned division from int64 ops).
_WIDE_SAME = {"Identity", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Concat",
              "Slice", "Gather", "Expand", "Tile", "MaxPool", "Max", "Min", "Mod", "Split",
              "Where", "ReduceMax", "ReduceMin", "GlobalMaxPool", "Pad", "DepthToSpace",
              "SpaceToDepth", "GatherElements", "GatherND"}
_WIDE_WRAP = {"Add", "Sub", "Mul", "Sum", "Neg", "Div"}
_WIDE_BOOL = {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"}
_WIDE_SHAPE = {"Shape", "Size"}
_WIDE_FLIP = {"Max", "Min", "MaxPool", "ReduceMax", "ReduceMin", "GlobalMaxPool", "Greater",
              "Less", "GreaterOrEqual", "LessOrEqual"}
_WIDE_ORDERED = _WIDE_FLIP | {"Div", "Mod"}
# Ops whose handlers take and make widened values themselves (self.wide).
_WIDE_AWARE = {"Cast", "CastLike", "BitShift", "QuantizeLinear", "DequantizeLinear",
               "DynamicQuantizeLinear", "MatMulInteger", "ConvInteger", "QLinearMatMul",
               "QLinearConv"}


def _attrs(node):
    return {a.name: _onnx.helper.get_attribute_value(a) for a in node.attribute}


class _Importer:
    def __init__(self, model, input_shapes=None, input_values=None, source_opset=None):
        self.model = model
        self.input_shapes = list(input_shapes) if input_shapes is not None else None
        self.input_values = dict(input_values or {})
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)
        self.opset_label = self.opset if source_opset in (None, self.opset) else \
            f"{self.opset}, converted from {source_opset}"
        self.g = Graph("main")
        self.vals = {}      # name -> Value or np.ndarray (constant)
        self.materialized = {}
        self.deps = {}      # name -> graph inputs it is computed from
        self.producer = {}  # name -> the node that computed it
        # name -> (the 0-d i64 Value counting its valid entries, the dim it
        # counts): a padded result computed at run time (NonMaxSuppression's
        # selected indices, rows; NonZero's indices, dim 1) and what keeps
        # its padding past the count (_counted_rows); sliced by dlc.Module.run
        self.counted = {}
        self.value_inputs = set()  # graph inputs dlc may specialise on (small, shape-like)
        self.wide = {}      # name -> ONNX element type dlg lacks, held widened (_WIDE)
        self.empty_counts = set()  # id() of the constant 0 counts of empty Slices
        self.bf16_raw = set()  # Casts to BFLOAT16, truncated only at the boundary

    # --- values -----------------------------------------------------------

    def const(self, name):
        v = self.vals.get(name)
        return v if isinstance(v, np.ndarray) else None

    def value(self, name, node=None):
        v = self.vals[name]
        node = node or self.producer.get(name)
        if isinstance(v, Value):
            return v
        if name not in self.materialized and v.dtype.type in _WIDE_NP:
            self.materialized[name] = self.g.constant(_widen(v), name=name)
            self.wide[name] = _WIDE_NP[v.dtype.type]
        if name not in self.materialized:
            if v.dtype.type not in _ONNX_DTYPES.values():
                raise UnsupportedError(node, f"'{name}' has element type {v.dtype}, which dlg "
                                       "lacks", self.opset_label) if node is not None else \
                    CompileError(f"ONNX value '{name}': element type {v.dtype} is not supported", "")
            self.materialized[name] = self.g.constant(v, name=name)
        return self.materialized[name]

    def need_const(self, node, i, what):
        """The value of input i, which dlc needs at compile time. A graph
        input (or a value computed from small integer graph inputs only)
        raises ValueDependentError: dlc then specialises on its value."""
        name = node.input[i]
        c = self.const(name)
        if c is not None:
            if np.asarray(c).dtype.kind in "OSU":  # a STRING tensor: int('abc') otherwise
                raise UnsupportedError(node, f"{what} is a string tensor, not numbers")
            return c
        deps = self.deps.get(name, set())
        if deps and deps <= self.value_inputs:
            raise ValueDependentError(node, f"{what} is a runtime value", deps)
        raise UnsupportedError(node, f"{what} must be a constant (it is computed from "
                               "tensors at run time)")

    def shape(self, name):
        v = self.vals[name]
        return tuple(v.shape)

    # --- import -----------------------------------------------------------

    def run(self):
        graph = self.model.graph
        for init in graph.initializer:
            self.vals[init.name] = _tensor_value(init, f"ONNX initializer '{init.name}'")
            if init.data_type == _BF16:  # uint16 bits -> the float32 numbers
                self.vals[init.name] = _bf16_to_f32(self.vals[init.name])
        fixed = iter(self.input_shapes or [])
        for name, shape, elem_type in _graph_inputs(self.model):
            dims = [-1 if d is None else d for d in shape]
            if self.input_shapes is not None:
                given = list(next(fixed, dims))
                if len(given) != len(dims) or any(d >= 0 and d != g for d, g in zip(dims, given)):
                    raise CompileError(f"ONNX input '{name}': shape {tuple(given)} does not "
                                       f"fit {tuple('?' if d < 0 else d for d in dims)}", "")
                dims = given
            self.deps[name] = {name}
            dtype = _NP_DTYPES.get(elem_type)
            if all(d >= 0 for d in dims) and dtype is not None and \
                    int(np.prod(dims)) <= _VALUE_INPUT_ELEMENTS:
                self.value_inputs.add(name)
            if name in self.input_values:  # (a widened type: given widened, as run)
                self.vals[name] = _narrow(np.asarray(self.input_values[name]), elem_type)
            elif elem_type in _WIDE:  # held widened; dlc.compile widens the argument
                self.vals[name] = self.g.input(dims, _WIDE[elem_type][0], name=name)
                self.wide[name] = elem_type
            elif elem_type not in _ONNX_DTYPES:
                self.vals[name] = _BadInput(name, elem_type)
            else:
                self.vals[name] = self.g.input(dims, _ONNX_DTYPES[elem_type], name=name)
        self.value_inputs |= _value_operands(self.model, self.deps)
        for node in graph.node:
            with onnx_check.node_errors(node):  # any other exception: CompileError naming node
                self.node(node)
        for o in graph.output:
            if isinstance(self.vals.get(o.name), _BadInput):
                raise CompileError(f"ONNX output '{o.name}': " + self.vals[o.name].why(), "")
            self._check_wide_output(o)
        outs = [self.value(o.name) for o in graph.output]
        for o, v in zip(graph.output, outs):
            self._check_output_type(o, v)
        counts, at = {}, {}  # padded outputs: their counts go after the graph's outputs,
        for i, o in enumerate(graph.output):  # each once
            if o.name in self.counted:
                c, dim = self.counted[o.name]
                if id(c) not in at:
                    at[id(c)] = len(outs)
                    outs.append(c)
                counts[i] = (at[id(c)], dim) if dim else at[id(c)]
        self.g.output(*outs, counts=counts)
        return self.g

    def node(self, node):
        try:
            self._node(node)
        except UnsupportedError as e:
            if e.opset is None:  # name the opset: one line says all
                cls = type(e)
                err = cls(e.node, e.why, e.inputs, self.opset_label) \
                    if cls is ValueDependentError else cls(e.node, e.why, self.opset_label)
                raise err from None
            raise

    def _node(self, node):
        fn = getattr(self, "op_" + node.op_type, None)
        folder = _FOLD.get(node.op_type)
        if node.domain not in ("", "ai.onnx") or (fn is None and folder is None):
            raise UnsupportedError(node, "op type is not supported")
        ins = list(node.input)
        for i in ins:
            if i and i not in self.vals:
                raise UnsupportedError(node, f"input '{i}' is not defined before the node")
            if i and isinstance(self.vals[i], _BadInput):
                raise UnsupportedError(node, self.vals[i].why())
        deps = set().union(*[self.deps.get(i, set()) for i in ins if i])
        for o in node.output:
            self.deps[o] = deps
        rows = self._counted_rows(node)
        consts = [self.const(i) if i else None for i in ins]
        foldable = folder and all(c is not None for c, i in zip(consts, ins) if i)
        if foldable and node.op_type in _RUNTIME_IF_EMPTY and fn is not None:
            out = folder(self, node, [c for c in consts], _attrs(node))
            foldable = out is not None  # an empty result: computed at run time instead
        if fn is None and not foldable:
            missing = set().union(*[self.deps.get(i, set()) for i, c in zip(ins, consts)
                                    if i and c is None])
            if missing and missing <= self.value_inputs:
                raise ValueDependentError(node, "its inputs are runtime values", missing)
            raise UnsupportedError(node, "supported only on constant inputs (shape computations)")
        if foldable:
            _check_fold_size(node, consts)
            if node.op_type not in _RUNTIME_IF_EMPTY:
                out = folder(self, node, [c for c in consts], _attrs(node))
            # NumPy returns scalars (np.int64) for 0-d results: keep arrays
            outs = [np.asarray(o) for o in (out if isinstance(out, list) else [out])]
        else:
            out = self._typed(node, fn)
            outs = out if isinstance(out, list) else [out]
        if len(outs) < len([o for o in node.output if o]):
            raise UnsupportedError(node, f"output '{node.output[len(outs)]}' is not supported")
        for name, v in zip(node.output, outs):
            if name:
                self.vals[name] = v
                self.producer[name] = node
                if rows is not None:
                    self.counted[name] = rows

    # --- ops --------------------------------------------------------------

    def _x(self, node, i=0):
        return self.value(node.input[i], node)

    def _has(self, node, i):
        return len(node.input) > i and bool(node.input[i])

    def _bin(op):
        def f(self, node, a):
            return self.g.op(op, self._x(node, 0), self._x(node, 1), name_hint=node.name)
        return f

    op_Add, op_Sub, op_Mul = _bin("dlg.add"), _bin("dlg.sub"), _bin("dlg.mul")
    op_Div, op_MatMul = _bin("dlg.div"), _bin("dlg.matmul")

    def op_Pow(self, node, a):
        x, y = self._x(node, 0), self._x(node, 1)
        if _elt(x) in _FLOATS or _elt(y) not in _FLOATS:
            if _elt(x) != _elt(y):  # the exponent in the base's type: exact for
                y = self.g.cast(y, _elt_np(x))  # integer exponents of a float
            return self.g.pow(x, y, name=node.name)
        # an integer base by a float exponent: in float64, truncated back
        # (as ONNX's reference computes it)
        p = self.g.pow(self.g.cast(x, np.float64),
                       self.g.cast(y, np.float64) if _elt(y) != "f64" else y)
        return self.g.cast(p, _elt_np(x), name=node.name)

    # Variadic, broadcasting: a left fold over the inputs (one input: itself).
    def _variadic(op, mean=False):
        def f(self, node, a):
            xs = [self._x(node, i) for i in range(len(node.input)) if node.input[i]]
            if not xs:
                raise UnsupportedError(node, "no inputs")
            y = xs[0]
            for x in xs[1:]:
                y = self.g.op(op, y, x)
            if mean:
                y = self.g.div(y, self._scalar(y, float(len(xs))), name=node.name)
            return y
        return f

    op_Max, op_Min = _variadic("dlg.max"), _variadic("dlg.min")
    op_Sum, op_Mean = _variadic("dlg.add"), _variadic("dlg.add", mean=True)
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
    op_Sin, op_Cos, op_Tan = _un("dlg.sin"), _un("dlg.cos"), _un("dlg.tan")
    op_Asin, op_Acos, op_Atan = _un("dlg.asin"), _un("dlg.acos"), _un("dlg.atan")
    op_Sinh, op_Cosh, op_Asinh = _un("dlg.sinh"), _un("dlg.cosh"), _un("dlg.asinh")
    op_Acosh, op_Atanh = _un("dlg.acosh"), _un("dlg.atanh")

    def _scalar(self, x, v):
        """A 0-d constant of x's element type."""
        return self.g.constant(np.array(v, _elt_np(x)))

    def op_Reciprocal(self, node, a):
        x = self._x(node)
        return self.g.div(self._scalar(x, 1.0), x, name=node.name)

    def op_Identity(self, node, a):
        return self.vals[node.input[0]]

    def op_Dropout(self, node, a):
        """Inference: the identity, and an all-true mask. Training mode
        (opset >= 12's training_mode input, or opset < 7's is_test = 0)
        drops random elements: honoured only for ratio 0 (the identity);
        otherwise an error, never the identity in disguise."""
        training = False
        if self.opset < 7:
            training = not a.get("is_test", 0)
        elif self._has(node, 2):
            training = bool(self.need_const(node, 2, "training_mode"))
        if training:
            ratio = a.get("ratio", 0.5)
            if self._has(node, 1):
                ratio = float(self.need_const(node, 1, "ratio"))
            if ratio != 0:
                raise UnsupportedError(node, f"training-mode Dropout (ratio {ratio}) draws random "
                                       "masks; dlc compiles inference only")
        x = self.vals[node.input[0]]
        outs = [x]
        if len(node.output) > 1 and node.output[1]:
            shape = x.shape
            outs.append(np.ones(_static(node, shape, "Dropout's mask"), np.bool_))
        return outs

    def op_Clip(self, node, a):
        x = self._x(node)
        lo, hi = a.get("min", -np.inf), a.get("max", np.inf)
        bounds = []  # runtime min/max: max(x, min) then min(., max), as ONNX orders them
        for i, op in ((1, "dlg.max"), (2, "dlg.min")):
            if self._has(node, i):
                c = self.const(node.input[i])
                if c is None:
                    bounds.append((op, self._x(node, i)))
                elif i == 1:
                    lo = c.item()
                else:
                    hi = c.item()
        if _elt(x) in _FLOATS and np.isfinite(lo) and np.isfinite(hi):
            x = self.g.clamp(x, min=float(lo), max=float(hi))
        else:  # an infinite bound is no bound (clamping to +-FLT_MAX would change +-inf)
            for op, v in (("dlg.max", lo), ("dlg.min", hi)):
                if np.isfinite(v):
                    x = self.g.op(op, x, self._scalar(x, v))
        for op, v in bounds:
            x = self.g.op(op, x, v)
        return x

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
        axis = _axis(node, axis, rank)
        if self.opset < 13 and axis != rank - 1:
            raise UnsupportedError(node, "opset < 13 softmax over a non-last axis (flattening semantics)")
        return self.g.op(op, x, axis=axis, name_hint=node.name)

    def op_LogSoftmax(self, node, a):
        return self.op_Softmax(node, a, "dlg.log_softmax")

    def _spatial(self, node, a, x, kernel):
        """(strides, dilations, pads as [begins..., ends...]) of a conv or
        pool over x's spatial dims, auto_pad (SAME_UPPER/SAME_LOWER/VALID)
        resolved from the static input size."""
        n = len(kernel)
        strides = [int(v) for v in a.get("strides", [1] * n)]
        dil = [int(v) for v in a.get("dilations", [1] * n)]
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto in ("NOTSET", ""):
            pads = [int(v) for v in a.get("pads", [0] * (2 * n))]
        elif auto == "VALID":
            pads = [0] * (2 * n)
        elif auto in ("SAME_UPPER", "SAME_LOWER"):
            size = _static(node, x.shape[2:], "auto_pad")
            begin, end = [], []
            for i in range(n):
                out = -(-size[i] // strides[i])
                total = max((out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - size[i], 0)
                lo = total // 2 if auto == "SAME_UPPER" else total - total // 2
                begin.append(lo)
                end.append(total - lo)
            pads = begin + end
        else:
            raise UnsupportedError(node, f"auto_pad '{auto}'")
        return strides, dil, pads

    def _as_2d(self, node, x, what):
        """A 1-D (N, C, L) operand as (N, C, 1, L); 2-D as is; else an error."""
        rank = len(x.shape)
        if rank == 4:
            return x
        if rank == 3:
            return self._reshape_to(node, x, [x.shape[0], x.shape[1], 1, x.shape[2]])
        raise UnsupportedError(node, f"{rank - 2}-D {what} (1-D and 2-D only)")

    @staticmethod
    def _params_2d(strides, dil, pads):
        if len(strides) == 2:
            return strides, dil, pads
        return [1] + strides, [1] + dil, [0, pads[0], 0, pads[1]]

    def op_Conv(self, node, a):
        x = self._x(node, 0)
        w = self._x(node, 1)
        if len(w.shape) == 5 and len(x.shape) == 5:
            return self._conv3d(node, a)
        if len(w.shape) not in (3, 4) or len(x.shape) != len(w.shape):
            raise UnsupportedError(node, f"{len(w.shape) - 2}-D convolution (1-D, 2-D, 3-D)")
        kernel = list(a.get("kernel_shape", w.shape[2:]))
        strides, dil, pads = self._params_2d(*self._spatial(node, a, x, kernel))
        ops = [self._as_2d(node, x, "convolution"), self._as_2d(node, w, "convolution")]
        if self._has(node, 2):
            ops.append(self._x(node, 2))
        y = self.g.op("dlg.conv2d", *ops, strides=strides, padding=pads, dilations=dil,
                      groups=int(a.get("group", 1)), name_hint=node.name)
        if len(x.shape) == 3:
            y = self._reshape_to(node, y, [y.shape[0], y.shape[1], y.shape[3]])
        return y

    def _conv_transpose_pads(self, node, a, size, k, s, d, op):
        """ConvTranspose's pads [begins..., ends...]: the attribute, or
        from output_shape / auto_pad SAME_* by ONNX's rule."""
        n = len(size)
        pads = [int(v) for v in a.get("pads", [0] * (2 * n))]
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        full = [s[i] * (size[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 for i in range(n)]
        if "output_shape" in a or auto in ("SAME_UPPER", "SAME_LOWER"):
            shape = [int(v) for v in a["output_shape"]][-n:] if "output_shape" in a else \
                [size[i] * s[i] for i in range(n)]
            # ONNX's rule; a negative total (an output_shape past the full
            # output) is extra zeros at the end
            total = [full[i] - shape[i] for i in range(n)]
            half = [max(t, 0) // 2 for t in total]
            if auto == "SAME_UPPER":
                pads = half + [t - h for t, h in zip(total, half)]
            else:
                pads = [max(t, 0) - h for t, h in zip(total, half)] + \
                    [h + min(t, 0) for t, h in zip(total, half)]
        elif auto not in ("NOTSET", "VALID", ""):
            raise UnsupportedError(node, f"auto_pad '{auto}'")
        return pads

    def op_ConvTranspose(self, node, a):
        """The gradient of a convolution, composed: zeros inserted between
        input cells (reshape, pad, reshape, slice), then a stride-1
        convolution with the kernel flipped and its in/out channels swapped
        per group, padded (or cropped) by (k - 1) * dilation - pads."""
        x, w = self._x(node, 0), self._x(node, 1)
        if len(w.shape) == 5 and len(x.shape) == 5:
            return self._conv_transpose3d(node, a)
        if len(w.shape) not in (3, 4) or len(x.shape) != len(w.shape):
            raise UnsupportedError(node, f"{len(w.shape) - 2}-D ConvTranspose (1-D, 2-D, 3-D)")
        one_d = len(x.shape) == 3
        n = len(x.shape) - 2
        size = list(_static(node, x.shape[2:], "ConvTranspose"))
        g = int(a.get("group", 1))
        cin, cout_g = w.shape[0], w.shape[1]
        k = [int(v) for v in a.get("kernel_shape", w.shape[2:])]
        s = [int(v) for v in a.get("strides", [1] * n)]
        d = [int(v) for v in a.get("dilations", [1] * n)]
        op = [int(v) for v in a.get("output_padding", [0] * n)]
        pads = self._conv_transpose_pads(node, a, size, k, s, d, op)
        if one_d:
            x = self._reshape_to(node, x, [x.shape[0], x.shape[1], 1, size[0]])
            w = self._reshape_to(node, w, [cin, cout_g, 1, k[0]])
            size, k, s, d, op = [1] + size, [1] + k, [1] + s, [1] + d, [0] + op
            pads = [0, pads[0], 0, pads[1]]
        nb, c = x.shape[0], x.shape[1]
        h, wd = size
        # 1. zeros between the input cells
        if s != [1, 1]:
            x = self._reshape_to(node, x, [nb, c, h, 1, wd, 1])
            x = self.g.pad(x, pads=[0, 0, 0, 0, 0, 0, 0, 0, 0, s[0] - 1, 0, s[1] - 1], value=0.0)
            x = self._reshape_to(node, x, [nb, c, h * s[0], wd * s[1]])
            x = self.g.slice(x, starts=[0, 0, 0, 0],
                             ends=[_END, _END, (h - 1) * s[0] + 1, (wd - 1) * s[1] + 1],
                             steps=[1, 1, 1, 1])
        # 2. the kernel: flipped, [Cin, Cout/g] per group swapped to [Cout, Cin/g]
        w = self.g.slice(w, starts=[0, 0, -1, -1], ends=[_END, _END, -_END, -_END],
                         steps=[1, 1, -1, -1])
        w = self._reshape_to(node, w, [g, cin // g, cout_g] + k)
        w = self.g.transpose(w, perm=[0, 2, 1, 3, 4])
        w = self._reshape_to(node, w, [g * cout_g, cin // g] + k)
        # 3. padding (k - 1) * d - pads (and output_padding at the end); negative: crop
        lo = [(k[i] - 1) * d[i] - pads[i] for i in range(2)]
        hi = [(k[i] - 1) * d[i] - pads[i + 2] + op[i] for i in range(2)]
        if any(v < 0 for v in lo + hi):
            hh, ww = x.shape[2], x.shape[3]
            x = self.g.slice(x, starts=[0, 0, max(0, -lo[0]), max(0, -lo[1])],
                             ends=[_END, _END, hh - max(0, -hi[0]), ww - max(0, -hi[1])],
                             steps=[1, 1, 1, 1])
            lo, hi = [max(0, v) for v in lo], [max(0, v) for v in hi]
        ops = [x, w] + ([self._x(node, 2)] if self._has(node, 2) else [])
        y = self.g.op("dlg.conv2d", *ops, strides=[1, 1], padding=lo + hi, dilations=d,
                      groups=g, name_hint=node.name)
        if one_d:
            y = self._reshape_to(node, y, [y.shape[0], y.shape[1], y.shape[3]])
        return y

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
            return self._batch_norm_training(node, a)
        return self.g.batch_norm(*[self._x(node, i) for i in range(5)],
                                 epsilon=float(a.get("epsilon", 1e-5)), name=node.name)

    def _batch_norm_training(self, node, a):
        """training_mode=1 (opset 14+): normalised by the batch statistics
        (deterministic); running mean/var = input * momentum + batch *
        (1 - momentum), the batch variance being the population one."""
        x, sc, bi, mean_in, var_in = [self._x(node, i) for i in range(5)]
        rank = len(x.shape)
        axes = [0] + list(range(2, rank))
        eps, mom = float(a.get("epsilon", 1e-5)), float(a.get("momentum", 0.9))
        mean = self.g.reduce_mean(x, axes=axes, keepdims=True)
        d = self.g.sub(x, mean)
        var = self.g.reduce_mean(self.g.mul(d, d), axes=axes, keepdims=True)
        chan = [x.shape[1]] + [1] * (rank - 2)
        y = self.g.mul(self.g.mul(d, self.g.rsqrt(self.g.add(var, self._k(x, eps)))),
                       self._reshape_to(node, sc, chan))
        y = self.g.add(y, self._reshape_to(node, bi, chan))
        c = [x.shape[1]]
        outs = [y]
        for stat, run in ((mean, mean_in), (var, var_in)):
            cur = self._reshape_to(node, stat, c)
            outs.append(self.g.add(self.g.mul(run, self._k(x, mom)),
                                   self.g.mul(cur, self._k(x, 1 - mom))))
        return outs[:max(1, len(node.output))]

    def op_LayerNormalization(self, node, a):
        ops = [self._x(node, 0)]
        seg = [1, 0, 0]
        for i in (1, 2):
            if len(node.input) > i and node.input[i]:
                ops.append(self._x(node, i))
                seg[i] = 1
        x = ops[0]
        if a.get("stash_type", 1) != 1:
            raise UnsupportedError(node, f"stash_type {a['stash_type']} (only float32 statistics)")
        axis, eps = int(a.get("axis", -1)), float(a.get("epsilon", 1e-5))
        y = self.g.layer_norm(*ops, axis=axis, epsilon=eps,
                              operandSegmentSizes=f"array<i32: {seg[0]}, {seg[1]}, {seg[2]}>",
                              name=node.name)
        outs = [y]
        if any(node.output[1:]):
            # Mean and InvStdDev (shape [d0, ..., d(axis-1), 1, ..., 1]) composed
            # from reductions: mean, then 1/sqrt(mean((x - mean)^2) + eps).
            rank = len(x.shape)
            axes = list(range(_axis(node, axis, rank), rank))
            mean = self.g.reduce_mean(x, axes=axes, keepdims=True)
            d = self.g.sub(x, mean)
            var = self.g.reduce_mean(self.g.mul(d, d), axes=axes, keepdims=True)
            inv = self.g.rsqrt(self.g.add(var, self._scalar(var, eps)))
            outs += [mean, inv][:len(node.output) - 1]
        return outs

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
        if a.get("storage_order", 0):
            raise UnsupportedError(node, "storage_order=1 is not supported")
        k = [int(v) for v in a["kernel_shape"]]
        x = self._x(node)
        if len(k) not in (1, 2) or len(x.shape) != len(k) + 2:
            raise UnsupportedError(node, f"{len(k)}-D pooling (1-D and 2-D only)")
        strides, dil, pads = self._spatial(node, a, x, k)
        if any(d != 1 for d in dil):
            raise UnsupportedError(node, f"dilations {dil} (dilated pooling)")
        one_d = len(k) == 1
        strides, _, pads = self._params_2d(strides, dil, pads)
        k = [1] + k if one_d else k
        x2 = self._as_2d(node, x, "pooling")
        include_pad = bool(a.get("count_include_pad", 0))
        if a.get("ceil_mode", 0):
            # ceil_mode: more padding at the end of each spatial dim, as much
            # as the extra output row needs. The extra cells are never in a
            # max, nor counted in an average that excludes padding; a last
            # window starting past the input and the begin padding is dropped
            # (as ONNX and PyTorch do).
            h = _static(node, x2.shape[2:], "ceil_mode pooling")
            for i in range(2):
                span = h[i] + pads[i] + pads[i + 2] - k[i]
                out = -(-span // strides[i]) + 1
                if (out - 1) * strides[i] >= h[i] + pads[i]:
                    out -= 1
                extra = max(0, (out - 1) * strides[i] - span)
                if extra and include_pad and op == "dlg.avg_pool2d":
                    raise UnsupportedError(node, "ceil_mode=1 with count_include_pad=1 "
                                           "(the extra cells are not counted)")
                pads[i + 2] += extra
        extra = {"count_include_pad": include_pad} if op == "dlg.avg_pool2d" else {}
        y = self.g.op(op, x2, kernel=k, strides=strides, padding=pads, name_hint=node.name,
                      **extra)
        if one_d:
            y = self._reshape_to(node, y, [y.shape[0], y.shape[1], y.shape[3]])
        return y

    def op_MaxPool(self, node, a):
        if self._by_slices(node, a):
            return self._pool_slices(node, a, "max")
        if len(node.output) > 1 and node.output[1]:
            raise UnsupportedError(node, "the Indices output is not supported")
        return self._pool(node, a, "dlg.max_pool2d")

    def op_AveragePool(self, node, a):
        if self._by_slices(node, a):
            return self._pool_slices(node, a, "avg")
        return self._pool(node, a, "dlg.avg_pool2d")

    def op_GlobalAveragePool(self, node, a):
        return self.g.reduce_mean(self._x(node), axes=[2, 3], keepdims=True, name=node.name)

    def _reduce(op, pre=None, post=None, floats=False):
        """ONNX Reduce*: axes (attribute, or input from opset 13/18), keepdims,
        noop_with_empty_axes; `pre`/`post` compose the L1/L2/Log* variants."""
        def f(self, node, a):
            x = self._x(node)
            if floats and _elt(x) not in _FLOATS:
                raise UnsupportedError(node, f"{node.op_type} on {_elt(x)}")
            axes = a.get("axes")
            if axes is None and self._has(node, 1):
                axes = [int(v) for v in self.need_const(node, 1, "axes")]
            if not axes and a.get("noop_with_empty_axes", 0):
                return x if pre is None else pre(self, x)  # ONNX applies the element-wise part
            keep = bool(a.get("keepdims", 1))
            if pre is not None:
                x = pre(self, x)
            y = self.g.op(op, x, axes=list(axes or []), keepdims=keep,
                          name_hint=None if post else node.name)
            return post(self, y) if post else y
        return f

    op_ReduceMean, op_ReduceSum = _reduce("dlg.reduce_mean"), _reduce("dlg.reduce_sum")
    op_ReduceMax, op_ReduceMin = _reduce("dlg.reduce_max"), _reduce("dlg.reduce_min")
    op_ReduceL1 = _reduce("dlg.reduce_sum", pre=lambda self, x: self.g.abs(x))
    op_ReduceSumSquare = _reduce("dlg.reduce_sum", pre=lambda self, x: self.g.mul(x, x))
    op_ReduceL2 = _reduce("dlg.reduce_sum", pre=lambda self, x: self.g.mul(x, x),
                          post=lambda self, y: self.g.sqrt(y), floats=True)
    op_ReduceLogSum = _reduce("dlg.reduce_sum", post=lambda self, y: self.g.log(y), floats=True)

    def op_ReduceLogSumExp(self, node, a):
        """log(sum(exp(x - m))) + m with m the max over the axes (no overflow)."""
        x = self._x(node)
        if _elt(x) not in _FLOATS:
            raise UnsupportedError(node, f"ReduceLogSumExp on {_elt(x)}")
        axes = a.get("axes")
        if axes is None and self._has(node, 1):
            axes = [int(v) for v in self.need_const(node, 1, "axes")]
        if not axes and a.get("noop_with_empty_axes", 0):
            return x
        axes = list(axes or [])
        m = self.g.reduce_max(x, axes=axes, keepdims=True)
        s = self.g.reduce_sum(self.g.exp(self.g.sub(x, m)), axes=axes, keepdims=True)
        y = self.g.add(self.g.log(s), m)
        if not a.get("keepdims", 1):
            rank = len(x.shape)
            ax = {_axis(node, d, rank, "axes entry") for d in axes} if axes else set(range(rank))
            y = self._reshape_to(node, y, [d for i, d in enumerate(y.shape) if i not in ax])
        return y

    def op_GlobalMaxPool(self, node, a):
        x = self._x(node)
        return self.g.reduce_max(x, axes=list(range(2, len(x.shape))), keepdims=True,
                                 name=node.name)

    # --- element-wise compositions ------------------------------------------

    def _float_x(self, node):
        x = self._x(node)
        if _elt(x) not in _FLOATS:
            raise UnsupportedError(node, f"{node.op_type} on {_elt(x)}")
        return x

    def _k(self, x, v):
        return self._scalar(x, v)

    def op_Elu(self, node, a):
        x = self._float_x(node)
        neg = self.g.mul(self._k(x, a.get("alpha", 1.0)), self.g.sub(self.g.exp(x), self._k(x, 1)))
        return self.g.where(self.g.less(x, self._k(x, 0)), neg, x, name=node.name)

    def op_Selu(self, node, a):
        x = self._float_x(node)
        alpha, gamma = a.get("alpha", 1.67326319217681884765625), a.get("gamma", 1.05070102214813232421875)
        neg = self.g.mul(self._k(x, alpha), self.g.sub(self.g.exp(x), self._k(x, 1)))
        y = self.g.where(self.g.less_equal(x, self._k(x, 0)), neg, x)
        return self.g.mul(y, self._k(x, gamma), name=node.name)

    def op_Celu(self, node, a):
        x = self._float_x(node)
        alpha = a.get("alpha", 1.0)
        e = self.g.mul(self._k(x, alpha),
                       self.g.sub(self.g.exp(self.g.div(x, self._k(x, alpha))), self._k(x, 1)))
        return self.g.add(self.g.max(x, self._k(x, 0)), self.g.min(e, self._k(x, 0)),
                          name=node.name)

    def _softplus(self, x):
        # log(1 + e^x) = max(x, 0) + log(1 + e^-|x|): no overflow
        t = self.g.exp(self.g.neg(self.g.abs(x)))
        return self.g.add(self.g.max(x, self._k(x, 0)), self.g.log(self.g.add(t, self._k(x, 1))))

    def op_Softplus(self, node, a):
        return self._softplus(self._float_x(node))

    def op_Softsign(self, node, a):
        x = self._float_x(node)
        return self.g.div(x, self.g.add(self.g.abs(x), self._k(x, 1)), name=node.name)

    def op_Mish(self, node, a):
        x = self._float_x(node)
        return self.g.mul(x, self.g.tanh(self._softplus(x)), name=node.name)

    def op_ThresholdedRelu(self, node, a):
        x = self._float_x(node)
        return self.g.where(self.g.greater(x, self._k(x, a.get("alpha", 1.0))), x,
                            self._k(x, 0), name=node.name)

    def op_PRelu(self, node, a):
        x = self._x(node)
        s = self._x(node, 1)
        return self.g.where(self.g.less(x, self._k(x, 0)), self.g.mul(x, s), x, name=node.name)

    def op_Shrink(self, node, a):
        x = self._x(node)
        lambd, bias = a.get("lambd", 0.5), a.get("bias", 0.0)
        if _elt(x) not in _FLOATS and (lambd != int(lambd) or bias != int(bias)):
            raise UnsupportedError(node, f"non-integral lambd/bias on {_elt(x)}")
        lo = self.g.add(x, self._k(x, bias))
        hi = self.g.sub(x, self._k(x, bias))
        y = self.g.where(self.g.greater(x, self._k(x, lambd)), hi, self._k(x, 0))
        return self.g.where(self.g.less(x, self._k(x, -lambd)), lo, y, name=node.name)

    def op_Sign(self, node, a):
        x = self._x(node)
        y = self.g.where(self.g.less(x, self._k(x, 0)), self._k(x, -1), self._k(x, 0))
        return self.g.where(self.g.greater(x, self._k(x, 0)), self._k(x, 1), y, name=node.name)

    def op_IsNaN(self, node, a):
        x = self._float_x(node)
        return self.g.not_equal(x, x, name=node.name)

    def op_IsInf(self, node, a):
        x = self._float_x(node)
        pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
        inf = self._k(x, np.inf)
        p = self.g.equal(x, inf)
        n = self.g.equal(x, self.g.neg(inf))
        if pos and neg:
            return self.g.where(p, self._mask(True), n, name=node.name)
        if pos:
            return p
        if neg:
            return n
        return self.g.constant(np.zeros(_static(node, x.shape, "IsInf"), np.bool_))

    # Rounding: through int32 (int64) where |x| < 2^23 (2^52): f32 (f64) values
    # from there on are integers, and inf/nan stay themselves.
    _TRUNC = {"f32": (np.int32, 2.0 ** 23), "f64": (np.int64, 2.0 ** 52)}

    def _trunc(self, node, x):
        """(x rounded toward zero where |x| is below the bound, that mask)."""
        if _elt(x) not in self._TRUNC:
            raise UnsupportedError(node, f"{node.op_type} on {_elt(x)} (float32/float64 only)")
        it, bound = self._TRUNC[_elt(x)]
        t = self.g.cast(self.g.cast(x, it), _elt_np(x))  # toward zero
        small = self.g.less(self.g.abs(x), self._k(x, bound))
        return t, small

    def _round_base(self, node, x):
        return self._trunc(node, x)

    def _floor(self, node, x):
        t, small = self._round_base(node, x)
        f = self.g.where(self.g.greater(t, x), self.g.sub(t, self._k(x, 1)), t)
        return self.g.where(small, f, x)

    def op_Floor(self, node, a):
        return self._floor(node, self._x(node))

    def op_Ceil(self, node, a):
        x = self._x(node)
        t, small = self._round_base(node, x)
        c = self.g.where(self.g.less(t, x), self.g.add(t, self._k(x, 1)), t)
        return self.g.where(small, c, x, name=node.name)

    def op_Round(self, node, a):
        return self._round_even(node, self._x(node))

    def _round_even(self, node, x):
        """Half to even: floor, +1 above .5, and at .5 the even neighbour."""
        f = self._floor(node, x)
        d = self.g.sub(x, f)
        half = self._k(x, 0.5)
        f1 = self.g.add(f, self._k(x, 1))
        odd = self.g.not_equal(self.g.sub(f, self.g.mul(self._floor(node, self.g.mul(f, half)),
                                                       self._k(x, 2))), self._k(x, 0))
        at_half = self.g.where(odd, f1, f)
        y = self.g.where(self.g.greater(d, half), f1, self.g.where(self.g.less(d, half), f, at_half))
        return y

    def op_Mod(self, node, a):
        x, y = self._x(node, 0), self._x(node, 1)
        if _elt(x) in _FLOATS:
            return self._float_mod(node, x, y, a.get("fmod", 0))
        # integer: the remainder of the truncating division (fmod=1: x's sign),
        # moved to y's sign (fmod=0)
        r = self.g.sub(x, self.g.mul(self.g.div(x, y), y))
        if a.get("fmod", 0):
            return r
        zero = self._k(x, 0)
        rn, yn = self.g.less(r, zero), self.g.less(y, zero)
        signs_differ = self.g.where(rn, self.g.where(yn, self._mask(False), self._mask(True)), yn)
        fix = self.g.where(self.g.not_equal(r, zero), signs_differ, self._mask(False))
        return self.g.where(fix, self.g.add(r, y), r, name=node.name)

    def _float_mod(self, node, x, y, fmod):
        """dlg.fmod is C's fmod (np.fmod), exact for any quotient. fmod=0 is
        np.mod: a non-zero remainder whose sign differs from y's moves by y,
        and a zero one takes y's sign (NumPy's npy_divmod, step by step, so
        its rounding of r + y is NumPy's too); NaN and inf follow fmod."""
        r = self.g.fmod(x, y, name=None if not fmod else node.name)
        if fmod:
            return r
        zero = self._k(x, 0)
        yn = self.g.less(y, zero)
        signs_differ = self.g.where(self.g.less(r, zero), self.g.where(yn, self._mask(False),
                                                                       self._mask(True)), yn)
        moved = self.g.where(signs_differ, self.g.add(r, y), r)
        signed_zero = self.g.where(yn, self._k(x, -0.0), zero)
        return self.g.where(self.g.equal(r, zero), signed_zero, moved, name=node.name)

    # --- index-like compositions ----------------------------------------------

    def _arange_on(self, n, axis, rank, dtype):
        """arange(n) as a constant of `rank` dims, along `axis`."""
        shape = [1] * rank
        shape[axis] = n
        return self.g.constant(np.arange(n, dtype=dtype).reshape(shape))

    def _arg(self, node, a, reduce_op):
        x = self._x(node)
        rank = len(x.shape)
        axis = _axis(node, a.get("axis", 0), rank)
        n = _static(node, [x.shape[axis]], "ArgMax/ArgMin's axis")[0]
        m = self.g.op(reduce_op, x, axes=[axis], keepdims=True)
        hit = self.g.equal(x, m)
        idx = self._arange_on(n, axis, rank, np.int64)
        keep = bool(a.get("keepdims", 1))
        if a.get("select_last_index", 0):
            i = self.g.where(hit, idx, self.g.constant(np.array(-1, np.int64)))
            return self.g.reduce_max(i, axes=[axis], keepdims=keep, name=node.name)
        i = self.g.where(hit, idx, self.g.constant(np.array(n, np.int64)))
        return self.g.reduce_min(i, axes=[axis], keepdims=keep, name=node.name)

    def op_ArgMax(self, node, a):
        return self._arg(node, a, "dlg.reduce_max")

    def op_ArgMin(self, node, a):
        return self._arg(node, a, "dlg.reduce_min")

    def op_Hardmax(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        axis = _axis(node, a.get("axis", -1 if self.opset >= 13 else 1), rank)
        if self.opset < 13 and axis != rank - 1:
            raise UnsupportedError(node, "opset < 13 Hardmax over a non-last axis (flattening)")
        am = self._arg(node, {"axis": axis, "keepdims": 1}, "dlg.reduce_max")
        idx = self._arange_on(x.shape[axis], axis, rank, np.int64)
        return self.g.where(self.g.equal(idx, am), self._k(x, 1), self._k(x, 0), name=node.name)

    def op_Trilu(self, node, a):
        x = self._x(node)
        k = int(self.need_const(node, 1, "k")) if self._has(node, 1) else 0
        m, n = _static(node, x.shape[-2:], "Trilu")
        mask = (np.triu if a.get("upper", 1) else np.tril)(np.ones((m, n), np.bool_), k)
        zero = self._mask(False) if _elt(x) == "i1" else self._k(x, 0)
        return self.g.where(self.g.constant(mask), x, zero, name=node.name)

    def op_EyeLike(self, node, a):
        x = self.vals[node.input[0]]
        shape = _static(node, x.shape, "EyeLike")
        dtype = _NP_DTYPES.get(a["dtype"]) if "dtype" in a else \
            (x.dtype if isinstance(x, np.ndarray) else _elt_np(x))
        if dtype is None:
            raise UnsupportedError(node, "dtype " + _type_name(a["dtype"]))
        return np.eye(shape[0], shape[1], a.get("k", 0), dtype=dtype)

    def _index_check(self, node, parts, where):
        """Indices given to `node` at run time, tested as dlc's kernels cannot
        raise: `parts` holds (index tensor, its extent n, its value when
        constant, else None); every index must lie in [-n, n). Constant ones are checked here (an error
        naming the node); others become a 0-d i32 verdict, nonzero when one
        is out, whose op carries the message as `dlc.check`: the JIT and
        dlc-compile make the entry return it (passes/dlg_runtime_checks.c)
        and fail the run with the message. Elsewhere it is dead code."""
        live = []
        for idx, n, v in parts:
            if v is None:
                live.append((idx, n))
                continue
            flat = np.asarray(v).reshape(-1).astype(np.int64)
            bad = flat[(flat < -n) | (flat >= n)]
            if bad.size:
                raise UnsupportedError(node, f"index {int(bad[0])} is outside {where}")
        if not live:
            return
        one, zero = self.g.constant(np.array(1, np.int32)), self.g.constant(np.array(0, np.int32))
        verdict = None
        for idx, n in live:
            out = self.g.where(self.g.less(idx, self._k(idx, -n)), one,
                               self.g.where(self.g.greater_equal(idx, self._k(idx, n)), one, zero))
            part = self.g.reduce_max(out, axes=[], keepdims=False)
            verdict = part if verdict is None else self.g.max(verdict, part)
        self.g.max(verdict, zero, **{"dlc.check": f"{node.op_type} '{node.name}': an index given "
                                                   f"at run time is outside {where}"})

    def _onehot_gather(self, node, data, idx, axis):
        """out[.., i, ..] = data[.., idx[.., i, ..], ..] along `axis`, both of one
        rank and the same dims elsewhere: a compare against arange over a new
        dim and a sum (exact: one term is the value, the others 0)."""
        rank = len(data.shape)
        n = data.shape[axis]
        dshape = list(data.shape)
        ishape = list(idx.shape)
        d = self._reshape_to(node, data, dshape[:axis] + [1] + dshape[axis:])
        idx = self.g.where(self.g.less(idx, self._k(idx, 0)), self.g.add(idx, self._k(idx, n)), idx)
        i = self._reshape_to(node, idx, ishape[:axis + 1] + [1] + ishape[axis + 1:])
        hit = self.g.equal(i, self._arange_on(n, axis + 1, rank + 1, _elt_np(idx)))
        zero = self._k(data, 0)
        return self.g.reduce_sum(self.g.where(hit, d, zero), axes=[axis + 1], keepdims=False)

    def op_GatherElements(self, node, a):
        data, idx = self._x(node, 0), self._x(node, 1)
        rank = len(data.shape)
        axis = _axis(node, a.get("axis", 0), rank)
        if _elt(data) == "i1":
            raise UnsupportedError(node, "bool data")
        dshape = _static(node, data.shape, "GatherElements")
        ishape = _static(node, idx.shape, "GatherElements")
        if any(i > d for j, (i, d) in enumerate(zip(ishape, dshape)) if j != axis):
            raise UnsupportedError(node, "indices larger than data off the axis")
        if any(i != d for j, (i, d) in enumerate(zip(ishape, dshape)) if j != axis):
            data = self.g.slice(data, starts=[0] * rank,
                                ends=[d if j == axis else i for j, (i, d) in
                                      enumerate(zip(ishape, dshape))], steps=[1] * rank)
        n = dshape[axis]
        self._index_check(node, [(idx, n, self.const(node.input[1]))],
                          f"[{-n}, {n}), the range of axis {axis} of its data")
        return self._onehot_gather(node, data, idx, axis)

    def op_CumSum(self, node, a):
        """y[.., i, ..] = sum of x[.., j, ..] over j <= i (j < i exclusive; j >= i
        reverse), as a masked sum over a new dim."""
        x = self._x(node)
        rank = len(x.shape)
        axis = _axis(node, self.need_const(node, 1, "axis"), rank)
        n = _static(node, [x.shape[axis]], "CumSum")[0]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        rev, excl = a.get("reverse", 0), a.get("exclusive", 0)
        mask = (j > i if excl else j >= i) if rev else (j < i if excl else j <= i)
        shape = [1] * (rank + 1)
        shape[axis], shape[axis + 1] = n, n
        xs = list(x.shape)
        xe = self._reshape_to(node, x, xs[:axis] + [1] + xs[axis:])
        y = self.g.where(self.g.constant(mask.reshape(shape)), xe, self._k(x, 0))
        return self.g.reduce_sum(y, axes=[axis + 1], keepdims=False, name=node.name)

    def op_OneHot(self, node, a):
        idx = self._x(node, 0)
        depth = int(self.need_const(node, 1, "depth"))
        values = self.need_const(node, 2, "values")
        if values.dtype.type not in _ONNX_DTYPES.values():
            raise UnsupportedError(node, f"values of {values.dtype}")
        rank = len(idx.shape) + 1
        axis = _axis(node, a.get("axis", -1), rank)
        if _elt(idx) in ("f32", "f16"):
            idx = self.g.cast(idx, np.int64)  # ONNX truncates float indices
        idx = self.g.where(self.g.less(idx, self._k(idx, 0)), self.g.add(idx, self._k(idx, depth)),
                           idx)
        ishape = list(idx.shape)
        i = self._reshape_to(node, idx, ishape[:axis] + [1] + ishape[axis:])
        hit = self.g.equal(i, self._arange_on(depth, axis, rank, _elt_np(idx)))
        return self.g.where(hit, self.g.constant(values[1]), self.g.constant(values[0]),
                            name=node.name)

    def op_Tile(self, node, a):
        """x [a, b] tiled [r, s]: broadcast as [r, a, s, b], then reshaped."""
        x = self._x(node)
        reps = [int(v) for v in self.need_const(node, 1, "repeats")]
        xs = _static(node, x.shape, "Tile")
        if len(reps) != len(xs) or any(r < 1 for r in reps):
            raise UnsupportedError(node, f"repeats {reps} for a rank-{len(xs)} input")
        inter = [v for d in xs for v in (1, d)]
        big = [v for r, d in zip(reps, xs) for v in (r, d)]
        xe = self._reshape_to(node, x, inter)
        if _elt(x) == "i1":
            y = self.g.where(xe, self.g.constant(np.ones(big, np.bool_)),
                             self.g.constant(np.zeros(big, np.bool_)))
        else:
            y = self.g.add(xe, self.g.constant(np.zeros(big, _elt_np(x))))
        return self._reshape_to(node, y, [r * d for r, d in zip(reps, xs)])

    def op_DepthToSpace(self, node, a):
        x = self._x(node)
        n, c, h, w = _static(node, x.shape, "DepthToSpace")
        b = int(a["blocksize"])
        mode = a.get("mode", b"DCR")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode == "DCR":
            y = self._reshape_to(node, x, [n, b, b, c // (b * b), h, w])
            y = self.g.transpose(y, perm=[0, 3, 4, 1, 5, 2])
        else:
            y = self._reshape_to(node, x, [n, c // (b * b), b, b, h, w])
            y = self.g.transpose(y, perm=[0, 1, 4, 2, 5, 3])
        return self._reshape_to(node, y, [n, c // (b * b), h * b, w * b])

    def op_SpaceToDepth(self, node, a):
        x = self._x(node)
        n, c, h, w = _static(node, x.shape, "SpaceToDepth")
        b = int(a["blocksize"])
        y = self._reshape_to(node, x, [n, c, h // b, b, w // b, b])
        y = self.g.transpose(y, perm=[0, 3, 5, 1, 2, 4])
        return self._reshape_to(node, y, [n, c * b * b, h // b, w // b])

    def op_LRN(self, node, a):
        """x / (bias + alpha / size * (sum of x^2 over the channel window))^beta."""
        x = self._float_x(node)
        size = int(a["size"])
        alpha, beta, bias = a.get("alpha", 1e-4), a.get("beta", 0.75), a.get("bias", 1.0)
        rank = len(x.shape)
        c = x.shape[1]
        lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
        sq = self.g.pad(self.g.mul(x, x), pads=[0, lo] + [0] * (rank - 2) + [0, hi] +
                        [0] * (rank - 2), value=0.0)
        s = None
        for k in range(size):
            part = self.g.slice(sq, starts=[0, k] + [0] * (rank - 2),
                                ends=[_END, k + c] + [_END] * (rank - 2), steps=[1] * rank)
            s = part if s is None else self.g.add(s, part)
        d = self.g.add(self.g.mul(s, self._k(x, alpha / size)), self._k(x, bias))
        return self.g.div(x, self.g.pow(d, self._k(x, beta)), name=node.name)

    # --- Resize: separable, one constant interpolation matrix per resized axis ---

    def op_Resize(self, node, a):
        """Each resized axis is a matrix product with a constant [out, in]
        interpolation matrix built here with ONNX's rules (coordinate
        transformation, neighbour choice with edge padding, cubic
        coefficients, exclude_outside); nearest is a gather (exact for every
        type). Scales/sizes/roi must be constants (graph inputs: specialised)."""
        x = self._x(node)
        rank = len(x.shape)
        shape = _static(node, x.shape, "Resize")
        s = lambda k: a.get(k, b"").decode() if isinstance(a.get(k, b""), bytes) else a.get(k, "")
        mode = s("mode") or "nearest"
        ctm = s("coordinate_transformation_mode") or ("asymmetric" if self.opset < 11
                                                       else "half_pixel")
        nearest_mode = s("nearest_mode") or "round_prefer_floor"
        if mode not in ("nearest", "linear", "cubic"):
            raise UnsupportedError(node, f"mode '{mode}'")
        if ctm not in ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                       "tf_crop_and_resize"):
            raise UnsupportedError(node, f"coordinate_transformation_mode '{ctm}'")
        if a.get("antialias", 0) or "axes" in a or "keep_aspect_ratio_policy" in a:
            raise UnsupportedError(node, "antialias/axes/keep_aspect_ratio_policy (opset 18)")
        if self.opset < 11:
            scales, sizes, roi = self.need_const(node, 1, "scales"), None, None
        else:
            roi = self.need_const(node, 1, "roi") if self._has(node, 1) else None
            scales = self.need_const(node, 2, "scales") if self._has(node, 2) else None
            sizes = self.need_const(node, 3, "sizes") if self._has(node, 3) else None
            if scales is not None and scales.size == 0:
                scales = None
        if sizes is not None and sizes.size:
            out = [int(v) for v in sizes]
            scales = [o / i for o, i in zip(out, shape)]
        elif scales is not None:
            scales = [float(v) for v in scales]
            out = [int(sc * i) for sc, i in zip(scales, shape)]
        else:
            raise UnsupportedError(node, "neither scales nor sizes")
        if len(out) != rank or any(o < 1 for o in out):
            raise UnsupportedError(node, f"output size {out} for a rank-{rank} input")
        if ctm == "tf_crop_and_resize" and (roi is None or roi.size != 2 * rank):
            raise UnsupportedError(node, "tf_crop_and_resize without a roi of 2 x rank values")
        if mode != "nearest" and _elt(x) not in _FLOATS:
            raise UnsupportedError(node, f"{mode} interpolation of {_elt(x)}")
        outside = np.zeros(out, np.bool_)  # tf_crop_and_resize: extrapolated cells
        y = x
        for ax in range(rank):
            if out[ax] == shape[ax] and scales[ax] == 1 and ctm != "tf_crop_and_resize":
                continue
            w, off = _resize_matrix(shape[ax], out[ax], scales[ax], mode, ctm, nearest_mode,
                                    a.get("cubic_coeff_a", -0.75), a.get("exclude_outside", 0),
                                    # roi only matters to tf_crop_and_resize (PyTorch
                                    # exports an empty one for the other modes)
                                    None if ctm != "tf_crop_and_resize" else
                                    (float(roi[ax]), float(roi[ax + rank])))
            if off.any():
                o = [1] * rank
                o[ax] = out[ax]
                outside = outside | off.reshape(o)
            if w.shape[0] == w.shape[1] and np.array_equal(w, np.eye(len(w))):
                continue
            if mode == "nearest":
                y = self.g.gather(y, self.g.constant(w.argmax(1).astype(np.int64)), axis=ax)
                continue
            perm = [i for i in range(rank) if i != ax] + [ax]
            inv = list(np.argsort(perm))
            t = self.g.transpose(y, perm=perm) if ax != rank - 1 else y
            t = self.g.matmul(t, self.g.constant(w.T.astype(_elt_np(x))))
            y = self.g.transpose(t, perm=inv) if ax != rank - 1 else t
        if outside.any():
            y = self.g.where(self.g.constant(outside),
                             self._k(x, a.get("extrapolation_value", 0.0)), y)
        return y

    def op_ReduceProd(self, node, a):
        """A left fold of multiplications over slices of each reduced axis
        (no dlg product reduction); axes of at most 64 elements."""
        x = self._x(node)
        rank = len(x.shape)
        axes = a.get("axes")
        if axes is None and self._has(node, 1):
            axes = [int(v) for v in self.need_const(node, 1, "axes")]
        if not axes and a.get("noop_with_empty_axes", 0):
            return x
        axes = sorted({_axis(node, d, rank, "axes entry") for d in axes} if axes else range(rank))
        shape = _static(node, x.shape, "ReduceProd")
        if any(shape[d] > 64 for d in axes):
            raise UnsupportedError(node, "ReduceProd over an axis of more than 64 elements")
        y = x
        for d in axes:
            acc = None
            for i in range(shape[d]):
                st = [i if j == d else 0 for j in range(rank)]
                en = [i + 1 if j == d else _END for j in range(rank)]
                part = self.g.slice(y, starts=st, ends=en, steps=[1] * rank)
                acc = part if acc is None else self.g.mul(acc, part)
            y = acc
        if not a.get("keepdims", 1):
            y = self._reshape_to(node, y, [n for i, n in enumerate(shape) if i not in axes])
        return y

    def op_MeanVarianceNormalization(self, node, a):
        x = self._float_x(node)
        axes = list(a.get("axes", [0, 2, 3]))
        mean = self.g.reduce_mean(x, axes=axes, keepdims=True)
        d = self.g.sub(x, mean)
        var = self.g.reduce_mean(self.g.mul(d, d), axes=axes, keepdims=True)
        return self.g.div(d, self.g.sqrt(var), name=node.name)

    def op_Upsample(self, node, a):
        """Opset 7-9 Upsample: Resize with asymmetric coordinates."""
        mode = a.get("mode", b"nearest")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        scales = np.array(a["scales"], np.float32) if "scales" in a else \
            self.need_const(node, 1, "scales")
        if mode not in ("nearest", "linear"):
            raise UnsupportedError(node, f"mode '{mode}'")
        x = self._x(node)
        shape = _static(node, x.shape, "Upsample")
        y = x
        for ax, sc in enumerate(scales):
            out = int(sc * shape[ax])
            if out == shape[ax] and sc == 1:
                continue
            w, _ = _resize_matrix(shape[ax], out, float(sc), mode, "asymmetric", "floor",
                                  -0.75, 0, None)
            if mode == "nearest":
                y = self.g.gather(y, self.g.constant(w.argmax(1).astype(np.int64)), axis=ax)
            else:
                rank = len(shape)
                perm = [i for i in range(rank) if i != ax] + [ax]
                t = self.g.transpose(y, perm=perm)
                t = self.g.matmul(t, self.g.constant(w.T.astype(_elt_np(x))))
                y = self.g.transpose(t, perm=list(np.argsort(perm)))
        return y

    # --- scatter / gather_nd as compositions -----------------------------------

    def _nonneg(self, idx, n):
        return self.g.where(self.g.less(idx, self._k(idx, 0)), self.g.add(idx, self._k(idx, n)),
                            idx)

    def _scatter(self, node, data, contrib, hit_any, reduction):
        if reduction == "none":
            return self.g.where(hit_any, contrib, data, name=node.name)
        if reduction == "add":
            return self.g.add(data, contrib, name=node.name)
        raise UnsupportedError(node, f"reduction '{reduction}'")

    def op_ScatterElements(self, node, a):
        """out = data with updates written at indices along axis: a compare of
        the indices against arange(dim) over a new dim, then a masked sum
        (duplicate indices: undefined for reduction none, summed for add)."""
        data, idx, upd = self._x(node, 0), self._x(node, 1), self._x(node, 2)
        rank = len(data.shape)
        axis = _axis(node, a.get("axis", 0), rank)
        red = a.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        dshape = _static(node, data.shape, "ScatterElements")
        ishape = _static(node, idx.shape, "ScatterElements")
        if any(i != d for j, (i, d) in enumerate(zip(ishape, dshape)) if j != axis):
            raise UnsupportedError(node, "indices smaller than data off the axis")
        if _elt(data) == "i1":
            raise UnsupportedError(node, "bool data")
        n = dshape[axis]
        self._index_check(node, [(idx, n, self.const(node.input[1]))],
                          f"[{-n}, {n}), the range of axis {axis} of its data")
        idx = self._nonneg(idx, n)
        ie = self._reshape_to(node, idx, list(ishape[:axis + 1]) + [1] + list(ishape[axis + 1:]))
        ue = self._reshape_to(node, upd, list(ishape[:axis + 1]) + [1] + list(ishape[axis + 1:]))
        hit = self.g.equal(ie, self._arange_on(n, axis + 1, rank + 1, _elt_np(idx)))
        contrib = self.g.reduce_sum(self.g.where(hit, ue, self._k(data, 0)), axes=[axis],
                                    keepdims=False)
        count = self.g.reduce_sum(self.g.where(hit, self.g.constant(np.array(1, np.int32)),
                                               self.g.constant(np.array(0, np.int32))),
                                  axes=[axis], keepdims=False)
        hit_any = self.g.greater(count, self.g.constant(np.array(0, np.int32)))
        return self._scatter(node, data, contrib, hit_any, red)

    op_Scatter = op_ScatterElements

    def _linear_index(self, node, data, idx, batch_dims):
        """indices [..., k] into data's dims [batch_dims, batch_dims + k) as
        one linear index (batch coordinates folded in), and the flat length."""
        dshape = _static(node, data.shape, node.op_type)
        ishape = _static(node, idx.shape, node.op_type)
        k = ishape[-1]
        b = batch_dims
        if b and list(ishape[:b]) != list(dshape[:b]):
            raise UnsupportedError(node, "batch dims of data and indices differ")
        dims = dshape[b:b + k]
        lin = None
        stride = 1
        parts = []
        for j in reversed(range(k)):
            r = len(ishape)
            c = self.g.slice(idx, starts=[0] * (r - 1) + [j], ends=[_END] * (r - 1) + [j + 1],
                             steps=[1] * r)
            c = self._reshape_to(node, c, list(ishape[:-1]))
            known = self.const(node.input[1])
            parts.append((c, dims[j], None if known is None else np.asarray(known)[..., j]))
            c = self.g.mul(self._nonneg(c, dims[j]), self._k(c, stride))
            lin = c if lin is None else self.g.add(lin, c)
            stride *= dims[j]
        # each component in its own dim: (0, 5) into [3, 4] would otherwise
        # read the element (1, 1)
        self._index_check(node, parts, f"the data's dims {list(dims)} (index component j "
                                       f"in [-dims[j], dims[j]))")
        flat = int(np.prod(dims)) if k else 1
        if lin is None:
            lin = self.g.constant(np.zeros(ishape[:-1], _elt_np(idx)))
        if b:
            bsz = int(np.prod(dshape[:b]))
            bidx = np.arange(bsz).reshape(list(dshape[:b]) + [1] * (len(ishape) - 1 - b))
            lin = self.g.add(lin, self.g.constant((bidx * flat).astype(_elt_np(idx))))
            flat *= bsz
        rest = list(dshape[b + k:])
        return lin, flat, rest

    def op_GatherND(self, node, a):
        data, idx = self._x(node, 0), self._x(node, 1)
        b = int(a.get("batch_dims", 0))
        lin, flat, rest = self._linear_index(node, data, idx, b)
        df = self._reshape_to(node, data, [flat] + rest)
        return self.g.gather(df, lin, axis=0, name=node.name)

    def op_ScatterND(self, node, a):
        data, idx, upd = self._x(node, 0), self._x(node, 1), self._x(node, 2)
        red = a.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        if _elt(data) == "i1":
            raise UnsupportedError(node, "bool data")
        lin, flat, rest = self._linear_index(node, data, idx, 0)
        m = int(np.prod(lin.shape))
        li = self._reshape_to(node, lin, [m, 1] + [1] * len(rest))
        hit = self.g.equal(li, self._arange_on(flat, 1, 2 + len(rest), _elt_np(lin)))
        ue = self._reshape_to(node, upd, [m, 1] + rest)
        if red == "mul":
            return self._scatter_nd_mul(node, data, hit, ue, m, flat, rest)
        contrib = self.g.reduce_sum(self.g.where(hit, ue, self._k(data, 0)), axes=[0],
                                    keepdims=False)
        one, zero = self.g.constant(np.array(1, np.int32)), self.g.constant(np.array(0, np.int32))
        count = self.g.reduce_sum(self.g.where(hit, one, zero), axes=[0], keepdims=False)
        df = self._reshape_to(node, data, [flat] + rest)
        out = self._scatter(node, df, contrib, self.g.greater(count, zero), red)
        return self._reshape_to(node, out, list(data.shape))

    # --- RNN / GRU / LSTM: unrolled over the static sequence length ------------

    def _rnn(self, node, a, kind):
        """One cell per time step (and direction), composed of matmuls and
        element-wise ops; sequence_lens masks the steps past each batch
        row's length (Y is 0 there, Y_h/Y_c keep the last valid state).
        Default activations only; clip and input_forget are errors."""
        for bad in ("activation_alpha", "activation_beta", "clip"):
            if bad in a:
                raise UnsupportedError(node, f"the '{bad}' attribute")
        if a.get("input_forget", 0):
            raise UnsupportedError(node, "input_forget=1")
        direction = a.get("direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else direction
        default = {"RNN": ["tanh"], "GRU": ["sigmoid", "tanh"],
                   "LSTM": ["sigmoid", "tanh", "tanh"]}[kind]
        if "activations" in a:
            acts = [v.decode().lower() if isinstance(v, bytes) else v.lower()
                    for v in a["activations"]]
            if acts != default * (2 if direction == "bidirectional" else 1):
                raise UnsupportedError(node, f"activations {acts} (only the defaults)")
        layout = int(a.get("layout", 0))
        x = self._float_x(node)
        if layout:
            x = self.g.transpose(x, perm=[1, 0, 2])
        t_len, bsz, _ = _static(node, x.shape, node.op_type)
        if t_len > self._LOOP_LIMIT:  # unrolled below: 2^20 steps took minutes
            raise UnsupportedError(node, f"a sequence of {t_len} steps (dlc unrolls "
                                   f"{node.op_type}: at most {self._LOOP_LIMIT})")
        w, r = self._x(node, 1), self._x(node, 2)
        hid = int(a["hidden_size"]) if "hidden_size" in a else r.shape[-1]
        gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
        ndir = 2 if direction == "bidirectional" else 1
        opt = lambda i: self._x(node, i) if self._has(node, i) else None
        bias, seq, h0 = opt(3), opt(4), opt(5)
        c0, peep = (opt(6), opt(7)) if kind == "LSTM" else (None, None)
        zero = self._k(x, 0)

        def pick(v, d, lo, hi):  # v[d, lo:hi] as 2-D (or 1-D)
            rank = len(v.shape)
            s = self.g.slice(v, starts=[d, lo] + [0] * (rank - 2),
                             ends=[d + 1, hi] + [_END] * (rank - 2), steps=[1] * rank)
            return self._reshape_to(node, s, list(s.shape[1:]))

        def state0(v, d):
            if v is None:
                return self.g.constant(np.zeros((bsz, hid), _elt_np(x)))
            return self._reshape_to(node, self.g.slice(v, starts=[d, 0, 0],
                                                       ends=[d + 1, _END, _END],
                                                       steps=[1, 1, 1]), [bsz, hid])
        steps = []
        for t in range(t_len):
            xt = self.g.slice(x, starts=[t, 0, 0], ends=[t + 1, _END, _END], steps=[1, 1, 1])
            steps.append(self._reshape_to(node, xt, [bsz, x.shape[2]]))
        if seq is not None:
            seq_col = self._reshape_to(node, seq, [bsz, 1])
        ys, hs, cs = [], [], []
        for d in range(ndir):
            reverse = direction == "reverse" or d == 1
            wg = [pick(w, d, g * hid, (g + 1) * hid) for g in range(gates)]
            rg = [pick(r, d, g * hid, (g + 1) * hid) for g in range(gates)]
            wb = [pick(bias, d, g * hid, (g + 1) * hid) if bias is not None else None
                  for g in range(gates)]
            rb = [pick(bias, d, (gates + g) * hid, (gates + g + 1) * hid)
                  if bias is not None else None for g in range(gates)]
            pp = [pick(peep, d, g * hid, (g + 1) * hid) for g in range(3)] \
                if peep is not None else None
            h, c = state0(h0, d), state0(c0, d)
            out = [None] * t_len

            def lin(xt, g, hh, with_rb=True):
                y = self.g.add(self.g.matmul(xt, wg[g], transpose_b=True),
                               self.g.matmul(hh, rg[g], transpose_b=True))
                for bb in (wb[g], rb[g] if with_rb else None):
                    if bb is not None:
                        y = self.g.add(y, bb)
                return y
            for t in (reversed(range(t_len)) if reverse else range(t_len)):
                xt = steps[t]
                if kind == "RNN":
                    hn, cn = self.g.tanh(lin(xt, 0, h)), None
                elif kind == "GRU":
                    z = self.g.sigmoid(lin(xt, 0, h))
                    rr = self.g.sigmoid(lin(xt, 1, h))
                    if a.get("linear_before_reset", 0):
                        hr = self.g.matmul(h, rg[2], transpose_b=True)
                        if rb[2] is not None:
                            hr = self.g.add(hr, rb[2])
                        pre = self.g.add(self.g.matmul(xt, wg[2], transpose_b=True),
                                         self.g.mul(rr, hr))
                        if wb[2] is not None:
                            pre = self.g.add(pre, wb[2])
                    else:
                        pre = lin(xt, 2, self.g.mul(rr, h))
                    hh = self.g.tanh(pre)
                    hn = self.g.add(self.g.mul(self.g.sub(self._k(x, 1), z), hh),
                                    self.g.mul(z, h))
                    cn = None
                else:  # LSTM, gates i, o, f, c
                    gi, go, gf, gc = [lin(xt, g, h) for g in range(4)]
                    if pp is not None:
                        gi = self.g.add(gi, self.g.mul(pp[0], c))
                        gf = self.g.add(gf, self.g.mul(pp[2], c))
                    cn = self.g.add(self.g.mul(self.g.sigmoid(gf), c),
                                    self.g.mul(self.g.sigmoid(gi), self.g.tanh(gc)))
                    if pp is not None:
                        go = self.g.add(go, self.g.mul(pp[1], cn))
                    hn = self.g.mul(self.g.sigmoid(go), self.g.tanh(cn))
                if seq is not None:
                    valid = self.g.less(self._k(seq, t), seq_col)
                    out[t] = self.g.where(valid, hn, zero)
                    h = self.g.where(valid, hn, h)
                    if cn is not None:
                        c = self.g.where(valid, cn, c)
                else:
                    out[t], h = hn, hn
                    if cn is not None:
                        c = cn
            ys.append(out)
            hs.append(h)
            cs.append(c)
        # Y [T, D, B, H] (layout 1: [B, T, D, H]); Y_h, Y_c [D, B, H] ([B, D, H])
        y = self.g.concat(*[self._reshape_to(node, ys[d][t], [1, 1, bsz, hid])
                            for t in range(t_len) for d in range(ndir)], axis=0) \
            if t_len * ndir > 1 else self._reshape_to(node, ys[0][0], [1, 1, bsz, hid])
        y = self._reshape_to(node, y, [t_len, ndir, bsz, hid])
        stack = lambda vs: self._reshape_to(node, vs[0], [1, bsz, hid]) if len(vs) == 1 else \
            self.g.concat(*[self._reshape_to(node, v, [1, bsz, hid]) for v in vs], axis=0)
        yh = stack(hs)
        yc = stack(cs) if kind == "LSTM" else None
        if layout:
            y = self.g.transpose(y, perm=[2, 0, 1, 3])
            yh = self.g.transpose(yh, perm=[1, 0, 2])
            yc = self.g.transpose(yc, perm=[1, 0, 2]) if yc is not None else None
        return [y, yh] + ([yc] if yc is not None else [])

    def op_RNN(self, node, a):
        return self._rnn(node, a, "RNN")

    def op_GRU(self, node, a):
        return self._rnn(node, a, "GRU")

    def op_LSTM(self, node, a):
        return self._rnn(node, a, "LSTM")

    def op_TopK(self, node, a):
        """The k largest (smallest) along axis, sorted, ties to the lower
        index: each element's rank counted by comparing all pairs along the
        axis ([.., n, n, ..]), then a one-hot pick of ranks 0..k-1 (values and
        int64 indices). O(n^2) per row: axes of at most 4096."""
        x = self._x(node)
        rank = len(x.shape)
        axis = _axis(node, a.get("axis", -1), rank)
        k = int(np.asarray(self.need_const(node, 1, "k")).reshape(-1)[0])
        shape = list(_static(node, x.shape, "TopK"))
        n = shape[axis]
        if not 0 < k <= n:
            raise UnsupportedError(node, f"k = {k} for an axis of {n}")
        if n > 4096:
            raise UnsupportedError(node, f"TopK over an axis of {n} (more than 4096)")
        xi = self._reshape_to(node, x, shape[:axis + 1] + [1] + shape[axis + 1:])
        xj = self._reshape_to(node, x, shape[:axis] + [1] + shape[axis:])
        before = self.g.greater(xj, xi) if a.get("largest", 1) else self.g.less(xj, xi)
        lower = np.arange(n)[None, :] < np.arange(n)[:, None]  # j < i
        lshape = [1] * (rank + 1)
        lshape[axis], lshape[axis + 1] = n, n
        tie = self.g.where(self.g.equal(xj, xi), self.g.constant(lower.reshape(lshape)),
                           self._mask(False))
        one, zero = self.g.constant(np.array(1, np.int64)), self.g.constant(np.array(0, np.int64))
        ahead = self.g.where(self.g.where(before, self._mask(True), tie), one, zero)
        rk = self.g.reduce_sum(ahead, axes=[axis + 1], keepdims=True)  # [.., n, 1, ..]
        hit = self.g.equal(rk, self._arange_on(k, axis + 1, rank + 1, np.int64))
        vals = self.g.reduce_sum(self.g.where(hit, xi, self._k(x, 0)), axes=[axis],
                                 keepdims=False)
        idx = self.g.reduce_sum(self.g.where(hit, self._arange_on(n, axis, rank + 1, np.int64),
                                             zero), axes=[axis], keepdims=False)
        return [vals, idx]

    # --- losses (inference form) -------------------------------------------------

    def _nll(self, node, a, x, t, w):
        """Negative log likelihood over x [N, C, d...] at targets t [N, d...]:
        the target's class picked by a compare against arange(C) and a sum."""
        rank = len(x.shape)
        c = _static(node, [x.shape[1]], "the class count")[0]
        ts = list(t.shape)
        te = self._reshape_to(node, t, ts[:1] + [1] + ts[1:])
        hit = self.g.equal(te, self._arange_on(c, 1, rank, _elt_np(t)))
        zero = self._k(x, 0)
        picked = self.g.reduce_sum(self.g.where(hit, x, zero), axes=[1], keepdims=False)
        wt = None
        if w is not None:
            wb = self._reshape_to(node, w, [1, c] + [1] * (rank - 2))
            wt = self.g.reduce_sum(self.g.where(hit, wb, zero), axes=[1], keepdims=False)
        if "ignore_index" in a:
            valid = self.g.not_equal(t, self._k(t, a["ignore_index"]))
            wt = self.g.where(valid, wt if wt is not None else self._k(x, 1), zero)
        loss = self.g.neg(picked)
        if wt is not None:
            loss = self.g.mul(loss, wt)
        red = a.get("reduction", b"mean")
        red = red.decode() if isinstance(red, bytes) else red
        if red == "none":
            return loss
        total = self.g.reduce_sum(loss, axes=[], keepdims=False)
        if red == "sum":
            return total
        if red != "mean":
            raise UnsupportedError(node, f"reduction '{red}'")
        if wt is None:
            return self.g.div(total, self._k(x, float(np.prod(loss.shape))))
        if wt.shape != loss.shape:  # ignore_index without weights: a 0-d 1 broadcast
            wt = self.g.add(wt, self.g.constant(np.zeros(loss.shape, _elt_np(x))))
        return self.g.div(total, self.g.reduce_sum(wt, axes=[], keepdims=False))

    def op_NegativeLogLikelihoodLoss(self, node, a):
        x = self._float_x(node)
        w = self._x(node, 2) if self._has(node, 2) else None
        return self._nll(node, a, x, self._x(node, 1), w)

    def op_SoftmaxCrossEntropyLoss(self, node, a):
        x = self._float_x(node)
        logp = self.g.log_softmax(x, axis=1)
        w = self._x(node, 2) if self._has(node, 2) else None
        loss = self._nll(node, a, logp, self._x(node, 1), w)
        return [loss, logp]

    def op_Transpose(self, node, a):
        x = self._x(node)
        perm = a.get("perm", list(range(len(x.shape)))[::-1])
        return self.g.transpose(x, perm=list(perm), name=node.name)

    def _reshape_to(self, node, x, shape):
        return self.g.reshape(x, tuple(int(d) for d in shape), name=node.name)

    def op_Reshape(self, node, a):
        x = self._x(node)
        shape = self.need_const(node, 1, "the target shape")
        return self._reshape_to(node, x, _reshape_dims(x.shape, shape, a.get("allowzero", 0), node))

    def op_Flatten(self, node, a):
        x = self._x(node)
        axis = _axis(node, a.get("axis", 1), len(x.shape), inclusive=True)
        tail = int(np.prod(_static(node, x.shape[axis:], "Flatten's inner size")))
        lead = -1 if any(d < 0 for d in x.shape[:axis]) else int(np.prod(x.shape[:axis]))
        return self._reshape_to(node, x, (lead, tail))

    def _axes(self, node, a):
        if "axes" in a:
            return list(a["axes"])
        if self._has(node, 1):
            return [int(v) for v in self.need_const(node, 1, "axes")]
        return None

    def op_Squeeze(self, node, a):
        x = self._x(node)
        axes = self._axes(node, a)
        shape = list(x.shape)
        axes = [_axis(node, d, len(shape), "axes entry") for d in axes] if axes is not None else \
            [i for i, d in enumerate(shape) if d == 1]
        wide = [d for d in axes if shape[d] > 1]
        if wide:
            raise UnsupportedError(node, f"cannot squeeze axis {wide[0]} of size {shape[wide[0]]}")
        return self._reshape_to(node, x, [d for i, d in enumerate(shape) if i not in axes])

    def op_Unsqueeze(self, node, a):
        x = self._x(node)
        shape = list(x.shape)
        given = self._axes(node, a) or []
        axes = sorted(_axis(node, d, len(shape) + len(given), "axes entry") for d in given)
        if len(set(axes)) != len(axes):
            raise UnsupportedError(node, f"axes {given} name an output axis twice")
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
        rank = len(data.shape)
        ax = _axis(node, axis, rank)
        dim = data.shape[ax]
        if idx is not None and dim >= 0:
            # constant indices checked here (ONNX: out of range is an error;
            # found by an ONNX mutation campaign); one given at run time is
            # checked at run time (passes/dlg_runtime_checks.c).
            flat = np.asarray(idx).reshape(-1).astype(np.int64)
            bad = flat[(flat < -dim) | (flat >= dim)]
            if bad.size:
                raise UnsupportedError(node, f"index {int(bad[0])} is out of range for axis "
                                       f"{ax} of size {dim} (valid: {-dim} to {dim - 1})")
        if idx is not None and idx.ndim == 0:  # a scalar index drops the axis
            i0 = int(idx) + dim if int(idx) < 0 else int(idx)  # -1: the last
            s = self.g.slice(data, starts=[i0 if i == ax else 0 for i in range(rank)],
                             ends=[i0 + 1 if i == ax else _END for i in range(rank)],
                             steps=[1] * rank)
            return self._reshape_to(node, s, [d for i, d in enumerate(data.shape) if i != ax])
        # dlc.node: the name survives the text form, whose parse drops
        # locations, for the run-time check's message to say which Gather
        named = {"dlc.node": node.name} if node.name else {}
        return self.g.op("dlg.gather", data, self._x(node, 1), name_hint=node.name, axis=axis,
                         **named)

    def op_Slice(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        if self.opset < 10:  # starts, ends and axes are attributes
            cs = [np.array(a["starts"]), np.array(a["ends"]),
                  np.array(a["axes"]) if "axes" in a else None, None]
        else:
            cs = [self.need_const(node, i, what) if self._has(node, i) else None
                  for i, what in ((1, "starts"), (2, "ends"), (3, "axes"), (4, "steps"))]
        axes = ([_axis(node, v, rank, "axes entry") for v in cs[2]] if cs[2] is not None
                else list(range(len(cs[0]))))
        steps = [int(v) for v in cs[3]] if cs[3] is not None else [1] * len(axes)
        st, en, sp = [0] * rank, [_END] * rank, [1] * rank
        empty = []
        for ax, s, e, p in zip(axes, cs[0], cs[1], steps):
            if p == 0:
                raise UnsupportedError(node, "a step of 0")
            st[ax], en[ax], sp[ax] = int(s), int(max(min(e, 2**62), -2**62)), p
            dim = x.shape[ax]
            if dim >= 0:  # ONNX clamps starts and ends like Python slices
                st[ax], en[ax], _ = slice(st[ax], en[ax], p).indices(dim)
                if len(range(st[ax], en[ax], p)) == 0:
                    empty.append(ax)
                if en[ax] < 0:  # a negative step down to the first element
                    en[ax] = -_END
        if empty:
            return self._empty_slice(node, x, empty, st, en, sp)
        return self.g.slice(x, starts=st, ends=en, steps=sp, name=node.name)

    def _empty_slice(self, node, x, empty, st, en, sp):
        """A slice with no entries along axis empty[0]: dlg has no zero-size
        tensors, so it is held as one padded entry along that axis counted
        by a constant 0 (self.counted, as NonZero's indices): dlc.Module.run
        returns it with that dim 0, and only ops that keep the dim (Identity,
        Cast, Transpose, ...) may read it; any other is a named error."""
        if len(empty) > 1:
            raise UnsupportedError(node, f"an empty slice of axes {empty} (zero-size tensors: "
                                   "dlc holds an empty result padded along one axis only)")
        ax = empty[0]
        if len(x.shape) == 0 or any(d < 0 for d in x.shape):
            raise UnsupportedError(node, f"an empty slice of axis {ax} of a dynamic shape")
        st[ax], en[ax], sp[ax] = 0, 1, 1
        pad = self.g.slice(x, starts=st, ends=en, steps=sp, name=node.name)
        zero = self.g.constant(np.array(0, np.int64))
        self.empty_counts.add(id(zero))
        self.counted[node.output[0]] = (zero, ax)
        return pad

    def op_Split(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        axis = _axis(node, a.get("axis", 0), rank)
        split = a.get("split")
        if split is None and self._has(node, 1):
            split = self.need_const(node, 1, "the split sizes")
        n = len(node.output)
        if split is None:
            size = _static(node, [x.shape[axis]], "an even Split")[0]
            if "num_outputs" in a or size % n:
                raise UnsupportedError(node, f"splitting {size} into {n} parts unevenly")
            split = [size // n] * n
        if len(split) != n or sum(int(v) for v in split) != x.shape[axis]:
            raise UnsupportedError(node, f"split sizes {list(split)} do not fit {n} outputs of "
                                   f"a dim of {x.shape[axis]}")
        outs, off = [], 0
        for s in split:
            st = [off if i == axis else 0 for i in range(rank)]
            en = [off + int(s) if i == axis else _END for i in range(rank)]
            outs.append(self.g.slice(x, starts=st, ends=en, steps=[1] * rank))
            off += int(s)
        return outs

    def op_Expand(self, node, a):
        x = self._x(node)
        shape = self.need_const(node, 1, "the target shape")
        out = np.broadcast_shapes(tuple(_static(node, x.shape, "Expand")),
                                  tuple(int(d) for d in shape))
        if _elt(x) == "i1":
            return self.g.where(x, self.g.constant(np.ones(out, np.bool_)),
                                self.g.constant(np.zeros(out, np.bool_)), name=node.name)
        if tuple(out) == tuple(x.shape):
            return x
        return self.g.add(x, self.g.constant(np.zeros(out, _elt_np(x))), name=node.name)

    def op_Where(self, node, a):
        return self.g.where(*[self._x(node, i) for i in range(3)], name=node.name)

    def op_Cast(self, node, a, to=None):
        to = a["to"] if to is None else to
        if to in _WIDE or self._elem(node.input[0]):
            return self._cast_wide(node, to)
        dtype = _ONNX_DTYPES.get(to)
        if dtype is None:
            raise UnsupportedError(node, "cast to " + _type_name(to))
        x = self._x(node)
        if _elt_np(x) == np.dtype(dtype):
            return x
        return self.g.cast(x, dtype, name=node.name)

    def op_CastLike(self, node, a):
        like = self.vals[node.input[1]]
        if isinstance(like, np.ndarray):
            to = next((k for k, v in _NP_DTYPES.items() if np.dtype(v) == like.dtype), 0)
        else:
            to = self._elem(node.input[1]) or \
                next(k for k, v in _ONNX_DTYPES.items() if np.dtype(v) == _elt_np(like))
        return self.op_Cast(node, a, to)

    def op_Pad(self, node, a):
        mode = a.get("mode", b"constant")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode not in ("constant", "edge", "reflect"):
            raise UnsupportedError(node, f"mode '{mode}'")
        x = self._x(node)
        if self.opset < 11:  # pads and value are attributes
            pads, value = np.array(a.get("pads", a.get("paddings", []))), a.get("value", 0.0)
        else:
            pads = self.need_const(node, 1, "pads")
            value = self.need_const(node, 2, "the pad value").item() if self._has(node, 2) \
                else 0
        if self._has(node, 3):
            raise UnsupportedError(node, "the axes input (opset 18)")
        rank = len(x.shape)
        if len(pads) != 2 * rank:
            raise UnsupportedError(node, f"{len(pads)} pads for a rank-{rank} input")
        if any(int(p) < 0 for p in pads):
            raise UnsupportedError(node, "negative pads (cropping)")
        if _elt(x) not in _FLOATS and value != int(value):
            raise UnsupportedError(node, f"pad value {value} for {_elt(x)}")
        if mode != "constant":
            return self._pad_copy(node, x, [int(p) for p in pads], mode)
        return self.g.pad(x, pads=[int(p) for p in pads],
                          value=float(value), name=node.name)

    def _pad_copy(self, node, x, pads, mode):
        """edge / reflect padding: per axis, a concat of slices of x (reflect:
        a reversed slice without the border cell; edge: the border repeated)."""
        rank = len(x.shape)
        shape = list(_static(node, x.shape, "Pad"))
        for d in range(rank):
            lo, hi = pads[d], pads[d + rank]
            if not lo and not hi:
                continue
            n = shape[d]
            if mode == "reflect" and (lo >= n or hi >= n):
                raise UnsupportedError(node, f"reflect padding of {max(lo, hi)} on a dim of {n}")

            def cut(s, e, step):
                st = [s if j == d else 0 for j in range(rank)]
                en = [e if j == d else _END for j in range(rank)]
                return self.g.slice(x, starts=st, ends=en,
                                    steps=[step if j == d else 1 for j in range(rank)])
            parts = []
            if lo:
                parts += [cut(lo, 0, -1)] if mode == "reflect" else [cut(0, 1, 1)] * lo
            parts.append(x)
            if hi:
                # (an end of -1 would wrap to the last cell: -_END is "before 0")
                parts += [cut(n - 2, n - 2 - hi if hi < n - 1 else -_END, -1)] \
                    if mode == "reflect" else \
                    [cut(n - 1, n, 1)] * hi
            x = self.g.concat(*parts, axis=d)
            shape[d] += lo + hi
        return x

    def op_Constant(self, node, a):
        given = [k for k in a if k.startswith("value") or k == "sparse_value"]
        if len(given) > 1:  # ONNX: exactly one; the first used to win silently
            raise UnsupportedError(node, f"attributes {sorted(given)} given together "
                                   "(ONNX allows exactly one)")
        for key, dtype in (("value", None), ("value_float", np.float32),
                           ("value_floats", np.float32), ("value_int", np.int64),
                           ("value_ints", np.int64)):
            if key in a:
                v = a[key]
                if key == "value":
                    return _tensor_value(v, f"ONNX node '{node.name}' (Constant): value")
                return np.array(v, dtype)
        raise UnsupportedError(node, "unsupported Constant attribute")

    def op_Shape(self, node, a):
        shape = _static(node, self.shape(node.input[0]), "Shape")
        return _shape_slice(shape, a)

    def op_Size(self, node, a):
        return np.array(int(np.prod(_static(node, self.shape(node.input[0]), "Size"))), np.int64)

    # --- element types dlg lacks, held widened (_WIDE) --------------------

    def _elem(self, name):
        """The _WIDE element type of value `name`, or None."""
        v = self.vals.get(name) if name else None
        if isinstance(v, np.ndarray):
            return _WIDE_NP.get(v.dtype.type)
        return self.wide.get(name) if name else None

    def _substituted(self, node, fn, subs):
        """fn(node) with the values `subs` ({name: Value}) read for those inputs."""
        saved = {n: self.vals[n] for n in subs}
        self.vals.update(subs)
        try:
            return fn(node, _attrs(node))
        finally:
            self.vals.update(saved)

    def _typed(self, node, fn):
        """fn(node), where inputs of a _WIDE type follow the op's rule
        (_WIDE_SAME, _WIDE_WRAP, ...): the outputs' type, a wrap, a refusal."""
        raw = [i for i in node.input if i in self.bf16_raw]
        if raw:
            raise UnsupportedError(node, f"'{raw[0]}', a Cast to BFLOAT16, used in the graph "
                                   "(dlc rounds to bfloat16 only at the graph boundary)")
        elems = [self._elem(i) for i in node.input]
        wide = [e for e in elems if e is not None]
        op = node.op_type
        if not wide or op in _WIDE_AWARE or op in _WIDE_SHAPE:
            return fn(node, _attrs(node))
        e, tname = wide[0], _type_name(wide[0])
        if e == _BF16 and (op not in _WIDE_SAME | _WIDE_BOOL or op == "Mod"):
            raise UnsupportedError(node, f"{op} on BFLOAT16 (dlc holds it as float32; only "
                                   "data movement, Max/Min and compares are exact on it)")
        if op == "Pow" and elems[0] is None and len(wide) == 1:
            # a widened exponent: its number, exact (UINT64 as unsigned)
            y = self._x(node, 1)
            return self._substituted(node, fn, {node.input[1]: self._u64_to_float(y)}) \
                if e == 13 else fn(node, _attrs(node))
        if op not in _WIDE_SAME | _WIDE_WRAP | _WIDE_BOOL:
            raise UnsupportedError(node, f"{op} on {tname} (dlc holds {tname} widened; "
                                   f"{op} is not supported on it)")
        if any(x is not None and x != e for x in elems):
            raise UnsupportedError(node, "operands of different element types "
                                   f"{sorted({_type_name(x) for x in wide})}")
        if e == 13 and op in ("Div", "Mod"):  # unsigned: from int64 ops (_divmod_u64)
            q, r = self._divmod_u64(self.value(node.input[0], node),
                                    self.value(node.input[1], node))
            self.wide[node.output[0]] = e
            return q if op == "Div" else r
        flip = e == 13 and op in _WIDE_FLIP
        if flip:  # order-preserving: u64 bits + 2^63 (wrapping) compared as int64
            out = self._substituted(node, fn, {i: self._flip(self.value(i, node))
                                               for i, x in zip(node.input, elems) if x})
        else:
            out = fn(node, _attrs(node))
        if op in _WIDE_BOOL:
            return out
        outs = out if isinstance(out, list) else [out]
        # the data outputs (MaxPool's Indices stay int64)
        data = range(len(outs)) if op == "Split" else [0]
        for i in data:
            if flip:
                outs[i] = self._flip(outs[i])
            elif op in _WIDE_WRAP:
                outs[i] = self._wrap(outs[i], e)
            if i < len(node.output) and node.output[i]:
                self.wide[node.output[i]] = e
        return outs

    def _divmod_u64(self, x, y):
        """Unsigned 64-bit quotient and remainder of UINT64 bits held as
        int64 (Mod's fmod=0 and fmod=1 agree on unsigned numbers), from
        signed int64 ops (dlg.div truncates, dlg.fmod is arith.remsi) that
        never see a negative operand:
          y >= 2^63 (negative as int64): q = x >= y, r = x - q*y;
          y < 2^63, x < 2^63: the signed ones;
          y < 2^63, x >= 2^63: x = h + 2^63 (h = x - 2^63, the sign flip),
            2^63 = A*y + a (A, a from INT64_MAX = 2^63 - 1), so q = h/y + A
            (+1 when h%y + a >= y) and r = h%y + a (- y then), with no sum
            past 2^63 (the quotient wraps to the right bits for y = 1).
        A zero divisor gives q = r = 0, as NumPy's uint64 (ONNX leaves it
        undefined; a hardware division by zero would trap)."""
        g = self.g
        zero, one = self._k(x, 0), self._k(x, 1)
        big_y = g.less(y, zero)
        y_zero = g.equal(y, zero)
        ys = g.where(big_y, one, g.where(y_zero, one, y))  # the divisor of the int64 ops
        # y >= 2^63: at most one y fits in x
        ge = g.less_equal(self._flip(y), self._flip(x))
        q_big = g.cast(ge, np.int64)
        r_big = g.where(ge, g.sub(x, y), x)
        # y < 2^63, x < 2^63
        q_pos, r_pos = g.div(x, ys), g.fmod(x, ys)
        # y < 2^63, x >= 2^63
        imax = self._k(x, np.iinfo(np.int64).max)
        t = g.add(g.fmod(imax, ys), one)          # 2^63 mod y, or y when y divides 2^63
        wrap = g.equal(t, ys)
        a = g.where(wrap, zero, t)
        big_a = g.add(g.div(imax, ys), g.cast(wrap, np.int64))  # 2^63 / y
        h = self._flip(x)
        hq, hr = g.div(h, ys), g.fmod(h, ys)
        d = g.sub(ys, a)                           # in (0, y]: hr + a >= y is hr >= d
        carry = g.greater_equal(hr, d)
        r_neg = g.where(carry, g.sub(hr, d), g.add(hr, a))
        q_neg = g.add(g.add(hq, big_a), g.cast(carry, np.int64))
        x_neg = g.less(x, zero)
        q = g.where(big_y, q_big, g.where(x_neg, q_neg, q_pos))
        r = g.where(big_y, r_big, g.where(x_neg, r_neg, r_pos))
        return g.where(y_zero, zero, q), g.where(y_zero, zero, r)

    def _flip(self, v):
        return self.g.add(v, self.g.constant(np.array(np.iinfo(np.int64).min, np.int64)))

    def _u64_to_float(self, v, dtype=np.float64):
        """UINT64 bits (held as int64) as the unsigned number, in `dtype`."""
        f = self.g.cast(v, np.float64)
        f = self.g.where(self.g.less(v, self._k(v, 0)), self.g.add(f, self._k(f, 2.0 ** 64)), f)
        return f if np.dtype(dtype) == np.float64 else self.g.cast(f, dtype)

    def _wrap(self, v, e):
        """A storage value's number modulo 2^bits, into _WIDE type e's range
        (UINT64: the int64 arithmetic already wraps)."""
        _, bits, signed = _WIDE[e]
        if e == 13:
            return v
        m = self._k(v, 2 ** bits)
        x = self.g.add(v, self._k(v, 2 ** (bits - 1))) if signed else v
        r = self.g.sub(x, self.g.mul(self.g.div(x, m), m))  # truncating division
        r = self.g.where(self.g.less(r, self._k(v, 0)), self.g.add(r, m), r)
        return self.g.sub(r, self._k(v, 2 ** (bits - 1))) if signed else r

    def _cast_wide(self, node, to):
        """Cast from or to a _WIDE type: to one, through its storage type and
        wrapped into its range (as NumPy's astype; float out of range is
        undefined in ONNX); from one, from its exact number."""
        src = self._elem(node.input[0])
        x = self._x(node)
        if src == to:
            return x
        if to not in _WIDE:
            dtype = _ONNX_DTYPES.get(to)
            if dtype is None:
                raise UnsupportedError(node, "cast to " + _type_name(to))
            if dtype == np.bool_:
                return self.g.not_equal(x, self._k(x, 0), name=node.name)
            if src == 13 and np.dtype(dtype).kind == "f":
                return self._u64_to_float(x, dtype)
            return x if _elt_np(x) == np.dtype(dtype) else self.g.cast(x, dtype, name=node.name)
        if to == _BF16:
            if _elt(x) not in ("f32", "f16"):
                raise UnsupportedError(node, f"cast from {_elt(x)} to BFLOAT16 (from float32 "
                                       "or float16 only)")
            self.wide[node.output[0]] = _BF16
            self.bf16_raw.add(node.output[0])
            return x if _elt(x) == "f32" else self.g.cast(x, np.float32, name=node.name)
        st = _WIDE[to][0]
        if _elt(x) == "i1":
            x = self.g.where(x, self._scalar_of(st, 1), self._scalar_of(st, 0))
        elif to == 13 and _elt(x) in _FLOATS:
            # above 2^63: through the int64 of x - 2^64
            big = self.g.greater_equal(x, self._k(x, 2.0 ** 63))
            lo = self.g.cast(x, np.int64)
            hi = self.g.cast(self.g.sub(x, self._k(x, 2.0 ** 64)), np.int64)
            x = self.g.where(big, hi, lo)
        elif _elt_np(x) != np.dtype(st):
            x = self.g.cast(x, st)
        self.wide[node.output[0]] = to
        return self._wrap(x, to)

    def _scalar_of(self, dtype, v):
        return self.g.constant(np.array(v, dtype))

    def op_BitShift(self, node, a):
        """x << y as x * 2^y wrapped; x >> y as x / 2^y (truncating =
        floor on the nonnegative numbers); a shift by bits or more gives 0.
        UINT64 (int64 bits): the sign bit handled apart."""
        e = self._elem(node.input[0])
        if e is None or self._elem(node.input[1]) != e:
            raise UnsupportedError(node, "BitShift on signed or mixed element types "
                                   "(ONNX defines it for unsigned integers)")
        d = a.get("direction", b"")
        d = d.decode() if isinstance(d, bytes) else d
        if d not in ("LEFT", "RIGHT"):
            raise UnsupportedError(node, f"direction '{d}'")
        bits = _WIDE[e][1]
        x, y = self._x(node, 0), self._x(node, 1)
        # y as a shift count: UINT64's >= 2^63 is negative as int64, and as big
        big = self.g.greater_equal(y, self._k(y, bits))
        if e == 13:
            big = self.g.where(self.g.less(y, self._k(y, 0)), self._mask(True), big)
        ys = self.g.where(big, self._k(y, 0), y)
        # 2^y (< 2^63) exactly, through float64; 2^63 (UINT64 only) as its int64 bits
        p = self.g.cast(self.g.pow(self._k(self.g.cast(ys, np.float64), 2.0),
                                   self.g.cast(ys, np.float64)), np.int64)
        top = self.g.equal(ys, self._k(ys, 63))
        p = self.g.where(top, self._k(p, np.iinfo(np.int64).min), p)
        if _elt(x) != "i64":
            p = self.g.cast(p, _elt_np(x))  # 2^y < 2^bits <= 2^16 here
        zero = self._k(x, 0)
        if d == "LEFT":
            r = self._wrap(self.g.mul(x, p), e)
        elif e != 13:
            r = self.g.div(x, p)
        else:
            # x >= 2^63 (negative bits): (x - 2^63) / 2^y + 2^(63 - y), y in [1, 62];
            # y = 63: x >= 2^63 gives 1; y = 0: x
            neg = self.g.less(x, zero)
            low = self._flip(x)
            pos_p = self.g.where(top, self._k(p, 1), p)
            q = self.g.div(self.g.where(neg, low, x), pos_p)
            hi = self.g.cast(self.g.pow(self._k(self.g.cast(ys, np.float64), 2.0),
                                        self.g.sub(self._k(self.g.cast(ys, np.float64), 63.0),
                                                   self.g.cast(ys, np.float64))), np.int64)
            q = self.g.where(neg, self.g.add(q, hi), q)
            q = self.g.where(top, self.g.where(neg, self._k(x, 1), zero), q)
            r = self.g.where(self.g.equal(ys, self._k(ys, 0)), x, q)
        self.wide[node.output[0]] = e
        return self.g.where(big, zero, r, name=node.name)

    # What a graph output declared as each ONNX type (not _WIDE) must be.
    _DECLARED_ELT = {1: "f32", 6: "i32", 7: "i64", 9: "i1", 10: "f16", 11: "f64"}

    def _check_output_type(self, o, v):
        """A graph output declared with one element type and computed as
        another (an INT64 output holding floats) was returned as computed:
        the caller would read the wrong type (an ONNX mutation campaign)."""
        want = self._DECLARED_ELT.get(o.type.tensor_type.elem_type)
        if want is not None and _elt(v) != want:
            raise CompileError(f"ONNX output '{o.name}' is declared "
                               f"{_type_name(o.type.tensor_type.elem_type)} but computes "
                               f"{_elt(v)}", "")

    def _check_wide_output(self, o):
        """A graph output of a _WIDE type must be held as one (its storage
        is narrowed by dlc.compile): anything else is a bug, said here."""
        elem = o.type.tensor_type.elem_type
        if elem in _WIDE and self._elem(o.name) != elem:
            raise CompileError(f"ONNX output '{o.name}' is {_type_name(elem)} but the "
                               "importer did not compute it as one", "")

    def _value_op(self, node, a):
        """An op of _VALUE_OPS, folded with NumPy once its operands are
        constants: dlc specialises on them where they are graph inputs."""
        for i in _VALUE_OPS[node.op_type]:
            if i < len(node.input) and node.input[i]:
                self.need_const(node, i, f"input '{node.input[i]}' (the size of the output "
                                "depends on its values)")
        raise UnsupportedError(node, f"{node.op_type} was not folded")  # pragma: no cover

    op_Unique = _value_op

    def op_NonMaxSuppression(self, node, a):
        """At run time (boxes or scores computed by the model, or graph
        inputs): dlg.non_max_suppression, whose padded result dlc.Module
        slices to its count. The limits must be constants (or graph inputs
        dlc specialises on); all-constant operands are folded (_nms)."""
        boxes, scores = self._x(node, 0), self._x(node, 1)
        for name, v in (("boxes", boxes), ("scores", scores)):
            if _elt(v) != "f32":
                raise UnsupportedError(node, f"{name} must be float32 (ONNX's only type for "
                                       f"NonMaxSuppression), got {_elt(v)}")
        scalar = lambda i, what: self.need_const(node, i, what).reshape(-1)  # noqa: E731
        k = 0
        if self._has(node, 2):
            v = scalar(2, "max_output_boxes_per_class")
            k = max(int(v[0]), 0) if v.size else 0  # onnxruntime: negative as 0
        iou = 0.0
        if self._has(node, 3):
            v = scalar(3, "iou_threshold")
            iou = float(np.float32(v[0])) if v.size else 0.0
        attrs = dict(max_output_boxes_per_class=k, iou_threshold=iou)
        if self._has(node, 4):
            v = scalar(4, "score_threshold")
            if v.size:
                attrs["score_threshold"] = float(np.float32(v[0]))
        center = a.get("center_point_box", 0)
        if center not in (0, 1):
            raise UnsupportedError(node, f"center_point_box must be 0 or 1, got {center}")
        if not 0.0 <= iou <= 1.0:
            raise UnsupportedError(node, f"iou_threshold {iou} is outside [0, 1]")
        if np.isnan(attrs.get("score_threshold", 0.0)):
            raise UnsupportedError(node, "score_threshold is NaN")
        sel, count = self.g.non_max_suppression(boxes, scores, name=node.name,
                                                center_point_box=bool(center), **attrs)
        self.counted[node.output[0]] = (count, 0)
        return sel

    def op_NonZero(self, node, a):
        """At run time (an input the model computes, or a graph input):
        dlg.non_zero, whose padded [rank, elements] indices dlc.Module cuts
        to their count along dim 1. A constant input is folded (_nonzero)."""
        x = self._x(node)
        if len(x.shape) == 0:
            raise UnsupportedError(node, "a 0-d input (ONNX leaves the index rank of a scalar "
                                   "unsaid)")
        _static(node, x.shape, "NonZero")
        idx, count = self.g.non_zero(x, name=node.name)
        self.counted[node.output[0]] = (count, 1)
        return idx

    def _counted_rows(self, node):
        """(count, dim) for the node's outputs where it reads a padded,
        run-time counted value (self.counted: counted along `dim`) and maps
        entry r of that dim to entry r of one dim of its outputs, so the
        padding stays past the count; None for other nodes. Any other use
        of a counted value is an UnsupportedError naming node and op: its
        padding would reach the result, and dlc cannot give a size known
        only at run time to the ops downstream. (NonMaxSuppression's and
        NonZero's handlers count their own outputs.)"""
        hit = [(k, i) for k, i in enumerate(node.input) if i and i in self.counted]
        if not hit:
            return None
        k, name = hit[0]
        count, d = self.counted[name]
        a, t = _attrs(node), node.op_type
        rank = len(self.shape(name))
        out = None  # the counted dim of the outputs, where the node keeps it
        if len(hit) == 1:
            if t in ("Identity", "Cast") and k == 0:
                out = d
            elif t == "Transpose" and k == 0:
                perm = [int(p) for p in a.get("perm", range(rank - 1, -1, -1))]
                out = perm.index(d) if sorted(perm) == list(range(rank)) else None
            elif t == "Gather":
                drank = len(self.shape(node.input[0]))
                axis = a.get("axis", 0) % max(drank, 1)
                if k == 0 and axis != d:  # data counted: gathering along another dim
                    out = d if d < axis else d - 1 + len(self.shape(node.input[1]))
                elif k == 1 and rank >= 1:  # indices counted: one slice of data per index
                    out = axis + d
            elif t == "GatherND" and k == 1:  # rows of indices, one slice of data each
                b = int(a.get("batch_dims", 0))
                out = d if b <= d < rank - 1 else None
            elif t in ("Squeeze", "Unsqueeze") and k == 0:
                axes = a.get("axes")
                if axes is None and self._has(node, 1):
                    c = self.const(node.input[1])
                    axes = None if c is None else [int(x) for x in np.reshape(c, -1)]
                if axes:
                    if t == "Squeeze":
                        axes = [x % rank for x in axes]
                        out = None if d in axes else d - sum(x < d for x in axes)
                    else:
                        n = rank + len(axes)
                        axes = {x % n for x in axes}
                        out = [p for p in range(n) if p not in axes][d]
        if out is None and id(count) in self.empty_counts:
            raise UnsupportedError(node, f"input '{name}' is empty along dim {d} (an empty Slice: "
                                   "dlg has no zero-size tensors, so dlc holds it padded to one "
                                   "entry): dlc returns it as a graph output, through Identity, "
                                   "Cast, Transpose, Gather, GatherND, Squeeze or Unsqueeze that "
                                   f"keep that dim, not into {t}")
        if out is None:
            what = "rows" if d == 0 else f"entries along dim {d}"
            raise UnsupportedError(node, f"input '{name}' has a number of {what} known only at "
                                   "run time (indices from NonMaxSuppression or NonZero, "
                                   "padded): dlc returns it as a graph output, through "
                                   "Identity, Cast, Transpose, Gather, GatherND, Squeeze or "
                                   f"Unsqueeze that keep that dim, not into {t}")
        return count, out

    def op_Compress(self, node, a):
        """A gather of the positions where the condition (a constant, or a
        graph input dlc specialises on) holds."""
        cond = self.need_const(node, 1, "the condition (the output's size depends on it)")
        x = self._x(node)
        idx = np.nonzero(np.asarray(cond).reshape(-1))[0]
        if "axis" not in a:
            x = self._reshape_to(node, x, [int(np.prod(x.shape))])
        axis = _axis(node, a.get("axis", 0), len(x.shape))
        idx = idx[idx < x.shape[axis]]  # a condition longer than the axis: the rest is unused
        if not len(idx):
            raise UnsupportedError(node, "the condition selects nothing (a zero-size output)")
        return self.g.gather(x, self.g.constant(idx.astype(np.int64)), axis=axis, name=node.name)

    def op_Det(self, node, a):
        """The determinant of each trailing n x n matrix by cofactor
        expansion: n <= 3 (no pivoting LU in dlg)."""
        x = self._x(node)
        shape = list(_static(node, x.shape, "Det"))
        n = shape[-1]
        if len(shape) < 2 or shape[-2] != n:
            raise UnsupportedError(node, f"input of shape {shape} (square matrices only)")
        if n > 3:
            raise UnsupportedError(node, f"Det of {n}x{n} matrices (up to 3x3)")
        rank, batch = len(shape), shape[:-2]

        def e(i, j):
            v = self.g.slice(x, starts=[0] * (rank - 2) + [i, j],
                             ends=[_END] * (rank - 2) + [i + 1, j + 1], steps=[1] * rank)
            return self._reshape_to(node, v, batch)

        def det2(r0, r1, c0, c1):
            return self.g.sub(self.g.mul(e(r0, c0), e(r1, c1)), self.g.mul(e(r0, c1), e(r1, c0)))

        if n == 1:
            return e(0, 0)
        if n == 2:
            return det2(0, 1, 0, 1)
        y = self.g.mul(e(0, 0), det2(1, 2, 1, 2))
        y = self.g.sub(y, self.g.mul(e(0, 1), det2(1, 2, 0, 2)))
        return self.g.add(y, self.g.mul(e(0, 2), det2(1, 2, 0, 1)), name=node.name)

    def _dft_last(self, node, re, im, length, inverse, onesided):
        """The DFT of f64 signals along their last axis (re, im: [..., n],
        im None for a real signal), zero-padded or cut to `length`: as
        matmuls by cos/sin matrices (f64). Returns (re, im): [..., K]."""
        n = re.shape[-1]
        if length < n:
            cut = [0] * (len(re.shape) - 1)
            re, im = [None if v is None else
                      self.g.slice(v, starts=cut + [0], ends=[_END] * len(cut) + [length],
                                   steps=[1] * len(re.shape)) for v in (re, im)]
            n = length
        k = length // 2 + 1 if onesided else length
        theta = 2 * np.pi * np.outer(np.arange(n), np.arange(k)) / length
        c, sn = self.g.constant(np.cos(theta)), self.g.constant(np.sin(theta))
        sign = 1.0 if inverse else -1.0  # e^(sign i theta)
        lead = list(re.shape[:-1])
        flat = [int(np.prod(lead)) if lead else 1, n]
        mm = lambda v, m: self.g.matmul(self._reshape_to(node, v, flat), m)  # noqa: E731
        yre, yim = mm(re, c), self.g.mul(mm(re, sn), self.g.constant(np.array(sign)))
        if im is not None:
            yre = self.g.sub(yre, self.g.mul(mm(im, sn), self.g.constant(np.array(sign))))
            yim = self.g.add(yim, mm(im, c))
        if inverse:
            yre, yim = [self.g.div(v, self.g.constant(np.array(float(length)))) for v in (yre, yim)]
        return [self._reshape_to(node, v, lead + [k]) for v in (yre, yim)]

    def _split_complex(self, node, x):
        """[..., 1 or 2] (real or complex) as f64 (re, im or None): [...]."""
        shape = list(_static(node, x.shape, node.op_type))
        comp, rank = shape[-1], len(shape)
        if comp not in (1, 2):
            raise UnsupportedError(node, f"a last dimension of {comp} (1: real, 2: complex)")
        x = self.g.cast(x, np.float64) if _elt(x) != "f64" else x
        parts = [self._reshape_to(node, self.g.slice(x, starts=[0] * (rank - 1) + [i],
                                                     ends=[_END] * (rank - 1) + [i + 1],
                                                     steps=[1] * rank), shape[:-1])
                 for i in range(comp)]
        return parts[0], parts[1] if comp == 2 else None

    def _join_complex(self, node, re, im, dtype):
        shape = list(re.shape) + [1]
        y = self.g.concat(self._reshape_to(node, re, shape), self._reshape_to(node, im, shape),
                          axis=len(shape) - 1)
        return self.g.cast(y, dtype) if np.dtype(dtype) != np.float64 else y

    def op_DFT(self, node, a):
        x = self._x(node)
        rank = len(x.shape)
        axis = int(a.get("axis", 1))
        axis = axis + rank if axis < 0 else axis
        if not 0 < axis < rank - 1:
            raise UnsupportedError(node, f"axis {a.get('axis', 1)} (a signal axis)")
        inverse, onesided = int(a.get("inverse", 0)), int(a.get("onesided", 0))
        if inverse and onesided:
            raise UnsupportedError(node, "an inverse onesided DFT")
        length = int(np.asarray(self.need_const(node, 1, "dft_length")).reshape(-1)[0]) \
            if self._has(node, 1) else x.shape[axis]
        perm = [i for i in range(rank - 1) if i != axis] + [axis, rank - 1]
        re, im = self._split_complex(node, self.g.transpose(x, perm=perm))
        if onesided and im is not None:
            raise UnsupportedError(node, "a onesided DFT of a complex signal")
        yre, yim = self._dft_last(node, re, im, length, inverse, onesided)
        y = self._join_complex(node, yre, yim, _elt_np(x))
        return self.g.transpose(y, perm=[perm.index(i) for i in range(rank)], name=node.name)

    def op_STFT(self, node, a):
        """Frames (a gather of a constant [frames, length] index) times the
        window, then their onesided (default) DFT: [batch, frames, K, 2]."""
        x = self._x(node)
        shape = list(_static(node, x.shape, "STFT"))
        step = int(np.asarray(self.need_const(node, 1, "frame_step")).reshape(-1)[0])
        win = self._x(node, 2) if self._has(node, 2) else None
        if self._has(node, 3):
            length = int(np.asarray(self.need_const(node, 3, "frame_length")).reshape(-1)[0])
        elif win is not None:
            length = win.shape[0]
        else:
            raise UnsupportedError(node, "neither a window nor frame_length")
        frames = (shape[1] - length) // step + 1
        if frames < 1 or step < 1:
            raise UnsupportedError(node, f"frame_step {step}, frame_length {length} for a "
                                   f"signal of {shape[1]} (no frame)")
        idx = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int64)
        re, im = self._split_complex(node, x)  # [batch, n]
        onesided = int(a.get("onesided", 1))
        if onesided and im is not None:
            raise UnsupportedError(node, "a onesided STFT of a complex signal")
        fr = [None if v is None else self.g.gather(v, self.g.constant(idx), axis=1)
              for v in (re, im)]
        if win is not None:
            w = self.g.cast(win, np.float64) if _elt(win) != "f64" else win
            fr = [None if v is None else self.g.mul(v, w) for v in fr]
        yre, yim = self._dft_last(node, fr[0], fr[1], length, False, onesided)
        return self._join_complex(node, yre, yim, _elt_np(x))

    # --- GridSample: gathers at computed pixel indices ---------------------

    def _and(self, p, q):
        return self.g.where(p, q, self._mask(False))

    def _reflect(self, v, lo2, hi2):
        """PyTorch's reflect_coordinates: v reflected into [lo2/2, hi2/2]."""
        if lo2 == hi2:
            return self.g.mul(v, self._k(v, 0.0))
        mn, span = lo2 / 2, (hi2 - lo2) / 2
        d = self.g.abs(self.g.sub(v, self._k(v, mn)))
        flips = self._floor(None, self.g.div(d, self._k(v, span)))
        extra = self.g.sub(d, self.g.mul(flips, self._k(v, span)))
        odd = self.g.not_equal(self.g.sub(flips, self.g.mul(
            self._floor(None, self.g.mul(flips, self._k(v, 0.5))), self._k(v, 2.0))),
            self._k(v, 0.0))
        return self.g.where(odd, self.g.add(self.g.sub(self._k(v, span), extra), self._k(v, mn)),
                            self.g.add(extra, self._k(v, mn)))

    def _grid_pad(self, v, size, padding, align):
        """A source coordinate under padding_mode border/reflection (zeros: as is)."""
        if padding == "zeros":
            return v
        if padding == "reflection":
            v = self._reflect(v, 0, 2 * (size - 1)) if align else \
                self._reflect(v, -1, 2 * size - 1)
        return self.g.min(self.g.max(v, self._k(v, 0.0)), self._k(v, float(size - 1)))

    def op_GridSample(self, node, a):
        """As PyTorch's grid_sample (which ONNX's opset 16 follows): each
        tap is a Gather of rows of the input as [N*H*W, C] at the computed
        (clamped) pixel index, zero where the tap is outside (zeros
        padding), weighted (bilinear, bicubic with A = -0.75, or nearest
        rounding half to even) and summed."""
        x, grid = self._x(node, 0), self._x(node, 1)
        strs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in a.items()}
        mode, padding = strs.get("mode", "bilinear"), strs.get("padding_mode", "zeros")
        align = int(a.get("align_corners", 0))
        if len(x.shape) != 4:
            raise UnsupportedError(node, f"a {len(x.shape)}-D input (4-D only)")
        if mode not in ("bilinear", "nearest", "bicubic"):
            raise UnsupportedError(node, f"mode '{mode}'")
        if padding not in ("zeros", "border", "reflection"):
            raise UnsupportedError(node, f"padding_mode '{padding}'")
        if _elt(x) not in ("f32", "f64") or _elt(grid) != _elt(x):
            raise UnsupportedError(node, f"types {_elt(x)}, {_elt(grid)} (f32 or f64, alike)")
        nb, c, h, w = _static(node, x.shape, "GridSample")
        if h * w >= 1 << 24:  # the in-plane index is computed in x's float type
            raise UnsupportedError(node, f"a {h}x{w} plane (at most 2^24 cells)")
        _, ho, wo, _ = _static(node, grid.shape, "GridSample")
        rows = self._reshape_to(node, self.g.transpose(x, perm=[0, 2, 3, 1]), [nb * h * w, c])
        base = self.g.constant((np.arange(nb) * h * w).reshape(nb, 1, 1).astype(np.int64))

        def coord(i, size):
            g = self._reshape_to(node, self.g.slice(grid, starts=[0, 0, 0, i],
                                                    ends=[_END, _END, _END, i + 1],
                                                    steps=[1] * 4), [nb, ho, wo])
            g1 = self.g.add(g, self._k(g, 1.0))
            return self.g.mul(g1, self._k(g, (size - 1) / 2)) if align else \
                self.g.div(self.g.sub(self.g.mul(g1, self._k(g, float(size))), self._k(g, 1.0)),
                           self._k(g, 2.0))

        def tap(yi, xi):
            """The input at integer-valued coordinates: [nb, ho, wo, c]."""
            if padding != "zeros" and mode == "bicubic":
                yi, xi = self._grid_pad(yi, h, padding, align), self._grid_pad(xi, w, padding, align)
            inside = self._and(self._and(self.g.greater_equal(xi, self._k(xi, 0.0)),
                                         self.g.less_equal(xi, self._k(xi, float(w - 1)))),
                               self._and(self.g.greater_equal(yi, self._k(yi, 0.0)),
                                         self.g.less_equal(yi, self._k(yi, float(h - 1)))))
            xc = self.g.min(self.g.max(xi, self._k(xi, 0.0)), self._k(xi, float(w - 1)))
            yc = self.g.min(self.g.max(yi, self._k(yi, 0.0)), self._k(yi, float(h - 1)))
            flat = self.g.add(self.g.cast(self.g.add(self.g.mul(yc, self._k(yc, float(w))), xc),
                                          np.int64), base)
            v = self.g.gather(rows, self._reshape_to(node, flat, [nb * ho * wo]), axis=0)
            v = self._reshape_to(node, v, [nb, ho, wo, c])
            inside = self._reshape_to(node, inside, [nb, ho, wo, 1])
            return self.g.where(inside, v, self._k(v, 0.0))

        def wt(v):
            return self._reshape_to(node, v, [nb, ho, wo, 1])

        ix, iy = coord(0, w), coord(1, h)
        if mode != "bicubic":
            ix, iy = self._grid_pad(ix, w, padding, align), self._grid_pad(iy, h, padding, align)
        if mode == "nearest":
            y = tap(self._round_even(node, iy), self._round_even(node, ix))
        else:
            x0, y0 = self._floor(node, ix), self._floor(node, iy)
            tx, ty = self.g.sub(ix, x0), self.g.sub(iy, y0)
            one = self._k(tx, 1.0)
            if mode == "bilinear":
                cx, cy = [self.g.sub(one, tx), tx], [self.g.sub(one, ty), ty]
                offs = [0, 1]
            else:
                A = -0.75

                def cub1(t):  # |t| <= 1
                    return self.g.add(self.g.mul(self.g.mul(self.g.sub(
                        self.g.mul(self._k(t, A + 2), t), self._k(t, A + 3)), t), t), one)

                def cub2(t):  # 1 < |t| < 2
                    p = self.g.add(self.g.mul(self.g.sub(self.g.mul(self._k(t, A), t),
                                                         self._k(t, 5 * A)), t), self._k(t, 8 * A))
                    return self.g.sub(self.g.mul(p, t), self._k(t, 4 * A))

                cx = [cub2(self.g.add(tx, one)), cub1(tx), cub1(self.g.sub(one, tx)),
                      cub2(self.g.sub(self._k(tx, 2.0), tx))]
                cy = [cub2(self.g.add(ty, one)), cub1(ty), cub1(self.g.sub(one, ty)),
                      cub2(self.g.sub(self._k(ty, 2.0), ty))]
                offs = [-1, 0, 1, 2]
            y = None
            for j, oy in enumerate(offs):
                for i, ox in enumerate(offs):
                    t = tap(self.g.add(y0, self._k(y0, float(oy))),
                            self.g.add(x0, self._k(x0, float(ox))))
                    t = self.g.mul(t, wt(self.g.mul(cy[j], cx[i])))
                    y = t if y is None else self.g.add(y, t)
        return self.g.transpose(y, perm=[0, 3, 1, 2], name=node.name)

    def op_MaxUnpool(self, node, a):
        """Zeros of the output shape with X written at its flat indices I
        (as MaxPool's Indices: (n * C + c) * prod(spatial) + spatial index):
        per (n, c) plane a compare of I with the plane's cell numbers and a
        max over the hits (cells two windows both chose hold one value, as
        MaxPool gives), zero where none."""
        x, idx = self._x(node, 0), self._x(node, 1)
        shape = list(_static(node, x.shape, "MaxUnpool"))
        n = len(shape) - 2
        k = [int(v) for v in a["kernel_shape"]]
        st = [int(v) for v in a.get("strides", [1] * n)]
        pads = [int(v) for v in a.get("pads", [0] * (2 * n))]
        # the indices address the inferred shape; an output_shape pads it at
        # the end (ONNX's case and onnxruntime)
        inferred = shape[:2] + [(shape[2 + i] - 1) * st[i] - pads[i] - pads[i + n] + k[i]
                                for i in range(n)]
        out = [int(v) for v in self.need_const(node, 2, "output_shape")] \
            if self._has(node, 2) else inferred
        if out[:2] != shape[:2] or len(out) != len(shape) or \
                any(o < i for o, i in zip(out, inferred)):
            raise UnsupportedError(node, f"output_shape {out} for an input of {shape} "
                                   f"(at least {inferred})")
        nb, c, m = shape[0], shape[1], int(np.prod(shape[2:]))
        plane = int(np.prod(inferred[2:]))
        self._check_unpool_indices(node, nb, c, m, plane)
        if m * plane > (1 << 24):
            raise UnsupportedError(node, f"a {m}-cell input unpooled to {plane} cells (the "
                                   "compare is m x plane per channel: at most 2^24)")
        xi = self._reshape_to(node, x, [nb, c, m, 1])
        ii = self._reshape_to(node, self.g.cast(idx, np.int64) if _elt(idx) != "i64" else idx,
                              [nb, c, m, 1])
        cells = (np.arange(nb * c, dtype=np.int64).reshape(nb, c, 1, 1) * plane +
                 np.arange(plane, dtype=np.int64).reshape(1, 1, 1, plane))
        hit = self.g.equal(ii, self.g.constant(cells))
        dt = _elt_np(x)
        low = self.g.constant(np.array(-np.inf if dt.kind == "f" else np.iinfo(dt).min, dt))
        best = self.g.reduce_max(self.g.where(hit, xi, low), axes=[2], keepdims=False)
        one, zero = self.g.constant(np.array(1, np.int32)), self.g.constant(np.array(0, np.int32))
        any_hit = self.g.greater(self.g.reduce_sum(self.g.where(hit, one, zero), axes=[2],
                                                   keepdims=False), zero)
        y = self._reshape_to(node, self.g.where(any_hit, best, self._k(x, 0)), inferred)
        if out != inferred:
            y = self.g.pad(y, pads=[0] * len(out) + [o - i for o, i in zip(out, inferred)],
                           value=0.0)
        return y

    def _check_unpool_indices(self, node, nb, c, m, plane):
        """The unpool compares each (n, c) plane's indices with that plane's
        cells, so an index elsewhere would be dropped where onnxruntime
        raises (outside the output) or writes another plane: never silently.
        Constant indices are checked here; a graph input is specialised on
        (so checked here per value); MaxPool's own Indices of an input with
        this plane size lie in their plane by construction; anything else
        computed at run time cannot be checked, so it is refused."""
        name = node.input[1]
        src = self.producer.get(name)
        if self.const(name) is None and src is not None and src.op_type == "MaxPool" and \
                len(src.output) > 1 and src.output[1] == name:
            pooled = self.shape(src.input[0])
            if list(pooled[:2]) == [nb, c] and all(isinstance(d, int) and d >= 0
                                                   for d in pooled) and \
                    int(np.prod(pooled[2:])) == plane:
                return
        idx = np.asarray(self.need_const(node, 1, "the indices (dlc checks that each lies in "
                                         "its own (n, c) plane of the output)")).astype(np.int64)
        if idx.size != nb * c * m:
            raise UnsupportedError(node, f"indices of shape {list(idx.shape)} for an input of "
                                   f"{nb * c * m} elements")
        idx = idx.reshape(nb * c, m)
        lo = (np.arange(nb * c, dtype=np.int64) * plane).reshape(-1, 1)
        bad = (idx < lo) | (idx >= lo + plane)
        if bad.any():
            p = np.argwhere(bad)[0]
            v, total = int(idx[p[0], p[1]]), nb * c * plane
            where = f"outside the output of {total} elements" if not 0 <= v < total else \
                f"in plane {v // plane}, not its own (n, c) plane {p[0]}"
            raise UnsupportedError(node, f"index {v} (input element {p[0] * m + p[1]}) is "
                                   f"{where}: MaxUnpool indices must address the output "
                                   "(onnxruntime raises on this)")

    def _scatter_nd_mul(self, node, data, hit, ue, m, flat, rest):
        """ScatterND reduction 'mul': data times the product of the updates
        hitting each cell (a fold over the m updates; at most 64)."""
        if m > 64:
            raise UnsupportedError(node, f"reduction 'mul' with {m} updates (at most 64)")
        f = self.g.where(hit, ue, self._k(data, 1))  # [m, flat, rest...]
        r = 2 + len(rest)
        prod = None
        for i in range(m):
            part = self.g.slice(f, starts=[i] + [0] * (r - 1), ends=[i + 1] + [_END] * (r - 1),
                                steps=[1] * r)
            prod = part if prod is None else self.g.mul(prod, part)
        df = self._reshape_to(node, data, [1, flat] + rest)
        return self._reshape_to(node, self.g.mul(df, prod, name=node.name), list(data.shape))

    def op_TfIdfVectorizer(self, node, a):
        """Counts of the pool's n-grams in each row, as onnxruntime counts
        them: an n-gram (min_gram_length <= n <= max_gram_length) once per
        start and per distance 1..max_skip_count + 1 between its items, a
        unigram once per position; then TF (the count), IDF (weight where
        the count > 0) or TFIDF (count * weight). Each is a sum of ANDed
        compares of shifted slices with the pool's constants."""
        if "pool_strings" in a:
            raise UnsupportedError(node, "pool_strings (string n-grams)")
        x = self._x(node)
        rank = len(x.shape)
        if rank not in (1, 2) or _elt(x) not in ("i32", "i64"):
            raise UnsupportedError(node, f"a {rank}-D {_elt(x)} input (1-D or 2-D int32/int64)")
        x2 = x if rank == 2 else self._reshape_to(node, x, [1, x.shape[0]])
        nb, length = _static(node, x2.shape, "TfIdfVectorizer")
        mode = a.get("mode", b"TF")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode not in ("TF", "IDF", "TFIDF"):
            raise UnsupportedError(node, f"mode '{mode}'")
        lo, hi = int(a["min_gram_length"]), int(a["max_gram_length"])
        skips = int(a["max_skip_count"])
        pool, starts = list(a["pool_int64s"]), list(a["ngram_counts"]) + [len(a["pool_int64s"])]
        out_idx = list(a["ngram_indexes"])
        weights = list(a.get("weights", [1.0] * len(out_idx)))
        grams = [tuple(pool[p:p + n + 1]) for n in range(len(starts) - 1)
                 for p in range(starts[n], starts[n + 1], n + 1)]
        if len(grams) != len(out_idx):
            raise UnsupportedError(node, f"{len(grams)} n-grams but {len(out_idx)} ngram_indexes")
        one, zero = self.g.constant(np.array(1.0, np.float32)), \
            self.g.constant(np.array(0.0, np.float32))
        cols = {}
        for gi, gram in enumerate(grams):
            n = len(gram)
            if not lo <= n <= hi:
                continue
            count = None
            for dist in range(1, (skips + 2) if n > 1 else 2):
                span = (n - 1) * dist
                if span >= length:
                    break
                hit = None
                for j, item in enumerate(gram):
                    sl = self.g.slice(x2, starts=[0, j * dist], ends=[_END, j * dist + length - span],
                                      steps=[1, 1])
                    eq = self.g.equal(sl, self.g.constant(np.array(item, _elt_np(x))))
                    hit = eq if hit is None else self._and(hit, eq)
                c = self.g.reduce_sum(self.g.where(hit, one, zero), axes=[1], keepdims=True)
                count = c if count is None else self.g.add(count, c)
            if count is None:
                continue
            w = self.g.constant(np.array(weights[gi], np.float32))
            if mode == "IDF":
                count = self.g.where(self.g.greater(count, zero), w, zero)
            elif mode == "TFIDF":
                count = self.g.mul(count, w)
            cols[out_idx[gi]] = count
        size = max(out_idx) + 1
        zcol = self.g.constant(np.zeros((nb, 1), np.float32))
        y = self.g.concat(*[cols.get(i, zcol) for i in range(size)], axis=1) if size > 1 else \
            cols.get(0, zcol)
        return y if rank == 2 else self._reshape_to(node, y, [size])

    def op_RoiAlign(self, node, a):
        """As onnxruntime and torchvision's roi_align (avg mode, a fixed
        sampling_ratio): per roi, bin and sample, the bilinear value of the
        four neighbours (Gathers of the input's rows at computed indices),
        zero outside [-1, H] x [-1, W], averaged over the bin's samples."""
        x, rois, bidx = self._x(node, 0), self._x(node, 1), self._x(node, 2)
        strs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in a.items()}
        mode = strs.get("mode", "avg")
        ctm = strs.get("coordinate_transformation_mode", "half_pixel")
        sr = int(a.get("sampling_ratio", 0))
        oh, ow = int(a.get("output_height", 1)), int(a.get("output_width", 1))
        scale = float(a.get("spatial_scale", 1.0))
        if mode != "avg":
            raise UnsupportedError(node, f"mode '{mode}' (avg only)")
        if sr <= 0:
            raise UnsupportedError(node, "sampling_ratio 0 (adaptive: the number of samples "
                                   "depends on the rois' values)")
        if ctm not in ("half_pixel", "output_half_pixel"):
            raise UnsupportedError(node, f"coordinate_transformation_mode '{ctm}'")
        if _elt(x) != "f32" or _elt(rois) != "f32":
            raise UnsupportedError(node, "input or rois not float32")
        nb, c, h, w = _static(node, x.shape, "RoiAlign")
        nr = _static(node, rois.shape, "RoiAlign")[0]
        rows = self._reshape_to(node, self.g.transpose(x, perm=[0, 2, 3, 1]), [nb * h * w, c])
        off = 0.5 if ctm == "half_pixel" else 0.0

        def axis(k, size, n_out):
            """Per roi, output cell and sample along one axis: (low, high,
            weight of high, valid), each [R, n_out * sr]."""
            lo = self.g.slice(rois, starts=[0, k], ends=[_END, k + 1], steps=[1, 1])
            hi = self.g.slice(rois, starts=[0, k + 2], ends=[_END, k + 3], steps=[1, 1])
            lo = self.g.sub(self.g.mul(lo, self._k(lo, scale)), self._k(lo, off))
            ext = self.g.sub(self.g.sub(self.g.mul(hi, self._k(hi, scale)), self._k(hi, off)), lo)
            if ctm == "output_half_pixel":
                ext = self.g.max(ext, self._k(ext, 1.0))
            binsz = self.g.div(ext, self._k(ext, float(n_out)))  # [R, 1]
            frac = self.g.constant((np.arange(n_out)[:, None] + (np.arange(sr)[None, :] + 0.5) / sr)
                                   .reshape(1, n_out * sr).astype(np.float32))
            v = self.g.add(lo, self.g.mul(binsz, frac))  # [R, n_out * sr]
            valid = self._and(self.g.greater_equal(v, self._k(v, -1.0)),
                              self.g.less_equal(v, self._k(v, float(size))))
            v = self.g.max(v, self._k(v, 0.0))
            low = self._floor(node, v)
            top = self.g.greater_equal(low, self._k(low, float(size - 1)))
            low = self.g.where(top, self._k(low, float(size - 1)), low)
            v = self.g.where(top, low, v)
            high = self.g.where(top, low, self.g.add(low, self._k(low, 1.0)))
            return low, high, self.g.sub(v, low), valid

        yl, yh, ly, yv = axis(1, h, oh)
        xl, xh, lx, xv = axis(0, w, ow)
        p, q = oh * sr, ow * sr
        col = lambda v: self._reshape_to(node, v, [nr, p, 1])  # noqa: E731
        row = lambda v: self._reshape_to(node, v, [nr, 1, q])  # noqa: E731
        if h * w >= 1 << 24:  # the in-plane index is computed in float32
            raise UnsupportedError(node, f"a {h}x{w} plane (at most 2^24 cells)")
        bi = self.g.cast(bidx, np.int64) if _elt(bidx) != "i64" else bidx
        base = self.g.mul(self._reshape_to(node, bi, [nr, 1, 1]),
                          self.g.constant(np.array(h * w, np.int64)))
        one = self._k(ly, 1.0)
        y = None
        for yi, wy in ((yl, self.g.sub(one, ly)), (yh, ly)):
            for xi, wx in ((xl, self.g.sub(one, lx)), (xh, lx)):
                flat = self.g.add(self.g.mul(col(yi), self._k(yi, float(w))), row(xi))
                idx = self._reshape_to(node, self.g.add(self.g.cast(flat, np.int64), base),
                                       [nr * p * q])
                v = self._reshape_to(node, self.g.gather(rows, idx, axis=0), [nr, p, q, c])
                wt = self._reshape_to(node, self.g.mul(col(wy), row(wx)), [nr, p, q, 1])
                v = self.g.mul(v, wt)
                y = v if y is None else self.g.add(y, v)
        valid = self._reshape_to(node, self._and(col(yv), row(xv)), [nr, p, q, 1])
        y = self.g.where(valid, y, self._k(y, 0.0))
        y = self.g.reduce_mean(self._reshape_to(node, y, [nr, oh, sr, ow, sr, c]), axes=[2, 4],
                               keepdims=False)
        return self.g.transpose(y, perm=[0, 3, 1, 2], name=node.name)

    # --- 3-D convolutions: a sum over the kernel's depth of 2-D ones ----------

    def _conv3d(self, node, a):
        """Conv 3-D: depth folded into the batch, one 2-D conv per kernel
        depth tap on the strided depth slice it reads, summed."""
        x, w = self._x(node, 0), self._x(node, 1)
        k = [int(v) for v in a.get("kernel_shape", w.shape[2:])]
        strides, dil, pads = self._spatial(node, a, x, k)
        nb, c, d, h, wd = _static(node, x.shape, "3-D convolution")
        m, cg = w.shape[0], w.shape[1]
        if pads[0] or pads[3]:
            x = self.g.pad(x, pads=[0, 0, pads[0], 0, 0, 0, 0, pads[3], 0, 0], value=0.0)
        do = (d + pads[0] + pads[3] - (k[0] - 1) * dil[0] - 1) // strides[0] + 1
        xt = self.g.transpose(x, perm=[0, 2, 1, 3, 4])  # [N, D, C, H, W]
        acc = None
        for t in range(k[0]):
            xs = self.g.slice(xt, starts=[0, t * dil[0], 0, 0, 0],
                              ends=[_END, t * dil[0] + (do - 1) * strides[0] + 1, _END, _END, _END],
                              steps=[1, strides[0], 1, 1, 1])
            ws = self.g.slice(w, starts=[0, 0, t, 0, 0], ends=[_END, _END, t + 1, _END, _END],
                              steps=[1] * 5)
            y = self.g.op("dlg.conv2d", self._reshape_to(node, xs, [nb * do, c, h, wd]),
                          self._reshape_to(node, ws, [m, cg] + k[1:]), strides=strides[1:],
                          padding=[pads[1], pads[2], pads[4], pads[5]], dilations=dil[1:],
                          groups=int(a.get("group", 1)))
            acc = y if acc is None else self.g.add(acc, y)
        y = self._reshape_to(node, acc, [nb, do, m] + list(acc.shape[2:]))
        y = self.g.transpose(y, perm=[0, 2, 1, 3, 4], name=node.name)
        if self._has(node, 2):
            y = self.g.add(y, self._reshape_to(node, self._x(node, 2), [m, 1, 1, 1]))
        return y

    def _conv_transpose3d(self, node, a):
        """ConvTranspose 3-D: depth folded into the batch, one 2-D
        ConvTranspose per kernel depth tap, each placed at depth
        i * stride + tap * dilation of the full output and summed; then the
        depth pads cropped (a negative pad: zeros added)."""
        x, w = self._x(node, 0), self._x(node, 1)
        nb, c, d, h, wd = _static(node, x.shape, "3-D ConvTranspose")
        cin, cout_g = w.shape[0], w.shape[1]
        g = int(a.get("group", 1))
        k = [int(v) for v in a.get("kernel_shape", w.shape[2:])]
        s = [int(v) for v in a.get("strides", [1] * 3)]
        dl = [int(v) for v in a.get("dilations", [1] * 3)]
        op = [int(v) for v in a.get("output_padding", [0] * 3)]
        pads = self._conv_transpose_pads(node, a, [d, h, wd], k, s, dl, op)
        a2 = {"kernel_shape": k[1:], "strides": s[1:], "dilations": dl[1:],
              "output_padding": op[1:], "pads": [pads[1], pads[2], pads[4], pads[5]], "group": g}
        xf = self._reshape_to(node, self.g.transpose(x, perm=[0, 2, 1, 3, 4]), [nb * d, c, h, wd])
        full = (d - 1) * s[0] + (k[0] - 1) * dl[0] + 1 + op[0]
        span = (d - 1) * s[0] + 1
        acc = None
        for t in range(k[0]):
            wt = self.g.slice(w, starts=[0, 0, t, 0, 0], ends=[_END, _END, t + 1, _END, _END],
                              steps=[1] * 5)
            z = self._run_on(self.op_ConvTranspose, node, a2,
                             [xf, self._reshape_to(node, wt, [cin, cout_g] + k[1:])],
                             "ConvTranspose")
            ho, wo = z.shape[2], z.shape[3]
            r = cout_g * g * ho * wo
            z = self._reshape_to(node, z, [nb, d, 1, r])
            if s[0] > 1:  # zeros between the depth cells
                z = self.g.pad(z, pads=[0, 0, 0, 0, 0, 0, s[0] - 1, 0], value=0.0)
                z = self.g.slice(self._reshape_to(node, z, [nb, d * s[0], r]), starts=[0, 0, 0],
                                 ends=[_END, span, _END], steps=[1, 1, 1])
            else:
                z = self._reshape_to(node, z, [nb, d, r])
            z = self.g.pad(z, pads=[0, t * dl[0], 0, 0, full - span - t * dl[0], 0], value=0.0)
            acc = z if acc is None else self.g.add(acc, z)
        lo, hi = pads[0], pads[3]
        if lo > 0 or hi > 0:
            acc = self.g.slice(acc, starts=[0, max(lo, 0), 0], ends=[_END, full - max(hi, 0), _END],
                               steps=[1, 1, 1])
        if lo < 0 or hi < 0:
            acc = self.g.pad(acc, pads=[0, max(-lo, 0), 0, 0, max(-hi, 0), 0], value=0.0)
        do = full - lo - hi
        y = self._reshape_to(node, acc, [nb, do, cout_g * g, ho, wo])
        y = self.g.transpose(y, perm=[0, 2, 1, 3, 4], name=node.name)
        if self._has(node, 2):
            y = self.g.add(y, self._reshape_to(node, self._x(node, 2), [cout_g * g, 1, 1, 1]))
        return y

    # --- pooling as a reduction over strided slices ------------------------

    def _by_slices(self, node, a):
        """Pooling dlg's 2-D pools do not cover: 3-D, dilated, MaxPool's Indices."""
        k = a.get("kernel_shape", [])
        return len(k) == 3 or any(int(d) != 1 for d in a.get("dilations", [])) or \
            (node.op_type == "MaxPool" and len(node.output) > 1 and bool(node.output[1]))

    def _pool_slices(self, node, a, kind):
        """N-D max/average pooling as an elementwise max/sum over one strided
        slice of the (padded) input per kernel offset: masks and counts of
        which cells are inside the input are constants of the static shapes.
        MaxPool's Indices: the flat index of the first maximum in window
        order, (n * C + c) * prod(spatial) + the spatial index in row-major
        order (storage_order 0) or column-major (1), as ONNX and
        onnxruntime define it."""
        x = self._x(node)
        k = [int(v) for v in a["kernel_shape"]]
        n = len(k)
        if len(x.shape) != n + 2:
            raise UnsupportedError(node, f"a {len(x.shape)}-D input for a {n}-D kernel")
        size = list(_static(node, x.shape[2:], "pooling"))
        strides, dil, pads = self._spatial(node, a, x, k)
        order = int(a.get("storage_order", 0))
        if order not in (0, 1):
            raise UnsupportedError(node, f"storage_order {order}")
        include_pad = bool(a.get("count_include_pad", 0))
        outs, ends = [], []
        for i in range(n):
            span = size[i] + pads[i] + pads[i + n] - ((k[i] - 1) * dil[i] + 1)
            o = (-(-span // strides[i]) if a.get("ceil_mode", 0) else span // strides[i]) + 1
            if a.get("ceil_mode", 0) and (o - 1) * strides[i] >= size[i] + pads[i]:
                o -= 1  # a last window starting in the end padding is dropped
            outs.append(o)
            # end padding the last window needs (ceil_mode's extra cells too)
            ends.append(max(pads[i + n], (o - 1) * strides[i] + (k[i] - 1) * dil[i] + 1
                            - size[i] - pads[i]))
        xp = self.g.pad(x, pads=[0, 0] + pads[:n] + [0, 0] + ends, value=0.0) \
            if any(pads[:n]) or any(ends) else x
        idx_dims = list(reversed(range(n))) if order else list(range(n))
        place = [1] * n  # the spatial index's stride per dim
        for j in range(len(idx_dims) - 2, -1, -1):
            place[idx_dims[j]] = place[idx_dims[j + 1]] * size[idx_dims[j + 1]]
        dt = _elt_np(x)
        low = -np.inf if dt.kind == "f" else np.iinfo(dt).min
        best = idx = total = None
        count = np.zeros(outs)
        for off in np.ndindex(*k):
            starts = [0, 0] + [off[i] * dil[i] for i in range(n)]
            stops = [_END, _END] + [off[i] * dil[i] + (outs[i] - 1) * strides[i] + 1
                                    for i in range(n)]
            v = self.g.slice(xp, starts=starts, ends=stops, steps=[1, 1] + strides)
            pos = [np.arange(outs[i]) * strides[i] + off[i] * dil[i] - pads[i] for i in range(n)]
            grids = np.meshgrid(*pos, indexing="ij")
            inside = np.ones(outs, bool)
            padded = np.ones(outs, bool)
            for i, gi in enumerate(grids):
                inside &= (gi >= 0) & (gi < size[i])
                padded &= (gi >= -pads[i]) & (gi < size[i] + pads[i + n])
            count += inside if kind == "max" or not include_pad else padded
            if kind == "avg":
                total = v if total is None else self.g.add(total, v)
                continue
            mask = self.g.constant(inside.reshape([1, 1] + outs))
            if not inside.all():
                v = self.g.where(mask, v, self.g.constant(np.array(low, dt)))
            if best is None:
                best, idx = v, self.g.constant(np.where(
                    inside, sum(g * p for g, p in zip(grids, place)), -1)
                    .reshape([1, 1] + outs).astype(np.int64))
                continue
            here = self.g.constant((sum(g * p for g, p in zip(grids, place)))
                                   .reshape([1, 1] + outs).astype(np.int64))
            # the first maximum: strictly greater, or the first cell inside
            better = self.g.where(self.g.greater(v, best), self._mask(True),
                                  self.g.less(idx, self._k(idx, 0)))
            better = self.g.where(mask, better, self._mask(False))
            idx = self.g.where(better, here, idx)
            best = self.g.where(better, v, best)
        if kind == "avg":
            if (count == 0).any():
                raise UnsupportedError(node, "a window of padding only")
            y = self.g.div(total, self.g.constant(count.reshape([1, 1] + outs).astype(dt)),
                           name=node.name)
            return y
        res = [best]
        if len(node.output) > 1 and node.output[1]:
            nb, c = x.shape[0], x.shape[1]
            base = (np.arange(nb * c, dtype=np.int64) * int(np.prod(size))).reshape(
                [nb, c] + [1] * n)
            res.append(self.g.add(idx, self.g.constant(base)))
        return res

    # --- quantization (uint8 held widened, int8 native) --------------------
    # Composed in float: integer operands are exact in f32 (|v| < 2^24) and
    # the integer products' sums exact in f64 (< 2^53); rounding is half to
    # even and the result saturates to the type's range, as ONNX defines.

    _QRANGE = {2: (0, 255), 3: (-128, 127)}

    def _q_elem(self, node, i):
        """The quantized type (UINT8 or INT8) of input i (a zero point or
        quantized tensor); an absent zero point means UINT8."""
        if not self._has(node, i):
            return 2
        e = self._elem(node.input[i])
        if e is None:
            e = 3 if _elt(self._x(node, i)) == "i8" else None
        if e not in self._QRANGE:
            v = self.vals[node.input[i]]
            t = _type_name(e) if e else (str(v.dtype) if isinstance(v, np.ndarray) else _elt(v))
            raise UnsupportedError(node, f"input '{node.input[i]}' of type {t} "
                                   "(uint8 and int8 only)")
        return e

    def _as(self, node, i, dtype, default=0.0):
        """Input i's numbers in float `dtype` (absent: `default`)."""
        if not self._has(node, i):
            return self.g.constant(np.array(default, dtype))
        c = self.const(node.input[i])
        if c is not None:
            return self.g.constant(c.astype(dtype))
        x = self._x(node, i)
        return x if _elt_np(x) == np.dtype(dtype) else self.g.cast(x, dtype)

    def _per_axis(self, node, v, rank, axis):
        """A scale or zero point: a 1-D one (of more than one) along `axis`."""
        if len(v.shape) == 1 and v.shape[0] != 1 and rank > 1:
            shape = [1] * rank
            shape[_axis(node, axis, rank)] = v.shape[0]
            return self._reshape_to(node, v, shape)
        if len(v.shape) > 1:
            raise UnsupportedError(node, f"a scale or zero point of shape {list(v.shape)} "
                                   "(a scalar or 1-D per axis only)")
        return v

    def _saturate(self, node, q, elem, out=0):
        """Rounded-to-integer floats q clamped to elem's range, in its storage."""
        lo, hi = self._QRANGE[elem]
        q = self.g.min(self.g.max(q, self._k(q, lo)), self._k(q, hi))
        if elem == 3:
            return self.g.cast(q, np.int8)
        self.wide[node.output[out]] = elem
        return self.g.cast(q, np.int32)

    def op_QuantizeLinear(self, node, a):
        x = self._x(node)
        if _elt(x) not in ("f32", "f16", "f64"):
            raise UnsupportedError(node, f"input of type {_elt(x)} (float only)")
        elem, axis, rank = self._q_elem(node, 2), int(a.get("axis", 1)), len(x.shape)
        x = x if _elt(x) == "f32" else self.g.cast(x, np.float32)
        scale = self._per_axis(node, self._as(node, 1, np.float32), rank, axis)
        zp = self._per_axis(node, self._as(node, 2, np.float32), rank, axis)
        q = self.g.add(self._round_even(node, self.g.div(x, scale)), zp)
        return self._saturate(node, q, elem)

    def op_DequantizeLinear(self, node, a):
        x = self._x(node)
        if self._elem(node.input[0]) is None and _elt(x) not in ("i8", "i32"):
            raise UnsupportedError(node, f"input of type {_elt(x)} (uint8, int8, int32)")
        axis, rank = int(a.get("axis", 1)), len(x.shape)
        scale = self._per_axis(node, self._as(node, 1, np.float32), rank, axis)
        zp = self._per_axis(node, self._as(node, 2, np.float32), rank, axis)
        # int32 (exact below 2^24 in f32): through f64 then the product in f32
        xf = self.g.cast(self.g.sub(self.g.cast(x, np.float64), self.g.cast(zp, np.float64)),
                         np.float32)
        return self.g.mul(xf, scale, name=node.name)

    def op_DynamicQuantizeLinear(self, node, a):
        """scale = (max(0, max x) - min(0, min x)) / 255, zero point =
        saturate(round(-min / scale)), y = saturate(round(x / scale) + zp)."""
        x = self._x(node)
        if _elt(x) != "f32":
            raise UnsupportedError(node, f"input of type {_elt(x)} (float32 only)")
        axes = list(range(len(x.shape)))
        zero = self._k(x, 0.0)
        mn = self.g.min(self.g.reduce_min(x, axes=axes, keepdims=False), zero)
        mx = self.g.max(self.g.reduce_max(x, axes=axes, keepdims=False), zero)
        scale = self.g.div(self.g.sub(mx, mn), self._k(x, 255.0))
        zpf = self.g.min(self.g.max(self._round_even(node, self.g.div(self.g.sub(zero, mn),
                                                                       scale)), zero),
                         self._k(x, 255.0))
        y = self._saturate(node, self.g.add(self._round_even(node, self.g.div(x, scale)), zpf), 2)
        return [y, scale, self._saturate(node, zpf, 2, out=2)]

    def _int_operand(self, node, i, zp_i, zp_axis):
        """Quantized input i minus its zero point (input zp_i, 1-D along
        zp_axis of the operand when more than one), exact, in f64."""
        self._q_elem(node, i)
        if self._has(node, zp_i):
            self._q_elem(node, zp_i)
        v = self._as(node, i, np.float64)
        zp = self._as(node, zp_i, np.float64)
        if len(zp.shape) == 1 and zp.shape[0] != 1:
            shape = [1] * len(v.shape)
            shape[_axis(node, zp_axis, len(v.shape))] = zp.shape[0]
            zp = self._reshape_to(node, zp, shape)
        return self.g.sub(v, zp)

    def _conv_f64(self, node, a, x, w, bias=None):
        """Conv (with node's attributes) of f64 operands x and w."""
        return self._run_on(self.op_Conv, node, a, [x, w] + ([bias] if bias is not None else []),
                            "Conv")

    def _run_on(self, fn, node, a, operands, op_type):
        """fn on a copy of `node` (op type op_type, attributes a) whose
        inputs are the Values `operands` (under names of their own)."""
        c = _onnx.NodeProto()
        c.CopyFrom(node)
        c.op_type = op_type
        del c.input[:]
        names = [f"{node.output[0]}#operand{i}" for i in range(len(operands))]
        c.input.extend(names)
        self.vals.update(zip(names, operands))
        try:
            return fn(c, a)
        finally:
            for k in names:
                self.vals.pop(k, None)

    def op_MatMulInteger(self, node, a):
        """(A - a_zp) @ (B - b_zp) in int32 (a_zp per row of A, b_zp per
        column of B when 1-D), summed exactly in f64."""
        acc = self.g.matmul(self._int_operand(node, 0, 2, -2), self._int_operand(node, 1, 3, -1))
        return self.g.cast(acc, np.int32, name=node.name)

    def op_ConvInteger(self, node, a):
        """Conv of x - x_zp and w - w_zp (per output channel when 1-D): the
        padding is the zero point, so zero after the subtraction."""
        x = self._int_operand(node, 0, 2, 1)
        w = self._int_operand(node, 1, 3, 0)
        return self.g.cast(self._conv_f64(node, a, x, w), np.int32, name=node.name)

    def _requantize(self, node, acc, scale, y_scale_i, y_zp_i, rank):
        """saturate(round(acc * scale / y_scale) + y_zp) of f64 acc."""
        elem = self._q_elem(node, y_zp_i)
        ys = self._as(node, y_scale_i, np.float64)
        yzp = self._as(node, y_zp_i, np.float64)
        if len(ys.shape) > 1 or len(yzp.shape) > 1 or \
                any(len(v.shape) == 1 and v.shape[0] != 1 for v in (ys, yzp)):
            raise UnsupportedError(node, "a per-axis output scale or zero point")
        r = self.g.div(self.g.mul(acc, scale), ys)
        return self._saturate(node, self.g.add(self._round_even(node, r), yzp), elem)

    def op_QLinearMatMul(self, node, a):
        x = self._int_operand(node, 0, 2, -2)
        w = self._int_operand(node, 3, 5, -1)
        sa, sb = self._as(node, 1, np.float64), self._as(node, 4, np.float64)
        if len(sa.shape) == 1 and sa.shape[0] != 1:
            sa = self._reshape_to(node, sa, [sa.shape[0], 1])
        acc = self.g.matmul(x, w)
        return self._requantize(node, acc, self.g.mul(sa, sb), 6, 7, len(acc.shape))

    def op_QLinearConv(self, node, a):
        x = self._int_operand(node, 0, 2, 1)
        w = self._int_operand(node, 3, 5, 0)
        bias = None
        if self._has(node, 8):
            b = self._x(node, 8)
            if _elt(b) != "i32":
                raise UnsupportedError(node, f"bias of type {_elt(b)} (int32 only)")
            bias = self.g.cast(b, np.float64)
        acc = self._conv_f64(node, a, x, w, bias)
        rank = len(acc.shape)
        sx, sw = self._as(node, 1, np.float64), self._as(node, 4, np.float64)
        sw = self._per_axis(node, sw, rank, 1)
        return self._requantize(node, acc, self.g.mul(sx, sw), 6, 7, rank)

    # --- control flow: If, Loop and Scan imported inline -------------------
    # dlc compiles per input shapes and per values of small shape-like
    # inputs, so a condition or trip count known at import (a constant, a
    # shape, or such an input: ValueDependentError re-imports per value)
    # selects the branch or unrolls the body right here. A data-dependent
    # one is an UnsupportedError, never a guess.

    def _subgraph(self, graph, bound):
        """Imports `graph` (a branch or a loop body) inline with its inputs
        bound to `bound` ((value, deps) pairs); outer-scope names stay
        visible. Returns its outputs as (value, deps) pairs. The names the
        subgraph defines shadow the outer ones only while it is imported:
        they are restored after, so neither a branch's values nor one
        iteration's (nor their materialized constants) leak."""
        defined = [v.name for v in graph.input] + [t.name for t in graph.initializer] + \
            [o for n in graph.node for o in n.output if o]
        tables = (self.vals, self.materialized, self.deps, self.producer, self.counted)
        saved = [{k: t[k] for k in defined if k in t} for t in tables]
        try:
            for t in tables:
                for k in defined:
                    t.pop(k, None)
            for init in graph.initializer:
                self.vals[init.name] = _tensor_value(init, f"ONNX initializer '{init.name}'")
                self.deps[init.name] = set()
            for vi, (v, deps) in zip(graph.input, bound):
                self.vals[vi.name], self.deps[vi.name] = v, set(deps)
            for n in graph.node:
                with onnx_check.node_errors(n):
                    self.node(n)
            for o in graph.output:
                if o.name not in self.vals:  # a KeyError: 'cond_out' before
                    raise CompileError(f"ONNX subgraph '{graph.name}': output '{o.name}' is "
                                       "produced by no node and is not an input, initializer "
                                       "or outer-scope value", "")
                if o.name in self.counted:
                    raise UnsupportedError(self.producer[o.name], f"'{o.name}' has a size known "
                                           "only at run time (NonMaxSuppression's or NonZero's "
                                           "indices, padded): it may not leave an If, Loop or "
                                           "Scan body, only be a graph output")
            return [(self.vals[o.name], self.deps.get(o.name, set())) for o in graph.output]
        finally:
            for t, old in zip(tables, saved):
                for k in defined:
                    t.pop(k, None)
                t.update(old)

    def _known(self, node, v, deps, what):
        """v as a one-element constant: it decides control flow, so dlc needs
        it at import. Computed from small integer/bool graph inputs only (a
        trip count, a flag): dlc specialises on their values; from float
        data, it is data-dependent control flow: an error."""
        if isinstance(v, np.ndarray):
            if v.size != 1:
                raise UnsupportedError(node, f"{what} has {v.size} elements (one expected)")
            return v.reshape(())
        flags = {i.name for i in self.model.graph.input
                 if i.type.tensor_type.elem_type in (2, 3, 4, 5, 6, 7, 9, 12, 13)}
        if deps and deps <= self.value_inputs & flags:
            raise ValueDependentError(node, f"{what} is a runtime value", deps)
        raise UnsupportedError(node, f"{what} is computed from tensors at run time "
                               "(data-dependent control flow; dlc resolves If/Loop/Scan at "
                               "compile time)")

    def _flow_outputs(self, node, outs):
        """The node's results from (value, deps) pairs; deps cover the
        outer-scope values the subgraph read, not only the node's inputs."""
        for name, (_, deps) in zip(node.output, outs):
            if name:
                self.deps[name] = set(deps)
        return [v for v, _ in outs]

    def _bound(self, node, i):
        return self.vals[node.input[i]], self.deps.get(node.input[i], set())

    def op_If(self, node, a):
        v, deps = self._bound(node, 0)
        kind = np.asarray(v).dtype if isinstance(v, np.ndarray) else _elt(v)
        if kind not in (np.bool_, "i1"):  # ONNX: bool; a float used to pass as its truth
            raise UnsupportedError(node, f"the condition is {kind}, not bool")
        if self._at_run_time(v, deps):
            return self._runtime_if(node, a, v, deps)
        c = self._known(node, v, deps, "the condition")
        branch = a["then_branch" if bool(c) else "else_branch"]
        outs = self._subgraph(branch, [])
        if len(outs) != len(node.output):
            raise CompileError(f"ONNX node '{node.name}' (If): the branch has {len(outs)} "
                               f"outputs, the node {len(node.output)}", "")
        return self._flow_outputs(node, outs)

    # --- control flow decided at run time: dlg.if / dlg.while ---------------
    # A condition or trip count computed from tensor data (not a constant,
    # a shape, or a small int/bool graph input that dlc specialises on) is
    # read at run time: If becomes dlg.if, Loop becomes dlg.while, each
    # branch or body imported once into the op's region (python/dlc/control.py).

    def _at_run_time(self, v, deps):
        """Whether v (deciding control flow) is known only at run time."""
        if isinstance(v, np.ndarray):
            return False
        flags = {i.name for i in self.model.graph.input
                 if i.type.tensor_type.elem_type in (2, 3, 4, 5, 6, 7, 9, 12, 13)}
        return not (deps and deps <= self.value_inputs & flags)

    def _in_region(self, build):
        """Runs build() with the constants it materializes kept to itself:
        a constant made inside a region does not dominate the ops after it."""
        saved = dict(self.materialized), dict(self.wide)
        try:
            return build()
        finally:
            self.materialized.clear()
            self.materialized.update(saved[0])
            self.wide.clear()
            self.wide.update(saved[1])

    def _region_value(self, node, v, what):
        """v (a subgraph output) as a Value built in the current region."""
        if isinstance(v, np.ndarray):
            if v.dtype.type in _WIDE_NP:
                raise UnsupportedError(node, f"{what} of type {v.dtype} (runtime control flow "
                                       "carries dlg element types only)")
            return self.g.constant(v)
        return v

    def _scalar_flag(self, node, v, what, dtype):
        """v (a one-element tensor) as a 0-d Value of `dtype`."""
        if isinstance(v, np.ndarray):
            if v.size != 1:
                raise UnsupportedError(node, f"{what} has {v.size} elements (one expected)")
            return self.g.constant(np.asarray(v).reshape(()).astype(dtype))
        if any(d < 0 for d in v.shape) or int(np.prod(v.shape)) != 1:
            raise UnsupportedError(node, f"{what} of shape {v.shape} (one element expected)")
        if _elt(v) != {np.bool_: "i1", np.int64: "i64"}[dtype]:
            raise UnsupportedError(node, f"{what} of type {_elt(v)} ({np.dtype(dtype).name} "
                                   "expected)")
        return v if v.shape == () else self.g.reshape(v, ())

    def _runtime_if(self, node, a, cond, deps):
        cond = self._scalar_flag(node, cond, "the condition", np.bool_)
        out_deps = [set(deps)]

        def branch(key):
            def build():
                def body():
                    outs = self._subgraph(a[key], [])
                    if len(outs) != len(node.output):
                        raise CompileError(f"ONNX node '{node.name}' (If): {key} has "
                                           f"{len(outs)} outputs, the node "
                                           f"{len(node.output)}", "")
                    for _, d in outs:
                        out_deps[0] |= d
                    return [self._region_value(node, v, f"{key} output {k}")
                            for k, (v, _) in enumerate(outs)]
                return self._in_region(body)
            return build
        try:
            res = self.g.if_(cond, branch("then_branch"), branch("else_branch"), name=node.name)
        except UnsupportedError:
            raise
        except CompileError as e:  # the branches' types differ
            raise UnsupportedError(node, f"runtime condition: {e}") from None
        return self._flow_outputs(node, [(v, out_deps[0]) for v in res])

    def _runtime_loop(self, node, body, n_carried, n_scan):
        """Loop as dlg.while: the carried state is (i, cond, v..., scan
        buffers...), the before region tests cond (and i < M), the do region
        runs the body. A scan output is a buffer of M rows (M, the trip
        count, must be known at import: a constant or a graph input dlc
        specialises on) whose row i the body's value replaces (dlg.update_row:
        an in-place write of the row, not of the buffer); the loop's
        final i counts the rows written, so the output is padded and
        counted (self.counted, dim 0) like NonMaxSuppression's."""
        deps = set()
        for k in range(len(node.input)):
            if self._has(node, k):
                deps |= self.deps.get(node.input[k], set())
        bound = self._scan_bound(node, n_scan)
        limit = self._scalar_flag(node, self.vals[node.input[0]], "the trip count M",
                                  np.int64) if self._has(node, 0) else None
        cond0 = self._scalar_flag(node, self.vals[node.input[1]], "the initial condition",
                                  np.bool_) if self._has(node, 1) else \
            self.g.constant(np.array(True))
        inits = [self._region_value(node, self.vals[node.input[2 + k]], f"carried value {k}")
                 for k in range(n_carried)]
        i0 = self.g.constant(np.array(0, np.int64))
        scans = self._scan_types(node, body, n_carried, n_scan, i0, cond0, inits, deps)
        bufs = [self.g.constant(np.zeros((bound,) + shape, dt)) for shape, dt in scans]

        # The scan buffers go first in the carried list: canonicalization may
        # drop a carried value the loop passes through unused (the condition
        # when the body ignores it), which shifts the ones after it between
        # the before region's arguments and scf.condition's operands, and
        # bufferization then copies each shifted buffer on every trip.
        # First, a buffer keeps its place and is updated in place.

        def before(*state):
            i, c = state[n_scan], state[n_scan + 1]
            go = c if limit is None else self.g.where(c, self.g.less(i, limit),
                                                      self._mask(False))
            return go, list(state)

        def after(*state):
            old, (i, c), carried = state[:n_scan], state[n_scan:n_scan + 2], state[n_scan + 2:]

            def build():
                outs = self._subgraph(body, [(i, deps), (c, deps)] +
                                      [(v, deps) for v in carried])
                nxt_c = self._scalar_flag(node, outs[0][0], "the body's cond output", np.bool_)
                nxt = [self._region_value(node, v, f"carried value {k}")
                       for k, (v, _) in enumerate(outs[1:1 + n_carried])]
                for k, (v, w) in enumerate(zip(nxt, carried)):
                    if v.type != w.type:
                        raise UnsupportedError(node, f"carried value {k} changes type from "
                                               f"{w.type} to {v.type} in the body (runtime "
                                               "loops keep their types)")
                rows = []
                for k, ((v, _), buf, (shape, dt)) in enumerate(
                        zip(outs[1 + n_carried:], old, scans)):
                    v = self._region_value(node, v, f"scan output {k}")
                    if tuple(v.shape) != shape or _elt_np(v) != dt:
                        raise UnsupportedError(node, f"scan output {k} changes from {list(shape)} "
                                               f"{dt} to {list(v.shape)} {_elt_np(v)} between "
                                               "iterations (runtime loops keep their types)")
                    # row i of the buffer := v, written in place (O(row) a trip)
                    rows.append(self.g.update_row(buf, i, v))
                for _, d in outs:
                    deps.update(d)
                one = self.g.constant(np.array(1, np.int64))
                return rows + [self.g.add(i, one), nxt_c] + nxt
            return self._in_region(build)
        res = self.g.while_(bufs + [i0, cond0] + inits, before, after, name=node.name)
        count = res[n_scan]
        for k in range(n_scan):
            name = node.output[n_carried + k] if n_carried + k < len(node.output) else ""
            if name:
                self.counted[name] = (count, 0)
        return self._flow_outputs(node, [(v, deps) for v in res[n_scan + 2:] + res[:n_scan]])

    def _scan_bound(self, node, n_scan):
        """The padded length of a runtime Loop's scan outputs: its trip count
        M, which must be known at import (None without scan outputs). dlc's
        tensors have sizes fixed at compile time, so a scan output needs a
        bound on its length there; M is the only one ONNX gives. An M
        computed from small graph inputs only (Range's expansion: from
        start, limit and delta) is a ValueDependentError: dlc specialises
        on those inputs, as for Range's own operands, whose output has the
        same run-time length. An M computed from other tensor data has no
        bound: a named error."""
        if not n_scan:
            return None
        if not self._has(node, 0):
            raise UnsupportedError(node, f"{n_scan} scan output(s) of a Loop with no trip count "
                                   "M whose condition is decided at run time (dlc pads scan "
                                   "outputs to M rows: no bound)")
        v, deps = self._bound(node, 0)
        if not isinstance(v, np.ndarray):
            if deps and deps <= self.value_inputs:
                raise ValueDependentError(node, "the trip count M of a Loop with scan outputs "
                                          "(their length) is a runtime value", deps)
            raise UnsupportedError(node, "the trip count M of a Loop with scan outputs is "
                                   "computed from tensor data at run time: the scan outputs "
                                   "need a length bound known at compile time (dlc pads them "
                                   "to M rows), which only a constant M or one computed from "
                                   "small graph inputs (dlc specialises on their values) gives")
        m = int(self._known(node, v, deps, "the trip count M"))
        if m <= 0:
            raise UnsupportedError(node, "zero iterations: empty scan outputs (zero-size tensors)")
        return m

    def _scan_types(self, node, body, n_carried, n_scan, i0, cond0, inits, deps):
        """The (shape, dtype) of each scan output of a runtime Loop, from the
        body imported once on the initial values outside the loop (its ops
        are unused and erased as dead code): the buffers carried by the
        loop need them before the loop's own body is built."""
        if not n_scan:
            return []

        def probe():
            outs = self._subgraph(body, [(i0, deps), (cond0, deps)] +
                                  [(v, deps) for v in inits])
            types = []
            for k, (v, _) in enumerate(outs[1 + n_carried:]):
                v = self._region_value(node, v, f"scan output {k}")
                if any(d < 0 for d in v.shape):
                    raise UnsupportedError(node, f"scan output {k} has a dynamic shape "
                                           f"{list(v.shape)}")
                types.append((tuple(v.shape), _elt_np(v)))
            return types
        return self._in_region(probe)

    # An unrolled Loop with no trip count stops on its cond output; past
    # this many iterations dlc gives up rather than unroll without end.
    _LOOP_LIMIT = 4096

    def _take(self, v, t, axis):
        """Element t of v along axis (the axis dropped)."""
        if isinstance(v, np.ndarray):
            return np.take(v, t, axis=axis)
        rank = len(v.shape)
        s = self.g.slice(v, starts=[t if i == axis else 0 for i in range(rank)],
                         ends=[t + 1 if i == axis else _END for i in range(rank)],
                         steps=[1] * rank)
        return self.g.reshape(s, tuple(d for i, d in enumerate(v.shape) if i != axis))

    def _stack(self, vs, axis):
        """vs (constants or Values of one shape) stacked along a new axis."""
        if all(isinstance(v, np.ndarray) for v in vs):
            return np.stack(vs, axis=axis)
        parts = []
        for v in vs:
            v = v if isinstance(v, Value) else self.g.constant(v)
            shape = list(v.shape)
            shape.insert(axis, 1)
            parts.append(self.g.reshape(v, tuple(shape)))
        return parts[0] if len(parts) == 1 else self.g.concat(*parts, axis=axis)

    def op_Loop(self, node, a):
        body = a["body"]
        n_carried = len(node.input) - 2
        n_scan = len(body.output) - 1 - n_carried
        if any(self._has(node, k) and self._at_run_time(*self._bound(node, k)) for k in (0, 1)):
            return self._runtime_loop(node, body, n_carried, n_scan)
        trips = int(self._known(node, *self._bound(node, 0), "the trip count M")) \
            if self._has(node, 0) else None
        cond = bool(self._known(node, *self._bound(node, 1), "the initial condition")) \
            if self._has(node, 1) else True
        if trips is None and not self._has(node, 1):
            raise UnsupportedError(node, "neither a trip count nor a condition (an endless loop)")
        n_carried = len(node.input) - 2
        n_scan = len(body.output) - 1 - n_carried
        carried = [self._bound(node, 2 + k) for k in range(n_carried)]
        scans = [[] for _ in range(n_scan)]
        i = 0
        while cond and (trips is None or i < trips):
            if i >= self._LOOP_LIMIT:
                raise UnsupportedError(node, f"more than {self._LOOP_LIMIT} iterations "
                                       "(dlc unrolls Loop)")
            outs = self._subgraph(body, [(np.array(i, np.int64), set()),
                                         (np.array(cond), set())] + carried)
            c, deps = outs[0]
            if self._at_run_time(c, deps):  # the early exit depends on data: a real loop
                return self._runtime_loop(node, body, n_carried, n_scan)
            cond = bool(self._known(node, c, deps, "the body's cond output (the early exit)"))
            carried = outs[1:1 + n_carried]
            for k, (v, _) in enumerate(outs[1 + n_carried:]):
                scans[k].append(v)
            i += 1
        if n_scan and i == 0:
            raise UnsupportedError(node, "zero iterations: empty scan outputs (zero-size tensors)")
        scan_deps = set().union(*[d for _, d in carried]) if carried else set()
        return self._flow_outputs(node, carried + [(self._stack(s, 0), scan_deps)
                                                   for s in scans])

    def _scan(self, node, body, states, xs, in_axes, in_rev, out_axes, out_rev):
        """The Scan recurrence unrolled: states [(value, deps)], scan inputs
        xs [(value, deps)] iterated along in_axes (reversed where in_rev);
        returns final states + scan outputs stacked along out_axes."""
        lens = {_static(node, [v.shape[ax]], "the scan length")[0]
                for (v, _), ax in zip(xs, in_axes)}
        if len(lens) != 1:
            raise CompileError(f"ONNX node '{node.name}' (Scan): scan inputs of different "
                               f"lengths {sorted(lens)}", "")
        n = lens.pop()
        if n == 0:
            raise UnsupportedError(node, "a scan of length 0 (zero-size tensors)")
        if n > self._LOOP_LIMIT:  # unrolled below, as Loop is
            raise UnsupportedError(node, f"a scan of length {n} (dlc unrolls Scan: at most "
                                   f"{self._LOOP_LIMIT})")
        deps = set().union(*[d for _, d in states + xs])
        outs_t = []
        for t in range(n):
            ins = [(self._take(v, n - 1 - t if r else t, ax), d)
                   for (v, d), ax, r in zip(xs, in_axes, in_rev)]
            outs = self._subgraph(body, states + ins)
            states = outs[:len(states)]
            outs_t.append([v for v, _ in outs[len(states):]])
        scans = []
        for k, ax in enumerate(out_axes):
            vs = [o[k] for o in outs_t]
            if out_rev[k]:
                vs = vs[::-1]
            scans.append((self._stack(vs, ax % (len(vs[0].shape) + 1)), deps))
        return states + scans

    def op_Scan(self, node, a):
        body = a["body"]
        m = int(a["num_scan_inputs"])
        if self.opset < 9:
            return self._scan8(node, a, body, m)
        n_states = len(node.input) - m
        n_out = len(body.output) - n_states
        states = [self._bound(node, k) for k in range(n_states)]
        xs = [self._bound(node, n_states + k) for k in range(m)]
        in_axes = [_axis(node, v, len(x.shape), "scan_input_axes entry") for v, (x, _) in
                   zip(a.get("scan_input_axes", [0] * m), xs)]
        in_rev = list(a.get("scan_input_directions", [0] * m))
        out_axes = list(a.get("scan_output_axes", [0] * n_out))
        out_rev = list(a.get("scan_output_directions", [0] * n_out))
        return self._flow_outputs(node, self._scan(node, body, states, xs, in_axes, in_rev,
                                                   out_axes, out_rev))

    def _scan8(self, node, a, body, m):
        """Opset 8's Scan: axis 0 is a batch (each batch element scanned on
        its own), time is axis 1, and sequence_lens (input 0) may shorten
        a batch element's sequence: supported only when it is the full length."""
        n_states = len(node.input) - 1 - m
        n_scan = len(body.output) - n_states
        states = [self._bound(node, 1 + k) for k in range(n_states)]
        xs = [self._bound(node, 1 + n_states + k) for k in range(m)]
        batch = _static(node, [xs[0][0].shape[0]], "the batch size")[0]
        length = _static(node, [xs[0][0].shape[1]], "the scan length")[0]
        if self._has(node, 0):
            lens = self.need_const(node, 0, "sequence_lens")
            if np.any(np.asarray(lens) != length):
                raise UnsupportedError(node, f"sequence_lens {list(np.asarray(lens))} shorter "
                                       f"than the scan length {length} (variable lengths)")
        rev = list(a.get("directions", [0] * m))
        per_b = []
        for b in range(batch):
            sb = [(self._take(v, b, 0), d) for v, d in states]
            xb = [(self._take(v, b, 0), d) for v, d in xs]
            per_b.append(self._scan(node, body, sb, xb, [0] * m, rev, [0] * n_scan,
                                    [0] * n_scan))
        return self._flow_outputs(node, [(self._stack([o[k][0] for o in per_b], 0), per_b[0][k][1])
                                         for k in range(len(per_b[0]))])

    # --- Einsum: a composition of transpose / reshape / mul / reduce_sum /
    # batched matmul. Labels are letters; '...' stands for the broadcast
    # dims (placeholders '0', '1', ... here), right-aligned as in NumPy.

    def _einsum_terms(self, node, eq, xs):
        eq = eq.replace(" ", "")
        lhs, arrow, rhs = eq.partition("->")
        terms = lhs.split(",")
        if len(terms) != len(xs):
            raise UnsupportedError(node, f"equation '{eq}' has {len(terms)} operands, the node "
                                   f"{len(xs)} inputs")
        n_ell = 0
        parsed = []
        for t, x in zip(terms, xs):
            labels = [c for c in t.replace("...", "") if c.isalpha()]
            if len(labels) != len(t.replace("...", "")):
                raise UnsupportedError(node, f"equation '{eq}': term '{t}' has a character that "
                                       "is not a letter")
            k = len(x.shape) - len(labels)
            if k < 0 or (k and "..." not in t):
                raise UnsupportedError(node, f"equation '{eq}': term '{t}' does not fit an "
                                       f"operand of rank {len(x.shape)}")
            n_ell = max(n_ell, k)
            head, _, tail = t.partition("...")
            ell = [str(n_ell - k + i) for i in range(k)]  # right-aligned broadcast dims
            parsed.append(list(head) + ell + list(tail) if "..." in t else list(t))
        ell_out = [str(i) for i in range(n_ell)]
        if arrow:
            head, dots, tail = rhs.partition("...")
            out = list(head) + (ell_out if dots or not n_ell else []) + list(tail)
            if n_ell and not dots:  # NumPy: the broadcast dims must appear in the output
                raise UnsupportedError(node, f"equation '{eq}': '...' is summed out")
        else:  # implicit: the broadcast dims, then the letters used once, sorted
            counts = {}
            for p in parsed:
                for c in p:
                    counts[c] = counts.get(c, 0) + 1
            out = ell_out + sorted(c for c, k in counts.items() if k == 1 and c.isalpha())
        if len(set(out)) != len(out) or any(c not in set().union(*map(set, parsed)) for c in out):
            raise UnsupportedError(node, f"equation '{eq}': an output label repeated or "
                                   "not in any operand")
        return parsed, out

    def _einsum_diagonal(self, x, labels):
        """A label repeated in one operand: its diagonal (x * eye summed)."""
        while len(set(labels)) != len(labels):
            c = next(c for c in labels if labels.count(c) > 1)
            i = labels.index(c)
            j = labels.index(c, i + 1)
            n = x.shape[i]
            eye = np.eye(n, dtype=_elt_np(x)).reshape(
                [n if d in (i, j) else 1 for d in range(len(labels))])
            x = self.g.reduce_sum(self.g.mul(x, self.g.constant(eye)), axes=[j], keepdims=False)
            labels = labels[:j] + labels[j + 1:]
        return x, labels

    def _einsum_pair(self, a, la, b, lb, keep):
        """a (labels la) times b (lb) summed over the shared labels not in
        `keep`, as one batched matmul: [batch, a-only, sum] x [batch, sum, b-only]."""
        batch = [c for c in la if c in lb and c in keep]
        red = [c for c in la if c in lb and c not in keep]
        ao = [c for c in la if c not in lb]
        bo = [c for c in lb if c not in la]
        size = dict(zip(la, a.shape))
        size.update(zip(lb, b.shape))

        def prod(ls):
            return int(np.prod([size[c] for c in ls]))

        a = self.g.transpose(a, perm=[la.index(c) for c in batch + ao + red])
        b = self.g.transpose(b, perm=[lb.index(c) for c in batch + red + bo])
        a = self.g.reshape(a, (prod(batch), prod(ao), prod(red)))
        b = self.g.reshape(b, (prod(batch), prod(red), prod(bo)))
        y = self.g.matmul(a, b)
        labels = batch + ao + bo
        return self.g.reshape(y, tuple(size[c] for c in labels)), labels

    def op_Einsum(self, node, a):
        eq = a["equation"]
        eq = eq.decode() if isinstance(eq, bytes) else eq
        xs = [self._x(node, i) for i in range(len(node.input))]
        for x in xs:
            _static(node, x.shape, "Einsum")
        terms, out = self._einsum_terms(node, eq, xs)
        # a broadcast (size-1) dim against a larger one: dropped from that operand
        size = {}
        for x, t in zip(xs, terms):
            for c, d in zip(t, x.shape):
                if size.get(c, 1) != 1 and d not in (1, size[c]):
                    raise UnsupportedError(node, f"equation '{eq}': label '{c}' has sizes "
                                           f"{size[c]} and {d}")
                size[c] = max(size.get(c, 1), d)
        ops = []
        for x, t in zip(xs, terms):
            x, t = self._einsum_diagonal(x, list(t))
            drop = [i for i, c in enumerate(t) if x.shape[i] == 1 and size[c] != 1]
            if drop:
                t = [c for i, c in enumerate(t) if i not in drop]
                x = self.g.reshape(x, tuple(size[c] for c in t))
            ops.append((x, t))
        # sum each operand's own labels that nothing else needs, then
        # contract the operands left to right
        for k in range(len(ops)):
            x, t = ops[k]
            others = set(out).union(*[set(u) for j, (_, u) in enumerate(ops) if j != k])
            red = [i for i, c in enumerate(t) if c not in others]
            if red:
                x = self.g.reduce_sum(x, axes=red, keepdims=False)
                t = [c for i, c in enumerate(t) if i not in red]
            ops[k] = (x, t)
        y, ty = ops[0]
        for k in range(1, len(ops)):
            keep = set(out).union(*[set(u) for _, u in ops[k + 1:]])
            y, ty = self._einsum_pair(y, ty, ops[k][0], ops[k][1], keep)
        if ty != out:
            y = self.g.transpose(y, perm=[ty.index(c) for c in out])
        return y


def _type_name(elem_type):
    try:
        return _onnx.TensorProto.DataType.Name(elem_type)
    except ValueError:
        return f"element type {elem_type}"


def _elt(v):
    """The MLIR element type of a Value ('f32', 'i64', ...)."""
    return _DTYPES[_elt_dtype(v)]


def _elt_np(v):
    return np.dtype(_elt_dtype(v))


def _resize_matrix(n_in, n_out, scale, mode, ctm, nearest_mode, cubic_a, exclude, roi):
    """ONNX Resize along one axis as a [n_out, n_in] matrix, and which
    outputs are outside the input (tf_crop_and_resize's extrapolation)."""
    w = np.zeros((n_out, n_in))
    outside = np.zeros(n_out, np.bool_)
    width = scale * n_in
    for x in range(n_out):
        if ctm == "align_corners":
            xo = 0.0 if width == 1 else x * (n_in - 1) / (width - 1)
        elif ctm == "asymmetric":
            xo = x / scale
        elif ctm == "tf_crop_and_resize":
            lo, hi = roi
            xo = (hi - lo) * (n_in - 1) / 2 if width == 1 else \
                x * (hi - lo) * (n_in - 1) / (width - 1)
            xo += lo * (n_in - 1)
            if xo < 0 or xo > n_in - 1:
                outside[x] = True
                continue
        elif ctm == "pytorch_half_pixel":
            xo = -0.5 if width == 1 else (x + 0.5) / scale - 0.5
        else:  # half_pixel
            xo = (x + 0.5) / scale - 0.5
        xo = float(xo)
        ratio = 1.0 if xo.is_integer() else xo - np.floor(xo)
        if mode == "nearest":
            if xo.is_integer():
                c = [0.0, 1.0]
            else:
                c = {"round_prefer_floor": [ratio <= 0.5, ratio > 0.5],
                     "round_prefer_ceil": [ratio < 0.5, ratio >= 0.5],
                     "floor": [1, 0], "ceil": [0, 1]}[nearest_mode]
        elif mode == "linear":
            c = [1 - ratio, ratio]
        else:
            A, r = cubic_a, ratio
            c = [((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                 ((A + 2) * r - (A + 3)) * r * r + 1,
                 ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
                 ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A]
        c = np.array(c, np.float64)
        k = len(c)
        pad = -(-k // 2)
        # the k nearest indices of the edge-padded axis, the smaller first on ties
        xp = xo + pad
        idx = sorted(sorted(range(n_in + 2 * pad), key=lambda i: (abs(xp - i), i))[:k])
        idx = np.array(idx) - pad
        if exclude:
            c[(idx < 0) | (idx >= n_in)] = 0
            c /= c.sum()
        for i, cv in zip(idx, c):
            w[x, min(max(i, 0), n_in - 1)] += cv
    return w, outside


def _shape_slice(shape, a):
    """Shape's output: dims [start, end) (opset 15), clamped like Python slices."""
    return np.array(list(shape)[slice(a.get("start", 0), a.get("end"))], np.int64)


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


# The most elements a folded constant may hold: 2^27 (512 MiB of f32). A
# mutation campaign's Range of 3e8 elements imported, slowly, into a 1.2 GB
# constant; legitimate ones (position ids, a [1, 1, 4096, 4096] mask) are
# far smaller.
_FOLD_MAX_ELEMENTS = 1 << 27


def _fold_elements(node, consts):
    """The element count of the constant that folding `node` would build,
    for the ops whose result is larger than their operands; None for
    others (their results are no larger than what exists already)."""
    try:
        if node.op_type == "Range":
            start, limit, delta = (float(np.asarray(c).reshape(-1)[0]) for c in consts[:3])
            return 0 if delta == 0 else max(0, int(np.ceil((limit - start) / delta)))
        if node.op_type == "ConstantOfShape":
            return int(np.prod([int(d) for d in np.asarray(consts[0]).reshape(-1)], dtype=object))
        if node.op_type == "Expand":
            shape = np.broadcast_shapes(np.shape(consts[0]),
                                        tuple(int(d) for d in np.asarray(consts[1]).reshape(-1)))
            return int(np.prod(shape, dtype=object))
    except (ValueError, TypeError, OverflowError, IndexError):
        return None  # malformed: the folder's own error names it
    return None


def _check_fold_size(node, consts):
    n = _fold_elements(node, consts)
    if n is not None and n > _FOLD_MAX_ELEMENTS:
        raise UnsupportedError(node, f"its constant result would hold {n} elements, more than "
                               f"dlc folds into a model ({_FOLD_MAX_ELEMENTS})")


_FOLD = {
    "Shape": lambda imp, n, c, a: _shape_slice(c[0].shape, a),
    "Size": lambda imp, n, c, a: np.array(c[0].size, np.int64),
    "Gather": lambda imp, n, c, a: np.take(c[0], c[1], axis=a.get("axis", 0)),
    "Unsqueeze": lambda imp, n, c, a: np.expand_dims(
        c[0], tuple(a["axes"]) if "axes" in a else tuple(int(v) for v in c[1])),
    "Squeeze": lambda imp, n, c, a: np.squeeze(
        c[0], tuple(a["axes"]) if "axes" in a else (tuple(int(v) for v in c[1]) if len(c) > 1
                                                    else None)),
    "Concat": lambda imp, n, c, a: np.concatenate(c, axis=a["axis"]),
    "Cast": lambda imp, n, c, a: c[0].astype(_NP_DTYPES[a["to"]]),
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
    "Range": lambda imp, n, c, a: np.arange(c[0], c[1], c[2], dtype=c[0].dtype),
    "Reshape": lambda imp, n, c, a: c[0].reshape(_reshape_dims(c[0].shape, c[1],
                                                               a.get("allowzero", 0))),
    "Slice": _np_slice,
    "Trilu": lambda imp, n, c, a: (np.triu if a.get("upper", 1) else np.tril)(
        c[0], int(c[1]) if len(c) > 1 and c[1] is not None else 0),
    "Identity": lambda imp, n, c, a: c[0],
    "Transpose": lambda imp, n, c, a: np.transpose(c[0], a.get("perm")),
    "Sqrt": lambda imp, n, c, a: np.sqrt(c[0]),
    # Range's expansion computes its Loop's trip count as Cast(Relu(Ceil(...)))
    "Ceil": lambda imp, n, c, a: np.ceil(c[0]),
    "Floor": lambda imp, n, c, a: np.floor(c[0]),
    "Relu": lambda imp, n, c, a: np.maximum(c[0], c[0].dtype.type(0)),
    "Neg": lambda imp, n, c, a: -c[0],
    "Expand": lambda imp, n, c, a: c[0] * np.ones(tuple(int(d) for d in c[1]), c[0].dtype),
    # window functions: their only input is the size (specialised on when an input)
    "HannWindow": lambda imp, n, c, a: _window(c[0], a, [0.5, -0.5]),
    "HammingWindow": lambda imp, n, c, a: _window(c[0], a, [25 / 46, -21 / 46]),
    "BlackmanWindow": lambda imp, n, c, a: _window(c[0], a, [0.42, -0.5, 0.08]),
    "Cos": lambda imp, n, c, a: np.cos(c[0]),
    "Sin": lambda imp, n, c, a: np.sin(c[0]),
}


# Ops whose output shape depends on their operands' values: where an operand
# is a graph input (of any size), dlc imports the graph per its value
# (ValueDependentError, as for shape-like inputs) and folds the op with NumPy.
# NonMaxSuppression: only its limits (boxes and scores run at run time).
_VALUE_OPS = {"NonMaxSuppression": range(2, 5), "Unique": range(1),
              # not folded: its indices, checked to lie in the output per value
              "MaxUnpool": range(1, 2)}


def _value_operands(model, deps):
    """The graph inputs that are operands of _VALUE_OPS."""
    inputs = {name for name, _, _ in _graph_inputs(model)}
    return {i for n in model.graph.node if n.op_type in _VALUE_OPS
            for j, i in enumerate(n.input) if j in _VALUE_OPS[n.op_type] and i in inputs}


def _nms(imp, node, c, a):
    """NonMaxSuppression as onnxruntime computes it, in float32: per batch
    and class, boxes with score > score_threshold by descending score (ties:
    the lower index first), each kept unless its IoU with a kept box is >
    iou_threshold; at most max_output_boxes_per_class (default 0: none)."""
    boxes, scores = np.asarray(c[0], np.float32), np.asarray(c[1], np.float32)
    limit = int(c[2].reshape(-1)[0]) if len(c) > 2 and c[2] is not None and c[2].size else 0
    iou_t = np.float32(c[3].reshape(-1)[0]) if len(c) > 3 and c[3] is not None and c[3].size \
        else np.float32(0)
    score_t = np.float32(c[4].reshape(-1)[0]) if len(c) > 4 and c[4] is not None and \
        c[4].size else None
    if boxes.ndim != 3 or boxes.shape[2] != 4 or scores.ndim != 3 or \
            scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise UnsupportedError(node, f"boxes {list(boxes.shape)} and scores "
                               f"{list(scores.shape)} do not fit")
    if a.get("center_point_box", 0):
        ctr, half = boxes[..., :2], boxes[..., 2:] / np.float32(2)
        lo, hi = ctr - half, ctr + half  # (x, y)
    else:
        lo = np.minimum(boxes[..., :2], boxes[..., 2:])
        hi = np.maximum(boxes[..., :2], boxes[..., 2:])
    area = np.prod(hi - lo, axis=-1)
    out = []
    for b in range(boxes.shape[0]):
        for cl in range(scores.shape[1]):
            s = scores[b, cl]
            cand = [i for i in np.argsort(-s, kind="stable")
                    if score_t is None or s[i] > score_t]
            kept = []
            for i in cand:
                if len(kept) >= limit:
                    break
                ok = True
                for j in kept:
                    if area[b, i] <= 0 or area[b, j] <= 0:
                        continue
                    inter = np.prod(np.maximum(np.minimum(hi[b, i], hi[b, j]) -
                                               np.maximum(lo[b, i], lo[b, j]), np.float32(0)))
                    if inter / (area[b, i] + area[b, j] - inter) > iou_t:
                        ok = False
                        break
                if ok:
                    kept.append(i)
            out += [[b, cl, i] for i in kept]
    if not out:
        return None  # an empty constant: the run-time op gives it (_RUNTIME_IF_EMPTY)
    return np.array(out, np.int64)


_FOLD["NonMaxSuppression"] = _nms
# Folders that return None for an empty result: the node is imported as a
# run-time op instead, whose padded result dlc.Module slices to nothing.
_RUNTIME_IF_EMPTY = {"NonMaxSuppression", "NonZero"}


def _unique(imp, node, c, a):
    """np.unique; sorted=0: in order of first occurrence (the inverse
    indices renumbered to match)."""
    axis = a.get("axis")
    y, idx, inv, cnt = np.unique(c[0], True, True, True, axis=axis)
    if not a.get("sorted", 1):
        order = np.argsort(idx, kind="stable")
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt = idx[order], cnt[order]
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        inv = rank[inv]
    return [y, idx.astype(np.int64), np.asarray(inv).reshape(-1).astype(np.int64),
            cnt.astype(np.int64)]


def _nonzero(imp, node, c, a):
    """np.nonzero; None where nothing is nonzero (or the input is 0-d):
    the run-time op gives those (_RUNTIME_IF_EMPTY)."""
    if np.ndim(c[0]) == 0:
        return None
    nz = np.array(np.nonzero(c[0]), np.int64)
    return nz if nz.size else None


_FOLD["Unique"], _FOLD["NonZero"] = _unique, _nonzero


def _mel_weight_matrix(imp, node, c, a):
    """MelWeightMatrix of constant (or specialised) scalars: ONNX's reference
    (onnx 1.12's case) step by step, in its NumPy types."""
    nmb, dftl, sr, lo_hz, hi_hz = [np.asarray(v).reshape(())[()] for v in c[:5]]
    nspec = dftl // 2 + 1
    fb = np.arange(0, nmb + 2)
    lo_mel = 2595 * np.log10(1 + lo_hz / 700)
    hi_mel = 2595 * np.log10(1 + hi_hz / 700)
    step = (hi_mel - lo_mel) / fb.shape[0]
    fb = fb * step + lo_mel
    fb = 700 * (np.power(10, (fb / 2595)) - 1)
    fb = (((dftl + 1) * fb) // sr).astype(int)
    out = np.zeros((int(nspec), int(nmb)))
    for i in range(int(nmb)):
        left, center, right = fb[i], fb[i + 1], fb[i + 2]
        if center == left:
            out[center, i] = 1
        else:
            for j in range(left, center + 1):
                out[j, i] = float(j - left) / float(center - left)
        if right > center:
            for j in range(center, right):
                out[j, i] = float(right - j) / float(right - center)
    return out.astype(_NP_DTYPES.get(a.get("output_datatype", 1), np.float32))


_FOLD["MelWeightMatrix"] = _mel_weight_matrix


def _window(size, a, coeffs):
    """sum_k coeffs[k] * cos(2 pi k n / N), N = size (periodic) or size - 1."""
    size = int(size)
    big_n = size if a.get("periodic", 1) else size - 1
    t = 2 * np.pi * np.arange(size) / big_n
    w = sum(ck * np.cos(k * t) for k, ck in enumerate(coeffs))
    return w.astype(_NP_DTYPES.get(a.get("output_datatype", 1), np.float32))


def load(path_or_proto):
    if _onnx is None:
        raise ImportError("dlc.onnx needs python3-onnx")
    if isinstance(path_or_proto, (str, bytes)) or hasattr(path_or_proto, "__fspath__"):
        try:
            return _onnx.load(path_or_proto)
        except Exception as e:  # onnx raises DecodeError and friends
            # (a MemoryError for external data declaring 2^40 bytes has no text)
            why = str(e).strip() or type(e).__name__
            raise CompileError(f"cannot read ONNX model {path_or_proto}: {why}", "") from None
    return path_or_proto


def import_graph(model, input_shapes=None, input_values=None):
    """An ONNX model (path or ModelProto) as a dlc.Graph; `input_shapes`
    (one per graph input, in order) fixes dynamic input dims; `input_values`
    ({name: array}) makes those graph inputs constants (dropped from the
    function's arguments): dlc specialises on shape-like inputs that way."""
    model = load(model)
    # Validated first (CompileError naming node and input, or a sorted
    # copy), so the converter never sees a malformed graph.
    model = onnx_check.check(model)
    source = _opset(model)
    model = _native_opset(model)
    if not model.graph.node and not model.graph.output:
        raise CompileError("the ONNX model has an empty graph", "")
    return _Importer(model, input_shapes, input_values, source).run()


# The default-domain opsets the importer handles natively (the newest is
# python3-onnx 1.12's); others are converted with onnx.version_converter.
OPSET_RANGE = (7, 17)


class UnsupportedOpsetError(CompileError):
    """A model whose opset dlc neither imports nor can convert."""


def _opset(model):
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def _native_opset(model):
    opset = _opset(model)
    lo, hi = OPSET_RANGE
    if opset is None or lo <= opset <= hi:
        return model
    target = lo if opset < lo else hi
    try:
        from onnx import version_converter
        return version_converter.convert_version(model, target)
    except Exception as e:  # the converter raises RuntimeError with its assertion text
        why = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise UnsupportedOpsetError(
            f"ONNX opset {opset} is outside dlc's native range {lo}-{hi} and "
            f"onnx.version_converter cannot convert it to {target}: {why}", "") from None


def import_model(model, input_shapes=None, input_values=None, bytecode=False):
    """An ONNX model (path or ModelProto) as dlg MLIR text, or with
    `bytecode=True` as MLIR bytecode (bytes), which dlc.Module, dlc.compile
    and dlc-opt take in place of the text: the weights travel as raw bytes
    rather than printed as hex and parsed back (about 4 of ResNet-50's 5.5
    import seconds)."""
    graph = import_graph(model, input_shapes, input_values)
    return _bytecode(graph) if bytecode else graph.mlir()


def _bytecode(graph):
    """`graph`'s module as MLIR bytecode; a module that does not verify is
    printed as text instead, so that its parse reports the diagnostics as
    before."""
    lib = graph._lib
    fn = lib.dlcOperationToBytecode
    fn.argtypes = [_Handle, ctypes.POINTER(ctypes.c_size_t)]
    fn.restype = ctypes.c_void_p
    if graph._outputs is None:
        return graph.mlir()  # raises: the graph has no outputs yet
    n = ctypes.c_size_t()
    raw = fn(lib.mlirModuleGetOperation(graph._module), ctypes.byref(n))
    if not raw:
        return graph.mlir()
    try:
        return ctypes.string_at(raw, n.value)
    finally:
        lib.dlcStringFree(raw)


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
    """(name, shape with None for dynamic dims, dtype) of each graph input
    (for an element type dlg lacks, the type it is held in: _WIDE)."""
    return [(name, shape, np.dtype(_WIDE[elem][0] if elem in _WIDE else
                                   _NP_DTYPES.get(elem, np.float32)))
            for name, shape, elem in _graph_inputs(load(model))]


class TypedModule:
    """A compiled ONNX model with inputs or outputs of an element type dlg
    lacks (_WIDE): the arguments are checked against the ONNX types and
    widened before the call, those outputs narrowed after it (both exact;
    the graph keeps them in range). Otherwise like the module it wraps."""

    def __init__(self, module, model):
        self._m = module
        self._in = [e for _, _, e in _graph_inputs(model)]
        self._out = [o.type.tensor_type.elem_type for o in model.graph.output]
        self.inputs = [(shape, np.dtype(_boundary_dtype(e)) if e in _WIDE else dtype)
                       for (shape, dtype), e in zip(module.inputs, self._in)]

    def run(self, *arrays, out=None):
        if out is not None:
            raise ValueError("out= is not supported for a model with inputs or outputs "
                             "of an element type dlg lacks (they are converted)")
        conv = []
        for i, (a, e) in enumerate(zip(arrays, self._in)):
            a = np.asarray(a)
            if e in _WIDE:
                want = np.dtype(_boundary_dtype(e))
                if a.dtype != want:
                    raise ValueError(f"input {i}: expected {want.name}, got {a.dtype}")
                a = _bf16_to_f32(a) if e == _BF16 else _widen(a)
            conv.append(a)
        outs = self._m.run(*conv, *arrays[len(conv):])
        # bfloat16: the upper half of the float32 bits (truncation, as ONNX 1.12)
        return [(o.view(np.uint32) >> 16).astype(np.uint16) if e == _BF16 else _narrow(o, e)
                for o, e in zip(outs, self._out)]

    def __call__(self, *arrays):
        outs = self.run(*arrays)
        return outs[0] if len(outs) == 1 else outs

    def __getattr__(self, name):  # ir, profile, outputs, ...: the wrapped module's
        return getattr(self._m, name)


def _boundary_dtype(e):
    """The NumPy type of a _WIDE type's arrays (bfloat16: uint16 bits)."""
    return np.uint16 if e == _BF16 else _NP_DTYPES[e]


def _bf16_to_f32(a):
    return (np.asarray(a).astype(np.uint32) << 16).view(np.float32)


def typed_module(model, module):
    """`module` (compiled from ONNX `model`), wrapped in a TypedModule where
    the model's inputs or outputs have element types dlg lacks."""
    model = load(model)
    elems = [e for _, _, e in _graph_inputs(model)] + \
        [o.type.tensor_type.elem_type for o in model.graph.output]
    return TypedModule(module, model) if any(e in _WIDE for e in elems) else module


def check_aot_types(model):
    """An AOT library takes the graph's own types: refused for element types dlg lacks."""
    model = load(model)
    for name, _, e in _graph_inputs(model):
        if e in _WIDE:
            raise ValueError(f"ONNX input '{name}' is {_type_name(e)}, which dlg holds "
                             "widened: an AOT library cannot take it (use dlc.compile "
                             "without output=)")
    for o in model.graph.output:
        if o.type.tensor_type.elem_type in _WIDE:
            raise ValueError(f"ONNX output '{o.name}' is "
                             f"{_type_name(o.type.tensor_type.elem_type)}, which dlg holds "
                             "widened: an AOT library cannot return it")


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
