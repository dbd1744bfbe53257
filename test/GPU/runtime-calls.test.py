import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from fake_cuda import main_weight_test  # noqa: E402

main_weight_test(", ".join(f"{i * 0.5}" for i in range(256)), 256)
