"""dlc.compile: the one place that decides what a model is (an ONNX file or
proto, an .mlir file, MLIR text) and compiles it; PerShapeModule for ONNX
models imported again per input shape."""

import os
import threading

from . import onnx as _onnx
from .module import Module, _check_inputs, _check_options, compile_mlir


def compile(model, *, threads=None, target=None, entry=None, output=None, name="model"):
    """Compiles a model: a path (.mlir or .onnx), an onnx.ModelProto, or MLIR
    text. Returns a dlc.Module (a PerShapeModule for an ONNX model whose
    shape computations need its dynamic input dims). With `output=DIR` the
    model is compiled ahead of time instead, into DIR/NAME.h, DIR/NAME.o and
    DIR/libNAME.so, and the result is that library loaded (dlc.load)."""
    _check_options(threads, target)
    source_name, onnx_model = "<input>", None
    is_proto = hasattr(model, "graph") and hasattr(model, "opset_import")
    if is_proto or (isinstance(model, (str, os.PathLike)) and str(model).endswith(".onnx")):
        source_name = "<onnx>" if is_proto else str(model)
        onnx_model = _onnx.load(model)
        if output is not None:
            _onnx.check_aot_types(onnx_model)
        try:
            text = _onnx.import_model(model, bytecode=True)  # weights as raw bytes
        except _onnx.DynamicShapeError:
            if output is not None:
                raise ValueError("this ONNX model's shape computations need its dynamic input "
                                 "dims: an AOT library needs static shapes") from None
            return _onnx.typed_module(onnx_model, PerShapeModule(
                model, source_name, threads=threads, target=target, entry=entry))
    elif isinstance(model, (str, os.PathLike)) and str(model).endswith(".mlir") \
            and os.path.exists(str(model)):
        with open(model) as f:
            text, source_name = f.read(), str(model)
    elif isinstance(model, str):
        text = model
    else:
        raise TypeError("dlc.compile expects a path, an onnx.ModelProto or MLIR text")
    m = compile_mlir(text, threads=threads, target=target, entry=entry, output=output,
                     name=name, source_name=source_name)
    if onnx_model is not None:  # element types dlg lacks: converted at the boundary
        return _onnx.typed_module(onnx_model, m)
    return m


class PerShapeModule:
    """An ONNX model whose shape computations (Shape -> Gather -> Reshape, as
    PyTorch exports `x.view(x.size(0), -1)`) need the value of a dynamic
    input dim, or whose shape-like operands (Reshape's shape, Slice's starts,
    ...) are small graph inputs: imported and compiled again for each set of
    input shapes (and values of those inputs) at its first use, the last 8
    kept. Runs like a Module."""

    CACHE = 8

    def __init__(self, model, name, **options):
        self._model, self._name, self._options = _onnx.load(model), name, options
        specs = _onnx.input_specs(self._model)
        self._names = [n for n, _, _ in specs]
        self.inputs = [(shape, dtype) for _, shape, dtype in specs]
        self.dynamic = True
        self.value_inputs = set()  # input names specialised on by value
        self._modules = {}  # (input shapes, values) -> Module, in use order
        self._lock = threading.Lock()  # the cache is shared by calling threads

    def module(self, *shapes, values=None):
        """The Module compiled for inputs of these shapes (and `values`,
        {name: array}, of the inputs dlc specialises on)."""
        values = values or {}
        shapes = tuple(tuple(int(d) for d in s) for s in shapes)
        key = (shapes, tuple((n, values[n].dtype.str, values[n].tobytes())
                             for n in sorted(values)))
        with self._lock:
            m = self._modules.pop(key, None)
            if m is None:
                text = _onnx.import_model(self._model, input_shapes=shapes, input_values=values,
                                          bytecode=True)
                m = Module(text, name=self._name, **self._options)
                if len(self._modules) >= self.CACHE:
                    self._modules.pop(next(iter(self._modules)))
            self._modules[key] = m
        return m

    def _module_for(self, arrays):
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

    def profile(self, *arrays, runs=10, trace=None):
        """Module.profile of the module for these inputs (their shapes, and
        the values of the inputs it specialises on)."""
        arrays = _check_inputs(arrays, self.inputs)
        m = self._module_for(arrays)
        rest = [a for n, a in zip(self._names, arrays) if n not in self.value_inputs]
        return m.profile(*rest, runs=runs, trace=trace)

    def ir(self, stage="dlg"):
        """The IR of the most recently used input shapes."""
        if not self._modules:
            raise ValueError("the model has dynamic input dims its shape computations need; "
                             "run it once (or use module(*shapes)) before asking for its IR")
        return next(reversed(self._modules.values())).ir(stage)
