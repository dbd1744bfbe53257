"""Writes hostile .npy files into the directory given: headers that claim
huge or overflowing shapes, trailing bytes, truncated data, bad headers."""
import os
import struct
import sys

import numpy as np

out = sys.argv[1]


def npy(name, header, data=b"", version=1):
    """A .npy with a literal header dict (padded as numpy does) and raw data."""
    h = header.encode("latin1")
    pre = 10 if version == 1 else 12
    h += b" " * ((64 - (pre + len(h) + 1) % 64) % 64) + b"\n"
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]) + size + h + data)


def dict_(descr, shape):
    return "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)


np.save(os.path.join(out, "good.npy"), np.arange(4 * 784, dtype=np.float32).reshape(4, 784))
# 2^40 elements, no data: was an unchecked malloc and fread into NULL.
npy("huge.npy", dict_("<f4", "(1048576, 1048576)"))
# 2^62 x 4 bytes: the byte count overflows int64.
npy("overflow.npy", dict_("<f4", "(4611686018427387904,)"))
# 2^64 elements: the element count itself wraps to 0.
npy("wrap.npy", dict_("<f4", "(4294967296, 4294967296)"))
# A dim past INT64_MAX (strtoll saturates).
npy("bigdim.npy", dict_("<f4", "(99999999999999999999999,)"))
# One byte after the data.
good = np.arange(4 * 784, dtype=np.float32).tobytes()
npy("trailing.npy", dict_("<f4", "(4, 784)"), good + b"\0")
# One byte short.
npy("short.npy", dict_("<f4", "(4, 784)"), good[:-1])
# Format v2 with a header length beyond the 1 MiB limit.
with open(os.path.join(out, "bighdr.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30))
# Header dict missing 'shape', an unknown dtype, 17 dims, negative dim.
npy("noshape.npy", "{'descr': '<f4', 'fortran_order': False, }")
npy("dtype.npy", dict_("<c8", "(4,)"), b"\0" * 32)
npy("rank.npy", dict_("<f4", "(" + "1, " * 17 + ")"), b"\0" * 4)
npy("negdim.npy", dict_("<f4", "(-4,)"))
