"""ONNX zoo models of test/Python/Inputs/test_onnx_zoo.py on the GPU path,
without a GPU: the LSTM language model (ONNX LSTM nodes unrolled) and the
TinyYolo detection head (convs, Resize, concat) each compiled by
--lower-to-nvvm for sm_90 with every kernel assembled by ptxas, and the GPU
strategy's program (stop-after=schedule) run on the CPU against PyTorch;
the head with NonMaxSuppression after it is a named error (the NMS loops
run on the host)."""

import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Python", "Inputs"))
import torch  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx  # noqa: E402
import test_onnx_zoo as zoo  # noqa: E402
from gpu_check import assemble, find_ptxas, ptx_of  # noqa: E402


def ptxas_all(name, text, ptxas, work):
    isa = dlc.run_pipeline(text, "builtin.module(lower-to-nvvm{format=isa})")
    binaries = ptx_of(isa)
    bad = [b for b, ptx in binaries if "__nv_" in ptx and ".extern" in ptx]
    for b, ptx in binaries:
        ok, msg, _ = assemble(ptxas, ptx, work)
        if not ok:
            bad.append(f"{b}: {msg.splitlines()[-1] if msg else 'ptxas failed'}")
    print(f"{'FAIL' if bad or not binaries else 'ok  '} {name} ptxas: {len(binaries)} kernels"
          + (f"; {bad[0]}" if bad else ""))
    return not bad and binaries


def emulate(name, text, inputs, ref, tol):
    tiled = dlc.run_pipeline(text, "builtin.module(lower-to-nvvm{stop-after=schedule})")
    got = dlc.compile(tiled)(*inputs)
    err = np.abs(got - ref).max() / np.abs(ref).max()
    print(f"{'ok  ' if err <= tol else 'FAIL'} {name} emulation: max error {err:.1e} of the "
          f"output's scale")
    return err <= tol


def zoo_lstm():
    torch.manual_seed(0)
    return zoo.LstmLM().eval(), torch.randint(0, 50, (2, 6))


def zoo_yolo(cls):
    """A YOLO-style head with calibrated batch norms, and its input."""
    torch.manual_seed(0)
    model = cls()
    zoo.calibrate(model, 64)
    return model.eval(), torch.randn(2, 3, 64, 64)


def check(name, model, x, opset, ptxas, work):
    """Every kernel of the model's ONNX export assembles, and the GPU
    strategy's program run on the CPU matches PyTorch."""
    with torch.no_grad():
        ref = model(x).numpy()
    text = dlc.onnx.import_model(zoo.export(model, x, opset))
    assembled = bool(ptxas_all(name, text, ptxas, work))
    return emulate(name, text, [x.numpy()], ref, 1e-4) and assembled


def main():
    ptxas = find_ptxas()
    if not ptxas:
        print("SKIP: no CUDA ptxas found")
        return 0
    work = tempfile.mkdtemp(prefix="dlc-zoo-")
    ok = True
    try:
        lm, tokens = zoo_lstm()
        ok &= check("lstm language model", lm, tokens, 17, ptxas, work)
        yolo, x = zoo_yolo(zoo.TinyYolo)
        ok &= check("tiny yolo head", yolo, x, 13, ptxas, work)

        nms, x = zoo_yolo(zoo.YoloNms)
        text = dlc.onnx.import_model(zoo.export(nms, x, 17))
        try:
            dlc.run_pipeline(text, "builtin.module(lower-to-nvvm{format=isa})")
            print("FAIL yolo head + nms: compiled, but its NMS loops would read device memory")
            ok = False
        except Exception as e:
            lines = [l for l in str(e).splitlines() if "error" in l]
            print("yolo head + nms:", lines[0].split("error: ", 1)[-1] if lines else e)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
