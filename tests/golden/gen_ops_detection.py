"""Record golden values for reflib's detection operators (detection.py) from real MXNet 1.9.1.

ROIAlign, RROIAlign, PSROIPooling, DeformableConvolution, Proposal and MultiProposal.
Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_detection.py

It writes tests/golden/ops_detection.npz holding, for every case in CASES, inputs,
forward outputs, head gradients and input gradients (see op_cases.py), and in ``meta``
the case descriptions plus ``errors`` (shapes and parameters MXNet refuses).
"""

import json
import os

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_detection.npz')


NO_GRAD = {'grad': False}

# regions with a positive size (aligned ROIAlign refuses others), one of them reaching
# outside the 6 x 7 map; a negative batch index marks a row ROIAlign ignores
ALIGNED_ROIS = np.array([[0, 0.5, 1.0, 5.5, 4.0], [1, 2.0, 0.0, 9.0, 7.5], [1, -1.5, 2.5, 1.0, 3.0]])
# rotated regions [batch, centre x, centre y, width, height, degrees]
ROTATED_ROIS = np.array([[0, 3.0, 2.5, 4.0, 3.0, 30.0], [1, 1.5, 4.0, 6.0, 2.0, -75.0],
                         [0, 5.0, 1.0, 0.5, 5.0, 180.0], [1, 3.0, 3.0, 9.0, 9.0, 45.0]])

CASES = [
    # ------------------------------------------------------------------ ROIAlign
    ('_contrib_ROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(2, 3, 6, 7), ((5, 5), 'rois2_7')]),
    ('_contrib_ROIAlign', {'pooled_size': (3, 2), 'spatial_scale': 0.5, 'sample_ratio': 2},
     [(2, 2, 5, 6), ((4, 5), 'rois2_12')]),
    ('_contrib_ROIAlign', {'pooled_size': (2, 3), 'spatial_scale': 1.0, 'aligned': True},
     [(2, 2, 6, 7), ALIGNED_ROIS]),
    ('_contrib_ROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0, 'position_sensitive': True,
                           'sample_ratio': 3}, [(2, 8, 5, 6), ((3, 5), 'rois2_6')]),
    ('_contrib_ROIAlign', {'pooled_size': (3, 3), 'spatial_scale': 0.25}, [(1, 2, 4, 5), ((3, 5), 'rois1_20')]),
    # ----------------------------------------------------------------- RROIAlign
    ('_contrib_RROIAlign', {'pooled_size': (2, 3), 'spatial_scale': 1.0}, [(2, 2, 6, 7), ROTATED_ROIS], NO_GRAD),
    ('_contrib_RROIAlign', {'pooled_size': (3, 2), 'spatial_scale': 0.5, 'sampling_ratio': 2},
     [(2, 3, 5, 5), ROTATED_ROIS * [1, 2, 2, 2, 2, 1]], NO_GRAD),
    # -------------------------------------------------------------- PSROIPooling
    ('_contrib_PSROIPooling', {'spatial_scale': 1.0, 'output_dim': 2, 'pooled_size': 2},
     [(2, 8, 6, 7), ((5, 5), 'rois2_7')]),
    ('_contrib_PSROIPooling', {'spatial_scale': 0.5, 'output_dim': 2, 'pooled_size': 3, 'group_size': 2},
     [(1, 8, 5, 6), ((4, 5), 'rois1_12')]),
    ('_contrib_PSROIPooling', {'spatial_scale': 0.25, 'output_dim': 1, 'pooled_size': 3},
     [(2, 9, 4, 4), ((4, 5), 'rois2_16')]),
    # ----------------------------------------------------- DeformableConvolution
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 3},
     [(2, 2, 4, 5), (2, 18, 4, 5), (3, 2, 3, 3), (3,)]),
    ('_contrib_DeformableConvolution', {'kernel': (2, 3), 'stride': (2, 1), 'dilate': (1, 2), 'pad': (1, 2),
                                        'num_filter': 4, 'num_group': 2, 'num_deformable_group': 2, 'no_bias': True},
     [(1, 4, 5, 6), (1, 24, 3, 6), (4, 2, 2, 3)]),
    ('_contrib_DeformableConvolution', {'kernel': (1, 1), 'num_filter': 2},
     [(1, 3, 3, 4), ((1, 2, 3, 4), 'offrange3'), (2, 3, 1, 1), (2,)]),
    # ------------------------------------------------------ Proposal, MultiProposal
    ('_contrib_Proposal', {'feature_stride': 16, 'scales': (2, 4), 'ratios': (0.5, 1, 2), 'rpn_pre_nms_top_n': 30,
                           'rpn_post_nms_top_n': 10, 'rpn_min_size': 4, 'output_score': True},
     [((1, 12, 4, 5), 'positive'), ((1, 24, 4, 5), 'small'), np.array([[60, 75, 1.0]])]),
    ('_contrib_Proposal', {'feature_stride': 8, 'scales': (1, 2), 'ratios': (1,), 'rpn_pre_nms_top_n': -1,
                           'rpn_post_nms_top_n': 40, 'threshold': 0.5, 'rpn_min_size': 8},
     [((1, 4, 5, 5), 'positive'), ((1, 8, 5, 5), 'small'), np.array([[40, 33, 1.5]])], NO_GRAD),
    ('_contrib_MultiProposal', {'feature_stride': 16, 'scales': (2, 4), 'ratios': (0.5, 2), 'rpn_pre_nms_top_n': 20,
                                'rpn_post_nms_top_n': 8, 'rpn_min_size': 4, 'output_score': True},
     [((2, 8, 4, 4), 'positive'), ((2, 16, 4, 4), 'small'), np.array([[64, 64, 1.0], [40, 57, 0.8]])]),
    ('_contrib_MultiProposal', {'feature_stride': 16, 'scales': (2, 4), 'ratios': (0.5, 2), 'rpn_pre_nms_top_n': 20,
                                'rpn_post_nms_top_n': 8, 'rpn_min_size': 4, 'iou_loss': True},
     [((2, 8, 4, 4), 'positive'), ((2, 16, 4, 4), 'small'), np.array([[64, 64, 1.0], [40, 57, 0.8]])], NO_GRAD),
]

