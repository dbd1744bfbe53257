"""dlc from Python: ctypes over libdlc.so (Debian's MLIR has no Python bindings).

    import dlc
    text = dlc.parse(source)                      # verified, printed back
    text = dlc.run_pipeline(source, "builtin.module(func.func(dlg-simplify))")

Errors raise dlc.CompileError carrying MLIR's diagnostics (location and
message). libdlc.so is found in the default build directory or at $DLC_LIB.
"""

import ctypes
import os

__all__ = ["CompileError", "parse", "run_pipeline", "library_path"]


class CompileError(Exception):
    """MLIR rejected the input; `diagnostics` holds its located messages."""

    def __init__(self, message, diagnostics):
        super().__init__(f"{message}\n{diagnostics}".rstrip())
        self.diagnostics = diagnostics


class _Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


class _LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


def library_path():
    if os.environ.get("DLC_LIB"):
        return os.environ["DLC_LIB"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "build", "lib", "libdlc.so")


def _load():
    lib = ctypes.CDLL(library_path())
    sig = {
        "dlcContextCreate": ([], _Handle),
        "mlirContextDestroy": ([_Handle], None),
        "dlcModuleParse": ([_Handle, _StringRef, ctypes.c_char_p], _Handle),
        "mlirModuleGetOperation": ([_Handle], _Handle),
        "mlirModuleDestroy": ([_Handle], None),
        "dlcRunPipeline": ([_Handle, ctypes.c_char_p], _LogicalResult),
        "dlcDiagnosticsAttach": ([_Handle], ctypes.c_void_p),
        "dlcDiagnosticsText": ([ctypes.c_void_p], ctypes.c_char_p),
        "dlcDiagnosticsDetach": ([_Handle, ctypes.c_void_p], None),
        "dlcOperationToString": ([_Handle, ctypes.c_bool], ctypes.c_void_p),
        "dlcStringFree": ([ctypes.c_void_p], None),
    }
    for name, (args, res) in sig.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return lib


_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def _with_module(source, name, action):
    """Parses `source` in a fresh context and applies `action(lib, op)`."""
    lib = _library()
    data = source.encode() if isinstance(source, str) else bytes(source)
    ctx = lib.dlcContextCreate()
    diags = lib.dlcDiagnosticsAttach(ctx)
    try:
        module = lib.dlcModuleParse(ctx, _StringRef(data, len(data)), name.encode())
        if not module.ptr:
            raise CompileError("could not parse " + name, lib.dlcDiagnosticsText(diags).decode())
        try:
            return action(lib, lib.mlirModuleGetOperation(module), diags)
        finally:
            lib.mlirModuleDestroy(module)
    finally:
        lib.dlcDiagnosticsDetach(ctx, diags)
        lib.mlirContextDestroy(ctx)


def _text(lib, op, generic):
    raw = lib.dlcOperationToString(op, generic)
    try:
        return ctypes.string_at(raw).decode()
    finally:
        lib.dlcStringFree(raw)


def parse(source, *, name="<input>", generic=False):
    """Parses and verifies an MLIR module; returns it printed back."""
    return _with_module(source, name, lambda lib, op, d: _text(lib, op, generic))


def run_pipeline(source, pipeline, *, name="<input>", generic=False):
    """Runs a textual pass pipeline on a module; returns the result."""

    def action(lib, op, diags):
        if not lib.dlcRunPipeline(op, pipeline.encode()).value:
            raise CompileError("pipeline failed: " + pipeline, lib.dlcDiagnosticsText(diags).decode())
        return _text(lib, op, generic)

    return _with_module(source, name, action)


from .compiler import AotModule, Module, compile, load  # noqa: E402  (needs the helpers above)
from .graph import Graph  # noqa: E402

__all__ += ["Module", "compile", "Graph", "AotModule", "load"]
