"""Validation of an ONNX graph before dlc imports it.

`check(model)` returns the model to import or raises dlc.CompileError naming
the node and the input (or output) at fault. In order:

1. Text fields are UTF-8: protobuf hands an invalid field back as bytes,
   which the importer would trip over with a TypeError.
2. The default-domain opset is declared. Its range is dlc.onnx's concern:
   it imports OPSET_RANGE natively and converts others with
   onnx.version_converter, or raises UnsupportedOpsetError naming the opset.
3. The graph is well formed: every node input is produced by a node or
   declared (graph input or initializer), no name is produced twice, every
   graph output is produced or declared, and the nodes form no cycle (a
   self-cycle included).
4. Order: the ONNX spec requires nodes in topological order. A graph that
   is acyclic but out of order is SORTED (a stable topological sort: nodes
   keep their relative order where the data flow allows), since the order
   carries no meaning once the graph is known to be a DAG; a cycle is an
   error naming a node on it and the input that closes it.
   Initializers and tensor attributes (subgraphs' too) hold exactly the
   data their dims declare, of an element type ONNX defines; graph inputs
   declare no negative dim.
5. onnx.checker.check_model on the (sorted) model, where it applies:
   models under protobuf's 2 GiB limit (larger ones must be checked from
   their file and are skipped here); its message becomes the error.

During the import itself, `node_errors(node)` turns any other exception a
malformed node provokes into a CompileError naming that node.
"""

from .errors import CompileError

try:
    import onnx as _onnx
except ImportError:  # pragma: no cover - onnx is an optional dependency
    _onnx = None

def _fail(message):
    raise CompileError(message, "")


def _node_name(node, index):
    """As UnsupportedError names a node: its name, else its first output,
    else its position (`index`, '?' where unknown)."""
    name = node.name if isinstance(node.name, str) else repr(node.name)
    if not name and node.output and isinstance(node.output[0], str):
        name = node.output[0]
    op = node.op_type if isinstance(node.op_type, str) else repr(node.op_type)
    return f"ONNX node '{name or f'#{index}'}' ({op})"


def _check_text(graph):
    """Every name and op_type the importer reads is a str (valid UTF-8)."""
    for kind, values in (("graph input", graph.input), ("graph output", graph.output),
                         ("initializer", graph.initializer)):
        for v in values:
            if not isinstance(v.name, str):
                _fail(f"ONNX {kind} name {v.name!r} is not valid UTF-8")
    for i, node in enumerate(graph.node):
        fields = [("op_type", node.op_type), ("name", node.name), ("domain", node.domain)]
        fields += [(f"input {k}", s) for k, s in enumerate(node.input)]
        fields += [(f"output {k}", s) for k, s in enumerate(node.output)]
        for field, value in fields:
            if not isinstance(value, str):
                _fail(f"{_node_name(node, i)}: {field} {value!r} is not valid UTF-8")
        if node.domain in ("", "ai.onnx"):  # their string attributes are names and modes
            for a in node.attribute:
                for v in [a.s] + list(a.strings):
                    try:
                        v.decode("utf-8")
                    except UnicodeDecodeError:
                        _fail(f"{_node_name(node, i)}: attribute '{a.name}' value {v!r} is not "
                              "valid UTF-8")


# Bytes per element of each fixed-size ONNX element type, and the typed
# field its values take without raw_data (a complex number is two values).
# numpy_helper.to_array would otherwise meet a wrong length with a bare
# ValueError ("cannot reshape array of size 6 into shape (1,12,2)") and an
# unknown type code with a KeyError.
_ELEMENT_BYTES = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4,
                  13: 8, 14: 8, 15: 16, 16: 2}
_TYPED_FIELDS = {1: "float_data", 2: "int32_data", 3: "int32_data", 4: "int32_data",
                 5: "int32_data", 6: "int32_data", 7: "int64_data", 9: "int32_data",
                 10: "int32_data", 11: "double_data", 12: "uint64_data", 13: "uint64_data",
                 14: "float_data", 15: "double_data", 16: "int32_data"}
_STRING = 8


def _type_name(code):
    """ONNX's name for element type `code` (FLOAT, INT64 ...), else the code."""
    try:
        return _onnx.TensorProto.DataType.Name(code) if _onnx else f"code {code}"
    except ValueError:
        return f"code {code}"


