"""Tensor-core (mma.sync) contractions, checked without a GPU (docs/gpu.md,
"Contractions"). For each case:

  emulate  the GPU strategy's tiled program (--lower-to-nvvm{stop-after=
           schedule}: block foralls, one warp forall per 16x8-multiple warp
           tile, the epilogue fused) compiled for the CPU and compared with
           NumPy (float64 on the same inputs). f16 / bf16 cases use their
           type's tolerance: atol 4 * sqrt(K) * ulp * rms(want), rtol one
           ulp (2^-10, 2^-7; the CPU program accumulates in f16 / bf16, the
           GPU in f32, which is closer).
  ptxas    the PTX of --lower-to-nvvm{format=isa} holds the expected
           `mma.sync.aligned.<shape>` and no FFMA loop, and ptxas -arch=sm_90a
           accepts it; registers and shared memory per kernel are printed.

Without ptxas the ptxas half prints SKIP and no "passed" line.
Usage: mma_check.py [-k SUBSTRING]
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np

import dlc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpu_check import assemble, find_ptxas, ptx_of  # noqa: E402

RNG = np.random.default_rng(7)


def mm(m, k, n, t, epilogue="", batch=None):
    """A matmul source (optionally batched) with an epilogue, its inputs and reference."""
    b = f"{batch}x" if batch else ""
    A, B, C = f"tensor<{b}{m}x{k}x{t}>", f"tensor<{b}{k}x{n}x{t}>", f"tensor<{b}{m}x{n}x{t}>"
    args = [f"%x: {A}", f"%w: {B}"]
    dt = {"f16": np.float16, "f32": np.float32}[t]
    shape = (batch,) if batch else ()
    inputs = [RNG.uniform(-1, 1, shape + (m, k)).astype(dt), RNG.uniform(-1, 1, shape + (k, n)).astype(dt)]
    op = "dlg.matmul"
    body = [f"%0 = {op} %x, %w : {A}, {B} -> {C}"]
    last = "%0"
    if "bias" in epilogue:
        args.append(f"%b: tensor<{n}x{t}>")
        inputs.append(RNG.uniform(-1, 1, (n,)).astype(dt))
        body.append(f"%1 = dlg.add {last}, %b : {C}, tensor<{n}x{t}> -> {C}")
        last = "%1"
    if "residual" in epilogue:
        args.append(f"%r: {C}")
        inputs.append(RNG.uniform(-1, 1, shape + (m, n)).astype(dt))
        body.append(f"%2 = dlg.add {last}, %r : {C}, {C} -> {C}")
        last = "%2"
    if "relu" in epilogue:
        body.append(f"%3 = dlg.relu {last} : {C}")
        last = "%3"
    src = (f"func.func @main({', '.join(args)}) -> {C} {{\n  " + "\n  ".join(body) +
           f"\n  return {last} : {C}\n}}\n")

    def ref(x, w, *rest):
        r = np.matmul(x.astype(np.float64), w.astype(np.float64))
        rest = list(rest)
        if "bias" in epilogue:
            r = r + rest.pop(0).astype(np.float64)
        if "residual" in epilogue:
            r = r + rest.pop(0).astype(np.float64)
        if "relu" in epilogue:
            r = np.maximum(r, 0)
        return r
    return src, inputs, ref, k


def to_bf16(x):
    """f32 -> the nearest bf16 (ties to even), as f32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def mm_bf16(m, k, n):
    """bf16 operands (NumPy has no bf16: f32 inputs cast in the model), result cast to f32."""
    src = f"""func.func @main(%x: tensor<{m}x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %a = dlg.cast %x : tensor<{m}x{k}xf32> -> tensor<{m}x{k}xbf16>
  %b = dlg.cast %w : tensor<{k}x{n}xf32> -> tensor<{k}x{n}xbf16>
  %0 = dlg.matmul %a, %b : tensor<{m}x{k}xbf16>, tensor<{k}x{n}xbf16> -> tensor<{m}x{n}xbf16>
  %1 = dlg.cast %0 : tensor<{m}x{n}xbf16> -> tensor<{m}x{n}xf32>
  return %1 : tensor<{m}x{n}xf32>
}}
"""
    inputs = [RNG.uniform(-1, 1, (m, k)).astype(np.float32),
              RNG.uniform(-1, 1, (k, n)).astype(np.float32)]

    def ref(x, w):
        return np.matmul(to_bf16(x).astype(np.float64), to_bf16(w).astype(np.float64))
    return src, inputs, ref, k


