"""Tests for im2col and col2im (reflib/operator/im2col.py).

1. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_im2col.py: forward outputs
   and input gradients for fixed head gradients (1-D, 2-D and 3-D kernels, stride, dilate,
   pad), shape inference from partial shapes, and the parameters and shapes MXNet refuses;
2. backward against finite differences (``check_op_gradient``, float64);
3. independent references: a loop over windows, im2col times the weights is a Convolution,
   col2im is im2col's adjoint; the front ends (mx.nd, mx.sym, positional parameters); clear
   messages for bad input, where reflib is stricter than MXNet too.
"""

import ast
import itertools

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ParamError, ShapeError, TypeInferError
from reflib.test_utils import check_op_gradient, op_forward
from device import get
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_im2col.npz')
META = GOLDEN.meta


def rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


def geometry(params):
    nd = len(params['kernel'])
    return (tuple(params['kernel']), tuple(params.get('stride', (1,) * nd)),
            tuple(params.get('dilate', (1,) * nd)), tuple(params.get('pad', (0,) * nd)))


def grid_of(sizes, params):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, (k, s, d, p) in zip(sizes, zip(*geometry(params))))


def loop_im2col(x, params):
    """im2col one window position and kernel tap at a time, straight from the definition."""
    kernel, stride, dilate, pad = geometry(params)
    batch, channels, spatial = x.shape[0], x.shape[1], x.shape[2:]
    grid = grid_of(spatial, params)
    taps = list(itertools.product(*[range(k) for k in kernel]))
    out = np.zeros((batch, channels * len(taps), int(np.prod(grid))), dtype=x.dtype)
    for w, where in enumerate(itertools.product(*[range(g) for g in grid])):
        for k, tap in enumerate(taps):
            pos = [o * s + t * d - p for o, t, s, d, p in zip(where, tap, stride, dilate, pad)]
            if all(0 <= q < n for q, n in zip(pos, spatial)):
                out[:, np.arange(channels) * len(taps) + k, w] = x[(slice(None), slice(None)) + tuple(pos)]
    return out


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_both_operators_and_every_rank():
    seen = {(c['op'], len(ast.literal_eval(c['attrs']['kernel']))) for c in GOLDEN.cases}
    assert seen == {(op, nd) for op in ('im2col', 'col2im') for nd in (1, 2, 3)}
    # and the 1-D and 3-D numbers came from MXNet by the routes the generator documents
    assert {c['via'] for c in GOLDEN.cases} == {'native', '2d', 'convolution'}


@pytest.mark.parametrize('case', META['partial'], ids=lambda c: '%s%s' % (c['op'], c['shape']))
def test_golden_partial_inference(case):
    """As MXNet: the output is inferred only from a fully known data shape."""
    ins, outs = infer_shapes(case['op'], case['params'], [tuple(case['shape'])])
    assert ins == [tuple(s) if s else None for s in case['inputs']]
    assert outs == [tuple(s) if s else None for s in case['outputs']]


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shape']))
def test_golden_errors(case):
    """What MXNet refuses, reflib refuses too, naming the operator; what MXNet refuses when the
    node is made, reflib refuses there as well."""
    params = {k: tuple(v) for k, v in case['params'].items()}
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(case['op'], params, [tuple(case['shape'])])
    assert case['op'] in str(info.value)
    if case['when'] == 'creation':
        with pytest.raises(ParamError, match=case['op']):
            getattr(mx.sym, case['op'])(mx.sym.var('data'), **params)


# ============================================================ finite differences
IM2COL = [
    ((2, 2, 7), dict(kernel=(3,), stride=(2,), dilate=(2,), pad=(2,))),
    ((2, 2, 4, 5), dict(kernel=(2, 3))),
    ((1, 3, 5, 6), dict(kernel=(3, 2), stride=(2, 3), dilate=(1, 2), pad=(1, 2))),
    ((1, 2, 3, 4, 4), dict(kernel=(2, 2, 3), stride=(1, 2, 1), dilate=(2, 1, 1), pad=(1, 0, 1))),
]


def col2im_case(shape, params):
    """col2im's parameters and column shape that undo im2col's ``shape`` and ``params``."""
    size = int(np.prod(params['kernel']))
    return (shape[0], shape[1] * size, int(np.prod(grid_of(shape[2:], params)))), dict(params, output_size=shape[2:])


@pytest.mark.parametrize('shape,params', IM2COL)
def test_im2col_gradient(shape, params):
    check_op_gradient('im2col', [rand(*shape)], params)


@pytest.mark.parametrize('shape,params', IM2COL)
def test_col2im_gradient(shape, params):
    cols, col_params = col2im_case(shape, params)
    check_op_gradient('col2im', [rand(*cols, seed=1)], col_params)


