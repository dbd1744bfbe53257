"""GPU checks without a GPU, on every e2e op case (test/E2E/Inputs/ops_numerics.py)
or on given .mlir models:

  ptxas     --lower-to-nvvm{format=isa}; every kernel's PTX is assembled
            by `ptxas -arch=sm_90a -v` (registers, shared memory and
            spills per kernel reported); no `.extern` libdevice function
            (__nv_*) may remain. Where no ptxas is found the mode prints
            one SKIP line and exits 0 with no "passed" line, so a FileCheck
            on the count fails rather than passing silently.
  emulate   the GPU strategy's program before gpu.launch
            (--lower-to-nvvm{stop-after=schedule}: linalg tiled into
            scf.forall loops mapped to blocks and threads, fused and
            vectorised per thread) compiled for the CPU, where the foralls
            run as loops, and compared with NumPy (the e2e tolerances).

  device    on a GPU: each case compiled with dlc.compile(target="cuda")
            and run on device 0 against NumPy (the e2e tolerances). Without
            a CUDA driver it prints one SKIP line and no "passed" line.

Usage: gpu_check.py ptxas|emulate|device [-k SUBSTRING] [--models] [--show-ptx-of NAME] [model.mlir ...]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import dlc

HERE = os.path.dirname(os.path.abspath(__file__))
# The e2e cases and models, and how their results are compared.
sys.path.insert(0, os.path.join(HERE, "..", "E2E", "Inputs"))
from ops_numerics import compare, report  # noqa: E402


def find_ptxas():
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        p = os.environ.get(var)
        if p and os.access(os.path.join(p, "bin", "ptxas"), os.X_OK):
            return os.path.join(p, "bin", "ptxas")
    p = shutil.which("ptxas")
    if p:
        return p
    cands = sorted(d for d in os.listdir("/usr/local") if d.startswith("cuda")) \
        if os.path.isdir("/usr/local") else []
    for d in reversed(cands):
        p = os.path.join("/usr/local", d, "bin", "ptxas")
        if os.access(p, os.X_OK):
            return p
    return None


def unescape(s):
    """An MLIR string literal's body: \\XX hex escapes, \\\\ and \\"."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            n = s[i + 1]
            if n in "\\\"":
                out.append(ord(n))
                i += 2
            elif n == "n":
                out.append(10)
                i += 2
            elif n == "t":
                out.append(9)
                i += 2
            else:
                out.append(int(s[i + 1:i + 3], 16))
                i += 3
        else:
            out.extend(c.encode())
            i += 1
    return out.decode()


BINARY = re.compile(r'gpu\.binary @(\w+)\s*\[.*?assembly = "((?:[^"\\]|\\.)*)"', re.S)


def ptx_of(module_text):
    """[(gpu.binary name, PTX)] of a module lowered with format=isa."""
    return [(m.group(1), unescape(m.group(2))) for m in BINARY.finditer(module_text)]


PTXAS_INFO = re.compile(r"Compiling entry function '(\w+)'|Used (\d+) registers|"
                        r"(\d+) bytes smem|(\d+) bytes spill stores")


def assemble(ptxas, ptx, workdir):
    """Runs ptxas; returns (ok, message, [(kernel, regs, smem, spills)])."""
    path = os.path.join(workdir, "k.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    r = subprocess.run([ptxas, "-arch=sm_90a", "-v", path, "-o", os.path.join(workdir, "k.cubin")],
                       capture_output=True, text=True)
    kernels, cur = [], None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = [m.group(1), 0, 0, 0]
            kernels.append(cur)
        if cur is None:
            continue
        for pat, idx in ((r"Used (\d+) registers", 1), (r"(\d+) bytes smem", 2),
                         (r"(\d+) bytes spill stores", 3)):
            m = re.search(pat, line)
            if m:
                cur[idx] = int(m.group(1))
    return r.returncode == 0, r.stderr.strip(), [tuple(k) for k in kernels]


