"""mx.contrib.svrg_optimization (SVRGModule, _SVRGOptimizer): against MXNet 1.9.1
(golden/svrg.json, from golden/gen_svrg.py), against SVRG written out in numpy, and the errors
and the places where reflib departs from MXNet on purpose (each test says why)."""

import json
import logging
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.module.base_module import ModuleStateError
from reflib.optimizer import OptimizerError
from reflib.contrib.svrg_optimization import SVRGModule, SVRGError
from reflib.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer, _AssignmentOptimizer, SVRGKeyError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from svrg_cases import run, _net  # noqa: E402

with open(os.path.join(HERE, 'golden', 'svrg.json')) as _f:
    GOLDEN = json.load(_f)
# fit logs every epoch: quiet while the cases run, then logging as it was (the disable is
# process-wide, and other test files in this worker read their logs)
_was_disabled = logging.root.manager.disable
logging.disable(logging.INFO)
try:
    RESULTS = run(mx)
finally:
    logging.disable(_was_disabled)


def _close(mine, theirs):
    """Recorded arrays ([shape, dtype, values]) equal in shape and dtype, values to float32's
    precision; everything else equal."""
    if isinstance(theirs, list) and len(theirs) == 3 and isinstance(theirs[1], str) and isinstance(theirs[0], list):
        return (mine[:2] == theirs[:2]
                and np.allclose(np.array(mine[2], dtype=float), np.array(theirs[2], dtype=float),
                                rtol=1e-5, atol=1e-5))
    if isinstance(theirs, list):
        return len(mine) == len(theirs) and all(_close(a, b) for a, b in zip(mine, theirs))
    if isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(_close(mine[k], theirs[k]) for k in theirs)
    return mine == theirs


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_same_result_as_mxnet(name):
    assert _close(RESULTS[name], GOLDEN[name]), (RESULTS[name], GOLDEN[name])


# ------------------------------------------------------------------ SVRG by hand
def _toy(n=8):
    x = (np.arange(2 * n, dtype=np.float32).reshape(n, 2) % 5) / 4
    y = x.dot(np.array([2.0, -1.0], dtype=np.float32)) + 0.25
    return x, y.astype(np.float32)


def _module(update_freq=1, **kwargs):
    return SVRGModule(_net(mx), data_names=['data'], label_names=['lin_reg_label'], update_freq=update_freq,
                      **kwargs)


def _start():
    return {'fc1_weight': mx.nd.array([[0.5, 0.5]]), 'fc1_bias': mx.nd.array([0.0])}


def _batch_grads(w, b, x, y):
    """LinearRegressionOutput's gradients, summed over the batch: sum (x.w + b - y) x, sum (x.w + b - y)."""
    err = x.dot(w) + b - y
    return err.dot(x), err.sum()


def test_fit_matches_svrg_written_in_numpy():
    x, y = _toy()
    bs, lr, epochs = 4, 0.1, 3
    w, b = np.array([0.5, 0.5]), 0.0
    mu_w, mu_b = np.zeros(2), 0.0           # MXNet's running sums start from the previous mu
    batches = [(x[i:i + bs], y[i:i + bs]) for i in range(0, len(x), bs)]
    for _ in range(epochs):                 # update_freq = 1: a new snapshot every epoch
        ws, bs_ = w.copy(), b
        for xb, yb in batches:
            gw, gb = _batch_grads(ws, bs_, xb, yb)
            mu_w, mu_b = mu_w + gw, mu_b + gb
        mu_w, mu_b = mu_w / len(batches), mu_b / len(batches)
        for xb, yb in batches:
            gw, gb = _batch_grads(w, b, xb, yb)
            sw, sb = _batch_grads(ws, bs_, xb, yb)
            w = w - lr / bs * (gw - sw + mu_w)          # rescale_grad = 1/batch_size
            b = b - lr / bs * (gb - sb + mu_b)
    mod = _module()
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=bs, label_name='lin_reg_label'), eval_metric='mse',
            optimizer='sgd', optimizer_params={'learning_rate': lr}, arg_params=_start(), num_epoch=epochs)
    args = mod.get_params()[0]
    np.testing.assert_allclose(args['fc1_weight'].asnumpy()[0], w, rtol=1e-5)
    np.testing.assert_allclose(args['fc1_bias'].asnumpy()[0], b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mod._param_dict[0]['fc1_weight'].asnumpy()[0], mu_w, rtol=1e-5)


