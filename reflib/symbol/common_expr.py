"""Common-expression elimination: the graph pass MXNet's executor runs at bind.

``(a + b) * (a + b)`` builds two ``elemwise_add`` nodes that compute the same thing.  Two
operator nodes are the same computation when they apply the same operator, with the same
attributes, to the same inputs; the pass keeps the first and points every reader of the
second at it, so the executor runs it once and plans memory for one result.  Walking the
nodes inputs-first makes the merge cascade: once the two additions are one node, two
multiplications of it are the same too.  MXNet 1.9.1 runs this at every bind unless the
environment sets ``MXNET_ELIMINATE_COMMON_EXPR=0``; ``Executor.get_optimized_symbol()``
shows the result.

Never merged, as in MXNet: variables, nodes with no inputs (``ones``, random sampling),
operators that update an auxiliary state (BatchNorm's moving mean), and operators marked
``eliminable = False``.  When merging leaves one entry as two of the graph's outputs,
each repeat gets its own ``_copy`` node (``<node>_<k>_copy``), so outputs stay distinct
arrays.
"""

import os

from .. import operator as _ops
from .symbol import Node, Symbol, topo_order

__all__ = ['eliminate_common_expr', 'elimination_enabled']


def elimination_enabled():
    """MXNet's switch: on unless ``MXNET_ELIMINATE_COMMON_EXPR`` is ``0``."""
    return os.environ.get('MXNET_ELIMINATE_COMMON_EXPR', '1').strip() not in ('0', 'false', 'False')


def _mergeable(node):
    return node.op.eliminable and bool(node.inputs) and not node.op.aux(node.params)


def eliminate_common_expr(sym):
    """``sym`` with repeated computations merged (a new Symbol; ``sym`` is not changed)."""
    kept = {}        # id(node in sym) -> the node that stands for it
    first = {}       # (operator, attributes, inputs) -> the first node computing it
    for node in topo_order(sym._outputs):
        if node.op is None:
            kept[id(node)] = node
            continue
        inputs = [(kept[id(child)], i) for child, i in node.inputs]
        key = None
        if _mergeable(node):
            key = (id(node.op), tuple(sorted(node.attrs.items())), tuple((id(c), i) for c, i in inputs))
            if key in first:
                kept[id(node)] = first[key]
                continue
        stand_in = node
        if any(new is not old for (new, _), (old, _) in zip(inputs, node.inputs)):
            stand_in = Node(node.op, node.name, node.attrs, inputs)    # reads a merged node
        kept[id(node)] = stand_in
        if key is not None:
            first[key] = stand_in
    outputs = [(kept[id(n)], i) for n, i in sym._outputs]
    merged = len(kept) > len({id(n) for n in kept.values()})
    return Symbol(_distinct_outputs(outputs) if merged else outputs)


def _distinct_outputs(outputs):
    """Each repeat of an output entry read through its own ``_copy`` node, as MXNet does
    after a merge (it names them ``<node>_<k>_copy``)."""
    repeats, distinct = {}, []
    for node, i in outputs:
        k = repeats.get((id(node), i))
        repeats[(id(node), i)] = 0 if k is None else k + 1
        if k is None:
            distinct.append((node, i))
        else:
            distinct.append((Node(_ops.get('_copy'), '%s_%d_copy' % (node.name, k), {}, [(node, i)]), 0))
    return distinct
