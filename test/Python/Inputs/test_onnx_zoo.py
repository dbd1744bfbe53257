"""Model-zoo networks from torchvision 0.14 (random weights after
torch.manual_seed(0), eval mode) exported by PyTorch at opset 9 and at
opset 17, imported by dlc.onnx, compiled, run and compared with PyTorch;
a YOLO-style detection head (conv + sigmoid + reshape/transpose/concat
+ nearest upsample) exported at opsets 9 (Upsample) and 13 (Resize), and
with torchvision's class-aware NMS after it (opsets 11 and 17); and an
LSTM language model (Embedding, 2-layer LSTM, Linear).

The two exports of a network import to the same dlg module where the
opsets only change how an op is spelt (Squeeze's axes as an input, Clip's
bounds as inputs, ...): then one compile checks both; where the modules
differ (SqueezeNet: opset 9 has no ceil_mode, PyTorch pads instead) both
are compiled and run.

Inputs are small (32-64 px, batch 2) to keep compile and run time inside
CI's budget: AlexNet and VGG at such sizes end in 1x1 feature maps, which
PyTorch cannot export through their 6x6/7x7 adaptive pools, so those two
are torchvision's feature stacks with a global pool and a narrower (512)
classifier of the same layer types. BatchNorm statistics are calibrated
on random batches first (see calibrate). Tolerance: max |dlc - torch| <=
1e-4 * max |torch| in float32 (reordered float sums through ~20-120
layers), and the two images of the batch must give outputs that differ by
more than 1e-2 of that scale (a network whose output ignores its input
would pass any comparison)."""

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tv = pytest.importorskip("torchvision")
onnx = pytest.importorskip("onnx")
import dlc  # noqa: E402
import dlc.onnx  # noqa: E402

nn = torch.nn
F = torch.nn.functional
OPSETS = (9, 17)


def export(model, x, opset):
    f = io.BytesIO()
    torch.onnx.export(model, (x,), f, opset_version=opset)
    return onnx.load_from_string(f.getvalue())