def test_update_rule_on_a_hand_computed_example():
    g = [mx.nd.array([1.0, 2.0]), mx.nd.array([3.0])]
    snapshot = [mx.nd.array([0.5, -1.0]), mx.nd.array([1.0])]
    mu = [mx.nd.array([0.25, 0.25]), mx.nd.array([-2.0])]
    out = SVRGModule._svrg_grads_update_rule(g, snapshot, mu)
    assert out is g                                     # in place: the executors' own arrays
    assert out[0].asnumpy().tolist() == [0.75, 3.25]    # 1 - 0.5 + 0.25, 2 + 1 + 0.25
    assert out[1].asnumpy().tolist() == [0.0]           # 3 - 1 - 2


def test_first_step_after_a_snapshot_is_a_full_gradient_step():
    # right after update_full_grads w == w~, so g_i(w) - g_i(w~) vanishes and the step is mu's
    x, y = _toy()
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name='lin_reg_label')
    mod = _module()
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params=_start())
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1})
    mod.update_full_grads(it)
    mu = mod._param_dict[0]['fc1_weight'].asnumpy()
    it.reset()
    mod.forward_backward(next(iter(it)))
    mod.update()
    np.testing.assert_allclose(mod.get_params()[0]['fc1_weight'].asnumpy(), 0.5 - 0.1 / 4 * mu, rtol=1e-6)


# ------------------------------------------------------------------ the optimizers
def test_svrg_optimizer_routes_full_keys_to_assignment():
    opt = mx.optimizer.create('_SVRGOptimizer', default_optimizer='sgd', learning_rate=0.5, momentum=0.9,
                              param_idx2name={0: 'w', 1: 'w_full'})
    assert isinstance(opt.default_opt, mx.optimizer.SGD) and opt.default_opt.momentum == 0.9
    assert isinstance(opt.aux_opt, _AssignmentOptimizer)
    assert opt.create_state(1, mx.nd.zeros(2)) is None
    w, g = mx.nd.array([1.0, 1.0]), mx.nd.array([2.0, 4.0])
    opt.update('w_full', w, g, None)                    # a name works as well as an index
    assert w.asnumpy().tolist() == [2.0, 4.0]


def test_parameter_with_full_in_its_name_gets_an_optimizer_step():
    # MXNet 1.9.1 routes every name containing 'full' to assignment, so the default name of a
    # FullyConnected layer, 'fullyconnected0_weight', would become its own gradient
    opt = _SVRGOptimizer(default_optimizer='sgd', learning_rate=0.5,
                         param_idx2name={0: 'fullyconnected0_weight', 1: 'fullyconnected0_weight_full'})
    w = mx.nd.array([1.0, 1.0])
    opt.update(0, w, mx.nd.array([2.0, 4.0]), None)
    assert w.asnumpy().tolist() == [0.0, -1.0]


def test_kvstore_keeps_the_summed_full_gradient():
    opt = _SVRGOptimizer(default_optimizer='sgd', learning_rate=1.0,
                         param_idx2name={0: 'fc_weight', 1: 'fc_bias', 2: 'fc_weight_full', 3: 'fc_bias_full'})
    kv = mx.kv.create('local')
    kv.set_optimizer(opt)
    kv.init('fc_weight', mx.nd.zeros(2))
    kv.init('fc_weight_full', mx.nd.zeros(2))
    kv.push('fc_weight_full', [mx.nd.ones(2), mx.nd.ones(2) * 2])     # two devices' values
    out = mx.nd.zeros(2)
    kv.pull('fc_weight_full', out=out)
    assert out.asnumpy().tolist() == [3.0, 3.0]
    kv.push('fc_weight', mx.nd.ones(2))
    kv.pull('fc_weight', out=out)
    assert out.asnumpy().tolist() == [-1.0, -1.0]


