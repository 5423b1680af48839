"""Manual check: does real MXNet 1.9.1 load and run what reflib's HybridBlock.export writes?

Two steps, two interpreters (reflib's tests never need MXNet):

  1. with reflib's interpreter, from the repository root, export three hybridized models
     (an MLP, a small CNN with BatchNorm, an LSTM layer) with their inputs and outputs:
       .venv/bin/python tests/golden/check_reflib_export_in_mxnet.py --write /tmp/reflib-export
  2. with the MXNet 1.9.1 interpreter, load each one twice -- mx.mod.Module.load and
     gluon.SymbolBlock.imports -- run the same inputs and compare with reflib's outputs:
       /tmp/mxv/bin/python tests/golden/check_reflib_export_in_mxnet.py /tmp/reflib-export

Step 2 prints one line per model and loader and exits non-zero on any difference beyond
float32 rounding.
"""

import os
import sys

import numpy as np


def models(mx):
    nn, rnn = mx.gluon.nn, mx.gluon.rnn
    mlp = nn.HybridSequential(prefix='mlp_')
    with mlp.name_scope():
        mlp.add(nn.Dense(16, activation='relu'), nn.Dropout(0.5), nn.Dense(4))
    cnn = nn.HybridSequential(prefix='cnn_')
    with cnn.name_scope():
        cnn.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(3))
    lstm = nn.HybridSequential(prefix='seq_')
    with lstm.name_scope():
        lstm.add(rnn.LSTM(8, num_layers=2, layout='NTC', bidirectional=True), nn.Dense(2, flatten=False))
    rs = np.random.RandomState(0)
    return {'mlp': (mlp, rs.uniform(-1, 1, (2, 10))), 'cnn': (cnn, rs.uniform(-1, 1, (2, 1, 6, 6))),
            'lstm': (lstm, rs.uniform(-1, 1, (2, 5, 3)))}


def write(folder):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import reflib as mx
    os.makedirs(folder, exist_ok=True)
    for name, (net, x) in models(mx).items():
        net.initialize(mx.init.Xavier())
        data = mx.nd.array(x)
        net(data)                                   # deferred shapes
        rs = np.random.RandomState(1)
        for key in sorted(net.collect_params().keys()):
            param = net.collect_params()[key]
            value = rs.uniform(-0.5, 0.5, param.shape)
            if key.endswith('running_var'):
                value = np.abs(value) + 0.5
            param.set_data(value.astype(np.float32))
        net.hybridize()
        out = net(data)
        net.export(os.path.join(folder, name))
        np.save(os.path.join(folder, name + '-input.npy'), x.astype(np.float32))
        np.save(os.path.join(folder, name + '-output.npy'), out.asnumpy())
        print('wrote', name)


def check(folder):
    import mxnet as mx
    failed = 0
    for name in ('mlp', 'cnn', 'lstm'):
        prefix = os.path.join(folder, name)
        x = np.load(prefix + '-input.npy')
        want = np.load(prefix + '-output.npy')
        mod = mx.mod.Module.load(prefix, 0, data_names=['data'], label_names=None)
        mod.bind(data_shapes=[('data', x.shape)], for_training=False)
        mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
        block = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params')
        for loader, got in (('Module.load', mod.get_outputs()[0].asnumpy()),
                            ('SymbolBlock.imports', block(mx.nd.array(x)).asnumpy())):
            diff = float(np.abs(got - want).max())
            ok = diff <= 1e-5 * max(1.0, float(np.abs(want).max()))
            failed += not ok
            print('%-5s %-20s max |MXNet - reflib| = %.2e  %s' % (name, loader, diff, 'ok' if ok else 'DIFFERENT'))
    return failed


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--write':
        write(sys.argv[2])
    elif len(sys.argv) == 2:
        sys.exit(1 if check(sys.argv[1]) else 0)
    else:
        sys.exit(__doc__)
