"""Tests for the image operators (reflib/operator/image.py, cv_resize.py): mx.nd.image,
mx.sym.image and _cvimresize.

1. against MXNet 1.9.1 (tests/golden/ops_image.json, written by
   tests/golden/gen_ops_image.py, whose cases run here under reflib): forward values
   exactly (resize: every interpolation, type and a range of sizes; the colour operators
   with a fixed factor), the gradients MXNet computes correctly (normalize, crop), the
   shapes, types and node names of the symbols, and the calls MXNet refuses;
2. where reflib departs from MXNet on purpose (see image.py): the true gradients of
   to_tensor and the flips against finite differences, and hue to float32 rounding;
3. the random operators by their properties: a flip happens or not as the kept coin says,
   factors stay in their ranges, seeds repeat.
"""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, BindError
from reflib.test_utils import check_op_gradient, op_forward
from device import get
from op_golden import GOLDEN_DIR

sys.path.insert(0, GOLDEN_DIR)
import gen_ops_image as cases  # noqa: E402

with open(os.path.join(GOLDEN_DIR, 'ops_image.json')) as _f:
    GOLDEN = json.load(_f)['cases']

# answers that differ from MXNet's on purpose, checked by their own tests below
DEPARTS = {'to_tensor_gradient', 'flip_gradient', 'hue', 'flips'}


def same(got, want, where):
    """Equal answers: dtype, shape and values (or digest) exactly; the same errors."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, '%s[%d]' % (where, k))
        return
    if 'error' in want:
        # every refusal of MXNet's is an MXNetError; reflib's are its subclasses
        assert 'error' in got, '%s: MXNet refuses, reflib gives %s' % (where, got)
        return
    assert 'error' not in got, '%s: reflib refuses (%s), MXNet answers' % (where, got['error'])
    if 'dtype' not in want:                    # not an array: a symbol's description
        assert got == want, where
        return
    assert (got['dtype'], got['shape']) == (want['dtype'], want['shape']), where
    if 'sha1' in want:
        assert got['head'] == want['head'] and got['sha1'] == want['sha1'], where
    else:
        np.testing.assert_array_equal(np.array(got['values']), np.array(want['values']), err_msg=where)


def run_case(name):
    """A golden case under reflib, errors recorded by class (MXNetError's subclasses)."""
    answer = cases.CASES[name](mx)
    return json.loads(json.dumps(answer))


@pytest.mark.parametrize('name', sorted(set(cases.CASES) - DEPARTS))
def test_same_answers_as_mxnet(name):
    same(run_case(name), GOLDEN[name], name)


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.CASES)


def test_refusals_are_mxnet_errors():
    with pytest.raises(MXNetError, match='_image_normalize'):
        mx.nd.image.normalize(mx.nd.ones((3, 2, 2)))        # MXNet's default mean has 4 entries
    with pytest.raises(MXNetError, match='_image_resize'):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=(1, 2, 3))
    with pytest.raises(MXNetError, match='_image_crop'):
        mx.nd.image.crop(mx.nd.ones((4, 4, 3)), 3, 0, 2, 2)


# ============================================================ hue: to float32 rounding
def test_hue_as_mxnet_to_rounding():
    """MXNet's compiled hue conversion rounds a few intermediate sums differently (fused
    multiply-adds reflib copies where it could find them): float results agree to a few
    float32 units, uint8 ones to 1 in a handful of values at a truncation boundary."""
    got, want = run_case('hue'), GOLDEN['hue']
    off_by_one = total = 0
    for g, w in zip(got, want):
        assert (g['dtype'], g['shape']) == (w['dtype'], w['shape'])
        a, b = np.array(g['values']), np.array(w['values'])
        if w['dtype'] == 'uint8':
            assert np.abs(a - b).max() <= 1
            off_by_one += int((a != b).sum())
            total += a.size
        else:
            np.testing.assert_allclose(a, b, rtol=0, atol=6e-5 * max(1.0, np.abs(b).max() / 255))
    assert off_by_one <= total // 100