# ============================================================ independent references
@pytest.mark.parametrize('shape,params', IM2COL)
def test_im2col_is_the_window_loop_and_col2im_its_adjoint(shape, params):
    x = rand(*shape)
    (cols,), _ = op_forward('im2col', [x], params)
    np.testing.assert_array_equal(cols, loop_im2col(x, params))
    col_shape, col_params = col2im_case(shape, params)
    c = rand(*col_shape, seed=3)
    (image,), _ = op_forward('col2im', [c], col_params)
    assert image.shape == x.shape
    np.testing.assert_allclose((cols * c).sum(), (x * image).sum(), rtol=1e-12)


@pytest.mark.parametrize('shape,params', IM2COL)
def test_im2col_times_the_weights_is_a_convolution(shape, params):
    """MXNet's own test_im2col_col2im does this for 2-D; here every rank."""
    x, filters = rand(*shape), 3
    w = rand(filters, shape[1], *params['kernel'], seed=5)
    (cols,), _ = op_forward('im2col', [x], params)
    (conv,), _ = op_forward('Convolution', [x, w], dict(params, num_filter=filters, no_bias=True))
    np.testing.assert_allclose(np.einsum('fk,nkw->nfw', w.reshape(filters, -1), cols),
                               conv.reshape(conv.shape[:2] + (-1,)), rtol=1e-12, atol=1e-12)


def test_col2im_of_ones_counts_the_windows_at_each_position():
    """col2im(im2col(x)) is x times how often a window reads each position: 0 where none does
    (the border a stride of 2 skips), up to 4 where 2x2 windows overlap."""
    params = dict(kernel=(2, 2), stride=(1, 2))
    x = rand(1, 1, 3, 5)
    (cols,), _ = op_forward('im2col', [x], params)
    (back,), _ = op_forward('col2im', [cols], dict(params, output_size=(3, 5)))
    (count,), _ = op_forward('col2im', [np.ones_like(cols)], dict(params, output_size=(3, 5)))
    np.testing.assert_array_equal(count[0, 0], [[1, 1, 1, 1, 0], [2, 2, 2, 2, 0], [1, 1, 1, 1, 0]])
    np.testing.assert_allclose(back, count * x)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_dtype_is_kept(dtype):
    x = mx.nd.array(rand(2, 3, 4, 5), dtype=dtype)
    cols = mx.nd.im2col(x, kernel=(2, 2))
    image = mx.nd.col2im(cols, output_size=(4, 5), kernel=(2, 2))
    assert cols.dtype == dtype and image.dtype == dtype and image.shape == (2, 3, 4, 5)
    np.testing.assert_array_equal(cols.asnumpy(), loop_im2col(x.asnumpy(), dict(kernel=(2, 2))))


def test_zero_size_batch_and_channels_under_numpy_shapes():
    """Under mx.np_shape a 0 is a size: MXNet 1.9.1 returns empty arrays, so does reflib."""
    with mx.np_shape(True):
        for shape, cols in [((0, 2, 4, 5), (0, 8, 12)), ((2, 0, 4, 5), (2, 0, 12))]:
            c = mx.nd.im2col(mx.nd.zeros(shape), kernel=(2, 2))
            assert c.shape == cols
            assert mx.nd.col2im(c, output_size=(4, 5), kernel=(2, 2)).shape == shape
        assert mx.sym.im2col(mx.sym.var('d'), kernel=(2, 2)).infer_shape(d=(0, 2, 4, 5))[1] == [(0, 8, 12)]


