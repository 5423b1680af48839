"""Tests for the box and SSD operators (boxes.py): box_nms, box_iou, bipartite_matching,
box_encode, box_decode, MultiBoxPrior, MultiBoxTarget, MultiBoxDetection, gradientmultiplier, and
ModulatedDeformableConvolution (deformable convolution v2, at the end of detection.py).

1. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_boxes.py: forward,
   input gradients, and the shapes MXNet refuses;
2. backward against finite differences (``check_op_gradient``, float64) where a gradient
   passes: box_nms (a kept row's gradient goes back to its input row) and
   ModulatedDeformableConvolution (MXNet 1.9.1 has no CPU gradient for it to record);
   gradientmultiplier's scaled gradient by hand;
3. independent references (IoU of hand-made boxes, encode then decode gives the boxes
   back, one anchor per cell with size 1) and clear messages for bad input.
"""

import numpy as np
import pytest

from reflib.base import ParamError, ShapeError
from device import CTX, get
from reflib.operator import OpEnv
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_boxes.npz')
META = GOLDEN.meta

OPERATORS = ['_contrib_box_nms', '_contrib_box_iou', '_contrib_bipartite_matching', '_contrib_box_encode',
             '_contrib_box_decode', '_contrib_MultiBoxPrior', '_contrib_MultiBoxTarget', '_contrib_MultiBoxDetection',
             '_contrib_gradientmultiplier', '_contrib_ModulatedDeformableConvolution']


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
    boxes = mx.nd.array([[0, 0, 2, 2], [1, 1, 3, 3]])
    assert mx.nd.contrib.box_iou(boxes, boxes).shape == (2, 2)
    sym = mx.sym.contrib.box_nms(mx.sym.Variable('data'))
    assert sym.list_arguments() == ['data'] and len(sym.list_outputs()) == 1
    assert len(mx.sym.contrib.box_non_maximum_suppression(mx.sym.Variable('data')).list_outputs()) == 1
    assert mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 2, 2))).shape == (1, 4, 4)


# ============================================================ box_nms
# rows [id, score, x1, y1, x2, y2]: boxes 0 and 2 overlap a lot, box 1 a little, box 3 not at all
NMS_ROWS = np.array([[0, 0.7, 0.0, 0.0, 1.0, 1.0], [1, 0.9, 0.6, 0.6, 1.6, 1.6],
                     [0, 0.8, 0.1, 0.05, 1.05, 1.1], [1, 0.3, 3.0, 3.0, 4.0, 4.0]])


def test_box_nms_keeps_the_best_of_overlapping_boxes():
    (out, _), _ = op_forward('_contrib_box_nms', [NMS_ROWS], dict(overlap_thresh=0.5))
    np.testing.assert_array_equal(out, NMS_ROWS[[1, 2, 3]].tolist() + [[-1] * 6])
    # per class, the low-overlap box of the other class stays
    (out, _), _ = op_forward('_contrib_box_nms', [NMS_ROWS], dict(overlap_thresh=0.1, id_index=0))
    np.testing.assert_array_equal(out[:3], NMS_ROWS[[1, 2, 3]])
    (out, _), _ = op_forward('_contrib_box_nms', [NMS_ROWS], dict(overlap_thresh=0.1, id_index=0, force_suppress=True))
    # across classes box 1 also removes box 2 (IoU 0.13), not box 0 (IoU 0.09)
    np.testing.assert_array_equal(out[:3], NMS_ROWS[[1, 0, 3]])


@pytest.mark.parametrize('params', [dict(overlap_thresh=0.5), dict(id_index=0, topk=2, valid_thresh=0.5)])
def test_box_nms_gradient(params):
    # the kept rows are copies: away from ties, the finite differences are exact.  (With
    # out_format != in_format MXNet still passes the gradient straight through, ignoring the
    # re-encoding: that is MXNet's definition, not a derivative, and is not checked here.)
    check_op_gradient('_contrib_box_nms', [NMS_ROWS[None].repeat(2, axis=0)], params)


def test_box_nms_errors():
    with pytest.raises(ShapeError, match=r"_contrib_box_nms: the rows of input 'data' need at least 5 numbers"):
        infer_shapes('_contrib_box_nms', {}, [(3, 4)])
    with pytest.raises(ParamError, match=r"_contrib_box_nms: score_index=3 is outside rows of width 6 or among"):
        infer_shapes('_contrib_box_nms', dict(score_index=3), [(3, 6)])
    with pytest.raises(ParamError, match=r"_contrib_box_nms: parameter 'in_format' expects one of"):
        get('_contrib_box_nms').parse_params(dict(in_format='xywh'))


