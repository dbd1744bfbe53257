"""dlc.Graph: build a dlg function op by op through the C API builders.

Result types come from dlg's shape rules (dlcBuildValue), so a model is
written without computing shapes, and a bad operand is reported at once as
a CompileError naming the op (its location is the name you pass):

    g = dlc.Graph("mlp")
    x = g.input((32, 784))
    h = g.relu(g.add(g.matmul(x, g.constant(w1)), g.constant(b1)))
    g.output(h)
    m = g.compile()        # dlc.Module
    print(g.mlir())        # the dlg module
"""

import ctypes
import struct

import numpy as np

from ._capi import _Handle, _library, _StringRef, _text
from .errors import CompileError
from .module import compile_mlir as _compile

_DTYPES = {"float32": "f32", "float16": "f16", "float64": "f64", "int8": "i8", "int32": "i32",
           "int64": "i64", "bool": "i1"}

# Constants above this many bytes become dense_resource blobs.
RESOURCE_BYTES = 1 << 16


class _Builder(ctypes.Structure):
    _fields_ = [("context", _Handle), ("loc", _Handle), ("rewriter", _Handle), ("block", _Handle),
                ("before", _Handle)]


class _NamedAttr(ctypes.Structure):
    _fields_ = [("name", _Handle), ("attribute", _Handle)]


_StringCallback = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)


def _bind(lib):
    if getattr(lib, "_graph_bound", False):
        return lib
    H, S = _Handle, _StringRef
    sig = {
        "mlirTypeParseGet": ([H, S], H),
        "mlirAttributeParseGet": ([H, S], H),
        "mlirIdentifierGet": ([H, S], H),
        "mlirLocationUnknownGet": ([H], H),
        "mlirLocationNameGet": ([H, S, H], H),
        "mlirModuleGetBody": ([H], H),
        "mlirBlockGetFirstOperation": ([H], H),
        "mlirOperationGetRegion": ([H, ctypes.c_ssize_t], H),
        "mlirRegionGetFirstBlock": ([H], H),
        "mlirBlockGetTerminator": ([H], H),
        "mlirBlockAddArgument": ([H, H, H], H),
        "mlirBlockGetNumArguments": ([H], ctypes.c_ssize_t),
        "mlirBlockGetArgument": ([H, ctypes.c_ssize_t], H),
        "mlirOperationGetResult": ([H, ctypes.c_ssize_t], H),
        "mlirOpResultGetOwner": ([H], H),
        "mlirTypePrint": ([H, _StringCallback, ctypes.c_void_p], None),
        "mlirOperationDestroy": ([H], None),
        "mlirValueGetType": ([H], H),
        "mlirFunctionTypeGet": ([H, ctypes.c_ssize_t, ctypes.POINTER(H), ctypes.c_ssize_t,
                                 ctypes.POINTER(H)], H),
        "mlirTypeAttrGet": ([H], H),
        "mlirOperationSetAttributeByName": ([H, S, H], None),
        "mlirDenseElementsAttrRawBufferGet": ([H, ctypes.c_size_t, ctypes.c_void_p], H),
        "mlirDenseElementsAttrBoolGet": ([H, ctypes.c_ssize_t, ctypes.c_void_p], H),
        "mlirUnmanagedDenseResourceElementsAttrGet": (
            [H, S, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_bool,
             ctypes.c_void_p, ctypes.c_void_p], H),
        "dlcBuilderBefore": ([H, H], _Builder),
        "dlcBuildValue": ([ctypes.POINTER(_Builder), ctypes.c_char_p, ctypes.c_ssize_t,
                           ctypes.POINTER(H), ctypes.c_ssize_t, ctypes.POINTER(_NamedAttr)], H),
        "dlcBuildOpTyped": ([ctypes.POINTER(_Builder), ctypes.c_char_p, ctypes.c_ssize_t,
                             ctypes.POINTER(H), ctypes.c_ssize_t, ctypes.POINTER(H),
                             ctypes.c_ssize_t, ctypes.POINTER(_NamedAttr)], H),
        "dlcDlgGetNumOps": ([H], ctypes.c_ssize_t),
        "dlcDlgGetOpName": ([H, ctypes.c_ssize_t], S),
        "dlcDlgOpFamilyOfName": ([H, S], ctypes.c_int),
        "dlcOpFamilyGetName": ([ctypes.c_int], ctypes.c_char_p),
        "dlcDlgOpInfersResultType": ([H, S], ctypes.c_bool),
        "dlcDlgOpGetNumAttributes": ([H, S], ctypes.c_ssize_t),
        "dlcDlgOpGetAttributeName": ([H, S, ctypes.c_ssize_t], S),
    }
    for name, spec in sig.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = spec
    _install_op_methods(lib)
    lib._graph_bound = True
    return lib


