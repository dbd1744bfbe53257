"""ONNX's own backend node tests (the cases Debian's python3-onnx generates
with onnx.backend.test.case.node.collect_testcases) through dlc.onnx.

Each in-scope case is imported, compiled, run and compared with ONNX's
expected outputs (the case's rtol/atol, exact shape and dtype) in one of a
pool of worker processes, with a time limit per case. A case is

  PASS         every output matches;
  FAIL         a wrong output (shape, dtype or values), or dlc rejected a
               graph the importer built (a CompileError that is not an
               UnsupportedError): a bug, never acceptable;
  UNSUPPORTED  dlc.onnx.UnsupportedError: the importer knowingly lacks the
               op, attribute, input or type, and says so naming node, op,
               opset and what;
  CRASH        any other exception (a Python traceback), a dead worker
               (signal) or a case over the time limit.

Out of scope (and listed as such in the table): training ops (the
ai.onnx.preview.training domain), sequence, string and optional types.

The test fails on any FAIL or CRASH and on any case listed in the ratchet
file (onnx_conformance_passing.txt) that does not PASS, so coverage only
goes up. Nothing is cached between runs.

    python3 test/Python/Inputs/test_onnx_conformance.py            # run, print summary
    python3 test/Python/Inputs/test_onnx_conformance.py --update   # also rewrite the
        ratchet and docs/SupportedONNXOps.md
    python3 test/Python/Inputs/test_onnx_conformance.py -k relu    # cases matching
"""

import argparse
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RATCHET = os.path.join(HERE, "onnx_conformance_passing.txt")
TABLE = os.path.join(ROOT, "docs", "SupportedONNXOps.md")
TIME_LIMIT = 60.0  # seconds per case (compiling one node takes well under 1 s)
WORKERS = 2


def _numpy_shims():
    """onnx 1.12's case generators use np.float/np.int/..., gone in NumPy 1.24."""
    import numpy as np
    for k, v in {"float": float, "int": int, "bool": bool, "object": object,
                 "complex": complex, "str": str}.items():
        if k not in np.__dict__:
            setattr(np, k, v)


def collect():
    """All node cases, in onnx's (deterministic) order."""
    _numpy_shims()
    warnings.filterwarnings("ignore")
    from onnx.backend.test.case import node
    return node.collect_testcases(None)


def _walk(graph):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.g.node:
                yield from _walk(a.g)
            for sg in a.graphs:
                yield from _walk(sg)


def out_of_scope(case):
    """Why a case is out of scope (training, sequence, string, optional), or None."""
    g = case.model.graph
    for n in _walk(g):
        if n.domain == "ai.onnx.preview.training":
            return "training"
        if "Sequence" in n.op_type:
            return "sequence"
        if n.op_type.startswith("Optional"):
            return "optional"
    for vi in list(g.input) + list(g.output):
        t = vi.type
        if t.HasField("sequence_type"):
            return "sequence"
        if t.HasField("optional_type"):
            return "optional"
        if t.tensor_type.elem_type == 8:
            return "string"
    return None


def case_info(cases):
    """name -> (op type, opset, scope) where an _expanded case (the
    function body of an op) counts for its op."""
    by_name = {c.name: c for c in cases}
    info = {}
    for c in cases:
        base = by_name.get(c.name[:-len("_expanded")]) if c.name.endswith("_expanded") else c
        op = base.model.graph.node[0].op_type if base is not None else "?"
        opset = next((o.version for o in c.model.opset_import if o.domain in ("", "ai.onnx")), 0)
        info[c.name] = (op, opset, out_of_scope(c))
    return info


# --- one case (in a worker) -------------------------------------------------

def _misfit_input(model, inputs):
    """Why a case's input data does not fit its model's declared static
    input shape (a defect of a few of ONNX 1.12's cases, e.g. CastLike's
    bfloat16 ones), or None."""
    import numpy as np
    inits = {i.name for i in model.graph.initializer}
    decl = [vi for vi in model.graph.input if vi.name not in inits]
    for vi, a in zip(decl, inputs):
        dims = [d.dim_value if d.HasField("dim_value") else None
                for d in vi.type.tensor_type.shape.dim]
        shape = list(np.asarray(a).shape)
        if len(dims) != len(shape) or any(d is not None and d != s for d, s in zip(dims, shape)):
            return (f"the case's input '{vi.name}' has shape {shape} but its model declares "
                    f"{['?' if d is None else d for d in dims]} (a defect of the ONNX case)")
    return None