def test_flips_as_mxnet_where_mxnet_writes_the_output():
    """MXNet's flips swap pixels in pairs and never write the middle column (row) of an odd
    width (height): there its output is whatever memory held.  Everywhere else reflib
    agrees, and everywhere reflib's is numpy's flip."""
    got, want = run_case('flips'), GOLDEN['flips']
    shapes = [((3, 4, 3), 'uint8'), ((2, 5, 1), 'float32'), ((1, 3, 4, 3), 'uint8'), ((3, 4, 2), 'uint8'),
              ((3, 4), 'uint8')] * 2
    for k, ((shape, dtype), g, w) in enumerate(zip(shapes, got, want)):
        if 'error' in w:
            assert 'error' in g, k
            continue
        axis = 1 if k < 5 else 0
        x = cases.image(shape, dtype)
        result = np.array(g['values']).reshape(shape)
        np.testing.assert_array_equal(result, np.flip(x, axis))
        written = np.ones(shape, dtype=bool)
        if shape[axis] % 2:
            np.moveaxis(written, axis, 0)[shape[axis] // 2] = False
        np.testing.assert_array_equal(result[written], np.array(w['values']).reshape(shape)[written])


# ============================================================ gradients
def test_to_tensor_gradient_is_the_transposed_head_over_255():
    """MXNet's fails (it copies the head gradient, whose shape does not fit); reflib's is the
    true one."""
    assert GOLDEN['to_tensor_gradient'] == {'error': 'MXNetError'}
    (y, g), = [run_case('to_tensor_gradient')]
    head = cases.image(y['shape'], 'float32', 5) / 100.0
    expected = np.moveaxis(head.astype(np.float32), 0, -1) / np.float32(255)
    np.testing.assert_allclose(np.array(g['values']).reshape(g['shape']), expected, rtol=1e-6)
    # its output is float32 whatever the input: steps of 1 (it is linear) keep the rounding small
    check_op_gradient('_image_to_tensor', [cases.image((3, 4, 3), 'float64')], eps=1.0)
    check_op_gradient('_image_to_tensor', [cases.image((2, 3, 2, 1), 'float64')], eps=1.0)


def test_flip_gradient_is_flipped_back():
    """MXNet passes the head gradient through unflipped (so the gradient of each pixel lands
    on its mirror image); reflib flips it back."""
    for (y, g_mx), (_, g), axis in zip(GOLDEN['flip_gradient'], run_case('flip_gradient'), (1, 0)):
        head = cases.image(y['shape'], 'float32', 5) / 100.0
        np.testing.assert_allclose(np.array(g_mx['values']).reshape(y['shape']), head, rtol=1e-6)
        np.testing.assert_allclose(np.array(g['values']).reshape(y['shape']), np.flip(head, axis), rtol=1e-6)


@pytest.mark.parametrize('op,params,shape', [
    ('_image_flip_left_right', {}, (3, 4, 3)),
    ('_image_flip_top_bottom', {}, (4, 2, 1)),
    ('_image_normalize', {'mean': (0.1, 0.2, 0.3), 'std': (0.5, 2.0, 0.7)}, (2, 3, 2, 2)),
    ('_image_normalize', {'mean': 0.5, 'std': 0.25}, (1, 3, 2)),
    ('_image_crop', {'x': 1, 'y': 0, 'width': 2, 'height': 2}, (3, 4, 3)),
    ('_image_crop', {'x': 0, 'y': 1, 'width': 1, 'height': 2}, (2, 3, 3, 1)),
])
def test_gradient_against_finite_differences(op, params, shape):
    check_op_gradient(op, [cases.image(shape, 'float64') / 50], params)


@pytest.mark.parametrize('op', ['_image_random_flip_left_right', '_image_random_flip_top_bottom'])
@pytest.mark.parametrize('seed', [0, 1, 2, 3])
def test_random_flip_gradient_follows_the_coin(op, seed):
    # check_op_gradient re-seeds before each forward: the same coin every time
    check_op_gradient(op, [cases.image((3, 4, 3), 'float64') / 50], seed=seed)


@pytest.mark.parametrize('op,params', [
    ('_image_random_brightness', {'min_factor': 0.5, 'max_factor': 1.5}),
    ('_image_random_contrast', {'min_factor': 0.5, 'max_factor': 1.5}),
    ('_image_random_saturation', {'min_factor': 0.5, 'max_factor': 1.5}),
    ('_image_random_hue', {'min_factor': 0.0, 'max_factor': 0.3}),
    ('_image_random_color_jitter', {'brightness': 0.1, 'contrast': 0.1, 'saturation': 0.1, 'hue': 0.1}),
    ('_image_adjust_lighting', {'alpha': (0.1, 0.2, 0.3)}),
    ('_image_random_lighting', {'alpha_std': 0.1}),
])
def test_colour_gradients_pass_through_as_in_mxnet(op, params):
    x = cases.image((3, 4, 3), 'float32')
    head = cases.image((3, 4, 3), 'float32', seed=2)
    operator = get(op)
    p = operator.parse_params(params)
    outs = operator.forward(p, mx.operator.OpEnv(mx.cpu()), [x], [])
    (grad,) = operator.backward(p, mx.operator.OpEnv(mx.cpu()), [head], [x], outs, [])
    np.testing.assert_array_equal(grad, head)


def test_resize_has_no_gradient():
    data = mx.sym.var('data')
    with pytest.raises(BindError, match='_image_resize'):
        mx.sym.image.resize(data, size=3).simple_bind(mx.cpu(), data=(4, 4, 3))
    x = mx.nd.ones((4, 4, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.resize(x, size=3)
    with pytest.raises(MXNetError, match='_image_resize'):
        y.backward()


def test_to_tensor_then_normalize_gradient_through_autograd():
    """to_tensor then normalize, recorded: the gradient reaches the float image."""
    x = mx.nd.array(cases.image((4, 3, 3), 'float32'))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.normalize(mx.nd.image.to_tensor(x), mean=(0.5, 0.4, 0.3), std=(0.2, 0.25, 0.5))
    y.backward(mx.nd.ones_like(y))
    expected = np.broadcast_to(np.float32(1) / np.float32(255) / np.array([0.2, 0.25, 0.5], np.float32), (4, 3, 3))
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


# ============================================================ random operators
def _op(op, x, seed=0, **params):
    outs, _ = op_forward(op, [x], params, seed=seed)
    return outs


@pytest.mark.parametrize('op,axis', [('_image_random_flip_left_right', 1), ('_image_random_flip_top_bottom', 0)])
def test_random_flip_flips_as_the_coin_says(op, axis):
    x = cases.image((3, 4, 3))
    flips = 0
    for seed in range(60):
        out, coin = _op(op, x, seed)
        assert coin.shape == (1,) and coin[0] in (0, 1)
        np.testing.assert_array_equal(out, np.flip(x, axis) if coin[0] else x)
        flips += int(coin[0])
    assert 15 <= flips <= 45                   # 60 fair coins (fixed seeds)


def test_random_flip_hides_its_coin():
    sym = mx.sym.image.random_flip_left_right(mx.sym.var('data'))
    assert sym.list_outputs() == ['random_flip_left_right0_output']


def test_random_factors_stay_in_their_ranges():
    x = cases.image((4, 5, 3), 'float32') + 1
    factors = []
    for seed in range(40):
        (out,) = _op('_image_random_brightness', x, seed, min_factor=0.6, max_factor=1.4)
        ratio = out / x
        np.testing.assert_allclose(ratio, ratio.flat[0], rtol=1e-5)
        factors.append(ratio.flat[0])
    assert 0.6 <= min(factors) < 0.75 and 1.25 < max(factors) <= 1.4
    # a range given upside down draws from it as C++ does
    (out,) = _op('_image_random_brightness', x, 0, min_factor=1.4, max_factor=1.2)
    assert 1.2 <= (out / x).flat[0] <= 1.4


@pytest.mark.parametrize('op,adjust', [('_image_random_contrast', 'random_contrast'),
                                       ('_image_random_saturation', 'random_saturation'),
                                       ('_image_random_hue', 'random_hue')])
def test_random_colour_is_the_fixed_adjustment_with_some_factor_in_range(op, adjust):
    """The output is the deterministic adjustment (min = max) with a factor in the range:
    found again by search."""
    x = mx.nd.array(cases.image((4, 4, 3), 'float32'))
    (out,) = _op(op, x.asnumpy(), 3, min_factor=0.2, max_factor=0.6)
    grid = np.linspace(0.2, 0.6, 401)
    errors = [np.abs(getattr(mx.nd.image, adjust)(x, a, a).asnumpy() - out).max() for a in grid]
    best = int(np.argmin(errors))
    assert errors[best] < 1.0 and 0 < best < 400      # the grid step moves a value by < 0.8


def test_color_jitter_with_one_adjustment():
    x = cases.image((4, 5, 3), 'float32') + 1
    for seed in range(10):
        (out,) = _op('_image_random_color_jitter', x, seed, brightness=0.3, contrast=0, saturation=0, hue=0)
        ratio = (out / x).flat[0]
        np.testing.assert_allclose(out / x, ratio, rtol=1e-5)
        assert 0.7 <= ratio <= 1.3
    # nothing to jitter: the image (MXNet returns uninitialised memory)
    (out,) = _op('_image_random_color_jitter', x, 0, brightness=0, contrast=0, saturation=0, hue=0)
    np.testing.assert_array_equal(out, x)


def test_color_jitter_keeps_greys_grey_and_repeats_under_a_seed():
    grey = np.repeat(cases.image((4, 4, 1), 'uint8'), 3, axis=2)
    (out,) = _op('_image_random_color_jitter', grey, 5, brightness=0.2, contrast=0.2, saturation=0.2, hue=0.2)
    assert out.dtype == np.uint8
    assert (out[..., 0] == out[..., 1]).all() and (out[..., 1] == out[..., 2]).all()
    rgb = cases.image((4, 4, 3), 'uint8')
    a = _op('_image_random_color_jitter', rgb, 7, brightness=0.2, contrast=0.2, saturation=0.2, hue=0.2)[0]
    b = _op('_image_random_color_jitter', rgb, 7, brightness=0.2, contrast=0.2, saturation=0.2, hue=0.2)[0]
    c = _op('_image_random_color_jitter', rgb, 8, brightness=0.2, contrast=0.2, saturation=0.2, hue=0.2)[0]
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()


def test_random_lighting_adds_one_offset_per_channel():
    x = cases.image((3, 4, 3), 'float32')
    offsets = []
    for seed in range(30):
        (out,) = _op('_image_random_lighting', x, seed, alpha_std=0.1)
        diff = (out - x).reshape(-1, 3)
        np.testing.assert_allclose(diff, np.broadcast_to(diff[0], diff.shape), atol=2e-4)
        offsets.append(diff[0])
    # the three offsets are eigenvectors times N(0, 0.1 * eigenvalue): the first dominates
    spread = np.std(offsets, axis=0)
    assert 2 < spread.max() < 10


def test_random_operators_repeat_under_mx_random_seed():
    x = mx.nd.array(cases.image((4, 4, 3), 'uint8'), dtype='uint8')
    draws = []
    for _ in range(2):
        mx.random.seed(42)
        draws.append([mx.nd.image.random_brightness(x, 0.5, 1.5).asnumpy(),
                      mx.nd.image.random_lighting(x, 0.3).asnumpy(),
                      mx.nd.image.random_flip_left_right(x).asnumpy()])
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)


# ============================================================ reflib's checks
def test_refused_where_mxnet_computes_nonsense():
    with pytest.raises(MXNetError, match=r'_image_crop: x and y must not be negative'):
        mx.nd.image.crop(mx.nd.ones((4, 4, 3)), -1, 0, 2, 2)
    with pytest.raises(MXNetError, match=r'_image_random_hue: the last axis .* must be 3'):
        mx.nd.image.random_hue(mx.nd.ones((4, 4, 1)), 0.1, 0.2)
    with pytest.raises(MXNetError, match=r'_image_adjust_lighting: the last axis'):
        mx.nd.image.adjust_lighting(mx.nd.ones((4, 4, 1)), alpha=(1, 2, 3))
    with pytest.raises(MXNetError, match=r'hue jitter needs an RGB image'):
        mx.nd.image.random_color_jitter(mx.nd.ones((4, 4, 1)), 0, 0, 0, 0.1)
    with pytest.raises(MXNetError, match=r'_image_resize: interp must be one of'):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=3, interp=9)
    with pytest.raises(MXNetError, match=r'_image_resize: images of type int32 cannot be resized'):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3), dtype='int32'), size=3)


