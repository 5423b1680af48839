"""SVRGModule (mx.contrib.svrg_optimization) training a tiny linear regression from fixed weights:
the same calls under MXNet 1.9.1 (gen_svrg.py records svrg.json) and under reflib
(test_svrg.py).  Each case records, after every epoch, the weights and the full gradients mu
(per device) as [shape, dtype, rounded values]."""

import importlib

import numpy as np


def _arr(a):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    return [list(a.shape), np.dtype(a.dtype).name, np.round(a.astype(np.float64), 5).tolist()]


def _data():
    # 10 samples with batch_size 4: the last batch is padded by 2, which update_full_grads
    # counts as half a batch
    x = (np.arange(20, dtype=np.float32).reshape(10, 2) % 7) / 4
    y = x.dot(np.array([1.0, -2.0], dtype=np.float32)) + 0.5
    return x, y.astype(np.float32)


def _net(mx):
    fc = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=1, name='fc1')
    return mx.sym.LinearRegressionOutput(fc, label=mx.sym.Variable('lin_reg_label'), name='lro')


def _start(mx):
    return {'fc1_weight': mx.nd.array([[0.3, -0.2]]), 'fc1_bias': mx.nd.array([0.1])}


def _module(mx, update_freq, context=None):
    # (MXNet's mx.contrib does not import svrg_optimization itself)
    from_mx = importlib.import_module(mx.__name__ + '.contrib.svrg_optimization.svrg_module')
    kwargs = {} if context is None else {'context': context}
    return from_mx.SVRGModule(_net(mx), data_names=['data'], label_names=['lin_reg_label'],
                              update_freq=update_freq, **kwargs)


def _iter(mx, batch_size=4):
    x, y = _data()
    return mx.io.NDArrayIter(x, y, batch_size=batch_size, label_name='lin_reg_label')


def _fit(mx, update_freq, num_epoch, optimizer='sgd', optimizer_params=(('learning_rate', 0.05),),
         context=None, kvstore='local'):
    mod = _module(mx, update_freq, context)
    record = []

    def at_epoch_end(epoch, symbol, arg_params, aux_params):
        record.append({'epoch': epoch,
                       'weights': {k: _arr(v) for k, v in sorted(arg_params.items())},
                       'full_grads': [{k: _arr(v) for k, v in sorted(d.items())} for d in mod._param_dict]})

    mod.fit(_iter(mx), eval_metric='mse', optimizer=optimizer, optimizer_params=optimizer_params,
            arg_params=_start(mx), num_epoch=num_epoch, kvstore=kvstore, epoch_end_callback=at_epoch_end)
    return record


def _full_grads_twice(mx):
    """Two update_full_grads passes in a row, no step between: the second starts its sum from
    the first's result (MXNet 1.9.1's behaviour)."""
    mod = _module(mx, 1)
    it = _iter(mx)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params=_start(mx))
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.05})
    out = []
    for _ in range(2):
        mod.update_full_grads(it)
        out.append({k: _arr(v) for k, v in sorted(mod._param_dict[0].items())})
    return out


def _one_step(mx):
    """One hand-driven step: forward_backward and update after a full-gradient pass, plus the
    gradients it stepped along."""
    mod = _module(mx, 1)
    it = _iter(mx)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params=_start(mx))
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.05})
    mod.update_full_grads(it)
    it.reset()
    batch = next(iter(it))
    mod.forward_backward(batch)
    mod.update()
    return {'svrg_grads': [_arr(g[0]) for g in mod._exec_group.grad_arrays],
            'weights': {k: _arr(v) for k, v in sorted(mod.get_params()[0].items())}}


def run(mx):
    return {
        'fit sgd update_freq=1': _fit(mx, 1, 3),
        'fit sgd update_freq=2': _fit(mx, 2, 3),
        'fit sgd momentum wd update_freq=2': _fit(mx, 2, 3, optimizer_params={'learning_rate': 0.05,
                                                                              'momentum': 0.9, 'wd': 0.01}),
        'fit adam update_freq=1': _fit(mx, 1, 2, optimizer='adam', optimizer_params={'learning_rate': 0.01}),
        'fit two devices, no kvstore': _fit(mx, 1, 2, context=[mx.cpu(0), mx.cpu(1)], kvstore=None),
        'update_full_grads twice': _full_grads_twice(mx),
        'one step': _one_step(mx),
    }
