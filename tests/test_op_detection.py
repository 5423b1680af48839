"""Tests for the detection operators (detection.py): ROIAlign, RROIAlign, PSROIPooling,
DeformableConvolution, Proposal and MultiProposal.

1. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_detection.py: forward,
   input gradients, and the shapes MXNet refuses;
2. backward against finite differences (``check_op_gradient``, float64), with regions and
   offsets chosen so that no sample point sits on a pixel line (the bilinear weights bend
   there) and no bin edge moves under the small perturbation;
3. independent references (ROIAlign of a whole-pixel region with one sample per bin reads
   pixels; PSROIPooling of a constant map is that constant) and clear messages for bad input.
"""

import numpy as np
import pytest

from reflib.base import ParamError, ShapeError
from device import get
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_detection.npz')
META = GOLDEN.meta

OPERATORS = ['_contrib_ROIAlign', '_contrib_RROIAlign', '_contrib_PSROIPooling', '_contrib_DeformableConvolution',
             '_contrib_Proposal', '_contrib_MultiProposal']


def rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_every_operator():
    assert GOLDEN.operator_names() == set(OPERATORS)


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shapes']))
def test_golden_shape_errors(case):
    """What MXNet refuses, reflib refuses too, naming the operator."""
    op = get(case['op'])
    n_in = len(op.inputs(op.parse_params(case['params'])))
    shapes = [tuple(s) for s in case['shapes']]
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(case['op'], case['params'], shapes + [None] * (n_in - len(shapes)))
    assert case['op'] in str(info.value)


def test_contrib_names():
    import reflib as mx
    x = mx.nd.array(rand(1, 2, 4, 4))
    rois = mx.nd.array([[0, 0.25, 0.25, 2.75, 2.75]])
    out = mx.nd.contrib.ROIAlign(x, rois, pooled_size=(2, 2), spatial_scale=1.0)
    assert out.shape == (1, 2, 2, 2)
    sym = mx.sym.contrib.PSROIPooling(mx.sym.Variable('data'), mx.sym.Variable('rois'), spatial_scale=1.0,
                                      output_dim=2, pooled_size=2)
    assert sym.list_arguments() == ['data', 'rois']


# ============================================================ ROIAlign
ROIS = np.array([[0, 0.3, 0.6, 4.2, 3.7], [1, 1.9, 0.2, 6.8, 5.1], [1, -0.7, 2.4, 2.1, 6.3]])


@pytest.mark.parametrize('params', [
    dict(pooled_size=(2, 3), spatial_scale=1.0),
    dict(pooled_size=(3, 2), spatial_scale=0.5, sample_ratio=2, aligned=True),
    dict(pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True),
])
def test_roi_align_gradient(params):
    # linear in data: the finite differences are exact wherever the samples fall
    channels = 8 if params.get('position_sensitive') else 3
    rois = ROIS * [1, 2, 2, 2, 2] if params['spatial_scale'] == 0.5 else ROIS
    check_op_gradient('_contrib_ROIAlign', [rand(2, channels, 6, 7), rois], params, grad_inputs=[0])


def test_roi_align_reads_pixels_at_bin_centres():
    """A 4 x 4 region in 2 x 2 bins with one sample per bin reads the pixels at (1, 1), (1, 3)..."""
    x = rand(1, 2, 5, 6)
    (out,), _ = op_forward('_contrib_ROIAlign', [x, np.array([[0, 1, 0, 5, 4]])],
                           dict(pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=1))
    np.testing.assert_allclose(out[0], x[0][:, 1::2, 2::2][:, :2, :2], rtol=1e-12)


def test_roi_align_position_sensitive_reads_one_channel_per_bin():
    x = rand(1, 8, 5, 6)
    rois = np.array([[0, 0.5, 1.0, 4.5, 4.0]])
    (plain,), _ = op_forward('_contrib_ROIAlign', [x, rois], dict(pooled_size=(2, 2), spatial_scale=1.0))
    (sensitive,), _ = op_forward('_contrib_ROIAlign', [x, rois],
                                 dict(pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True))
    assert sensitive.shape == (1, 2, 2, 2)
    for c in range(2):
        for ph in range(2):
            for pw in range(2):
                assert sensitive[0, c, ph, pw] == pytest.approx(plain[0, c * 4 + ph * 2 + pw, ph, pw], rel=1e-12)


