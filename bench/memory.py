"""Memory plan figures: the workspace arena's peak (--dlc-memory-plan,
greedy by size over lifetimes) against the naive sum of one buffer per
temporary, and the weights, for the BERT-base encoder layer (seq 128,
test/E2E/Inputs/models.py) and torchvision's ResNet-50 and MobileNetV2 (random
weights, 1x3x224x224, exported via ONNX). Run:

    /usr/bin/python3 bench/memory.py [bert] [resnet50] [mobilenet_v2]
"""

import io
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "E2E", "Inputs"))
import dlc  # noqa: E402


def bert():
    import models
    return dlc.compile(models.bert_source())


def torchvision_model(name):
    import onnx
    import torch
    import torchvision
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)().eval()
    f = io.BytesIO()
    torch.onnx.export(m, (torch.randn(1, 3, 224, 224),), f, opset_version=13)
    return dlc.compile(onnx.load_from_string(f.getvalue()))


def main(names):
    for name in names or ["bert", "resnet50", "mobilenet_v2"]:
        t0 = time.time()
        mod = bert() if name == "bert" else torchvision_model(name)
        p = mod.memory()
        print(f"{name}: peak_bytes={p['peak_bytes']} naive_bytes={p['naive_bytes']} "
              f"peak/naive={p['peak_bytes'] / max(1, p['naive_bytes']):.3f} "
              f"weights_bytes={p['weights_bytes']} temporaries={p['temporaries']} "
              f"unplanned={p['unplanned']} (compiled in {time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