def calibrate(model, res):
    """BatchNorm running statistics from random batches. With torchvision's
    initialisation and unit running variance, activations shrink layer by
    layer (EfficientNet's logits come out ~1e-14, GoogLeNet's identical for
    any input), and any two outputs would compare equal."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # a plain average over the batches
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(8, 3, res, res))


def check(model, res, opsets=OPSETS, tol=1e-4):
    calibrate(model, res)
    model.eval()
    x = torch.randn(2, 3, res, res)
    with torch.no_grad():
        ref = model(x).numpy()
    scale = np.abs(ref).max()
    assert np.abs(ref[0] - ref[1]).max() > 1e-2 * scale, \
        "the reference output does not depend on the input"
    texts = {}
    for opset in opsets:
        texts.setdefault(dlc.onnx.import_model(export(model, x, opset)), []).append(opset)
    for text, ops in texts.items():
        out = dlc.Module(text, name=f"opset{ops}").run(x.numpy())[0]
        assert out.shape == ref.shape, ops
        err = np.abs(out - ref).max() / scale
        assert err <= tol, f"opsets {ops}: max error {err:.2e} of the output's scale"
    return len(texts)


def small_classifier(model, index, width=512, classes=10):
    """AlexNet/VGG at a small input: a global pool and narrower Linear layers."""
    model.avgpool = nn.AdaptiveAvgPool2d(1)
    linear = [i for i, m in enumerate(model.classifier) if isinstance(m, nn.Linear)]
    sizes = [index, width, width, classes]
    for k, i in enumerate(linear):
        model.classifier[i] = nn.Linear(sizes[k], sizes[k + 1])
    return model


def _seeded(make):
    def f():
        torch.manual_seed(0)
        return make()
    return f


# name -> (network, input size)
NETS = {
    "squeezenet1_0": (_seeded(lambda: tv.models.squeezenet1_0(num_classes=10)), 48),
    "squeezenet1_1": (_seeded(lambda: tv.models.squeezenet1_1(num_classes=10)), 48),
    "shufflenet_v2_x0_5": (_seeded(lambda: tv.models.shufflenet_v2_x0_5(num_classes=10)), 32),
    "mobilenet_v3_small": (_seeded(lambda: tv.models.mobilenet_v3_small(num_classes=10)), 32),
    "efficientnet_b0": (_seeded(lambda: tv.models.efficientnet_b0(num_classes=10)), 32),
    "googlenet": (_seeded(lambda: tv.models.googlenet(num_classes=10, aux_logits=False,
                                                      init_weights=True)), 32),
    "densenet121": (_seeded(lambda: tv.models.densenet121(num_classes=10)), 32),
    "alexnet": (_seeded(lambda: small_classifier(tv.models.alexnet(), 256)), 64),
    "vgg11_bn": (_seeded(lambda: small_classifier(tv.models.vgg11_bn(), 512)), 32),
}


@pytest.mark.parametrize("name", list(NETS))
def test_zoo(name):
    make, res = NETS[name]
    check(make(), res)


# --- a YOLO-style detection head ---------------------------------------------

def _cbs(i, o, k=3, s=1):
    return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.SiLU())


class _Detect(nn.Module):
    """YOLOv5's decode: sigmoid, then boxes from the grid and anchors."""

    def __init__(self, ch, anchors, classes, stride, hw):
        super().__init__()
        self.na, self.no, self.stride = len(anchors), classes + 5, stride
        self.conv = nn.Conv2d(ch, self.na * self.no, 1)
        yv, xv = torch.meshgrid(torch.arange(hw), torch.arange(hw), indexing="ij")
        self.register_buffer("grid", torch.stack((xv, yv), 2).view(1, 1, hw, hw, 2).float())
        self.register_buffer("anchor", torch.tensor(anchors).float().view(1, self.na, 1, 1, 2))

    def forward(self, x):
        b, _, h, w = x.shape
        p = self.conv(x).view(b, self.na, self.no, h, w).permute(0, 1, 3, 4, 2).sigmoid()
        xy = (p[..., :2] * 2 - 0.5 + self.grid) * self.stride
        wh = (p[..., 2:4] * 2) ** 2 * self.anchor
        return torch.cat((xy, wh, p[..., 4:]), -1).view(b, -1, self.no)


