"""``mx.autograd``: gradients of imperative NDArray code, as MXNet 1.x computes them::

    x = mx.nd.array([1., 2., 3.])
    x.attach_grad()                 # x becomes a variable: x.grad is its gradient buffer
    with mx.autograd.record():      # every operator call in here goes on the tape
        y = (x * x).sum()
    y.backward()                    # x.grad == 2 * x

The tape and its backward are in reflib/ndarray/tape.py: each recorded call is differentiated
by its operator's own ``backward``, the one the executor of chapters 4-8 calls.  Besides the
recording flag there is a *training* flag: ``record()`` turns it on by default, and Dropout
and BatchNorm follow it (``record(train_mode=False)`` records in inference mode;
``train_mode()``/``predict_mode()`` set it without recording).
"""

import contextlib

from .base import MXNetError
from .ndarray import NDArray
from .ndarray import tape
from .operator import get as get_operator

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training', 'set_recording',
           'set_training', 'mark_variables', 'backward', 'grad', 'get_symbol', 'Function']

is_recording = tape.is_recording
is_training = tape.is_training
set_recording = tape.set_recording
set_training = tape.set_training


@contextlib.contextmanager
def _scope(recording, training):
    """Set the flags given (None: leave as is) for the block, then put back what was there."""
    before = (is_recording(), is_training())
    if recording is not None:
        set_recording(recording)
    if training is not None:
        set_training(training)
    try:
        yield
    finally:
        set_recording(before[0])
        set_training(before[1])


def record(train_mode=True):  # noqa: F811 (MXNet's argument name)
    """Record the operator calls of the block for ``backward``; ``train_mode`` for the block too."""
    return _scope(True, train_mode)


def pause(train_mode=False):  # noqa: F811
    """Stop recording for the block (its calls get no gradient); ``train_mode`` for the block."""
    return _scope(False, train_mode)


def train_mode():
    """Training mode for the block (Dropout active), recording left as it is."""
    return _scope(None, True)


def predict_mode():
    """Inference mode for the block, recording left as it is."""
    return _scope(None, False)


def _as_list(value, what):
    if isinstance(value, NDArray):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, NDArray) for v in value):
        return list(value)
    raise MXNetError('%s must be an NDArray or a list of NDArrays, got %r' % (what, type(value).__name__))


def mark_variables(variables, gradients, grad_reqs='write'):
    """Make each array a variable whose gradient goes into the matching array of ``gradients``."""
    variables, gradients = _as_list(variables, 'variables'), _as_list(gradients, 'gradients')
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    if not len(variables) == len(gradients) == len(reqs):
        raise MXNetError('mark_variables: %d variables, %d gradients and %d grad_reqs must match'
                         % (len(variables), len(gradients), len(reqs)))
    for var, gradient, req in zip(variables, gradients, reqs):
        if gradient.shape != var.shape:
            raise MXNetError('mark_variables: a gradient of shape %s for a variable of shape %s'
                             % (gradient.shape, var.shape))
        tape.mark_variable(var, gradient, req)


def _head_grads(heads, head_grads):
    if head_grads is None:
        return [None] * len(heads)
    grads = [head_grads] if isinstance(head_grads, NDArray) else list(head_grads)
    if len(grads) != len(heads):
        raise MXNetError('backward: %d heads but %d head gradients' % (len(heads), len(grads)))
    return grads


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: F811
    """Differentiate ``heads`` (each with its head gradient, ones by default) into the
    ``.grad`` of every variable they depend on."""
    heads = _as_list(heads, 'heads')
    tape.backward(heads, _head_grads(heads, head_grads), retain_graph, train_mode)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):  # noqa: F811
    """The gradients of ``heads`` with respect to ``variables``, returned as new arrays; the
    variables' ``.grad`` are left alone.  ``create_graph`` (gradients that are themselves
    recorded, for second derivatives) is refused: reflib's operators have first-order
    backward passes only."""
    if create_graph:
        raise MXNetError('autograd.grad: create_graph=True (differentiating a gradient) is not supported: '
                         "reflib's operators have first-order backward passes only")
    heads, variables = _as_list(heads, 'heads'), _as_list(variables, 'variables')
    if any(not isinstance(getattr(v, '_entry', None), tape.Variable) for v in variables):
        raise MXNetError('autograd.grad: every variable must be marked first (attach_grad or mark_variables)')
    retain = create_graph if retain_graph is None else retain_graph
    raws = tape.backward(heads, _head_grads(heads, head_grads), retain, train_mode, variables)
    out = []
    for var, raw in zip(variables, raws):
        with var.context.device_scope():
            # a copy: the raw gradient may be an executor's memory (a hybridized block's)
            out.append(NDArray(var.xp.zeros_like(var._data) if raw is None else raw.astype(var.dtype, copy=True),
                               var.context))
    return out


