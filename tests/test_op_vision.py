"""Tests for the vision operators: Deconvolution (deconv.py), UpSampling, GridGenerator,
BilinearSampler, SpatialTransformer (resample.py), Pad, ROIPooling, Correlation (vision.py).

1. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_vision.py: forward,
   input gradients, the hidden outputs (ROIPooling's maxidx, Correlation's padded
   inputs, the grids), shape inference from partial shapes, and the shapes MXNet refuses;
2. backward against finite differences (``check_op_gradient``, float64);
3. independent references (a Deconvolution is the adjoint of a Convolution; nearest
   upsampling is numpy's repeat; Pad is numpy's pad) and clear messages for bad input.
"""

import numpy as np
import pytest

from reflib.base import ParamError, ShapeError
from device import get
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_vision.npz')
META = GOLDEN.meta

OPERATORS = ['Deconvolution', 'UpSampling', 'Pad', 'ROIPooling', 'Correlation', 'GridGenerator',
             'BilinearSampler', 'SpatialTransformer']


def rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_every_operator():
    assert GOLDEN.operator_names() == set(OPERATORS)


@pytest.mark.parametrize('alias,name', [('pad', 'Pad')])
def test_aliases(alias, name):
    assert get(alias) is get(name)


@pytest.mark.parametrize('i,names', META['hidden'], ids=[str(h[0]) for h in META['hidden']])
def test_golden_hidden_outputs(i, names):
    """MXNet's hidden outputs (names, shapes and values) for ROIPooling, Correlation and the grids."""
    case = GOLDEN.cases[i]
    op = get(case['op'])
    p = op.parse_params(case['attrs'])
    outs, _ = op_forward(case['op'], GOLDEN.inputs(i), case['attrs'])
    all_names = op.outputs(p)
    assert op.visible_outputs(p) == 1 and all_names[1:] == names
    _, shapes = infer_shapes(case['op'], case['attrs'], [x.shape for x in GOLDEN.inputs(i)])
    for k, name in enumerate(names, start=1):
        want = GOLDEN.arrays['h%d_%s' % (i, name)]
        assert shapes[k] == want.shape and outs[k].shape == want.shape, name
        np.testing.assert_allclose(outs[k], want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize('case', META['partial'], ids=lambda c: '%s%s' % (c['op'], c['params']))
def test_golden_partial_inference(case):
    op = get(case['op'])
    params = dict(case['params'])
    if case['op'] == 'UpSampling':
        params['num_args'] = 1
    n_in = len(op.inputs(op.parse_params(params)))
    given = [tuple(case['given'][str(j)]) if str(j) in case['given'] else None for j in range(n_in)]
    ins, outs = infer_shapes(case['op'], params, given)
    assert ins == [tuple(s) if s else None for s in case['inputs']]
    assert outs[:1] == [tuple(s) if s else None for s in case['outputs']]


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shapes']))
def test_golden_shape_errors(case):
    """What MXNet refuses, reflib refuses too, naming the operator."""
    params = dict(case['params'])
    if case['op'] == 'UpSampling':
        params.setdefault('num_args', len(case['shapes']))
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(case['op'], params, [tuple(s) for s in case['shapes']])
    assert case['op'] in str(info.value)


# ============================================================ Deconvolution
DECONV = [
    ((2, 3, 4, 5), dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1), adj=(1, 0), no_bias=False)),
    ((2, 4, 3), dict(kernel=(3,), num_filter=6, num_group=2, dilate=(2,), no_bias=False)),
    ((1, 2, 2, 3, 2), dict(kernel=(2, 2, 2), num_filter=2, stride=(2, 1, 2), target_shape=(4, 4, 3))),
    ((1, 2, 3, 3), dict(kernel=(3, 2), num_filter=2, stride=(3, 2), dilate=(2, 1), pad=(2, 0))),
]


