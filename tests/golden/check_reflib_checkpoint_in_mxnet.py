"""Manual check: does real MXNet 1.9.1 resume training from a checkpoint that reflib saved,
optimizer states included, and get the numbers reflib gets?

Two steps, two interpreters (reflib's tests never need MXNet):

  1. with reflib's interpreter, from the repository root, train two steps, save a
     checkpoint with optimizer states, then resume from it for two more steps and record
     the parameters:
       python tests/golden/check_reflib_checkpoint_in_mxnet.py --write /tmp/reflib-ckpt
  2. with the MXNet 1.9.1 interpreter, load that checkpoint (Module.load with
     load_optimizer_states=True), train the same two steps and compare:
       /tmp/mxv/bin/python tests/golden/check_reflib_checkpoint_in_mxnet.py /tmp/reflib-ckpt

For each optimizer (SGD with momentum, Adam, RMSProp centered) step 2 prints the largest
difference between MXNet's parameters after the two resumed steps and reflib's.  (Both
compare resumed runs: a ``.states`` file holds the states, not the optimizer's update
counts, so Adam's bias correction starts again at t = 1 after a resume, in MXNet as in
reflib.)
"""

import json
import os
import sys

import numpy as np

OPTIMIZERS = {
    'sgd': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9}),
    'adam': ('adam', {'learning_rate': 0.01}),
    'rmsprop': ('rmsprop', {'learning_rate': 0.01, 'centered': True}),
}


def run(mx, folder, name, load):
    """Two steps from a fixed start (or from the checkpoint), returning the parameters."""
    optimizer, params = OPTIMIZERS[name]
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
    label = np.array([0, 1, 2, 1], np.float32)
    batch = mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)])
    prefix = os.path.join(folder, name)
    if load:
        mod = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    else:
        net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc'),
                                   name='softmax')
        mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
    if not load:
        weight = rng.uniform(-0.5, 0.5, (3, 5)).astype(np.float32)
        mod.init_params(arg_params={'fc_weight': mx.nd.array(weight), 'fc_bias': mx.nd.zeros(3)})
    mod.init_optimizer(optimizer=optimizer, optimizer_params=params)
    for _ in range(2):
        mod.forward_backward(batch)
        mod.update()
    if not load:
        mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    return {k: v.asnumpy().tolist() for k, v in mod.get_params()[0].items()}


def write(folder):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import reflib as mx
    os.makedirs(folder, exist_ok=True)
    after = {}
    for name in OPTIMIZERS:
        run(mx, folder, name, load=False)
        after[name] = run(mx, folder, name, load=True)
    with open(os.path.join(folder, 'after.json'), 'w') as f:
        json.dump(after, f)
    print('wrote reflib checkpoints of %s to %s' % (', '.join(OPTIMIZERS), folder))


def check(folder):
    import mxnet as mx
    with open(os.path.join(folder, 'after.json')) as f:
        after = json.load(f)
    worst = 0.0
    for name in OPTIMIZERS:
        got = run(mx, folder, name, load=True)
        diff = max(float(np.max(np.abs(np.array(got[k]) - np.array(after[name][k])))) for k in got)
        worst = max(worst, diff)
        print('%-8s MXNet resumed from reflib\'s checkpoint; largest difference from reflib: %.3g' % (name, diff))
    assert worst < 1e-5, worst


if __name__ == '__main__':
    if sys.argv[1] == '--write':
        write(sys.argv[2])
    else:
        check(sys.argv[1])