def get_symbol(x):
    """The recorded computation of ``x`` as a Symbol: its operators as nodes ``node_<n>``,
    the variables it started from as ``var<n>``, other arrays it read as ``null<n>``
    (numbered as MXNet numbers them: inputs first, in the order the operators read them).

    A hybridized block's call is written out operator by operator when its graph has at
    most ``inline_limit`` operators (``hybridize``'s flag, 2 by default), else kept as one
    ``_CachedOp`` node (reflib/operator/cached_op.py), as MXNet 1.9.1 does."""
    from .symbol.symbol import Node as GraphNode, Symbol, topo_order   # (the graph layer sits above NDArray's)
    entry = getattr(x, '_entry', None)
    if entry is None or isinstance(entry, tape.Variable) or entry[0].freed:
        raise MXNetError('get_symbol: the array is not the result of a recorded computation (or its graph '
                         'was freed by backward)')
    made, leaves, counts = {}, {}, {'leaf': 0, 'node': 0}

    def leaf(key, prefix):
        if key not in leaves:
            leaves[key] = GraphNode(None, '%s%d' % (prefix, counts['leaf']))
            counts['leaf'] += 1
        return leaves[key]

    def input_of(node, k):
        """Where input ``k`` of a recorded call comes from, as a graph entry."""
        source = node.sources[k] if k < len(node.sources) else None     # (aux states: no source)
        if isinstance(source, tape.Variable):
            return leaf(id(source), 'var'), 0
        if source is None:
            return leaf(('const', id(node), k), 'null'), 0
        return outputs_of(source[0])[source[1]]

    def new_node(op, attrs, inputs):
        node = GraphNode(op, 'node_%d' % counts['node'], attrs, inputs)
        counts['node'] += 1
        return node

    def graph_call(node):
        """A hybridized call: its graph's operators, or one _CachedOp node."""
        sym = node.op.graph.symbol
        inner = topo_order(sym._outputs)
        names = sym.list_arguments() + sym.list_auxiliary_states()
        if sum(n.op is not None for n in inner) <= node.op.graph.flags.get('inline_limit', 2):
            position = {name: k for k, name in enumerate(names)}
            copies = {}
            for n in inner:
                if n.op is None:
                    copies[id(n)] = None            # (made when an operator reads it: read order)
                    continue
                inputs = [input_of(node, position[child.name]) if child.op is None else (copies[id(child)], i)
                          for child, i in n.inputs]
                copies[id(n)] = new_node(n.op, n.attrs, inputs)
            return [input_of(node, position[n.name]) if n.op is None else (copies[id(n)], i)
                    for n, i in sym._outputs]
        call = new_node(get_operator('_CachedOp'), {}, [input_of(node, k) for k in range(len(names))])
        call.params.input_names, call.params.output_names = names, sym.list_outputs()
        return [(call, i) for i in range(len(sym._outputs))]

    def outputs_of(node):
        """The graph entries of a recorded call's outputs."""
        if id(node) not in made:
            if getattr(node.op, 'graph', None) is not None:
                made[id(node)] = graph_call(node)
            elif node.attrs is None:
                raise MXNetError('get_symbol: the computation holds a call (an autograd.Function) that is not an '
                                 'operator')
            else:
                inputs = [input_of(node, k) for k in range(len(node.sources))]
                op_node = new_node(node.op, dict(node.attrs), inputs)
                made[id(node)] = [(op_node, j) for j in range(len(node.outs))]
        return made[id(node)]
    return Symbol([outputs_of(entry[0])[entry[1]]])