def deconv_inputs(shape, params):
    ins, _ = infer_shapes('Deconvolution', params, [shape, None] + ([] if params.get('no_bias', True) else [None]))
    return [rand(*s, seed=k) for k, s in enumerate(ins)]


@pytest.mark.parametrize('shape,params', DECONV)
def test_deconvolution_gradient(shape, params):
    inputs = deconv_inputs(shape, params)
    check_op_gradient('Deconvolution', inputs, params)


@pytest.mark.parametrize('shape,params', DECONV)
def test_deconvolution_is_the_adjoint_of_convolution(shape, params):
    """<deconv(x, w), y> == <x, conv(y, w)> for the convolution with the same geometry."""
    x, w = deconv_inputs(shape, dict(params, no_bias=True))
    (out,), _ = op_forward('Deconvolution', [x, w], dict(params, no_bias=True))
    y = rand(*out.shape, seed=9)
    op = get('Deconvolution')
    pad = op._geometry(op.parse_params(dict(params, no_bias=True)), x.shape)[0]
    conv = {k: v for k, v in params.items() if k in ('kernel', 'stride', 'dilate', 'num_group')}
    (back,), _ = op_forward('Convolution', [y, w], dict(conv, pad=pad, num_filter=x.shape[1], no_bias=True))
    assert back.shape == x.shape
    np.testing.assert_allclose((out * y).sum(), (x * back).sum(), rtol=1e-10)


def test_deconvolution_output_size_formula():
    """stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj, or target_shape with MXNet's pad choice."""
    def out(params, shape=(1, 2, 5, 7)):
        return infer_shapes('Deconvolution', dict(params, num_filter=3), [shape, None])[1][0]
    assert out(dict(kernel=(3, 3))) == (1, 3, 7, 9)
    assert out(dict(kernel=(3, 4), stride=(2, 3), dilate=(2, 1), pad=(1, 2), adj=(1, 2))) == (1, 3, 12, 20)
    assert out(dict(kernel=(4, 4), stride=(2, 2), target_shape=(7, 13))) == (1, 3, 7, 13)
    # with target_shape the output is the uncropped result from ceil(excess / 2) on
    x, w = rand(1, 2, 5, 7), rand(2, 3, 4, 4, seed=1)
    (full,), _ = op_forward('Deconvolution', [x, w], dict(kernel=(4, 4), stride=(2, 2), num_filter=3))
    (cut,), _ = op_forward('Deconvolution', [x, w], dict(kernel=(4, 4), stride=(2, 2), num_filter=3,
                                                        target_shape=(7, 13)))
    np.testing.assert_allclose(cut, full[:, :, 3:10, 2:15])         # full is (12, 16): excess 5 and 3


def test_deconvolution_structure_and_errors():
    op = get('Deconvolution')
    p = op.parse_params({'kernel': '(3, 3)', 'num_filter': '4'})
    assert p.no_bias is True and p.workspace == 512 and op.inputs(p) == ['data', 'weight']
    assert op.inputs(op.parse_params({'kernel': (3, 3), 'num_filter': 4, 'no_bias': False})) == \
        ['data', 'weight', 'bias']
    conv = dict(kernel=(3, 3), num_filter=4)
    with pytest.raises(ParamError, match=r"Deconvolution: every entry of adj must be smaller than stride"):
        infer_shapes('Deconvolution', dict(conv, stride=(2, 2), adj=(2, 0)), [(1, 3, 5, 5), None])
    with pytest.raises(ShapeError, match=r"Deconvolution: target_shape \(12,12\) is too big: at most 11"):
        infer_shapes('Deconvolution', dict(conv, stride=(2, 2), target_shape=(12, 12)), [(1, 3, 5, 5), None])
    with pytest.raises(ParamError, match=r"Deconvolution: every entry of target_shape must be positive"):
        infer_shapes('Deconvolution', dict(conv, target_shape=(0, 10)), [(1, 3, 5, 5), None])
    with pytest.raises(ShapeError, match=r"Deconvolution: pad \(4,4\) crops away the whole output"):
        infer_shapes('Deconvolution', dict(conv, pad=(4, 4)), [(1, 3, 5, 5), None])
    with pytest.raises(ShapeError, match=r"Deconvolution: input 'data' must be 4-d"):
        infer_shapes('Deconvolution', conv, [(1, 3, 5), None])
    with pytest.raises(ShapeError, match=r"Deconvolution: input 'data' has 3 channels, not divisible by "
                                         r"num_group=2"):
        infer_shapes('Deconvolution', dict(conv, num_group=2), [(1, 3, 5, 5), None])
    with pytest.raises(ShapeError, match=r"Deconvolution: input 'weight' must have shape \(3,4,3,3\)"):
        op_forward('Deconvolution', [np.zeros((1, 3, 5, 5)), np.zeros((3, 4, 2, 2))], conv)
    # channel-last: shapes inferred (tests/test_channel_last.py), computing refused, as MXNet 1.9.1 on CPU
    with pytest.raises(ParamError, match=r"Deconvolution: layout 'NHWC' is not computed"):
        op_forward('Deconvolution', [np.zeros((1, 5, 5, 3)), np.zeros((3, 3, 3, 4))], dict(conv, layout='NHWC'))