def cases(opts):
    if opts.models:
        for path in opts.models:
            with open(path) as f:
                yield os.path.basename(path), f.read(), None, None, None
        return
    if opts.suite_models:
        import models
        for name, make in models.MODELS.items():
            if opts.k in name:
                src, args, ref, tol = make()
                yield name, src, args, ref, tol
        return
    if opts.control or opts.leftover:
        yield from (c for c in (control_cases() if opts.control else leftover_cases())
                    if opts.k in c[0])
        return
    import ops_numerics
    for name, src, inputs, ref, tol in ops_numerics.CASES:
        if opts.k in name:
            yield name, src, inputs, ref, tol


def leftover_cases():
    """Work no block forall holds, at sizes where dlc-gpu-spread's launches
    take several blocks (copies) and a block of 8 warps with several
    iterations a thread (reductions to a scalar): concat, pad, slice and
    reshape copies, reductions of f32 and i32 by each combiner kind."""
    rng = np.random.default_rng(7)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    tol = (1e-5, 1e-5)
    yield ("concat [(300, 17), (300, 5)] axis=1", """
func.func @main(%a: tensor<300x17xf32>, %b: tensor<300x5xf32>) -> tensor<300x22xf32> {
  %r = dlg.concat %a, %b {axis = 1 : i64} : (tensor<300x17xf32>, tensor<300x5xf32>) -> tensor<300x22xf32>
  return %r : tensor<300x22xf32>
}""", [f32(300, 17), f32(300, 5)], lambda a, b: np.concatenate([a, b], 1), (0, 0))
    yield ("pad (33, 40) by (3, 1, 2, 7)", """
func.func @main(%a: tensor<33x40xf32>) -> tensor<38x48xf32> {
  %r = dlg.pad %a {pads = array<i64: 3, 1, 2, 7>, value = -2.5 : f64} : tensor<33x40xf32> -> tensor<38x48xf32>
  return %r : tensor<38x48xf32>
}""", [f32(33, 40)], lambda a: np.pad(a, ((3, 2), (1, 7)), constant_values=-2.5), (0, 0))
    yield ("slice (64, 50, 9) step (2, 3, 1)", """
func.func @main(%a: tensor<64x50x9xf32>) -> tensor<31x16x7xf32> {
  %r = dlg.slice %a {starts = array<i64: 1, 2, 1>, ends = array<i64: 63, 50, 8>, steps = array<i64: 2, 3, 1>} : tensor<64x50x9xf32> -> tensor<31x16x7xf32>
  return %r : tensor<31x16x7xf32>
}""", [f32(64, 50, 9)], lambda a: a[1:63:2, 2:50:3, 1:8], (0, 0))
    for op, ref, t in (("reduce_sum", np.sum, tol), ("reduce_max", np.max, (0, 0)),
                       ("reduce_min", np.min, (0, 0)), ("reduce_mean", np.mean, tol)):
        yield (f"{op} (37, 53) to a scalar", f"""
func.func @main(%a: tensor<37x53xf32>) -> tensor<f32> {{
  %r = dlg.{op} %a {{axes = array<i64>, keepdims = false}} : tensor<37x53xf32> -> tensor<f32>
  return %r : tensor<f32>
}}""", [f32(37, 53)], ref, (1e-4, 1e-5) if op == "reduce_sum" else t)
    ints = rng.integers(-1000, 1000, (19, 23)).astype(np.int32)
    for op, ref in (("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_min", np.min)):
        yield (f"{op} i32 (19, 23) to a scalar", f"""
func.func @main(%a: tensor<19x23xi32>) -> tensor<i32> {{
  %r = dlg.{op} %a {{axes = array<i64>, keepdims = false}} : tensor<19x23xi32> -> tensor<i32>
  return %r : tensor<i32>
}}""", [ints], lambda a, ref=ref: ref(a).astype(np.int32), (0, 0))


