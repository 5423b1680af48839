"""Regenerate rnn.npz and rnn.json: MXNet 1.9.1's unrolled RNN cells (reflib/rnn/).

Run with a Python that has the real MXNet 1.9.1 (the tests only read the files):

    python tests/golden/gen_rnn.py

For each case (cells.py builds the same cells in either library) the graph is unrolled
over 3 steps of a (2, 3, 4) batch, layout NTC, outputs merged:

* rnn.json: per case, every node as (op, name, attrs), list_arguments, the inferred
  argument shapes, and the names unpack_weights gives;
* rnn.npz: the seeded parameters and data given to it, the outputs of a training
  forward (merged output, then the last states), and the gradient of every argument
  after backward with seeded head gradients (for INFERENCE_ONLY cases, whose training
  forward is random, an inference forward and no gradients).
"""

import json
import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rnn_cases import CASES, DATA_SHAPE, INFERENCE_ONLY, build  # noqa: E402

warnings.simplefilter('ignore')


def main():
    arrays, doc = {}, {}
    for name in CASES:
        with mx.name.NameManager():
            cell, net = build(mx, name)
        rng = np.random.RandomState(7)
        arg_shapes, out_shapes, _ = net.infer_shape(data=DATA_SHAPE)
        args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(net.list_arguments(), arg_shapes)}
        grads = {n: mx.nd.zeros(s) for n, s in zip(net.list_arguments(), arg_shapes)}
        exe = net.bind(mx.cpu(), args=args, args_grad=grads)
        train = name not in INFERENCE_ONLY
        exe.forward(is_train=train)
        heads = [mx.nd.array(rng.uniform(-1, 1, s)) for s in out_shapes]
        if train:
            exe.backward(heads)
        for n, a in args.items():
            arrays['%s/arg/%s' % (name, n)] = a.asnumpy()
            arrays['%s/grad/%s' % (name, n)] = grads[n].asnumpy()
        for k, (o, h) in enumerate(zip(exe.outputs, heads)):
            arrays['%s/out/%d' % (name, k)] = o.asnumpy()
            arrays['%s/head/%d' % (name, k)] = h.asnumpy()
        params = {n: a for n, a in args.items() if n != 'data'}
        doc[name] = {
            'nodes': [[n['op'], n['name'], n.get('attrs', {})] for n in json.loads(net.tojson())['nodes']],
            'arguments': net.list_arguments(),
            'arg_shapes': [list(s) for s in arg_shapes],
            'unpacked': sorted(cell.unpack_weights(params)),
        }
    np.savez_compressed(os.path.join(HERE, 'rnn.npz'), **arrays)
    with open(os.path.join(HERE, 'rnn.json'), 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    print('wrote rnn.npz (%d arrays) and rnn.json (%d cases)' % (len(arrays), len(doc)))


if __name__ == '__main__':
    main()