# ============================================================ UpSampling
def test_upsampling_nearest_is_repeat():
    a, b = rand(2, 2, 2, 2), rand(2, 1, 1, 1, seed=1)          # b is enlarged 6 times, to a's output size
    (out,), _ = op_forward('UpSampling', [a, b], dict(scale=3, sample_type='nearest', num_args=2))
    want_a = a.repeat(3, axis=2).repeat(3, axis=3)
    want_b = np.broadcast_to(b, (2, 1, 6, 6))
    np.testing.assert_allclose(out, np.concatenate([want_a, want_b], axis=1))


@pytest.mark.parametrize('shapes,params', [
    ([(2, 2, 2, 3), (2, 3, 4, 6)], dict(scale=2, sample_type='nearest', num_args=2)),
    ([(2, 2, 3, 3), (2, 2, 1, 1)], dict(scale=2, sample_type='nearest', num_args=2, multi_input_mode='sum')),
    ([(2, 2, 2, 3), (2, 1, 4, 4)], dict(scale=2, sample_type='bilinear', num_args=2, num_filter=2)),
    ([(1, 2, 2, 2), (2, 1, 5, 5)], dict(scale=3, sample_type='bilinear', num_args=2)),
])
def test_upsampling_gradient(shapes, params):
    check_op_gradient('UpSampling', [rand(*s, seed=k) for k, s in enumerate(shapes)], params)


def test_upsampling_structure_and_errors():
    op = get('UpSampling')
    nearest = op.parse_params({'scale': 2, 'sample_type': 'nearest', 'num_args': 3})
    assert op.inputs(nearest) == ['arg0', 'arg1', 'arg2'] and op.key_var_num_args == 'num_args'
    bilinear = op.parse_params({'scale': 2, 'sample_type': 'bilinear', 'num_args': 1})
    assert op.inputs(bilinear) == ['data', 'weight']
    assert infer_shapes('UpSampling', {'scale': 4, 'sample_type': 'bilinear', 'num_args': 1},
                        [(1, 3, 2, 2), None]) == ([(1, 3, 2, 2), (3, 1, 8, 8)], [(1, 3, 8, 8)])
    with pytest.raises(ShapeError, match=r"UpSampling: input 'arg1' of shape \(1,3,2,3\) cannot be enlarged to "
                                         r"the output size \(6, 6\) by one whole scale for both axes"):
        infer_shapes('UpSampling', {'scale': 2, 'sample_type': 'nearest'}, [(1, 2, 3, 3), (1, 3, 2, 3)])
    with pytest.raises(ShapeError, match=r"UpSampling: input 'arg1' has batch size 2, input 'arg0' has 1"):
        infer_shapes('UpSampling', {'scale': 2, 'sample_type': 'nearest'}, [(1, 2, 3, 3), (2, 2, 3, 3)])
    with pytest.raises(ShapeError, match=r"UpSampling: bilinear upsampling keeps the channels: num_filter=3"):
        infer_shapes('UpSampling', {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 3, 'num_args': 1},
                     [(1, 2, 3, 3), None])
    with pytest.raises(ParamError, match=r"UpSampling: parameter 'scale' must be at least 1"):
        infer_shapes('UpSampling', {'scale': 0, 'sample_type': 'nearest'}, [(1, 2, 3, 3)])


