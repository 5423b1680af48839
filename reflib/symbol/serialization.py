"""Symbol <-> JSON in MXNet's own schema, so symbol files move between MXNet and reflib.

The file is the graph in topological order::

    {"nodes": [{"op": "null", "name": "data", "inputs": []},
               {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "128"},
                "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}, ...],
     "arg_nodes": [indices of variable nodes],
     "node_row_ptr": [running count of outputs, one entry per node plus one],
     "heads": [[node index, output index, 0], ...],
     "attrs": {"mxnet_version": ["int", 10901]}}

Operator parameters are stored as the strings the user gave, exactly as MXNet
stores them, and parsed again on load.  Files from MXNet 0.x (``"param"`` and
``"attr"`` keys, two-element inputs) load too.
"""

import json

from ..base import GraphFormatError, MXNetError
from .. import operator as _ops
from ..operator.registry import input_positions
from ..shapes import is_np_shape
from .symbol import (Node, Symbol, _check_param_names, check_variable_attrs, missing_input, parse_shape_attr,
                     topo_order)

__all__ = ['to_json', 'load_json', 'load']

MXNET_VERSION = 10901


_AMP_CASTS = ('amp_cast', 'amp_multicast')


def _without_amp_casts(outputs):
    """A copy of the graph in which every input fed by an amp cast reads what the cast read
    (``amp_multicast``'s i-th output: its i-th input); a cast that is itself an output stays."""
    mapping = {}

    def source(node, index):
        while node.op is not None and node.op.name in _AMP_CASTS:
            node, index = node.inputs[0 if node.op.name == 'amp_cast' else index]
        return mapping[id(node)], index

    for node in topo_order(outputs):
        new = Node.__new__(Node)
        new.op, new.name, new.attrs, new.params = node.op, node.name, dict(node.attrs), node.params
        new.inputs = [source(child, i) for child, i in node.inputs]
        mapping[id(node)] = new
    return [(mapping[id(node)], i) for node, i in outputs]


