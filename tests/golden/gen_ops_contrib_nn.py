"""Record golden values for reflib's contrib layers from real MXNet 1.9.1.

BilinearResize2D and AdaptiveAvgPooling2D (resize.py), the interleaved multi-head
attention products (attention.py), quantize, quantize_v2, dequantize and requantize
(quantize.py), all reached in MXNet as ``mx.sym.contrib.*``.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_contrib_nn.py

It writes tests/golden/ops_contrib_nn.npz holding

* for every case in CASES and QUANTIZE_CASES: inputs, forward outputs and, for the
  differentiable ones, head gradients and input gradients (see op_cases.py); the
  quantization cases take int8/uint8/int32 inputs, which op_cases' float32 inputs
  cannot give, so they are recorded here in the same layout, forward only;
* ``meta``: the case descriptions, plus ``errors`` (shapes and parameters MXNet
  refuses).  (MXNet infers nothing for these operators from partial shapes: the
  attention products refuse an unknown attention input, BilinearResize2D an unknown
  ``like``.)
"""

import json
import os

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_contrib_nn.npz')

RESIZE = 'contrib.BilinearResize2D'
POOL = 'contrib.AdaptiveAvgPooling2D'
SELF_QK = 'contrib.interleaved_matmul_selfatt_qk'
SELF_VAL = 'contrib.interleaved_matmul_selfatt_valatt'
ENCDEC_QK = 'contrib.interleaved_matmul_encdec_qk'
ENCDEC_VAL = 'contrib.interleaved_matmul_encdec_valatt'

CASES = [
    # ---------------------------------------------------------- BilinearResize2D
    (RESIZE, {'height': 5, 'width': 3}, [(2, 2, 3, 4)]),
    (RESIZE, {'height': 6, 'width': 4, 'align_corners': False}, [(1, 2, 3, 2)]),
    (RESIZE, {'height': 2, 'width': 3, 'align_corners': False}, [(1, 2, 5, 7)]),
    (RESIZE, {'height': 1, 'width': 3, 'align_corners': False}, [(1, 1, 4, 5)]),
    (RESIZE, {'height': 1, 'width': 1}, [(1, 2, 3, 4)]),
    (RESIZE, {'height': 3, 'width': 4}, [(1, 2, 3, 4)]),
    (RESIZE, {'scale_height': 1.5, 'scale_width': 0.6}, [(1, 2, 4, 5)]),
    (RESIZE, {'scale_height': 2.0, 'scale_width': 1.5, 'mode': 'odd_scale'}, [(1, 1, 5, 4)]),
    (RESIZE, {'scale_height': 0.5, 'scale_width': 0.5, 'mode': 'odd_scale', 'align_corners': False},
     [(1, 1, 7, 6)]),
    (RESIZE, {'mode': 'to_even_down'}, [(1, 2, 5, 4)]),
    (RESIZE, {'mode': 'to_even_up'}, [(1, 2, 5, 4)]),
    (RESIZE, {'mode': 'to_odd_down', 'align_corners': False}, [(1, 2, 5, 4)]),
    (RESIZE, {'mode': 'to_odd_up'}, [(1, 2, 5, 4)]),
    # MXNet 1.9.1's backward corrupts memory when 'like' has other batch or channel sizes
    (RESIZE, {'mode': 'like'}, [(1, 2, 3, 4), (1, 2, 5, 7)]),
    (RESIZE, {'mode': 'like', 'align_corners': False}, [(2, 1, 4, 4), (2, 1, 3, 6)]),
    # ------------------------------------------------------ AdaptiveAvgPooling2D
    (POOL, {}, [(2, 2, 5, 7)]),
    (POOL, {'output_size': 1}, [(1, 2, 3, 4)]),
    (POOL, {'output_size': 3}, [(2, 2, 5, 7)]),
    (POOL, {'output_size': (2, 4)}, [(1, 3, 5, 7)]),
    (POOL, {'output_size': (6, 8)}, [(1, 2, 4, 5)]),
    (POOL, {'output_size': (4, 3)}, [(1, 1, 4, 3)]),
    # ------------------------------------------------ interleaved attention products
    (SELF_QK, {'heads': 1}, [(3, 2, 6)]),
    (SELF_QK, {'heads': 2}, [(4, 3, 18)]),
    (SELF_VAL, {'heads': 1}, [(3, 2, 6), (2, 3, 3)]),
    (SELF_VAL, {'heads': 3}, [(2, 2, 18), (6, 2, 2)]),
    (ENCDEC_QK, {'heads': 1}, [(4, 2, 3), (3, 2, 6)]),
    (ENCDEC_QK, {'heads': 2}, [(2, 3, 6), (5, 3, 12)]),
    (ENCDEC_VAL, {'heads': 1}, [(3, 2, 4), (2, 4, 3)]),
    (ENCDEC_VAL, {'heads': 2}, [(4, 1, 12), (2, 3, 4)]),
]


def _int_array(rng, shape, dtype):
    info = np.iinfo(dtype)
    low, high = (info.min + 1, info.max) if dtype == np.int32 else (info.min, info.max + 1)
    return rng.randint(low, high, size=shape, dtype=np.int64).astype(dtype)


def _range(value):
    return np.array([value], dtype=np.float32)


