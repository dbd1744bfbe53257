"""Runtime control flow in a dlc.Graph: dlg.if and dlg.while (DlgOps.td,
"Control flow"), whose regions are built by Python callbacks.

    (r,) = g.if_(cond, lambda: [g.relu(x)], lambda: [g.neg(x)])
    (a, n) = g.while_([x, i], lambda a, n: (g.less(n, limit), [a, n]),
                      lambda a, n: [g.add(a, a), g.add(n, one)])

A callback builds ops with the Graph's usual methods; they go into the
region's block (the Graph's insertion point moves there while the callback
runs) and may read any Value built before. The carried values of a loop
keep their types: a body that changes a shape is an error."""

import ctypes

from ._capi import _Handle, _StringRef
from .errors import CompileError
from .graph import Graph, Value, _bind

_H = _Handle


class _NamedAttr(ctypes.Structure):
    _fields_ = [("name", _H), ("attribute", _H)]


class _OperationState(ctypes.Structure):  # mlir-c/IR.h's MlirOperationState
    _fields_ = [("name", _StringRef), ("location", _H),
                ("nResults", ctypes.c_ssize_t), ("results", ctypes.POINTER(_H)),
                ("nOperands", ctypes.c_ssize_t), ("operands", ctypes.POINTER(_H)),
                ("nRegions", ctypes.c_ssize_t), ("regions", ctypes.POINTER(_H)),
                ("nSuccessors", ctypes.c_ssize_t), ("successors", ctypes.POINTER(_H)),
                ("nAttributes", ctypes.c_ssize_t), ("attributes", ctypes.POINTER(_NamedAttr)),
                ("enableResultTypeInference", ctypes.c_bool)]


def _bind_control(lib):
    if getattr(lib, "_control_bound", False):
        return lib
    S = ctypes.c_ssize_t
    sig = {
        "mlirRegionCreate": ([], _H),
        "mlirBlockCreate": ([S, ctypes.POINTER(_H), ctypes.POINTER(_H)], _H),
        "mlirRegionAppendOwnedBlock": ([_H, _H], None),
        "mlirOperationCreate": ([ctypes.POINTER(_OperationState)], _H),
        "mlirOperationStateGet": ([_StringRef, _H], _OperationState),
        "mlirOperationStateAddResults": ([ctypes.POINTER(_OperationState), S,
                                          ctypes.POINTER(_H)], None),
        "mlirOperationStateAddOperands": ([ctypes.POINTER(_OperationState), S,
                                           ctypes.POINTER(_H)], None),
        "mlirOperationStateAddOwnedRegions": ([ctypes.POINTER(_OperationState), S,
                                               ctypes.POINTER(_H)], None),
        "mlirOperationGetBlock": ([_H], _H),
        "mlirBlockInsertOwnedOperationBefore": ([_H, _H, _H], None),
        "dlcBuilderAtEnd": ([_H, _H], lib.dlcBuilderBefore.restype),
        "mlirTypeEqual": ([_H, _H], ctypes.c_bool),
    }
    for name, spec in sig.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = spec
    lib._control_bound = True
    return lib


def _arr(handles):
    return (_H * max(1, len(handles)))(*handles)


def _region(g, arg_types, fn, terminator, name):
    """A one-block region with arguments of `arg_types`, its ops built by
    fn(*args), which returns the terminator's operands (a list of Values)."""
    lib = g._lib
    locs = [g._loc(name)] * len(arg_types)
    block = lib.mlirBlockCreate(len(arg_types), _arr(arg_types), _arr(locs))
    region = lib.mlirRegionCreate()
    lib.mlirRegionAppendOwnedBlock(region, block)
    b = lib.dlcBuilderAtEnd(block, g._unknown)
    placeholder = lib.dlcBuildOpTyped(ctypes.byref(b), b"dlg.yield", 0, _arr([]), 0, None, 0,
                                      None)
    saved = g._ret
    g._ret = placeholder
    try:
        args = [Value(g, lib.mlirBlockGetArgument(block, i)) for i in range(len(arg_types))]
        out = list(fn(*args))
        vals = [v.handle for v in out]
        b = lib.dlcBuilderBefore(placeholder, g._loc(name))
        lib.dlcBuildOpTyped(ctypes.byref(b), terminator.encode(), len(vals), _arr(vals), 0, None,
                            0, None)
    finally:
        g._ret = saved
        lib.mlirOperationDestroy(placeholder)
    return region, out


def _create(g, name, operands, result_types, regions, hint):
    lib = g._lib
    op_name = name.encode()
    # mlirOperationCreate frees the state's arrays: they come from the C API.
    st = lib.mlirOperationStateGet(_StringRef(op_name, len(op_name)), g._loc(hint))
    lib.mlirOperationStateAddResults(ctypes.byref(st), len(result_types), _arr(result_types))
    lib.mlirOperationStateAddOperands(ctypes.byref(st), len(operands), _arr(operands))
    lib.mlirOperationStateAddOwnedRegions(ctypes.byref(st), len(regions), _arr(regions))
    op = lib.mlirOperationCreate(ctypes.byref(st))
    if not op.ptr:
        raise CompileError(f"cannot build {name}" + (f" ({hint})" if hint else ""),
                           g._take_diags())
    lib.mlirBlockInsertOwnedOperationBefore(lib.mlirOperationGetBlock(g._ret), g._ret, op)
    return [Value(g, lib.mlirOperationGetResult(op, i)) for i in range(len(result_types))]


def _types(g, values):
    return [g._lib.mlirValueGetType(v.handle) for v in values]


def _check_types(what, got, want, hint):
    if [v.type for v in got] != [v.type for v in want]:
        raise CompileError(
            f"{what}" + (f" ({hint})" if hint else "") + ": types "
            f"{[v.type for v in got]} differ from {[v.type for v in want]}", "")


def if_(self, cond, then_fn, else_fn, name=None):
    """dlg.if: then_fn() or else_fn() (each returns a list of Values of the
    same types) chosen at run time by `cond`, a one-element bool tensor."""
    _bind_control(_bind(self._lib))
    then_r, then_v = _region(self, [], then_fn, "dlg.yield", name)
    else_r, else_v = _region(self, [], else_fn, "dlg.yield", name)
    _check_types("dlg.if branches yield different types", else_v, then_v, name)
    return _create(self, "dlg.if", [cond.handle], _types(self, then_v), [then_r, else_r], name)


def while_(self, inits, cond_fn, body_fn, name=None):
    """dlg.while over the carried Values `inits`: cond_fn(*carried) returns
    (condition, values passed on); body_fn(*carried) the next carried values."""
    _bind_control(_bind(self._lib))
    types = _types(self, inits)
    cond_box = []

    def before(*args):
        c, passed = cond_fn(*args)
        _check_types("dlg.while condition passes on", passed, inits, name)
        cond_box.append(c)
        return [c] + list(passed)

    before_r, _ = _region(self, types, before, "dlg.condition", name)

    def after(*args):
        nxt = list(body_fn(*args))
        _check_types("dlg.while body yields", nxt, inits, name)
        return nxt

    after_r, _ = _region(self, types, after, "dlg.yield", name)
    return _create(self, "dlg.while", [v.handle for v in inits], types, [before_r, after_r],
                   name)


Graph.if_ = if_
Graph.while_ = while_
