"""Digest of the lowered IR of every e2e op case and model, for checking that
a restructuring changes no output (issue 12): run it before and after, and
compare the two files.

  ir_digest.py BUILD_DIR OUT.txt [--jobs N]

Each line is `md5  pipeline  case`. The pipelines are the CPU pipeline for
each fixed target (avx2, avx512; `host` is one of those on any machine), the
GPU pipeline's PTX, and the graph-level stop (dlg-fuse) so that a difference
can be traced to a stage.
"""

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "E2E", "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

PIPELINES = {
    "fuse": ["--dlg-fuse"],
    "dlk-to-linalg": ["--dlg-fuse", "--dlk-to-linalg"],
    "llvm-avx2": ["--lower-to-llvm=target=avx2"],
    "llvm-avx512": ["--lower-to-llvm=target=avx512"],
    "nvvm-isa": ["--lower-to-nvvm=format=isa"],
}


def sources():
    import ops_numerics
    import models
    for name, src, *_ in ops_numerics.CASES:
        yield "op " + name, src
    for name, make in models.MODELS.items():
        yield "model " + name, make()[0]
    # bench/run.py's models: its GEMM sizes, the elementwise chain, RMSNorm,
    # BERT-base with 12 layers, and ResNet-50 / MobileNetV2 through the ONNX
    # importer (torchvision's, exported at opset 13 as the bench does).
    sys.path.insert(0, os.path.join(HERE, "..", "bench"))
    import run as bench
    for m, k, n in [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
                    (2048, 2048, 2048), (128, 768, 3072)]:
        yield f"bench gemm {m}x{k}x{n}", bench.gemm_source(m, k, n)
    yield "bench bert-base 12 layers", models.bert_stack_source(12)
    if os.environ.get("DLC_DIGEST_ONNX", "1") == "1":
        yield from onnx_models()


def onnx_models():
    import torch
    import torchvision
    import dlc.onnx
    for name, ctor in [("resnet50", torchvision.models.resnet50),
                       ("mobilenet_v2", torchvision.models.mobilenet_v2)]:
        torch.manual_seed(0)
        net = ctor().eval()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, name + ".onnx")
            torch.onnx.export(net, torch.randn(1, 3, 224, 224), path, opset_version=13)
            yield "bench onnx " + name, dlc.onnx.import_graph(path).mlir()


def digest(opt, tmp, pipe, name, src):
    path = os.path.join(tmp, hashlib.md5(name.encode()).hexdigest() + ".mlir")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(src)
    r = subprocess.run([opt, *PIPELINES[pipe], path], capture_output=True)
    # The GPU binary's properties carry how long ptx generation took: the
    # one part of the output that is not a function of the input.
    out = re.sub(rb"LLVMIRToISATimeInMs = \d+", b"LLVMIRToISATimeInMs = _", r.stdout)
    h = hashlib.md5(out + b"\0" + str(r.returncode).encode()).hexdigest()
    return f"{h}  {pipe}  {name}"


def main():
    build, out = sys.argv[1], sys.argv[2]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--jobs" else 2
    opt = os.path.join(build, "bin", "dlc-opt")
    srcs = list(sources())
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in srcs:
            with open(os.path.join(tmp, hashlib.md5(name.encode()).hexdigest() + ".mlir"), "w") as f:
                f.write(src)
        with ThreadPoolExecutor(jobs) as ex:
            lines = list(ex.map(lambda a: digest(opt, tmp, *a),
                                [(p, n, s) for p in PIPELINES for n, s in srcs]))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} digests ({len(srcs)} cases x {len(PIPELINES)} pipelines) -> {out}")


if __name__ == "__main__":
    main()
