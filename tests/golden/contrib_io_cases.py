"""mx.contrib.io.DataLoaderIter over an ArrayDataset: the same program under MXNet 1.9.1
(gen_contrib_io.py records contrib_io.json) and under reflib (test_contrib_io.py).  The rows
past a short last batch are left out: MXNet leaves them as the memory held them."""

import numpy as np


def _epoch(it):
    found = []
    for batch in it:
        n = batch.data[0].shape[0] - batch.pad
        found.append({'pad': batch.pad, 'shape': list(batch.data[0].shape), 'dtype': str(batch.data[0].dtype),
                      'data': batch.data[0].asnumpy()[:n].tolist(), 'label': batch.label[0].asnumpy()[:n].tolist(),
                      'index': batch.index})
    return found


def run(mx):
    data = np.arange(33, dtype=np.float32).reshape(11, 3)
    labels = np.arange(11) % 4
    dataset = mx.gluon.data.ArrayDataset(data, labels)
    found = {}
    for last in ('keep', 'discard', 'rollover'):
        loader = mx.gluon.data.DataLoader(dataset, 4, last_batch=last)
        it = mx.contrib.io.DataLoaderIter(loader, data_name='x', label_name='y', dtype='float64')
        first = _epoch(it)
        it.reset()
        found[last] = {'provide_data': [[d.name, list(d.shape), str(np.dtype(d.dtype))] for d in it.provide_data],
                       'provide_label': [[d.name, list(d.shape), str(np.dtype(d.dtype))] for d in it.provide_label],
                       'epochs': [first, _epoch(it)]}
    return found
