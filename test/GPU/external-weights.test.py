import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from fake_cuda import main_weight_test  # noqa: E402

src = main_weight_test(", ".join(f"{i * 0.5}" for i in range(2048)), 2048)
if src is None:
    sys.exit(0)

from dlc._capi import run_pipeline  # noqa: E402

host = run_pipeline(src, "builtin.module(lower-to-nvvm)")
print("host:", next(l.strip() for l in host.splitlines() if "@__constant_2048xf32" in l
                    and "llvm.mlir.global" in l)[:300])
print("weights attribute:", "dlc.weights = {" in host)