def run_case(case):
    """(status, message) of one case."""
    import numpy as np
    import dlc
    import dlc.onnx
    inputs, expected = case.data_sets[0]
    bad = _misfit_input(case.model, inputs)
    if bad:  # dlc checks arguments against the declared shapes: it cannot run the case
        return "UNSUPPORTED", bad
    try:
        mod = dlc.compile(case.model)
        outs = mod.run(*[np.asarray(a) for a in inputs])
    except dlc.onnx.UnsupportedError as e:
        return "UNSUPPORTED", str(e).splitlines()[0]
    except dlc.CompileError as e:
        return "FAIL", "dlc rejected the imported graph: " + " | ".join(str(e).splitlines()[:3])
    except Exception as e:  # a traceback is a crash: bad input must give a clear error
        return "CRASH", f"{type(e).__name__}: {e}".splitlines()[0]
    if len(outs) != len(expected):
        return "FAIL", f"{len(outs)} outputs, expected {len(expected)}"
    for i, (o, r) in enumerate(zip(outs, expected)):
        r = np.asarray(r)
        if o.shape != r.shape or o.dtype != r.dtype:
            return "FAIL", f"output {i}: {o.dtype}{list(o.shape)}, expected {r.dtype}{list(r.shape)}"
        try:
            if r.dtype.kind in "fc":
                np.testing.assert_allclose(o, r, rtol=case.rtol, atol=case.atol, equal_nan=True)
            else:
                np.testing.assert_array_equal(o, r)
        except AssertionError as e:
            lines = [s.strip() for s in str(e).splitlines() if s.strip()]
            return "FAIL", f"output {i}: " + "; ".join(lines[1:4])
    return "PASS", ""


def worker():
    """Reads case indices on stdin, writes one JSON result per line. The
    results go to a private copy of stdout so that anything the C library
    prints cannot corrupt them."""
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    cases = collect()
    import dlc.onnx  # noqa: F401  (a broken import stops the run, see _Worker)
    results.write("ready\n")
    results.flush()
    for line in sys.stdin:
        i = int(line)
        t = time.time()
        status, msg = run_case(cases[i])
        results.write(json.dumps({"i": i, "status": status, "msg": msg,
                                  "s": round(time.time() - t, 3)}) + "\n")
        results.flush()


# --- the pool ---------------------------------------------------------------

class _Worker:
    def __init__(self):
        self.log = tempfile.TemporaryFile()
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.log, bufsize=0)
        self.case, self.since, self.buf, self.ready = None, None, b"", False

    def give(self, i):
        self.case, self.since = i, time.time()
        self.p.stdin.write(f"{i}\n".encode())
        self.p.stdin.flush()

    def tail(self):
        self.log.seek(0)
        lines = [s for s in self.log.read().decode(errors="replace").splitlines() if s.strip()]
        return lines[-1] if lines else ""

    def kill(self):
        try:
            self.p.kill()
        except OSError:
            pass
        self.p.wait()


