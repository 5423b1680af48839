"""Record what MXNet 1.9.1 does with channel-last layouts (NWC, NHWC, NDHWC) on CPU, for
tests/test_channel_last.py.

Run with MXNet's interpreter (not needed by the tests):

    cd tests/golden && /tmp/mxv/bin/python gen_channel_last.py

What the CPU build does, and so what is recorded:

* Pooling computes every channel-last layout: forward outputs and input gradients for
  fixed inputs and head gradients (``c<i>_*`` through op_cases.record_cases);
* Convolution and Deconvolution infer channel-last shapes (weight (num_filter, *kernel,
  channels / num_group) for a convolution) but fail when run: ``meta['infer']`` holds the
  shapes it infers, fully and partially known (the query Gluon's deferred initialisation
  makes), or None where it refuses; ``meta['compute']`` says, per call, whether running
  it fails; ``meta['gluon']`` the weight shapes of channel-last Gluon layers.
"""

import json
import os
import re
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'channel_last.npz')
SAME = {'pooling_convention': 'same', 'pad': (0, 0, 0)}


def pool(layout, shape, kind='distinct', **params):
    return ('Pooling', dict(params, layout=layout), [(shape, kind)])


# 'distinct' inputs have no ties, so a max gradient has one place to go; 'ties' checks where it goes
CASES = [
    # 1-D
    pool('NWC', (2, 9, 3), kernel=(3,), stride=(2,), pad=(1,)),
    pool('NWC', (2, 9, 3), 'ties', kernel=(2,), stride=(1,)),
    pool('NWC', (2, 9, 3), kernel=(3,), stride=(2,), pad=(1,), pool_type='avg', pooling_convention='full',
         count_include_pad=False),
    pool('NWC', (2, 9, 3), kernel=(4,), stride=(3,), pad=(1,), pool_type='avg', pooling_convention='full'),
    pool('NWC', (2, 9, 3), kernel=(2,), pool_type='sum'),
    pool('NWC', (2, 9, 3), 'positive', kernel=(3,), stride=(2,), pool_type='lp', p_value=2),
    pool('NWC', (2, 10, 3), kernel=(3,), stride=(2,), **SAME),
    pool('NWC', (2, 10, 3), kernel=(4,), stride=(3,), pool_type='avg', **SAME),
    pool('NWC', (2, 9, 3), global_pool=True),
    pool('NWC', (2, 9, 3), global_pool=True, pool_type='avg'),
    # 2-D
    pool('NHWC', (2, 7, 6, 3), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    pool('NHWC', (2, 7, 6, 3), 'ties', kernel=(2, 2), stride=(1, 1)),
    pool('NHWC', (2, 7, 6, 3), kernel=(3, 2), stride=(2, 3), pad=(1, 1), pooling_convention='full'),
    pool('NHWC', (2, 7, 6, 3), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg',
         count_include_pad=False),
    pool('NHWC', (2, 7, 6, 3), kernel=(2, 2), stride=(2, 2), pad=(1, 1), pool_type='avg',
         pooling_convention='full'),
    pool('NHWC', (2, 7, 6, 3), kernel=(2, 3), stride=(1, 1), pad=(0, 1), pool_type='sum'),
    pool('NHWC', (2, 7, 6, 3), kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=1),
    pool('NHWC', (2, 7, 6, 3), 'positive', kernel=(3, 3), stride=(2, 2), pool_type='lp', p_value=3),
    pool('NHWC', (2, 7, 6, 3), global_pool=True),
    pool('NHWC', (2, 7, 6, 3), global_pool=True, pool_type='avg'),
    pool('NHWC', (2, 7, 6, 3), global_pool=True, pool_type='sum'),
    # 3-D
    pool('NDHWC', (1, 5, 4, 6, 2), kernel=(2, 3, 2), stride=(2, 1, 2), pad=(1, 1, 0)),
    pool('NDHWC', (1, 5, 4, 6, 2), kernel=(2, 2, 2), stride=(2, 2, 2), pad=(1, 1, 1), pool_type='avg',
         pooling_convention='full', count_include_pad=False),
    pool('NDHWC', (1, 5, 4, 6, 2), kernel=(3, 2, 2), stride=(1, 2, 2), pad=(1, 1, 1), pool_type='avg'),
    pool('NDHWC', (1, 5, 4, 6, 2), kernel=(3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1), pool_type='sum'),
    pool('NDHWC', (1, 5, 4, 6, 2), global_pool=True, pool_type='avg'),
]

# shape inference: (operator, parameters, {input: shape}, partial?)
CONV = {'num_filter': 6}
INFER = [
    ('Convolution', dict(CONV, kernel=(3, 2), layout='NHWC'), {'data': (2, 7, 6, 4)}, False),
    ('Convolution', dict(CONV, kernel=(3, 2), stride=(2, 1), pad=(1, 0), dilate=(1, 2), num_group=2,
                         layout='NHWC'), {'data': (2, 7, 6, 4)}, False),
    ('Convolution', dict(CONV, kernel=(2, 2, 3), stride=(1, 2, 1), pad=(1, 0, 1), num_group=3, no_bias=True,
                         layout='NDHWC'), {'data': (1, 5, 4, 6, 3)}, False),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC'), {'data': (1, 0, 0, 5)}, True),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC', num_group=2), {'data': (1, 0, 0, 0)}, True),
    ('Convolution', dict(CONV, kernel=(3, 3, 3), layout='NDHWC'), {'data': (1, 0, 0, 0, 4)}, True),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC'),
     {'data': (2, 7, 6, 4), 'weight': (6, 3, 3, 4)}, False),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC'),
     {'data': (2, 7, 6, 4), 'weight': (6, 4, 3, 3)}, False),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC', num_group=4), {'data': (2, 7, 6, 6)}, False),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC'), {'data': (2, 7, 6)}, False),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NDHWC'), {'data': (2, 7, 6, 4)}, False),
    ('Convolution', dict(CONV, kernel=(3,), layout='NWC'), {'data': (2, 7, 4)}, False),
    ('Deconvolution', dict(CONV, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 0), layout='NHWC'),
     {'data': (2, 5, 6, 3)}, False),
    ('Deconvolution', dict(CONV, kernel=(2, 2, 2), num_group=2, no_bias=False, layout='NDHWC'),
     {'data': (1, 3, 4, 5, 4)}, False),
    ('Deconvolution', dict(CONV, kernel=(3, 3), layout='NHWC'), {'data': (2, 5, 6, 0)}, True),
    ('Pooling', dict(kernel=(3, 3), stride=(2, 2), layout='NHWC'), {'data': (0, 7, 6, 0)}, True),
    ('Pooling', dict(kernel=(3,), layout='NHWC'), {'data': (2, 7, 4)}, False),
    ('Pooling', dict(kernel=(3, 3), layout='NWC'), {'data': (2, 7, 6, 4)}, False),
    # a global pool's layout of another rank than the data's: inferred, then not computed (COMPUTE)
    ('Pooling', dict(global_pool=True, layout='NHWC'), {'data': (2, 7, 4)}, False),
    ('Pooling', dict(global_pool=True, layout='NCHW'), {'data': (2, 3, 7)}, False),
]