# ============================================================ box_iou and matching
def test_box_iou_by_hand():
    a = np.array([[0.0, 0.0, 2.0, 2.0]])
    b = np.array([[1.0, 1.0, 3.0, 3.0], [2.0, 2.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0]])
    (iou,), _ = op_forward('_contrib_box_iou', [a, b], {})
    np.testing.assert_allclose(iou, [[1 / 7, 0, 1]], rtol=1e-12)
    # the same boxes as centre and size
    centre = lambda x: np.concatenate([(x[:, :2] + x[:, 2:]) / 2, x[:, 2:] - x[:, :2]], axis=1)
    (iou2,), _ = op_forward('_contrib_box_iou', [centre(a), centre(b)], dict(format='center'))
    np.testing.assert_allclose(iou2, iou, rtol=1e-12)


def test_bipartite_matching_by_hand():
    scores = np.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]])
    (rows, cols), _ = op_forward('_contrib_bipartite_matching', [scores], dict(threshold=1e-12))
    np.testing.assert_array_equal(rows, [1, -1, 0])
    np.testing.assert_array_equal(cols, [2, 0])


# ============================================================ box coding
def test_box_decode_inverts_box_encode():
    rng = np.random.default_rng(0)
    anchors = np.sort(rng.uniform(0, 1, size=(1, 5, 2, 2)), axis=2).reshape(1, 5, 4)
    refs = np.sort(rng.uniform(0, 1, size=(1, 5, 2, 2)), axis=2).reshape(1, 5, 4)
    stds = np.array([0.1, 0.1, 0.2, 0.2])
    (codes, mask), _ = op_forward('_contrib_box_encode', [np.ones((1, 5)), np.arange(5.0)[None], anchors, refs,
                                                          np.zeros(4), stds], {})
    assert mask.all()
    (boxes,), _ = op_forward('_contrib_box_decode', [codes, anchors],
                             dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2, format='corner'))
    np.testing.assert_allclose(boxes, refs, rtol=1e-10, atol=1e-12)


def test_box_decode_errors():
    with pytest.raises(ShapeError, match=r"_contrib_box_decode: input anchors \(1, num_anchors, 4\)"):
        infer_shapes('_contrib_box_decode', {}, [(2, 3, 4), (2, 3, 4)])


# ============================================================ SSD
def test_multibox_prior_one_box_per_cell_tiles_the_image():
    (out,), _ = op_forward('_contrib_MultiBoxPrior', [np.zeros((1, 1, 2, 4))], {})
    # size 1 on a 2 x 4 map: each box is the cell's centre +- half the image height (in x, scaled by 2/4)
    cells = [[(c + 0.5) / 4 - 0.25, (r + 0.5) / 2 - 0.5, (c + 0.5) / 4 + 0.25, (r + 0.5) / 2 + 0.5]
             for r in range(2) for c in range(4)]
    np.testing.assert_allclose(out[0], cells, rtol=1e-6, atol=1e-7)


