"""The tape of ``mx.autograd``: every operator call made while recording, and backward over it.

Inside ``autograd.record()`` each ``mx.nd`` operator call (and each NDArray method or
arithmetic, which go through the same call path) appends a ``Node`` to the tape: the
operator, its parsed parameters, the arrays it read and wrote, and, for each input, where
that input came from (another node's output, a variable marked with ``attach_grad``, or
nothing that needs a gradient).  Each result NDArray remembers its node (``_entry``).

``backward(heads)`` walks the nodes that lead to the heads from the last to the first and
calls each operator's own ``backward`` (the one the executor calls; no operator has a
second gradient), summing what reaches each value, then writes (or, under
``grad_req='add'``, adds) each variable's sum into its ``.grad``.  The recorded arrays are
dropped afterwards unless ``retain_graph=True``, as in MXNet, so a second backward over
the same graph is refused.

This module works on NDArrays without importing them (ndarray.py imports it): a new array
is made with ``type(model)(raw, ctx)`` from one it was given.
"""

import itertools
import threading

from .. import profiler as _profiler
from ..base import MXNetError
from ..operator.registry import OpEnv
from ..operator.sparse_rows import SparseRows

__all__ = ['is_recording', 'is_training', 'set_recording', 'set_training', 'record_call', 'check_writable',
           'wants_grad', 'sources_of', 'storing_grads', 'Variable',
           'mark_variable', 'backward', 'Node']

_state = threading.local()          # per thread, as MXNet's: recording, training
_sequence = itertools.count()       # node numbers: a node is always newer than its inputs' nodes

NOT_IN_GRAPH = ('Cannot differentiate: the array is not the result of an operation recorded inside '
                'autograd.record(), or its graph was freed by an earlier backward (pass retain_graph=True '
                'to differentiate the same graph twice)')
IN_GRAPH = ('cannot write into an NDArray that is part of a recorded computation while recording (the '
            'gradient would read the new values): call backward first, or write outside autograd.record(); '
            'in-place operations (+=, x[:] = ..., out=x) are refused inside a record section')


def is_recording():
    """Whether autograd records the operators called now (inside ``autograd.record()`` on this
    thread, or after ``set_recording(True)``).
    """
    return getattr(_state, 'recording', False)


def is_training():
    """Whether operators run in training mode now (Dropout drops, BatchNorm uses the batch's
    statistics): ``autograd.record()`` turns it on by default, ``autograd.predict_mode()``
    off.
    """
    return getattr(_state, 'training', False)


def storing_grads():
    """Whether the backward pass running now writes the variables' ``.grad`` (it does not
    inside ``autograd.grad``, which returns the gradients instead)."""
    return not getattr(_state, 'returning', False)


def set_recording(flag):
    """Turn recording on or off; returns the previous state."""
    if _profiler.ACTIVE and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXAutogradSetIsRecording', _profiler.now_us())
    previous, _state.recording = is_recording(), bool(flag)
    return previous


def set_training(flag):
    """Turn training mode (Dropout active, BatchNorm on batch statistics) on or off; returns
    the previous state."""
    if _profiler.ACTIVE and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXAutogradSetIsTraining', _profiler.now_us())
    previous, _state.training = is_training(), bool(flag)
    return previous


class Variable:
    """Where a marked array's gradient goes: its gradient buffer and ``grad_req``; ``fresh``:
    whether a backward has written it since it was last cleared (MXNet's ``_fresh_grad``,
    which Module and Gluon's Trainer read to find stale gradients)."""
    __slots__ = ('array', 'grad', 'req', 'fresh')

    def __init__(self, array, grad, req):
        self.array, self.grad, self.req = array, grad, req
        self.fresh = False


class Node:
    """One recorded call: ``op.backward(p, env, out_grads, ins, outs, aux)`` differentiates it.

    ``sources[k]`` is where input k came from: ``(node, output index)``, a ``Variable``, or
    None (a constant: no gradient wanted)."""
    __slots__ = ('op', 'p', 'attrs', 'ctx', 'ins', 'aux', 'outs', 'sources', 'visible', 'seq')

    def __init__(self, op, p, attrs, ctx, ins, aux, outs, sources, visible):
        self.op, self.p, self.attrs, self.ctx = op, p, attrs, ctx
        self.ins, self.aux, self.outs = ins, aux, outs
        self.sources, self.visible = sources, visible
        self.seq = next(_sequence)

    @property
    def freed(self):
        """Whether the call's saved values were let go after a backward without
        ``retain_graph``: a freed call cannot be differentiated again.
        """
        return self.outs is None


