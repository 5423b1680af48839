"""Record golden values for indexing, slicing, ordering, the newer shape and reduce operators
and the range creators (reflib/operator/{indexing,slicing,ordering,shape,reduce,creation}.py)
from real MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_index.py

It writes tests/golden/ops_index.npz: for every case in CASES the inputs, MXNet's outputs
and (where the operator has a gradient) the input gradients for fixed head gradients, as
op_cases.record_cases stores them; and in ``meta`` a few numbers that need a graph around
the operator (``arange`` with ``infer_range`` takes its length from the operator it feeds).
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_index.npz')

NO_GRAD = {'grad': False}

INDEXING = [
    ('take', {}, [(3, 4), ((5,), 'index3')]),
    ('take', {'axis': 1}, [(2, 4, 3), ((2, 3), 'index4')]),
    ('take', {'axis': -1, 'mode': 'wrap'}, [(2, 3), ((7,), 'offrange3')]),
    ('take', {'mode': 'clip'}, [(3, 2), ((2, 4), 'offrange3')]),
    ('take', {'mode': 'raise'}, [(4, 2), ((3,), 'index4')]),
    ('pick', {}, [(3, 4), ((3,), 'index4')]),
    ('pick', {'axis': 0, 'keepdims': True}, [(3, 4), ((4,), 'index3')]),
    ('pick', {'axis': 1, 'mode': 'wrap'}, [(2, 3, 2), ((2, 2), 'offrange3')]),
    ('pick', {'axis': -2}, [(2, 3, 2), ((2, 2), 'offrange3')]),
    ('choose_element_0index', {}, [(2, 5), ((2,), 'index5')]),
    ('one_hot', {'depth': 4}, [((5,), 'offrange4')]),
    ('one_hot', {'depth': 3, 'on_value': 2.5, 'off_value': -0.5, 'dtype': 'float64'}, [((2, 3), 'index3')]),
    ('one_hot', {'depth': 3, 'dtype': 'int32'}, [((4,), 'index3')], NO_GRAD),
    ('gather_nd', {}, [(3, 4, 2), ((2, 5), 'index3')]),
    ('gather_nd', {}, [(3, 4), ((1, 2, 2), 'index3')]),
    ('scatter_nd', {'shape': (3, 4)}, [(5,), ((2, 5), 'cells3x4')]),
]

SLICING = [
    ('slice', {'begin': (0, 1), 'end': (2, 3)}, [(2, 3, 4)]),
    ('slice', {'begin': (None, -2), 'end': (None, None)}, [(2, 3, 4)]),
    ('slice', {'begin': (1, None, 3), 'end': (None, 0, 0), 'step': (1, -1, -2)}, [(2, 3, 4)]),
    ('slice', {'begin': (None,), 'end': (None,), 'step': (-1,)}, [(3, 2)]),
    ('slice', {'begin': (-5, 1), 'end': (10, 3), 'step': (2, None)}, [(4, 3)]),
    ('slice', {'begin': (0, -1), 'end': (None, -4), 'step': (1, -2)}, [(2, 4)]),
    ('crop', {'begin': (1,), 'end': (3,)}, [(4, 2)]),
    ('slice_axis', {'axis': 1, 'begin': 0, 'end': 2}, [(2, 3, 4)]),
    ('slice_axis', {'axis': -1, 'begin': -3, 'end': None}, [(2, 3, 4)]),
    ('slice_axis', {'axis': 2, 'begin': 1, 'end': -1}, [(2, 3, 4)]),
    ('slice_like', {}, [(3, 4), (2, 3)]),
    ('slice_like', {'axes': (1,)}, [(2, 3, 4), (1, 2, 5)]),
    ('slice_like', {'axes': (-1, 0)}, [(3, 4), (2, 2)]),
    ('slice_like', {'axes': (0, 1)}, [(2, 3, 4), (1, 2)]),
    ('Crop', {'num_args': 1, 'h_w': (2, 3), 'offset': (1, 2)}, [(2, 1, 5, 6)]),
    ('Crop', {'num_args': 1, 'h_w': (2, 3), 'center_crop': True}, [(1, 2, 5, 6)]),
    ('Crop', {'num_args': 2, 'center_crop': True}, [(2, 1, 5, 6), (1, 1, 2, 2)]),
    ('Crop', {'num_args': 2, 'offset': (3, 4)}, [(1, 2, 5, 6), (1, 1, 2, 2)]),
]

SHAPE = [
    ('tile', {'reps': (2,)}, [(2, 3)]),
    ('tile', {'reps': (2, 1)}, [(2, 3)]),
    ('tile', {'reps': (1, 2, 2)}, [(2, 3)]),
    ('tile', {'reps': ()}, [(2, 3)]),
    ('repeat', {'repeats': 2}, [(2, 3)]),
    ('repeat', {'repeats': 3, 'axis': 1}, [(2, 3)]),
    ('repeat', {'repeats': 2, 'axis': -2}, [(2, 3, 2)]),
    ('stack', {}, [(2, 3), (2, 3)]),
    ('stack', {'axis': 1}, [(2, 3), (2, 3), (2, 3)]),
    ('stack', {'axis': -1}, [(4,), (4,)]),
    ('squeeze', {}, [(1, 3, 1, 2)]),
    ('squeeze', {'axis': (0,)}, [(1, 3, 1, 2)]),
    ('squeeze', {'axis': (2, 0)}, [(1, 3, 1, 2)]),
    ('squeeze', {'axis': -2}, [(1, 3, 1, 2)]),
    ('squeeze', {}, [(1, 1)]),
    ('reshape_like', {}, [(2, 3, 4), (6, 4)]),
    ('reshape_like', {'lhs_begin': 1, 'rhs_begin': 1}, [(2, 3, 4), (5, 12)]),
    ('reshape_like', {'lhs_begin': 0, 'lhs_end': 2, 'rhs_begin': 0, 'rhs_end': 1}, [(2, 3, 4), (6, 7)]),
    ('reshape_like', {'lhs_begin': -2, 'rhs_begin': -1}, [(2, 3, 4), (5, 12)]),
    ('diag', {}, [(3, 4)]),
    ('diag', {'k': 1}, [(3, 4)]),
    ('diag', {'k': -2}, [(3, 4)]),
    ('diag', {}, [(3,)]),
    ('diag', {'k': 1}, [(3,)]),
    ('diag', {'k': -2}, [(3,)]),
    ('diag', {}, [(2, 3, 4)]),
    ('diag', {'axis1': 1, 'axis2': 2}, [(2, 3, 4)]),
    ('diag', {'axis1': 2, 'axis2': 0, 'k': 1}, [(2, 3, 4)]),
    ('diag', {'axis1': -1, 'axis2': 0}, [(2, 3, 4)]),
    ('depth_to_space', {'block_size': 2}, [(2, 8, 2, 3)]),
    ('space_to_depth', {'block_size': 2}, [(2, 2, 4, 6)]),
    ('space_to_depth', {'block_size': 3}, [(1, 1, 3, 6)]),
]

ORDERING = [
    # MXNet 1.9.1 cannot bind sort's backward when axis is left at its default (its backward
    # node gets axis=''), so the default is recorded forward only and axis=-1 with gradients
    ('sort', {}, [((3, 5), 'distinct')], NO_GRAD),
    ('sort', {'axis': -1}, [((3, 5), 'distinct')]),
    ('sort', {'axis': 0, 'is_ascend': False}, [((3, 5), 'distinct')]),
    ('sort', {'axis': None}, [((2, 3), 'distinct')]),
    ('argsort', {}, [((3, 5), 'distinct')]),
    ('argsort', {'axis': 0, 'is_ascend': False, 'dtype': 'int32'}, [((3, 4), 'distinct')]),
    ('argsort', {'axis': None, 'dtype': 'float64'}, [((2, 3), 'distinct')]),
    ('topk', {}, [((3, 5), 'distinct')]),
    ('topk', {'k': 2, 'ret_typ': 'value'}, [((3, 5), 'distinct')]),
    ('topk', {'k': 2, 'ret_typ': 'mask'}, [((3, 5), 'distinct')]),
    ('topk', {'k': 2, 'ret_typ': 'both', 'is_ascend': True}, [((3, 5), 'distinct')]),
    ('topk', {'k': 3, 'axis': None, 'ret_typ': 'both'}, [((2, 4), 'distinct')]),
    ('topk', {'k': 2, 'axis': 0, 'ret_typ': 'both', 'dtype': 'int32'}, [((3, 2, 2), 'distinct')]),
    ('topk', {'k': 0, 'ret_typ': 'value'}, [((2, 4), 'distinct')]),
    ('topk', {'k': 2, 'axis': 1, 'ret_typ': 'indices', 'dtype': 'int64'}, [((2, 3, 2), 'distinct')]),
    ('argmax', {}, [((3, 4), 'distinct')]),
    ('argmax', {'axis': 1}, [((3, 4), 'ties')]),
    ('argmax', {'axis': 0, 'keepdims': True}, [((3, 4), 'distinct')]),
    ('argmax', {'keepdims': True}, [((3, 4), 'distinct')]),
    ('argmin', {'axis': -1}, [((3, 4), 'ties')]),
    ('argmin', {'axis': 1, 'keepdims': True}, [((2, 3, 2), 'distinct')]),
    ('argmin', {}, [((2, 3), 'distinct')]),
    ('argmax_channel', {}, [((3, 4), 'distinct')], NO_GRAD),
    ('argmax_channel', {}, [((2, 3, 4), 'distinct')], NO_GRAD),
]

REDUCE = [
    ('norm', {}, [(2, 3)]),
    ('norm', {'axis': 1}, [(2, 3)]),
    ('norm', {'axis': (0, 2), 'keepdims': True}, [(2, 3, 2)]),
    ('norm', {'ord': 1}, [((2, 3), 'zeros')]),
    ('norm', {'ord': 1, 'axis': -1, 'keepdims': True}, [((3, 4), 'zeros')]),
    ('norm', {'keepdims': True}, [(2, 2)]),
    ('moments', {'axes': (1,)}, [(2, 3)]),
    ('moments', {'axes': (0, 2), 'keepdims': True}, [(2, 3, 2)]),
    ('moments', {'axes': (0, 1)}, [(3, 2)]),
    ('prod', {}, [((2, 3), 'positive')]),
    ('prod', {'axis': 1}, [(3, 4)]),
    ('prod', {'axis': 0, 'keepdims': True}, [((3, 4), 'zeros')]),
    ('prod', {'axis': 1, 'exclude': True}, [(2, 3, 2)]),
    ('nansum', {}, [((2, 3), 'nans')]),
    ('nansum', {'axis': 1, 'keepdims': True}, [((3, 4), 'nans')]),
    ('nanprod', {'axis': 1}, [((3, 4), 'nans')]),
    ('nanprod', {'axis': (0,)}, [((3, 2), 'nans')]),
    ('cumsum', {}, [(2, 3)]),
    ('cumsum', {'axis': 1}, [(3, 4)]),
    ('cumsum', {'axis': 2}, [(2, 3, 2)]),
    ('cumsum', {'axis': 0, 'dtype': 'float64'}, [(3, 2)]),
]

CREATION = [
    ('_arange', {'start': 3}, [], NO_GRAD),
    ('_arange', {'start': 2, 'stop': 6}, [], NO_GRAD),
    ('_arange', {'start': 2, 'stop': 6, 'step': 1.5, 'repeat': 2}, [], NO_GRAD),
    ('_arange', {'start': 0.1, 'stop': 1.0, 'step': 0.3}, [], NO_GRAD),
    ('_arange', {'start': 5, 'stop': 1, 'step': -1.5}, [], NO_GRAD),
    ('_arange', {'start': 2, 'stop': 6, 'step': 2, 'repeat': 3, 'dtype': 'int32'}, [], NO_GRAD),
    ('_arange', {'start': -1.3, 'stop': 40.0, 'step': 0.7, 'dtype': 'float64'}, [], NO_GRAD),
    ('_linspace', {'start': 2.0, 'stop': 3.0, 'num': 5}, [], NO_GRAD),
    ('_linspace', {'start': 2.0, 'stop': 3.0, 'num': 5, 'endpoint': False}, [], NO_GRAD),
    ('_linspace', {'start': 0.1, 'stop': 0.7, 'num': 7}, [], NO_GRAD),
    ('_linspace', {'start': -1.7, 'stop': 9.3, 'num': 23, 'dtype': 'float64'}, [], NO_GRAD),
    ('_linspace', {'start': 1, 'stop': 0, 'num': 4, 'dtype': 'int32'}, [], NO_GRAD),
    ('_linspace', {'start': 0, 'stop': 1, 'num': 1}, [], NO_GRAD),
    ('_eye', {'N': 3}, [], NO_GRAD),
    ('_eye', {'N': 2, 'M': 3, 'k': 1}, [], NO_GRAD),
    ('_eye', {'N': 3, 'M': 2, 'k': -1, 'dtype': 'int32'}, [], NO_GRAD),
    ('_eye', {'N': 2, 'M': 3, 'k': 5}, [], NO_GRAD),
    ('_histogram', {'bin_cnt': 5, 'range': (-1.5, 1.5)}, [(4, 6)], NO_GRAD),
    ('_histogram', {'bin_cnt': 3, 'range': (0, 2)}, [((10,), 'ties')], NO_GRAD),
]

CASES = INDEXING + SLICING + SHAPE + ORDERING + REDUCE + CREATION


def record_infer_range(meta):
    """arange(infer_range=True) takes its length from the operator it feeds."""
    x = mx.sym.Variable('x')
    sym = mx.sym.arange(start=1.5, step=0.5, infer_range=True, repeat=2) * x
    exe = sym.simple_bind(mx.cpu(), grad_req='null', x=(6,))
    exe.arg_dict['x'][:] = 1
    meta['infer_range'] = {'start': 1.5, 'step': 0.5, 'repeat': 2, 'length': 6,
                           'values': exe.forward()[0].asnumpy().tolist()}


def record_histogram_edges(meta):
    """Data on and next to float32 bin edges: which bin each value falls into."""
    edges = np.linspace(-1, 2, 8).astype(np.float32)
    data = np.concatenate([edges, np.nextafter(edges, np.float32(-np.inf)), np.nextafter(edges, np.float32(np.inf)),
                           np.float32([0.1, 0.7, 1.3, 1.9])]).astype(np.float32)
    counts, bounds = mx.nd.histogram(mx.nd.array(data), bins=7, range=(-1, 2))
    meta['histogram_edges'] = {'data': data.tolist(), 'bin_cnt': 7, 'range': [-1, 2],
                               'counts': counts.asnumpy().tolist(), 'bounds': bounds.asnumpy().tolist()}


def main():
    arrays, meta = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        op_cases.record_cases(mx, CASES, arrays, meta)
        record_infer_range(meta)
        record_histogram_edges(meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d arrays, %d bytes' % (OUT, len(CASES), len(arrays), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
