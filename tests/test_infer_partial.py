"""Partial shape inference reports what MXNet 1.9.1 reports (golden/infer_partial.json, from
golden/gen_infer_partial.py): Convolution and SliceChannel infer their input back from the
output, batch_dot and where infer forward only and only once MXNet would."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from infer_partial_cases import LENIENT, run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'infer_partial.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)


@pytest.mark.parametrize('case', sorted(set(GOLDEN) - LENIENT))
def test_same_partial_shapes_as_mxnet(case):
    assert RESULTS[case] == GOLDEN[case]


@pytest.mark.parametrize('case', sorted(LENIENT))
def test_where_mxnet_refuses_a_fitting_partial_shape_reflib_infers(case):
    assert GOLDEN[case] == 'error'
    assert RESULTS[case] != 'error'


def test_a_1d_condition_picks_rows_forward_and_backward():
    condition = mx.nd.array([1, 0])
    x, y = mx.nd.array([[1, 2, 3], [4, 5, 6]]), mx.nd.array([[-1, -2, -3], [-4, -5, -6]])
    assert mx.nd.where(condition, x, y).asnumpy().tolist() == [[1, 2, 3], [-4, -5, -6]]
    net = mx.sym.where(mx.sym.var('c'), mx.sym.var('x'), mx.sym.var('y'))
    mx.test_utils.check_symbolic_backward(net, [condition.asnumpy(), x.asnumpy(), y.asnumpy()],
                                          [np.ones((2, 3))],
                                          [[0, 0], [[1, 1, 1], [0, 0, 0]], [[0, 0, 0], [1, 1, 1]]])


def test_identity_with_attr_like_rhs_ties_two_shapes():
    """MXNet's test_backward_infer idiom: the tie carries FullyConnected's weight shape back
    through a broadcast_add that could not infer it (MXNet 1.9.1: weight (11, 100))."""
    weight = mx.sym.var('weight')
    shifted = mx.sym.broadcast_add(weight, mx.sym.var('shift', shape=(1,)))
    tied = mx.sym._internal._identity_with_attr_like_rhs(shifted, weight)
    net = mx.sym.FullyConnected(mx.sym.var('data'), weight=tied, num_hidden=11, no_bias=True)
    args, _, _ = net.infer_shape(data=(7, 100))
    assert dict(zip(net.list_arguments(), args))['weight'] == (11, 100)
    # forward is lhs; the gradient goes to lhs, zeros to rhs (MXNet 1.9.1's values)
    pair = mx.sym._internal._identity_with_attr_like_rhs(mx.sym.var('a'), mx.sym.var('b'))
    mx.test_utils.check_symbolic_forward(pair, [np.full((2, 3), 3.0), np.full((2, 3), 7.0)], [np.full((2, 3), 3.0)])
    mx.test_utils.check_symbolic_backward(pair, [np.full((2, 3), 3.0), np.full((2, 3), 7.0)], [np.full((2, 3), 2.0)],
                                          [np.full((2, 3), 2.0), np.zeros((2, 3))])
    with pytest.raises(mx.base.ShapeError, match='_identity_with_attr_like_rhs'):
        pair.infer_shape(a=(2, 3), b=(3, 2))


def test_where_names_a_condition_of_the_wrong_shape():
    with pytest.raises(mx.base.ShapeError, match="where: input 'condition'"):
        mx.nd.where(mx.nd.array([1, 0]), mx.nd.ones((3, 2)), mx.nd.zeros((3, 2)))