class TinyYolo(nn.Module):
    """Two detection scales; the coarse features upsampled (nearest, x2) and
    concatenated with the fine ones, as YOLOv3/v5's neck does."""

    def __init__(self, res=64, classes=3):
        super().__init__()
        self.s8 = nn.Sequential(_cbs(3, 8, 3, 2), _cbs(8, 16, 3, 2), _cbs(16, 16, 3, 2))
        self.s16 = nn.Sequential(nn.MaxPool2d(2, 2), _cbs(16, 32))
        self.lateral = _cbs(32, 16, 1)
        self.fuse = _cbs(32, 16)
        self.d16 = _Detect(32, [[10, 13], [16, 30]], classes, 16, res // 16)
        self.d8 = _Detect(16, [[4, 5], [8, 10]], classes, 8, res // 8)

    def forward(self, x):
        f8 = self.s8(x)
        f16 = self.s16(f8)
        up = F.interpolate(self.lateral(f16), scale_factor=2.0, mode="nearest")
        f8 = self.fuse(torch.cat((up, f8), 1))
        return torch.cat((self.d16(f16), self.d8(f8)), 1)


def test_yolo_head():
    torch.manual_seed(0)
    check(TinyYolo(), 64, opsets=(9, 13))


class YoloNms(nn.Module):
    """TinyYolo's detections through YOLOv5's post-processing, per image:
    corner boxes, score = objectness x best class score, class-aware NMS
    (torchvision.ops.batched_nms: the coordinate-offset trick, then
    torchvision.ops.nms, exported as NonMaxSuppression followed by Gather
    and Squeeze), and the kept boxes gathered by the kept indices."""

    IOU = 0.1  # keeps ~100 of 160 boxes: suppression decides most of the result

    def __init__(self):
        super().__init__()
        self.net = TinyYolo()

    def forward(self, x):
        p, outs = self.net(x), []
        for i in range(x.shape[0]):  # unrolled by the export: two NMS nodes
            q = p[i]
            xy, wh = q[:, :2], q[:, 2:4]
            boxes = torch.cat((xy - wh / 2, xy + wh / 2), 1)
            score, cls = (q[:, 5:] * q[:, 4:5]).max(1)
            keep = tv.ops.batched_nms(boxes, score, cls, self.IOU)
            outs += [keep, boxes[keep], boxes, score, cls]
        return tuple(outs)


def test_yolo_head_nms():
    """The detection head with Resize (opsets 11 and 17) and NonMaxSuppression
    on the boxes it computes (run time: dlg.non_max_suppression, its padded
    result sliced by dlc.Module). The kept indices must equal torchvision's
    exactly: on PyTorch's own boxes (end to end) and on dlc's boxes and
    scores (the NMS alone, free of the convolutions' rounding)."""
    torch.manual_seed(0)
    model = YoloNms()
    calibrate(model, 64)
    model.eval()
    x = torch.randn(2, 3, 64, 64)
    with torch.no_grad():
        ref = [r.numpy() for r in model(x)]
    for opset in (11, 17):
        onnx_model = export(model, x, opset)
        ops = {n.op_type for n in onnx_model.graph.node}
        assert {"NonMaxSuppression", "Resize"} <= ops, ops
        outs = dlc.compile(onnx_model)(x.numpy())
        assert len(outs) == len(ref)
        for i in range(0, len(ref), 5):  # per image
            keep, kept, boxes, score, cls = outs[i:i + 5]
            assert 0.4 * len(boxes) < len(ref[i]) < 0.9 * len(boxes), len(ref[i])
            assert keep.dtype == np.int64 and np.array_equal(keep, ref[i]), opset
            assert np.array_equal(kept, boxes[keep])
            scale = np.abs(ref[i + 2]).max()
            assert np.abs(boxes - ref[i + 2]).max() <= 1e-5 * scale
            mine = tv.ops.batched_nms(torch.from_numpy(boxes), torch.from_numpy(score),
                                      torch.from_numpy(cls), YoloNms.IOU).numpy()
            assert np.array_equal(keep, mine), opset


# --- an LSTM language model ----------------------------------------------------

class LstmLM(nn.Module):
    """Embedding -> 2-layer LSTM -> Linear over the vocabulary (word-level
    language model, as PyTorch's word_language_model example)."""

    def __init__(self, vocab=50, dim=16, hidden=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        y, _ = self.lstm(self.emb(tokens))
        return self.out(y)


def test_lstm_language_model():
    """Random weights, 2 sentences of 6 tokens; the ONNX LSTM nodes (one
    per layer) unrolled over the 6 steps (small: the unrolled module's
    compile is ~8 s of CPU); opsets 9 and 17 import to one module."""
    torch.manual_seed(0)
    model = LstmLM().eval()
    tokens = torch.randint(0, 50, (2, 6))
    with torch.no_grad():
        ref = model(tokens).numpy()
    scale = np.abs(ref).max()
    assert np.abs(ref[0] - ref[1]).max() > 1e-2 * scale
    texts = {}
    for opset in OPSETS:
        texts.setdefault(dlc.onnx.import_model(export(model, tokens, opset)), []).append(opset)
    for text, ops in texts.items():
        out = dlc.Module(text, name=f"lstm{ops}").run(tokens.numpy())[0]
        assert out.shape == ref.shape, ops
        err = np.abs(out - ref).max() / scale
        assert err <= 1e-4, f"opsets {ops}: max error {err:.2e} of the output's scale"
