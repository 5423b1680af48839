"""SequentialModule against MXNet 1.9.1 (tests/golden/gen_sequential.py): a ReLU layer module
chained to a softmax module trains with fit to MXNet's parameters and accuracy, and one step
gives MXNet's outputs, input gradient and update."""

import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN)
import sequential_cases as case  # noqa: E402


def test_fit_and_one_step_match_mxnet():
    record = case.run(mx)
    golden = np.load(os.path.join(GOLDEN, 'sequential.npz'))
    assert sorted(record) == sorted(k for k in golden.files if not k.startswith('pyloss/'))
    assert list(record['names']) == list(golden['names'])
    for label in record:
        if label != 'names':
            np.testing.assert_allclose(record[label], golden[label], rtol=1e-5, atol=1e-6, err_msg=label)


def test_the_chain_hands_input_gradients_back():
    seq = case.build(mx)
    seq.bind([('data', (case.BATCH, case.FEATURES))], [('softmax_label', (case.BATCH,))], inputs_need_grad=True)
    seq.init_params(arg_params=case.start_params(mx))
    x, y = case.data(mx)
    seq.forward(mx.io.DataBatch([mx.nd.array(x[:case.BATCH])], [mx.nd.array(y[:case.BATCH])]), is_train=True)
    seq.backward()
    # the second module's data gradient is the first module's head gradient
    first, second = seq._modules
    assert second.inputs_need_grad and first.inputs_need_grad      # the chain's own input, asked for too
    assert seq.get_input_grads()[0].shape == (case.BATCH, case.FEATURES)
    plain = case.build(mx)
    plain.bind([('data', (case.BATCH, case.FEATURES))], [('softmax_label', (case.BATCH,))])
    plain.init_params(arg_params=case.start_params(mx))
    assert plain._modules[1].inputs_need_grad and not plain._modules[0].inputs_need_grad
    with pytest.raises(MXNetError, match='inputs_need_grad=True'):
        plain.get_input_grads()


def test_misuse_is_refused():
    with pytest.raises(MXNetError, match='unknown option take_label'):
        mx.mod.SequentialModule().add(mx.mod.Module(mx.sym.Variable('data'), label_names=None), take_label=True)
    with pytest.raises(MXNetError, match='the chain is empty'):
        mx.mod.SequentialModule().bind([('data', (2, 3))])
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(net, label_names=None)).add(mx.mod.Module(net, label_names=None), auto_wiring=True)
    seq.bind([('data', (2, 3))], for_training=False)
    with pytest.raises(MXNetError, match="parameter 'fc_weight' of module 1 .* is also a parameter of module 0"):
        seq.init_params()


def test_a_python_loss_module_trains_as_in_mxnet():
    # MXNet's example/module/python_loss.py in small: a hinge loss's gradient written in numpy
    record = case.run_python_loss(mx)
    golden = np.load(os.path.join(GOLDEN, 'sequential.npz'))
    for label, value in record.items():
        np.testing.assert_allclose(value, golden[label], rtol=1e-5, atol=1e-6, err_msg=label)


def test_a_python_module_checks_what_it_is_bound_with():
    loss = mx.mod.PythonLossModule(grad_func=case.hinge_grad)
    with pytest.raises(MXNetError, match=r"data \['x'\], but the module takes \['data'\]"):
        loss.bind([('x', (2, 3))])
    with pytest.raises(MXNetError, match="only grad_req='write'"):
        loss.bind([('data', (2, 3))], grad_req='add')
    loss.bind([('data', (2, 3))], [('softmax_label', (2,))])
    assert loss.output_shapes == [('pyloss_output', (2, 3))] and loss.get_params() == ({}, {})
    with pytest.raises(MXNetError, match='takes no head gradient'):
        loss.backward(out_grads=[mx.nd.ones((2, 3))])