def run_all(indices, workers=WORKERS, time_limit=TIME_LIMIT, progress=None):
    """{index: result dict} for the given case indices."""
    todo = list(indices)[::-1]
    results = {}
    sel = selectors.DefaultSelector()
    pool = []

    def start():
        w = _Worker()
        sel.register(w.p.stdout, selectors.EVENT_READ, w)
        pool.append(w)
        return w

    def feed(w):
        if todo:
            w.give(todo.pop())
        else:
            w.case = None

    def retire(w, status, msg):
        results[w.case] = {"status": status, "msg": msg, "s": round(time.time() - w.since, 3)}
        sel.unregister(w.p.stdout)
        w.kill()
        pool.remove(w)
        if todo:
            feed(start())

    for _ in range(min(workers, len(todo))):
        feed(start())
    while any(w.case is not None for w in pool):
        for key, _ in sel.select(timeout=1.0):
            w = key.data
            chunk = os.read(w.p.stdout.fileno(), 65536)
            if not chunk:  # the worker died: the case it ran crashed it
                code = w.p.wait()
                if not w.ready:  # it could not even start: nothing can run
                    for v in pool:
                        v.kill()
                    raise RuntimeError(f"a conformance worker failed to start: {w.tail()}")
                retire(w, "CRASH", f"worker died (exit {code}): {w.tail()}"[:300])
                continue
            w.buf += chunk
            while b"\n" in w.buf:
                line, w.buf = w.buf.split(b"\n", 1)
                if line == b"ready":
                    w.ready = True
                    continue
                r = json.loads(line)
                results[r.pop("i")] = r
                if progress:
                    progress(len(results))
                feed(w)
        now = time.time()
        for w in list(pool):
            if w.case is not None and now - w.since > time_limit:
                retire(w, "CRASH", f"over the time limit of {time_limit:.0f} s")
    for w in pool:
        w.p.stdin.close()
        w.kill()
    return results


# --- report -----------------------------------------------------------------

def summarize(results):
    counts = {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0, "CRASH": 0}
    for r in results.values():
        counts[r["status"]] += 1
    return counts


def _ranges(vs):
    vs = sorted(set(vs))
    return ", ".join(str(v) for v in vs) if vs else "-"


