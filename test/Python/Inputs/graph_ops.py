"""dlc.Graph has a method for every dlg op the C API lists, and each
elementwise method builds its op: the methods come from the dialect's
registration (dlcDlgGetNumOps), not from a list kept in graph.py."""
import dlc
from dlc.graph import dlg_ops

g = dlc.Graph()
ops = dlg_ops()
# The control-flow ops hold regions: Graph.if_ and Graph.while_ build them
# (and their terminators) from callbacks (python/dlc/control.py).
CONTROL = {"dlg.if": "if_", "dlg.while": "while_", "dlg.yield": "if_", "dlg.condition": "while_"}
missing = [n for n in ops
           if not callable(getattr(g, CONTROL.get(n, n[len("dlg."):]), None))]
print(f"ops: {len(ops)}, without a Graph method: {missing or 'none'}")
for info in sorted(ops.values(), key=lambda i: (i.family, i.name)):
    print(info.family, info.name)

# Every op of an elementwise family builds through its method.
x, y = g.input((2, 3)), g.input((3,))
built = []
for info in ops.values():
    method = getattr(g, CONTROL.get(info.name, info.name[len("dlg."):]))
    if info.family == "unary":
        built.append(method(x))
    elif info.family in ("binary", "compare"):
        built.append(method(x, y))
g.output(x)
mlir = g.mlir()
absent = [i.name for i in ops.values() if i.family in ("unary", "binary", "compare")
          and i.name + " " not in mlir]
print(f"elementwise built: {len(built)}, not in the module: {absent or 'none'}")
print(g.gelu.__doc__)
