"""Channel-last layouts (NWC, NHWC, NDHWC) in Pooling, Convolution and Deconvolution, against
what MXNet 1.9.1 does with them on CPU (tests/golden/gen_channel_last.py -> channel_last.npz).

1. Pooling computes them: forward and input gradients of the oracle's cases (max, avg,
   sum, lp; 1-D, 2-D, 3-D; stride, pad, valid/full/same, count_include_pad, global),
   called on the operator and through a bound symbol (the executor's planned memory);
   backward against finite differences too;
2. shapes are inferred as MXNet infers them, fully or partially known: the weight of a
   channel-last convolution is (num_filter, *kernel, channels / num_group), and what MXNet
   refuses is refused;
3. a channel-last (de)convolution is not computed, as MXNet's CPU build does not, and a
   global pool whose layout has another rank than its data is refused at once (MXNet infers
   its shape and fails to compute it);
4. Gluon: channel-last layers get MXNet's weight shapes, in_channels read off the data's
   last axis by deferred initialisation, imperative and hybridized.
"""

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.gluon import nn
from reflib.test_utils import check_op_gradient
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('channel_last.npz', rtol=1e-5, atol=1e-6)
META = GOLDEN.meta
rng = np.random.RandomState(11)


# ============================================================ 1. Pooling's numbers
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_the_layouts_and_options():
    attrs = [c['attrs'] for c in GOLDEN.cases]
    assert {a['layout'] for a in attrs} == {'NWC', 'NHWC', 'NDHWC'}
    assert {a.get('pool_type', 'max') for a in attrs} == {'max', 'avg', 'sum', 'lp'}
    assert {a.get('pooling_convention', 'valid') for a in attrs} == {'valid', 'full', 'same'}
    assert any(a.get('global_pool') == 'True' for a in attrs)
    assert any(a.get('count_include_pad') == 'False' for a in attrs)


@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case_through_a_bound_symbol(i):
    """The executor hands the operator its planned output and gradient arrays (channel-last)."""
    case = GOLDEN.cases[i]
    x = GOLDEN.inputs(i)[0]
    params = mx.operator.get('Pooling').parse_params(case['attrs']).__dict__
    sym = mx.sym.Pooling(mx.sym.var('x'), **{k: v for k, v in params.items() if v is not None})
    grad = mx.nd.zeros(x.shape)
    exe = sym.bind(mx.cpu(), {'x': mx.nd.array(x)}, args_grad={'x': grad})
    out = exe.forward(is_train=True)[0]
    np.testing.assert_allclose(out.asnumpy(), GOLDEN.arrays['c%d_out0' % i], rtol=1e-5, atol=1e-6)
    exe.backward([mx.nd.array(GOLDEN.arrays['c%d_head0' % i])])
    np.testing.assert_allclose(grad.asnumpy(), GOLDEN.arrays['c%d_grad0' % i], rtol=1e-5, atol=1e-6)


def test_channel_last_is_the_transposed_channel_first():
    x = rng.uniform(-1, 1, size=(2, 3, 7, 6)).astype(np.float32)
    last = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    for params in (dict(kernel=(3, 2), stride=(2, 1), pad=(1, 1), pool_type='avg', pooling_convention='full'),
                   dict(kernel=(2, 2), pool_type='max'), dict(global_pool=True, pool_type='sum')):
        first = mx.nd.Pooling(mx.nd.array(x), **params).asnumpy()
        got = mx.nd.Pooling(mx.nd.array(last), layout='NHWC', **params).asnumpy()
        np.testing.assert_array_equal(got, first.transpose(0, 2, 3, 1))


