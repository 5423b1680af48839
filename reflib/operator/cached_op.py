"""``_CachedOp``: how ``autograd.get_symbol`` shows a hybridized block's call that it does not
inline.

A hybridized block runs its traced graph as one call (reflib/executor/cached_graph.py).  When
``get_symbol`` rebuilds a recorded computation, a call whose graph has at most ``inline_limit``
operators (``hybridize(inline_limit=...)``, 2 by default) is written out operator by operator;
a bigger one stays a single ``_CachedOp`` node, its inputs the call's inputs and its outputs
named ``<node>_<the graph's output name>``, as in MXNet 1.9.1.  MXNet writes no attributes
and no subgraph for it, so such a Symbol can be shown and saved but not bound, in MXNet as
here: shape inference refuses it with a pointer to ``inline_limit``.
"""

from ..base import MXNetError
from .registry import Operator, register


@register
class CachedOpCall(Operator):
    """One hybridized call, opaque: ``p.input_names``/``p.output_names`` are set by
    ``autograd.get_symbol`` when it makes the node (a node read from JSON has none)."""
    name = '_CachedOp'
    has_function = False        # (MXNet 1.9.1 has no mx.nd._CachedOp or mx.sym._CachedOp either)
    eliminable = False
    differentiable = False

    def inputs(self, p):
        return list(getattr(p, 'input_names', ()))

    def outputs(self, p):
        return list(getattr(p, 'output_names', ('output',)))

    def _refuse(self):
        raise MXNetError('_CachedOp: this node stands for a hybridized block\'s call whose graph is not in the '
                         'Symbol (autograd.get_symbol keeps calls of more than inline_limit operators whole, as '
                         'MXNet 1.9.1 does), so it cannot be run or inferred; hybridize(inline_limit=N), N at '
                         'least the block\'s operator count, makes get_symbol write its operators out')

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._refuse()

    def infer_type(self, p, in_types, out_types, aux_types):
        self._refuse()

    def forward(self, p, env, inputs, aux):
        self._refuse()
