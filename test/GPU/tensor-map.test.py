import ctypes
import sys

from dlc import _capi

lib = ctypes.CDLL(_capi.library_path())
enc = lib.mgpuTensorMapEncodeTiledMemref
enc.restype = ctypes.c_void_p
enc.argtypes = [ctypes.c_int64, ctypes.c_void_p] + [ctypes.c_int64] * 5 + [ctypes.c_void_p]
take = lib.dlcCudaTakeError
take.restype = ctypes.c_bool
take.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def memref(rank, data, offset, sizes, strides):
    """A ranked memref descriptor: allocated, aligned, offset, sizes, strides."""
    class Desc(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return Desc(data, data, offset, (ctypes.c_int64 * rank)(*sizes),
                (ctypes.c_int64 * rank)(*strides))


def error():
    msg = ctypes.create_string_buffer(512)
    return msg.value.decode() if take(msg, 512) else "none"


def call(rank, desc, dtype, box, swizzle=3, l2=3, oob=0):
    boxes = (ctypes.c_int64 * len(box))(*box)
    p = enc(rank, ctypes.byref(desc), dtype, 0, swizzle, l2, oob, boxes)
    if not p:
        print("error:", error(), flush=True)
    return p


data = (ctypes.c_uint16 * (2 * 256 * 512 + 8))()
base = ctypes.addressof(data)
d = memref(3, base, 8, [2, 256, 512], [256 * 512, 512, 1])
p = call(3, d, 6, [1, 64, 64])
print(f"address is data + 8 elements: {hex(base + 16)}")
if p:
    got = ctypes.string_at(p, 128)  # the fake's device memory is host memory
    print(f"device map: {len(got)} bytes copied, all 0x5a: {set(got) == {0x5a}}; error: {error()}")
t = memref(2, base, 0, [512, 256], [1, 512])  # a transposed view
call(2, t, 7, [64, 64])
call(2, memref(2, base, 0, [256, 512], [512, 1]), 6, [64, 300])
call(6, memref(6, base, 0, [1] * 6, [1] * 6), 6, [1] * 6)
call(2, memref(2, base, 0, [256, 512], [512, 1]), 13, [64, 64])
call(2, memref(2, base, 0, [256, 512], [512, 1]), 6, [64, 128])