def control_cases():
    """dlg.if and dlg.while (test/E2E/Inputs/control.py): each branch, and
    loops of none, one, several trips and a data-dependent early exit. On
    the GPU the control flow stays on the host, which reads the condition
    back from device memory; the kernels in the regions are launched."""
    import control
    rng = np.random.default_rng(5)
    tol = (1e-4, 1e-4)
    for sign, branch in ((1, "then"), (-1, "else")):
        x = rng.standard_normal((8, 16)).astype(np.float32) + sign
        yield f"if, {branch} branch", control.IF_SRC, [x], control.if_ref, tol
    w = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32)
    b = (rng.standard_normal(64) * 0.01).astype(np.float32)
    h = rng.standard_normal((4, 64)).astype(np.float32)
    for n, eps in ((0, 0.0), (1, 0.0), (7, 0.0), (200, 0.3), (50, 10.0)):
        want_trips = control.while_ref(h, w, b, n, eps)[1]
        yield (f"while n={n} eps={eps} ({want_trips} trips)", control.WHILE_SRC,
               [h, w, b, np.array(n, np.int64), np.array(eps, np.float32)],
               lambda h, w, b, n, eps: control.while_ref(h, w, b, int(n), float(eps)), tol)
    nested = open(os.path.join(HERE, "Inputs", "nested_control.mlir")).read()

    def nested_ref(x, n):
        i = 0
        while i < n:
            x = x * 0.5 - 0.5 if x.sum() > 0 else np.exp(x)
            i += 1
        return x, np.array(i)
    x = (rng.standard_normal(64) + 1).astype(np.float32)
    for n in (0, 3, 12):
        yield (f"if inside while, {n} trips", nested, [x, np.array(n, np.int64)],
               lambda x, n: nested_ref(x, int(n)), tol)
    yield from onnx_control_cases(rng)


def onnx_control_cases(rng):
    """ONNX If and Loop whose condition / trip count come from tensor data,
    imported as dlg.if / dlg.while (as in test/Python/Inputs/test_onnx_import.py)."""
    from onnx import TensorProto, helper, numpy_helper
    import dlc.onnx
    F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64

    def graph(nodes, inputs, outputs, name):
        return helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                                 [helper.make_tensor_value_info(*o) for o in outputs])

    def model(nodes, inputs, outputs, inits):
        g = graph(nodes, inputs, outputs, "g")
        g.initializer.extend(numpy_helper.from_array(v, n) for n, v in inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        src = dlc.onnx.import_graph(m).mlir()
        assert "dlg.if" in src or "dlg.while" in src, "not imported as runtime control flow"
        return src

    then_g = graph([helper.make_node("Mul", ["x", "two"], ["t"])], [], [("t", F, None)], "then")
    else_g = graph([helper.make_node("Neg", ["x"], ["e"])], [], [("e", F, None)], "else")
    src = model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                 helper.make_node("Greater", ["s", "zero"], ["c"]),
                 helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
                [("x", F, [8, 8])], [("y", F, None)],
                [("two", np.array(2, np.float32)), ("zero", np.array(0, np.float32))])
    big = np.abs(rng.standard_normal((8, 8))).astype(np.float32)
    for v, branch in ((big, "then"), (-big, "else")):
        yield (f"onnx If, {branch} branch", src, [v],
               lambda x: 2 * x if x.sum() > 0 else -x, (1e-6, 1e-6))
    # y = y * 2 + i for i < M (M from data) while sum(y) < 100
    body = graph([helper.make_node("Cast", ["i"], ["fi"], to=F),
                  helper.make_node("Mul", ["y_in", "two"], ["y2"]),
                  helper.make_node("Add", ["y2", "fi"], ["y_out"]),
                  helper.make_node("ReduceSum", ["y_out"], ["y_sum"], keepdims=0),
                  helper.make_node("Less", ["y_sum", "hundred"], ["c_out"])],
                 [("i", I64, []), ("c_in", B, []), ("y_in", F, [16])],
                 [("c_out", B, []), ("y_out", F, [16])], "body")
    src = model([helper.make_node("ReduceSum", ["n"], ["nsum"], keepdims=0),
                 helper.make_node("Cast", ["nsum"], ["M"], to=I64),
                 helper.make_node("Loop", ["M", "", "y"], ["y_f"], body=body)],
                [("n", F, [2]), ("y", F, [16])], [("y_f", F, None)],
                [("two", np.array(2, np.float32)), ("hundred", np.array(100, np.float32))])

    def loop_ref(n, y):
        i, trips = 0, int(n.sum())
        while i < trips:
            y = y * 2 + i
            i += 1
            if y.sum() >= 100:
                break
        return y

    y0 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    for trips in (0, 1, 3, 40):
        yield (f"onnx Loop, trip count {trips} from data, exit on sum >= 100", src,
               [np.array([trips, 0], np.float32), y0], loop_ref, (1e-5, 1e-6))


