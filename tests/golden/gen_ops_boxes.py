"""Record golden values for reflib's box and SSD operators (boxes.py) from real MXNet 1.9.1.

box_nms, box_iou, bipartite_matching, box_encode, box_decode, MultiBoxPrior, MultiBoxTarget,
MultiBoxDetection, gradientmultiplier, and ModulatedDeformableConvolution (detection.py).  Run with a Python that has ``mxnet==1.9.1`` (not
needed by the tests):

    cd tests/golden && python gen_ops_boxes.py

It writes tests/golden/ops_boxes.npz holding, for every case in CASES, inputs, forward
outputs, head gradients and input gradients (see op_cases.py), and in ``meta`` the case
descriptions plus ``errors`` (shapes and parameters MXNet refuses).
"""

import json
import os

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_boxes.npz')

SHORT = ('box_nms', 'box_iou', 'bipartite_matching', 'box_encode', 'box_decode', 'MultiBoxPrior',
         'MultiBoxTarget', 'MultiBoxDetection', 'gradientmultiplier', 'ModulatedDeformableConvolution')

NO_GRAD = {'grad': False}
RNG = np.random.RandomState(7)


def corner_boxes(shape, clusters=3, spread=0.08):
    """Corner boxes (..., 4) around a few centres, so that many overlap and some do not."""
    centres = RNG.uniform(0.2, 0.8, size=(clusters, 2))
    pick = centres[RNG.randint(0, clusters, size=shape)]
    centre = pick + RNG.uniform(-spread, spread, size=shape + (2,))
    size = RNG.uniform(0.1, 0.4, size=shape + (2,))
    return np.concatenate([centre - size / 2, centre + size / 2], axis=-1)


def detections(shape, n_class=3):
    """Rows [class id, score, x1, y1, x2, y2]; distinct scores so that the ranking is unique."""
    rows = np.empty(shape + (6,))
    rows[..., 0] = RNG.randint(0, n_class, size=shape)
    rows[..., 1] = RNG.permutation(int(np.prod(shape))).reshape(shape) / np.prod(shape) + 0.01
    rows[..., 2:] = corner_boxes(shape)
    return rows


def centre_form(boxes):
    xy, wh = (boxes[..., :2] + boxes[..., 2:]) / 2, boxes[..., 2:] - boxes[..., :2]
    return np.concatenate([xy, wh], axis=-1)


DETS = detections((2, 10))
WIDE = np.concatenate([DETS[..., 1:2], RNG.uniform(-1, 1, size=(2, 10, 1)), DETS[..., 0:1], DETS[..., 2:]], axis=-1)
CENTRE_DETS = np.concatenate([DETS[..., :2], centre_form(DETS[..., 2:])], axis=-1)

# SSD pieces: a 3 x 4 grid of anchors, ground truth near some of them, class scores
ANCHORS = np.array([[[c / 4, r / 3, (c + 1.3) / 4, (r + 1.2) / 3] for r in range(3) for c in range(4)]])
LABELS = np.array([[[1, 0.05, 0.1, 0.3, 0.45], [0, 0.5, 0.3, 0.85, 0.7], [2, 0.6, 0.55, 0.95, 0.95],
                    [-1, -1, -1, -1, -1]],
                   [[2, 0.2, 0.25, 0.55, 0.6], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1],
                    [-1, -1, -1, -1, -1]]])
CLS_PRED = RNG.uniform(-2, 2, size=(2, 4, 12))
NO_GT = np.concatenate([LABELS[:1], np.full((1, 4, 5), -1.0)])


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


CLS_PROB = softmax(RNG.uniform(-2, 3, size=(2, 4, 12)), axis=1)
LOC_PRED = RNG.uniform(-1, 1, size=(2, 48))