def table(cases, info, results, wall):
    """docs/SupportedONNXOps.md: per op, the opsets of its cases, how many
    pass, and the importer's own reasons for the rest (its limits)."""
    per_op = {}
    for i, c in enumerate(cases):
        op, opset, scope = info[c.name]
        row = per_op.setdefault(op, {"cases": 0, "pass": 0, "opsets": set(), "pass_opsets": set(),
                                     "limits": {}, "scope": scope})
        if scope:  # out of scope only when every case is (If has a plain and a sequence case)
            if not row["cases"]:
                row["scope"] = scope
            continue
        row["scope"] = None
        r = results[i]
        row["cases"] += 1
        row["opsets"].add(opset)
        if r["status"] == "PASS":
            row["pass"] += 1
            row["pass_opsets"].add(opset)
        else:
            msg = r["msg"].split("): ", 1)[-1] if r["status"] == "UNSUPPORTED" else \
                f"{r['status']}: {r['msg']}"
            row["limits"][msg] = row["limits"].get(msg, 0) + 1
    counts = summarize(results)
    n = sum(counts.values())
    ops_in = [op for op, r in per_op.items() if not r["scope"]]
    lines = [
        "# Supported ONNX operators",
        "",
        "Generated by `python3 test/Python/Inputs/test_onnx_conformance.py --update` from ONNX's own",
        "backend node tests (Debian's python3-onnx 1.12, `onnx.backend.test.case.node."
        "collect_testcases`):",
        "every case is imported by `dlc.onnx`, compiled, run and compared with ONNX's expected",
        "outputs (the case's rtol/atol, exact shapes and dtypes). `_expanded` cases (an op's",
        "function body) count for their op. Do not edit by hand.",
        "",
        f"**{counts['PASS']} of {n} in-scope cases pass ({100.0 * counts['PASS'] / max(1, n):.1f}%)**; "
        f"FAIL {counts['FAIL']}, UNSUPPORTED {counts['UNSUPPORTED']}, CRASH {counts['CRASH']}; "
        f"{sum(1 for op in ops_in if per_op[op]['pass'])} of {len(ops_in)} op types pass a case. "
        f"The run took {wall:.0f} s with {WORKERS} workers.",
        "",
        "Out of scope: training ops (ai.onnx.preview.training), sequence, string and optional",
        "types. Every UNSUPPORTED case is a `dlc.onnx.UnsupportedError` naming node, op, opset",
        "and what is missing, or a case whose input data does not fit the input shapes its own",
        "model declares (dlc checks arguments against them); the *limits* column lists those",
        "messages (with case counts).",
        "",
        "Element types dlg lacks are held widened (`dlc.onnx._WIDE`): uint8, uint16 and int16 in",
        "int32, uint32 in int64 (the exact numbers, wrapped modulo 2^bits after each op that can",
        "leave the range), uint64 as the int64 of its bits (ordering through the sign-bit flip;",
        "unsigned Div and Mod from int64 operations), bfloat16 as float32 (exact ops only; a",
        "Cast to it truncates at the boundary, as onnx 1.12's reference). `dlc.compile` widens",
        "such inputs and narrows such outputs around the call; an op with no rule for such a",
        "type is a named error.",
        "",
        "| op | opsets tested | opsets passing | cases passed | limits (why the other cases do not pass) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op in sorted(ops_in):
        r = per_op[op]
        lim = "; ".join(f"{m} ({k})" if k > 1 else m for m, k in sorted(r["limits"].items()))
        lim = lim.replace("|", "\\|")
        lines.append(f"| {op} | {_ranges(r['opsets'])} | {_ranges(r['pass_opsets'])} | "
                     f"{r['pass']}/{r['cases']} | {lim} |")
    lines += ["", "Out of scope:", ""]
    for op in sorted(op for op, r in per_op.items() if r["scope"]):
        lines.append(f"- {op} ({per_op[op]['scope']})")
    return "\n".join(lines) + "\n"


def read_ratchet():
    if not os.path.exists(RATCHET):
        return []
    with open(RATCHET) as f:
        return [s.strip() for s in f if s.strip() and not s.startswith("#")]


def conformance(pattern=None, workers=WORKERS, update=False, table_out=None, verbose=False):
    """Runs the suite; returns (problems, counts, wall seconds)."""
    cases = collect()
    info = case_info(cases)
    indices = [i for i, c in enumerate(cases) if not info[c.name][2]
               and (pattern is None or pattern in c.name)]
    t = time.time()
    results = run_all(indices, workers)
    wall = time.time() - t
    counts = {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0, "CRASH": 0}
    problems = []
    passing = set()
    for i in indices:
        r = results[i]
        counts[r["status"]] += 1
        name = cases[i].name
        if r["status"] == "PASS":
            passing.add(name)
        if r["status"] in ("FAIL", "CRASH"):
            problems.append(f"{r['status']} {name}: {r['msg']}")
        if verbose:
            print(f"{r['status']:11} {r['s']:6.2f}s {name} {r['msg']}")
    ran = {cases[i].name for i in indices}
    for name in read_ratchet():
        if name in ran and name not in passing:
            problems.append(f"REGRESSION {name}: listed in {os.path.basename(RATCHET)} "
                            "but does not pass now")
    full = pattern is None
    if full and (update or table_out):
        text = table(cases, info, results, wall)
        for path in ([TABLE] if update else []) + ([table_out] if table_out else []):
            with open(path, "w") as f:
                f.write(text)
    if full and update:
        with open(RATCHET, "w") as f:
            f.write("# ONNX node cases that pass (test_onnx_conformance.py --update); "
                    "the suite fails if one stops passing.\n")
            f.write("".join(n + "\n" for n in sorted(passing)))
    return problems, counts, wall


def test_onnx_node_conformance():
    out = os.environ.get("DLC_CONFORMANCE_TABLE")
    problems, counts, wall = conformance(table_out=out)
    print(f"ONNX node cases: {counts} in {wall:.0f} s")
    assert not problems, "\n".join(problems)
    assert counts["PASS"] >= len(read_ratchet())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    ap.add_argument("-j", dest="workers", type=int, default=WORKERS)
    ap.add_argument("-v", dest="verbose", action="store_true", help="one line per case")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the ratchet and docs/SupportedONNXOps.md (full runs only)")
    opts = ap.parse_args(argv)
    if opts.worker:
        return worker()
    problems, counts, wall = conformance(opts.pattern, opts.workers, opts.update,
                                         verbose=opts.verbose)
    for p in problems:
        print(p)
    print(f"{sum(counts.values())} in-scope cases: " +
          ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {wall:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