def test_one_channel_jitter_without_hue_works():
    x = cases.image((3, 4, 1), 'uint8')
    (out,) = _op('_image_random_color_jitter', x, 1, brightness=0.2, contrast=0.2, saturation=0.2, hue=0)
    assert out.shape == x.shape and out.dtype == np.uint8


def test_cvimresize_is_image_resize_with_width_and_height():
    x = cases.image((6, 9, 3), 'uint8')
    for interp in range(6):
        (a,) = _op('_cvimresize', x, w=4, h=5, interp=interp)
        (b,) = _op('_image_resize', x, size=(4, 5), interp=interp)
        np.testing.assert_array_equal(a, b)


def test_resize_of_a_batch_is_each_image_resized():
    x = cases.image((3, 7, 9, 3), 'float32')
    (batch,) = _op('_image_resize', x, size=(5, 4), interp=2)
    for k in range(3):
        (one,) = _op('_image_resize', x[k], size=(5, 4), interp=2)
        np.testing.assert_array_equal(batch[k], one)


# ============================================================ on the device
ON_DEVICE = [
    ('_image_to_tensor', {}, (4, 5, 3), 'uint8'),
    ('_image_normalize', {'mean': (0.1, 0.2, 0.3), 'std': (0.5, 2.0, 0.7)}, (3, 4, 5), 'float32'),
    ('_image_crop', {'x': 1, 'y': 2, 'width': 3, 'height': 2}, (2, 5, 6, 3), 'float32'),
    ('_image_flip_left_right', {}, (3, 5, 3), 'uint8'),
    ('_image_random_flip_top_bottom', {}, (3, 5, 1), 'float32'),
    ('_image_random_brightness', {'min_factor': 0.5, 'max_factor': 1.5}, (4, 5, 3), 'uint8'),
    ('_image_random_contrast', {'min_factor': 0.5, 'max_factor': 1.5}, (4, 5, 3), 'float32'),
    ('_image_random_saturation', {'min_factor': 0.5, 'max_factor': 1.5}, (4, 5, 3), 'uint8'),
    ('_image_random_hue', {'min_factor': 0.1, 'max_factor': 0.4}, (4, 5, 3), 'uint8'),
    ('_image_random_color_jitter', {'brightness': 0.2, 'contrast': 0.2, 'saturation': 0.2, 'hue': 0.2},
     (4, 5, 3), 'uint8'),
    ('_image_adjust_lighting', {'alpha': (0.5, -1.2, 2.0)}, (4, 5, 3), 'float32'),
    ('_image_random_lighting', {'alpha_std': 0.3}, (4, 5, 3), 'uint8'),
] + [('_image_resize', {'size': size, 'interp': interp}, (6, 8, 3), dtype)
     for interp in range(6) for dtype in ('uint8', 'float32') for size in ((5, 4), (4, 3), (11, 7))]


@pytest.mark.parametrize('op,params,shape,dtype', ON_DEVICE, ids=lambda v: str(v))
def test_operators_compute_where_their_data_is(op, params, shape, dtype):
    """Forward and backward on the test device with no copy to or from the host while they
    run (tests/device.py), the same numbers as on the CPU where nothing is drawn."""
    x = cases.image(shape, dtype)
    operator = get(op)
    p = operator.parse_params(params)
    env = mx.operator.OpEnv(mx.cpu(), is_train=True)
    outs = operator.forward(p, env, [x], [])
    if operator.differentiable:
        head = cases.image(outs[0].shape, 'float32', seed=3).astype(outs[0].dtype)
        grads = operator.backward(p, env, [head] + [None] * (len(outs) - 1), [x], outs, [])
        assert grads[0].shape == x.shape and grads[0].dtype == x.dtype
    if operator.eliminable:                    # nothing drawn: the CPU's numbers
        cpu = mx.operator.get(op)
        expected = cpu.forward(p, mx.operator.OpEnv(mx.cpu()), [x], [])
        np.testing.assert_array_equal(outs[0], expected[0])
