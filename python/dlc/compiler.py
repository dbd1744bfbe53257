"""dlc.compile and dlc.Module: JIT-compiled models called with NumPy arrays."""

import ctypes
import os

import numpy as np

from . import CompileError, _library, run_pipeline

_MAX_RANK = 16
_DTYPES = ["float32", "float16", None, "float64", "bool", "int8", "int32", "int64"]


class _TensorType(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * _MAX_RANK)]


class _Tensor(ctypes.Structure):
    _fields_ = [("type", _TensorType), ("data", ctypes.c_void_p)]


class _Options(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char_p), ("pipeline", ctypes.c_char_p),
                ("threads", ctypes.c_int), ("optLevel", ctypes.c_int)]


_bound = False


def _lib():
    global _bound
    lib = _library()
    if not _bound:
        sig = {
            "dlcProgramCompile": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                   ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_void_p)],
                                  ctypes.c_void_p),
            "dlcProgramDestroy": ([ctypes.c_void_p], None),
            "dlcProgramNumInputs": ([ctypes.c_void_p], ctypes.c_ssize_t),
            "dlcProgramNumOutputs": ([ctypes.c_void_p], ctypes.c_ssize_t),
            "dlcProgramInput": ([ctypes.c_void_p, ctypes.c_ssize_t], _TensorType),
            "dlcProgramOutput": ([ctypes.c_void_p, ctypes.c_ssize_t], _TensorType),
            "dlcProgramResolve": ([ctypes.c_void_p, ctypes.POINTER(_TensorType),
                                   ctypes.POINTER(_TensorType), ctypes.c_char_p, ctypes.c_size_t],
                                  ctypes.c_bool),
            "dlcProgramRun": ([ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
                               ctypes.c_char_p, ctypes.c_size_t], ctypes.c_bool),
        }
        for name, (args, res) in sig.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, res
        # dlcProgramCompile's error message is malloc'd: released with libc's free.
        lib._free = ctypes.CDLL(None).free
        lib._free.argtypes, lib._free.restype = [ctypes.c_void_p], None
        _bound = True
    return lib


def _describe(shape, dtype):
    return f"{dtype}[{'x'.join('?' if d is None else str(d) for d in shape)}]"


def _check_inputs(arrays, specs):
    """`arrays` as NumPy arrays, checked against (shape, dtype) specs where a
    None dim takes any size; ValueError naming the first misfit."""
    if len(arrays) != len(specs):
        raise ValueError(f"expected {len(specs)} inputs, got {len(arrays)}")
    arrays = [np.asarray(a) for a in arrays]
    for i, (a, (shape, dtype)) in enumerate(zip(arrays, specs)):
        if (a.dtype != dtype or a.ndim != len(shape) or
                any(w is not None and w != d for w, d in zip(shape, a.shape))):
            raise ValueError(f"input {i}: expected {_describe(shape, dtype)}, "
                             f"got {_describe(a.shape, a.dtype)}")
    return arrays


