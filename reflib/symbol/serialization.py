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

from ..base import MXNetError
from .. import operator as _ops
from .symbol import Node, Symbol, topo_order

__all__ = ['to_json', 'load_json', 'load']

MXNET_VERSION = 10901


def to_json(sym):
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
            entry['attrs'] = dict(node.attrs)
        inputs = []
        for k, (child, i) in enumerate(node.inputs):
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
    return json.dumps(graph, indent=2)


def load_json(json_str):
    """A Symbol from JSON text written by MXNet or reflib."""
    try:
        graph = json.loads(json_str)
        raw_nodes, raw_heads = graph['nodes'], graph['heads']
    except (ValueError, KeyError, TypeError) as err:
        raise MXNetError('load_json: not a symbol JSON document (%s)' % err) from None
    nodes = []
    for k, raw in enumerate(raw_nodes):
        attrs = {}
        for key in ('param', 'attr', 'attrs'):  # 0.x files split params and attrs
            attrs.update(raw.get(key) or {})
        op_name = raw.get('op', 'null')
        try:
            op = None if op_name == 'null' else _ops.get(op_name)
        except MXNetError:
            raise MXNetError('load_json: node %d (%r) uses operator %r, which reflib does not implement'
                             % (k, raw.get('name'), op_name)) from None
        node = Node(op, raw['name'], attrs)
        for ref in raw.get('inputs', []):
            if ref[0] >= k:
                raise MXNetError('load_json: node %r refers to a later node %d' % (raw['name'], ref[0]))
            node.inputs.append((nodes[ref[0]], ref[1]))
        nodes.append(node)
    return Symbol([(nodes[h[0]], h[1]) for h in raw_heads])


def load(fname):
    """A Symbol from a ``*-symbol.json`` file."""
    with open(fname, 'r') as f:
        return load_json(f.read())