def test_roi_align_negative_batch_index_gives_zeros():
    # MXNet 1.9.1 documents this and then zeroes one element only, leaving the rest unset
    rois = np.array([[-1, 0.5, 0.5, 3.5, 3.5], [0, 0.5, 0.5, 3.5, 3.5]])
    (out,), _ = op_forward('_contrib_ROIAlign', [rand(1, 2, 5, 5), rois], dict(pooled_size=(2, 2), spatial_scale=1.0))
    assert not out[0].any() and out[1].all()


def test_roi_align_errors():
    params = dict(pooled_size=(2, 2), spatial_scale=1.0)
    with pytest.raises(ShapeError, match=r"_contrib_ROIAlign: row 0 of input 'rois' names batch index 2.0, but "
                                         r"input 'data' has 2 samples"):
        op_forward('_contrib_ROIAlign', [rand(2, 1, 4, 4), np.array([[2, 0, 0, 1, 1]])], params)
    with pytest.raises(ShapeError, match=r"_contrib_ROIAlign: with aligned=True every region needs a positive width"):
        op_forward('_contrib_ROIAlign', [rand(2, 1, 4, 4), np.array([[0, 2, 0, 1, 3]])], dict(params, aligned=True))
    with pytest.raises(ShapeError, match=r"_contrib_ROIAlign: input 'rois' must have 5 columns \(batch_index, x1, y1, "
                                         r"x2, y2\), got shape \(3,4\)"):
        infer_shapes('_contrib_ROIAlign', params, [(2, 1, 4, 4), (3, 4)])
    with pytest.raises(ShapeError, match=r"_contrib_ROIAlign: with position_sensitive, the channels of input 'data' "
                                         r"must be a multiple of pooled_h \* pooled_w = 4, got shape \(2,6,4,4\)"):
        infer_shapes('_contrib_ROIAlign', dict(params, position_sensitive=True), [(2, 6, 4, 4), (3, 5)])


# ============================================================ RROIAlign
def test_rroi_align_has_no_gradient():
    assert get('_contrib_RROIAlign').differentiable is False


def test_rroi_align_unrotated_is_roi_align():
    """At angle 0 a rotated region [cx, cy, w, h] is the ROIAlign region around the same centre."""
    x = rand(2, 3, 6, 7)
    rotated = np.array([[0, 3.0, 2.5, 4.0, 3.0, 0.0], [1, 2.2, 3.1, 5.5, 2.5, 0.0]])
    corners = np.stack([rotated[:, 0], rotated[:, 1] - rotated[:, 3] / 2, rotated[:, 2] - rotated[:, 4] / 2,
                        rotated[:, 1] + rotated[:, 3] / 2, rotated[:, 2] + rotated[:, 4] / 2], axis=1)
    params = dict(pooled_size=(2, 3), spatial_scale=1.0)
    (want,), _ = op_forward('_contrib_ROIAlign', [x, corners], dict(params, sample_ratio=2))
    (got,), _ = op_forward('_contrib_RROIAlign', [x, rotated], dict(params, sampling_ratio=2))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # a half turn about the centre reads the same samples in the reverse order on both axes
    turned = rotated * [1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 180]
    (flipped,), _ = op_forward('_contrib_RROIAlign', [x, turned], dict(params, sampling_ratio=2))
    np.testing.assert_allclose(flipped, got[:, :, ::-1, ::-1], rtol=1e-6, atol=1e-6)


def test_rroi_align_errors():
    with pytest.raises(ShapeError, match=r"_contrib_RROIAlign: input 'rois' must have 6 columns \(batch_index, x, y, "
                                         r"width, height, angle\), got shape \(3,5\)"):
        infer_shapes('_contrib_RROIAlign', dict(pooled_size=(2, 2), spatial_scale=1.0), [(2, 1, 4, 4), (3, 5)])