class Module:
    """A compiled model. `run(*arrays)` returns a list of arrays, one per
    result; calling the module returns the array itself when there is one."""

    # The IR after each stage, as `Module.ir(stage)` shows it.
    GRAPH = ("func.func(dlg-simplify,dlg-fold-batch-norm,dlg-fold-constants,"
             "dlg-simplify)")
    STAGES = {
        "dlg": f"builtin.module({GRAPH})",
        "dlk": f"builtin.module({GRAPH},func.func(dlg-fuse))",
        "linalg": f"builtin.module({GRAPH},func.func(dlg-fuse),"
                  "dlk-to-linalg,func.func(linalg-fuse-elementwise-ops),"
                  "canonicalize,cse)",
        "llvm": "builtin.module(lower-to-llvm)",
    }

    def __init__(self, source, *, name="<input>", threads=None, target=None, entry=None):
        lib = _lib()
        self._source, self._name, self._target = source, name, target
        data = source.encode()
        pipeline = None
        if target:
            pipeline = f"builtin.module(lower-to-llvm{{target={target}}})".encode()
        opts = _Options(entry.encode() if entry else None, pipeline, threads or 0, 3)
        err = ctypes.c_void_p()
        self._p = lib.dlcProgramCompile(data, len(data), name.encode(), ctypes.byref(opts),
                                        ctypes.byref(err))
        if not self._p:
            text = ctypes.string_at(err.value).decode() if err.value else ""
            if err.value:
                lib._free(err)
            raise CompileError("could not compile " + name, text)
        n_in, n_out = lib.dlcProgramNumInputs(self._p), lib.dlcProgramNumOutputs(self._p)
        self.inputs = [self._spec(lib.dlcProgramInput(self._p, i)) for i in range(n_in)]
        self.outputs = [self._spec(lib.dlcProgramOutput(self._p, i)) for i in range(n_out)]
        # Dynamic input dims (None): compiled per input shapes at first use.
        self.dynamic = any(d is None for shape, _ in self.inputs for d in shape)
        # A static model's C tensor descriptors are built once; a call only
        # sets their data pointers (building them cost more than a small
        # kernel runs).
        self._msg = ctypes.create_string_buffer(512)
        if not self.dynamic:
            self._c_in = self._descriptors(self.inputs)
            self._c_out = self._descriptors(self.outputs)

    @classmethod
    def _descriptors(cls, specs):
        c = (_Tensor * max(1, len(specs)))()
        for t, (shape, dtype) in zip(c, specs):
            cls._describe_into(t, shape, dtype)
        return c

    @staticmethod
    def _describe_into(t, shape, dtype):
        t.type.dtype = _DTYPES.index(np.dtype(dtype).name)
        t.type.rank = len(shape)
        for i, d in enumerate(shape):
            t.type.dims[i] = d

    def output_specs(self, *input_specs):
        """(shape, dtype) of each result for inputs of the given (shape,
        dtype); for a dynamic model this compiles the variant for them."""
        tin = (_TensorType * max(1, len(input_specs)))()
        for t, (shape, dtype) in zip(tin, input_specs):
            t.dtype, t.rank = _DTYPES.index(np.dtype(dtype).name), len(shape)
            for i, d in enumerate(shape):
                t.dims[i] = d
        tout = (_TensorType * max(1, len(self.outputs)))()
        msg = ctypes.create_string_buffer(4096)
        if not _lib().dlcProgramResolve(self._p, tin, tout, msg, len(msg)):
            text = msg.value.decode()
            raise (CompileError("could not compile for these input shapes", text)
                   if "error:" in text else ValueError(text))
        return [self._spec(tout[i]) for i in range(len(self.outputs))]

    @staticmethod
    def _spec(t):
        """(shape, dtype) with None for a dynamic dimension."""
        return (tuple(None if t.dims[i] < 0 else t.dims[i] for i in range(t.rank)),
                np.dtype(_DTYPES[t.dtype]))

    @classmethod
    def _tensor(cls, array, spec):
        t = _Tensor()
        cls._describe_into(t, *spec)
        t.data = array.ctypes.data
        return t

    def run(self, *arrays, out=None):
        """Runs the model; `out` optionally gives preallocated, C-contiguous,
        writable result arrays (one per result), which are filled and returned."""
        ins = [a if a.flags.c_contiguous else np.ascontiguousarray(a)  # keeps 0-d
               for a in _check_inputs(arrays, self.inputs)]
        in_specs = [(a.shape, a.dtype) for a in ins]
        out_specs = self.outputs
        if self.dynamic:
            out_specs = self.output_specs(*in_specs)
        if out is None:
            outs = [np.empty(shape, dtype) for shape, dtype in out_specs]
        else:
            outs = list(out)
            if len(outs) != len(self.outputs):
                raise ValueError(f"expected {len(self.outputs)} output arrays, got {len(outs)}")
            for i, (o, spec) in enumerate(zip(outs, out_specs)):
                if not isinstance(o, np.ndarray) or o.shape != spec[0] or o.dtype != spec[1]:
                    raise ValueError(f"output {i}: expected {_describe(*spec)}")
                if not (o.flags.c_contiguous and o.flags.writeable):
                    raise ValueError(f"output {i}: must be C-contiguous and writable")
        if self.dynamic:
            c_in = (_Tensor * max(1, len(ins)))(
                *[self._tensor(a, s) for a, s in zip(ins, in_specs)])
            c_out = (_Tensor * max(1, len(outs)))(
                *[self._tensor(a, s) for a, s in zip(outs, out_specs)])
        else:
            c_in, c_out = self._c_in, self._c_out
            for t, a in zip(c_in, ins):
                t.data = a.ctypes.data
            for t, a in zip(c_out, outs):
                t.data = a.ctypes.data
        msg = self._msg
        if not _lib().dlcProgramRun(self._p, c_in, c_out, msg, len(msg)):
            raise ValueError(msg.value.decode())
        return outs

    def __call__(self, *arrays):
        outs = self.run(*arrays)
        return outs[0] if len(outs) == 1 else outs

    def ir(self, stage="dlg"):
        """The module after `stage`: "dlg", "dlk", "linalg" or "llvm"."""
        if stage not in self.STAGES:
            raise ValueError(f"unknown stage {stage!r}; one of {', '.join(self.STAGES)}")
        pipeline = self.STAGES[stage]
        if stage == "llvm" and self._target:
            pipeline = f"builtin.module(lower-to-llvm{{target={self._target}}})"
        return run_pipeline(self._source, pipeline, name=self._name)

    def __del__(self):
        if getattr(self, "_p", None):
            _lib().dlcProgramDestroy(self._p)
            self._p = None