# ============================================================ Pad
@pytest.mark.parametrize('mode', ['constant', 'edge', 'reflect'])
@pytest.mark.parametrize('shape,width', [((2, 2, 3, 4), (0, 0, 0, 0, 2, 1, 1, 3)),
                                         ((1, 2, 3, 4, 3), (0, 0, 0, 0, 2, 1, 0, 3, 2, 2))])
def test_pad_forward_is_numpy_pad_and_gradient(mode, shape, width):
    x = rand(*shape)
    params = dict(mode=mode, pad_width=width, constant_value=0.5)
    (out,), _ = op_forward('Pad', [x], params)
    pairs = [width[2 * i:2 * i + 2] for i in range(len(shape))]
    want = np.pad(x, pairs, mode=mode, **({'constant_values': 0.5} if mode == 'constant' else {}))
    np.testing.assert_array_equal(out, want)
    check_op_gradient('Pad', [x], params)


def test_pad_errors():
    with pytest.raises(ShapeError, match=r"Pad: the batch and channel axes cannot be padded"):
        infer_shapes('Pad', dict(mode='edge', pad_width=(0, 1, 0, 0, 1, 1, 1, 1)), [(1, 2, 3, 4)])
    with pytest.raises(ShapeError, match=r"Pad: input 'data' must be 4-d or 5-d, got shape \(2,3\)"):
        infer_shapes('Pad', dict(mode='edge', pad_width=(0, 0, 1, 1)), [(2, 3)])
    with pytest.raises(ShapeError, match=r"Pad: mode='reflect' pads by less than the axis length: axis 2"):
        infer_shapes('Pad', dict(mode='reflect', pad_width=(0, 0, 0, 0, 3, 0, 1, 1)), [(1, 2, 3, 4)])
    with pytest.raises(ParamError, match=r"Pad: every element of parameter 'pad_width' must be at least 0"):
        infer_shapes('Pad', dict(mode='constant', pad_width=(0, 0, 0, 0, -1, 1, 1, 1)), [(1, 2, 3, 4)])


# ============================================================ ROIPooling
ROIS = np.array([[0, 0.5, 1, 6, 5], [1, 2, 2, 3.4, 7], [0, -1, -1, 20, 20], [1, 6, 6, 2, 2], [0, 1, 1, 1, 1]])


def test_roipooling_gradient_goes_to_the_maximum():
    x = rand(2, 3, 8, 9)
    check_op_gradient('ROIPooling', [x, ROIS], dict(pooled_size=(2, 3), spatial_scale=1.0), grad_inputs=[0])