@pytest.mark.filterwarnings('ignore:Parameters already initialized')
def test_two_devices_with_a_kvstore_train_as_one():
    # the devices' SVRG gradients are summed in the store, each device holding half of mu:
    # the same steps as one device on the whole batch
    x, y = _toy()
    finals = []
    for context in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = _module(context=context)
        it = mx.io.NDArrayIter(x, y, batch_size=4, label_name='lin_reg_label')
        mod.bind(it.provide_data, it.provide_label)
        mod.init_params(arg_params=_start())
        mod.init_optimizer(kvstore='local', optimizer='sgd', optimizer_params={'learning_rate': 0.1})
        # MXNet 1.9.1 pulls the zero '_full' keys into the live weights here (update on the store)
        assert mod._exec_group.param_arrays[0][-1].asnumpy().tolist() == [[0.5, 0.5]]
        mod.fit(it, eval_metric='mse', optimizer='sgd', optimizer_params={'learning_rate': 0.1}, num_epoch=3)
        finals.append(mod.get_params()[0]['fc1_weight'].asnumpy())
    np.testing.assert_allclose(finals[1], finals[0], rtol=1e-5)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize('freq,err', [(None, TypeError), (2.0, TypeError), (True, TypeError), ('2', TypeError),
                                      (0, ValueError), (-1, ValueError)])
def test_update_freq_must_be_a_positive_int(freq, err):
    with pytest.raises(SVRGError, match='update_freq') as info:
        _module(update_freq=freq)
    assert isinstance(info.value, err)                  # the class MXNet raises, too


def _bound(optimizer=True):
    x, y = _toy()
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name='lin_reg_label')
    mod = _module()
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params=_start())
    if optimizer:
        mod.init_optimizer(optimizer='sgd')
    return mod, it


def test_fit_without_data_says_so():
    with pytest.raises(SVRGError, match='train_data'):
        _module().fit(None, num_epoch=1)
    x, y = _toy()
    with pytest.raises(SVRGError, match='num_epoch'):
        _module().fit(mx.io.NDArrayIter(x, y, batch_size=4, label_name='lin_reg_label'))


def test_training_forward_before_a_snapshot_says_what_is_missing():
    mod, it = _bound()
    with pytest.raises(ModuleStateError, match='update_full_grads'):
        mod.forward_backward(next(iter(it)))
    mod.forward(next(iter(it)), is_train=False)         # inference needs no snapshot


def test_update_full_grads_needs_the_optimizer_and_data():
    mod, it = _bound(optimizer=False)
    with pytest.raises(ModuleStateError, match='init_optimizer'):
        mod.update_full_grads(it)
    mod.init_optimizer(optimizer='sgd')
    with pytest.raises(SVRGError, match='DataIter'):
        mod.update_full_grads(None)


def test_update_refuses_snapshot_gradients_of_another_batch():
    mod, it = _bound()
    mod.update_full_grads(it)
    it.reset()
    mod.forward_backward(next(iter(it)))
    mod.update_full_grads(it)           # the snapshot module's gradients are now the last batch's
    with pytest.raises(ModuleStateError, match='snapshot gradients'):
        mod.update()


def test_svrg_optimizer_errors_name_the_culprit():
    with pytest.raises(OptimizerError, match='default_optimizer'):
        _SVRGOptimizer(default_optimizer=3)
    opt = _SVRGOptimizer(default_optimizer='sgd', param_idx2name={0: 'w'})
    with pytest.raises(SVRGKeyError, match='7'):
        opt.update(7, mx.nd.zeros(1), mx.nd.zeros(1), None)
    assert isinstance(SVRGKeyError('x'), (MXNetError, KeyError))


def test_load_with_update_freq_gives_an_svrg_module(tmp_path):
    mod, it = _bound()
    prefix = str(tmp_path / 'svrg')
    mod.save_checkpoint(prefix, 1)
    again = SVRGModule.load(prefix, 1, update_freq=2, data_names=['data'], label_names=['lin_reg_label'])
    assert isinstance(again, SVRGModule) and again.update_freq == 2
    again.bind(it.provide_data, it.provide_label)
    assert again.get_params()[0]['fc1_weight'].asnumpy().tolist() == [[0.5, 0.5]]
    again.init_optimizer(optimizer='sgd')
    again.update_full_grads(it)        # the snapshot module takes the loaded weights
    mod.update_full_grads(it)
    np.testing.assert_allclose(again._param_dict[0]['fc1_weight'].asnumpy(),
                               mod._param_dict[0]['fc1_weight'].asnumpy())
    # without update_freq: a plain Module, as MXNet 1.9.1's (inherited) load gives
    assert type(SVRGModule.load(prefix, 1, data_names=['data'], label_names=['lin_reg_label'])) is mx.mod.Module
