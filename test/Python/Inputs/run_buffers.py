"""Module.run with the same buffers call after call: it keeps the last
call's arrays and reuses their data pointers (module.py); the values, the
checks and the results must be exactly those of fresh arrays."""
import numpy as np

import dlc

src = """func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.mul %x, %y : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""
m = dlc.compile(src, threads=1)
rng = np.random.default_rng(0)
x, y, z = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3))
o, o2 = np.empty_like(x), np.empty_like(x)

m.run(x, y, out=[o])
print("first", np.array_equal(o, x * y))
x[...] = 7.0  # same buffer, new values
m.run(x, y, out=[o])
print("values", np.array_equal(o, x * y))
m.run(z, y, out=[o2])  # other buffers
print("other", np.array_equal(o2, z * y), np.array_equal(o, x * y))
m.run(x, y, out=[o])  # back to the first ones
print("back", np.array_equal(o, x * y))
print("fresh", np.array_equal(m(x, y), x * y))
x.shape = (3, 2)  # same array object, another shape: still refused
try:
    m.run(x, y, out=[o])
    print("reshaped: ran")
except ValueError as e:
    print("reshaped:", e)
x.shape = (2, 3)
m.run(x, y, out=[o])
try:  # a kept array cannot be resized (moved) in place behind the pointer
    x.resize((100, 100))
    print("resize: allowed")
except ValueError:
    print("resize: refused")
print("after", np.array_equal(o, x * y))
m.run(x, y, out=[o])  # bound again: the fast path below re-checks in place changes
x.dtype = np.int32  # same buffer viewed as another dtype: refused
try:
    m.run(x, y, out=[o])
    print("retyped: ran")
except ValueError as e:
    print("retyped:", e)
x.dtype = np.float32
m.run(x, y, out=[o])
o.flags.writeable = False  # a read-only output: refused, not written
try:
    m.run(x, y, out=[o])
    print("read-only: ran")
except ValueError as e:
    print("read-only:", e)
o.flags.writeable = True
r = m.run(x, y, out=[o])
print("returns", type(r).__name__, len(r), r[0] is o, np.array_equal(o, x * y))
x[...] = -2.0
r = m.run(x, y, out=(o,))  # a tuple of outputs: the same buffers, a list back
print("tuple", type(r).__name__, r[0] is o, np.array_equal(o, x * y))
# An output that is an input, or overlaps one (here its second row), is
# refused, the second time (the fast path of the same arrays) as the first,
# never computed: a kernel writes its result while it still reads inputs (a
# GEMM tile's rows land before the next tile reads A). Buffers that only
# touch run.
big = np.zeros(12, np.float32)
inp, over, after = big[:6].reshape(2, 3), big[3:9].reshape(2, 3), big[6:].reshape(2, 3)
inp[...] = x
for name, a, out in (("aliased", x, x), ("overlapping", inp, over)):
    for attempt in (1, 2):
        try:
            m.run(a, y, out=[out])
            print(name, attempt, "ran")
        except ValueError as e:
            print(name, attempt, e)
m.run(inp, y, out=[after])
print("touching", np.array_equal(after, x * y))
