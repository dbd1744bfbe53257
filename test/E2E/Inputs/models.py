"""Models written in dlg, compiled by --lower-to-llvm, run and compared with
NumPy (float64) references: an MLP (784-512-512-10, batch 1 and 32), a
BERT-base encoder layer (seq 128, hidden 768, 12 heads, FFN 3072, GELU,
layer_norm), a ResNet basic block (conv-bn-relu x2 + residual, 64 channels,
56x56) and the RMSNorm cases ([4,16] over axis 1, [4,16,16] over axes 1-2,
epsilon 1e-5, with gamma).

Tolerance: max |got - want| <= 1e-4 + 1e-4 |want| for the norm cases and the
MLP; 1e-4 absolute for BERT and ResNet (f32 accumulation over K = 3072 and
576-term convolutions, then normalisation).
"""

import math
import re
import sys

import numpy as np

import dlc

rng = np.random.default_rng(7)


def t(shape):
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def constant(name, a, ty=None):
    """A dlg.constant line defining %`name` as the f32 array `a`, hex-encoded,
    of type `ty` (by default `a`'s shape)."""
    return (f'  %{name} = dlg.constant dense<"0x{a.astype("<f4").tobytes().hex().upper()}"> : '
            f'{ty or t(a.shape)}')


def randn(*s, scale=1.0):
    return (rng.standard_normal(s) * scale).astype(np.float32)