# ============================================================ PSROIPooling
@pytest.mark.parametrize('params,channels', [
    (dict(spatial_scale=1.0, output_dim=2, pooled_size=2), 8),
    (dict(spatial_scale=0.5, output_dim=2, pooled_size=3, group_size=2), 8),
])
def test_psroipooling_gradient(params, channels):
    # corners in image coordinates, one of them outside the map; linear in data, so exact
    scale = 1 / params['spatial_scale']
    rois = np.array([[0, 0, 1, 5, 4], [1, 2, 0, 9, 7], [1, -2, 3, 2, 5]]) * [1, scale, scale, scale, scale]
    check_op_gradient('_contrib_PSROIPooling', [rand(2, channels, 6, 7), rois], params, grad_inputs=[0])


def test_psroipooling_of_a_constant_map_is_that_constant():
    x = np.full((1, 18, 6, 6), 2.5)
    rois = np.array([[0, 0, 0, 5, 5], [0, 1.4, 2.6, 4.5, 4.4]])
    (out,), _ = op_forward('_contrib_PSROIPooling', [x, rois], dict(spatial_scale=1.0, output_dim=2, pooled_size=3))
    np.testing.assert_allclose(out, 2.5)


def test_psroipooling_errors():
    params = dict(spatial_scale=1.0, output_dim=2, pooled_size=3)
    with pytest.raises(ShapeError, match=r"_contrib_PSROIPooling: input 'data' needs at least output_dim \* "
                                         r"group_size\*\*2 = 18 channels, got shape \(1,17,6,6\)"):
        infer_shapes('_contrib_PSROIPooling', params, [(1, 17, 6, 6), (2, 5)])
    with pytest.raises(ParamError, match=r"_contrib_PSROIPooling: parameter 'output_dim' must be at least 1"):
        infer_shapes('_contrib_PSROIPooling', dict(params, output_dim=0), [(1, 18, 6, 6), (2, 5)])


# ============================================================ DeformableConvolution
DEFORM = [
    ((1, 2, 3, 4), dict(kernel=(3, 3), pad=(1, 1), num_filter=3)),
    ((1, 4, 5, 6), dict(kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 2), num_filter=4, num_group=2,
                        num_deformable_group=2, no_bias=True)),
]


def deform_inputs(shape, params):
    n_in = 3 if params.get('no_bias') else 4
    ins, _ = infer_shapes('_contrib_DeformableConvolution', params, [shape] + [None] * (n_in - 1))
    xs = [rand(*s, seed=k) for k, s in enumerate(ins)]
    # offsets on a lattice of tenths shifted by 0.05: no sample lands within the finite
    # difference step of a pixel line, where the bilinear weights bend
    xs[1] = np.round(rand(*ins[1], seed=7, low=-2.5, high=2.5) * 10) / 10 + 0.05
    return xs


@pytest.mark.parametrize('shape,params', DEFORM)
def test_deformable_convolution_gradient(shape, params):
    check_op_gradient('_contrib_DeformableConvolution', deform_inputs(shape, params), params)


@pytest.mark.parametrize('shape,params', DEFORM)
def test_deformable_convolution_without_offsets_is_convolution(shape, params):
    xs = deform_inputs(shape, params)
    xs[1] = np.zeros_like(xs[1])
    (got,), _ = op_forward('_contrib_DeformableConvolution', xs, params)
    conv = {k: v for k, v in params.items() if k != 'num_deformable_group'}
    (want,), _ = op_forward('Convolution', [xs[0]] + xs[2:], conv)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_deformable_convolution_samples_only_inside_the_map():
    """A 1 x 1 kernel moved by (dy, dx) reads the bilinear value there, 0 above or left of the
    map, and the clamped last row or column within the last pixel."""
    x = np.arange(12, dtype=np.float64).reshape(1, 1, 3, 4) + 1
    offset = np.zeros((1, 2, 3, 4))
    offset[0, 0] = 0.5
    offset[0, 1] = -0.25
    (out,), _ = op_forward('_contrib_DeformableConvolution', [x, offset, np.ones((1, 1, 1, 1))],
                           dict(kernel=(1, 1), num_filter=1, no_bias=True))
    rows = np.minimum(np.arange(3) + 0.5, 2)[:, None]
    cols = np.arange(4) - 0.25
    want = np.where(cols >= 0, 1 + rows * 4 + cols, 0)
    np.testing.assert_allclose(out[0, 0], want, rtol=1e-12)