# (name, params, input shapes) that MXNet refuses at shape inference or when building the symbol
ERRORS = [
    ('_contrib_ROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(2, 3, 6), (4, 5)]),
    ('_contrib_ROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(2, 3, 6, 6), (4, 4)]),
    ('_contrib_ROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0, 'position_sensitive': True},
     [(2, 6, 6, 6), (4, 5)]),
    ('_contrib_RROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(2, 3, 6, 6), (4, 5)]),
    ('_contrib_RROIAlign', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(3, 6, 6), (4, 6)]),
    ('_contrib_PSROIPooling', {'spatial_scale': 1.0, 'output_dim': 2, 'pooled_size': 2}, [(2, 8, 6), (4, 5)]),
    ('_contrib_PSROIPooling', {'spatial_scale': 1.0, 'output_dim': 2, 'pooled_size': 2}, [(2, 8, 6, 6), (4, 4)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 4}, [(2, 4, 5, 6), (2, 18, 5, 6)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 4}, [(2, 4, 5, 6), (2, 36, 3, 4)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 4, 'num_deformable_group': 3},
     [(2, 4, 5, 6), (2, 54, 3, 4)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 3, 'num_group': 2},
     [(2, 4, 5, 6), (2, 18, 3, 4)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 4, 'num_group': 2},
     [(2, 3, 5, 6), (2, 18, 3, 4)]),
    ('_contrib_DeformableConvolution', {'kernel': (3, 3), 'num_filter': 4}, [(2, 4, 5), (2, 18, 3, 4)]),
    ('_contrib_Proposal', {'scales': (2, 4), 'ratios': (1,)}, [(1, 6, 4, 5), (1, 8, 4, 5), (1, 3)]),
    ('_contrib_Proposal', {'scales': (2, 4), 'ratios': (1,)}, [(1, 4, 4, 5), (1, 8, 4, 5), (1, 4)]),
    ('_contrib_MultiProposal', {'scales': (2, 4), 'ratios': (1,)}, [(2, 4, 4, 5), (2, 8, 4, 4), (2, 3)]),
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