# calls that MXNet's shape inference accepts: does running them fail?  (operator, parameters, input shapes)
COMPUTE = [
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC'), [(2, 7, 6, 4), (6, 3, 3, 4), (6,)]),
    ('Convolution', dict(CONV, kernel=(3, 3), layout='NHWC', no_bias=True, num_group=2),
     [(2, 7, 6, 4), (6, 3, 3, 2)]),
    ('Convolution', dict(CONV, kernel=(2, 2, 2), layout='NDHWC'), [(1, 4, 5, 6, 3), (6, 2, 2, 2, 3), (6,)]),
    ('Deconvolution', dict(CONV, kernel=(3, 3), layout='NHWC'), [(2, 5, 6, 3), (3, 3, 3, 6)]),
    ('Deconvolution', dict(CONV, kernel=(2, 2, 2), layout='NDHWC'), [(1, 3, 4, 5, 3), (3, 2, 2, 2, 6)]),
    ('Pooling', dict(global_pool=True, layout='NWC'), [(2, 4, 5, 3)]),
    ('Pooling', dict(global_pool=True, layout='NCHW', pool_type='avg'), [(2, 3, 5)]),
    ('Pooling', dict(global_pool=True, layout='NWC'), [(2, 4, 3)]),           # runs: the control
]


def first_line(err):
    lines = [line.strip() for line in str(err).splitlines() if 'Error' in line or 'Check failed' in line]
    line = lines[-1] if lines else str(err).splitlines()[0]
    return re.sub(r'\[\d\d:\d\d:\d\d\] ', '', line)[:200]        # no time of day


