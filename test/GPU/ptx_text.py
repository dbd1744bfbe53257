"""Prints the PTX of every gpu.binary of a module lowered with
--lower-to-nvvm{format=isa} read from stdin (for FileCheck of PTX built
with pipeline options print_ptx.py's default compile does not take, such
as chip=sm_90a)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_check import ptx_of  # noqa: E402

binaries = ptx_of(sys.stdin.read())
if not binaries:
    sys.exit("ptx_text.py: no gpu.binary with PTX in the input")
for name, ptx in binaries:
    print(f"// gpu.binary @{name}\n{ptx}")