def test_roipooling_matches_a_loop_over_bins():
    """The bins and first-maximum rule, spelled out one bin at a time (MXNet's CPU loop)."""
    x = np.random.default_rng(3).integers(0, 4, size=(2, 2, 7, 8)).astype(np.float32)   # many ties
    rois = np.array([[0, 0, 0, 7, 6], [1, 1.5, 2.5, 5, 4.5], [1, 5, 5, 3, 9]], dtype=np.float32)
    (out, maxidx), _ = op_forward('ROIPooling', [x, rois], dict(pooled_size=(3, 2), spatial_scale=0.5))
    for r, roi in enumerate(rois):
        x1, y1, x2, y2 = [int(np.floor(abs(v * 0.5) + 0.5) * np.sign(v)) for v in roi[1:]]
        bh, bw = np.float32(max(y2 - y1 + 1, 1)) / 3, np.float32(max(x2 - x1 + 1, 1)) / 2
        for ph in range(3):
            for pw in range(2):
                h0 = min(max(int(np.floor(ph * bh)) + y1, 0), 7)
                h1 = min(max(int(np.ceil((ph + 1) * bh)) + y1, 0), 7)
                w0 = min(max(int(np.floor(pw * bw)) + x1, 0), 8)
                w1 = min(max(int(np.ceil((pw + 1) * bw)) + x1, 0), 8)
                for c in range(2):
                    if h1 <= h0 or w1 <= w0:
                        assert out[r, c, ph, pw] == 0 and maxidx[r, c, ph, pw] == -1
                        continue
                    window = x[int(roi[0]), c, h0:h1, w0:w1]
                    k = int(np.argmax(window))
                    assert out[r, c, ph, pw] == window.max()
                    # an index into the whole data array: sample and channel included
                    start = (int(roi[0]) * 2 + c) * 7 * 8
                    assert maxidx[r, c, ph, pw] == start + (h0 + k // (w1 - w0)) * 8 + w0 + k % (w1 - w0)


def test_roipooling_errors():
    params = dict(pooled_size=(2, 2), spatial_scale=1.0)
    with pytest.raises(ShapeError, match=r"ROIPooling: row 0 of input 'rois' names batch index 3.0, but input "
                                         r"'data' has 2 samples"):
        op_forward('ROIPooling', [np.zeros((2, 1, 4, 4)), np.array([[3, 0, 0, 1, 1]])], params)
    with pytest.raises(ShapeError, match=r"ROIPooling: pooled_size must be \(height, width\)"):
        infer_shapes('ROIPooling', dict(params, pooled_size=(2,)), [(2, 1, 4, 4), (1, 5)])
    with pytest.raises(ShapeError, match=r"ROIPooling: input rois \(rows of batch_index, x1, y1, x2, y2\): "
                                         r"inconsistent shapes"):
        infer_shapes('ROIPooling', params, [(2, 1, 4, 4), (1, 4)])


# ============================================================ Correlation
@pytest.mark.parametrize('params', [
    dict(kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=2),
    dict(kernel_size=1, max_displacement=1, is_multiply=False),
    dict(kernel_size=3, max_displacement=4, stride2=3, pad_size=3),
])
def test_correlation_gradient(params):
    # values on a lattice, data2 shifted off it: |a - b| stays away from its kink at 0
    a = np.round(rand(2, 3, 6, 7) * 20) / 20
    b = np.round(rand(2, 3, 6, 7, seed=1) * 20) / 20 + 0.025
    check_op_gradient('Correlation', [a, b], params)


def test_correlation_matches_the_definition():
    """out[n, q, i, j] = mean over patch and channels of data1's patch times data2's displaced patch."""
    a, b = rand(1, 2, 7, 8), rand(1, 2, 7, 8, seed=1)
    k, md, s1, s2, pad = 3, 2, 2, 1, 1
    (out, _, _), _ = op_forward('Correlation', [a, b], dict(kernel_size=k, max_displacement=md, stride1=s1,
                                                       stride2=s2, pad_size=pad))
    pa, pb = np.pad(a, [(0, 0), (0, 0), (pad, pad), (pad, pad)]), np.pad(b, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    r = md // s2
    assert out.shape == (1, (2 * r + 1) ** 2, 2, 2)
    for q in range(out.shape[1]):
        dy, dx = (q // (2 * r + 1) - r) * s2, (q % (2 * r + 1) - r) * s2
        for i in range(out.shape[2]):
            for j in range(out.shape[3]):
                y, x = i * s1 + md, j * s1 + md
                want = (pa[0, :, y:y + k, x:x + k] * pb[0, :, y + dy:y + dy + k, x + dx:x + dx + k]).mean()
                np.testing.assert_allclose(out[0, q, i, j], want, rtol=1e-12)


def test_correlation_errors():
    with pytest.raises(ShapeError, match=r"Correlation: the displacements and the kernel do not fit"):
        infer_shapes('Correlation', dict(kernel_size=3, max_displacement=1), [(1, 2, 4, 4), (1, 2, 4, 4)])
    with pytest.raises(ShapeError, match=r"Correlation: inputs data1 and data2: inconsistent shapes"):
        infer_shapes('Correlation', {}, [(1, 2, 9, 11), (1, 2, 9, 12)])
    with pytest.raises(ParamError, match=r"Correlation: kernel_size must be odd, got 2"):
        infer_shapes('Correlation', dict(kernel_size=2), [(1, 2, 9, 11), (1, 2, 9, 11)])
    with pytest.raises(ParamError, match=r"Correlation: parameter 'stride2' must be at least 1"):
        infer_shapes('Correlation', dict(stride2=0), [(1, 2, 9, 11), (1, 2, 9, 11)])


# ============================================================ grids and sampling
def test_grid_generator_gradients():
    check_op_gradient('GridGenerator', [rand(2, 6)], dict(transform_type='affine', target_shape=(3, 4)))
    check_op_gradient('GridGenerator', [rand(2, 2, 3, 4)], dict(transform_type='warp'))


def test_identity_affine_grid_samples_the_image_itself():
    x = rand(2, 3, 4, 5)
    eye = np.array([[1, 0, 0, 0, 1, 0]] * 2, dtype=np.float64)
    (grid, _), _ = op_forward('GridGenerator', [eye], dict(transform_type='affine', target_shape=(4, 5)))
    (out, _), _ = op_forward('BilinearSampler', [x, grid])
    np.testing.assert_allclose(out, x, atol=1e-12)
    (moved, _, _), _ = op_forward('SpatialTransformer', [x, eye], dict(target_shape=(4, 5), transform_type='affine',
                                                                     sampler_type='bilinear'))
    np.testing.assert_allclose(moved, x, atol=1e-12)


def test_bilinear_sampler_gradients_and_zero_outside():
    # grid points inside, outside and across the border (not on pixel lines: the gradient jumps there)
    grid = rand(2, 2, 3, 4, seed=1) * 1.3
    check_op_gradient('BilinearSampler', [rand(2, 3, 5, 6), grid])
    far = np.full((1, 2, 1, 1), 3.0)
    (out, _), _ = op_forward('BilinearSampler', [rand(1, 2, 4, 4), far])
    assert not out.any()


def test_spatial_transformer_gradients():
    loc = np.array([[1, 0, 0, 0, 1, 0]] * 2) + rand(2, 6, seed=2) * 0.3
    check_op_gradient('SpatialTransformer', [rand(2, 3, 5, 6), loc],
                      dict(target_shape=(3, 4), transform_type='affine', sampler_type='bilinear'))


def test_grid_errors():
    st = dict(transform_type='affine', sampler_type='bilinear', target_shape=(3, 4))
    with pytest.raises(ShapeError, match=r"SpatialTransformer: inputs 'data' \(shape \(2,3,5,5\)\) and 'loc' "
                                         r"\(shape \(3,6\)\) must have one batch size"):
        infer_shapes('SpatialTransformer', st, [(2, 3, 5, 5), (3, 6)])
    with pytest.raises(ParamError, match=r"GridGenerator: target_shape must be \(height, width\), each at least 2"):
        infer_shapes('GridGenerator', dict(transform_type='affine', target_shape=(1, 4)), [(2, 6)])
    with pytest.raises(ShapeError, match=r"BilinearSampler: input 'grid' must be \(batch, 2, height, width\)"):
        infer_shapes('BilinearSampler', {}, [(2, 3, 5, 5), (2, 3, 3, 4)])
    with pytest.raises(ShapeError, match=r"GridGenerator: with transform_type='warp' input 'data' must be a flow"):
        infer_shapes('GridGenerator', dict(transform_type='warp'), [(2, 3, 3, 4)])