def to_json(sym, remove_amp_cast=False):
    """The graph of ``sym`` as the text of MXNet's JSON format (``nodes``, ``arg_nodes``,
    ``node_row_ptr``, ``heads``, ``attrs``), the form ``Symbol.tojson`` returns and
    ``mx.sym.load_json`` reads.  Node attributes are written sorted by key, as MXNet does, and
    inside ``mx.np_shape()`` the file is marked ``is_np_shape``.

    Args:
        sym (Symbol): the graph.
        remove_amp_cast: leave out the ``amp_cast``/``amp_multicast`` nodes that mixed
            precision inserted (their readers read the casts' inputs instead); a cast that is
            itself an output of the graph stays.

    Returns:
        str
    """
    outputs = sym._outputs
    if remove_amp_cast and any(n.op is not None and n.op.name in _AMP_CASTS for n in topo_order(outputs)):
        sym = Symbol(_without_amp_casts(outputs))
    nodes = topo_order(sym._outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    out_nodes, row_ptr = [], [0]
    # The third field of an input is the variable's *version*: an operator that updates a
    # variable in place (an auxiliary state, e.g. BatchNorm's moving mean) bumps it, and every
    # later reader of that variable records the bumped number.  Graph order is build order here.
    version = {}
    for node in nodes:
        entry = {'op': 'null' if node.op is None else node.op.name, 'name': node.name}
        if node.attrs:
            # sorted by key, as MXNet writes them (a std::map): a graph built in code and the same
            # graph loaded from MXNet's file then give the same text, which scripts compare
            # (example/image-classification/common/fit.py asserts it when resuming)
            entry['attrs'] = dict(sorted(node.attrs.items()))
        inputs = []
        for k in _file_order(node):
            child, i = node.inputs[k]
            v = 0
            if child.op is None:
                if k >= node.num_args():  # mutated input
                    version[id(child)] = version.get(id(child), 0) + 1
                v = version.get(id(child), 0)
            inputs.append([index[id(child)], i, v])
        entry['inputs'] = inputs
        out_nodes.append(entry)
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    graph = {
        'nodes': out_nodes,
        'arg_nodes': [i for i, n in enumerate(nodes) if n.op is None],
        'node_row_ptr': row_ptr,
        'heads': [[index[id(n)], i, 0] for n, i in sym._outputs],
        'attrs': {'mxnet_version': ['int', MXNET_VERSION]},
    }
    if is_np_shape():
        # the file says its shapes read 0 as a size (MXNet's mark), so a later load keeps them
        graph['attrs']['is_np_shape'] = ['int', 1]
    return json.dumps(graph, indent=2)


def _expect(condition, where, message, *args):
    if not condition:
        raise GraphFormatError('load_json: %s%s' % (where, message % args if args else message))


def _is_index(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _entry(raw, where, what):
    """An input or head reference: ``[node, output]`` or ``[node, output, version]``."""
    _expect(isinstance(raw, list) and len(raw) in (2, 3) and all(_is_index(v) for v in raw), where,
            '%s must be [node index, output index] or [node, output, version] of integers, got %r', what, raw)
    return raw[0], raw[1]


def _parse_document(text):
    try:
        graph = json.loads(text)
    except RecursionError:
        raise GraphFormatError('load_json: the JSON is nested too deeply to be a symbol') from None
    except ValueError as err:
        raise GraphFormatError('load_json: not valid JSON (%s)' % err) from None
    _expect(isinstance(graph, dict), '', 'a symbol file is a JSON object, got %s', type(graph).__name__)
    for key in ('nodes', 'heads'):
        _expect(key in graph, '', 'no %r list: not a symbol JSON document', key)
        _expect(isinstance(graph[key], list), '', '%r must be a list, got %s', key, type(graph[key]).__name__)
    _expect(graph['nodes'], '', 'the graph has no nodes')
    return graph


def _make_node(k, raw):
    """Node ``k`` with its operator and parsed parameters; inputs are linked later."""
    where = 'node %d: ' % k
    _expect(isinstance(raw, dict), where, 'a node is a JSON object, got %r', raw)
    name, op_name = raw.get('name'), raw.get('op')
    _expect(isinstance(name, str), where, '"name" must be a string, got %r', name)
    where = 'node %d (%r): ' % (k, name)
    _expect(isinstance(op_name, str), where, '"op" must be a string ("null" for a variable), got %r', op_name)
    attrs = {}
    for key in ('param', 'attr', 'attrs'):  # 0.x files split params and attrs
        part = raw.get(key) or {}
        _expect(isinstance(part, dict), where, '%r must be an object of strings, got %r', key, part)
        for attr, value in part.items():
            _expect(isinstance(value, str), where, 'attribute %r must be a string, as MXNet writes it, got %r',
                    attr, value)
        attrs.update(part)
    op = None
    if op_name != 'null':
        try:
            op = _ops.get(op_name)
        except MXNetError:
            raise GraphFormatError('load_json: %suses operator %r, which reflib does not implement'
                                   % (where, op_name)) from None
    try:
        if op is None:
            check_variable_attrs(name, attrs)
        else:
            _check_param_names(op, name, attrs)
        return Node(op, name, attrs)
    except MXNetError as err:
        raise type(err)('load_json: node %d: %s' % (k, err)) from None


def _marked_np_shape(graph):
    attrs = graph.get('attrs')
    return isinstance(attrs, dict) and 'is_np_shape' in attrs


def _unknown_dims_as_minus_one(nodes):
    """A file written with legacy shapes, loaded under NumPy shape semantics: its variables'
    0 dimensions meant "unknown", which now reads -1 (MXNet rewrites them so, as ``[4,-1]``)."""
    for node in nodes:
        shape = parse_shape_attr(node.attrs['__shape__']) if node.op is None and '__shape__' in node.attrs else None
        if shape is not None:
            node.attrs['__shape__'] = '[%s]' % ','.join(str(d if d > 0 else -1) for d in shape)


# MXNet 0.9 (version 900) on lists every input; for older files its loader adds the missing ones
_LISTS_EVERY_INPUT = 900


def _written_by_version(graph):
    """The ``mxnet_version`` a document says it was written by (0 when it says none)."""
    attrs = graph.get('attrs')
    version = attrs.get('mxnet_version') if isinstance(attrs, dict) else None
    if isinstance(version, list) and len(version) == 2 and isinstance(version[1], int):
        return version[1]
    return 0


def _link_inputs(k, node, raw, nodes, legacy=False):
    where = 'node %d (%r, %s): ' % (k, node.name, 'variable' if node.op is None else node.op.name)
    refs = raw.get('inputs', [])
    _expect(isinstance(refs, list), where, '"inputs" must be a list, got %r', refs)
    if node.op is None:
        _expect(not refs, where, 'a variable has no inputs, got %d', len(refs))
        return
    names = node.op.input_order(node.params)       # the file's order, MXNet's
    _expect(len(refs) <= len(names), where, '%d inputs, but %s takes %d: %s', len(refs), node.op.name,
            len(names), ', '.join(names))
    _expect(len(refs) == len(names) or legacy, where, '%d input%s, but %s takes %d: %s (the missing: %s)',
            len(refs), '' if len(refs) == 1 else 's', node.op.name, len(names), ', '.join(names),
            ', '.join(names[len(refs):]))
    at = _file_order(node)                          # file position -> the node's position
    linked = {}
    for pos, ref in enumerate(refs):
        src, index = _entry(ref, where, 'input %d (%s)' % (pos, names[pos]))
        _expect(0 <= src < len(nodes), where, 'input %d (%s) refers to node %d; the graph has nodes 0 to %d',
                pos, names[pos], src, len(nodes) - 1)
        source = nodes[src]
        _expect(0 <= index < source.num_outputs(), where, 'input %d (%s) reads output %d of node %d (%r), '
                'which has %d', pos, names[pos], index, src, source.name, source.num_outputs())
        if at[pos] >= node.num_args():
            _expect(source.op is None, where, 'input %d (%s) is an auxiliary state and must be a variable, '
                    'got the output of node %d (%r)', pos, names[pos], src, source.name)
        linked[at[pos]] = (source, index)
    # the node keeps the registry's order (inputs, then states); a file of no version or before
    # 0.9 may leave trailing inputs out: each becomes a new variable (<node>_<input>), as MXNet's
    # upgrade of such files does
    for k in range(len(names)):
        node.inputs.append(linked[k] if k in linked else (missing_input(node, k), 0))


def _file_order(node):
    """The positions of ``node.inputs`` in the order a file lists them: the operator's
    ``input_order``, which differs from the node's own (inputs, then states) for the few
    operators whose states sit among their inputs."""
    if node.op is None:
        return range(len(node.inputs))
    return input_positions(node.op, node.params)


def _check_acyclic(nodes):
    """reflib is stricter than MXNet here: a cycle is refused at load, not left to hang later."""
    state = {}                                      # id -> 1 on the path, 2 done
    for start in nodes:
        if state.get(id(start)):
            continue
        stack = [(start, iter(start.inputs))]
        state[id(start)] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[id(node)] = 2
                stack.pop()
                continue
            child = child[0]
            if state.get(id(child)) == 1:
                raise GraphFormatError('load_json: node %r is its own input through a cycle of %d nodes'
                                       % (child.name, len(stack) - [id(n) for n, _ in stack].index(id(child))))
            if not state.get(id(child)):
                state[id(child)] = 1
                stack.append((child, iter(child.inputs)))


def load_json(json_str):
    """A Symbol from JSON text written by MXNet or reflib.

    Every malformed document raises :class:`~reflib.base.GraphFormatError` (or a
    :class:`~reflib.base.ParamError` for a bad operator parameter) naming the node, by index
    and name, and what is wrong with it.  Nodes may come in any order, as in MXNet.  An
    operator node must list exactly the inputs its operator takes (its attributes decide
    how many, for ``Concat`` say), as MXNet 1.9.1 requires of the files it writes; only a
    file that says no version, or one older than MXNet 0.9 (which did not list auxiliary
    states), may leave out trailing inputs, which become new variables, as MXNet's upgrade
    of such files makes them.  reflib is stricter than
    MXNet 1.9.1 where MXNet would build a graph that fails or crashes later: an output index
    the source node does not have, a variable with inputs, an auxiliary state that is not a
    variable, and a cycle are all refused here.
    """
    if isinstance(json_str, bytes):
        try:
            json_str = json_str.decode('utf-8')
        except UnicodeDecodeError as err:
            raise GraphFormatError('load_json: the file is not UTF-8 text (%s)' % err) from None
    graph = _parse_document(json_str)
    raw_nodes = graph['nodes']
    nodes = [_make_node(k, raw) for k, raw in enumerate(raw_nodes)]
    if is_np_shape() and not _marked_np_shape(graph):
        _unknown_dims_as_minus_one(nodes)
    legacy = _written_by_version(graph) < _LISTS_EVERY_INPUT
    for k, (node, raw) in enumerate(zip(nodes, raw_nodes)):
        _link_inputs(k, node, raw, nodes, legacy)
    heads = []
    for h, ref in enumerate(graph['heads']):
        src, index = _entry(ref, '', 'head %d' % h)
        _expect(0 <= src < len(nodes), '', 'head %d refers to node %d; the graph has nodes 0 to %d', h, src,
                len(nodes) - 1)
        _expect(0 <= index < nodes[src].num_outputs(), '', 'head %d reads output %d of node %d (%r), which has %d',
                h, index, src, nodes[src].name, nodes[src].num_outputs())
        heads.append((nodes[src], index))
    _expect(heads, '', 'the graph has no heads (outputs)')
    _check_acyclic(nodes)
    return Symbol(heads)


def load(fname):
    """A Symbol from a ``*-symbol.json`` file (see :func:`load_json` for what is checked)."""
    with open(fname, 'rb') as f:
        return load_json(f.read())
