"""shape_array, size_array, all_finite, multi_all_finite: MXNet 1.9.1's values (from the
oracle venv when written), their types, and zero gradients by finite differences."""

import numpy as np
import pytest

import reflib as mx
from reflib.base import TypeInferError
from reflib.test_utils import check_op_gradient, op_forward


def test_shape_and_size_as_int64_arrays():
    x = np.ones((2, 3, 4), dtype=np.float32)
    shape = op_forward('shape_array', [x])[0][0]
    size = op_forward('size_array', [x])[0][0]
    assert shape.dtype == np.int64 and shape.tolist() == [2, 3, 4]
    assert size.dtype == np.int64 and size.tolist() == [24]
    assert mx.nd.shape_array(mx.nd.ones((2, 3))).asnumpy().tolist() == [2, 3]
    s = mx.sym.shape_array(mx.sym.var('x'))
    assert s.infer_shape(x=(2, 3, 4))[1] == [(3,)] and s.infer_type(x='float32')[1] == [np.int64]


def test_all_finite_and_multi_all_finite():
    assert op_forward('all_finite', [np.array([1, 2], np.float32)])[0][0].tolist() == [1.0]
    assert op_forward('all_finite', [np.array([1, np.inf], np.float32)])[0][0].tolist() == [0.0]
    got = mx.nd.multi_all_finite(mx.nd.array([1, 2]), mx.nd.array([np.nan]), num_arrays=2)
    # the inputs MXNet names array_0, array_1 (a graph's auto-created variables carry them)
    assert mx.sym.multi_all_finite(num_arrays=2, name='m').list_arguments() == ['m_array_0', 'm_array_1']
    assert got.dtype == np.float32 and got.asnumpy().tolist() == [0.0]
    assert mx.sym.all_finite(mx.sym.var('x')).infer_type(x='float16')[1] == [np.float32]
    with pytest.raises(TypeInferError, match='int32'):
        mx.nd.all_finite(mx.nd.array([1, 2], dtype='int32'))


def test_init_output_false_ands_into_what_out_held():
    ones = mx.nd.ones((2, 3))
    out = mx.nd.zeros((1,))
    mx.nd.all_finite(ones, init_output=False, out=out)
    assert out.asnumpy().tolist() == [0.0]          # MXNet 1.9.1: still 0
    out = mx.nd.ones((1,))
    mx.nd.all_finite(mx.nd.array([np.nan]), init_output=False, out=out)
    assert out.asnumpy().tolist() == [0.0]
    out = mx.nd.ones((1,))
    mx.nd.multi_all_finite(ones, ones, num_arrays=2, init_output=False, out=out)
    assert out.asnumpy().tolist() == [1.0]


@pytest.mark.parametrize('name, params', [('shape_array', {}), ('size_array', {}), ('all_finite', {}),
                                          ('multi_all_finite', {'num_arrays': 2})])
def test_no_gradient_flows_back(name, params):
    inputs = [np.random.RandomState(0).normal(size=(2, 3))] * (2 if 'num_arrays' in params else 1)
    check_op_gradient(name, inputs, params)
