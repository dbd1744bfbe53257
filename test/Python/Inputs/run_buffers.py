"""Module.run and AotModule.run (dlc.load of the saved library) with the
same buffers call after call: both keep the last call's arrays and reuse
their data pointers (module.py); the values, the checks and the results
must be exactly those of fresh arrays."""
import tempfile

import numpy as np

import dlc

src = """func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.mul %x, %y : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""


def scenarios(m, tag):
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3))
    o, o2 = np.empty_like(x), np.empty_like(x)

    m.run(x, y, out=[o])
    print(tag + "first", np.array_equal(o, x * y))
    x[...] = 7.0  # same buffer, new values
    m.run(x, y, out=[o])
    print(tag + "values", np.array_equal(o, x * y))
    m.run(z, y, out=[o2])  # other buffers
    print(tag + "other", np.array_equal(o2, z * y), np.array_equal(o, x * y))
    m.run(x, y, out=[o])  # back to the first ones
    print(tag + "back", np.array_equal(o, x * y))
    print(tag + "fresh", np.array_equal(m(x, y), x * y))
    # new results each call on kept inputs (their pointers stay bound): the
    # same inputs, changed in place, other inputs, and back
    r1 = m(x, y)
    x[...] = 5.0
    r2, r3, r4 = m(x, y), m(z, y), m(x, y)
    print(tag + "fresh kept", np.array_equal(r1, 7.0 * y), np.array_equal(r2, x * y),
          np.array_equal(r3, z * y), np.array_equal(r4, x * y), r2 is not r4)
    m.run(z, y, out=[o2])  # a run on other buffers, then new results again
    print(tag + "fresh after out", np.array_equal(m(x, y), x * y), np.array_equal(o2, z * y))
    x[...] = 7.0
    x.shape = (3, 2)  # same array object, another shape: still refused
    try:
        m.run(x, y, out=[o])
        print(tag + "reshaped: ran")
    except ValueError as e:
        print(tag + "reshaped:", e)
    x.shape = (2, 3)
    m.run(x, y, out=[o])
    try:  # a kept array cannot be resized (moved) in place behind the pointer
        x.resize((100, 100))
        print(tag + "resize: allowed")
    except ValueError:
        print(tag + "resize: refused")
    print(tag + "after", np.array_equal(o, x * y))
    m.run(x, y, out=[o])  # bound again: the fast path below re-checks in place changes
    x.dtype = np.int32  # same buffer viewed as another dtype: refused
    try:
        m.run(x, y, out=[o])
        print(tag + "retyped: ran")
    except ValueError as e:
        print(tag + "retyped:", e)
    x.dtype = np.float32
    m.run(x, y, out=[o])
    o.flags.writeable = False  # a read-only output: refused, not written
    try:
        m.run(x, y, out=[o])
        print(tag + "read-only: ran")
    except ValueError as e:
        print(tag + "read-only:", e)
    o.flags.writeable = True
    r = m.run(x, y, out=[o])
    print(tag + "returns", type(r).__name__, len(r), r[0] is o, np.array_equal(o, x * y))
    x[...] = -2.0
    r = m.run(x, y, out=(o,))  # a tuple of outputs: the same buffers, a list back
    print(tag + "tuple", type(r).__name__, r[0] is o, np.array_equal(o, x * y))
    for attempt in (1, 2):  # an iterator of outputs, read once, on both paths
        x[...] = 3.0 + attempt
        r = m.run(x, y, out=iter([o]))
        print(tag + "iterator", attempt, r[0] is o, np.array_equal(o, x * y))
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
                print(tag + name, attempt, "ran")
            except ValueError as e:
                print(tag + name, attempt, e)
    m.run(inp, y, out=[after])
    print(tag + "touching", np.array_equal(after, x * y))


m = dlc.compile(src, threads=1)
scenarios(m, "")
with tempfile.TemporaryDirectory() as d:
    m.save(d, "buffers", threads=1)
    scenarios(dlc.load(d), "aot ")
