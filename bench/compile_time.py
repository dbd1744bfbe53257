"""Compile time per model, split by stage: seconds from model to callable.

  import  ONNX -> dlg module (dlc.onnx.import_model with bytecode=True, as
          dlc.compile does; not PyTorch's export; 0 for models written in
          dlg), CPU time
  mlir    CPU time of the MLIR pipeline (--lower-to-llvm) with parsing:
          `dlc-opt --mlir-timing` on one thread on the same text, its CPU
          time less the output's share (--passes N prints its N slowest
          passes, scaled to CPU seconds)
  llvm    the rest of dlc.Module(): LLVM IR translation, optimisation and
          machine code (cpu - mlir)
  cpu     CPU time of dlc.Module(text), in process, all threads: steadier
          than wall time on a loaded machine
  wall    its wall time: the LLVM half runs on every core (DLC_COMPILE_THREADS
          forces a number; capi/lib/jit_engine.c)

--compare-threads R compiles each model R more times, alternating one
compile thread (DLC_COMPILE_THREADS=1) with all cores, and prints both
best wall times and their ratio: on a shared machine only a ratio taken
in turn like this means anything.

Models: BERT-base encoder layer and 12 layers (b=1, s=128, weights as
arguments, bench/run.py's sources), ResNet-50 and MobileNetV2 (torchvision,
b=1, 224x224, opset 13, as bench/run.py --models), and model-zoo networks at
test_onnx_zoo.py's sizes and opset 9: VGG-19 (its feature stack with a
global pool and a 512-wide classifier, 32 px), DenseNet-121 (32 px),
SqueezeNet 1.0 (48 px). Each is compiled once; the machine is shared, so
figures move by +-20% between runs: compare before/after in the same run.

--zoo adds every network of test/Python/Inputs/test_onnx_zoo.py (NETS) at
its input size, batch 2, opset 9, as zoo-<name>: issue 13 asks each to
compile in under 10 s.

Run: DLC_LIB=build/lib/libdlc.so PYTHONPATH=python /usr/bin/python3 bench/compile_time.py
     [--only bert-layer,resnet50] [--zoo] [--passes 5] [--compare-threads 3]
     [--opt-bin build/bin/dlc-opt]
"""

import argparse
import io
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "E2E", "Inputs"))

import dlc  # noqa: E402


def _bert(layers):
    def make():
        import models as m
        if layers == 1:
            return m.bert_source()
        return m.bert_stack_source(layers)
    return make


def _onnx(ctor, res, opset, batch=1):
    def make():
        import onnx
        import torch
        import dlc.onnx
        torch.manual_seed(0)
        net = ctor().eval()
        f = io.BytesIO()
        torch.onnx.export(net, (torch.randn(batch, 3, res, res),), f, opset_version=opset)
        model = onnx.load_from_string(f.getvalue())
        t0 = time.process_time()  # dlc's import only, not PyTorch's export
        source = dlc.onnx.import_model(model, bytecode=True)
        IMPORT_SECONDS[0] = time.process_time() - t0
        return source
    return make


IMPORT_SECONDS = [0.0]  # CPU time of the last _onnx model's dlc.onnx.import_model


def _tv(name, **kw):
    def ctor():
        import torchvision
        return getattr(torchvision.models, name)(**kw)
    return ctor


def _small_vgg19():
    # test_onnx_zoo.small_classifier: at 32 px the features end in 1x1.
    import torch.nn as nn
    import torchvision
    net = torchvision.models.vgg19()
    net.avgpool = nn.AdaptiveAvgPool2d(1)
    lin = [i for i, mod in enumerate(net.classifier) if isinstance(mod, nn.Linear)]
    for k, (i, o) in enumerate(zip([512, 512, 512], [512, 512, 10])):
        net.classifier[lin[k]] = nn.Linear(i, o)
    return net


MODELS = {
    "bert-layer": _bert(1),
    "bert-12": _bert(12),
    "resnet50": _onnx(_tv("resnet50"), 224, 13),
    "mobilenet_v2": _onnx(_tv("mobilenet_v2"), 224, 13),
    "vgg19": _onnx(_small_vgg19, 32, 9, batch=2),
    "densenet121": _onnx(_tv("densenet121", num_classes=10), 32, 9, batch=2),
    "squeezenet1_0": _onnx(_tv("squeezenet1_0", num_classes=10), 48, 9, batch=2),
}


