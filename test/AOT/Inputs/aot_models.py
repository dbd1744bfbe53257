"""Ahead-of-time libraries end to end: dlc-compile writes NAME.h, NAME.o and
libNAME.so; examples/aot/aot_run.c is built against the object and against
the shared library, runs on .npy inputs and writes .npy outputs, which are
compared with NumPy (the MLP and BERT layer of test/E2E/Inputs/models.py, same
tolerances) or PyTorch (ResNet-18 from torchvision via ONNX, random weights,
atol 2e-4 + rtol 1e-3 as test/Python/Inputs/test_onnx.py). For each library: `ldd`
shows only libc/libm (and libomp when threads > 1), and the object has no
writable data (.data/.bss). The MLP also runs 2 threads x 200 calls checked
bit for bit against one call.

    aot_models.py WORKDIR CC mlp|bert|resnet18 ...
"""

import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # test/AOT/Inputs -> the source root
sys.path.insert(0, os.path.join(SRC, "test", "E2E", "Inputs"))


def sh(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        raise SystemExit(f"FAIL: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def check_library(d, name, threads):
    # ldd honours LD_PRELOAD (the ASan runtime in the sanitized suite): the
    # library's own dependencies are what is asked.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    libs = sh("ldd", os.path.join(d, f"lib{name}.so"), env=env)
    allowed = ("linux-vdso", "libc.so", "libm.so", "ld-linux") + (("libomp",) if threads > 1 else ())
    for line in libs.splitlines():
        lib = os.path.basename(line.strip().split()[0]) if line.strip() else ""
        if lib and not lib.startswith(allowed):
            raise SystemExit(f"FAIL: lib{name}.so depends on {lib}:\n{libs}")
    if threads > 1 and "libomp" not in libs:
        raise SystemExit(f"FAIL: lib{name}.so with {threads} threads does not link libomp")
    sections = sh("readelf", "-S", "-W", os.path.join(d, f"{name}.o"))
    for line in sections.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1] in (".data", ".bss") and int(parts[5], 16) != 0:
            raise SystemExit(f"FAIL: {name}.o has writable data: {line.strip()}")
    return [os.path.basename(l.strip().split()[0]) for l in libs.splitlines() if l.strip()]


def run_model(work, cc, name, model, args, ref, atol, rtol, threads=1, calls=0):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    out = sh("dlc-compile", model, "-o", d, "--name", name, "--threads", str(threads))
    plan = out.splitlines()[-1]
    deps = check_library(d, name, threads)
    ins = []
    for i, a in enumerate(args):
        ins.append(os.path.join(d, f"in{i}.npy"))
        np.save(ins[-1], a)
    want = ref(*args)
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{d}",
             f"-DMODEL={name}", f"-DMODEL_UP={name.upper()}", f'-DMODEL_HEADER="{name}.h"',
             os.path.join(SRC, "examples", "aot", "aot_run.c")]
    omp = ["-l:libomp.so.5"] if threads > 1 else []
    builds = {"o": [os.path.join(d, f"{name}.o"), "-lm", "-lpthread"] + omp,
              "so": [f"-L{d}", f"-l{name}", f"-Wl,-rpath,{d}", "-lpthread"]}
    for kind, link in builds.items():
        exe = os.path.join(d, f"run_{kind}")
        sh(cc, *flags, *link, "-o", exe)
        outp = os.path.join(d, f"out_{kind}.npy")
        extra = ["--threads", "2", "--calls", str(calls)] if calls else []
        res = sh(exe, *ins, "-o", outp, *extra)
        got = np.load(outp)
        err = np.abs(got.astype(np.float64) - want)
        bound = atol + rtol * np.abs(want)
        status = "ok  " if got.shape == want.shape and (err <= bound).all() else "FAIL"
        print(f"{status} {name} .{kind}: max err {err.max():.2e} {res.strip()}".rstrip())
    print(f"     {name}: {plan}; needs {', '.join(deps)}")


def mlp(work, cc):
    import models
    src, args, ref, (atol, rtol) = models.mlp(32)
    path = os.path.join(work, "mlp_src.mlir")
    with open(path, "w") as f:
        f.write(src)
    run_model(work, cc, "mlp", path, args, ref, atol, rtol, calls=200)


def bert(work, cc):
    import models
    path = os.path.join(work, "bert_src.mlir")
    with open(path, "w") as f:
        f.write(models.bert_source())
    args = models.bert_args()
    run_model(work, cc, "bert", path, args, models.bert_ref, 1e-4, 0, threads=2)


def resnet18(work, cc):
    import torch
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 64, 64)
    path = os.path.join(work, "resnet18.onnx")
    torch.onnx.export(m, (x,), path, opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.EVAL)

    def ref(a):
        with torch.no_grad():
            return m(torch.from_numpy(a)).numpy().astype(np.float64)
    run_model(work, cc, "resnet18", path, [x.numpy()], ref, 2e-4, 1e-3)


if __name__ == "__main__":
    work, cc = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    for which in sys.argv[3:]:
        globals()[which](work, cc)