class OpInfo:
    """A dlg op as the C API describes it (dlc-c/Dlg.h): its family
    ("unary", "contraction", ...), whether it infers its result type, and
    its own attribute names."""

    def __init__(self, name, family, infers_type, attributes):
        self.name, self.family = name, family
        self.infers_type, self.attributes = infers_type, attributes

    def __repr__(self):
        return f"OpInfo({self.name!r}, {self.family!r}, attributes={self.attributes!r})"


_OPS = {}  # "dlg.add" -> OpInfo, filled from the C API on first use


def dlg_ops():
    """Every dlg op (name -> OpInfo), from the dialect's registration."""
    _bind(_library())
    return dict(_OPS)


def _op_method(info):
    def method(self, *xs, name=None, **attrs):
        return self.op(info.name, *xs, name_hint=name, **attrs)
    method.__name__ = info.name[len("dlg."):]
    method.__doc__ = (f"Appends {info.name} ({info.family}) on the operands; attributes: "
                      f"{', '.join(info.attributes) or 'none'}. `name` is its location.")
    return method


def _install_op_methods(lib):
    """Graph gets one method per dlg op, from the C API's list of the dialect's
    ops: an op added to DlgOps.td is a Graph method with no edit here. An op
    whose result type must be given (reshape, cast) needs a method of its own
    below, as does constant; the graph tests check that every op has one."""
    ctx = lib.dlcContextCreate()
    try:
        for i in range(lib.dlcDlgGetNumOps(ctx)):
            ref = lib.dlcDlgGetOpName(ctx, i)
            name = ctypes.string_at(ref.data, ref.length).decode()
            attrs = []
            for a in range(lib.dlcDlgOpGetNumAttributes(ctx, ref)):
                r = lib.dlcDlgOpGetAttributeName(ctx, ref, a)
                attrs.append(ctypes.string_at(r.data, r.length).decode())
            family = lib.dlcOpFamilyGetName(lib.dlcDlgOpFamilyOfName(ctx, ref)).decode()
            info = OpInfo(name, family, lib.dlcDlgOpInfersResultType(ctx, ref), attrs)
            _OPS[name] = info
            short = name[len("dlg."):]
            if info.infers_type and short not in Graph.__dict__:
                setattr(Graph, short, _op_method(info))
    finally:
        lib.mlirContextDestroy(ctx)


def _ref(s):
    data = s.encode() if isinstance(s, str) else s
    return _StringRef(data, len(data))