def _check_tensor(t, what):
    """`t` (a TensorProto) holds exactly the elements its dims declare, of an
    element type ONNX defines."""
    if any(d < 0 for d in t.dims):
        _fail(f"{what}: negative dim in {list(t.dims)}")
    count = 1
    for d in t.dims:
        count *= d
    if t.data_location == 1:
        return  # external data: onnx.load has read it, or failed naming the file
    if t.data_type == _STRING:
        have, want, unit = len(t.string_data), count, "strings"
    elif t.data_type not in _ELEMENT_BYTES:
        _fail(f"{what}: element type code {t.data_type} is not an ONNX tensor type")
    elif t.HasField("raw_data"):
        have, want, unit = len(t.raw_data), count * _ELEMENT_BYTES[t.data_type], "bytes"
    else:
        per = 2 if t.data_type in (14, 15) else 1
        have, want = len(getattr(t, _TYPED_FIELDS[t.data_type])), count * per
        unit = "values"
    if have != want:
        _fail(f"{what}: dims {list(t.dims)} need {want} {unit} of data, it holds {have}")


def _check_initializers(graph, where=""):
    """Each initializer and each tensor attribute, in subgraphs too, holds
    exactly the elements its dims declare."""
    for t in graph.initializer:
        _check_tensor(t, f"ONNX initializer '{t.name}'{where}")
    for i, node in enumerate(graph.node):
        for attr in node.attribute:
            what = f"{_node_name(node, i)}: attribute '{attr.name}'"
            if attr.HasField("t"):
                _check_tensor(attr.t, what)
            for t in attr.tensors:
                _check_tensor(t, what)
            inner = ([attr.g] if attr.HasField("g") else []) + list(attr.graphs)
            for g in inner:
                _check_initializers(g, f" (in the subgraph of {_node_name(node, i)})")


def _check_inputs(graph):
    """No graph input declares a negative dim (dlc would take it as a static
    size) or an element type code ONNX does not define (onnx.helper's
    lookup raised 'Enum DataType has no name defined for value 99')."""
    inits = {t.name: t for t in graph.initializer}
    for v in graph.input:
        tt = v.type.tensor_type
        t = inits.get(v.name)
        if t is not None and v.type.HasField("tensor_type"):
            # an initializer is the input's default value (dlc takes it as a
            # constant): one that disagrees with the input's declaration
            # was taken as it is (an ONNX mutation campaign)
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
            if tt.elem_type and tt.elem_type != t.data_type:
                _fail(f"ONNX graph input '{v.name}': declared element type "
                      f"{_type_name(tt.elem_type)}, its initializer holds "
                      f"{_type_name(t.data_type)}")
            if tt.HasField("shape") and (len(dims) != len(t.dims) or
                                         any(d is not None and d != e for d, e in zip(dims, t.dims))):
                _fail(f"ONNX graph input '{v.name}': declared shape "
                      f"{['?' if d is None else d for d in dims]}, its initializer has dims "
                      f"{list(t.dims)}")
        if v.type.HasField("tensor_type") and tt.elem_type not in _ELEMENT_BYTES and \
                tt.elem_type != _STRING:
            _fail(f"ONNX graph input '{v.name}': element type code {tt.elem_type} is not an "
                  "ONNX tensor type")
        for d in tt.shape.dim:
            if d.HasField("dim_value") and d.dim_value < 0:
                _fail(f"ONNX graph input '{v.name}': negative dim {d.dim_value} in its shape")


class node_errors:
    """`with node_errors(node):` around importing one node turns an
    exception that is not a CompileError (NumPy folding a malformed shape,
    a missing attribute...) into a CompileError naming the node."""

    def __init__(self, node):
        self.node = node

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None or issubclass(kind, CompileError) or not issubclass(kind, Exception):
            return False
        raise CompileError(f"{_node_name(self.node, '?')}: cannot import: "
                           f"{kind.__name__}: {value}", "") from value


def _check_opset(model):
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not versions:
        _fail("the ONNX model declares no opset for the default domain (ai.onnx)")


