"""dlc from Python: ctypes over libdlc.so (Debian's MLIR has no Python bindings).

    import dlc
    text = dlc.parse(source)                      # verified, printed back
    text = dlc.run_pipeline(source, "builtin.module(func.func(dlg-simplify))")
    m = dlc.compile("model.onnx")                 # or .mlir, MLIR text, a ModelProto
    g = dlc.Graph(); ...; g.compile()             # built op by op

Errors raise dlc.CompileError carrying MLIR's diagnostics (location and
message). libdlc.so is found in the default build directory or at $DLC_LIB.

Modules, each importing only those before it:
  errors    CompileError
  _capi     the ctypes layer: structs, signatures, parse, run_pipeline
  module    Module (JIT), AotModule and load (AOT), compile_mlir
  graph     Graph: building dlg ops from Python
  onnx      the ONNX importer (onto Graph)
  compiler  compile: the one place that decides what the input is
"""

import importlib

from ._capi import library_path, parse, run_pipeline
from .errors import CompileError
from .module import AotModule, Module, empty_aligned, load
from .graph import Graph
from . import control as _control  # noqa: F401  (Graph.if_, Graph.while_)

__all__ = ["CompileError", "parse", "run_pipeline", "library_path",
           "Module", "compile", "Graph", "AotModule", "load", "empty_aligned"]

# dlc.compile lives above the ONNX importer, which loads the (optional,
# slow to import) onnx package: both are loaded at first use (PEP 562), so
# `import dlc` stays light and `python3 -m dlc.onnx` runs that module once
# rather than after the package has already imported it.
_ON_FIRST_USE = {"compile": ("compiler", "compile"), "compiler": ("compiler", None),
                 "onnx": ("onnx", None)}


def __getattr__(name):
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _ON_FIRST_USE[name]
    loaded = importlib.import_module(f".{module}", __name__)
    return getattr(loaded, attr) if attr else loaded
