"""The ctypes layer over libdlc.so (Debian's MLIR has no Python bindings):
the C API's structs, the signatures of the functions dlc calls, and the thin
wrappers parse() and run_pipeline(). libdlc.so is found in the default build
directory or at $DLC_LIB. (graph.py binds the IR-building functions it
uses itself.)"""

import ctypes
import os

from .errors import CompileError


class _Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


class _LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


# dlc-c/Compile.h: DLC_MAX_RANK and DlcDType's values, by index.
_MAX_RANK = 16
_DTYPES = ["float32", "float16", None, "float64", "bool", "int8", "int32", "int64"]


class _TensorType(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * _MAX_RANK)]


class _Tensor(ctypes.Structure):
    _fields_ = [("type", _TensorType), ("data", ctypes.c_void_p)]


class _Options(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char_p), ("pipeline", ctypes.c_char_p),
                ("threads", ctypes.c_int), ("optLevel", ctypes.c_int),
                ("profile", ctypes.c_bool)]


class _AotOptions(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char_p), ("isa", ctypes.c_char_p),
                ("target", ctypes.c_char_p), ("threads", ctypes.c_int),
                ("sharedLibrary", ctypes.c_bool), ("sanitizer", ctypes.c_char_p)]


class MemoryPlan(ctypes.Structure):
    """Bytes of the workspace arena (its planned peak), of one buffer per
    temporary (naive), of the weights; temporaries planned and left alone."""
    _fields_ = [("workspace_bytes", ctypes.c_int64), ("peak_bytes", ctypes.c_int64),
                ("naive_bytes", ctypes.c_int64), ("weights_bytes", ctypes.c_int64),
                ("temporaries", ctypes.c_int64), ("unplanned", ctypes.c_int64)]

    def as_dict(self):
        return {name: getattr(self, name) for name, _ in self._fields_}


def library_path():
    if os.environ.get("DLC_LIB"):
        return os.environ["DLC_LIB"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "build", "lib", "libdlc.so")


_P, _S = ctypes.c_void_p, ctypes.c_ssize_t
_SIGNATURES = {
    # Contexts, parsing, pipelines, diagnostics (dlc-c/Context.h, Dialects.h,
    # Passes.h, Text.h).
    "dlcContextCreate": ([], _Handle),
    "mlirContextDestroy": ([_Handle], None),
    "dlcModuleParse": ([_Handle, _StringRef, ctypes.c_char_p], _Handle),
    "mlirModuleGetOperation": ([_Handle], _Handle),
    "mlirModuleDestroy": ([_Handle], None),
    "dlcRunPipeline": ([_Handle, ctypes.c_char_p], _LogicalResult),
    "dlcDiagnosticsAttach": ([_Handle], _P),
    "dlcDiagnosticsText": ([_P], ctypes.c_char_p),
    "dlcDiagnosticsDetach": ([_Handle, _P], None),
    "dlcOperationToString": ([_Handle, ctypes.c_bool], _P),
    "dlcStringFree": ([_P], None),
    # Compiling and running (dlc-c/Compile.h) and AOT (dlc-c/Aot.h).
    "dlcProgramCompile": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                           ctypes.POINTER(_Options), ctypes.POINTER(_P)], _P),
    "dlcProgramDestroy": ([_P], None),
    "dlcProgramNumInputs": ([_P], _S),
    "dlcProgramNumOutputs": ([_P], _S),
    "dlcProgramInput": ([_P, _S], _TensorType),
    "dlcProgramOutput": ([_P, _S], _TensorType),
    "dlcProgramOutputCountedBy": ([_P, _S], _S),
    "dlcProgramOutputCountedDim": ([_P, _S], _S),
    "dlcProgramResolve": ([_P, ctypes.POINTER(_TensorType), ctypes.POINTER(_TensorType),
                           ctypes.c_char_p, ctypes.c_size_t], ctypes.c_bool),
    "dlcProgramRun": ([_P, ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
                       ctypes.c_char_p, ctypes.c_size_t], ctypes.c_bool),
    "dlcProgramMemory": ([_P, ctypes.POINTER(_TensorType), ctypes.POINTER(MemoryPlan),
                          ctypes.c_char_p, ctypes.c_size_t], ctypes.c_bool),
    "dlcCompileToLibrary": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                             ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_AotOptions),
                             ctypes.POINTER(MemoryPlan), ctypes.POINTER(_P)], ctypes.c_bool),
    "dlcProgramProfileTable": ([_P, ctypes.c_char_p, ctypes.c_size_t], _P),
    "dlcProgramProfileTrace": ([_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
                               ctypes.c_bool),
    "dlcProgramProfileReset": ([_P], None),
}


def _load():
    lib = ctypes.CDLL(library_path())
    for name, (args, res) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    # dlcProgramCompile's error message is malloc'd: released with libc's free.
    lib._free = ctypes.CDLL(None).free
    lib._free.argtypes, lib._free.restype = [_P], None
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
