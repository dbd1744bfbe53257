"""A run-time ONNX Loop with a scan output: dlc's dlg.while (the scan buffer
carried and written a row a trip, dlg.update_row) against the same loop in
NumPy (a Python loop appending rows, then np.stack), M trips of rows of S
floats, 1 thread; each printed with the ratio (NumPy time / dlc time; > 1
means dlc is faster). The exit depends on the data (a row sum compared with
a bound never reached), so dlc cannot unroll the loop; the outputs are
compared before timing. Times are the best of --reps runs taken in turn
(bench/run.py's best_of): the machine is shared.

A trip used to rewrite the whole M-row buffer (a select of row i), O(M * S)
a trip; to compare with an older build, run this script with its DLC_LIB and
PYTHONPATH.

Run: DLC_LIB=build/lib/libdlc.so PYTHONPATH=python /usr/bin/python3 bench/loop_scan.py [--sizes 200x256,2000x256] [--reps 10]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dlc  # noqa: E402
from run import best_of  # noqa: E402


def loop_model(m, s):
    from onnx import TensorProto, helper, numpy_helper
    F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Add", ["y_in", "one"], ["y_out"]),
         helper.make_node("ReduceSum", ["y_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "big"], ["c_out"]),
         helper.make_node("Identity", ["y_out"], ["scan"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("y_in", F, [s])],
        [vi("c_out", B, []), vi("y_out", F, [s]), vi("scan", F, [s])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "y"], ["y_f", "ys"], body=body)], "g",
        [vi("y", F, [s])], [vi("y_f", F, None), vi("ys", F, None)],
        [numpy_helper.from_array(np.array(m, np.int64), "M"),
         numpy_helper.from_array(np.array(1, np.float32), "one"),
         numpy_helper.from_array(np.array(1e30, np.float32), "big")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def numpy_loop(y, m):
    rows = []
    one, big = np.float32(1), np.float32(1e30)
    for _ in range(m):
        y = y + one
        rows.append(y)
        if not y.sum() < big:
            break
    return y, np.stack(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200x256,2000x256", help="MxS pairs, comma-separated")
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    for size in args.sizes.split(","):
        m, s = (int(v) for v in size.split("x"))
        mod = dlc.compile(loop_model(m, s), threads=1)
        y0 = np.zeros(s, np.float32)
        got, want = mod(y0), numpy_loop(y0, m)
        assert all(np.array_equal(a, b) for a, b in zip(got, want)), "outputs differ"
        t_dlc, t_np = best_of([lambda: mod(y0), lambda: numpy_loop(y0, m)], args.reps)
        print(f"Loop M={m} S={s}: dlc {t_dlc * 1e3:.3f} ms, NumPy {t_np * 1e3:.3f} ms, "
              f"ratio {t_np / t_dlc:.2f}")


if __name__ == "__main__":
    main()
