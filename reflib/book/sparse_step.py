"""One training step of a big embedding, measured: what each device holds and what goes to and
from the KVStore, with a dense gradient, a row_sparse one, and a row_sparse weight too
(chapter 11).

The model is a bag of words: ``Embedding`` -> mean over the words -> ``FullyConnected`` ->
``SoftmaxOutput``, trained by a Module on two CPU contexts with a ``'local'`` store and SGD
with momentum (the optimizer runs in the store).  The byte counts are of the arrays that
exist: a sparse array counts its values and its indices.
"""

import warnings

import numpy as np

from .. import io, mod, nd, optimizer, sym
from ..context import cpu

__all__ = ['SETUPS', 'nbytes', 'embedding_step', 'draw_step_bytes']

# (label, sparse_grad, the weight's storage)
SETUPS = [
    ('dense gradient', False, 'default'),
    ('sparse gradient', True, 'default'),
    ('sparse gradient+weight', True, 'row_sparse'),
]


def nbytes(arr):
    """Bytes an NDArray holds: a sparse one, its stored values and its indices."""
    if arr.stype == 'default':
        return int(arr._data.nbytes)
    return int(arr._data.nbytes + sum(a.nbytes for a in arr._aux))


class _Traffic:
    """Counts the bytes of what a KVStore is handed (push) and writes (pull, row_sparse_pull)."""

    def __init__(self, store):
        self.pushed = self.pulled = 0
        push, pull, row_pull = store.push, store.pull, store.row_sparse_pull

        def counted_push(key, value, priority=0):
            self.pushed += sum(nbytes(v) for v in _flat(value))
            return push(key, value, priority)

        def counted_pull(key, out=None, priority=0, ignore_sparse=True):
            pull(key, out, priority, ignore_sparse)
            self.pulled += sum(nbytes(o) for o in _flat(out) if not (ignore_sparse and o.stype == 'row_sparse'))

        def counted_row_pull(key, out=None, priority=0, row_ids=None):
            row_pull(key, out, priority, row_ids)
            self.pulled += sum(nbytes(o) for o in _flat(out))
        store.push, store.pull, store.row_sparse_pull = counted_push, counted_pull, counted_row_pull


def _flat(values):
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in _flat(item)]
    return [values]


def _stored_weight(store, name, shape, stype):
    """The store's copy of a weight, densely (read through the store's own API)."""
    if stype == 'row_sparse':
        out = nd.sparse.zeros('row_sparse', shape)
        store.row_sparse_pull(name, out, row_ids=nd.arange(0, shape[0], dtype='int64'))
        return out.asnumpy()
    out = nd.zeros(shape)
    store.pull(name, out)
    return out.asnumpy()


def embedding_step(sparse_grad, weight_stype, vocab=200000, dim=32, batch=64, words=5, seed=0):
    """Bind, initialise and train one step; return the byte counts and the rows that changed."""
    rng = np.random.RandomState(seed)
    ids = rng.randint(0, vocab, size=(batch, words)).astype(np.float32)
    labels = rng.randint(0, 4, size=(batch,)).astype(np.float32)
    weight = sym.var('emb_weight', stype=weight_stype)
    looked_up = sym.Embedding(sym.var('data'), weight, input_dim=vocab, output_dim=dim,
                              sparse_grad=sparse_grad, name='emb')
    net = sym.SoftmaxOutput(sym.FullyConnected(sym.mean(looked_up, axis=1), num_hidden=4, name='fc'),
                            sym.var('softmax_label'), name='softmax')
    module = mod.Module(net, context=[cpu(0), cpu(1)])
    module.bind(data_shapes=[('data', ids.shape)], label_shapes=[('softmax_label', labels.shape)])
    module.init_params(arg_params={'emb_weight': nd.array(rng.normal(0, 0.01, (vocab, dim)).astype(np.float32)),
                                   'fc_weight': nd.array(rng.normal(0, 0.1, (4, dim)).astype(np.float32)),
                                   'fc_bias': nd.zeros((4,))})
    sgd = optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-4, rescale_grad=1.0 / batch)
    with warnings.catch_warnings():
        # the store says that its pulls leave row_sparse weights alone (here and after the
        # update): that is the point of setup 3, not news to this page
        warnings.simplefilter('ignore', UserWarning)
        module.init_optimizer(kvstore='local', optimizer=sgd)
    store = module._kvstore
    before = _stored_weight(store, 'emb_weight', (vocab, dim), weight_stype)
    traffic = _Traffic(store)
    data = io.DataBatch(data=[nd.array(ids)], label=[nd.array(labels)])

    def rows_read(batch_):
        return {'emb_weight': nd.array(np.unique(batch_.data[0].asnumpy()))}
    module.prepare(data, sparse_row_id_fn=rows_read if weight_stype == 'row_sparse' else None)
    module.forward(data, is_train=True)
    module.backward()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)     # as at init_optimizer
        module.update()
    device = module._exec_group.execs[0]
    pushed, pulled = traffic.pushed, traffic.pulled
    after = _stored_weight(store, 'emb_weight', (vocab, dim), weight_stype)
    return {'weight (whole table)': vocab * dim * 4,
            'weight on a device': nbytes(device.arg_dict['emb_weight']),
            'gradient on a device': nbytes(device.grad_dict['emb_weight']),
            'pushed to the store': pushed, 'pulled from the store': pulled,
            'rows read by the batch': len(np.unique(ids)),
            'rows the update changed': int((before != after).any(axis=1).sum()),
            'gradient stype': device.grad_dict['emb_weight'].stype}


MEASURES = ['weight on a device', 'gradient on a device', 'pushed to the store', 'pulled from the store']


def draw_step_bytes(results, ax=None):
    """Grouped bars (log scale): for each measure, one bar per setup."""
    import matplotlib.pyplot as plt  # on first plot: importing reflib.book stays cheap
    if ax is None:
        _, ax = plt.subplots(figsize=(6.2, 3.8))   # drawn no wider than the page's column
    colours = ['#b0b0b0', '#4c72b0', '#dd8452']
    height = 0.26
    for k, (label, values) in enumerate(results.items()):
        ys = [row + (k - 1) * height for row in range(len(MEASURES))]
        sizes = [max(values[m], 1) for m in MEASURES]
        ax.barh(ys, sizes, height=height, color=colours[k], label=label)
        for y, size in zip(ys, sizes):
            ax.text(size * 1.15, y, _human(size), va='center', fontsize=10)
    ax.set_xscale('log')
    ax.set_xlim(1e3, 2e9)
    ax.set_yticks(range(len(MEASURES)))
    ax.set_yticklabels(MEASURES, fontsize=10)
    ax.invert_yaxis()
    ax.set_xlabel('bytes in one training step (log scale), 2 devices', fontsize=10)
    ax.legend(fontsize=10, loc='lower center', bbox_to_anchor=(0.4, 1.0), ncol=3, frameon=False)
    for side in ('top', 'right'):
        ax.spines[side].set_visible(False)
    return ax


def _human(n):
    for unit, size in (('MB', 1e6), ('KB', 1e3)):
        if n >= size:
            return '%.1f %s' % (n / size, unit)
    return '%d B' % n
