"""Record MXNet 1.9.1's float32 exp, log, log2, log10, sin and cos of 2,048 values each into
rounding.npz: the bits reflib's unary operators are compared with (tests/test_rounding.py).

    /tmp/mxv/bin/python tests/golden/gen_rounding.py
"""

import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTIONS = ('exp', 'log', 'log2', 'log10', 'sin', 'cos')


def inputs():
    rng = np.random.RandomState(11)
    wide = rng.uniform(-8, 8, 2048).astype(np.float32)
    return {'wide': wide, 'positive': np.abs(wide) + np.float32(0.01)}


def main():
    values = inputs()
    out = dict(values)
    for name in FUNCTIONS:
        x = values['positive' if name.startswith('log') else 'wide']
        out[name] = getattr(mx.nd, name)(mx.nd.array(x)).asnumpy()
    path = os.path.join(HERE, 'rounding.npz')
    np.savez_compressed(path, **out)
    print('wrote %s (%d bytes)' % (path, os.path.getsize(path)))


if __name__ == '__main__':
    main()
