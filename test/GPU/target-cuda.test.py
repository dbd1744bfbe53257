import sys

import dlc

try:
    dlc.compile(sys.argv[1], target="cuda")
    print("compiled")
except dlc.CompileError as e:
    print("CompileError:", e.diagnostics.strip().splitlines()[0] if e.diagnostics else e)
m = dlc.compile(sys.argv[1])
print("ptx entries:", m.ir("ptx").count(".visible .entry"))
print("nvvm:", "nvvm.read.ptx.sreg" in m.ir("nvvm"))
