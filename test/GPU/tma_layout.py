"""The wgmma TMA pipeline's shared-memory layout, checked without a GPU.

For each tile shape the wgmma path can take (N = 64 .. 256, BK = 64, 32,
16), the kernel dlc-gpu-mma emits (`--lower-to-nvvm{stop-after=launch}`)
is read: the tensor maps' box and swizzle (nvgpu.tma.create.descriptor),
the shared buffers (memref.global) and the boxes the TMA loads write
(memref.subview [stage, group, 0, 0]), and each wgmma's two matrix
descriptors, evaluated from the IR's own arithmetic for every k tile
(the buffers placed at 1024-aligned addresses). Two address functions
are modelled from their definitions:

  TMA box write (CUDA programming guide, "Tensor Memory Access",
  swizzle modes): row r, byte c of the box at r * span + c, then the
  16-byte chunk bits [4, 4 + log2(span / 16)) of the address XOR-ed with
  bits [7, ...): 128B: bits 4-6 ^= 7-9, 64B: 4-5 ^= 7-8, 32B: 4 ^= 7.
  wgmma descriptor read (PTX ISA, "Shared Memory Matrix Layout",
  canonical layouts, and "Matrix Descriptor Format"): start (bits 0-13,
  << 4), LBO (16-29), SBO (32-45), layout type (62-63: 1 128B, 2 64B,
  3 32B, 0 none); 16-bit K-major A (m, k):
  start + (m % 8) * span + (m / 8) * SBO + 2 k, swizzled;
  16-bit MN-major B (k, n): start + 2 (n % (span / 2)) +
  (n / (span / 2)) * LBO + (k % 8) * span + (k / 8) * SBO, swizzled.

Every (m, k) / (k, n) element of every wgmma of every k tile must be the
element the TMA loads wrote at that address. Then the same check with a
deliberately wrong SBO, LBO, descriptor swizzle or tensor-map swizzle
must FAIL, so the check can fail.

Usage: tma_layout.py DLC_OPT
"""
import re
import subprocess
import sys

DLC_OPT = sys.argv[1]

# (N, K, stages): BK follows from dlcGpuWgmmaTmaKTile (shared memory),
# printed from the IR, not assumed.
CASES = [(64, 256, 2), (128, 256, 2), (64, 256, 3), (192, 128, 2), (256, 256, 2),
         (128, 48, 2), (64, 1024, 2), (64, 64, 3)]

KERNEL = """
func.func @g(%a: tensor<256x{K}x{t}>, %b: tensor<{K}x{N2}x{t}>) -> tensor<256x{N2}x{t}> {{
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<workgroup = [64, {N}, 0], thread = [64, {N}, 0], stages = {S}, mma = [64, {N}, 16]> (%a, %b) : (tensor<256x{K}x{t}>, tensor<{K}x{N2}x{t}>) -> tensor<256x{N2}x{t}> {{
  ^bb0(%x: tensor<256x{K}x{t}>, %y: tensor<{K}x{N2}x{t}>):
    %m = dlg.matmul %x, %y : tensor<256x{K}x{t}>, tensor<{K}x{N2}x{t}> -> tensor<256x{N2}x{t}>
    dlk.yield %m : tensor<256x{N2}x{t}>
  }}
  return %0 : tensor<256x{N2}x{t}>
}}
"""

LINE = re.compile(r"^\s*(%[\w-]+)(?::\d+)? = ([\w.]+)(.*)$")


def emit(n, k, s, t="f16"):
    src = KERNEL.format(N=n, N2=2 * n, K=k, S=s, t=t)
    r = subprocess.run([DLC_OPT, "--lower-to-nvvm=chip=sm_90a stop-after=launch"], input=src,
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"dlc-opt failed for N={n} K={k} stages={s}: {r.stderr}")
    return r.stdout


def swz(addr, span):
    """The swizzle of `span` bytes on a shared address."""
    if span == 0:
        return addr
    bits = {128: 3, 64: 2, 32: 1}[span]
    return addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)