CASES = [
    # ------------------------------------------------------------------ box_nms
    ('_contrib_box_nms', {}, [DETS]),
    ('_contrib_box_nms', {'id_index': 0, 'topk': 6, 'valid_thresh': 0.2, 'overlap_thresh': 0.3}, [DETS]),
    ('_contrib_box_non_maximum_suppression', {'id_index': 0, 'background_id': 1, 'in_format': 'center',
                                              'out_format': 'center', 'overlap_thresh': 0.2}, [CENTRE_DETS]),
    ('_contrib_box_nms', {'coord_start': 3, 'score_index': 0, 'id_index': 2, 'force_suppress': True,
                          'out_format': 'center', 'overlap_thresh': 0.25}, [WIDE.reshape(2, 2, 5, 7)]),
    ('_contrib_box_nms', {'id_index': 0, 'overlap_thresh': 0.1, 'in_format': 'center'}, [CENTRE_DETS[:1]]),
    ('_contrib_box_nms', {'topk': 0}, [DETS[0]]),
    ('_contrib_box_nms', {'valid_thresh': 2.0}, [DETS]),
    # ------------------------------------------------------------------ box_iou
    ('_contrib_box_iou', {}, [corner_boxes((3,)), corner_boxes((2, 5))]),
    ('_contrib_box_iou', {'format': 'center'}, [centre_form(corner_boxes((2, 3))), centre_form(corner_boxes((4,)))]),
    # --------------------------------------------------------- bipartite_matching
    ('_contrib_bipartite_matching', {'threshold': 0.2}, [((2, 4, 5), 'distinct')], NO_GRAD),
    ('_contrib_bipartite_matching', {'threshold': 0.0, 'is_ascend': True, 'topk': 2}, [((3, 4), 'distinct')],
     NO_GRAD),
    ('_contrib_bipartite_matching', {'threshold': 0.5}, [((5, 3), 'ties')], NO_GRAD),
    # ----------------------------------------------------- box_encode, box_decode
    ('_contrib_box_encode', {}, [np.array([[1, 0, 1, 1, 0], [0, 1, 1, 0, 1]]), ((2, 5), 'index3'),
                                 corner_boxes((2, 5)), corner_boxes((2, 3)), np.array([0.1, -0.1, 0.0, 0.2]),
                                 np.array([0.1, 0.1, 0.2, 0.2])]),
    ('_contrib_box_decode', {'std0': 0.1, 'std1': 0.1, 'std2': 0.2, 'std3': 0.2}, [(2, 5, 4), ((1, 5, 4), 'positive')]),
    ('_contrib_box_decode', {'format': 'corner', 'clip': 0.3}, [(2, 5, 4), corner_boxes((1, 5))]),
    # -------------------------------------------------------------- MultiBoxPrior
    ('_contrib_MultiBoxPrior', {'sizes': (0.5, 0.25), 'ratios': (1, 2, 0.5)}, [(1, 3, 4, 5)]),
    ('_contrib_MultiBoxPrior', {'sizes': (0.8,), 'ratios': (3, 0.25), 'clip': True, 'steps': (0.3, 0.2),
                                'offsets': (0.2, 0.7)}, [(2, 1, 3, 6)]),
    # ------------------------------------------------------------- MultiBoxTarget
    ('_contrib_MultiBoxTarget', {}, [ANCHORS, LABELS, CLS_PRED]),
    ('_contrib_MultiBoxTarget', {'negative_mining_ratio': 2, 'negative_mining_thresh': 0.5}, [ANCHORS, LABELS, CLS_PRED]),
    ('_contrib_MultiBoxTarget', {'overlap_threshold': 0.2, 'ignore_label': -2, 'variances': (0.2, 0.2, 0.5, 0.5),
                                 'negative_mining_ratio': 1.5, 'negative_mining_thresh': 0.3}, [ANCHORS, NO_GT, CLS_PRED]),
    ('_contrib_MultiBoxTarget', {'overlap_threshold': 0}, [ANCHORS, LABELS, CLS_PRED]),
    # ---------------------------------------------------------- MultiBoxDetection
    ('_contrib_MultiBoxDetection', {}, [CLS_PROB, LOC_PRED, ANCHORS]),
    ('_contrib_MultiBoxDetection', {'nms_topk': 4, 'force_suppress': True, 'nms_threshold': 0.3},
     [CLS_PROB, LOC_PRED, ANCHORS]),
    ('_contrib_MultiBoxDetection', {'threshold': 0.4, 'clip': False, 'variances': (0.2, 0.2, 0.3, 0.3),
                                    'background_id': 2}, [CLS_PROB, LOC_PRED, ANCHORS]),
    ('_contrib_MultiBoxDetection', {'nms_threshold': 0}, [CLS_PROB, LOC_PRED, ANCHORS]),
    # --------------------------------------------------------- gradientmultiplier
    ('_contrib_gradientmultiplier', {'scalar': -0.7}, [(3, 4)]),
    ('_contrib_gradientmultiplier', {'scalar': 2.5}, [(2, 1, 3)]),
    # ------------------------------------------ ModulatedDeformableConvolution (v2)
    # MXNet 1.9.1 computes this operator's gradient on GPUs only: forward values here
    ('_contrib_ModulatedDeformableConvolution', {'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 3},
     [(2, 2, 4, 5), (2, 18, 4, 5), ((2, 9, 4, 5), 'positive'), (3, 2, 3, 3), (3,)], NO_GRAD),
    ('_contrib_ModulatedDeformableConvolution', {'kernel': (2, 3), 'stride': (2, 1), 'dilate': (1, 2),
                                                 'pad': (1, 2), 'num_filter': 4, 'num_group': 2,
                                                 'num_deformable_group': 2, 'no_bias': True},
     [(1, 4, 5, 6), ((1, 24, 3, 6), 'offrange3'), (1, 12, 3, 6), (4, 2, 2, 3)], NO_GRAD),
    ('_contrib_ModulatedDeformableConvolution', {'kernel': (1, 1), 'num_filter': 2},
     [(1, 3, 3, 4), ((1, 2, 3, 4), 'offrange3'), ((1, 1, 3, 4), 'positive'), (2, 3, 1, 1), (2,)], NO_GRAD),
]

# (name, params, input shapes) that MXNet refuses at shape inference or when building the symbol
ERRORS = [
    ('_contrib_box_nms', {}, [(4,)]),
    ('_contrib_box_nms', {}, [(3, 4)]),
    ('_contrib_box_nms', {'id_index': 0, 'score_index': 0}, [(3, 6)]),
    ('_contrib_box_nms', {'coord_start': 3}, [(3, 6)]),
    ('_contrib_box_iou', {}, [(2, 3, 5), (5, 4)]),
    ('_contrib_box_iou', {}, [(4,), (5, 4)]),
    ('_contrib_bipartite_matching', {'threshold': 0.1}, [(4,)]),
    ('_contrib_box_decode', {}, [(2, 3, 5), (1, 3, 4)]),
    ('_contrib_box_encode', {}, [(2, 3), (2, 3), (2, 3, 4), (2, 5, 4), (1, 4), (4,)]),
    ('_contrib_MultiBoxPrior', {}, [(2, 3, 4)]),
    ('_contrib_MultiBoxTarget', {}, [(2, 6, 4), (2, 3, 5), (2, 4, 6)]),
    ('_contrib_MultiBoxTarget', {}, [(1, 6, 4), (2, 3, 4), (2, 4, 6)]),
    ('_contrib_MultiBoxTarget', {}, [(1, 6, 4), (2, 3, 6), (2, 4, 5)]),
    ('_contrib_MultiBoxDetection', {}, [(2, 3, 6), (2, 20), (1, 6, 4)]),
    ('_contrib_ModulatedDeformableConvolution', {'kernel': (3, 3), 'num_filter': 4},
     [(2, 4, 5, 6), (2, 18, 3, 4), (2, 8, 3, 4)]),
    ('_contrib_ModulatedDeformableConvolution', {'kernel': (3, 3), 'num_filter': 4},
     [(2, 4, 5, 6), (2, 18, 3, 4), (2, 9, 3)]),
]


def main():
    arrays, meta = {}, {}
    op_cases.record_cases(mx, CASES, arrays, meta)
    op_cases.record_errors(mx, ERRORS, meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d KB' % (OUT, len(CASES), os.path.getsize(OUT) // 1024))


if __name__ == '__main__':
    main()