def quantize_cases(rng):
    """(name, params, input arrays): the quantization operators with their integer inputs."""
    def floats(*shape):
        return rng.uniform(-3, 3, size=shape).astype(np.float32)
    cases = []
    for out_type in ('int8', 'uint8'):
        cases.append(('contrib.quantize', {'out_type': out_type}, [floats(3, 8), _range(-1.5), _range(2.0)]))
    # MXNet 1.9.1's unit test: int8 over [0, 1]
    cases.append(('contrib.quantize', {'out_type': 'int8'},
                  [np.array([[0.1392, 0.5928], [0.6027, 0.8579]], dtype=np.float32), _range(0.0), _range(1.0)]))
    cases.append(('contrib.quantize', {}, [floats(2, 6), _range(0.5), _range(-2.5)]))
    for params in ({}, {'out_type': 'uint8'}, {'out_type': 'auto'},
                   {'min_calib_range': -1.0, 'max_calib_range': 2.5},
                   {'out_type': 'uint8', 'min_calib_range': -1.0, 'max_calib_range': 2.5},
                   {'out_type': 'auto', 'min_calib_range': 0.3, 'max_calib_range': 2.5}):
        cases.append(('contrib.quantize_v2', params, [floats(4, 6)]))
    cases.append(('contrib.quantize_v2', {}, [_int_array(rng, (3, 4), np.int8)]))
    cases.append(('contrib.quantize_v2', {'min_calib_range': -1.0, 'max_calib_range': 2.5},
                  [_int_array(rng, (3, 4), np.uint8)]))
    cases.append(('contrib.dequantize', {}, [_int_array(rng, (3, 8), np.int8), _range(-1.5), _range(2.0)]))
    cases.append(('contrib.dequantize', {'out_type': 'float32'},
                  [_int_array(rng, (3, 8), np.uint8), _range(-3.5), _range(2.0)]))
    for params in ({'min_calib_range': -7.0, 'max_calib_range': 5.0},
                   {'out_type': 'uint8', 'min_calib_range': -7.0, 'max_calib_range': 5.0},
                   {'out_type': 'auto', 'min_calib_range': 1.0, 'max_calib_range': 5.0}):
        cases.append(('contrib.requantize', params, [_int_array(rng, (3, 10), np.int32), _range(-20.0),
                                                     _range(30.0)]))
    return cases


def record_typed(cases, first, arrays, meta):
    """Forward-only cases whose inputs keep their own dtypes, as op_cases.record_cases stores them."""
    for k, (name, params, xs) in enumerate(cases):
        i = first + k
        sym = op_cases.sym_function(mx, name)(*[mx.sym.Variable('in%d' % j) for j in range(len(xs))],
                                              name='node', **params)
        op, attrs = op_cases.node_attrs(sym)
        exe = sym.simple_bind(mx.cpu(), grad_req='null', type_dict={'in%d' % j: x.dtype for j, x in enumerate(xs)},
                              **{'in%d' % j: x.shape for j, x in enumerate(xs)})
        for j, x in enumerate(xs):
            exe.arg_dict['in%d' % j][:] = x
            arrays['c%d_in%d' % (i, j)] = x
        for n, out in enumerate(exe.forward(is_train=False)):
            arrays['c%d_out%d' % (i, n)] = out.asnumpy()
        meta['cases'].append({'alias': name, 'op': op, 'attrs': attrs, 'n_in': len(xs),
                              'n_out': len(exe.outputs), 'grad': False, 'train': False,
                              'input_names': op_cases._free_input_names(mx, name, params, len(xs)),
                              'output_names': op_cases.strip(sym.list_outputs())})


# (name, params, input shapes) that MXNet refuses at shape inference
ERRORS = [
    (RESIZE, {'height': 2, 'width': 2}, [(2, 3, 4)]),
    (RESIZE, {'scale_height': 2.0}, [(1, 2, 3, 4)]),
    (RESIZE, {'mode': 'odd_scale', 'scale_width': 2.0}, [(1, 2, 3, 4)]),
    (RESIZE, {'height': 0}, [(1, 2, 3, 4)]),
    (POOL, {'output_size': 2}, [(2, 3, 4)]),
    (SELF_QK, {'heads': 2}, [(3, 12)]),
    (SELF_VAL, {'heads': 2}, [(3, 2, 12), (4, 3, 2)]),
    (ENCDEC_QK, {'heads': 2}, [(3, 2, 4), (5, 2, 12)]),
    (ENCDEC_QK, {'heads': 2}, [(3, 2, 4), (5, 3, 8)]),
    (ENCDEC_VAL, {'heads': 2}, [(5, 2, 8), (4, 3, 4)]),
    ('contrib.quantize', {}, [(2, 3), (2,), (1,)]),
    ('contrib.dequantize', {}, [(2, 3), (1,), (1, 2)]),
]


def main():
    arrays, meta = {}, {}
    op_cases.record_cases(mx, CASES, arrays, meta)
    record_typed(quantize_cases(np.random.RandomState(7)), len(CASES), arrays, meta)
    for case in meta['cases']:
        # reflib knows these by their registered names only (mx.nd.contrib.X is _contrib_X)
        case['alias'] = case['op']
    op_cases.record_errors(mx, ERRORS, meta, op_name=lambda name: '_contrib_' + name.split('.')[1])
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d KB' % (OUT, len(meta['cases']), os.path.getsize(OUT) // 1024))


if __name__ == '__main__':
    main()
