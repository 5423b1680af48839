"""Record golden values for Pooling with pooling_convention='same' (reflib/operator/pooling.py)
from real MXNet 1.9.1.

Run with MXNet's interpreter (not needed by the tests):

    cd tests/golden && /tmp/mxv/bin/python gen_ops_pooling_same.py

It runs MXNet with its oneDNN (MKLDNN) kernels off (MXNET_MKLDNN_ENABLED=0), i.e. its plain
CPU kernel, which reflib follows: oneDNN fails ("could not create a descriptor for a pooling
forward propagation primitive") on most max and avg windows that overhang the end of the
input; ``meta['onednn_fails']`` says which of the cases do, recorded in a second process
with oneDNN on.

It writes tests/golden/ops_pooling_same.npz through op_cases.record_cases (``c<i>_*``, see
op_cases.py) and ``meta['errors']``: the message MXNet gives for each call in ERRORS (None
where it runs), and ``meta['infer_shape']``: the output shape it infers for SHAPES.
"""

import json
import os
import re
import subprocess
import sys

if __name__ == '__main__' and len(sys.argv) == 1:
    os.environ['MXNET_MKLDNN_ENABLED'] = '0'      # before mxnet is imported

import numpy as np          # noqa: E402
import mxnet as mx          # noqa: E402

import op_cases             # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_pooling_same.npz')
SAME = {'pooling_convention': 'same', 'pad': (0, 0, 0)}

CASES = [
    # MXNet's test: kernel 2, stride 2 on 10
    ('Pooling', dict(SAME, kernel=(2,), stride=(2,)), [(1, 1, 10)]),
] + [
    ('Pooling', dict(SAME, kernel=(k,), stride=(s,), pool_type=pool), [((2, 3, n), kind)])
    for pool in ('max', 'avg', 'sum')
    for k, s, n, kind in [(3, 2, 10, 'ties'), (3, 1, 7, 'normal'), (4, 3, 10, 'normal'), (5, 2, 9, 'ties'),
                          (1, 3, 10, 'normal'), (2, 3, 10, 'normal'), (6, 4, 10, 'normal'), (7, 1, 7, 'normal')]
] + [
    ('Pooling', dict(SAME, kernel=(3,), stride=(2,), pool_type='avg', count_include_pad=False), [(2, 2, 10)]),
    ('Pooling', dict(SAME, kernel=(4,), stride=(3,), pool_type='avg', count_include_pad=True), [(1, 2, 8)]),
    ('Pooling', dict(SAME, kernel=(3,), stride=(2,), pool_type='lp', p_value=2), [((2, 2, 9), 'positive')]),
    ('Pooling', dict(SAME, kernel=(3,), stride=(2,), pool_type='lp', p_value=1), [(1, 2, 9)]),
    ('Pooling', dict(SAME, kernel=(2,)), [(1, 2, 5)]),                       # stride 1 by default
    ('Pooling', dict(SAME, kernel=(2,), stride=(2,), pad=(0, 0, 0, 0)), [(1, 1, 9)]),
    ('Pooling', {'pooling_convention': 'same', 'global_pool': True}, [(2, 3, 6)]),      # no pad needed
    ('Pooling', {'pooling_convention': 'same', 'global_pool': True, 'pool_type': 'avg'}, [(2, 3, 6)]),
]

# calls MXNet fails on (or not): label -> (data shape, parameters)
ERRORS = {
    'default_pad': ((1, 1, 10), {'kernel': (2,), 'stride': (2,)}),
    'pad_1': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0,)}),
    'pad_2': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0)}),
    'pad_nonzero': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0, 1)}),
    'pad_2_int': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': 2}),
    'pad_fourth_nonzero': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0, 0, 3)}),
    '2d': ((1, 1, 6, 6), {'kernel': (2, 2), 'stride': (2, 2), 'pad': (0, 0, 0)}),
    '2d_default_pad': ((1, 1, 6, 6), {'kernel': (2, 2), 'stride': (2, 2)}),
    '3d': ((1, 1, 4, 4, 4), {'kernel': (2, 2, 2), 'stride': (2, 2, 2)}),
    'global_2d': ((1, 1, 6, 6), {'global_pool': True}),
    'kernel_too_big': ((1, 1, 10), {'kernel': (11,), 'pad': (0, 0, 0)}),
    'kernel_equal': ((1, 1, 10), {'kernel': (10,), 'pad': (0, 0, 0)}),
    'global_3d_default_pad': ((1, 1, 10), {'global_pool': True}),
}

SHAPES = [((2, 3, n), k, s) for n in (1, 5, 9, 10, 11, 16) for k, s in ((1, 1), (1, 4), (3, 2), (5, 3)) if k <= n]


def first_error_line(err):
    lines = [line for line in str(err).splitlines() if 'Check failed' in line or 'Error' in line]
    line = lines[-1].strip() if lines else str(err).splitlines()[0]
    return re.sub(r'\[\d\d:\d\d:\d\d\] ', '', line)        # no time of day


def errors():
    found = {}
    for label, (shape, params) in ERRORS.items():
        try:
            out = mx.nd.Pooling(mx.nd.ones(shape), pooling_convention='same', **params)
            out.asnumpy()
            found[label] = None
        except mx.base.MXNetError as err:
            found[label] = first_error_line(err)
    return found


def inferred_shapes():
    found = []
    for shape, k, s in SHAPES:
        sym = mx.sym.Pooling(mx.sym.Variable('d'), kernel=(k,), stride=(s,), **SAME)
        found.append([list(shape), k, s, list(sym.infer_shape(d=shape)[1][0])])
    return found


def onednn_fails():
    """Run in a child process with oneDNN on: which of CASES its kernels fail on."""
    failed = []
    rng = np.random.RandomState(0)
    for i, (name, params, specs) in enumerate(CASES):
        x = op_cases.make_input(rng, specs[0])
        try:
            mx.nd.Pooling(mx.nd.array(x), **params).asnumpy()
        except mx.base.MXNetError:
            failed.append(i)
    return failed


def main():
    arrays, meta = {}, {}
    op_cases.record_cases(mx, CASES, arrays, meta)
    meta['errors'] = errors()
    meta['infer_shape'] = inferred_shapes()
    child = subprocess.run([sys.executable, __file__, 'onednn'], capture_output=True, text=True, cwd=HERE,
                           env={k: v for k, v in os.environ.items() if k != 'MXNET_MKLDNN_ENABLED'})
    meta['onednn_fails'] = json.loads(child.stdout.strip().splitlines()[-1])
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(CASES), os.path.getsize(OUT)))


if __name__ == '__main__':
    if sys.argv[1:] == ['onednn']:
        print(json.dumps(onednn_fails()))
    else:
        main()
