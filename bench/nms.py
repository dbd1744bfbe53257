"""NonMaxSuppression: dlc's run-time dlg.non_max_suppression against
torchvision.ops.nms (its C++ CPU kernel), one class, no limit on the kept
boxes, IoU threshold 0.5, 1 thread; each printed with the ratio
(torchvision time / dlc time; > 1 means dlc is faster).

The boxes are YOLO-like: centres uniform over a 640 x 640 image, sides
8..128 pixels, scores uniform in [0, 1), so a large share of the boxes is
kept and the greedy pass dominates. Both sides get the same boxes
(torchvision's as [x1, y1, x2, y2], dlc's as ONNX corners [y1, x1, y2, x2])
and their kept indices are compared before timing. Times are the best of
--reps runs taken in turn (bench/run.py's best_of): the machine is shared.

Run: DLC_LIB=build/lib/libdlc.so PYTHONPATH=python /usr/bin/python3 bench/nms.py [--sizes 1000,8400] [--reps 10]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dlc  # noqa: E402
from run import best_of  # noqa: E402


def boxes_and_scores(n, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.random((n, 2), dtype=np.float32) * 640
    half = (8 + rng.random((n, 2), dtype=np.float32) * 120) / 2
    xyxy = np.concatenate([c - half, c + half], 1).astype(np.float32)
    return xyxy, rng.random(n, dtype=np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,8400")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--iou", type=float, default=0.5)
    opts = ap.parse_args()
    import torch
    import torchvision
    torch.set_num_threads(1)
    for n in [int(s) for s in opts.sizes.split(",")]:
        xyxy, scores = boxes_and_scores(n)
        g = dlc.Graph("nms")
        sel, cnt = g.non_max_suppression(g.input((1, n, 4)), g.input((1, 1, n)),
                                         max_output_boxes_per_class=n, iou_threshold=opts.iou)
        g.output(sel, cnt, counts={0: 1})
        mod = dlc.Module(g.mlir(), threads=1)
        onnx_boxes = np.ascontiguousarray(xyxy[None][:, :, [1, 0, 3, 2]])
        onnx_scores = np.ascontiguousarray(scores[None, None])
        tb, ts = torch.from_numpy(xyxy), torch.from_numpy(scores)
        ours = mod(onnx_boxes, onnx_scores)[:, 2]
        ref = torchvision.ops.nms(tb, ts, opts.iou).numpy()
        if not np.array_equal(ours, ref):
            sys.exit(f"nms {n}: dlc keeps {len(ours)} boxes, torchvision {len(ref)}: they differ")
        t_dlc, t_tv = best_of([lambda: mod(onnx_boxes, onnx_scores),
                               lambda: torchvision.ops.nms(tb, ts, opts.iou)], opts.reps)
        print(f"nms {n} boxes, 1 class, {len(ref)} kept: dlc {t_dlc * 1e3:.2f} ms, "
              f"torchvision {t_tv * 1e3:.2f} ms, ratio {t_tv / t_dlc:.2f}x", flush=True)


if __name__ == "__main__":
    main()