def mlp(batch):
    src = f"""
func.func @main(%x: {t((batch, 784))}, %w1: {t((784, 512))}, %b1: {t((512,))},
                %w2: {t((512, 512))}, %b2: {t((512,))}, %w3: {t((512, 10))}, %b3: {t((10,))}) -> {t((batch, 10))} {{
  %0 = dlg.matmul %x, %w1 : {t((batch, 784))}, {t((784, 512))} -> {t((batch, 512))}
  %1 = dlg.add %0, %b1 : {t((batch, 512))}, {t((512,))} -> {t((batch, 512))}
  %2 = dlg.relu %1 : {t((batch, 512))}
  %3 = dlg.matmul %2, %w2 : {t((batch, 512))}, {t((512, 512))} -> {t((batch, 512))}
  %4 = dlg.add %3, %b2 : {t((batch, 512))}, {t((512,))} -> {t((batch, 512))}
  %5 = dlg.relu %4 : {t((batch, 512))}
  %6 = dlg.matmul %5, %w3 : {t((batch, 512))}, {t((512, 10))} -> {t((batch, 10))}
  %7 = dlg.add %6, %b3 : {t((batch, 10))}, {t((10,))} -> {t((batch, 10))}
  %8 = dlg.softmax %7 : {t((batch, 10))}
  return %8 : {t((batch, 10))}
}}"""
    args = [randn(1 if batch == "?" else batch, 784), randn(784, 512, scale=0.05), randn(512), randn(512, 512, scale=0.05),
            randn(512), randn(512, 10, scale=0.05), randn(10)]

    def ref(x, w1, b1, w2, b2, w3, b3):
        h = np.maximum(x @ w1 + b1, 0)
        h = np.maximum(h @ w2 + b2, 0)
        z = h @ w3 + b3
        e = np.exp(z - z.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    return src, args, ref, (1e-4, 1e-4)


def bert_source(s=128, h=768, heads=12, f=3072):
    d = h // heads
    sh, sf = (s, h), (s, f)
    hd, hsd, hds = (heads, s, d), (heads, s, d), (heads, d, s)
    return f"""
// A BERT-base encoder layer (post-norm): self-attention, residual,
// layer_norm, GELU feed-forward, residual, layer_norm.
func.func @bert_layer(%x: {t(sh)}, %wq: {t((h, h))}, %bq: {t((h,))}, %wk: {t((h, h))}, %bk: {t((h,))},
                      %wv: {t((h, h))}, %bv: {t((h,))}, %wo: {t((h, h))}, %bo: {t((h,))},
                      %g1: {t((h,))}, %be1: {t((h,))}, %w1: {t((h, f))}, %b1: {t((f,))},
                      %w2: {t((f, h))}, %b2: {t((h,))}, %g2: {t((h,))}, %be2: {t((h,))}) -> {t(sh)} {{
  %scale = dlg.constant dense<{1.0 / math.sqrt(d)}> : tensor<f32>
  %q0 = dlg.matmul %x, %wq : {t(sh)}, {t((h, h))} -> {t(sh)}
  %q1 = dlg.add %q0, %bq : {t(sh)}, {t((h,))} -> {t(sh)}
  %k0 = dlg.matmul %x, %wk : {t(sh)}, {t((h, h))} -> {t(sh)}
  %k1 = dlg.add %k0, %bk : {t(sh)}, {t((h,))} -> {t(sh)}
  %v0 = dlg.matmul %x, %wv : {t(sh)}, {t((h, h))} -> {t(sh)}
  %v1 = dlg.add %v0, %bv : {t(sh)}, {t((h,))} -> {t(sh)}
  %q2 = dlg.reshape %q1 : {t(sh)} -> {t((s, heads, d))}
  %q = dlg.transpose %q2 perm = [1, 0, 2] : {t((s, heads, d))} -> {t(hsd)}
  %k2 = dlg.reshape %k1 : {t(sh)} -> {t((s, heads, d))}
  %k = dlg.transpose %k2 perm = [1, 2, 0] : {t((s, heads, d))} -> {t(hds)}
  %v2 = dlg.reshape %v1 : {t(sh)} -> {t((s, heads, d))}
  %v = dlg.transpose %v2 perm = [1, 0, 2] : {t((s, heads, d))} -> {t(hsd)}
  %sc0 = dlg.matmul %q, %k : {t(hsd)}, {t(hds)} -> {t((heads, s, s))}
  %sc = dlg.mul %sc0, %scale : {t((heads, s, s))}, tensor<f32> -> {t((heads, s, s))}
  %p = dlg.softmax %sc {{axis = -1 : i64}} : {t((heads, s, s))}
  %c0 = dlg.matmul %p, %v : {t((heads, s, s))}, {t(hsd)} -> {t(hsd)}
  %c1 = dlg.transpose %c0 perm = [1, 0, 2] : {t(hsd)} -> {t((s, heads, d))}
  %c = dlg.reshape %c1 : {t((s, heads, d))} -> {t(sh)}
  %o0 = dlg.matmul %c, %wo : {t(sh)}, {t((h, h))} -> {t(sh)}
  %o1 = dlg.add %o0, %bo : {t(sh)}, {t((h,))} -> {t(sh)}
  %r1 = dlg.add %o1, %x : {t(sh)}, {t(sh)} -> {t(sh)}
  %n1 = dlg.layer_norm %r1 gamma %g1 beta %be1 {{epsilon = 1.0e-12 : f64}} : ({t(sh)}, {t((h,))}, {t((h,))}) -> {t(sh)}
  %f0 = dlg.matmul %n1, %w1 : {t(sh)}, {t((h, f))} -> {t(sf)}
  %f1 = dlg.add %f0, %b1 : {t(sf)}, {t((f,))} -> {t(sf)}
  %f2 = dlg.gelu %f1 : {t(sf)}
  %f3 = dlg.matmul %f2, %w2 : {t(sf)}, {t((f, h))} -> {t(sh)}
  %f4 = dlg.add %f3, %b2 : {t(sh)}, {t((h,))} -> {t(sh)}
  %r2 = dlg.add %f4, %n1 : {t(sh)}, {t(sh)} -> {t(sh)}
  %y = dlg.layer_norm %r2 gamma %g2 beta %be2 {{epsilon = 1.0e-12 : f64}} : ({t(sh)}, {t((h,))}, {t((h,))}) -> {t(sh)}
  return %y : {t(sh)}
}}"""


def bert_stack_source(layers=12):
    """BERT-base with `layers` encoder layers: the layer of models.py as a
    function, called once per layer with its own weights."""
    one = bert_source().replace("func.func @bert_layer", "func.func private @bert_layer")
    sig = re.search(r"func.func private @bert_layer\((.*?)\) -> (tensor<[^>]*>) \{", one, re.S)
    types = [p.split(":", 1)[1].strip() for p in sig.group(1).split(",")]
    ret = sig.group(2)
    args = [f"%x: {types[0]}"] + [f"%w{l}_{i}: {types[i]}" for l in range(layers)
                                  for i in range(1, len(types))]
    body, cur = [], "%x"
    for l in range(layers):
        ops = ", ".join([cur] + [f"%w{l}_{i}" for i in range(1, len(types))])
        body.append(f"  %y{l} = func.call @bert_layer({ops}) : ({', '.join(types)}) -> {ret}")
        cur = f"%y{l}"
    return (one + f"\nfunc.func @main({', '.join(args)}) -> {ret} {{\n" + "\n".join(body) +
            f"\n  return {cur} : {ret}\n}}\n")


def bert_args(s=128, h=768, f=3072):
    w = lambda *sh: randn(*sh, scale=0.02)
    return [randn(s, h), w(h, h), w(h), w(h, h), w(h), w(h, h), w(h), w(h, h), w(h),
            1 + w(h), w(h), w(h, f), w(f), w(f, h), w(h), 1 + w(h), w(h)]


def bert_ref(x, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2, heads=12):
    s, h = x.shape
    d = h // heads

    def ln(z, g, b):
        m = z.mean(-1, keepdims=True)
        v = ((z - m) ** 2).mean(-1, keepdims=True)
        return (z - m) / np.sqrt(v + 1e-12) * g + b
    q = (x @ wq + bq).reshape(s, heads, d).transpose(1, 0, 2)
    k = (x @ wk + bk).reshape(s, heads, d).transpose(1, 2, 0)
    v = (x @ wv + bv).reshape(s, heads, d).transpose(1, 0, 2)
    sc = q @ k / math.sqrt(d)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    c = (p @ v).transpose(1, 0, 2).reshape(s, h)
    n1 = ln(c @ wo + bo + x, g1, be1)
    f = n1 @ w1 + b1
    erf = np.vectorize(math.erf)
    f = 0.5 * f * (1 + erf(f / math.sqrt(2)))
    return ln(f @ w2 + b2 + n1, g2, be2)


def resnet_source(c=64, hw=56):
    x = (1, c, hw, hw)
    wt = (c, c, 3, 3)
    v = t((c,))
    bn = lambda n, i: (f"%{n} = dlg.batch_norm %{i}, %s{n}, %b{n}, %m{n}, %v{n} : "
                       f"({t(x)}, {v}, {v}, {v}, {v}) -> {t(x)}")
    conv = lambda n, i, w: (f"%{n} = dlg.conv2d %{i}, %{w} {{padding = array<i64: 1, 1, 1, 1>}} : "
                            f"({t(x)}, {t(wt)}) -> {t(x)}")
    return f"""
// A ResNet basic block: conv-bn-relu, conv-bn, + identity, relu.
func.func @basic_block(%x: {t(x)}, %w1: {t(wt)}, %s1: {v}, %b1: {v}, %m1: {v}, %v1: {v},
                       %w2: {t(wt)}, %s2: {v}, %b2: {v}, %m2: {v}, %v2: {v}) -> {t(x)} {{
  {conv("c1", "x", "w1")}
  {bn("1", "c1")}
  %r1 = dlg.relu %1 : {t(x)}
  {conv("c2", "r1", "w2")}
  {bn("2", "c2")}
  %s = dlg.add %2, %x : {t(x)}, {t(x)} -> {t(x)}
  %y = dlg.relu %s : {t(x)}
  return %y : {t(x)}
}}"""


def resnet_args(c=64, hw=56):
    bn = lambda: [1 + randn(c, scale=0.1), randn(c, scale=0.1), randn(c, scale=0.1),
                  (rng.random(c) + 0.5).astype(np.float32)]
    return [randn(1, c, hw, hw), randn(c, c, 3, 3, scale=0.05)] + bn() + \
        [randn(c, c, 3, 3, scale=0.05)] + bn()


def resnet_ref(x, w1, s1, b1, m1, v1, w2, s2, b2, m2, v2):
    def conv(z, w):
        zp = np.pad(z, ((0, 0), (0, 0), (1, 1), (1, 1)))
        n, c, hh, ww = z.shape
        out = np.zeros((n, w.shape[0], hh, ww))
        for i in range(3):
            for j in range(3):
                out += np.einsum("nchw,oc->nohw", zp[:, :, i:i + hh, j:j + ww], w[:, :, i, j])
        return out
    bn = lambda z, s, b, m, v: (z - m[:, None, None]) / np.sqrt(v[:, None, None] + 1e-5) * \
        s[:, None, None] + b[:, None, None]
    r = np.maximum(bn(conv(x, w1), s1, b1, m1, v1), 0)
    return np.maximum(bn(conv(r, w2), s2, b2, m2, v2) + x, 0)


def rms_case(shape, axis):
    nd = tuple(range(axis, len(shape)))
    gshape = shape[axis:]
    src = f"""
func.func @main(%x: {t(shape)}, %g: {t(gshape)}) -> {t(shape)} {{
  %0 = dlg.rms_norm %x gamma %g {{axis = {axis} : i64, epsilon = 1.0e-5 : f64}} : ({t(shape)}, {t(gshape)}) -> {t(shape)}
  return %0 : {t(shape)}
}}"""
    ref = lambda x, g: x / np.sqrt((x ** 2).mean(axis=nd, keepdims=True) + 1e-5) * g
    return src, [randn(*shape), randn(*gshape)], ref, (1e-4, 1e-4)


MODELS = {
    "mlp batch 1": lambda: mlp(1),
    "mlp batch 32": lambda: mlp(32),
    "rms_norm [4,16] axis 1": lambda: rms_case((4, 16), 1),
    "rms_norm [4,16,16] axes 1-2": lambda: rms_case((4, 16, 16), 1),
    "bert encoder layer": lambda: (bert_source(), bert_args(), bert_ref, (1e-4, 0)),
    "resnet basic block": lambda: (resnet_source(), resnet_args(), resnet_ref, (1e-4, 0)),
}


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    failed = 0
    for name, make in MODELS.items():
        if only not in name:
            continue
        src, args, ref, (atol, rtol) = make()
        try:
            got = dlc.compile(src)(*args)
        except Exception as e:
            print(f"FAIL {name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            failed += 1
            continue
        want = ref(*[a.astype(np.float64) for a in args])
        err = np.abs(got - want)
        ok = (err <= atol + rtol * np.abs(want)).all()
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max err {err.max():.3g} (atol {atol:g}, rtol {rtol:g})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())


def with_constant_weights(src, args, keep=1):
    """`src`'s one function with every parameter after the first `keep` a
    dlg.constant holding the matching array of `args` (as a model imported
    from ONNX has its weights); returns the new source and the remaining
    arguments."""
    sig = re.search(r"func.func @(\w+)\((.*?)\) -> (tensor<[^>]*>) \{\n", src, re.S)
    params = [p.strip() for p in sig.group(2).split(",")]
    consts = []
    for p, a in zip(params[keep:], args[keep:]):
        name, ty = (s.strip() for s in p.split(":", 1))
        consts.append(constant(name.lstrip("%"), a, ty))
    head = f"func.func @{sig.group(1)}({', '.join(params[:keep])}) -> {sig.group(3)} {{\n"
    return src[:sig.start()] + head + "\n".join(consts) + "\n" + src[sig.end():], args[:keep]
