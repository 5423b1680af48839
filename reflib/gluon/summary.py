"""``Block.summary(*inputs)``: one forward with a hook on every layer, printed as a table of
output shapes and parameter counts (MXNet's layout, so a reader can compare the two).

It works on any block by its hooks and children; it imports no block class (block.py
imports it)."""

from .parameter import GluonAssertionError

__all__ = ['print_summary']

_ROW = '{:>20}  {:>42} {:>15}'


def _shape_text(value):
    """Shapes of a (nested) output as MXNet prints them: ``(2, 5)``, or ``(2, 5), (2, 3)``."""
    def shapes(v):
        if isinstance(v, (list, tuple)):
            return [shapes(x) for x in v]
        return getattr(v, 'shape', v)
    found = shapes(value)
    return str(found)[1:-1] if isinstance(found, list) else str(found)


def _is_container(block):
    # the sequential containers (and their subclasses) get no row: their children have one each
    return any(k.__name__ in ('Sequential', 'HybridSequential') for k in type(block).__mro__)


def print_summary(net, inputs):
    """Run ``net`` once on ``inputs`` and print a table of its layers (what ``Block.summary`` does).

    Each block in the tree (the Sequential containers excepted) gets a row with its output
    shape(s) and its own parameter count; totals follow, with trainable (grad_req not
    ``'null'``) and shared parameters counted apart.  Hooks attached for the run are removed
    afterwards, even on an error.

    Args:
        net: the Block to describe; its parameters must be initialized.
        inputs: the list of inputs to call it with.

    Raises:
        GluonAssertionError: when a block in the tree is hybridized (its children would not be
            seen).

    >>> net = mx.gluon.nn.Dense(2, in_units=3)
    >>> net.initialize()
    >>> mx.gluon.summary.print_summary(net, [mx.nd.ones((1, 3))])
    --------------------------------------------------------------------------------
            Layer (type)                                Output Shape         Param #
    ================================================================================
                   Input                                      (1, 3)               0
                 Dense-1                                      (1, 2)               8
    ================================================================================
    Parameters in forward computation graph, duplicate included
       Total params: 8
       Trainable params: 8
       Non-trainable params: 0
    Shared params in forward computation graph: 0
    Unique parameters in model: 8
    --------------------------------------------------------------------------------
    """
    rows = [('Input', _shape_text(list(inputs) if len(inputs) > 1 else inputs[0]), 0, 0, 0)]
    seen, handles = set(), []

    def on_forward(block, _, outputs):
        total = trainable = shared = 0
        for param in block.params.values():
            size = param.data().size
            total += size
            trainable += 0 if param.grad_req == 'null' else size
            if id(param) in seen:
                shared += size
            seen.add(id(param))
        rows.append(('%s-%d' % (type(block).__name__, len(rows)), _shape_text(outputs), total, trainable, shared))

    def attach(block):
        if getattr(block, '_active', False):
            raise GluonAssertionError('"%s" must not be hybridized to print summary.' % block.name)
        if not _is_container(block):
            handles.append(block.register_forward_hook(on_forward))
    try:
        net.apply(attach)
        net(*inputs)
    finally:
        for handle in handles:
            handle.detach()
    total = sum(r[2] for r in rows)
    trainable = sum(r[3] for r in rows)
    shared = sum(r[4] for r in rows)
    print('-' * 80)
    print(_ROW.format('Layer (type)', 'Output Shape', 'Param #'))
    print('=' * 80)
    for name, shape, count, _, _ in rows:
        print(_ROW.format(name, shape, count))
    print('=' * 80)
    print('Parameters in forward computation graph, duplicate included')
    print('   Total params: %d' % total)
    print('   Trainable params: %d' % trainable)
    print('   Non-trainable params: %d' % (total - trainable))
    print('Shared params in forward computation graph: %d' % shared)
    print('Unique parameters in model: %d' % (total - shared))
    print('-' * 80)