# ============================================================ front ends
def test_nd_and_sym_positional_parameters_in_mxnet_order():
    """col2im(data, output_size, kernel, stride, dilate, pad), as MXNet's test calls it."""
    x = rand(2, 3, 6, 5).astype(np.float32)
    cols = mx.nd.im2col(mx.nd.array(x), (3, 3), (2, 1), (1, 2), (1, 1))
    assert cols.shape == (2, 27, 9)
    np.testing.assert_array_equal(cols.asnumpy(), loop_im2col(x, dict(kernel=(3, 3), stride=(2, 1),
                                                                       dilate=(1, 2), pad=(1, 1))))
    image = mx.nd.col2im(cols, (6, 5), (3, 3), (2, 1), (1, 2), (1, 1))
    assert image.shape == x.shape
    data = mx.sym.var('data')
    sym = mx.sym.col2im(mx.sym.im2col(data, (3, 3), (2, 1), (1, 2), (1, 1)), (6, 5), (3, 3), (2, 1), (1, 2), (1, 1))
    assert sym.infer_shape(data=x.shape)[1] == [x.shape]
    assert sym.list_arguments() == ['data']
    exe = sym.bind(mx.cpu(), {'data': mx.nd.array(x)}, args_grad={'data': mx.nd.zeros(x.shape)})
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), image.asnumpy())
    head = rand(*x.shape, seed=2).astype(np.float32)
    exe.backward([mx.nd.array(head)])
    # the gradient of col2im(im2col(x)) is the same map again
    (want,), _ = op_forward('col2im', op_forward('im2col', [head], dict(kernel=(3, 3), stride=(2, 1), dilate=(1, 2),
                                                                         pad=(1, 1)))[0],
                            dict(output_size=(6, 5), kernel=(3, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 1)))
    np.testing.assert_allclose(exe.grad_dict['data'].asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_parameters_and_defaults_round_trip_through_json():
    sym = mx.sym.col2im(mx.sym.var('data'), output_size=(4, 5), kernel=(2, 2), name='c')
    back = mx.sym.load_json(sym.tojson())
    assert back.infer_shape(data=(1, 8, 12))[1] == [(1, 2, 4, 5)]
    p = get('im2col').parse_params({'kernel': '(3, 3)'})
    assert (p.stride, p.dilate, p.pad) == ((), (), ())
    assert get('col2im').inputs(get('col2im').parse_params({'kernel': (2,), 'output_size': (5,)})) == ['data']


# ============================================================ bad input
def test_errors_name_the_operator_the_input_and_what_was_expected():
    with pytest.raises(ShapeError, match=r"im2col: input 'data' must be 4-d \(batch, channel, H, W\) "
                                         r"for a 2-D kernel, got shape \(1,2,4\)"):
        infer_shapes('im2col', dict(kernel=(2, 2)), [(1, 2, 4)])
    with pytest.raises(ShapeError, match=r"im2col: the dilated kernel spans 5 along spatial axis 0, more than the "
                                         r"padded input 'data' size \(4 \+ 2\*0 = 4\)"):
        infer_shapes('im2col', dict(kernel=(3, 2), dilate=(2, 1)), [(1, 2, 4, 5)])
    with pytest.raises(ShapeError, match=r"col2im: input 'data' must have 12 windows on axis 2 \(a 3x4 grid for "
                                         r"output_size=\(4,5\)\), got shape \(1,8,11\)"):
        infer_shapes('col2im', dict(kernel=(2, 2), output_size=(4, 5)), [(1, 8, 11)])
    with pytest.raises(ShapeError, match=r"col2im: axis 1 of input 'data' must be a multiple of the kernel size 4"):
        infer_shapes('col2im', dict(kernel=(2, 2), output_size=(4, 5)), [(1, 7, 12)])
    with pytest.raises(ShapeError, match=r"col2im: input 'data' must be 3-d"):
        infer_shapes('col2im', dict(kernel=(2, 2), output_size=(4, 5)), [(1, 8)])
    with pytest.raises(ParamError, match=r"col2im: parameter 'output_size' must have 2 entries like kernel"):
        mx.sym.col2im(mx.sym.var('data'), output_size=(4,), kernel=(2, 2))
    with pytest.raises(ParamError, match=r"im2col: kernel must have 1, 2 or 3 entries"):
        mx.nd.im2col(mx.nd.ones((1, 1, 2, 2)), kernel=(1, 1, 1, 1))
    with pytest.raises(ShapeError, match=r"im2col: output"):
        infer_shapes('im2col', dict(kernel=(2, 2)), [(1, 2, 4, 5)], [(1, 8, 11)])


def test_stricter_than_mxnet_where_it_fails_later():
    """MXNet 1.9.1 infers a shape for data with extra unit axes and takes a negative pad; reflib refuses
    both up front.  Integer data MXNet refuses when it runs, as reflib does."""
    with pytest.raises(ShapeError, match=r"im2col: input 'data' must be 4-d"):
        infer_shapes('im2col', dict(kernel=(2, 2)), [(1, 2, 4, 5, 1)])
    with pytest.raises(ShapeError, match=r"col2im: input 'data' must be 3-d"):
        infer_shapes('col2im', dict(kernel=(2, 2), output_size=(4, 5)), [(1, 8, 12, 1)])
    with pytest.raises(ParamError, match=r"im2col: every element of parameter 'pad' must be at least 0"):
        mx.sym.im2col(mx.sym.var('data'), kernel=(2, 2), pad=(-1, 0))
    for op, shape, params in [('im2col', (1, 1, 3, 3), dict(kernel=(2, 2))),
                              ('col2im', (1, 4, 4), dict(kernel=(2, 2), output_size=(3, 3)))]:
        with pytest.raises(TypeInferError, match=r"%s: input 'data' has dtype int32; only floating point" % op):
            getattr(mx.nd, op)(mx.nd.ones(shape, dtype='int32'), **params)
    assert issubclass(TypeInferError, MXNetError)