# ------------------------------------------------------------------ Function
class _FunctionCall:
    """What the tape calls to differentiate one call of an ``autograd.Function``: its
    ``backward``, given NDArrays and handing back NDArrays (the operator interface)."""
    is_loss = False

    def __init__(self, function, ctx):
        self.function, self.ctx = function, ctx

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        with pause():
            grads = self.function.backward(*[NDArray(g, self.ctx) for g in out_grads])
        grads = [grads] if isinstance(grads, NDArray) else list(grads)
        if len(grads) != len(inputs):
            raise MXNetError('%s.backward returned %d gradients for %d inputs'
                             % (type(self.function).__name__, len(grads), len(inputs)))
        return [g._data for g in grads]


class Function:
    """An operation with a forward and a backward written in Python over NDArrays.

    Subclass it, define ``forward(*inputs)`` and ``backward(*output_grads)`` (one gradient per
    input), and call an instance like a function inside ``record()``; ``save_for_backward``
    keeps arrays for backward in ``saved_tensors``.  An instance is used once.
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep ``args`` (usually NDArrays from ``forward``) for ``backward``, as ``self.saved_tensors``.

        Call it inside ``forward``; a second call replaces what the first kept.
        """
        self.saved_tensors = args

    def __call__(self, *inputs):
        if self._used:
            raise MXNetError('%s: each Function instance can be called only once; make a new one'
                             % type(self).__name__)
        self._used = True
        with pause(train_mode=is_training()):
            outputs = self.forward(*inputs)
        results = [outputs] if isinstance(outputs, NDArray) else list(outputs)
        if is_recording():
            # the outputs are new arrays, so that their recorded origin is this call
            results = [NDArray(r._data, r.context) for r in results]
            call = _FunctionCall(self, inputs[0].context)
            tape.record_call(call, None, inputs[0].context, list(inputs), len(inputs),
                             [r._data for r in results], results)
        return results[0] if isinstance(outputs, NDArray) else results

    def forward(self, *inputs):
        """Compute the outputs from the input NDArrays; subclasses must define it.

        It runs with recording paused, so the operators it uses are not put on the tape: the call
        as a whole is recorded instead, and differentiated by ``backward``.

        Args:
            *inputs: the NDArrays the instance was called with.

        Returns:
            One NDArray, or a list/tuple of NDArrays.

        >>> class Square(mx.autograd.Function):
        ...     def forward(self, x):
        ...         self.save_for_backward(x)
        ...         return x * x
        ...     def backward(self, dy):
        ...         x, = self.saved_tensors
        ...         return 2 * x * dy
        >>> x = mx.nd.array([1, 2, 3])
        >>> x.attach_grad()
        >>> with mx.autograd.record():
        ...     y = Square()(x)
        >>> y.backward()
        >>> x.grad
        <BLANKLINE>
        [2. 4. 6.]
        <NDArray 3 @cpu(0)>
        """
        raise NotImplementedError('%s must define forward' % type(self).__name__)

    def backward(self, *output_grads):
        """Compute the gradients of the inputs from those of the outputs; subclasses must define it.

        Called (with recording paused) when backward runs through this call of the Function.

        Args:
            *output_grads: one NDArray per output of ``forward``: the gradient of the head with
                respect to that output.

        Returns:
            One NDArray per input of ``forward`` (a single NDArray when there is one input): the
            gradient with respect to that input, of the input's shape.

        Raises:
            MXNetError: (raised by the caller) when the number of gradients returned differs from
                the number of inputs.
        """
        raise NotImplementedError('%s must define backward' % type(self).__name__)