@pytest.mark.parametrize('layout,shape,params', [
    ('NWC', (2, 7, 3), dict(kernel=(3,), stride=(2,), pad=(1,), pool_type='avg',
                            count_include_pad=False)),
    ('NWC', (1, 8, 2), dict(kernel=(3,), stride=(2,), pool_type='max', pooling_convention='same',
                            pad=(0, 0, 0))),
    ('NHWC', (2, 5, 6, 3), dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), pool_type='max')),
    ('NHWC', (1, 5, 4, 2), dict(kernel=(2, 2), stride=(1, 2), pad=(1, 1), pool_type='avg',
                                pooling_convention='full')),
    ('NHWC', (1, 4, 5, 2), dict(kernel=(2, 3), pool_type='lp', p_value=2)),
    ('NHWC', (2, 3, 4, 2), dict(global_pool=True, pool_type='avg')),
    ('NDHWC', (1, 4, 3, 5, 2), dict(kernel=(2, 2, 3), stride=(1, 2, 2), pad=(1, 0, 1), pool_type='sum')),
    ('NDHWC', (1, 3, 4, 3, 2), dict(kernel=(2, 2, 2), stride=(2, 1, 2), pool_type='max',
                                    pooling_convention='full')),
])
def test_pooling_gradient_matches_finite_differences(layout, shape, params):
    # distinct values far apart (no ties, no switch of the maximum within eps); positive for lp
    x = (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 + 0.5).astype(np.float64)
    check_op_gradient('Pooling', [x], dict(params, layout=layout), eps=1e-4, rtol=1e-4, atol=1e-6)


def test_pooling_imperative_autograd():
    x = mx.nd.array(rng.uniform(size=(2, 6, 5, 3)))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='avg', layout='NHWC')
    y.backward()
    assert y.shape == (2, 3, 2, 3)
    want = np.zeros((2, 6, 5, 3), dtype=np.float32)
    want[:, :6, :4] = 0.25          # the last column is in no window
    np.testing.assert_allclose(x.grad.asnumpy(), want)


# ============================================================ 2. shape inference
@pytest.mark.parametrize('row', META['infer'], ids=lambda r: '%s%s%s' % (r['op'], r['params'], r['shapes']))
def test_shape_inference_is_mxnets(row):
    def infer():
        data = mx.sym.var('data')
        sym = getattr(mx.sym, row['op'])(data, name='node', **row['params'])
        shapes = {k: tuple(v) for k, v in row['shapes'].items()}
        return (sym.infer_shape_partial if row['partial'] else sym.infer_shape)(**shapes)
    stricter = row['op'] == 'Pooling' and row['params'].get('global_pool') and 'args' in row and \
        len(row['params']['layout']) != len(row['shapes']['data'])
    if 'mxnet' in row or stricter:
        with pytest.raises(MXNetError):
            infer()
        return
    args, outs, _ = infer()
    assert [list(s) for s in args] == row['args']
    assert [list(s) for s in outs] == row['outs']


def test_every_stricter_row_is_one_mxnet_cannot_compute():
    rows = [r for r in META['infer'] if r['op'] == 'Pooling' and r['params'].get('global_pool')
            and 'args' in r and len(r['params']['layout']) != len(r['shapes']['data'])]
    assert rows
    failing = [c for c in META['compute'] if c['op'] == 'Pooling' and c['mxnet']]
    assert all(len(c['params']['layout']) != len(c['shapes'][0]) for c in failing)


def test_operator_level_inference_goes_both_ways():
    # the weight's channel count fills in the data's, the data's batch the output's
    ins, outs = infer_shapes('Convolution', dict(kernel=(3, 3), num_filter=4, layout='NHWC'),
                             [(2, 0, 0, 0), (4, 3, 3, 5), None])
    assert ins[0] == (2, 0, 0, 0) and ins[1] == (4, 3, 3, 5) and outs == [(2, 0, 0, 4)]
    ins, outs = infer_shapes('Convolution', dict(kernel=(3, 3), num_filter=4, layout='NHWC', no_bias=True),
                             [(0, 9, 8, 6), None], [(5, 7, 6, 4)])
    assert ins == [(5, 9, 8, 6), (4, 3, 3, 6)] and outs == [(5, 7, 6, 4)]


