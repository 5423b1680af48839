"""Record golden values for reflib's vision operators from real MXNet 1.9.1.

Deconvolution (deconv.py), UpSampling, GridGenerator, BilinearSampler and
SpatialTransformer (resample.py), Pad, ROIPooling and Correlation (vision.py).

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_vision.py

It writes tests/golden/ops_vision.npz holding

* for every case in CASES: inputs, forward outputs, head gradients and input
  gradients (see op_cases.py);
* ``h<i>_<name>``: the hidden outputs of case ``i`` (ROIPooling's maxidx,
  Correlation's tmp1/tmp2, the grids), read with an executor monitor, for the
  cases in HIDDEN;
* ``meta``: the case descriptions, plus ``partial`` (shape inference from some
  shapes only) and ``errors`` (shapes and parameters MXNet refuses).
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_vision.npz')

# MXNet 1.9.1's default CPU code (MKL-DNN) cannot run a Deconvolution whose target_shape
# crops the result ("could not create a descriptor for a dilated deconvolution"); such
# cases are recorded by its own CPU code, in a child process with MXNET_MKLDNN_ENABLED=0
NATIVE = {'native': True}

CASES = [
    # ------------------------------------------------------------ Deconvolution
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4}, [(2, 3, 4, 5), (3, 4, 3, 3)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'stride': (2, 2), 'pad': (1, 1), 'adj': (1, 1),
                       'no_bias': False}, [(2, 3, 4, 5), (3, 4, 3, 3), (4,)]),
    ('Deconvolution', {'kernel': (3, 2), 'num_filter': 6, 'stride': (3, 2), 'pad': (2, 0),
                       'num_group': 2, 'no_bias': False}, [(1, 4, 3, 4), (4, 3, 3, 2), (6,)]),
    ('Deconvolution', {'kernel': (3, 2), 'num_filter': 3, 'stride': (3, 2), 'dilate': (2, 1), 'pad': (2, 0)},
     [(1, 4, 3, 4), (4, 3, 3, 2)]),
    ('Deconvolution', {'kernel': (4, 4), 'num_filter': 2, 'stride': (2, 2), 'target_shape': (9, 8)},
     [(2, 3, 4, 4), (3, 2, 4, 4)], NATIVE),
    ('Deconvolution', {'kernel': (4, 4), 'num_filter': 2, 'stride': (2, 2), 'target_shape': (10, 10)},
     [(1, 2, 4, 4), (2, 2, 4, 4)]),
    ('Deconvolution', {'kernel': (3,), 'num_filter': 3, 'stride': (2,), 'pad': (1,), 'adj': (1,), 'no_bias': False},
     [(2, 2, 5), (2, 3, 3), (3,)]),
    ('Deconvolution', {'kernel': (2, 3, 2), 'num_filter': 2, 'stride': (2, 1, 2), 'pad': (0, 1, 1)},
     [(1, 2, 2, 3, 3), (2, 2, 2, 3, 2)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 3, 'num_group': 3, 'stride': (2, 2), 'target_shape': (5, 6)},
     [(1, 3, 3, 3), (3, 1, 3, 3)], NATIVE),
    # --------------------------------------------------------------- UpSampling
    ('UpSampling', {'scale': 2, 'sample_type': 'nearest'}, [(2, 3, 2, 3)]),
    ('UpSampling', {'scale': 2, 'sample_type': 'nearest'}, [(1, 2, 3, 3), (1, 3, 6, 6), (1, 1, 1, 1)]),
    ('UpSampling', {'scale': 3, 'sample_type': 'nearest', 'multi_input_mode': 'sum'}, [(2, 2, 2, 2), (2, 2, 1, 1)]),
    ('UpSampling', {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 3}, [(2, 3, 3, 4), (3, 1, 4, 4)]),
    ('UpSampling', {'scale': 3, 'sample_type': 'bilinear', 'num_filter': 2}, [(1, 2, 2, 3), (2, 1, 5, 5)]),
    # ---------------------------------------------------------------------- Pad
    ('Pad', {'mode': 'constant', 'pad_width': (0, 0, 0, 0, 1, 2, 3, 0), 'constant_value': 1.5}, [(2, 2, 3, 4)]),
    ('pad', {'mode': 'edge', 'pad_width': (0, 0, 0, 0, 2, 1, 0, 3)}, [(2, 2, 3, 4)]),
    ('Pad', {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 2, 2, 3, 1)}, [(1, 2, 3, 4)]),
    ('Pad', {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 1, 2, 0, 1, 2, 2)}, [(1, 2, 3, 2, 4)]),
    ('Pad', {'mode': 'edge', 'pad_width': (0, 0, 0, 0, 1, 0, 2, 2, 0, 1)}, [(1, 2, 2, 3, 2)]),
    ('Pad', {'mode': 'constant', 'pad_width': (0, 0, 0, 0, 1, 1, 1, 1, 1, 1)}, [(1, 1, 2, 2, 2)]),
    # --------------------------------------------------------------- ROIPooling
    ('ROIPooling', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, [(2, 3, 6, 7), ((6, 5), 'rois2_7')]),
    ('ROIPooling', {'pooled_size': (3, 2), 'spatial_scale': 0.5}, [(2, 2, 5, 6), ((8, 5), 'rois2_12')]),
    ('ROIPooling', {'pooled_size': (2, 3), 'spatial_scale': 0.25}, [((1, 2, 4, 4), 'ties'), ((4, 5), 'rois1_16')]),
    # -------------------------------------------------------------- Correlation
    ('Correlation', {}, [(2, 3, 5, 6), (2, 3, 5, 6)]),
    ('Correlation', {'kernel_size': 3, 'max_displacement': 2, 'stride1': 2, 'stride2': 2, 'pad_size': 2},
     [(1, 2, 7, 8), (1, 2, 7, 8)]),
    ('Correlation', {'kernel_size': 1, 'max_displacement': 2, 'stride2': 1, 'pad_size': 1, 'is_multiply': False},
     [(2, 2, 5, 5), (2, 2, 5, 5)]),
    ('Correlation', {'kernel_size': 3, 'max_displacement': 0, 'stride1': 1, 'pad_size': 1},
     [(1, 3, 4, 5), (1, 3, 4, 5)]),
    # ------------------------------------------------- grids and bilinear sampling
    ('GridGenerator', {'transform_type': 'affine', 'target_shape': (3, 4)}, [(2, 6)]),
    ('GridGenerator', {'transform_type': 'warp'}, [(2, 2, 3, 4)]),
    ('BilinearSampler', {}, [(2, 3, 4, 5), ((2, 2, 3, 4), 'unit')]),
    ('BilinearSampler', {}, [(1, 2, 5, 4), (1, 2, 4, 3)]),
    ('SpatialTransformer', {'target_shape': (4, 3), 'transform_type': 'affine', 'sampler_type': 'bilinear'},
     [(2, 3, 5, 6), ((2, 6), 'affine')]),
    ('SpatialTransformer', {'target_shape': (2, 5), 'transform_type': 'affine', 'sampler_type': 'bilinear'},
     [(1, 2, 3, 4), (1, 6)]),
    # many equal values: the gradient of |a - b| where a == b
    ('Correlation', {'kernel_size': 1, 'max_displacement': 1, 'is_multiply': False},
     [((1, 2, 4, 4), 'ties'), ((1, 2, 4, 4), 'ties')]),
    # grid points exactly on pixels: 0 (the centre), 1 (the last pixel), 2 (outside)
    ('BilinearSampler', {}, [(1, 2, 3, 5), ((1, 2, 3, 3), 'ties')]),
]

# the hidden outputs recorded for each case of these operators (BilinearSampler's 'tmp' is
# cuDNN scratch that MXNet's CPU code leaves unset)
HIDDEN_OPS = {'ROIPooling': ['maxidx'], 'Correlation': ['tmp1', 'tmp2'], 'GridGenerator': ['grid_dst'],
              'SpatialTransformer': ['grid_dst', 'grid_src']}

# shape inference from some shapes only: (name, params, {input index: shape})
PARTIAL = [
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'stride': (2, 2)}, {0: (0, 3, 5, 5)}),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'no_bias': False}, {0: (2, 3, 0, 5)}),
    ('UpSampling', {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 2}, {0: (1, 2, 3, 4)}),
    ('ROIPooling', {'pooled_size': (2, 2), 'spatial_scale': 1.0}, {0: (1, 3, 6, 6), 1: (4, 5)}),
]

# (name, params, input shapes) that MXNet refuses at shape inference or when building the symbol
ERRORS = [
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'stride': (2, 2), 'adj': (2, 2)}, [(1, 3, 5, 5)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'stride': (2, 2), 'target_shape': (12, 12)}, [(1, 3, 5, 5)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 4, 'num_group': 2}, [(1, 3, 5, 5)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 6}, [(1, 4, 5)]),
    ('Deconvolution', {'kernel': (3, 3), 'num_filter': 0}, [(1, 4, 5, 5)]),
    ('UpSampling', {'scale': 2, 'sample_type': 'nearest', 'num_args': 2}, [(1, 2, 3, 3), (1, 3, 4, 4)]),
    ('UpSampling', {'scale': 2, 'sample_type': 'nearest', 'num_args': 2, 'multi_input_mode': 'sum'},
     [(1, 2, 3, 3), (1, 3, 1, 1)]),
    ('UpSampling', {'scale': 3, 'sample_type': 'nearest'}, [(1, 2, 3)]),
    ('UpSampling', {'scale': 0, 'sample_type': 'nearest'}, [(1, 2, 3, 4)]),
    ('Pad', {'mode': 'constant', 'pad_width': (0, 0, 1, 0, 1, 2, 3, 4)}, [(1, 2, 3, 4)]),
    ('Pad', {'mode': 'constant', 'pad_width': (0, 0, 1, 2, 3, 4)}, [(1, 2, 3, 4)]),
    ('Pad', {'mode': 'constant', 'pad_width': (0, 0, 1, 2)}, [(2, 3)]),
    ('Pad', {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 3, 2, 3, 3, 4, 4)}, [(1, 2, 3, 4, 5)]),
    ('Pad', {'mode': 'edge', 'pad_width': (0,) * 4 + (1,) * 8}, [(1, 2, 3, 4, 5, 6)]),
    ('ROIPooling', {'pooled_size': (2, 3), 'spatial_scale': 0.5}, [(2, 3, 6, 6), (4, 4)]),
    ('ROIPooling', {'pooled_size': (2, 3), 'spatial_scale': 0.5}, [(2, 3, 6), (4, 5)]),
    ('ROIPooling', {'pooled_size': (0, 2), 'spatial_scale': 0.5}, [(2, 3, 6, 6), (4, 5)]),
    ('ROIPooling', {'pooled_size': (2, 2), 'spatial_scale': -0.5}, [(2, 3, 6, 6), (4, 5)]),
    ('Correlation', {'kernel_size': 3, 'max_displacement': 1}, [(1, 2, 4, 4), (1, 2, 4, 4)]),
    ('Correlation', {'kernel_size': 1, 'max_displacement': 3, 'stride2': 2}, [(1, 2, 4, 4), (1, 2, 4, 4)]),
    ('Correlation', {}, [(2, 4), (1, 2, 4, 4)]),
    ('GridGenerator', {'transform_type': 'affine'}, [(2, 6)]),
    ('GridGenerator', {'transform_type': 'affine', 'target_shape': (3, 4)}, [(2, 7)]),
    ('GridGenerator', {'transform_type': 'warp'}, [(2, 3, 3, 4)]),
    ('BilinearSampler', {}, [(2, 3, 5, 5), (1, 2, 3, 4)]),
    ('BilinearSampler', {}, [(2, 3, 5, 5), (2, 3, 3, 4)]),
    ('BilinearSampler', {}, [(2, 3, 5), (2, 2, 3, 4)]),
    ('SpatialTransformer', {'target_shape': (3, 4), 'transform_type': 'affine', 'sampler_type': 'bilinear'},
     [(2, 3, 5, 5), (2, 7)]),
    ('SpatialTransformer', {'transform_type': 'affine', 'sampler_type': 'bilinear'}, [(2, 3, 5, 5), (2, 6)]),
]


def record_hidden(arrays, meta):
    """The hidden outputs of the HIDDEN_OPS cases, read back with an executor monitor."""
    recorded = []
    for i, case in enumerate(meta['cases']):
        if case['op'] not in HIDDEN_OPS:
            continue
        name, params = CASES[i][:2]
        xs = [arrays['c%d_in%d' % (i, j)] for j in range(case['n_in'])]
        sym = getattr(mx.sym, name)(*[mx.sym.Variable('in%d' % j) for j in range(len(xs))], name='node', **params)
        exe = sym.simple_bind(mx.cpu(), grad_req='null', **{'in%d' % j: x.shape for j, x in enumerate(xs)})
        for j, x in enumerate(xs):
            exe.arg_dict['in%d' % j][:] = x
        seen = {}

        def monitor(name, handle):
            array = mx.nd.NDArray(mx.base.ctypes.cast(handle, mx.base.NDArrayHandle), writable=False)
            seen[mx.base.py_str(name)] = array.asnumpy().copy()

        exe.set_monitor_callback(monitor, monitor_all=True)
        exe.forward(is_train=True)
        mx.nd.waitall()
        names = HIDDEN_OPS[case['op']]
        for hidden in names:
            arrays['h%d_%s' % (i, hidden)] = seen['node_' + hidden]
        recorded.append([i, names])
    meta['hidden'] = recorded


def record_partial(meta):
    table = []
    for name, params, given in PARTIAL:
        n_in = 2 if name in ('UpSampling', 'ROIPooling') else (2 if params.get('no_bias', True) else 3)
        variables = [mx.sym.Variable('in%d' % j) for j in range(n_in)]
        sym = getattr(mx.sym, name)(*variables[:1] if name == 'UpSampling' else variables, name='node', **params)
        args = sym.list_arguments()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            arg_shapes, out_shapes, _ = sym.infer_shape_partial(**{args[j]: s for j, s in given.items()})
        table.append({'op': name, 'params': params, 'given': {str(j): list(s) for j, s in given.items()},
                      'inputs': [list(s) if s else None for s in arg_shapes],
                      'outputs': [list(s) if s else None for s in out_shapes]})
    meta['partial'] = table


def record_errors(meta):
    table = []
    for name, params, shapes in ERRORS:
        variables = [mx.sym.Variable('in%d' % j) for j in range(len(shapes))]
        try:
            sym = getattr(mx.sym, name)(*variables, name='node', **params)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                sym.infer_shape(**{'in%d' % j: s for j, s in enumerate(shapes)})
        except mx.base.MXNetError as err:
            table.append({'op': name, 'params': params, 'shapes': [list(s) for s in shapes],
                          'mxnet': str(err).split('\n')[0][:200]})
            continue
        raise AssertionError('MXNet accepts %s %s %s' % (name, params, shapes))
    meta['errors'] = table


def is_native(case):
    return len(case) > 3 and case[3].get('native', False)


def record_native(path):
    """In the child process: record the NATIVE cases and save them to ``path``."""
    arrays, meta = {}, {}
    op_cases.record_cases(mx, [c for c in CASES if is_native(c)], arrays, meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez(path, **arrays)


def renumber(arrays, meta, indices, into, cases):
    """Move case ``k`` of ``arrays``/``meta`` to case ``indices[k]`` of ``into``/``cases``."""
    for k, i in enumerate(indices):
        prefix = 'c%d_' % k
        for key in [key for key in arrays if key.startswith(prefix)]:
            into['c%d_%s' % (i, key[len(prefix):])] = arrays[key]
        cases[i] = meta['cases'][k]


def main():
    native = [i for i, c in enumerate(CASES) if is_native(c)]
    default = [i for i, c in enumerate(CASES) if not is_native(c)]
    child = os.path.join(HERE, '_native_cases.npz')
    subprocess.run([sys.executable, __file__, '--native', child], check=True,
                   env=dict(os.environ, MXNET_MKLDNN_ENABLED='0'))
    with np.load(child) as npz:
        native_arrays = {k: npz[k] for k in npz.files}
    os.remove(child)
    arrays, meta, cases = {}, {}, [None] * len(CASES)
    renumber(native_arrays, json.loads(str(native_arrays.pop('meta'))), native, arrays, cases)
    default_arrays, default_meta = {}, {}
    op_cases.record_cases(mx, [CASES[i] for i in default], default_arrays, default_meta)
    renumber(default_arrays, default_meta, default, arrays, cases)
    meta['cases'] = cases
    record_hidden(arrays, meta)
    record_partial(meta)
    record_errors(meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d KB' % (OUT, len(CASES), os.path.getsize(OUT) // 1024))


if __name__ == '__main__':
    if sys.argv[1:2] == ['--native']:
        record_native(sys.argv[2])
    else:
        main()
