"""GEMMs whose A rows are a multiple of 4 KiB apart (K = 1024, 2048 and
BERT-base's 3072 floats) read A through a copy with longer rows
(dlcGemmRowPadding, passes/lowering/contraction.c): NumPy's results with A
an argument, A computed by an earlier kernel (a ReLU) and A a constant
(not copied), as AVX2 code and for this host, at 1 and 2 threads.

Each case prints one line; a mismatch prints FAIL."""
import numpy as np

import dlc

rng = np.random.default_rng(0)


def case(name, m, k, n, a_kind, target, threads):
    at, bt, ct = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    if a_kind == "constant":
        body = (f"  %a = dlg.constant dense<0.25> : {at}\n"
                f"  %0 = dlg.matmul %a, %b : {at}, {bt} -> {ct}\n")
        src = f"func.func @main(%b: {bt}) -> {ct} {{\n{body}  return %0 : {ct}\n}}"
        args, ref = [b], np.full((m, k), 0.25, np.float64) @ b
    else:
        relu = a_kind == "computed"
        body = (f"  %r = dlg.relu %x : {at}\n" if relu else "") + \
            f"  %0 = dlg.matmul {'%r' if relu else '%x'}, %b : {at}, {bt} -> {ct}\n"
        src = f"func.func @main(%x: {at}, %b: {bt}) -> {ct} {{\n{body}  return %0 : {ct}\n}}"
        args = [a, b]
        ref = (np.maximum(a, 0) if relu else a).astype(np.float64) @ b
    padded = "tensor.pad" in dlc.run_pipeline(
        src, f"builtin.module(func.func(dlg-fuse),dlk-to-linalg{{vector-width=8}})")
    got = dlc.compile(src, threads=threads, target=target).run(*args)[0]
    err = float(np.abs(got - ref).max() / np.abs(ref).max())
    want_pad = a_kind != "constant"
    ok = err < 1e-5 and padded == want_pad
    print(f"{'ok  ' if ok else 'FAIL'} {name} {m}x{k}x{n} A {a_kind}, {target}, {threads} "
          f"thread(s): A padded {padded}, rel err {err:.1e}")


for target in ("avx2", "host"):
    for threads in (1, 2):
        case("square", 256, 1024, 256, "argument", target, threads)
        case("odd rows", 70, 2048, 48, "computed", target, threads)
        case("bert ffn2", 128, 3072, 768, "computed", target, threads)
        case("constant A", 64, 1024, 32, "constant", target, threads)
