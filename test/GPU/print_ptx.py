"""Prints Module.ir(STAGE) of a model file (default "ptx"): the PTX of every
kernel of --lower-to-nvvm, which needs no GPU or driver."""
import sys

import dlc

stage = sys.argv[2] if len(sys.argv) > 2 else "ptx"
print(dlc.compile(sys.argv[1]).ir(stage))
