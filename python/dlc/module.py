"""dlc.Module: a model JIT-compiled from MLIR text, called with NumPy arrays;
Module.save / dlc.load: the same model as an ahead-of-time library (AotModule).
compile_mlir is what dlc.compile does once it has MLIR text."""

import ctypes
import glob
import json
import math
import os
import re
import threading

import numpy as np

from ._capi import (MemoryPlan, _AotOptions, _DTYPES, _Options, _Tensor, _TensorType,
                    _library as _lib, run_pipeline)
from .errors import CompileError


def _describe(shape, dtype):
    return f"{dtype}[{'x'.join('?' if d is None else str(d) for d in shape)}]"


def _check_inputs(arrays, specs):
    """`arrays` as NumPy arrays, checked against (shape, dtype) specs where a
    None dim takes any size; ValueError naming the first misfit."""
    if len(arrays) != len(specs):
        raise ValueError(f"expected {len(specs)} inputs, got {len(arrays)}")
    arrays = [a if type(a) is np.ndarray else np.asarray(a) for a in arrays]
    for i, (a, (shape, dtype)) in enumerate(zip(arrays, specs)):
        if a.shape == shape and a.dtype == dtype:  # exact: the common case, cheap
            continue
        if (a.dtype != dtype or a.ndim != len(shape) or
                any(w is not None and w != d for w, d in zip(shape, a.shape))):
            raise ValueError(f"input {i}: expected {_describe(shape, dtype)}, "
                             f"got {_describe(a.shape, a.dtype)}")
    return arrays


def empty_aligned(shape, dtype, alignment=64):
    """np.empty whose data starts on a cache line (NumPy's own start 16 bytes
    in): kernels write a large output with non-temporal stores only where a
    store starts a line (passes/streaming_stores.c), as PyTorch's allocator
    also aligns to 64 bytes."""
    return _aligned(shape, np.dtype(dtype), alignment)[0]


def _aligned(shape, dtype, alignment=64):
    """empty_aligned's array and its data address: a run binds a result
    without asking NumPy again (a.ctypes costs 1-2 us an array; np.prod
    alone cost 5 us, more than a small kernel runs)."""
    nbytes = math.prod(shape if isinstance(shape, tuple) else np.atleast_1d(shape).tolist())
    nbytes *= dtype.itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    address = raw.ctypes.data
    start = -address % alignment
    return raw[start:start + nbytes].view(dtype).reshape(shape), address + start


def _output_arrays(out, specs):
    """The result arrays of a run and their data addresses: new ones for
    `specs` ((shape, dtype) per result), line-aligned, or the caller's
    `out`, checked to fit them and be C-contiguous and writable (the kernels
    write them in place), with addresses None (read when bound)."""
    if out is None:
        fresh = [_aligned(shape, dtype) for shape, dtype in specs]
        return [a for a, _ in fresh], [address for _, address in fresh]
    outs = list(out)
    if len(outs) != len(specs):
        raise ValueError(f"expected {len(specs)} output arrays, got {len(outs)}")
    for i, (o, spec) in enumerate(zip(outs, specs)):
        if not isinstance(o, np.ndarray) or o.shape != spec[0] or o.dtype != spec[1]:
            raise ValueError(f"output {i}: expected {_describe(*spec)}")
        flags = o.flags
        if not (flags.c_contiguous and flags.writeable):
            raise ValueError(f"output {i}: must be C-contiguous and writable")
    return outs, None


def _same_bound(now, fast):
    """Whether `now` (a run's inputs then outputs) are the very arrays a
    previous run bound (`fast`: the arrays, then (shape, dtype, is-output)
    for each), still of those shapes and dtypes, C-contiguous, outputs
    writable: then that run's pointers still hold. The bound arrays stay
    referenced, so none is freed and NumPy refuses to resize one in place."""
    bound, specs = fast[0], fast[1]
    if len(now) != len(bound):
        return False
    for a, b, (shape, dtype, output) in zip(now, bound, specs):
        if (a is not b or a.shape != shape or a.dtype != dtype or
                not a.flags.c_contiguous or (output and not a.flags.writeable)):
            return False
    return True


def _bound_specs(inputs, outputs):
    return tuple((s, d, False) for s, d in inputs) + tuple((s, d, True) for s, d in outputs)


# lower-to-llvm's targets (passes/lower_to_llvm.c) and "cuda" (lower-to-nvvm).
TARGETS = ("host", "avx2", "avx512", "cuda")


