"""Checks a dlc-run --profile-trace file: Chrome trace JSON with one complete
event per run and per kernel call, each kernel call inside its run."""
import json
import sys
from collections import Counter

with open(sys.argv[1]) as f:
    trace = json.load(f)
events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
runs = [e for e in events if e["cat"] == "run"]
calls = [e for e in events if e["cat"] != "run"]
print("runs", len(runs))
count = Counter(e["name"] for e in calls)
for name in sorted(count):
    e = next(c for c in calls if c["name"] == name)
    a = e["args"]
    print(name, e["cat"], count[name], f"root={a['root']} flops={a['flops']} bytes={a['bytes']}")
inside = all(any(r["ts"] <= c["ts"] and c["ts"] + c["dur"] <= r["ts"] + r["dur"] + 1e-3
                 for r in runs) for c in calls)
print("nested ok" if inside and all(e["dur"] >= 0 for e in events) else "nested BAD")
