"""Regenerate conv_rnn.npz and conv_rnn.json: MXNet 1.9.1's convolutional RNN cells
(mx.rnn.ConvRNNCell, ConvLSTMCell, ConvGRUCell; reflib/rnn/conv_rnn_cell.py).

Run with a Python that has the real MXNet 1.9.1 (the tests only read the files):

    /tmp/mxv/bin/python tests/golden/gen_conv_rnn.py

For each case of conv_rnn_cases.py (the same code builds the cells in either library), the
cell unrolled over 3 steps, outputs and last states grouped:

* conv_rnn.json: per case, every node as (op, name, attrs, inputs), list_arguments,
  list_outputs, the inferred argument and output shapes, each cell's state_info, the
  parameter names and what unpack_weights names; the name the next unnamed Convolution
  gets after a cell is built; and per bad input of ERRORS the exception MXNet raises;
* conv_rnn.npz: the seeded arguments, the outputs of a training forward, the seeded head
  gradients and the gradient of every argument after backward (not for GRAPH_ONLY cases).
"""

import json
import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from conv_rnn_cases import CASES, ERRORS, GRAPH_ONLY, STEP_SHAPE, build  # noqa: E402

warnings.simplefilter('ignore')


def _cells(cell):
    """The cells inside ``cell`` (itself, for a plain cell), in order."""
    inner = getattr(cell, '_cells', None)
    return [c for sub in inner for c in _cells(sub)] if inner else [cell]


def _infer(net, shapes):
    try:
        arg_shapes, out_shapes, _ = net.infer_shape(**shapes)
    except mx.base.MXNetError:
        return None, None
    return [list(s) for s in arg_shapes], [list(s) for s in out_shapes]


def main():
    arrays, doc = {}, {'cases': {}, 'errors': {}}
    for name in CASES:
        with mx.name.NameManager():
            cell, net, shapes = build(mx, name)
        arg_shapes, out_shapes = _infer(net, shapes)
        case = {
            'nodes': [[n['op'], n['name'], n.get('attrs', {}), [i[:2] for i in n['inputs']]]
                      for n in json.loads(net.tojson())['nodes']],
            'arguments': net.list_arguments(),
            'outputs': net.list_outputs(),
            'input_shapes': {k: list(v) for k, v in shapes.items()},
            'arg_shapes': arg_shapes,
            'out_shapes': out_shapes,
            'state_info': [[list(i['shape']), i['__layout__']] for c in _cells(cell) for i in c.state_info],
            'params': sorted(cell.params._params),
        }
        doc['cases'][name] = case
        if name in GRAPH_ONLY:
            continue
        rng = np.random.RandomState(11)
        args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(net.list_arguments(), arg_shapes)}
        grads = {n: mx.nd.zeros(s) for n, s in zip(net.list_arguments(), arg_shapes)}
        exe = net.bind(mx.cpu(), args=args, args_grad=grads)
        exe.forward(is_train=True)
        heads = [mx.nd.array(rng.uniform(-1, 1, s)) for s in out_shapes]
        exe.backward(heads)
        for n, a in args.items():
            arrays['%s/arg/%s' % (name, n)] = a.asnumpy()
            arrays['%s/grad/%s' % (name, n)] = grads[n].asnumpy()
        for k, (o, h) in enumerate(zip(exe.outputs, heads)):
            arrays['%s/out/%d' % (name, k)] = o.asnumpy()
            arrays['%s/head/%d' % (name, k)] = h.asnumpy()
        params = {n: a for n, a in args.items() if n in cell.params._params}
        case['unpacked'] = sorted(cell.unpack_weights(params))

    with mx.name.NameManager():
        mx.rnn.ConvLSTMCell(STEP_SHAPE, 2)
        doc['next_convolution_name'] = mx.sym.Convolution(mx.sym.Variable('x'), kernel=(1, 1), num_filter=1).name

    for name, make in ERRORS.items():
        try:
            with mx.name.NameManager():
                make(mx)
        except Exception as e:  # noqa: BLE001 - recording whatever MXNet raises
            doc['errors'][name] = [type(e).__name__, str(e).strip().splitlines()[-1][:300]]
        else:
            raise AssertionError('%s: MXNet raised nothing' % name)

    np.savez_compressed(os.path.join(HERE, 'conv_rnn.npz'), **arrays)
    with open(os.path.join(HERE, 'conv_rnn.json'), 'w') as f:
        json.dump(doc, f, sort_keys=True, separators=(',', ':'))
    print('wrote conv_rnn.npz (%d arrays) and conv_rnn.json (%d cases, %d errors)'
          % (len(arrays), len(doc['cases']), len(doc['errors'])))


if __name__ == '__main__':
    main()
