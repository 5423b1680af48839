"""Operators written in Python (mx.operator.CustomOp, CustomOpProp, register; the operator
Custom in reflib/operator/custom.py) against MXNet 1.9.1 (golden/custom_op.json, from
golden/gen_custom_op.py): a custom softmax trained in a Module next to SoftmaxOutput, auxiliary
states, grad_req='add', partial shapes, dtypes, JSON round trips, the keywords a Prop is handed,
autograd, hybridized Gluon blocks, check_numeric_gradient, and errors."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from custom_op_cases import cases, define  # noqa: E402

with open(os.path.join(HERE, 'golden', 'custom_op.json')) as _f:
    GOLDEN = json.load(_f)



def _same(got, want):
    """Equal structure and values; numbers within float32 rounding (the cases round to 5 decimals)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and sorted(got) == sorted(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return bool(np.isclose(got, want, rtol=1e-5, atol=2e-5, equal_nan=True))
    return got == want


RESULTS = {}


@pytest.fixture(scope='module')
def results():
    """Every case run once under reflib (tuples as lists, as the golden holds them); a case
    that raises keeps its exception for its own test to raise."""
    if not RESULTS:
        define(mx)
        for case, fn in cases(mx).items():
            try:
                RESULTS[case] = json.loads(json.dumps(fn()))
            except Exception as err:     # noqa: BLE001 -- reported by the case's test
                RESULTS[case] = err
    return RESULTS


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_result_as_mxnet(case, results):
    got = results[case]
    if isinstance(got, Exception):
        raise got
    assert _same(got, GOLDEN[case]), (got, GOLDEN[case])


def test_the_custom_softmax_trains_as_softmax_output(results):
    """The example/numpy-ops softmax and SoftmaxOutput give the same parameters (in MXNet too)."""
    got = results['softmax in a Module equals SoftmaxOutput']
    assert _same(got['custom']['params'], got['builtin']['params'])
    assert _same(got['custom']['outputs'], got['builtin']['outputs'])


def test_a_failing_forward_names_the_op_type():
    define(mx)
    x = mx.nd.ones((2, 2))
    with pytest.raises(MXNetError, match=r"op_type='case_broken'.*forward raised ValueError: broken on purpose"):
        mx.nd.Custom(x, op_type='case_broken').asnumpy()
    exe = mx.sym.Custom(mx.sym.var('x'), op_type='case_broken', name='bad').bind(mx.cpu(), {'x': x})
    with pytest.raises(MXNetError, match=r"op_type='case_broken'.*BrokenProp"):
        exe.forward()[0].asnumpy()


def test_unregistered_op_type_lists_the_registered_ones():
    define(mx)
    with pytest.raises(MXNetError, match=r"op_type 'nope' is not registered.*case_softmax"):
        mx.sym.Custom(mx.sym.var('x'), op_type='nope')
    with pytest.raises(MXNetError, match='op_type'):
        mx.sym.Custom(mx.sym.var('x'))


def test_a_failing_shape_rule_names_the_op_type_and_the_unknown_shape():
    define(mx)
    net = mx.sym.Custom(mx.sym.var('data'), mx.sym.var('label'), op_type='case_softmax')
    with pytest.raises(MXNetError, match=r"op_type='case_softmax'.*infer_shape.*IndexError.*unknown shape"):
        net.infer_shape_partial(label=(4,))


def test_assign_honours_each_req():
    op = mx.operator.CustomOp()
    dst = mx.nd.ones((2,))
    op.assign(dst, 'null', mx.nd.array([5, 6]))
    assert dst.asnumpy().tolist() == [1, 1]
    op.assign(dst, 'add', mx.nd.array([5, 6]))
    assert dst.asnumpy().tolist() == [6, 7]
    for req in ('write', 'inplace'):
        op.assign(dst, req, mx.nd.array([2, 3]))
        assert dst.asnumpy().tolist() == [2, 3]
    with pytest.raises(ValueError, match="'bogus'"):
        op.assign(dst, 'bogus', dst)


def test_register_refuses_what_is_no_prop():
    with pytest.raises(TypeError, match='CustomOpProp'):
        mx.operator.register('x_not_a_prop')(int)
    with pytest.raises(TypeError, match='string'):
        mx.operator.register(mx.operator.CustomOpProp)


def test_the_operator_is_listed_as_mxnet_lists_it():
    assert 'Custom' in mx.operator.get_all_registered_operators()
    args = mx.operator.get_operator_arguments('Custom')
    assert args.names == ['data', 'op_type']


def test_the_backward_reads_only_what_the_prop_declares():
    """case_square declares the head gradient and the input: its output is no backward read,
    so the memory plan may reuse it (Operator.backward_reads)."""
    define(mx)
    op = mx.operator.get('Custom')
    p = op.parse_params({'op_type': 'case_square'})
    assert op.backward_reads(p) == ([0], [])
    p = op.parse_params({'op_type': 'case_softmax'})
    assert op.backward_reads(p) == ([0, 1], [0])


def test_runs_on_the_default_context():
    """Under REFLIB_TEST_DEVICE=strict the default context is gpu(0): the user's NDArrays
    are there, and so is the result."""
    define(mx)
    x = mx.nd.array([1., 2.])
    y = mx.nd.Custom(x, op_type='case_square', scale=2)
    assert y.context == x.context == mx.current_context()
    assert y.asnumpy().tolist() == [2., 8.]


def test_an_error_in_a_graph_names_the_node_and_the_op_type():
    class Broken(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            raise ValueError('boom')

    @mx.operator.register('broken_in_a_graph')
    class BrokenProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Broken()

    net = mx.sym.Custom(mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2, name='fc'),
                        op_type='broken_in_a_graph', name='mynode')
    exe = net.simple_bind(mx.cpu(), x=(1, 3))
    with pytest.raises(mx.base.MXNetError, match="broken_in_a_graph.*boom") as info:
        exe.forward()
    assert "(raised in the forward of node 'mynode', operator Custom)" in info.value.__notes__


def test_a_deferred_error_names_its_node_too():
    net = mx.sym.take(mx.sym.var('a'), mx.sym.var('i'), mode='raise', name='mytake')
    exe = net.bind(mx.cpu(), {'a': mx.nd.ones((2, 3)), 'i': mx.nd.array([5])})
    exe.forward()
    with pytest.raises(mx.base.MXNetError) as info:
        exe.outputs[0].asnumpy()
    assert "(raised in the forward of node 'mytake', operator take)" in info.value.__notes__