# name, (source, inputs, reference, K), lower-to-nvvm options, the mma PTX instruction
# (a bare shape is mma.sync.aligned.<shape>)
CASES = [
    ("f16 matmul 64x64x64", mm(64, 64, 64, "f16"), "", "m16n8k16.row.col.f32.f16.f16.f32"),
    ("f16 matmul+bias+relu 128x256x512", mm(128, 256, 512, "f16", "bias relu"), "",
     "m16n8k16.row.col.f32.f16.f16.f32"),
    ("f16 matmul+bias+residual 256x128x256", mm(256, 128, 256, "f16", "bias residual"), "",
     "m16n8k16.row.col.f32.f16.f16.f32"),
    ("f16 batch_matmul 4x64x32x96", mm(64, 32, 96, "f16", "", batch=4), "",
     "m16n8k16.row.col.f32.f16.f16.f32"),
    ("f16 matmul 16x16x8 (one mma tile)", mm(16, 16, 8, "f16"), "",
     "m16n8k16.row.col.f32.f16.f16.f32"),
    ("bf16 matmul (f32 casts around it) 64x128x64", mm_bf16(64, 128, 64), "",
     "m16n8k16.row.col.f32.bf16.bf16.f32"),
    ("f32 matmul+bias allow-tf32 128x64x256", mm(128, 64, 256, "f32", "bias"), "allow-tf32=true",
     "m16n8k8.row.col.f32.tf32.tf32.f32"),
    # sm_90a: large f16 / bf16 GEMMs take wgmma.mma_async (one warpgroup a 64 x N
    # block tile, operands in shared memory); sm_90 keeps mma.sync on the same GEMM
    ("f16 matmul+bias+relu sm_90a wgmma 512x256x1024", mm(512, 256, 1024, "f16", "bias relu"),
     "chip=sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
    ("f16 matmul sm_90a wgmma n128 1024x128x2048", mm(1024, 128, 2048, "f16"), "chip=sm_90a",
     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"),
    ("f16 batch_matmul+residual sm_90a wgmma 16x128x96x256", mm(128, 96, 256, "f16", "residual", batch=16),
     "chip=sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
    ("bf16 matmul sm_90a wgmma 512x64x1024", mm_bf16(512, 64, 1024), "chip=sm_90a",
     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"),
    ("f16 matmul+bias+relu sm_90 (not 90a) keeps mma.sync 512x256x1024",
     mm(512, 256, 1024, "f16", "bias relu"), "chip=sm_90", "m16n8k16.row.col.f32.f16.f16.f32"),
]


def tolerance(name, k, want):
    """f16 / bf16: 4 sqrt(K) ulps of the result's rms (the CPU program
    accumulates in the narrow type), rtol one ulp; f32: the e2e GEMM's."""
    rms = float(np.sqrt(np.mean(want ** 2))) or 1.0
    if name.startswith("f16"):
        return 4 * np.sqrt(k) * 2.0 ** -10 * rms, 2.0 ** -10
    if name.startswith("bf16"):
        return 4 * np.sqrt(k) * 2.0 ** -7 * rms, 2.0 ** -7
    return 1e-4 * np.sqrt(k), 1e-5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    opts = ap.parse_args()
    ptxas = find_ptxas()
    ok_emu = ok_ptx = ran = 0
    work = tempfile.mkdtemp(prefix="dlc-mma-")
    for name, (src, inputs, ref, k), options, shape in CASES:
        if opts.k not in name:
            continue
        ran += 1
        tiled = dlc.run_pipeline(src, f"builtin.module(lower-to-nvvm{{stop-after=schedule {options}}})")
        sched = re.search(r"mma = \[[0-9, ]+\]", tiled)
        got = np.asarray(dlc.compile(tiled)(*inputs)).astype(np.float64)
        want = ref(*inputs)
        atol, rtol = tolerance(name, k, want)
        err = np.abs(got - want) - (atol + rtol * np.abs(want))
        if got.shape == want.shape and np.all(err <= 0) and "#gpu.warp" in tiled and sched:
            ok_emu += 1
            print(f"ok   emulate {name}: {sched.group(0)}, max |err| "
                  f"{float(np.max(np.abs(got - want))):.3g} (atol {atol:.3g})")
        else:
            print(f"FAIL emulate {name}: schedule {sched.group(0) if sched else 'without mma'}, "
                  f"max excess {float(np.max(err)) if got.shape == want.shape else 'shape'}")
        if not ptxas:
            continue
        text = dlc.run_pipeline(src, f"builtin.module(lower-to-nvvm{{format=isa {options}}})")
        binaries = [p for _, p in ptx_of(text)]
        ptx = "\n".join(binaries)
        instr = shape if shape.startswith("wgmma") else "mma.sync.aligned." + shape
        n = len(re.findall(re.escape(instr), ptx))
        # wgmma kernels hold no mma.sync, mma.sync kernels no wgmma
        other = "mma.sync.aligned" if instr.startswith("wgmma") else "wgmma.mma_async"
        n = n if other not in ptx else 0
        good, msg, kernels = bool(binaries), "", []
        for one in binaries:  # each gpu.binary is a PTX module of its own
            g1, m1, k1 = assemble(ptxas, one, work)
            good, msg, kernels = good and g1, msg or (m1 if not g1 else ""), kernels + k1
        if good and n > 0 and "fma.rn.f32" not in ptx:
            ok_ptx += 1
            print(f"ok   ptxas {name}: {n} {instr}; " +
                  "; ".join(f"{kn} regs={r} smem={s}" + (f" spill={sp}" if sp else "")
                            for kn, r, s, sp in kernels))
        else:
            print(f"FAIL ptxas {name}: {n} {instr}, "
                  f"{'ffma left' if 'fma.rn.f32' in ptx else ''} {msg.splitlines()[-1] if not good and msg else ''}")
    print(f"{ok_emu} of {ran} cases passed emulation")
    if ptxas:
        print(f"{ok_ptx} of {ran} cases passed ptxas")
    else:
        print("SKIP ptxas: no CUDA ptxas found; the PTX was not assembled")
    return 0 if ok_emu == ran and (not ptxas or ok_ptx == ran) and ran else 1


if __name__ == "__main__":
    sys.exit(main())
