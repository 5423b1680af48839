"""Regenerate feedforward.npz and feedforward_mlp-*: MXNet 1.9.1's numbers for mx.model.FeedForward.

Run with a Python that has the real MXNet 1.9.1 (the tests only read what it writes):

    MXNET_SUBGRAPH_BACKEND=NONE /tmp/mxv/bin/python tests/golden/gen_feedforward.py

Every scenario is a plain function of the ``mx`` module, so the same code runs on MXNet
here and on reflib in tests/test_feedforward.py.  Each returns a dict label -> numpy
array; feedforward.npz holds MXNet's under ``<scenario>/<label>``.  Training starts from
fixed parameters (a seeded numpy RandomState, given as ``arg_params``); numpy input is
shuffled by numpy's global generator, seeded here the same way for both libraries.

* ``numpy_fit``: an MLP trained from numpy arrays (batch 8 of 26 samples: roll_over),
  SGD with momentum and wd through FeedForward's keyword arguments, numpy eval_data
  (shuffled and rolled over too); every batch-end metric value, every validation score,
  the parameters at every epoch end, predict (last batch padded), predict with
  return_data and num_batch, score on a padded iterator (padding counted).
* ``iter_epoch_size``: an unshuffled NDArrayIter (batch 5, last batch padded), epoch_size
  4 so epochs run across the iterator's end, begin_epoch 1, an Optimizer object.
* ``two_devices``: ctx=[cpu(0), cpu(1)] with work_load_list [2, 1] (kvstore 'local').
* ``begin_state``: a network with a begin-state input ``init_h`` given in arg_params (so
  trained as a parameter) plus an unused ``junk`` entry, allow_extra_params=True.
* ``bucketing``: a symbol function of the bucket key (Embedding, a position-wise
  FullyConnected) trained on a BucketSentenceIter with one bucket (see the function
  for MXNet's trouble with smaller buckets).
* The model of ``numpy_fit`` is also saved by FeedForward.save as feedforward_mlp-*
  (symbol + epoch 3), for reflib to load MXNet's files.
"""

import json
import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'feedforward.npz')
CKPT = os.path.join(HERE, 'feedforward_mlp')
N_TRAIN, N_VAL, N_FEAT, N_CLASS = 26, 11, 5, 3


def data(seed, n):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    w = np.random.RandomState(100).normal(size=(N_FEAT, N_CLASS))
    return x, np.argmax(x @ w, axis=1).astype(np.float32)