def inferred():
    table = []
    for name, params, shapes, partial in INFER:
        shapes = {('node_' + k if k != 'data' else k): v for k, v in shapes.items()}
        try:
            sym = getattr(mx.sym, name)(mx.sym.Variable('data'), name='node', **params)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                args, outs, _ = (sym.infer_shape_partial if partial else sym.infer_shape)(**shapes)
            answer = {'args': [list(s) for s in args], 'outs': [list(s) for s in outs]}
        except mx.base.MXNetError as err:
            answer = {'mxnet': first_line(err)}
        table.append(dict(answer, op=name, params=params, shapes={k: list(v) for k, v in shapes.items()},
                          partial=partial))
    return table


def computed():
    table = []
    for name, params, shapes in COMPUTE:
        try:
            getattr(mx.nd, name)(*[mx.nd.ones(s) for s in shapes], **params).asnumpy()
            answer = None
        except mx.base.MXNetError as err:
            answer = first_line(err)
        table.append({'op': name, 'params': params, 'shapes': [list(s) for s in shapes], 'mxnet': answer})
    return table


def gluon_weights():
    """Weight shapes of channel-last Gluon layers: given in_channels, and deferred until the
    first call (imperative and hybridized) -- that call itself fails in MXNet's engine."""
    nn = mx.gluon.nn
    found = {}
    makers = {
        'conv2d_in': lambda: nn.Conv2D(4, (3, 2), layout='NHWC', in_channels=6, groups=2),
        'conv3d_in': lambda: nn.Conv3D(4, 3, layout='NDHWC', in_channels=6),
        'conv2dT_in': lambda: nn.Conv2DTranspose(4, 3, layout='NHWC', in_channels=6),
    }
    for label, make in makers.items():
        layer = make()
        found[label] = {'weight': list(layer.weight.shape), 'repr': repr(layer)}
    for hybrid in (False, True):
        layer = nn.Conv2D(4, (3, 2), layout='NHWC', groups=2)
        before = list(layer.weight.shape)
        layer.initialize()
        if hybrid:
            layer.hybridize()
        try:
            layer(mx.nd.ones((2, 5, 6, 6))).wait_to_read()
        except mx.base.MXNetError:
            pass            # the weight is sized before the convolution fails
        found['conv2d_deferred%s' % ('_hybrid' if hybrid else '')] = {
            'before': before, 'weight': list(layer.weight.shape), 'repr': repr(layer)}
    return found


def main():
    arrays, meta = {}, {}
    op_cases.record_cases(mx, CASES, arrays, meta)
    meta['infer'] = inferred()
    meta['compute'] = computed()
    meta['gluon'] = gluon_weights()
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(CASES), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
    mx.nd.waitall = lambda: None
    os._exit(0)     # a failed asynchronous convolution would otherwise be reported again at exit