def zoo_models():
    """test_onnx_zoo.py's networks, as _onnx makes them (batch 2, opset 9)."""
    sys.path.insert(0, os.path.join(HERE, "..", "test", "Python", "Inputs"))
    import test_onnx_zoo as zoo
    return {f"zoo-{name}": _onnx(make, res, 9, batch=2) for name, (make, res) in zoo.NETS.items()}


def mlir_timing(opt, text):
    """(CPU seconds of parsing + passes, [(seconds, pass), ...]) from
    `dlc-opt --mlir-timing` on one thread: its process CPU time, less the
    printing's share of the wall-clock report (the printed output is not
    part of a compile)."""
    binary = isinstance(text, bytes)  # MLIR bytecode: dlc-opt reads it as text
    with tempfile.NamedTemporaryFile("wb" if binary else "w", suffix=".mlirbc" if binary else ".mlir",
                                     delete=False) as f:
        f.write(text)
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # --verify-each=false: the in-process compile verifies once, at the end
        r = subprocess.run([opt, "--lower-to-llvm", "--mlir-timing", "--mlir-disable-threading",
                            "--verify-each=false", "-o", os.devnull, f.name],
                           capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(f.name)
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rows = []
    for line in r.stderr.splitlines():
        m = re.match(r"\s*([\d.]+) \(\s*[\d.]+%\)  (.*\S)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    total = next((s for s, n in rows if n == "Total"), 0.0)
    output = sum(s for s, n in rows if n == "Output")
    share = (total - output) / total if total else 1.0
    return cpu * share, [(s * cpu / total if total else s, n) for s, n in rows]


def top_passes(rows, n):
    """The `n` slowest leaf passes (indented names in the tree display)."""
    leaves = [(s, name) for s, name in rows if name not in ("Total", "Output", "Rest")]
    return sorted(leaves, reverse=True)[:n]


def compare_threads(text, name, rounds):
    """Best wall seconds of dlc.Module(text) with DLC_COMPILE_THREADS=1 and
    unset (all cores), `rounds` of each taken in turn."""
    best = {"1": float("inf"), None: float("inf")}
    saved = os.environ.pop("DLC_COMPILE_THREADS", None)
    try:
        for _ in range(rounds):
            for threads in best:
                if threads:
                    os.environ["DLC_COMPILE_THREADS"] = threads
                t0 = time.perf_counter()
                dlc.Module(text, name=name)
                best[threads] = min(best[threads], time.perf_counter() - t0)
                os.environ.pop("DLC_COMPILE_THREADS", None)
    finally:
        if saved is not None:
            os.environ["DLC_COMPILE_THREADS"] = saved
    return best["1"], best[None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated model names: " + ", ".join(MODELS))
    ap.add_argument("--zoo", action="store_true",
                    help="add test_onnx_zoo.py's networks (zoo-<name>)")
    ap.add_argument("--passes", type=int, default=0, help="print the N slowest passes")
    ap.add_argument("--compare-threads", type=int, default=0, metavar="R",
                    help="R rounds of 1 compile thread vs all cores, in turn")
    ap.add_argument("--opt-bin", default=os.path.join(HERE, "..", "build", "bin", "dlc-opt"))
    opts = ap.parse_args()
    if opts.zoo:
        MODELS.update(zoo_models())
    names = opts.only.split(",") if opts.only else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    print(f"# {'model':<14} {'import':>7} {'mlir':>7} {'llvm':>7} {'cpu':>7} {'wall':>7}   (seconds)")
    for name in names:
        IMPORT_SECONDS[0] = 0.0
        text = MODELS[name]()
        t_import = IMPORT_SECONDS[0]
        t_mlir, rows = mlir_timing(opts.opt_bin, text)
        t0, c0 = time.perf_counter(), time.process_time()
        dlc.Module(text, name=name)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"  {name:<14} {t_import:7.2f} {t_mlir:7.2f} {max(0.0, cpu - t_mlir):7.2f} "
              f"{cpu:7.2f} {total:7.2f}", flush=True)
        for s, p in top_passes(rows, opts.passes):
            print(f"      {s:7.3f}  {p.strip()}")
        if opts.compare_threads > 0:
            one, many = compare_threads(text, name, opts.compare_threads)
            print(f"      wall, best of {opts.compare_threads} in turn: 1 compile thread "
                  f"{one:.2f} s, {os.cpu_count()} threads {many:.2f} s: {one / many:.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