def _source(array):
    """Where a gradient for ``array`` would go, or None."""
    entry = getattr(array, '_entry', None)
    if entry is None:
        return None
    if isinstance(entry, Variable) or not entry[0].freed:
        return entry
    return None


def wants_grad(array):
    """Whether a gradient for ``array`` has somewhere to go (a variable, or a recorded call)."""
    return _source(array) is not None


def check_writable(array):
    """Refuse, as MXNet does, to write into an array of the graph while recording."""
    if is_recording() and _source(array) is not None:
        raise MXNetError('%s' % IN_GRAPH)


def sources_of(arrays):
    """Where a gradient for each of ``arrays`` would go (None: nowhere)."""
    return [_source(a) for a in arrays]


def record_call(op, p, ctx, inputs, nin, outs, results, attrs=None, sources=None):
    """Append the call that turned ``inputs`` (NDArrays; the first ``nin`` are inputs, the rest
    aux states) into ``outs`` (the operator's raw outputs, hidden ones too) to the tape, and
    tie the result NDArrays to it.  Nothing is recorded when no input needs a gradient.
    ``attrs``: the parameters as given, for ``autograd.get_symbol``; ``sources``: the inputs'
    :func:`sources_of`, where the caller has them already."""
    if sources is None:
        sources = [_source(a) for a in inputs[:nin]]
    if not any(s is not None for s in sources):
        return
    node = Node(op, p, attrs, ctx, [a._data for a in inputs[:nin]], [a._data for a in inputs[nin:]], list(outs),
                sources, len(results))
    for j, result in enumerate(results):
        result._entry = (node, j)
    return node


def mark_variable(array, grad, req):
    """Make ``array`` a leaf whose gradient goes into ``grad`` (``grad_req`` ``req``)."""
    if req not in ('write', 'add', 'null'):
        raise MXNetError("grad_req must be 'write', 'add' or 'null', got %r" % (req,))
    if _profiler.ACTIVE and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXAutogradMarkVariables', _profiler.now_us())
    array._entry = Variable(array, grad, req)


# ------------------------------------------------------------------ backward
def backward(heads, head_grads, retain_graph, train_mode, variables=None):
    """Differentiate the recorded computation of ``heads`` (NDArrays).

    Args:
        heads: the arrays to differentiate; each must come from a recorded call or be a
            variable (``attach_grad``).
        head_grads: one gradient per head (None: ones of the head's shape).
        retain_graph: keep the recorded calls, so that a second backward can run over them.
        train_mode: run the backward of the operators in training mode.
        variables: None to write (or add, per ``grad_req``) into the variables' ``.grad``;
            a list of variables to return their gradients instead (``autograd.grad``),
            leaving ``.grad`` untouched.

    Raises:
        MXNetError: a head is not part of any recorded computation.
    """
    with _profiler.api_call('MXAutogradBackwardEx') if _profiler.ACTIVE else _profiler.QUIET:
        previous, _state.returning = getattr(_state, 'returning', False), variables is not None
        try:
            return _backward(heads, head_grads, retain_graph, train_mode, variables)
        finally:
            _state.returning = previous


def _backward(heads, head_grads, retain_graph, train_mode, variables):
    """Differentiate ``heads``; write into the variables' ``.grad`` (``variables`` None), or
    return the raw gradients of ``variables`` (``autograd.grad``) without touching ``.grad``.

    The calls run in the reverse of a topological order: the post-order of a depth-first
    walk from the heads, inputs in order, as MXNet's graph pass orders them.  A value used by
    several calls gets one gradient from each, summed in that forward order -- the order
    MXNet sums them in, which decides the float32 rounding."""
    parts = {}                      # (id(node), j) or id(Variable) -> [(rank, raw gradient)]
    reached = {}                    # id(Variable) -> Variable
    starts = []
    for k, (head, grad) in enumerate(zip(heads, head_grads)):
        source = _source(head)
        if source is None:
            raise MXNetError(NOT_IN_GRAPH)
        xp = head.context.xp
        with head.context.device_scope():
            raw = xp.ones(head.shape, dtype=head.dtype) if grad is None else _raw_head(head, grad)
        _add(parts, reached, source, (-1, k), raw)
        starts.append(source)
    nodes = _post_order(starts)
    for rank in range(len(nodes) - 1, -1, -1):
        _run_backward(nodes[rank], rank, parts, reached, train_mode)
    if not retain_graph:
        for node in nodes:
            node.ins = node.aux = node.outs = None
            # a hybridized call's executor goes back to its pool (executor/cached_graph.py)
            release = getattr(node.op, 'release', None)
            if release is not None:
                release()
    if variables is not None:
        return [_total(parts.get(id(v._entry))) if isinstance(getattr(v, '_entry', None), Variable) else None
                for v in variables]
    for key, var in reached.items():
        g = _total(parts.get(key))
        if g is None or var.req == 'null':
            continue
        _store(var, g)
        var.fresh = True
    return None


