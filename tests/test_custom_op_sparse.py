"""Python operators (mx.operator.CustomOp) with sparse storage types, against MXNet 1.9.1
(golden/custom_sparse.json, from golden/gen_custom_sparse.py on golden/custom_sparse_cases.py):
what the operator's code is handed (CSRNDArray/RowSparseNDArray where the Prop's
infer_storage_type(_backward) says so) and the numbers, for a bound graph, mx.nd.Custom and
mx.nd.Custom under autograd.

Known differences, checked as such below: reflib's graph carries the values dense, so
simple_bind gives the op's auxiliary state a dense array (MXNet: the storage the Prop says)
and the Prop's infer_storage_type_backward hears the inputs' storage for the input gradients
where MXNet's simple_bind says 'undefined'.
"""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import custom_sparse_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'custom_sparse.json')) as _f:
    GOLDEN = json.load(_f)


@pytest.fixture(scope='module')
def results():
    return json.loads(json.dumps(custom_sparse_cases.run(mx)))


def _without_igrad(seen):
    """The log with the input-gradient storage types given to infer_storage_type_backward left out."""
    return [entry[:4] + entry[5:] if entry[0] == 'infer_storage_type_backward' else entry for entry in seen]


SAME = sorted(k for k in GOLDEN if k not in ('bound_csr', 'bound_csr_seen', 'bound_rsp_seen'))


@pytest.mark.parametrize('case', SAME)
def test_as_mxnet(results, case):
    want = GOLDEN[case]
    got = results[case]
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for key in want:
            if isinstance(want[key], list):
                np.testing.assert_allclose(got[key], want[key], rtol=1e-6, atol=1e-6)
            else:
                assert got[key] == want[key], key
    elif case.endswith('_seen') or not isinstance(want, list) or case.startswith('default_infer'):
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_bound_csr(results):
    got, want = results['bound_csr'], GOLDEN['bound_csr']
    np.testing.assert_allclose(got['forward'], want['forward'], rtol=1e-6)
    np.testing.assert_allclose(got['grad'], want['grad'], rtol=1e-6)
    assert got['arg_stype'] == want['arg_stype'] == 'csr'
    assert want['aux_stype'] == 'csr' and got['aux_stype'] == 'default'     # (see the module's note)


@pytest.mark.parametrize('case', ['bound_csr_seen', 'bound_rsp_seen'])
def test_bound_seen(results, case):
    assert _without_igrad(results[case]) == _without_igrad(GOLDEN[case])
    # what the op's code sees, forward and backward, is MXNet's exactly
    assert [e for e in results[case] if e[0] != 'infer_storage_type_backward'] == \
        [e for e in GOLDEN[case] if e[0] != 'infer_storage_type_backward']


def test_golden_shows_sparse_views():
    """The golden file says what this is about: MXNet hands the csr op CSRNDArrays."""
    forward = [e for e in GOLDEN['recorded_csr_seen'] if e[0] == 'forward'][0]
    assert forward[1] == [['CSRNDArray', 'csr']] and forward[4] is True


class _Fails(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        assert in_data[0].stype == 'csr'
        raise RuntimeError('boom in forward')


@mx.operator.register('csp_fails')
class _FailsProp(mx.operator.CustomOpProp):
    def infer_storage_type(self, in_stype):
        return in_stype, ['csr'], []

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        return ograd_stype, in_stype, out_stype, in_stype, aux_stype

    def create_operator(self, ctx, shapes, dtypes):
        return _Fails()


def _csr():
    return mx.nd.array(custom_sparse_cases.X).tostype('csr')


def test_error_in_forward_names_op_type():
    with pytest.raises(MXNetError) as err:
        mx.nd.Custom(_csr(), op_type='csp_fails').asnumpy()
    assert 'csp_fails' in str(err.value) and 'boom in forward' in str(err.value)
    sym = mx.sym.Custom(mx.sym.Variable('d', stype='csr'), op_type='csp_fails')
    ex = sym.bind(mx.cpu(), {'d': _csr()})
    with pytest.raises(MXNetError) as err:
        ex.forward()[0].asnumpy()
    assert 'csp_fails' in str(err.value)


def test_default_prop_refuses_sparse_naming_op_type():
    with pytest.raises(MXNetError) as err:
        mx.nd.Custom(_csr(), op_type='csp_plain')
    assert 'csp_plain' in str(err.value) and 'infer_storage_type' in str(err.value)


def test_bad_storage_type_answer():
    @mx.operator.register('csp_bad_answer')
    class BadProp(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):
            return in_stype, ['dense'], []

    with pytest.raises(MXNetError) as err:
        mx.nd.Custom(_csr(), op_type='csp_bad_answer')
    assert 'csp_bad_answer' in str(err.value) and "'dense'" in str(err.value)


def test_dense_props_unchanged():
    """A Prop that keeps the default storage rules is not asked, and sees NDArrays."""
    seen = []

    class Op(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen.append(type(in_data[0]))
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register('csp_dense_only')
    class Prop(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):     # (the default's behaviour, counted)
            seen.append('asked')
            return super().infer_storage_type(in_stype)

        def create_operator(self, ctx, shapes, dtypes):
            return Op()

    out = mx.nd.Custom(mx.nd.ones((2, 2)), op_type='csp_dense_only')
    assert out.asnumpy().tolist() == [[2, 2], [2, 2]]
    assert seen == ['asked', mx.nd.NDArray]