# ============================================================ 3. what is not computed
@pytest.mark.parametrize('row', META['compute'], ids=lambda r: '%s%s' % (r['op'], r['params']))
def test_refused_where_mxnet_cannot_compute(row):
    inputs = [mx.nd.ones(tuple(s)) for s in row['shapes']]
    call = lambda: getattr(mx.nd, row['op'])(*inputs, **row['params']).asnumpy()
    if row['mxnet'] is None:
        call()
        return
    with pytest.raises(MXNetError, match=row['params']['layout']):
        call()


def test_convolution_refusal_says_why():
    with pytest.raises(MXNetError, match=r"Convolution: layout 'NHWC' is not computed: MXNet 1.9.1 on CPU"):
        mx.nd.Convolution(mx.nd.ones((1, 5, 5, 2)), mx.nd.ones((3, 3, 3, 2)), kernel=(3, 3), num_filter=3,
                          no_bias=True, layout='NHWC')


# ============================================================ 4. Gluon
def test_gluon_layers_with_in_channels_have_mxnets_weights():
    gluon = META['gluon']
    layers = {'conv2d_in': nn.Conv2D(4, (3, 2), layout='NHWC', in_channels=6, groups=2),
              'conv3d_in': nn.Conv3D(4, 3, layout='NDHWC', in_channels=6),
              'conv2dT_in': nn.Conv2DTranspose(4, 3, layout='NHWC', in_channels=6)}
    for label, layer in layers.items():
        assert list(layer.weight.shape) == gluon[label]['weight'], label
        assert repr(layer) == gluon[label]['repr'], label


@pytest.mark.parametrize('hybrid', [False, True])
def test_gluon_deferred_init_reads_in_channels_off_the_last_axis(hybrid):
    want = META['gluon']['conv2d_deferred%s' % ('_hybrid' if hybrid else '')]
    layer = nn.Conv2D(4, (3, 2), layout='NHWC', groups=2)
    assert list(layer.weight.shape) == want['before']
    layer.initialize()
    if hybrid:
        layer.hybridize()
    with pytest.raises(MXNetError, match='NHWC'):     # sized, then refused, as MXNet fails to run it
        layer(mx.nd.ones((2, 5, 6, 6)))
    assert list(layer.weight.shape) == want['weight']
    assert layer.weight.data().shape == tuple(want['weight'])
    assert repr(layer) == want['repr']


@pytest.mark.parametrize('make,shape,out_shape', [
    (lambda: nn.MaxPool1D(3, 2, layout='NWC'), (1, 10, 2), (1, 4, 2)),
    (lambda: nn.AvgPool2D(count_include_pad=False, padding=1, layout='NHWC'), (1, 10, 9, 2), (1, 6, 5, 2)),
    (lambda: nn.MaxPool2D(3, ceil_mode=True, layout='NHWC'), (2, 10, 10, 2), (2, 4, 4, 2)),
    (lambda: nn.GlobalAvgPool3D(layout='NDHWC'), (1, 4, 5, 6, 2), (1, 1, 1, 1, 2)),
])
def test_gluon_pooling_layers_channel_last(make, shape, out_shape):
    """Imperative and hybridized agree, as in MXNet's test_gluon.py::test_pool."""
    x = mx.nd.array(rng.uniform(size=shape))
    layer = make()
    layer.initialize()
    out = layer(x).asnumpy()
    layer.hybridize()
    np.testing.assert_allclose(layer(x).asnumpy(), out, rtol=1e-6)
    assert out.shape == out_shape
    first = tuple([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    back = tuple([0] + list(range(2, x.ndim)) + [1])
    kwargs = dict(layer._kwargs, layout=None)
    ref = mx.nd.Pooling(mx.nd.array(x.asnumpy().transpose(first)), **kwargs).asnumpy().transpose(back)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