def _check_options(threads, target):
    """ValueError for a bad `threads` (None, 0 for all cores, or a positive
    int) or `target` (None or one of TARGETS), before any work."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 0):
        raise ValueError(f"threads must be None, 0 (all cores) or a positive integer, "
                         f"got {threads!r}")
    if target is not None and target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; one of {', '.join(TARGETS)}")


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
        # NVIDIA GPU (docs/gpu.md): the kernels in the NVVM dialect, and
        # their PTX (needs no GPU or driver).
        "nvvm": "builtin.module(lower-to-nvvm{stop-after=nvvm})",
        "ptx": "builtin.module(lower-to-nvvm{format=isa})",
    }

    def __init__(self, source, *, name="<input>", threads=None, target=None, entry=None,
                 _profile=False):
        _check_options(threads, target)
        lib = _lib()
        self._source, self._name, self._target, self._entry = source, name, target, entry
        self._options = dict(name=name, threads=threads, target=target, entry=entry)
        self._profiled = None  # the same model compiled with profiling, at first profile()
        data = source if isinstance(source, bytes) else source.encode()  # bytes: MLIR bytecode
        pipeline = None
        if target == "cuda":  # fails with "no CUDA driver: ..." where none is
            if _profile:
                raise ValueError("profile() times CPU kernels; target 'cuda' has no profiler yet")
            pipeline = b"builtin.module(lower-to-nvvm)"
        elif target:
            pipeline = (f"builtin.module(lower-to-llvm{{target={target}"
                        f"{' profile=true' if _profile else ''}"
                        f"{' parallel=false' if threads == 1 else ''}}})").encode()
        opts = _Options(entry.encode() if entry else None, pipeline, threads or 0, 3, _profile)
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
        self._raw = [self._spec(lib.dlcProgramOutput(self._p, i)) for i in range(n_out)]
        # Padded results (result attribute dlc.count, as
        # dlg.non_max_suppression gives): {result: the result counting its
        # valid rows}. run() slices each to its count and does not return
        # the counts; `outputs` describes what run() returns.
        self._counted = {i: j for i in range(n_out)
                         if (j := lib.dlcProgramOutputCountedBy(self._p, i)) >= 0}
        # the dim each counts (dlc.count_dim: dlg.non_zero's indices count
        # their columns, dim 1)
        self._counted_dim = {i: lib.dlcProgramOutputCountedDim(self._p, i) for i in self._counted}
        self._shown = [i for i in range(n_out) if i not in set(self._counted.values())]
        self.outputs = [self._shown_spec(i, self._raw[i]) for i in self._shown]
        # Dynamic input dims (None): compiled per input shapes at first use.
        self.dynamic = any(d is None for shape, _ in self.inputs for d in shape)
        # A static model's C tensor descriptors are built once; a call only
        # sets their data pointers (building them cost more than a small
        # kernel runs).
        # Per thread: several threads may run one Module at once (the C
        # program is thread-safe; these buffers are not).
        self._tls = threading.local()

    def _shown_spec(self, i, spec):
        """Result i's (shape, dtype) as run() returns it: a padded result's
        counted dim is known only after the run (None)."""
        if i not in self._counted:
            return spec
        d = self._counted_dim[i]
        return (spec[0][:d] + (None,) + spec[0][d + 1:], spec[1])

    def _trim(self, outs):
        """The results run() returns: padded ones sliced to their counts,
        the counts themselves left out."""
        if not self._counted:
            return outs
        return [self._slice(outs[i], i, int(outs[self._counted[i]])) if i in self._counted
                else outs[i] for i in self._shown]

    def _slice(self, array, i, count):
        """Padded result i cut to its count along its counted dim (a copy,
        contiguous, where that dim is not the first)."""
        d = self._counted_dim[i]
        if d == 0:
            return array[:count]
        return np.ascontiguousarray(array[(slice(None),) * d + (slice(0, count),)])

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
        return [self._shown_spec(i, s) for i, s in enumerate(self._raw_specs(input_specs))
                if i in self._shown]

    def _raw_specs(self, input_specs):
        """output_specs of every result of the entry function (counts and
        padded results as they are)."""
        tin = (_TensorType * max(1, len(input_specs)))()
        for t, (shape, dtype) in zip(tin, input_specs):
            t.dtype, t.rank = _DTYPES.index(np.dtype(dtype).name), len(shape)
            for i, d in enumerate(shape):
                t.dims[i] = d
        tout = (_TensorType * max(1, len(self._raw)))()
        msg = ctypes.create_string_buffer(4096)
        if not _lib().dlcProgramResolve(self._p, tin, tout, msg, len(msg)):
            text = msg.value.decode()
            raise (CompileError("could not compile for these input shapes", text)
                   if "error:" in text else ValueError(text))
        return [self._spec(tout[i]) for i in range(len(self._raw))]

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
        # A loop over the same arrays (bench loops, serving with preallocated
        # buffers): the very arrays of the last call, whose shapes, dtypes and
        # layout are checked again (they can change in place), skip building
        # lists and descriptors; a small kernel runs in a few microseconds.
        if out is not None and not isinstance(out, (list, tuple)):
            out = list(out)  # an iterator is read once, here
        fast = getattr(self._tls, "fast", None)
        if fast is not None and out is not None and _same_bound(arrays + tuple(out), fast):
            call = fast[2]
            if not call[0](*call[1:]):
                raise ValueError(call[4].value.decode())
            return list(out)
        ins = [a if a.flags.c_contiguous else np.ascontiguousarray(a)  # keeps 0-d
               for a in _check_inputs(arrays, self.inputs)]
        out_specs = self._raw
        if self.dynamic:
            in_specs = [(a.shape, a.dtype) for a in ins]
            out_specs = self._raw_specs(in_specs)
        if out is not None and self._counted:
            raise ValueError("out= cannot take a result whose size is known only after the "
                             f"run (results {sorted(self._shown.index(i) for i in self._counted)}"
                             " are counted at run time)")
        outs, out_addresses = _output_arrays(out, out_specs)
        tls = self._tls
        if not hasattr(tls, "msg"):
            tls.msg = ctypes.create_string_buffer(512)
            if not self.dynamic:
                tls.c_in = self._descriptors(self.inputs)
                tls.c_out = self._descriptors(self._raw)
        if self.dynamic:
            c_in = (_Tensor * max(1, len(ins)))(
                *[self._tensor(a, s) for a, s in zip(ins, in_specs)])
            c_out = (_Tensor * max(1, len(outs)))(
                *[self._tensor(a, s) for a, s in zip(outs, out_specs)])
        else:
            c_in, c_out = tls.c_in, tls.c_out
            # The arrays of the last call are kept (so none is freed, and
            # NumPy refuses to resize one in place while it is referenced)
            # and compared by identity: a loop over the same buffers skips
            # reading data pointers, which costs microseconds an array
            # (a.ctypes), more than a small kernel runs. Inputs and
            # outputs apart: mod(*args) on the same inputs gets new
            # results each call, whose addresses _output_arrays knows.
            bound = ins + outs
            last = getattr(tls, "bound", None)
            if (last is None or len(last) != len(bound) or
                    any(a is not b for a, b in zip(bound, last))):
                tls.bound = tls.fast = None
                if last is None or any(a is not b for a, b in zip(ins, last)):
                    for t, a in zip(c_in, ins):
                        t.data = a.ctypes.data
                if out_addresses is None:
                    out_addresses = [a.ctypes.data for a in outs]
                for t, address in zip(c_out, out_addresses):
                    t.data = address
                tls.bound = bound
                if out is not None:
                    tls.fast = (tuple(bound), _bound_specs(self.inputs, self.outputs),
                                (_lib().dlcProgramRun, self._p, c_in, c_out, tls.msg,
                                 len(tls.msg)))
        msg = tls.msg
        if not _lib().dlcProgramRun(self._p, c_in, c_out, msg, len(msg)):
            raise ValueError(msg.value.decode())
        return self._trim(outs)

    def __call__(self, *arrays):
        outs = self.run(*arrays)
        return outs[0] if len(outs) == 1 else outs

    def memory(self, *input_specs):
        """The memory plan (a dict: workspace_bytes, peak_bytes, naive_bytes,
        weights_bytes, temporaries, unplanned) of the model, for inputs of
        the given (shape, dtype) when it is dynamic."""
        tin = None
        if input_specs:
            tin = (_TensorType * max(1, len(input_specs)))()
            for t, (shape, dtype) in zip(tin, input_specs):
                t.dtype, t.rank = _DTYPES.index(np.dtype(dtype).name), len(shape)
                for i, d in enumerate(shape):
                    t.dims[i] = d
        elif self.dynamic:
            raise ValueError("a dynamic model's memory plan depends on the input shapes; "
                             "give them as (shape, dtype) pairs")
        plan, msg = MemoryPlan(), ctypes.create_string_buffer(4096)
        if not _lib().dlcProgramMemory(self._p, tin, ctypes.byref(plan), msg, len(msg)):
            raise ValueError(msg.value.decode())
        return plan.as_dict()

    def save(self, directory, name="model", *, isa=None, threads=None):
        """Compiles the model ahead of time into `directory`: NAME.h, NAME.o
        and libNAME.so (see dlc-compile); dlc.load(directory) runs it later
        without MLIR. The model must have static shapes."""
        return _compile_library(self._source, self._name, directory, name,
                                entry=self._entry, isa=isa or self._target, threads=threads)
    def profile(self, *arrays, runs=10, trace=None):
        """Per-kernel profile of `runs` runs on `arrays` (after one warm-up),
        as TVM's debug executor prints it: one row per kernel with its kind,
        root op and shapes, time and share of the run, GFLOP/s or GB/s and %
        of this machine's roofline. Returns the table's text; `trace` names a
        file to write the runs to as a Chrome trace (Perfetto,
        chrome://tracing). The model is compiled once more, with each kernel
        timed; this module's own code stays untimed."""
        if self._profiled is None:
            self._profiled = Module(self._source, _profile=True, **self._options)
        m, lib = self._profiled, _lib()
        m.run(*arrays)
        lib.dlcProgramProfileReset(m._p)
        for _ in range(runs):
            m.run(*arrays)
        msg = ctypes.create_string_buffer(512)
        text = lib.dlcProgramProfileTable(m._p, msg, len(msg))
        if not text:
            raise ValueError(msg.value.decode())
        table = ctypes.string_at(text).decode()
        lib._free(text)
        if trace is not None and not lib.dlcProgramProfileTrace(m._p, os.fsencode(trace), msg,
                                                                 len(msg)):
            raise OSError(msg.value.decode())
        return table

    def ir(self, stage="dlg"):
        """The module after `stage`: "dlg", "dlk", "linalg" or "llvm"."""
        if stage not in self.STAGES:
            raise ValueError(f"unknown stage {stage!r}; one of {', '.join(self.STAGES)}")
        pipeline = self.STAGES[stage]
        if stage == "llvm" and self._target and self._target != "cuda":
            pipeline = f"builtin.module(lower-to-llvm{{target={self._target}}})"
        text = run_pipeline(self._source, pipeline, name=self._name)
        return _ptx(text) if stage == "ptx" else text

    def __del__(self):
        if getattr(self, "_p", None):
            _lib().dlcProgramDestroy(self._p)
            self._p = None


_BINARY = re.compile(r'gpu\.binary @(\w+)\s*\[.*?assembly = "((?:[^"\\]|\\.)*)"', re.S)


def _unescape(s):
    """The body of an MLIR string literal: \\XX hex escapes, \\\\ and \\"."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] == "\\":
            if s[i + 1] in "\\\"":
                out.append(ord(s[i + 1]))
                i += 2
            else:
                out.append(int(s[i + 1:i + 3], 16))
                i += 3
        else:
            out.extend(s[i].encode())
            i += 1
    return out.decode()


def _ptx(module_text):
    """The PTX of every gpu.binary in a module lowered with format=isa, each
    after a `// gpu.binary @name` line."""
    return "".join(f"// gpu.binary @{m.group(1)}\n{_unescape(m.group(2))}\n"
                   for m in _BINARY.finditer(module_text))


def compile_mlir(text, *, threads=None, target=None, entry=None, output=None, name="model",
                 source_name="<input>"):
    """MLIR text (dlg ops) compiled as dlc.compile does: a Module, or with
    `output=DIR` a library written to DIR/NAME.{h,o} and DIR/libNAME.so and
    loaded (dlc.load). `source_name` names the text in diagnostics."""
    _check_options(threads, target)
    if output is not None:
        _compile_library(text, source_name, output, name, entry=entry, isa=target,
                         threads=threads)
        return load(output, name)
    return Module(text, name=source_name, threads=threads, target=target, entry=entry)


def _compile_library(text, source_name, directory, name, *, entry=None, isa=None, threads=None):
    lib = _lib()
    os.makedirs(directory, exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode()  # bytes: MLIR bytecode
    opts = _AotOptions(entry.encode() if entry else None, isa.encode() if isa else None,
                       None, threads or 1, True, None)
    plan, err = MemoryPlan(), ctypes.c_void_p()
    if not lib.dlcCompileToLibrary(data, len(data), source_name.encode(),
                                   os.fsencode(directory), name.encode(), ctypes.byref(opts),
                                   ctypes.byref(plan), ctypes.byref(err)):
        msg = ctypes.string_at(err.value).decode() if err.value else ""
        if err.value:
            lib._free(err)
        raise CompileError(f"could not compile {source_name} to a library", msg)
    return plan.as_dict()


_AOT_ERROR_OVERLAP = 3  # an output overlaps an input or another (capi/lib/Aot.c's kErrors)
_AOT_ERROR_CHECK = 4  # NAME_ERROR_CHECK in a dlc-compile header (capi/lib/Aot.c)


class AotModule:
    """A library written by dlc-compile, Module.save or compile(output=),
    called through its C ABI with ctypes (no MLIR needed). Runs like a
    Module; threads may call it at once (each thread keeps a workspace)."""

    def __init__(self, path, name):
        self.path, self.name = path, name
        self._lib = ctypes.CDLL(path)
        fn = lambda s: getattr(self._lib, f"{name}_{s}")  # noqa: E731
        self._run = fn("run")
        self._run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self._run.restype = ctypes.c_int
        self._error = fn("error_string")
        self._error.argtypes, self._error.restype = [ctypes.c_int], ctypes.c_char_p
        sig = fn("signature")
        sig.argtypes, sig.restype = [], ctypes.c_char_p
        self.signature = json.loads(sig().decode())
        self.workspace_bytes = self.signature["workspace_bytes"]
        self.inputs = [(tuple(t["shape"]), np.dtype(t["dtype"])) for t in self.signature["inputs"]]
        self.outputs = [(tuple(t["shape"]), np.dtype(t["dtype"]))
                        for t in self.signature["outputs"]]
        self.dynamic = False
        self._tls = threading.local()

    def run(self, *arrays, out=None):
        # As Module.run: a loop over the very arrays of the last call skips
        # the checks and the data pointers (a.ctypes costs microseconds an
        # array: 3-5% of a 0.2-0.3 ms model such as the MLP at b=32).
        if out is not None and not isinstance(out, (list, tuple)):
            out = list(out)  # an iterator is read once, here
        tls = self._tls
        fast = getattr(tls, "fast", None)
        if fast is not None and out is not None and _same_bound(arrays + tuple(out), fast):
            self._check(self._run(tls.c_in, tls.c_out, tls.ws))
            return list(out)
        ins = [a if a.flags.c_contiguous else np.ascontiguousarray(a)
               for a in _check_inputs(arrays, self.inputs)]
        outs, out_addresses = _output_arrays(out, self.outputs)
        if not hasattr(tls, "ws"):
            # 64-byte aligned workspace, kept per thread.
            tls.raw = np.empty(self.workspace_bytes + 64, np.uint8)
            tls.ws = tls.raw.ctypes.data + (-tls.raw.ctypes.data) % 64
            tls.c_in = (ctypes.c_void_p * max(1, len(ins)))()
            tls.c_out = (ctypes.c_void_p * max(1, len(outs)))()
            tls.ins = None
        tls.fast = None
        # inputs bound by the last call (kept referenced, as Module.run's)
        # keep their pointers; new results come with their addresses
        if tls.ins is None or any(a is not b for a, b in zip(ins, tls.ins)):
            tls.ins = None
            for i, a in enumerate(ins):
                tls.c_in[i] = a.ctypes.data
            tls.ins = ins
        if out_addresses is None:
            out_addresses = [a.ctypes.data for a in outs]
        for i, address in enumerate(out_addresses):
            tls.c_out[i] = address
        if out is not None:
            tls.fast = (tuple(ins + outs), _bound_specs(self.inputs, self.outputs))
        self._check(self._run(tls.c_in, tls.c_out, tls.ws))
        return outs

    def _check(self, rc):
        if rc:
            # 4 and up: a run-time check of the inputs failed (an index
            # outside its axis); 3: an output overlaps an input. The
            # caller's data or buffers: a ValueError, as the JIT raises
            cls = ValueError if rc >= _AOT_ERROR_OVERLAP else RuntimeError
            raise cls(f"{self.name}_run: {self._error(rc).decode()}")

    def __call__(self, *arrays):
        outs = self.run(*arrays)
        return outs[0] if len(outs) == 1 else outs


def load(directory, name=None):
    """Loads DIR/libNAME.so written by dlc-compile, Module.save or
    compile(output=DIR) (NAME: the only library in DIR when not given)."""
    if name is None:
        libs = sorted(glob.glob(os.path.join(glob.escape(str(directory)), "lib*.so")))
        if len(libs) != 1:
            raise ValueError(f"{directory}: expected one lib*.so, found {len(libs)}; give name=")
        name = os.path.basename(libs[0])[3:-3]
    path = os.path.join(str(directory), f"lib{name}.so")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such library")
    return AotModule(os.path.abspath(path), name)