def test_deformable_convolution_errors():
    params = dict(kernel=(3, 3), num_filter=4)
    with pytest.raises(ShapeError, match=r"_contrib_DeformableConvolution: input offset \(batch, "
                                         r"2\*num_deformable_group\*kh\*kw, out_height, out_width\): inconsistent"):
        infer_shapes('_contrib_DeformableConvolution', params, [(2, 4, 5, 6), (2, 18, 5, 6), None, None])
    with pytest.raises(ShapeError, match=r"_contrib_DeformableConvolution: the channels of input 'data' \(shape "
                                         r"\(2,4,5,6\)\) must be a multiple of num_deformable_group = 3"):
        infer_shapes('_contrib_DeformableConvolution', dict(params, num_deformable_group=3),
                     [(2, 4, 5, 6), None, None, None])
    with pytest.raises(ShapeError, match=r"_contrib_DeformableConvolution: only 2-d deformable convolution"):
        infer_shapes('_contrib_DeformableConvolution', dict(params, kernel=(3,)), [(2, 4, 5), None, None, None])


# ============================================================ Proposal, MultiProposal
def test_proposal_without_deltas_or_suppression_ranks_the_anchors():
    """Zero deltas, no suppression: the best-scoring anchors, clipped to the image, in order."""
    params = dict(feature_stride=4, scales=(1,), ratios=(1,), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=5,
                  threshold=1.0, rpn_min_size=1, output_score=True)
    scores = np.random.default_rng(0).permutation(12).reshape(1, 1, 3, 4) / 12.0
    cls_prob = np.concatenate([1 - scores, scores], axis=1)
    (boxes, best), _ = op_forward('_contrib_Proposal', [cls_prob, np.zeros((1, 4, 3, 4)), np.array([[12, 16, 1]])],
                                  params)
    order = np.argsort(-scores.ravel())[:5]
    row, col = np.divmod(order, 4)
    np.testing.assert_allclose(best[:, 0], scores.ravel()[order], rtol=1e-6)
    want = np.stack([np.zeros(5), col * 4, row * 4, np.minimum(col * 4 + 3, 15), np.minimum(row * 4 + 3, 11)], axis=1)
    np.testing.assert_allclose(boxes, want)


def test_proposal_gradient_is_zero_and_blocked():
    op = get('_contrib_MultiProposal')
    assert op.blocks_gradient
    assert op.visible_outputs(op.parse_params({})) == 1
    assert op.visible_outputs(op.parse_params({'output_score': True})) == 2


def test_proposal_errors():
    with pytest.raises(ShapeError, match=r"_contrib_Proposal: takes one image; input 'cls_prob' has shape "
                                         r"\(2,24,4,5\) \(use MultiProposal for a batch\)"):
        infer_shapes('_contrib_Proposal', {}, [(2, 24, 4, 5), None, None])
    with pytest.raises(ShapeError, match=r"_contrib_MultiProposal: input 'cls_prob' needs 2 \* len\(scales\) \* "
                                         r"len\(ratios\) = 24 channels, got shape \(2,12,4,5\)"):
        infer_shapes('_contrib_MultiProposal', {}, [(2, 12, 4, 5), None, None])
    with pytest.raises(ShapeError, match=r"_contrib_MultiProposal: im_info says the image is"):
        op_forward('_contrib_MultiProposal', [np.ones((1, 2, 2, 2)), np.zeros((1, 4, 2, 2)), np.array([[64, 20, 1]])],
                   dict(scales=(1,), ratios=(1,)))
