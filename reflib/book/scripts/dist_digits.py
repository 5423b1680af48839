"""Chapter 12's training script: chapter 9's digits MLP, on every worker.

    python -m reflib.launch -n 2 -s 1 python dist_digits.py --out run.json

Each worker trains on its own part of the 1500 training images
(``num_parts=kv.num_workers, part_index=kv.rank``) with a batch of
``GLOBAL_BATCH / num_workers``, so one step of the job always covers
``GLOBAL_BATCH`` images, however many workers share it.  Worker 0 scores
the 297 validation images after each epoch and writes the accuracies and
the epoch times to ``--out`` (JSON), and its final parameters next to it.

``--rescale per-worker-batch`` sets ``rescale_grad = 1/batch`` by hand
instead of letting Module use ``1/(batch * num_workers)``: the mistake
chapter 12 shows.  ``--fail-at-epoch E`` makes worker 1 raise at the
start of epoch E.
"""

import argparse
import json
import logging
import time

import numpy as np
from sklearn.datasets import load_digits

import reflib as mx

GLOBAL_BATCH = 60

parser = argparse.ArgumentParser()
parser.add_argument('--kvstore', default='dist_sync')
parser.add_argument('--epochs', type=int, default=8)
parser.add_argument('--rescale', default='module',
                    choices=['module', 'per-worker-batch'])
parser.add_argument('--fail-at-epoch', type=int, default=None)
parser.add_argument('--out', required=True)
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format='%(message)s')

digits = load_digits()
images = (digits.images / 16.0).astype(np.float32).reshape(-1, 64)
labels = digits.target.astype(np.float32)
order = np.random.RandomState(0).permutation(len(images))
train_idx, val_idx = order[:1500], order[1500:]

kv = mx.kv.create(args.kvstore)
batch = GLOBAL_BATCH // kv.num_workers
# Order the images so that part w holds block w of every global batch:
# then step i of the job sees exactly the 60 images that step i of a
# single worker sees, whatever the number of workers.
steps = len(train_idx) // GLOBAL_BATCH
blocks = np.arange(steps * GLOBAL_BATCH)
blocks = blocks.reshape(steps, kv.num_workers, batch)
by_part = train_idx[blocks.transpose(1, 0, 2).reshape(-1)]
train = mx.io.NDArrayIter(images[by_part], labels[by_part],
                          batch_size=batch, num_parts=kv.num_workers,
                          part_index=kv.rank)
val = mx.io.NDArrayIter(images[val_idx], labels[val_idx], batch_size=99)

data = mx.sym.Variable('data')
hidden = mx.sym.FullyConnected(data, num_hidden=64, name='fc1')
hidden = mx.sym.Activation(hidden, act_type='relu', name='relu1')
net = mx.sym.FullyConnected(hidden, num_hidden=10, name='fc2')
net = mx.sym.SoftmaxOutput(net, name='softmax')

optimizer_params = {'learning_rate': 0.1, 'momentum': 0.9}
if args.rescale == 'per-worker-batch':
    optimizer_params['rescale_grad'] = 1.0 / batch

history = {'workers': kv.num_workers, 'batch': batch,
           'accuracy': [], 'seconds': []}


def epoch_end(epoch, symbol, arg_params, aux_params):
    history['seconds'].append(time.time() - history.pop('tic'))


def batch_end(param):
    if param.nbatch == 0:
        history['tic'] = time.time()
        if param.epoch == args.fail_at_epoch and kv.rank == 1:
            raise RuntimeError('worker 1 fails on purpose at epoch %d'
                               % param.epoch)


def eval_end(param):
    history['accuracy'].append(param.eval_metric.get()[1])


mx.random.seed(0)
mod = mx.mod.Module(net, context=mx.cpu())
mod.fit(train, eval_data=val, num_epoch=args.epochs, kvstore=kv,
        optimizer='sgd', optimizer_params=optimizer_params,
        initializer=mx.init.Xavier(), batch_end_callback=batch_end,
        epoch_end_callback=epoch_end, eval_end_callback=eval_end)
history['rescale_grad'] = mod._optimizer.rescale_grad
if kv.rank == 0:
    with open(args.out, 'w') as f:
        json.dump(history, f)
    mod.save_params(args.out + '.params')