SPAN = {1: 128, 2: 64, 3: 32, 0: 0}


class Kernel:
    """What the emitted launch says: maps, buffers, boxes, descriptors."""

    def __init__(self, text):
        self.defs = {}
        self.globals = {}  # name -> (shape, alignment)
        for m in re.finditer(r'memref.global "private" @(__dlc_smem_\d+) : memref<([\dx]+)x(?:f16|bf16), '
                             r'#gpu.address_space<workgroup>> \{alignment = (\d+)', text):
            self.globals[m.group(1)] = ([int(v) for v in m.group(2).split("x")], int(m.group(3)))
        self.maps = re.findall(r"nvgpu.tma.create.descriptor %\w+ box\[(%\w+), (%\w+)\] : "
                               r"memref<\*x\w+> -> <tensor = memref<(\d+)x(\d+)x\w+, [^>]*>>, "
                               r"swizzle = swizzle_(\d+)b", text)
        self.loads = re.findall(r"nvgpu.tma.async.load .* to (%\w+) : <tensor = memref<(\d+)x(\d+)", text)
        # in text order, so a name the printer reuses in another region
        # resolves to the definition before the use
        self.wgmmas, self.loads, self.kt = [], [], None
        for line in text.splitlines():
            f = re.match(r"\s*%\w+ = scf.for (%\w+) = ", line)
            if f and "llvm.struct" in line:
                self.kt = f.group(1)
            m = LINE.match(line)
            if m:
                self.defs[m.group(1)] = (m.group(2), m.group(3))
                if m.group(2) == "nvvm.wgmma.mma_async":
                    ops = re.findall(r"%[\w-]+", m.group(3))
                    self.wgmmas.append((ops[0], ops[1], dict(self.defs)))
            t = re.search(r"nvgpu.tma.async.load .* to (%\w+) : <tensor = memref<(\d+)x(\d+)", line)
            if t and self.kt:  # the steady state: the loads in the k loop
                self.loads.append((self.box(t.group(1)), int(t.group(2)), int(t.group(3))))

    def box(self, v):
        """(buffer, column group) of the box a TMA load writes."""
        op, rest = self.defs[v]
        if op == "memref.cast":
            return self.box(re.match(r" (%\w+)", rest).group(1))
        assert op == "memref.subview", (v, op)
        m = re.match(r" (%\w+)\[([^\]]*)\]", rest)
        idx = [x.strip() for x in m.group(2).split(",")]
        return self.buffer_of(m.group(1)), int(idx[1]) if len(idx) == 4 else 0

    def buffer_of(self, v):
        op, rest = self.defs[v]
        assert op == "memref.get_global", (v, op)
        return re.search(r"@(\w+)", rest).group(1)

    def value(self, v, env, defs):
        if v in env:
            return env[v]
        op, rest = defs[v]
        ops = re.findall(r"%[\w-]+", rest)
        if op == "arith.constant":
            return int(re.match(r" (-?\d+)", rest).group(1))
        if op == "memref.extract_aligned_pointer_as_index":
            return env["@" + re.search(r"@(\w+)", defs[ops[0]][1]).group(1)]
        if op in ("arith.index_cast", "arith.index_castui"):
            return self.value(ops[0], env, defs)
        x, y = (self.value(o, env, defs) for o in ops[:2])
        fn = {"arith.addi": lambda: x + y, "arith.muli": lambda: x * y, "arith.andi": lambda: x & y,
              "arith.ori": lambda: x | y, "arith.shrui": lambda: (x % (1 << 64)) >> y,
              "arith.remui": lambda: x % y, "arith.divui": lambda: x // y}[op]
        return fn() % (1 << 64)


def check(n, k, s, mutate=None):
    """Mismatches between what wgmma reads and what TMA wrote (0 = paired)."""
    kern = Kernel(emit(n, k, s))
    assert len(kern.maps) == 2, "two tensor maps (A, B)"
    # A's map: 64 x BK box; B's: BK x 64
    (ar, ac, asw), (br, bc, bsw) = [(int(m[2]), int(m[3]), int(m[4])) for m in kern.maps]
    if ar != 64:
        (ar, ac, asw), (br, bc, bsw) = (br, bc, bsw), (ar, ac, asw)
    bk = ac
    assert (ar, bc, br) == (64, 64, bk), kern.maps
    if mutate == "tma-swizzle":
        asw, bsw = asw // 2, bsw // 2
    # buffers at 1024-aligned addresses (as the alignment attribute asks)
    env, base = {}, 5 * 1024
    for name, (shape, align) in sorted(kern.globals.items()):
        assert align % 1024 == 0 or align >= 1024, (name, align)
        env["@" + name] = base
        size = 2
        for d in shape:
            size *= d
        base += (size + 1023) // 1024 * 1024 + 3 * 1024
    buf_a = [g for g, (sh, _) in kern.globals.items() if len(sh) == 3][0]
    buf_b = [g for g, (sh, _) in kern.globals.items() if len(sh) == 4][0]
    nk = k // bk
    # TMA writes: tile kt into stage kt % S; box g of B holds columns 64 g..
    mem = {}
    bad = 0
    for kt in range(nk):
        st = kt % s
        for (buf, group), rows, cols in kern.loads:
            shape = kern.globals[buf][0]
            if buf == buf_a:
                box = env["@" + buf] + st * 64 * bk * 2
                for r in range(rows):
                    for c in range(cols):
                        mem[swz(box + r * asw + 2 * c, asw)] = ("A", r, kt * bk + c)
            else:
                box = env["@" + buf] + (st * shape[1] + group) * bk * 64 * 2
                for r in range(rows):
                    for c in range(cols):
                        mem[swz(box + r * bsw + 2 * c, bsw)] = ("B", kt * bk + r, 64 * group + c)
        # what each wgmma of tile kt reads
        env[kern.kt] = kt
        for ks, (da, db, defs) in enumerate(kern.wgmmas):
            for which, d in (("A", kern.value(da, env, defs)), ("B", kern.value(db, env, defs))):
                start = (d & 0x3FFF) << 4
                lbo, sbo = ((d >> 16) & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4
                span = SPAN[d >> 62]
                if mutate == f"sbo-{which}":
                    sbo *= 2
                if mutate == f"lbo-{which}":
                    lbo *= 2
                if mutate == f"swizzle-{which}":
                    span = {128: 64, 64: 32, 32: 128}[span]
                if which == "A":
                    for m in range(64):
                        for kk in range(16):
                            a = start + (m % 8) * span + (m // 8) * sbo + 2 * kk
                            bad += mem.get(swz(a, span)) != ("A", m, kt * bk + 16 * ks + kk)
                else:
                    half = span // 2
                    for kk in range(16):
                        for nn in range(n):
                            a = (start + 2 * (nn % half) + (nn // half) * lbo + (kk % 8) * span +
                                 (kk // 8) * sbo)
                            bad += mem.get(swz(a, span)) != ("B", kt * bk + 16 * ks + kk, nn)
    return bk, bad


def main():
    fails = 0
    for n, k, s in CASES:
        bk, bad = check(n, k, s)
        print(f"N={n} K={k} stages={s}: BK={bk}, {bad} mismatches")
        fails += bad != 0
    # the check can fail: each mutation breaks the pairing somewhere
    for mutate, case in [("sbo-A", (128, 256, 2)), ("sbo-B", (128, 256, 2)), ("lbo-B", (128, 256, 2)),
                         ("swizzle-A", (64, 256, 2)), ("swizzle-B", (128, 256, 2)),
                         ("tma-swizzle", (64, 256, 2)), ("sbo-A", (128, 48, 2))]:
        bk, bad = check(*case, mutate=mutate)
        print(f"mutated {mutate} N={case[0]} K={case[1]}: {'FAILS as it must' if bad else 'PASSES: the check is blind'}"
              f" ({bad} mismatches)")
        fails += bad == 0
    print("OK" if not fails else f"{fails} FAILED")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