def test_multibox_target_and_detection_round_trip():
    """A ground-truth box matched by one anchor, its targets fed back as the prediction,
    comes back out of MultiBoxDetection as the detection, with its class."""
    anchors = np.array([[[0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 1.0, 1.0]]])
    label = np.array([[[2, 0.55, 0.5, 0.95, 1.0]]])
    (loc, mask, cls), _ = op_forward('_contrib_MultiBoxTarget', [anchors, label, np.zeros((1, 4, 2))], {})
    np.testing.assert_array_equal(cls, [[0, 3]])
    np.testing.assert_array_equal(mask, [[0, 0, 0, 0, 1, 1, 1, 1]])
    prob = np.zeros((1, 4, 2))
    prob[0, 0, 0] = 1.0
    prob[0, 3, 1] = 0.9
    (out,), _ = op_forward('_contrib_MultiBoxDetection', [prob, loc, anchors], {})
    np.testing.assert_allclose(out[0, 0], [2, 0.9, 0.55, 0.5, 0.95, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(out[0, 1], [-1] * 6)


def test_multibox_errors():
    with pytest.raises(ShapeError, match=r"_contrib_MultiBoxTarget: input 'anchor' must be \(1, num_anchors, 4\)"):
        infer_shapes('_contrib_MultiBoxTarget', {}, [(2, 6, 4), (2, 3, 5), (2, 4, 6)])
    with pytest.raises(ShapeError, match=r"_contrib_MultiBoxDetection: input 'loc_pred' must have 4 \* num_anchors"):
        infer_shapes('_contrib_MultiBoxDetection', {}, [(2, 3, 6), (2, 20), (1, 6, 4)])
    with pytest.raises(ShapeError, match=r"_contrib_MultiBoxPrior: input 'data' must be 4-d"):
        infer_shapes('_contrib_MultiBoxPrior', {}, [(2, 3, 4)])


# ============================================================ gradientmultiplier
@pytest.mark.parametrize('scalar', [-0.5, 3.0])
def test_gradient_multiplier_gradient(scalar):
    x = np.random.default_rng(1).uniform(-1, 1, size=(3, 4))
    (out,), _ = op_forward('_contrib_gradientmultiplier', [x], dict(scalar=scalar))
    np.testing.assert_array_equal(out, x)
    op = get('_contrib_gradientmultiplier')
    grad = op.backward(op.parse_params(dict(scalar=scalar)), OpEnv(CTX, True), [np.ones_like(x)], [x], [out], [])
    np.testing.assert_allclose(grad[0], scalar * np.ones_like(x))


# ============================================================ ModulatedDeformableConvolution
def _mdc_inputs(offset_channels, mask_channels, seed=3, channels=4, no_bias=False):
    rng = np.random.default_rng(seed)
    size = (1, offset_channels, 4, 4)
    data = rng.uniform(-1, 1, size=(1, channels, 4, 4))
    # offsets away from whole pixels (where the bilinear weights bend); some taps land outside
    offset = rng.uniform(0.1, 0.9, size=size) * rng.choice([-1, 1], size=size)
    mask = rng.uniform(0.2, 1.0, size=(1, mask_channels, 4, 4))
    weight = rng.uniform(-1, 1, size=(4, channels // 2, 3, 3))
    return [data, offset, mask, weight] + ([] if no_bias else [rng.uniform(-1, 1, size=4)])


@pytest.mark.parametrize('groups', [1, 2])
def test_modulated_deformable_convolution_gradient(groups):
    params = dict(kernel=(3, 3), pad=(1, 1), num_filter=4, num_group=2, num_deformable_group=groups)
    inputs = _mdc_inputs(18 * groups, 9 * groups)
    check_op_gradient('_contrib_ModulatedDeformableConvolution', inputs, params, eps=1e-6, rtol=1e-4, atol=1e-6)


def test_modulated_deformable_convolution_without_moves_is_masked_convolution():
    """Zero offsets and a mask of ones: an ordinary convolution; a mask of one half: half of it."""
    inputs = _mdc_inputs(18, 9)
    inputs[1][:] = 0
    inputs[2][:] = 1
    params = dict(kernel=(3, 3), pad=(1, 1), num_filter=4, num_group=2)
    (out,), _ = op_forward('_contrib_ModulatedDeformableConvolution', inputs, params)
    (conv,), _ = op_forward('Convolution', [inputs[0], inputs[3], inputs[4]], params)
    np.testing.assert_allclose(out, conv, rtol=1e-10, atol=1e-12)
    inputs[2][:] = 0.5
    (half,), _ = op_forward('_contrib_ModulatedDeformableConvolution', inputs, params)
    np.testing.assert_allclose(half, 0.5 * (conv - inputs[4].reshape(1, -1, 1, 1)) + inputs[4].reshape(1, -1, 1, 1),
                               rtol=1e-10, atol=1e-12)


def test_modulated_deformable_convolution_errors():
    with pytest.raises(ShapeError, match=r"_contrib_ModulatedDeformableConvolution: input mask \(batch, "
                                         r"num_deformable_group\*kh\*kw, out_height, out_width\)"):
        infer_shapes('_contrib_ModulatedDeformableConvolution', dict(kernel=(3, 3), num_filter=4),
                     [(2, 4, 5, 6), (2, 18, 3, 4), (2, 8, 3, 4), None, None])
    with pytest.raises(ShapeError, match=r"_contrib_ModulatedDeformableConvolution: input 'mask' must be 4-d"):
        infer_shapes('_contrib_ModulatedDeformableConvolution', dict(kernel=(3, 3), num_filter=4),
                     [(2, 4, 5, 6), (2, 18, 3, 4), (2, 9, 3), None, None])
    # MXNet 1.9.1's v2 (alone) needs num_filter to be a multiple of num_deformable_group
    with pytest.raises(ParamError, match=r'num_filter \(3\) must be a multiple of num_deformable_group \(2\)'):
        infer_shapes('_contrib_ModulatedDeformableConvolution', dict(kernel=(3, 3), num_filter=3,
                                                                     num_deformable_group=2),
                     [(2, 4, 5, 6), None, None, None, None])
    infer_shapes('_contrib_DeformableConvolution', dict(kernel=(3, 3), num_filter=3, num_deformable_group=2),
                 [(2, 4, 5, 6), None, None, None])
