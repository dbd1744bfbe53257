"""The fused GPU attention kernel (passes/gpu/gpu_attention.c) without a GPU.

For each case (sequence lengths 1 to 200, head widths 8 to 64, no mask, a
mask given as an input, a causal mask as a constant, BERT's padding mask
[b, 1, 1, s], cross attention with sk != s and dv != d, K given with
transpose_b, a scale by division, a schedule given by a dlk.kernel):

  emulate  --lower-to-nvvm{stop-after=schedule}: the pattern became one
           fused kernel (its #dlk.schedule is printed), no [.., s, sk]
           tensor is left anywhere in the program, and the tiled program
           (foralls as loops on the CPU: the very code the GPU runs, one
           thread a query row, online softmax over key blocks) matches
           NumPy in float64 (max error relative to the output's largest
           value below 1e-5);
  launch   --lower-to-nvvm{stop-after=launch}: no buffer of the scores'
           shape is allocated (gpu.alloc / memref.alloc) and the attention
           launch has BQ threads;
  ptxas    the whole pipeline's PTX: the attention kernel (the one with
           `ex2.approx`) stores only its output row (dv / 4 to dv
           st.global: 128-bit stores where the row's alignment is proven,
           no st.local), computes with fma.rn.f32, and every
           kernel passes `ptxas -arch=sm_90a -v` with no spill (registers
           and shared memory printed). Without ptxas: one SKIP line.

Usage: attention_check.py [-k SUBSTRING]
"""

import argparse
import math
import os
import re
import sys
import tempfile

import numpy as np

import dlc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_check import assemble, find_ptxas, ptx_of  # noqa: E402

rng = np.random.default_rng(14)


def T(shape):
    return "tensor<" + "".join(f"{n}x" for n in shape) + "f32>"


def const(name, a):
    return (f'  %{name} = dlg.constant dense<"0x{a.astype("<f4").tobytes().hex().upper()}"> : '
            f'{T(a.shape)}')