def mlp(mx):
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=6, name='fc1')
    net = mx.sym.Activation(net, act_type='tanh', name='act1')
    net = mx.sym.FullyConnected(net, num_hidden=N_CLASS, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def initial_params(mx, shapes, seed=7):
    rng = np.random.RandomState(seed)
    return {name: mx.nd.array(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
            for name, shape in sorted(shapes.items())}


MLP_SHAPES = {'fc1_weight': (6, N_FEAT), 'fc1_bias': (6,), 'fc2_weight': (N_CLASS, 6), 'fc2_bias': (N_CLASS,)}


def _recorders(out):
    """batch_end / eval_end / epoch_end callbacks that record into ``out``."""
    batches, evals, epochs = [], [], []

    def on_batch(param):
        batches.append([param.epoch, param.nbatch, param.eval_metric.get()[1]])

    def on_eval(param):
        evals.append([param.epoch, param.nbatch, param.eval_metric.get()[1]])

    def on_epoch(epoch, symbol, arg_params, aux_params):
        epochs.append(epoch)
        for name, arr in arg_params.items():
            out['epoch%d/%s' % (epoch, name)] = arr.asnumpy()

    def finish():
        out['batches'] = np.array(batches, np.float64)
        out['evals'] = np.array(evals, np.float64)
        out['epochs'] = np.array(epochs)
    return on_batch, on_eval, on_epoch, finish


def _model(mx, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return mx.model.FeedForward(*args, **kwargs)


def numpy_fit(mx, save_prefix=None):
    out = {}
    X, y = data(0, N_TRAIN)
    Xv, yv = data(1, N_VAL)
    np.random.seed(3)
    model = _model(mx, mlp(mx), num_epoch=3, numpy_batch_size=8, learning_rate=0.1, momentum=0.9,
                   wd=0.001, arg_params=initial_params(mx, MLP_SHAPES))
    on_batch, on_eval, on_epoch, finish = _recorders(out)
    model.fit(X, y, eval_data=(Xv, yv), batch_end_callback=on_batch, eval_end_callback=on_eval,
              epoch_end_callback=on_epoch)
    finish()
    for name, arr in model.arg_params.items():
        out['final/' + name] = arr.asnumpy()
    out['predict'] = model.predict(Xv)
    pred, d, l = model.predict(mx.io.NDArrayIter(Xv, yv, 4), return_data=True)
    out['predict_iter'], out['return_data'], out['return_label'] = pred, d, l
    out['predict_2_batches'] = model.predict(mx.io.NDArrayIter(Xv, yv, 4), num_batch=2)
    out['score_padded'] = np.array(model.score(mx.io.NDArrayIter(Xv, yv, 4)))
    out['score_ce'] = np.array(model.score(mx.io.NDArrayIter(Xv, yv, 4), eval_metric='ce'))
    out['score_1_batch'] = np.array(model.score(mx.io.NDArrayIter(Xv, yv, 4), num_batch=1))
    if save_prefix is not None:
        model.save(save_prefix)
    return out


def iter_epoch_size(mx):
    out = {}
    X, y = data(2, N_TRAIN)
    it = mx.io.NDArrayIter(X, y, 5)
    sgd = mx.optimizer.SGD(learning_rate=0.05, momentum=0.5, rescale_grad=0.2)
    model = _model(mx, mlp(mx), num_epoch=3, epoch_size=4, begin_epoch=1, optimizer=sgd,
                   arg_params=initial_params(mx, MLP_SHAPES, seed=8))
    on_batch, _, on_epoch, finish = _recorders(out)
    model.fit(it, batch_end_callback=on_batch, epoch_end_callback=on_epoch)
    finish()
    for name, arr in model.arg_params.items():
        out['final/' + name] = arr.asnumpy()
    return out


def two_devices(mx):
    """ctx=[cpu(0), cpu(1)]: each batch split in two, gradients summed by the 'local' store."""
    out = {}
    X, y = data(5, 24)
    model = _model(mx, mlp(mx), ctx=[mx.cpu(0), mx.cpu(1)], num_epoch=2, learning_rate=0.1, momentum=0.9,
                   wd=0.01, arg_params=initial_params(mx, MLP_SHAPES, seed=10))
    model.fit(mx.io.NDArrayIter(X, y, 6), work_load_list=[2, 1])
    for name, arr in model.arg_params.items():
        out['final/' + name] = arr.asnumpy()
    out['score'] = np.array(model.score(mx.io.NDArrayIter(X, y, 5)))
    return out


def state_net(mx):
    fc = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=N_CLASS, name='fc1')
    state = mx.sym.Variable('init_h', shape=(1, N_CLASS))
    return mx.sym.SoftmaxOutput(mx.sym.broadcast_add(fc, state), name='softmax')


def begin_state(mx):
    out = {}
    X, y = data(4, 12)
    params = initial_params(mx, {'fc1_weight': (N_CLASS, N_FEAT), 'fc1_bias': (N_CLASS,),
                                 'init_h': (1, N_CLASS)}, seed=9)
    params['junk'] = mx.nd.ones((2,))
    model = _model(mx, state_net(mx), num_epoch=2, learning_rate=0.2, arg_params=params,
                   allow_extra_params=True)
    out['kept'] = np.array(json.dumps(sorted(model.arg_params)))
    model.fit(mx.io.NDArrayIter(X, y, 4))
    for name, arr in model.arg_params.items():
        out['final/' + name] = arr.asnumpy()
    out['given_init_h'] = params['init_h'].asnumpy()
    out['predict'] = model.predict(X)
    return out


def bucket_net(mx):
    """A function of the bucket key (the sentence length) returning the network for it."""
    def sym_gen(seq_len):
        embed = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=VOCAB, output_dim=4, name='embed')
        pred = mx.sym.FullyConnected(embed, num_hidden=VOCAB, flatten=False, name='pred')
        label = mx.sym.Reshape(mx.sym.Variable('softmax_label'), shape=(-1,))
        return mx.sym.SoftmaxOutput(mx.sym.Reshape(pred, shape=(-1, VOCAB)), label, use_ignore=True,
                                    ignore_label=0, name='softmax')
    return sym_gen


VOCAB = 6


def bucketing(mx, buckets=(5,)):
    """A symbol function of the bucket key: sentences of lengths 2..5 in ``buckets``.

    MXNet 1.9.1 can train only the default (largest) bucket this way: for a smaller one
    its executor manager reshapes the default bucket's input arrays to fewer elements,
    which its NDArray.reshape refuses (ValueError).  reflib trains every bucket (its
    BucketingModule); tests/test_feedforward.py runs buckets (3, 5) on reflib alone."""
    import random
    out = {}
    rng = np.random.RandomState(11)
    sentences = [list(rng.randint(1, VOCAB, size=rng.randint(2, 6))) for _ in range(14)]
    random.seed(1)
    np.random.seed(1)
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=list(buckets), invalid_label=0)
    params = initial_params(mx, {'embed_weight': (VOCAB, 4), 'pred_weight': (VOCAB, 4), 'pred_bias': (VOCAB,)},
                            seed=12)
    model = _model(mx, bucket_net(mx), num_epoch=2, learning_rate=0.5, momentum=0.9, arg_params=params)
    on_batch, _, _, finish = _recorders(out)
    model.fit(it, batch_end_callback=on_batch)
    finish()
    for name, arr in model.arg_params.items():
        out['final/' + name] = arr.asnumpy()
    return out


SCENARIOS = {'numpy_fit': numpy_fit, 'iter_epoch_size': iter_epoch_size, 'begin_state': begin_state,
             'two_devices': two_devices,
             'bucketing': bucketing}


def main():
    import mxnet as mx
    results = {}
    for name, scenario in SCENARIOS.items():
        kwargs = {'save_prefix': CKPT} if name == 'numpy_fit' else {}
        for label, value in scenario(mx, **kwargs).items():
            results['%s/%s' % (name, label)] = value
    np.savez_compressed(OUT, **results)
    print('wrote', OUT, len(results), 'arrays')


if __name__ == '__main__':
    main()
