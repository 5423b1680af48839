"""Training with sparse storage, end to end through Module: the same scripts under MXNet 1.9.1
(gen_sparse_training.py records sparse_training.npz) and under reflib (test_sparse_training.py).

* an embedding with ``sparse_grad=True`` (row_sparse gradient, dense weight) under SGD with and
  without lazy updates, Adam and AdaGrad, on one device, two devices with a 'local' store and
  two with a 'device' store;
* a linear classifier over CSR data, ``dot(csr, w)``, with a dense weight and with a row_sparse
  weight that ``Module.prepare`` fetches row by row from the store (``sparse_row_id_fn``).

The initial weights come from numpy (the two libraries' random streams differ)."""

import numpy as np

OPTIMIZERS = {
    'sgd lazy': ('sgd', {'learning_rate': 0.5, 'momentum': 0.9, 'wd': 0.01}),
    'sgd dense': ('sgd', {'learning_rate': 0.5, 'momentum': 0.9, 'wd': 0.01, 'lazy_update': False}),
    'adam': ('adam', {'learning_rate': 0.05, 'wd': 0.01}),
    'adagrad': ('adagrad', {'learning_rate': 0.1}),
}
DEVICES = {'1 device': (1, 'local'), '2 devices local': (2, 'local'), '2 devices device': (2, 'device')}


def _train(mx, mod, it, kvstore, optimizer, params, arg_params, row_ids=None):
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in arg_params.items()})
    mod.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=params)
    for _ in range(2):
        it.reset()
        for batch in it:
            mod.prepare(batch, sparse_row_id_fn=row_ids)
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
    args, _ = mod.get_params()
    return {k: v.asnumpy() for k, v in sorted(args.items())}


def embedding(mx, devices, optimizer):
    count, kvstore = DEVICES[devices]
    rng = np.random.RandomState(0)
    ids = rng.randint(0, 50, size=(24, 3)).astype(np.float32)
    labels = rng.randint(0, 4, size=(24,)).astype(np.float32)
    it = mx.io.NDArrayIter(ids, labels, batch_size=8, label_name='label')
    looked_up = mx.sym.Embedding(mx.sym.var('data'), mx.sym.var('emb_weight'), input_dim=50, output_dim=6,
                                 sparse_grad=True, name='emb')
    fc = mx.sym.FullyConnected(mx.sym.mean(looked_up, axis=1), num_hidden=4, name='fc')
    net = mx.sym.SoftmaxOutput(fc, mx.sym.var('label'), name='out')
    mod = mx.mod.Module(net, data_names=['data'], label_names=['label'], context=[mx.cpu(k) for k in range(count)])
    start = {'emb_weight': rng.randn(50, 6).astype(np.float32) * 0.1,
             'fc_weight': rng.randn(4, 6).astype(np.float32) * 0.1, 'fc_bias': np.zeros(4, np.float32)}
    name, params = OPTIMIZERS[optimizer]
    return _train(mx, mod, it, kvstore, name, params, start)


def linear(mx, devices, weight_stype):
    count, kvstore = DEVICES[devices]
    rng = np.random.RandomState(0)
    dense = (rng.rand(32, 20) < 0.15) * rng.randn(32, 20)
    data = mx.nd.array(dense.astype(np.float32)).tostype('csr')
    labels = mx.nd.array((rng.rand(32, 1) > 0.5).astype(np.float32))
    it = mx.io.NDArrayIter(data, labels, batch_size=8, last_batch_handle='discard', label_name='label')
    x = mx.sym.var('data', stype='csr')
    w = mx.sym.var('w', stype=weight_stype, shape=(20, 1))
    out = mx.sym.broadcast_add(mx.sym.dot(x, w), mx.sym.var('b', shape=(1, 1)))
    net = mx.sym.LogisticRegressionOutput(out, mx.sym.var('label'), name='out')
    mod = mx.mod.Module(net, data_names=['data'], label_names=['label'], context=[mx.cpu(k) for k in range(count)])
    start = {'w': (rng.randn(20, 1) * 0.1).astype(np.float32), 'b': np.zeros((1, 1), np.float32)}

    def rows_of_batch(batch):
        """The rows of w this batch reads: its data's non-zero columns."""
        return {'w': mx.nd.array(np.unique(np.nonzero(batch.data[0].asnumpy())[1]))}
    rows = rows_of_batch if weight_stype == 'row_sparse' and count > 1 else None
    return _train(mx, mod, it, kvstore, 'sgd', {'learning_rate': 0.5, 'momentum': 0.9, 'wd': 0.01}, start, rows)


def cases():
    found = {}
    for devices in DEVICES:
        for optimizer in OPTIMIZERS:
            found['embedding, %s, %s' % (devices, optimizer)] = lambda mx, d=devices, o=optimizer: embedding(mx, d, o)
        found['linear csr, %s, dense w' % devices] = lambda mx, d=devices: linear(mx, d, 'default')
    for devices in ('1 device', '2 devices local'):
        found['linear csr, %s, row_sparse w' % devices] = lambda mx, d=devices: linear(mx, d, 'row_sparse')
    return found