class Case:
    """Multi-head attention as BERT writes it: x [b, s, heads * d] per
    operand, reshaped and transposed to [b, heads, s, d] (K to
    [b, heads, d, sk], or [b, heads, sk, d] with transpose_b)."""

    def __init__(self, s, heads, d, mask=None, b=1, sk=None, dv=None, transpose_b=False,
                 divide=False, schedule=None, scale=True):
        self.s, self.heads, self.d, self.mask, self.b = s, heads, d, mask, b
        self.sk, self.dv = sk or s, dv or d
        self.transpose_b, self.divide, self.schedule = transpose_b, divide, schedule
        self.scale = scale
        self.name = (f"s={s} sk={self.sk} b={b} heads={heads} d={d} dv={self.dv} "
                     f"mask={mask or 'none'}" + (" transpose_b" if transpose_b else "") +
                     (" div" if divide else "") + (" given-schedule" if schedule else "") +
                     ("" if scale else " unscaled"))

    def inputs(self):
        s, sk, h, d, dv, b = self.s, self.sk, self.heads, self.d, self.dv, self.b
        ins = [rng.standard_normal((b, s, h * d)).astype(np.float32),
               rng.standard_normal((b, sk, h * d)).astype(np.float32),
               rng.standard_normal((b, sk, h * dv)).astype(np.float32)]
        self.mask_value = None
        if self.mask == "input":
            m = np.where(rng.random((s, sk)) < 0.2, -1e4, 0).astype(np.float32)
            m[:, 0] = 0
            ins.append(m)
            self.mask_value = m
        elif self.mask == "padding":  # BERT: [b, 1, 1, sk], a few keys padded per sequence
            m = np.zeros((b, 1, 1, sk), np.float32)
            for i in range(b):
                m[i, 0, 0, sk - 1 - i:] = -1e4
            ins.append(m)
            self.mask_value = m
        elif self.mask == "causal":
            self.mask_value = np.triu(np.full((s, sk), -1e9, np.float32), 1)
        return ins

    def source(self):
        s, sk, h, d, dv, b = self.s, self.sk, self.heads, self.d, self.dv, self.b
        args = [f"%q: {T((b, s, h * d))}", f"%k: {T((b, sk, h * d))}", f"%v: {T((b, sk, h * dv))}"]
        scale = 1.0 / math.sqrt(d)
        lines = [f"  %scale = dlg.constant dense<{math.sqrt(d) if self.divide else scale}> : "
                 "tensor<f32>"]
        if self.mask == "input":
            args.append(f"%mask: {T((s, sk))}")
        elif self.mask == "padding":
            args.append(f"%mask: {T((b, 1, 1, sk))}")
        elif self.mask == "causal":
            lines.append(const("mask", self.mask_value))
        kperm = "0, 2, 1, 3" if self.transpose_b else "0, 2, 3, 1"
        kshape = (b, h, sk, d) if self.transpose_b else (b, h, d, sk)
        for n, rows, w, perm, ty in (("q", s, d, "0, 2, 1, 3", (b, h, s, d)),
                                     ("k", sk, d, kperm, kshape),
                                     ("v", sk, dv, "0, 2, 1, 3", (b, h, sk, dv))):
            lines.append(f"  %{n}2 = dlg.reshape %{n} : {T((b, rows, h * w))} -> {T((b, rows, h, w))}")
            lines.append(f"  %{n}t = dlg.transpose %{n}2 perm = [{perm}] : {T((b, rows, h, w))} -> "
                         f"{T(ty)}")
        sc = (b, h, s, sk)
        tb = " {transpose_b = true}" if self.transpose_b else ""
        body = [f"  %s0 = dlg.matmul %qt, %kt{tb} : {T((b, h, s, d))}, {T(kshape)} -> {T(sc)}",
                f"  %s1 = dlg.{'div' if self.divide else 'mul'} %s0, %scale : {T(sc)}, tensor<f32> "
                f"-> {T(sc)}"]
        if not self.scale:
            body[1] = body[1].replace("%s1 = ", "%s1u = ")
            body.pop(1)
            body[0] = body[0].replace("%s0 = ", "%s1 = ")
            lines.pop(0)
        last = "%s1"
        if self.mask:
            mt = (b, 1, 1, sk) if self.mask == "padding" else (s, sk)
            body.append(f"  %s2 = dlg.add %s1, %mask : {T(sc)}, {T(mt)} -> {T(sc)}")
            last = "%s2"
        body.append(f"  %p = dlg.softmax {last} {{axis = -1 : i64}} : {T(sc)}")
        body.append(f"  %c = dlg.matmul %p, %vt : {T(sc)}, {T((b, h, sk, dv))} -> {T((b, h, s, dv))}")
        out = (b, h, s, dv)
        if self.schedule:  # the same ops in a dlk.kernel whose schedule overrides the cost model's
            kin = ["%qt", "%kt", "%vt"] + (["%mask"] if self.mask else [])
            kty = [T((b, h, s, d)), T(kshape), T((b, h, sk, dv))]
            body.insert(0, lines.pop(0))  # the scale, a constant inside the kernel
            if self.mask:
                kty.append(T((b, 1, 1, sk)) if self.mask == "padding" else T((s, sk)))
            lines.append(f"  %c = dlk.kernel \"opaque\" schedule {self.schedule} ({', '.join(kin)}) : "
                         f"({', '.join(kty)}) -> {T(out)} {{")
            inner = {"%qt": "%xq", "%kt": "%xk", "%vt": "%xv", "%scale": "%xs", "%mask": "%xm",
                     "%c": "%xc"}
            lines.append("  ^bb0(" + ", ".join(f"{inner[a]}: {t}" for a, t in zip(kin, kty)) + "):")
            for ln in body:
                for a, x in inner.items():
                    ln = re.sub(re.escape(a) + r"\b", x, ln)
                lines.append("  " + ln)
            lines.append(f"    dlk.yield %xc : {T(out)}\n  }}")
        else:
            lines += body
        lines.append(f"  %c1 = dlg.transpose %c perm = [0, 2, 1, 3] : {T(out)} -> {T((b, s, h, dv))}")
        lines.append(f"  %y = dlg.reshape %c1 : {T((b, s, h, dv))} -> {T((b, s, h * dv))}")
        return (f"func.func @main({', '.join(args)}) -> {T((b, s, h * dv))} {{\n" + "\n".join(lines) +
                f"\n  return %y : {T((b, s, h * dv))}\n}}")

    def reference(self, q, k, v):
        s, sk, h, d, dv, b = self.s, self.sk, self.heads, self.d, self.dv, self.b
        qh = q.reshape(b, s, h, d).transpose(0, 2, 1, 3).astype(np.float64)
        kh = k.reshape(b, sk, h, d).transpose(0, 2, 3, 1).astype(np.float64)
        vh = v.reshape(b, sk, h, dv).transpose(0, 2, 1, 3).astype(np.float64)
        sc = qh @ kh / (math.sqrt(d) if self.scale else 1.0)
        if self.mask_value is not None:
            sc = sc + self.mask_value
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return (p @ vh).transpose(0, 2, 1, 3).reshape(b, s, h * dv)


CASES = [
    Case(1, 2, 8),
    Case(7, 2, 16, "input"),
    Case(37, 3, 40, "causal"),
    Case(37, 2, 64, "input"),                   # d = 64, the last key step clamped
    Case(64, 2, 32),
    Case(100, 2, 64, "input"),
    Case(128, 12, 64),                          # BERT-base's shape
    Case(128, 4, 64, "causal"),
    Case(134, 2, 64, "causal"),
    Case(200, 2, 24, "input"),
    Case(200, 1, 64, "causal"),
    Case(33, 3, 16, "padding", b=3),            # BERT's [b, 1, 1, s] mask, batch 3
    Case(50, 2, 32, None, sk=77, dv=16),        # cross attention: sk != s, dv != d
    Case(96, 2, 32, "input", transpose_b=True),
    Case(45, 2, 8, None, divide=True),
    Case(20, 2, 16, "input", scale=False),      # no scale at all
    Case(96, 2, 64, "causal", schedule="#dlk.schedule<workgroup = [1, 48, 8, 0], thread = [1, 1, 0, 0]>"),
]


