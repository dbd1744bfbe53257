"""dlc.compile(target=...) compiles the JIT's code for that ISA (the
module's dlc.target, set by lower-to-llvm): target avx2 is AVX2 code, with
no 512-bit register, even on an AVX-512 machine; avx512 uses them; host is
this CPU. A target this CPU cannot run is refused with a message naming the
missing feature. Each line states what held on this machine; the expected
line is the same on any x86-64 machine."""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

import dlc

SRC = """func.func @main(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>) -> tensor<64x64xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x96xf32>, tensor<96x64xf32> -> tensor<64x64xf32>
  %1 = dlg.relu %0 : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}"""

with open("/proc/cpuinfo") as f:
    FLAGS = set(next(l.split(":", 1)[1].split() for l in f if l.startswith("flags")))
NEEDS = {"avx2": ["avx2", "fma", "bmi2"],
         "avx512": ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"],
         "host": []}
rng = np.random.default_rng(0)
a = rng.standard_normal((64, 96)).astype(np.float32)
b = rng.standard_normal((96, 64)).astype(np.float32)
want = np.maximum(a.astype(np.float64) @ b, 0)
failed = False
for target in ("avx2", "avx512", "host"):
    missing = [f for f in NEEDS[target] if f not in FLAGS]
    with tempfile.TemporaryDirectory() as d:
        os.environ["DLC_JIT_DUMP_OBJECTS"] = d
        try:
            y = dlc.compile(SRC, threads=1, target=target)(a, b)
        except dlc.CompileError as e:
            ok = bool(missing) and f"target {target}: this CPU has no {missing[0]}" in str(e)
            reason = str(e).splitlines()[-1]
            print(f"{target}: {'ok' if ok else 'FAIL'} (refused: {reason[:60]}...)")
            failed |= not ok
            continue
        finally:
            del os.environ["DLC_JIT_DUMP_OBJECTS"]
        asm = "".join(subprocess.run(["llvm-objdump", "-d", o], capture_output=True, text=True,
                                     check=True).stdout for o in glob.glob(d + "/*.o"))
    zmm = "zmm" in asm
    expect_zmm = {"avx2": False, "avx512": True, "host": "avx512f" in FLAGS}[target]
    close = np.abs(y - want).max() < 1e-3
    ok = not missing and close and zmm == expect_zmm and "ret" in asm
    print(f"{target}: {'ok' if ok else 'FAIL'} (ran, 512-bit registers {zmm}, matches {close})")
    failed |= not ok
sys.exit(1 if failed else 0)