def _attr_text(v):
    """A Python value as MLIR attribute text: ints and floats, bools,
    strings, lists of ints (array<i64: ...>); text starting with '#' or
    'array<' passes through."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return f"{int(v)} : i64"
    if isinstance(v, (float, np.floating)):
        return f"{float_literal(v)} : f64"
    if isinstance(v, (list, tuple)):
        return "array<i64" + (": " + ", ".join(str(int(x)) for x in v) if len(v) else "") + ">"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"unsupported attribute value {v!r}")


def float_literal(v):
    """A float as an MLIR float literal that round-trips: repr's shortest
    digits with a decimal point always before any exponent ('1e-05' is not an
    MLIR float, '1.0e-05' is); inf and nan as the f64 bit pattern in hex."""
    v = float(v)
    if v != v or v in (float("inf"), float("-inf")):
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]
    mant, e, exp = repr(v).partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + (e + exp if e else "")


class Value:
    """A tensor in a Graph: its shape and element type come from the IR."""

    def __init__(self, graph, handle):
        self.graph, self.handle = graph, handle

    @property
    def type(self):
        return self.graph._type_text(self.handle)

    @property
    def shape(self):
        body = self.type[len("tensor<"):-1]
        return tuple(int(d) if d != "?" else -1 for d in body.split("x")[:-1])


class Graph:
    """One dlg function under construction (see the module docstring)."""

    def __init__(self, name="main"):
        self._lib = _bind(_library())
        lib = self._lib
        self._ctx = lib.dlcContextCreate()
        self._diags = lib.dlcDiagnosticsAttach(self._ctx)
        src = f"func.func @{name}() {{\n  func.return\n}}".encode()
        self._module = lib.dlcModuleParse(self._ctx, _StringRef(src, len(src)), b"<graph>")
        self._func = lib.mlirBlockGetFirstOperation(lib.mlirModuleGetBody(self._module))
        self._block = lib.mlirRegionGetFirstBlock(lib.mlirOperationGetRegion(self._func, 0))
        self._ret = lib.mlirBlockGetTerminator(self._block)
        self._keep = []  # buffers behind dense_resource constants
        self._outputs = None
        self._unknown = lib.mlirLocationUnknownGet(self._ctx)

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is not None and getattr(self, "_ctx", None) is not None:
            lib.mlirModuleDestroy(self._module)
            lib.dlcDiagnosticsDetach(self._ctx, self._diags)
            lib.mlirContextDestroy(self._ctx)
            self._ctx = None

    # --- plumbing ---------------------------------------------------------

    def _type_text(self, value):
        out = []
        cb = _StringCallback(lambda s, _: out.append(ctypes.string_at(s.data, s.length).decode()))
        self._lib.mlirTypePrint(self._lib.mlirValueGetType(value), cb, None)
        return "".join(out)

    def _loc(self, name):
        if not name:
            return self._unknown
        return self._lib.mlirLocationNameGet(self._ctx, _ref(name), self._unknown)

    def _parse_type(self, text):
        t = self._lib.mlirTypeParseGet(self._ctx, _ref(text))
        if not t.ptr:
            raise CompileError(f"invalid type {text}", self._take_diags())
        return t

    def _take_diags(self):
        lib = self._lib
        text = (lib.dlcDiagnosticsText(self._diags) or b"").decode()
        lib.dlcDiagnosticsDetach(self._ctx, self._diags)
        self._diags = lib.dlcDiagnosticsAttach(self._ctx)
        return text

    def _attrs(self, attrs):
        lib = self._lib
        arr = (_NamedAttr * max(1, len(attrs)))()
        for i, (k, v) in enumerate(attrs.items()):
            text = v if isinstance(v, str) and (v.startswith("#") or v.startswith("array<")
                                                or v.startswith("dense")) else _attr_text(v)
            a = lib.mlirAttributeParseGet(self._ctx, _ref(text))
            if not a.ptr:
                raise CompileError(f"invalid attribute {k} = {text}", self._take_diags())
            arr[i] = _NamedAttr(lib.mlirIdentifierGet(self._ctx, _ref(k)), a)
        return arr

    def op(self, name, *operands, name_hint=None, **attrs):
        """Appends `name` (e.g. "dlg.add") on `operands`; returns its result."""
        lib = self._lib
        vals = [v.handle if isinstance(v, Value) else v for v in operands]
        ops = (_Handle * max(1, len(vals)))(*vals)
        b = lib.dlcBuilderBefore(self._ret, self._loc(name_hint))
        arr = self._attrs(attrs)
        r = lib.dlcBuildValue(ctypes.byref(b), name.encode(), len(vals), ops, len(attrs), arr)
        if not r.ptr:
            raise CompileError(f"cannot build {name}" + (f" ({name_hint})" if name_hint else ""),
                               self._take_diags())
        return Value(self, r)

    def typed_op(self, name, result_type, *operands, name_hint=None, **attrs):
        """Like op(), for ops whose result type is an input (dlg.reshape, dlg.cast)."""
        lib = self._lib
        vals = [v.handle for v in operands]
        ops = (_Handle * max(1, len(vals)))(*vals)
        b = lib.dlcBuilderBefore(self._ret, self._loc(name_hint))
        t = (_Handle * 1)(self._parse_type(result_type))
        arr = self._attrs(attrs)
        op = lib.dlcBuildOpTyped(ctypes.byref(b), name.encode(), len(vals), ops, 1, t, len(attrs),
                                 arr)
        if not op.ptr:
            raise CompileError(f"cannot build {name}", self._take_diags())
        return Value(self, lib.mlirOperationGetResult(op, 0))

    # --- the graph --------------------------------------------------------

    def input(self, shape, dtype="float32", name=None):
        t = self._parse_type(tensor_type(shape, dtype))
        return Value(self, self._lib.mlirBlockAddArgument(self._block, t, self._loc(name)))

    def constant(self, array, name=None):
        # (np.ascontiguousarray makes a 0-d array 1-d: keep the shape)
        a = np.ascontiguousarray(array).reshape(np.shape(array))
        t = self._parse_type(tensor_type(a.shape, a.dtype))
        lib = self._lib
        if a.dtype == np.bool_:  # i1 raw buffers are bit-packed; go through ints
            ints = a.astype(np.int32).ravel()
            attr = lib.mlirDenseElementsAttrBoolGet(t, ints.size, ints.ctypes.data)
        elif a.nbytes > RESOURCE_BYTES:
            self._keep.append(a)
            attr = lib.mlirUnmanagedDenseResourceElementsAttrGet(
                t, _ref(f"dlc_const{len(self._keep)}"), a.ctypes.data, a.nbytes, 64, False, None,
                None)
        else:
            attr = lib.mlirDenseElementsAttrRawBufferGet(t, a.nbytes, a.ctypes.data)
        if not attr.ptr:
            raise CompileError("cannot make a constant of " + tensor_type(a.shape, a.dtype), "")
        b = lib.dlcBuilderBefore(self._ret, self._loc(name))
        named = (_NamedAttr * 1)(_NamedAttr(lib.mlirIdentifierGet(self._ctx, _ref("value")), attr))
        ttype = (_Handle * 1)(t)
        op = lib.dlcBuildOpTyped(ctypes.byref(b), b"dlg.constant", 0, (_Handle * 1)(), 1, ttype, 1,
                                 named)
        return Value(self, lib.mlirOperationGetResult(op, 0))

    def non_max_suppression(self, boxes, scores, name=None, **attrs):
        """dlg.non_max_suppression: (selected, count), the padded [rows, 3]
        i64 result and the 0-d i64 count of its valid rows. Return both with
        output(..., counts={selected's index: count's index}) and run()
        slices `selected` to `count`."""
        sel = self.op("dlg.non_max_suppression", boxes, scores, name_hint=name, **attrs)
        owner = self._lib.mlirOpResultGetOwner(sel.handle)
        return sel, Value(self, self._lib.mlirOperationGetResult(owner, 1))

    def non_zero(self, x, name=None):
        """dlg.non_zero: (indices, count), the padded [rank, elements] i64
        indices of x's nonzero elements and the 0-d i64 count of its valid
        columns. Return both with output(..., counts={indices' index:
        (count's index, 1)}) and run() slices `indices` to `count` columns."""
        idx = self.op("dlg.non_zero", x, name_hint=name)
        owner = self._lib.mlirOpResultGetOwner(idx.handle)
        return idx, Value(self, self._lib.mlirOperationGetResult(owner, 1))

    def output(self, *values, counts=None):
        """Sets the function's results (call once, after the last op).
        `counts` ({result index: index of a 0-d i64 result}) marks padded
        results whose valid rows that result counts (result attribute
        dlc.count): dlc.Module.run returns them sliced, without the counts.
        A value (count index, dim) counts along that dim instead of dim 0
        (dlc.count_dim; non_zero's indices: dim 1)."""
        lib = self._lib
        vals = [v.handle for v in values]
        b = lib.dlcBuilderBefore(self._ret, self._unknown)
        arr = (_Handle * max(1, len(vals)))(*vals)
        lib.dlcBuildOpTyped(ctypes.byref(b), b"func.return", len(vals), arr, 0, None, 0, None)
        lib.mlirOperationDestroy(self._ret)
        self._ret = lib.mlirBlockGetTerminator(self._block)
        n_in = lib.mlirBlockGetNumArguments(self._block)
        ins = (_Handle * max(1, n_in))(*[lib.mlirValueGetType(lib.mlirBlockGetArgument(self._block, i))
                                         for i in range(n_in)])
        outs = (_Handle * max(1, len(vals)))(*[lib.mlirValueGetType(v) for v in vals])
        ftype = lib.mlirFunctionTypeGet(self._ctx, n_in, ins, len(vals), outs)
        lib.mlirOperationSetAttributeByName(self._func, _ref("function_type"),
                                            lib.mlirTypeAttrGet(ftype))
        if counts:
            def attrs(c):
                j, d = c if isinstance(c, tuple) else (c, 0)
                return f"{{dlc.count = {int(j)} : i64" + (
                    f", dlc.count_dim = {int(d)} : i64}}" if d else "}")
            text = "[" + ", ".join(attrs(counts[i]) if i in counts else "{}"
                                   for i in range(len(vals))) + "]"
            lib.mlirOperationSetAttributeByName(self._func, _ref("res_attrs"),
                                                lib.mlirAttributeParseGet(self._ctx, _ref(text)))
        self._outputs = values

    def mlir(self, generic=False):
        """The module as MLIR text (verified)."""
        if self._outputs is None:
            raise ValueError("Graph.output() was not called")
        return _text(self._lib, self._lib.mlirModuleGetOperation(self._module), generic)

    def compile(self, **kwargs):
        return _compile(self.mlir(), **kwargs)


def tensor_type(shape, dtype):
    elt = _DTYPES.get(np.dtype(dtype).name)
    if elt is None:
        raise ValueError(f"unsupported element type {dtype}")
    dims = "".join(f"{'?' if d is None or d < 0 else int(d)}x" for d in shape)
    return f"tensor<{dims}{elt}>"


def _reshape(self, x, shape, name=None):
    return self.typed_op("dlg.reshape", tensor_type(shape, _elt_dtype(x)), x, name_hint=name)


def _cast(self, x, dtype, name=None):
    return self.typed_op("dlg.cast", tensor_type(x.shape, dtype), x, name_hint=name)


def _elt_dtype(x):
    elt = x.type.rsplit("x", 1)[-1].rstrip(">") if "x" in x.type else x.type[7:-1]
    return {v: k for k, v in _DTYPES.items()}[elt]


Graph.reshape = _reshape
Graph.cast = _cast