def plain(shape):
    return "x".join(map(str, shape)) + "xf32"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    opts = ap.parse_args()
    ptxas = find_ptxas()
    work = tempfile.mkdtemp(prefix="dlc-attn-")
    ran = ok_emu = ok_launch = ok_ptx = 0
    for c in CASES:
        if opts.k not in c.name:
            continue
        ran += 1
        ins = c.inputs()
        src = c.source()
        want = c.reference(*ins[:3])
        scores = plain((c.b * c.heads, c.s, c.sk)), plain((c.heads, c.s, c.sk)), \
            plain((c.b, c.heads, c.s, c.sk))
        try:
            tiled = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{stop-after=schedule})")
            sched = re.search(r"dlc.attention = array<i64: (\d+), (\d+)>, dlk.schedule = "
                              r"(#dlk.schedule<[^>]*>)", tiled)
            left = [t for t in scores if f"tensor<{t}>" in tiled]
            got = np.asarray(dlc.compile(tiled)(*ins)).astype(np.float64)
            err = float(np.max(np.abs(got - want)) / (1 + np.max(np.abs(want))))
            if sched and not left and err < 1e-5:
                ok_emu += 1
                print(f"ok   emulate {c.name}: {sched.group(3)}, max rel error {err:.1e}")
            else:
                print(f"FAIL emulate {c.name}: fused {bool(sched)}, scores tensors left {left}, "
                      f"max rel error {err:.1e}")
            launched = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{stop-after=launch})")
            bufs = [t for t in scores if f"memref<{t}>" in launched]
            bq = sched.group(1) if sched else "?"
            blocks = f"%c{c.s // int(bq)}, " if sched else "?"
            launch = re.search(rf"blocks\(%\w+, %\w+, %\w+\) in \(%\w+ = ({blocks}|%c1_?\d*, )%\w+ = "
                               rf"%c{c.b * c.heads}(_\d+)?, %\w+ = %c1(_\d+)?\) threads\(%\w+, %\w+, "
                               rf"%\w+\) in \(%\w+ = %c{bq}(_\d+)?, ", launched)
            if not bufs and launch:
                ok_launch += 1
                print(f"ok   launch {c.name}: {c.s // int(bq)} x {c.b * c.heads} blocks of {bq} "
                      "threads, no scores buffer")
            else:
                print(f"FAIL launch {c.name}: scores buffers {bufs}")
            if not ptxas:
                continue
            text = dlc.run_pipeline(src, "builtin.module(lower-to-nvvm{format=isa})")
            binaries = [p for _, p in ptx_of(text)]
            attn = [p for p in binaries if "ex2.approx" in p]
            good, kernels, msg = len(attn) == 1, [], ""
            for one in binaries:
                g1, m1, k1 = assemble(ptxas, one, work)
                good, msg, kernels = good and g1, msg or (m1 if not g1 else ""), kernels + k1
            a = attn[0] if attn else ""
            stores = len(re.findall(r"\bst\.global", a))
            spills = sum(k[3] for k in kernels)
            regs = [k[1] for k in kernels]
            fmas = a.count("fma.rn.f32")
            if good and spills == 0 and fmas >= 2 * c.d * 1 and \
                    c.dv // 4 <= stores <= c.dv and "st.local" not in a:
                ok_ptx += 1
                ar = max(regs) if regs else 0
                print(f"ok   ptxas {c.name}: at most {ar} registers a kernel, {stores} "
                      f"st.global in the attention kernel (its output row), {fmas} fma.rn.f32, "
                      "no spills")
            else:
                print(f"FAIL ptxas {c.name}: attention kernels {len(attn)}, st.global {stores}, "
                      f"spills {spills}, {msg.splitlines()[-1] if msg else ''}")
        except dlc.CompileError as e:
            print(f"FAIL {c.name}: {e} {getattr(e, 'diagnostics', '')}")
    print(f"{ok_emu} of {ran} cases passed emulation")
    print(f"{ok_launch} of {ran} cases passed the launch check")
    if ptxas:
        print(f"{ok_ptx} of {ran} cases passed ptxas")
    else:
        print("SKIP ptxas: no CUDA ptxas found; the PTX was not assembled")
    return 0 if ran and ok_emu == ran and ok_launch == ran and (not ptxas or ok_ptx == ran) else 1


if __name__ == "__main__":
    sys.exit(main())