class PerShapeModule:
    """An ONNX model whose shape computations (Shape -> Gather -> Reshape, as
    PyTorch exports `x.view(x.size(0), -1)`) need the value of a dynamic
    input dim, or whose shape-like operands (Reshape's shape, Slice's starts,
    ...) are small graph inputs: imported and compiled again for each set of
    input shapes (and values of those inputs) at its first use, the last 8
    kept. Runs like a Module."""

    CACHE = 8

    def __init__(self, model, name, **options):
        from . import onnx as _onnx
        self._model, self._name, self._options = _onnx.load(model), name, options
        specs = _onnx.input_specs(self._model)
        self._names = [n for n, _, _ in specs]
        self.inputs = [(shape, dtype) for _, shape, dtype in specs]
        self.dynamic = True
        self.value_inputs = set()  # input names specialised on by value
        self._modules = {}  # (input shapes, values) -> Module, in use order

    def module(self, *shapes, values=None):
        """The Module compiled for inputs of these shapes (and `values`,
        {name: array}, of the inputs dlc specialises on)."""
        from . import onnx as _onnx
        values = values or {}
        shapes = tuple(tuple(int(d) for d in s) for s in shapes)
        key = (shapes, tuple((n, values[n].dtype.str, values[n].tobytes())
                             for n in sorted(values)))
        m = self._modules.pop(key, None)
        if m is None:
            text = _onnx.import_model(self._model, input_shapes=shapes, input_values=values)
            m = Module(text, name=self._name, **self._options)
            if len(self._modules) >= self.CACHE:
                self._modules.pop(next(iter(self._modules)))
        self._modules[key] = m
        return m

    def _module_for(self, arrays):
        from . import onnx as _onnx
        while True:
            values = {n: a for n, a in zip(self._names, arrays) if n in self.value_inputs}
            try:
                return self.module(*[a.shape for a in arrays], values=values)
            except _onnx.ValueDependentError as e:
                if set(e.inputs) <= self.value_inputs:
                    raise
                self.value_inputs |= set(e.inputs)

    def run(self, *arrays, out=None):
        arrays = _check_inputs(arrays, self.inputs)
        m = self._module_for(arrays)
        rest = [a for n, a in zip(self._names, arrays) if n not in self.value_inputs]
        return m.run(*rest, out=out)

    def __call__(self, *arrays):
        outs = self.run(*arrays)
        return outs[0] if len(outs) == 1 else outs

    def output_specs(self, *input_specs):
        if self.value_inputs:
            raise ValueError("the model's shapes depend on the values of inputs "
                             f"{sorted(self.value_inputs)}, not only on input shapes")
        return self.module(*[shape for shape, _ in input_specs]).outputs

    def ir(self, stage="dlg"):
        """The IR of the most recently used input shapes."""
        if not self._modules:
            raise ValueError("the model has dynamic input dims its shape computations need; "
                             "run it once (or use module(*shapes)) before asking for its IR")
        return next(reversed(self._modules.values())).ir(stage)


def compile(model, *, threads=None, target=None, entry=None):
    """Compiles a model: a path (.mlir or .onnx), an onnx.ModelProto, or MLIR
    text. Returns a dlc.Module (a PerShapeModule for an ONNX model whose
    shape computations need its dynamic input dims)."""
    name = "<input>"
    is_proto = hasattr(model, "graph") and hasattr(model, "opset_import")
    if is_proto or (isinstance(model, (str, os.PathLike)) and str(model).endswith(".onnx")):
        from . import onnx as _onnx
        name = "<onnx>" if is_proto else str(model)
        try:
            text = _onnx.import_model(model)
        except _onnx.DynamicShapeError:
            return PerShapeModule(model, name, threads=threads, target=target, entry=entry)
    elif isinstance(model, (str, os.PathLike)) and str(model).endswith(".mlir") \
            and os.path.exists(str(model)):
        with open(model) as f:
            text, name = f.read(), str(model)
    elif isinstance(model, str):
        text = model
    else:
        raise TypeError("dlc.compile expects a path, an onnx.ModelProto or MLIR text")
    return Module(text, name=name, threads=threads, target=target, entry=entry)