def _store(var, g):
    """Write (or add) the summed gradient into the variable's buffer, in the buffer's storage."""
    grad = var.grad
    if g is grad._data and var.req == 'write':
        return              # computed there already (a hybridized call's executor writes into it)
    with grad.context.device_scope():
        if grad.stype != 'default':               # a sparse buffer: its storage keeps the non-zeros
            total = g if var.req != 'add' else g + grad._dense_data()
            dense = grad.todense()
            dense._data = total.astype(grad.dtype, copy=False)
            grad[:] = dense
        elif var.req == 'add':
            grad._data += g.astype(grad.dtype, copy=False)
        else:
            grad._data[...] = g


def _raw_head(head, grad):
    if tuple(grad.shape) != tuple(head.shape):
        raise MXNetError('backward: the head gradient has shape %s, the head %s' % (grad.shape, head.shape))
    return grad._data if grad.stype == 'default' else grad._dense_data()     # a sparse one: its values


def _post_order(starts):
    """Every live node the starts depend on, each after the nodes it reads (a freed one on the
    way is an error): the post-order of a depth-first walk, inputs in order."""
    order, done = [], set()
    for start in starts:
        if isinstance(start, Variable) or id(start[0]) in done:
            continue
        stack = [(start[0], iter(start[0].sources))]
        done.add(id(start[0]))
        while stack:
            node, sources = stack[-1]
            if node.freed:
                raise MXNetError(NOT_IN_GRAPH)
            for source in sources:
                if source is not None and not isinstance(source, Variable) and id(source[0]) not in done:
                    done.add(id(source[0]))
                    stack.append((source[0], iter(source[0].sources)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _add(parts, reached, source, rank, raw):
    if isinstance(source, Variable):
        key = id(source)
        reached[key] = source
    else:
        key = (id(source[0]), source[1])
    parts.setdefault(key, []).append((rank, raw))


def _total(found):
    """The sum of the gradients one value received, in the forward order of their calls."""
    if not found:
        return None
    if len(found) == 1:             # (the common case: one reader)
        return found[0][1]
    found.sort(key=lambda item: item[0])
    total = found[0][1]
    for _, raw in found[1:]:
        total = total + raw
    return total


def _run_backward(node, rank, parts, reached, train_mode):
    keys = [(id(node), j) for j in range(len(node.outs))]
    # a loss head makes its own head gradient (per node where the parameters decide: a custom op)
    loss = node.op.loss_head(node.p) if hasattr(node.op, 'loss_head') else node.op.is_loss
    if not loss and not any(map(parts.__contains__, keys[:node.visible])):
        return                     # nothing flows back through this call
    xp = node.ctx.xp
    with node.ctx.device_scope():
        out_grads = [_total(parts.pop(k, None)) for k in keys]
        if not loss:
            out_grads = [xp.zeros_like(o) if g is None and j < node.visible else g
                         for j, (g, o) in enumerate(zip(out_grads, node.outs))]
        env = OpEnv(node.ctx, train_mode, [s is not None for s in node.sources])
        # an operator's backward is reported to the profiler; a hybridized call's executor
        # (no name) reports its own steps
        profiled = (_profiler.ACTIVE and _profiler.records('imperative')
                    and isinstance(getattr(node.op, 'name', None), str))
        if profiled:
            began = _profiler.now_us()
        in_grads = node.op.backward(node.p, env, out_grads, node.ins, node.outs, node.aux)
        if profiled:
            _profiler.operator(node.op.name, began, node.ctx, backward=True)
        for k, (source, g) in enumerate(zip(node.sources, in_grads)):
            if source is None or g is None:
                continue
            _add(parts, reached, source, (rank, k), g.dense(xp) if isinstance(g, SparseRows) else g)