def _with_shape_fields(model):
    """The model for onnx.checker: onnx 1.12's checker demands a `shape` on
    every graph input/output/value_info tensor type, while the ONNX spec
    (and later checkers) let it be absent (rank unknown), which exporters
    write for outputs and dlc infers anyway. A copy with an empty shape
    field where one is missing (the checker's other rules still apply;
    shapes are not inferred by it); the model itself is unchanged."""
    infos = lambda m: [*m.graph.input, *m.graph.output, *m.graph.value_info]
    missing = lambda vi: (vi.type.HasField("tensor_type")
                          and not vi.type.tensor_type.HasField("shape"))
    if not any(missing(vi) for vi in infos(model)):
        return model
    copy = type(model)()
    copy.CopyFrom(model)
    for vi in infos(copy):
        if missing(vi):
            vi.type.tensor_type.shape.SetInParent()
    return copy


def _outer_refs(node):
    """The outer-scope names a node's subgraphs (If branches, Loop/Scan
    bodies) read: the node waits on their producers too."""
    refs = []
    for a in node.attribute:
        for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
            inner = {v.name for v in g.input} | {t.name for t in g.initializer}
            inner |= {o for n in g.node for o in n.output}
            for n in g.node:
                refs += [s for s in list(n.input) + _outer_refs(n) if s and s not in inner]
            refs += [o.name for o in g.output if o.name not in inner]
    return refs


def _sorted_nodes(graph):
    """The nodes in a stable topological order, or a CompileError naming the
    first node that cannot be placed and why."""
    declared = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    producer = {}
    for i, node in enumerate(graph.node):
        for out in node.output:
            if not out:
                continue
            if out in declared:
                _fail(f"{_node_name(node, i)}: output '{out}' redefines a graph input "
                      "or initializer")
            if out in producer:
                j = producer[out]
                _fail(f"{_node_name(node, i)}: output '{out}' is also produced by "
                      f"{_node_name(graph.node[j], j)}")
            producer[out] = i
    # Each node waits on the producers of its inputs.
    waits = []
    users = [[] for _ in graph.node]
    for i, node in enumerate(graph.node):
        deps = set()
        for inp in list(node.input) + _outer_refs(node):
            if not inp or inp in declared:
                continue
            if inp not in producer and inp not in node.input:  # checked inside the subgraph
                continue
            if inp not in producer:
                _fail(f"{_node_name(node, i)}: input '{inp}' is produced by no node and is "
                      "not a graph input or initializer")
            j = producer[inp]
            if j == i:
                _fail(f"{_node_name(node, i)}: input '{inp}' is its own output (a cycle)")
            deps.add(j)
        waits.append(len(deps))
        for j in deps:
            users[j].append(i)
    for out in graph.output:
        if out.name not in producer and out.name not in declared:
            _fail(f"ONNX graph output '{out.name}' is produced by no node and is not a "
                  "graph input or initializer")
    # Kahn's algorithm, always taking the earliest ready node: a graph
    # already in order comes back unchanged.
    import heapq
    ready = [i for i, w in enumerate(waits) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            waits[u] -= 1
            if waits[u] == 0:
                heapq.heappush(ready, u)
    if len(order) < len(graph.node):
        placed = set(order)
        i = next(k for k in range(len(graph.node)) if k not in placed)
        node = graph.node[i]
        inp = next(s for s in node.input
                   if s in producer and producer[s] not in placed)
        _fail(f"{_node_name(node, i)}: input '{inp}' depends on the node's own output "
              "through a cycle")
    return order


def check(model):
    """`model` (an onnx.ModelProto) validated; a topologically sorted copy
    when its nodes were out of order. Raises dlc.CompileError otherwise."""
    graph = model.graph
    _check_text(graph)
    _check_opset(model)
    _check_initializers(graph)
    _check_inputs(graph)
    order = _sorted_nodes(graph)
    if order != list(range(len(graph.node))):
        sorted_model = type(model)()
        sorted_model.CopyFrom(model)
        del sorted_model.graph.node[:]
        sorted_model.graph.node.extend(graph.node[i] for i in order)
        model = sorted_model
    if _onnx is not None and model.ByteSize() < (1 << 31) - 1:
        try:
            _onnx.checker.check_model(_with_shape_fields(model))
        except _onnx.checker.ValidationError as e:
            first = str(e).strip().splitlines()
            _fail("the ONNX model is invalid (onnx.checker): " +
                  (first[0] if first else "no detail given"))
    return model
