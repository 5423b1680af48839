"""Record golden values for reflib/operator/linalg.py (``mx.sym.linalg.*``) from real MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && python gen_ops_linalg.py

It writes tests/golden/ops_linalg.npz: for every case in CASES the inputs, MXNet's
outputs, fixed head gradients and MXNet's input gradients (see op_cases.py), and in
``meta['namespace']`` the names MXNet's ``mx.sym.linalg`` module holds.
"""

import json
import os

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_linalg.npz')

# (name on mx.sym, params, input specs[, options]); 'trian3' is a well-conditioned 3x3
# matrix with both triangles filled, 'spd3' a symmetric positive definite one
CASES = [
    ('linalg_gemm', {}, [(2, 3), (3, 4), (2, 4)]),
    ('linalg_gemm', {'transpose_a': True, 'alpha': 0.5, 'beta': -2.0}, [(3, 2), (3, 4), (2, 4)]),
    ('linalg_gemm', {'transpose_b': True}, [(2, 2, 3), (2, 4, 3), (2, 2, 4)]),
    ('linalg_gemm', {'transpose_a': True, 'transpose_b': True, 'beta': 0.0}, [(3, 2), (4, 3), (2, 4)]),
    ('linalg_gemm', {'axis': 0}, [(3, 2, 4), (4, 2, 5), (3, 2, 5)]),
    ('linalg_gemm2', {}, [(2, 3), (3, 4)]),
    ('linalg_gemm2', {'transpose_a': True, 'alpha': 2.0}, [(2, 3, 2), (2, 3, 4)]),
    ('linalg_gemm2', {'transpose_b': True, 'axis': 1}, [(2, 3, 4, 5), (2, 4, 4, 5)]),
    ('linalg_gemm2', {'axis': -3}, [(3, 4, 2), (2, 4, 5)]),
    ('linalg_potrf', {}, [((3, 3), 'spd3')]),
    ('linalg_potrf', {}, [((2, 4, 4), 'spd4')]),
    ('linalg_potri', {}, [((3, 3), 'trian3')]),
    ('linalg_potri', {}, [((2, 3, 3), 'trian3')]),
    ('linalg_trsm', {}, [((3, 3), 'trian3'), (3, 4)]),
    ('linalg_trsm', {'transpose': True, 'alpha': 2.0}, [((3, 3), 'trian3'), (3, 4)]),
    ('linalg_trsm', {'rightside': True}, [((2, 3, 3), 'trian3'), (2, 4, 3)]),
    ('linalg_trsm', {'lower': False}, [((3, 3), 'trian3'), (3, 2)]),
    ('linalg_trsm', {'lower': False, 'transpose': True, 'rightside': True, 'alpha': -0.5},
     [((3, 3), 'trian3'), (2, 3)]),
    ('linalg_trmm', {}, [((3, 3), 'trian3'), (3, 4)]),
    ('linalg_trmm', {'transpose': True, 'alpha': 2.0}, [((3, 3), 'trian3'), (3, 4)]),
    ('linalg_trmm', {'rightside': True}, [((2, 3, 3), 'trian3'), (2, 4, 3)]),
    ('linalg_trmm', {'lower': False}, [((3, 3), 'trian3'), (3, 2)]),
    ('linalg_trmm', {'lower': False, 'transpose': True, 'rightside': True, 'alpha': -0.5},
     [((3, 3), 'trian3'), (2, 3)]),
    ('linalg_syrk', {}, [(2, 3)]),
    ('linalg_syrk', {'transpose': True, 'alpha': 0.5}, [(2, 4, 3)]),
    ('linalg_sumlogdiag', {}, [((3, 3), 'spd3')]),
    ('linalg_sumlogdiag', {}, [((2, 3, 3), 'spd3')]),
    ('linalg_extractdiag', {}, [(3, 3)]),
    ('linalg_extractdiag', {'offset': 1}, [(2, 4, 4)]),
    ('linalg_extractdiag', {'offset': -2}, [(4, 4)]),
    ('linalg_makediag', {}, [(3,)]),
    ('linalg_makediag', {'offset': 1}, [(2, 3)]),
    ('linalg_makediag', {'offset': -2}, [(2,)]),
    ('linalg_extracttrian', {}, [(3, 3)]),
    ('linalg_extracttrian', {'lower': False}, [(2, 3, 3)]),
    ('linalg_extracttrian', {'offset': 1}, [(4, 4)]),
    ('linalg_extracttrian', {'offset': -1, 'lower': False}, [(4, 4)]),
    ('linalg_maketrian', {}, [(6,)]),
    ('linalg_maketrian', {'lower': False}, [(2, 6)]),
    ('linalg_maketrian', {'offset': 1}, [(3,)]),
    ('linalg_maketrian', {'offset': -2, 'lower': False}, [(2, 3)]),
    ('linalg_inverse', {}, [((3, 3), 'trian3')]),
    ('linalg_inverse', {}, [((2, 3, 3), 'trian3')]),
    ('linalg_det', {}, [((3, 3), 'trian3')]),
    ('linalg_det', {}, [((2, 2, 2), 'trian2')]),
    ('linalg_slogdet', {}, [((3, 3), 'trian3')]),
    ('linalg_slogdet', {}, [((2, 3, 3), 'trian3')]),
    ('linalg.syevd', {}, [((3, 3), 'spd3')]),
    ('linalg.syevd', {}, [((2, 4, 4), 'spd4')]),
    ('linalg_gelqf', {}, [(2, 3)]),
    ('linalg_gelqf', {}, [(2, 3, 5)]),
    ('linalg_gelqf', {}, [((3, 3), 'trian3')]),
]


def record_negative_determinant(arrays, meta):
    """det and slogdet of a matrix whose determinant is negative (a row swap of a trian3)."""
    cases = meta['cases']
    base = len(cases)
    a = np.array([[0.2, 1.5, -0.1], [1.2, 0.1, 0.25], [-0.2, 0.3, 1.7]], dtype=np.float32)
    for offset, name in enumerate(['linalg_det', 'linalg_slogdet']):
        sub_arrays, sub_meta = {}, {}
        op_cases.record_cases(mx, [(name, {}, [(3, 3)])], sub_arrays, sub_meta)
        x = mx.sym.Variable('in0')
        sym = getattr(mx.sym, name)(x, name='node')
        exe = sym.simple_bind(mx.cpu(), in0=(3, 3))
        exe.arg_dict['in0'][:] = a
        outs = [o.asnumpy() for o in exe.forward(is_train=True)]
        heads = [np.full(o.shape, 0.5 + k, dtype=np.float32) for k, o in enumerate(outs)]
        exe.backward([mx.nd.array(h) for h in heads])
        i = base + offset
        arrays['c%d_in0' % i] = a
        for k, (o, h) in enumerate(zip(outs, heads)):
            arrays['c%d_out%d' % (i, k)] = o
            arrays['c%d_head%d' % (i, k)] = h
        arrays['c%d_grad0' % i] = exe.grad_dict['in0'].asnumpy()
        cases.append(sub_meta['cases'][0])


def main():
    arrays, meta = {}, {'mxnet_version': mx.__version__}
    op_cases.record_cases(mx, CASES, arrays, meta)
    for case in meta['cases']:      # 'linalg.syevd' is no operator name: reflib looks up the real one
        if '.' in case['alias']:
            case['alias'] = case['op']
    record_negative_determinant(arrays, meta)
    meta['namespace'] = sorted(n for n in dir(mx.sym.linalg) if not n.startswith('_'))
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(meta['cases']), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
