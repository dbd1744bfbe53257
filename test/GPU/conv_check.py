"""conv2d as an implicit GEMM on the GPU (docs/gpu.md, "Convolutions as
implicit GEMM"), checked without a GPU. For each case:

  emulate  the schedule stage (--lower-to-nvvm{stop-after=schedule}: the
           conv tiled into [1, O tile, Ho rows, Wo] blocks, the epilogue
           fused, the implicit-GEMM schedule recorded on the kernel)
           compiled for the CPU and compared with NumPy (float64 on the
           same inputs; f16 / bf16 with their type's tolerance, the CPU
           program accumulating in the narrow type).
  rewrite  the rewrite after bufferisation itself, on the CPU:
           dlc-gpu-conv{emulate=true} emits the same tiles, gather, masks,
           lane layout and epilogue with the block's threads as loops
           between the barriers and FFMA for every type (ldmatrix and
           mma.sync have no CPU lowering), compiled for the CPU and compared
           with NumPy (f16 / bf16: accumulated in f32 there, so the f32
           tolerance scaled by the type's rounding of inputs and output).
  ptxas    the PTX of --lower-to-nvvm{format=isa}: the conv kernel stages
           its tiles in shared memory (st.shared / ld.shared or ldmatrix,
           bar.sync) and computes with mma.sync m16n8k16 (f16 / bf16) or
           fma.rn.f32 (f32, exact: no mma), and ptxas -arch=sm_90a accepts
           every module; registers and shared memory per kernel printed.

What none checks: the ldmatrix / mma.sync fragments (the GEMMs' code) and
the barriers' placement are not executed anywhere; no GPU ran any of it.
Usage: conv_check.py [-k SUBSTRING]
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
from gpu_check import (BUFFERIZE, CPU_TAIL, assemble, compile_with,  # noqa: E402
                       find_ptxas, ptx_of)
from mma_check import to_bf16  # noqa: E402

RNG = np.random.default_rng(11)


def conv_ref(x, w, stride, pad, dil):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    ho = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    for r in range(kh):
        for q in range(kw):
            patch = xp[:, :, r * dil[0]: r * dil[0] + stride[0] * (ho - 1) + 1: stride[0],
                       q * dil[1]: q * dil[1] + stride[1] * (wo - 1) + 1: stride[1]]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, r, q])
    return out


def conv(xs, ws, t="f32", stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), epilogue=""):
    """A conv2d source with an epilogue (bias, bn, residual, relu), its inputs and reference."""
    n, c, h, wd = xs
    o, _, kh, kw = ws
    ho = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    narrow = t in ("f16", "bf16")
    io = "f16" if t == "f16" else "f32"  # bf16 cases take f32 inputs, cast in the model
    dt = np.float16 if t == "f16" else np.float32
    X, W = f"tensor<{n}x{c}x{h}x{wd}x{io}>", f"tensor<{o}x{c}x{kh}x{kw}x{io}>"
    Y = f"tensor<{n}x{o}x{ho}x{wo}x{io}>"
    x = RNG.uniform(-1, 1, xs).astype(dt)
    w = (RNG.uniform(-1, 1, ws) / np.sqrt(c * kh * kw)).astype(dt)
    args, inputs, body = [f"%x: {X}", f"%w: {W}"], [x, w], []
    xv, wv = "%x", "%w"
    if t == "bf16":
        Xb, Wb = X.replace("xf32>", "xbf16>"), W.replace("xf32>", "xbf16>")
        body += [f"%xb = dlg.cast %x : {X} -> {Xb}", f"%wb = dlg.cast %w : {W} -> {Wb}"]
        xv, wv, X, W = "%xb", "%wb", Xb, Wb
        Y = Y.replace("xf32>", "xbf16>")
    et = "bf16" if t == "bf16" else io
    C1 = f"tensor<{o}x{et}>"
    attrs = [f"strides = array<i64: {stride[0]}, {stride[1]}>"]
    if any(pad):
        attrs.append(f"padding = array<i64: {', '.join(map(str, pad))}>")
    if dil != (1, 1):
        attrs.append(f"dilations = array<i64: {dil[0]}, {dil[1]}>")
    if "bias" in epilogue:
        args.append(f"%b: tensor<{o}x{io}>")
        inputs.append(RNG.uniform(-1, 1, (o,)).astype(dt))
        bv = "%b"
        if t == "bf16":
            body.append(f"%bb = dlg.cast %b : tensor<{o}xf32> -> {C1}")
            bv = "%bb"
        body.append(f"%0 = dlg.conv2d {xv}, {wv}, {bv} {{{', '.join(attrs)}}} : ({X}, {W}, {C1}) -> {Y}")
    else:
        body.append(f"%0 = dlg.conv2d {xv}, {wv} {{{', '.join(attrs)}}} : ({X}, {W}) -> {Y}")
    last = "%0"
    if "bn" in epilogue:
        for nm in ("s", "sh", "m", "v"):
            args.append(f"%{nm}: tensor<{o}x{io}>")
        inputs += [RNG.uniform(0.5, 1.5, (o,)).astype(dt), RNG.uniform(-1, 1, (o,)).astype(dt),
                   RNG.uniform(-0.2, 0.2, (o,)).astype(dt), RNG.uniform(0.5, 2, (o,)).astype(dt)]
        body.append(f"%1 = dlg.batch_norm {last}, %s, %sh, %m, %v {{epsilon = 1.0e-5}} : "
                    f"({Y}, tensor<{o}x{io}>, tensor<{o}x{io}>, tensor<{o}x{io}>, tensor<{o}x{io}>) -> {Y}")
        last = "%1"
    if "residual" in epilogue:
        args.append(f"%r: {Y}")
        inputs.append(RNG.uniform(-1, 1, (n, o, ho, wo)).astype(dt))
        body.append(f"%2 = dlg.add {last}, %r : {Y}, {Y} -> {Y}")
        last = "%2"
    if "relu" in epilogue:
        body.append(f"%3 = dlg.relu {last} : {Y}")
        last = "%3"
    ret = Y
    if t == "bf16":
        ret = Y.replace("xbf16>", "xf32>")
        body.append(f"%4 = dlg.cast {last} : {Y} -> {ret}")
        last = "%4"
    src = (f"func.func @main({', '.join(args)}) -> {ret} {{\n  " + "\n  ".join(body) +
           f"\n  return {last} : {ret}\n}}\n")

    def ref(*ins):
        ins = [to_bf16(a).astype(np.float64) if t == "bf16" else a.astype(np.float64) for a in ins]
        r = conv_ref(ins[0], ins[1], stride, pad, dil)
        rest = ins[2:]
        if "bias" in epilogue:
            r = r + rest.pop(0)[None, :, None, None]
        if "bn" in epilogue:
            s, sh, m, v = (a[None, :, None, None] for a in rest[:4])
            rest = rest[4:]
            r = (r - m) / np.sqrt(v + 1e-5) * s + sh
        if "residual" in epilogue:
            r = r + rest.pop(0)
        if "relu" in epilogue:
            r = np.maximum(r, 0)
        return r
    return src, inputs, ref, c * kh * kw, narrow


# name, case, the kernel's arithmetic in the PTX
CASES = [
    ("f32 3x3 pad 1 +bias+relu 1x16x14x14 -> 32", conv((1, 16, 14, 14), (32, 16, 3, 3), pad=(1, 1, 1, 1),
                                                      epilogue="bias relu"), "ffma"),
    ("f32 3x3 stride 2 pad 1 +bias+residual+relu 2x16x14x14 -> 32x7x7",
     conv((2, 16, 14, 14), (32, 16, 3, 3), stride=(2, 2), pad=(1, 1, 1, 1),
          epilogue="bias residual relu"), "ffma"),
    ("f32 1x1 1x64x7x7 -> 128", conv((1, 64, 7, 7), (128, 64, 1, 1)), "ffma"),
    ("f32 1x1 stride 2 +bn+relu 2x32x14x14 -> 64", conv((2, 32, 14, 14), (64, 32, 1, 1), stride=(2, 2),
                                                      epilogue="bn relu"), "ffma"),
    ("f32 7x7 stride 2 pad 3 (K = 147) 1x3x32x32 -> 16", conv((1, 3, 32, 32), (16, 3, 7, 7), stride=(2, 2),
                                                              pad=(3, 3, 3, 3), epilogue="bias"), "ffma"),
    ("f32 3x3 dilation 2 pad 2 1x8x16x16 -> 16", conv((1, 8, 16, 16), (16, 8, 3, 3), pad=(2, 2, 2, 2),
                                                      dil=(2, 2)), "ffma"),
    ("f32 3x3 pad 1 +bias+bn+residual+relu 1x64x56x56 -> 64 (ResNet block conv)",
     conv((1, 64, 56, 56), (64, 64, 3, 3), pad=(1, 1, 1, 1), epilogue="bias bn residual relu"), "ffma"),
    ("f16 3x3 pad 1 +bias+relu 1x32x16x16 -> 64", conv((1, 32, 16, 16), (64, 32, 3, 3), "f16",
                                                      pad=(1, 1, 1, 1), epilogue="bias relu"), "mma16"),
    ("f16 1x1 stride 2 +residual 2x64x14x14 -> 128x7x7", conv((2, 64, 14, 14), (128, 64, 1, 1), "f16",
                                                             stride=(2, 2), epilogue="residual"), "mma16"),
    ("f16 7x7 stride 2 pad 3 (K = 147) 1x3x32x32 -> 32", conv((1, 3, 32, 32), (32, 3, 7, 7), "f16",
                                                              stride=(2, 2), pad=(3, 3, 3, 3)), "mma16"),
    # 16-byte epilogue stores: 12 pixels a row, a run of 4 (f32) or 8 (f16)
    # wholly past the block's pixels, or across their end (stored one by one)
    ("f32 3x3 pad 1 +residual 1x8x12x12 -> 16 (12-pixel rows)",
     conv((1, 8, 12, 12), (16, 8, 3, 3), pad=(1, 1, 1, 1), epilogue="residual"), "ffma"),
    ("f16 3x3 pad 1 +bias+residual 1x16x12x12 -> 32 (12-pixel rows)",
     conv((1, 16, 12, 12), (32, 16, 3, 3), "f16", pad=(1, 1, 1, 1), epilogue="bias residual"), "mma16"),
    ("f16 1x1 1x16x10x10 -> 48 (10-pixel rows)", conv((1, 16, 10, 10), (48, 16, 1, 1), "f16"), "mma16"),
    ("bf16 3x3 pad 1 +bias+relu (f32 casts around it) 1x16x8x8 -> 32",
     conv((1, 16, 8, 8), (32, 16, 3, 3), "bf16", pad=(1, 1, 1, 1), epilogue="bias relu"), "mmabf16"),
]

PTX_SHAPE = {"mma16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
             "mmabf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"}


def tolerance(narrow, name, k, want):
    rms = float(np.sqrt(np.mean(want ** 2))) or 1.0
    if narrow:
        ulp = 2.0 ** -10 if name.startswith("f16") else 2.0 ** -7
        return 4 * np.sqrt(k) * ulp * rms, ulp
    return 1e-4 * np.sqrt(k) * rms, 1e-5


# From the schedule stage's program: the GPU pipeline's bufferisation
# (passes/pipeline/stages.c), the emulated rewrite, then the CPU's loop,
# vector and LLVM lowering (passes/lower_to_llvm.c's last stages).
EMULATE = ("builtin.module(" + BUFFERIZE + "dlc-gpu-conv{emulate=true},"
           "dlc-copy-to-linalg,func.func(convert-linalg-to-loops)," + CPU_TAIL)


def conv_kernel(ptx):
    """The PTX text of the kernel that holds the conv (its shared arrays)."""
    for one in re.split(r"(?=\.visible \.entry)", ptx):
        if re.search(r"\.shared .*__dlc_conv_smem", one) and ".entry" in one:
            return one
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    opts = ap.parse_args()
    ptxas = find_ptxas()
    ok_emu = ok_rw = ok_ptx = ran = 0
    work = tempfile.mkdtemp(prefix="dlc-conv-")
    for name, (src, inputs, ref, k, narrow), kind in CASES:
        if opts.k not in name:
            continue
        ran += 1
        tiled = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{stop-after=schedule})")
        sched = re.search(r"dlk.schedule = #dlk.schedule<workgroup = \[1, \d+, \d+, 0, 0, 0, 0\], "
                          r"thread = \[0, \d+, 0, \d+, 0, 0, 0\][^>]*>", tiled)
        got = np.asarray(dlc.compile(tiled)(*inputs)).astype(np.float64)
        want = ref(*inputs)
        atol, rtol = tolerance(narrow, name, k, want)
        err = np.abs(got - want) - (atol + rtol * np.abs(want))
        mma_ok = ("mma = [16, 8, 16]" in sched.group(0)) == kind.startswith("mma") if sched else False
        if got.shape == want.shape and np.all(err <= 0) and sched and mma_ok:
            ok_emu += 1
            print(f"ok   emulate {name}: {sched.group(0)[len('dlk.schedule = '):]}, max |err| "
                  f"{float(np.max(np.abs(got - want))):.3g} (atol {atol:.3g})")
        else:
            print(f"FAIL emulate {name}: schedule {sched.group(0) if sched else 'not implicit GEMM'}, "
                  f"max excess {float(np.max(err)) if got.shape == want.shape else 'shape'}")
        try:
            # the rewrite happened: no conv (7 loops) is left as linalg
            rewritten = dlc.run_pipeline(tiled, EMULATE.split(",dlc-copy-to-linalg")[0] + ")")
            if '"reduction", "reduction", "reduction"]' in rewritten or "scf.for" not in rewritten:
                raise dlc.CompileError("dlc-gpu-conv{emulate=true} left the conv as it was", "")
            got = np.asarray(compile_with(tiled, EMULATE)(*inputs)).astype(np.float64)
            # the rewrite accumulates f16 / bf16 in f32: the inputs' and the
            # output's rounding are what is left of the narrow type
            atol, rtol = tolerance(False, name, k, want) if not narrow else (atol, rtol)
            err = np.abs(got - want) - (atol + rtol * np.abs(want))
            if got.shape == want.shape and np.all(err <= 0):
                ok_rw += 1
                print(f"ok   rewrite {name}: max |err| {float(np.max(np.abs(got - want))):.3g}")
            else:
                print(f"FAIL rewrite {name}: max excess "
                      f"{float(np.max(err)) if got.shape == want.shape else 'shape'}")
        except dlc.CompileError as e:
            print(f"FAIL rewrite {name}: {str(e)} {e.diagnostics if hasattr(e, 'diagnostics') else ''}")
        if not ptxas:
            continue
        text = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{format=isa})")
        binaries = [p for _, p in ptx_of(text)]
        kern = conv_kernel("\n".join(binaries))
        good, msg, kernels = bool(binaries), "", []
        for one in binaries:
            g1, m1, k1 = assemble(ptxas, one, work)
            good, msg, kernels = good and g1, msg or (m1 if not g1 else ""), kernels + k1
        m = re.search(r"stages = (\d+)", sched.group(0)) if sched else None
        stages = int(m.group(1)) if m else 1
        if stages > 1:  # the cp.async pipeline: no synchronous st.shared of a tile
            staged = ("cp.async.ca.shared.global" in kern and "cp.async.commit_group" in kern
                      and re.search(rf"cp\.async\.wait_group\s+{stages - 2};", kern)
                      and re.search(r"cp\.async\.wait_group\s+0;", kern)
                      and "bar.sync" in kern and "st.shared" not in kern)
        else:
            staged = "st.shared" in kern and "bar.sync" in kern
        if kind == "ffma":
            arith = "fma.rn.f32" in kern and "mma.sync" not in kern and "ld.shared" in kern
            what = f"{kern.count('fma.rn.f32')} fma.rn.f32"
        else:
            arith = PTX_SHAPE[kind] in kern and "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in kern \
                and "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in kern
            what = f"{kern.count(PTX_SHAPE[kind])} {PTX_SHAPE[kind]}"
        if good and staged and arith:
            ok_ptx += 1
            print(f"ok   ptxas {name}: {what}, {stages} stage{'s' if stages > 1 else ''}; " +
                  "; ".join(f"{kn} regs={r} smem={s}" + (f" spill={sp}" if sp else "")
                            for kn, r, s, sp in kernels if s))
        else:
            print(f"FAIL ptxas {name}: {what}, staged {staged}, "
                  f"{msg.splitlines()[-1] if not good and msg else ''}")
    print(f"{ok_emu} of {ran} cases passed emulation")
    print(f"{ok_rw} of {ran} cases passed the emulated rewrite")
    if ptxas:
        print(f"{ok_ptx} of {ran} cases passed ptxas")
    else:
        print("SKIP ptxas: no CUDA ptxas found; the PTX was not assembled")
    return 0 if ok_emu == ran and ok_rw == ran and (not ptxas or ok_ptx == ran) and ran else 1


if __name__ == "__main__":
    sys.exit(main())