def run_ptxas(opts):
    ptxas = find_ptxas()
    if not ptxas:
        print("SKIP ptxas: no CUDA ptxas found (CUDA_HOME, PATH, /usr/local/cuda*); "
              "the PTX was not assembled")
        return 0
    failed = ran = 0
    work = tempfile.mkdtemp(prefix="dlc-ptxas-")
    try:
        for name, src, _, _, _ in cases(opts):
            ran += 1
            try:
                text = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{format=isa})")
            except Exception as e:
                failed += 1
                print(f"FAIL {name}: compile: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
                continue
            binaries = ptx_of(text)
            if not binaries and "gpu.launch_func" not in text and "gpu.launch" not in text:
                print(f"ok   {name}: no kernel (the program only copies or reshapes buffers)")
                continue
            if not binaries:
                failed += 1
                print(f"FAIL {name}: no gpu.binary in the lowered module")
                continue
            bad = None
            report = []
            for bname, ptx in binaries:
                if opts.show_ptx_of and opts.show_ptx_of == name:
                    print(ptx)
                if re.search(r"\.extern\s+\.func.*__nv_", ptx):
                    bad = f"{bname}: unresolved libdevice function (.extern __nv_*)"
                    break
                ok, msg, kernels = assemble(ptxas, ptx, work)
                if not ok:
                    bad = f"{bname}: ptxas: {msg.splitlines()[-1] if msg else 'failed'}"
                    break
                report += [f"{bname}: {k} regs={r} smem={s}" + (f" spill={sp}" if sp else "")
                           for k, r, s, sp in kernels]
            if bad:
                failed += 1
                print(f"FAIL {name}: {bad}")
            else:
                print(f"ok   {name}: {len(binaries)} kernels; " + "; ".join(report))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{ran - failed} of {ran} cases passed ptxas")
    return 1 if failed or not ran else 0


def driver_missing():
    """The reason no CUDA driver can be used, or None."""
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1")
        return None
    except OSError as e:
        return str(e)


# From the schedule stage's program: the backends' bufferisation (the
# registered dlc-bufferize, passes/pipeline/stages.c) and launch stage
# (passes/lower_to_nvvm.c), with dlc-gpu-spread{emulate=true} running its
# launches as loops on the host, then the CPU's loop, vector and LLVM
# lowering (passes/lower_to_llvm.c's last stages). For programs whose only
# launches are leftover work.
BUFFERIZE = "dlc-bufferize,"
CPU_TAIL = ("scf-forall-to-parallel,"
            "canonicalize,lower-affine,convert-vector-to-scf{full-unroll=true target-rank=1},"
            "convert-scf-to-cf,func.func(math-expand-ops{ops=ctlz,sinh,cosh,tanh,asinh,acosh,"
            "atanh,tan,fma,ceil,exp2,round,roundeven,rsqrt},dlc-expand-exp),"
            "convert-math-to-funcs{convert-ctlz=false},"
            "convert-vector-to-llvm{vector-contract-lowering=outerproduct},convert-math-to-llvm,"
            "convert-math-to-libm,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
            "convert-to-llvm,reconcile-unrealized-casts)")
SPREAD_EMULATION = ("builtin.module(" + BUFFERIZE +
                    "dlc-copy-to-linalg,dlc-gpu-map,canonicalize,cse,"
                    "func.func(convert-linalg-to-loops),dlc-gpu-spread{emulate=true}," + CPU_TAIL)


def compile_with(src, pipeline):
    """dlc.compile with the given pipeline instead of the CPU's."""
    import dlc.module as _dlc_module
    orig = _dlc_module._Options

    def options(entry, _pipeline, *rest):
        return orig(entry, pipeline.encode(), *rest)
    _dlc_module._Options = options
    try:
        return dlc.compile(src)
    finally:
        _dlc_module._Options = orig


def expected(ref, inputs):
    """NumPy's answer (f32 inputs widened to f64): an array, or a tuple of
    them for a program with several results."""
    want = ref(*[i.astype(np.float64) if i.dtype == np.float32 else i for i in inputs])
    return tuple(np.asarray(v) for v in want) if isinstance(want, tuple) else np.asarray(want)


class _Done(Exception):
    """Carries a device run's (got, want, note) to the shared comparison."""


def run_emulate(opts):
    device = opts.mode == "device"
    if device and driver_missing():
        print(f"SKIP device: no CUDA driver ({driver_missing()}); nothing ran on a GPU")
        return 0
    failed = ran = 0
    for name, src, inputs, ref, tol in cases(opts):
        if inputs is None:
            continue
        ran += 1
        atol, rtol = tol
        try:
            if device:
                got = dlc.compile(src, target="cuda")(*inputs)
                want = expected(ref, inputs)
                raise _Done(got, want, "")
            tiled = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{stop-after=schedule})")
            # Without a block forall (data movement done by tensor ops, a
            # reduction to a scalar) dlc-gpu-map launches the bufferised
            # code on one thread; the CPU runs the same code here.
            note = "" if "#gpu.block" in tiled else " (no block forall: one-thread launch)"
            got = dlc.compile(tiled)(*inputs)
            want = expected(ref, inputs)
            if note:  # and the launch stage's spread of that work (dlc-gpu-spread)
                spread = compile_with(tiled, SPREAD_EMULATION)(*inputs)
                problem, _ = compare(np.asarray(spread), np.asarray(want), atol, rtol)
                if problem:
                    raise RuntimeError(f"dlc-gpu-spread's launches (emulated): {problem}")
                note = " (leftover work: dlc-gpu-spread's launches emulated too)"
        except _Done as d:
            got, want, note = d.args
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        if isinstance(got, (tuple, list)):  # several results, each compared
            problems = [(k, compare(np.asarray(g), np.asarray(v), atol, rtol)[0])
                        for k, (g, v) in enumerate(zip(got, want))]
            problems = [f"result {k}: {p}" for k, p in problems if p]
            print(f"FAIL {name}: {'; '.join(problems)}" if problems
                  else f"ok   {name}: {len(got)} results{note}")
            failed += bool(problems)
            continue
        failed += report(name, got, want, atol, rtol, note)
    print(f"{ran - failed} of {ran} cases passed {'on the GPU' if device else 'emulation'}")
    return 1 if failed or not ran else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ptxas", "emulate", "device"])
    ap.add_argument("-k", default="")
    ap.add_argument("--show-ptx-of", default=None)
    ap.add_argument("--models", dest="suite_models", action="store_true",
                    help="the models of test/E2E/Inputs/models.py instead of the op cases")
    ap.add_argument("--control", action="store_true",
                    help="the control-flow programs of test/E2E/Inputs/control.py")
    ap.add_argument("--leftover", action="store_true",
                    help="larger cases of work no block forall holds (dlc-gpu-spread)")
    ap.add_argument("models", nargs="*")
    opts = ap.parse_args()
    return run_ptxas(opts) if opts.mode == "ptxas" else run_emulate(opts)


if __name__ == "__main__":
    sys.exit(main())
