"""One small data-parallel training run, written as an MXNet 1.x user writes it.

The same file runs on reflib and on real MXNet 1.9.1 (``--mxnet``), on one
process (``--kvstore local``) or as one worker of a distributed job
(``--kvstore dist_sync``, launched with ``python -m reflib.launch`` or, for
MXNet, with its DMLC_* processes; see tests/golden/gen_dist.py).

The data set is fixed (seeded) and cut so that the runs are comparable: with
``W`` workers and batch ``b`` each, batch ``i`` of worker ``w`` is rows
``[(i*W + w)*b, (i*W + w + 1)*b)``, so the ``W`` workers' batch ``i``
together are exactly batch ``i`` of one worker with batch ``W*b``.  After
training, every worker writes its parameters to ``OUT.rankR.npz``.
"""

import argparse
import sys

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument('--mxnet', action='store_true', help='import mxnet instead of reflib')
parser.add_argument('--kvstore', default='dist_sync')
parser.add_argument('--optimizer', default='sgd', choices=['sgd', 'adam'])
parser.add_argument('--batch-size', type=int, default=8, help='per worker')
parser.add_argument('--epochs', type=int, default=3)
parser.add_argument('--devices', type=int, default=1, help='cpu(0) .. cpu(devices-1) on each worker')
parser.add_argument('--out', required=True)
args = parser.parse_args()

if args.mxnet:
    import mxnet as mx
else:
    import reflib as mx

ROWS, FEATURES, CLASSES, HIDDEN = 64, 10, 3, 16
rng = np.random.RandomState(0)
X = rng.randn(ROWS, FEATURES).astype(np.float32)
Y = rng.randint(0, CLASSES, ROWS).astype(np.float32)
init = np.random.RandomState(1)
arg_params = {
    'fc1_weight': init.uniform(-0.3, 0.3, (HIDDEN, FEATURES)).astype(np.float32),
    'fc1_bias': init.uniform(-0.1, 0.1, (HIDDEN,)).astype(np.float32),
    'fc2_weight': init.uniform(-0.3, 0.3, (CLASSES, HIDDEN)).astype(np.float32),
    'fc2_bias': init.uniform(-0.1, 0.1, (CLASSES,)).astype(np.float32),
}

kv = mx.kv.create(args.kvstore)
rank, workers, b = kv.rank, kv.num_workers, args.batch_size
# this worker's batches: block (i*workers + rank) of b rows, for every i
rows = np.concatenate([np.arange((i * workers + rank) * b, (i * workers + rank + 1) * b)
                       for i in range(ROWS // (workers * b))])
train = mx.io.NDArrayIter(X[rows], Y[rows], batch_size=b, shuffle=False, label_name='softmax_label')

data = mx.sym.Variable('data')
net = mx.sym.FullyConnected(data, num_hidden=HIDDEN, name='fc1')
net = mx.sym.Activation(net, act_type='relu', name='relu1')
net = mx.sym.FullyConnected(net, num_hidden=CLASSES, name='fc2')
net = mx.sym.SoftmaxOutput(net, name='softmax')

if args.optimizer == 'sgd':
    opt_params = {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}
else:
    opt_params = {'learning_rate': 0.01}

mod = mx.mod.Module(net, context=[mx.cpu(i) for i in range(args.devices)])
mod.fit(train, num_epoch=args.epochs, kvstore=kv, optimizer=args.optimizer, optimizer_params=opt_params,
        arg_params={k: mx.nd.array(v) for k, v in arg_params.items()}, force_init=True)
params, _ = mod.get_params()
np.savez('%s.rank%d.npz' % (args.out, rank), **{k: v.asnumpy() for k, v in params.items()})
print('rank %d of %d workers: done, %d batches per epoch, rescale_grad %g'
      % (rank, workers, len(rows) // b, mod._optimizer.rescale_grad))
sys.stdout.flush()
