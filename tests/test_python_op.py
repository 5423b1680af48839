"""The older Python operators mx.operator.NumpyOp and NDArrayOp (reflib/operator/python_op.py,
adapters onto the Custom operator) against MXNet 1.9.1 (golden/python_op.json, from
golden/gen_python_op.py): a NumpyOp softmax trained in a Module next to SoftmaxOutput, an
NDArrayOp middle layer trained in a Module, two inputs and outputs through an executor, the base
classes' defaults; plus reflib's errors and the places where reflib goes past MXNet."""

import json
import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from python_op_cases import define, run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'python_op.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = json.loads(json.dumps(run(mx)))

pytestmark = pytest.mark.filterwarnings('ignore:.*has been deprecated')


def _close(mine, theirs):
    """Recorded arrays ([shape, dtype, values]) equal in shape and dtype, values to float32's
    precision; everything else equal."""
    if isinstance(theirs, list) and len(theirs) == 3 and isinstance(theirs[1], str) and isinstance(theirs[0], list):
        return (mine[:2] == theirs[:2]
                and np.allclose(np.array(mine[2], dtype=float), np.array(theirs[2], dtype=float), rtol=1e-4, atol=1e-5))
    if isinstance(theirs, list):
        return isinstance(mine, list) and len(mine) == len(theirs) and all(_close(a, b) for a, b in zip(mine, theirs))
    if isinstance(theirs, dict):
        return isinstance(mine, dict) and mine.keys() == theirs.keys() and all(_close(mine[k], theirs[k]) for k in theirs)
    return mine == theirs


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_same_result_as_mxnet(name):
    assert _close(RESULTS[name], GOLDEN[name]), (RESULTS[name], GOLDEN[name])


def test_the_numpy_softmax_trains_as_softmax_output():
    got = RESULTS['NumpyOp softmax in a Module, next to SoftmaxOutput']
    assert _close(got['custom'], got['builtin'])


def test_constructors_warn_as_mxnet_does():
    with pytest.warns(UserWarning, match='NumpyOp has been deprecated'):
        mx.operator.NumpyOp()
    with pytest.warns(UserWarning, match='NDArrayOp has been deprecated'):
        mx.operator.NDArrayOp(need_top_grad=False)


def test_base_python_op_has_no_symbol():
    with pytest.raises(NotImplementedError):
        mx.operator.PythonOp().get_symbol(mx.sym.var('x'))


def test_one_instance_one_op_type_and_its_state_is_kept():
    class Counter(mx.operator.NumpyOp):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, in_data, out_data):
            self.calls += 1
            out_data[0][:] = in_data[0] + self.calls

    op = Counter()
    x = mx.sym.var('x')
    a, b = op(x, name='a'), op(x, name='b')
    assert a.attr('op_type') == b.attr('op_type') and a.attr('op_type').startswith('_numpy_op_Counter_')
    exe = (a + b).bind(mx.cpu(), {'x': mx.nd.zeros(2)})
    assert exe.forward()[0].asnumpy().tolist() == [3, 3]     # 1 + 2: both nodes call the one instance
    assert op.calls == 2
    assert op in mx.operator.PythonOp._ref_holder


def test_wrong_number_of_shapes_names_the_op():
    class BadShapes(mx.operator.NumpyOp):
        def list_arguments(self):
            return ['data', 'label']

        def infer_shape(self, in_shape):
            return [in_shape[0]], [in_shape[0]]

    sym = BadShapes()(mx.sym.var('x'), name='bad')
    with pytest.raises(MXNetError, match=r"BadShapes.*BadShapes.infer_shape returned 1 input shapes, but "
                                         r"list_arguments names 2: \['data', 'label'\]"):
        sym.infer_shape(x=(2, 3), bad_label=(2,))

    class BadOutputs(mx.operator.NDArrayOp):
        def list_outputs(self):
            return ['a', 'b']

    with pytest.raises(MXNetError, match=r"BadOutputs.infer_shape returned 1 output shapes, but list_outputs names 2"):
        BadOutputs()(mx.sym.var('x')).infer_shape(x=(2,))


def test_failing_forward_and_backward_name_the_op():
    class Broken(mx.operator.NDArrayOp):
        def backward(self, out_grad, in_data, out_data, in_grad):
            raise ValueError('broken on purpose')

    exe = Broken()(mx.sym.var('x'), name='br').bind(mx.cpu(), {'x': mx.nd.ones(2)}, args_grad={'x': mx.nd.zeros(2)})
    exe.forward(is_train=True)
    with pytest.raises(MXNetError, match=r"op_type='_ndarray_op_Broken_\d+', Broken\): Broken.backward raised "
                                         r"ValueError: broken on purpose"):
        exe.backward(mx.nd.ones(2))
        exe.grad_dict['x'].asnumpy()


def test_partial_shapes_reach_infer_shape_as_empty_lists():
    """MXNet's NumpyOp crashes the process on an unknown input shape; reflib asks the rule."""
    ops = define(mx)
    sym = ops['NumpySoftmax']()(mx.sym.var('x'), name='sm')
    args, outs, _ = sym.infer_shape(x=(4, 3))
    assert args == [(4, 3), (4,)] and outs == [(4, 3)]


def test_need_top_grad_false_gets_no_head_gradient_and_grad_req_add_accumulates():
    """Two places reflib goes past MXNet 1.9.1: an NDArrayOp loss (MXNet fails in backward) and
    grad_req='add' (MXNet: "NativeOp doesn't support AddTo")."""
    seen = {}

    class Loss(mx.operator.NDArrayOp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def backward(self, out_grad, in_data, out_data, in_grad):
            seen['out_grad'] = out_grad
            in_grad[0][:] = out_data[0] * 2

    exe = Loss()(mx.sym.var('x')).simple_bind(mx.cpu(), x=(3,), grad_req='add')
    exe.arg_dict['x'][:] = mx.nd.array([1, 2, 3])
    exe.grad_dict['x'][:] = 1
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward()
    assert seen['out_grad'] == []
    assert exe.grad_dict['x'].asnumpy().tolist() == [5, 9, 13]


def test_autograd_through_a_numpy_op():
    ops = define(mx)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        sym = ops['NumpyTwoOutputs']()(mx.sym.var('a'), mx.sym.var('b'))
    a, b = mx.nd.array([1., 2.]), mx.nd.array([3., 4.])
    exe = sym.bind(mx.cpu(), {'a': a, 'b': b}, args_grad={'a': mx.nd.zeros(2), 'b': mx.nd.zeros(2)})
    out = exe.forward(is_train=True)
    exe.backward([mx.nd.ones(2), mx.nd.zeros(2)])
    assert out[0].asnumpy().tolist() == [3, 8] and out[1].asnumpy().tolist() == [7, 10]
    assert exe.grad_dict['a'].asnumpy().tolist() == [3, 4] and exe.grad_dict['b'].asnumpy().tolist() == [1, 2]
