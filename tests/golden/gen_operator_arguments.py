"""Regenerate operator_arguments.json: MXNet 1.9.1's mx.operator.get_operator_arguments for the
operators test_operator_arguments.py checks.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_operator_arguments.py
"""

import json
import os

from mxnet.operator import get_operator_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = ['Activation', 'FullyConnected', 'Dropout', 'sum', 'Reshape', 'Pooling', 'Concat', 'clip', 'topk',
       'Convolution', 'SoftmaxOutput', 'BatchNorm', 'transpose', 'slice_axis', 'Embedding', 'LeakyReLU']

if __name__ == '__main__':
    record = {name: get_operator_arguments(name)._asdict() for name in OPS}
    with open(os.path.join(HERE, 'operator_arguments.json'), 'w') as f:     # one operator a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k])) for k in OPS))
    print('wrote operator_arguments.json: %d operators' % len(record))
