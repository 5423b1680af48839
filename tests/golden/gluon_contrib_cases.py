"""gluon.contrib.nn's and gluon.contrib.cnn's layers and the reset_arrays operator: the same
programs under MXNet 1.9.1
(gen_gluon_contrib.py records gluon_contrib.json) and under reflib (test_gluon_contrib.py).

Each layer case builds one layer (in a fresh NameManager) from ``make(mx)``, once run
imperatively and once hybridized.  Each run records the printed form before and after the
first forward, runs one forward to finish deferred initialisation, sets every parameter from
a seeded numpy RandomState (the libraries' random initialisers differ), then records a
training forward and backward with a given head gradient: the output, the input's gradient,
every parameter's gradient (and its storage type), the parameters without one afterwards
(the running statistics), the parameters' names, shapes, grad_req and dtype, and -- where
``graph`` is asked for -- the hybridized graph's (name, op) pairs.  ``predict`` adds a
prediction-mode forward.

``collect(mx)`` returns the records with numpy arrays; ``run(mx)`` the same rounded to 5
decimals, JSON-ready (nn_layers_cases' ``encode``).
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nn_layers_cases import _param_values, encode  # noqa: E402


def _error(err):
    """The builtin kinds an exception is (the messages differ between the libraries)."""
    kinds = {k.__name__ for k in type(err).__mro__ if k.__module__ == 'builtins'}
    known = {'AssertionError', 'ValueError', 'TypeError', 'KeyError', 'RuntimeError'}
    return {'error': sorted(kinds & known)}


def _err(fn):
    try:
        return fn()
    except Exception as err:        # noqa: BLE001  (the case records which kind was raised)
        return _error(err)


def _np(arr):
    if arr.stype != 'default':
        arr = arr.tostype('default')
    return arr.asnumpy().astype(np.float64)


def _graph(net):
    nodes = json.loads(net._cached_graph[1].tojson())['nodes']
    return [[node['name'], node['op']] for node in nodes]


def _layer(mx, make, x, seed, hybrid, x_grad=True, predict=False, graph=False, trainer=False):
    """One run of the layer ``make(mx)`` on ``x`` (a numpy array); see the module docstring.
    ``trainer``: make a Trainer over the parameters first (a row_sparse one needs it)."""
    with mx.name.NameManager():
        net = make(mx)
    rec = {'repr_before': repr(net)}
    net.initialize()
    if trainer:
        mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    if hybrid:
        with warnings.catch_warnings():     # (Concurrent, a Sequential, advises HybridSequential)
            warnings.simplefilter('ignore')
            net.hybridize()
    data = mx.nd.array(x)
    net(data)                                   # deferred initialisation (prediction mode)
    rs = np.random.RandomState(seed)
    params = net.collect_params()
    for name in sorted(params.keys()):
        params[name].set_data(mx.nd.array(_param_values(rs, name, params[name].shape)))
    if x_grad:
        data.attach_grad()
    with mx.autograd.record():
        out = net(data)
    out.backward(mx.nd.array(rs.uniform(-1, 1, size=out.shape)))
    rec['out'] = _np(out)
    if x_grad:
        rec['x_grad'] = _np(data.grad)
    rec['grads'] = {n: _np(p.grad()) for n, p in params.items() if p.grad_req != 'null'}
    rec['grad_stypes'] = {n: p.grad().stype for n, p in params.items() if p.grad_req != 'null'}
    rec['after'] = {n: _np(p.data()) for n, p in params.items() if p.grad_req == 'null'}
    rec['params'] = [[n, list(p.shape), p.grad_req, np.dtype(p.dtype).name, p._stype]
                     for n, p in params.items()]
    rec['repr'] = repr(net)
    if predict:
        rec['predict'] = _np(net(data))
    if hybrid and graph:
        rec['graph'] = _graph(net)
    return rec


def _concurrent(axis, hybrid_container=True):
    """Three branches: on the last axis of widths 3, 2 and the input's; on another axis, all
    three keep the input's shape (the join needs the other axes to agree)."""
    def make(mx):
        cnn, nn = mx.gluon.contrib.nn, mx.gluon.nn
        net = (cnn.HybridConcurrent if hybrid_container else cnn.Concurrent)(axis=axis)
        with net.name_scope():
            if axis == -1:
                net.add(nn.Dense(3, flatten=False), nn.Dense(2, activation='tanh', flatten=False),
                        cnn.Identity())
            else:
                net.add(nn.Dense(3, flatten=False), nn.Activation('tanh'), cnn.Identity())
        return net
    return make


def _concurrent_nested(mx):
    """A residual-style block: a HybridSequential holding a HybridConcurrent and a Dense."""
    cnn, nn = mx.gluon.contrib.nn, mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        branch = cnn.HybridConcurrent(axis=1)
        with branch.name_scope():
            branch.add(nn.Dense(2), cnn.Identity())
        net.add(branch, nn.Dense(3, in_units=6))
    return net


def _sync_bn(key, **kwargs):
    # each case its own prefix: MXNet keeps per-key state (sized by the first call) across layers,
    # so two layers of different widths under one key break each other there
    return lambda mx: mx.gluon.contrib.nn.SyncBatchNorm(num_devices=1, prefix=key + '_', **kwargs)


# name -> (make(mx), input shape or ('ints', bound, shape), options)
LAYERS = {
    'hybrid_concurrent_last_axis': (_concurrent(-1), (2, 2, 3), {'graph': True}),
    'hybrid_concurrent_axis1': (_concurrent(1), (2, 2, 3), {'graph': True}),
    'hybrid_concurrent_axis0': (_concurrent(0), (1, 2, 3), {}),
    'concurrent_last_axis': (_concurrent(-1, hybrid_container=False), (2, 2, 3), {}),
    'concurrent_axis1': (_concurrent(1, hybrid_container=False), (1, 2, 3), {}),
    'hybrid_concurrent_nested': (_concurrent_nested, (2, 4), {'graph': True}),
    'sync_batchnorm': (_sync_bn('sync_batchnorm'), (4, 3, 2, 2), {'predict': True, 'graph': True}),
    'sync_batchnorm_2d_data': (_sync_bn('sync_batchnorm_2d_data', in_channels=2), (5, 2), {'predict': True}),
    'sync_batchnorm_fixed_gamma': (_sync_bn('sync_batchnorm_fixed_gamma', momentum=0.8, epsilon=1e-3,
                                            scale=False, center=False), (3, 3, 4), {'predict': True}),
    'sync_batchnorm_global_stats': (_sync_bn('sync_batchnorm_global_stats', use_global_stats=True,
                                             in_channels=2), (2, 2, 3), {'predict': True}),
    'sync_batchnorm_5d': (_sync_bn('sync_batchnorm_5d'), (2, 2, 1, 3, 2), {}),
    'pixel_shuffle1d': (lambda mx: mx.gluon.contrib.nn.PixelShuffle1D(3), (1, 6, 3), {}),
    'pixel_shuffle2d_pair': (lambda mx: mx.gluon.contrib.nn.PixelShuffle2D((2, 3)), (1, 12, 2, 2), {}),
    'pixel_shuffle2d_one_factor': (lambda mx: mx.gluon.contrib.nn.PixelShuffle2D(2), (2, 4, 2, 3), {}),
    'pixel_shuffle3d_triple': (lambda mx: mx.gluon.contrib.nn.PixelShuffle3D((2, 1, 3)), (1, 6, 2, 2, 2), {}),
    'pixel_shuffle3d_one_factor': (lambda mx: mx.gluon.contrib.nn.PixelShuffle3D(2), (1, 8, 1, 2, 2), {}),
    'sparse_embedding': (lambda mx: mx.gluon.contrib.nn.SparseEmbedding(7, 3), ('ints', 7, (2, 3)),
                         {'x_grad': False, 'trainer': True}),
    'sparse_embedding_no_trainer': (lambda mx: mx.gluon.contrib.nn.SparseEmbedding(4, 2), ('ints', 4, (3,)),
                                    {'x_grad': False}),
    'deformable_conv': (lambda mx: mx.gluon.contrib.cnn.DeformableConvolution(4, kernel_size=3, padding=1,
                                                                              in_channels=3),
                        (2, 3, 5, 6), {'graph': True}),
    'deformable_conv_groups': (lambda mx: mx.gluon.contrib.cnn.DeformableConvolution(
        4, kernel_size=(3, 2), strides=2, dilation=(1, 2), groups=2, num_deformable_group=2, activation='relu',
        use_bias=False, offset_use_bias=False), (1, 4, 7, 6), {}),
}

# a hybridized Identity alone: MXNet's cached graph returns a new array that autograd does not
# track (backward through it fails), so only the forward is compared there
IDENTITY_SHAPE = (2, 3)


def _identity(mx, hybrid):
    with mx.name.NameManager():
        net = mx.gluon.contrib.nn.Identity()
    net.initialize()
    if hybrid:
        net.hybridize()
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(IDENTITY_SHAPE))
    rec = {'repr': repr(net), 'params': list(net.collect_params().keys())}
    out = net(x)
    rec['out'] = _np(out)
    rec['same_object_predict'] = out is x
    return rec


def _sync_bn_statistics(mx):
    """When the running statistics move: not on a training forward alone (MXNet's CPU kernel
    updates them in backward), and by ``momentum`` after forward and backward."""
    rs = np.random.RandomState(3)
    x = mx.nd.array(rs.normal(size=(4, 2, 3)).astype(np.float32))
    with mx.name.NameManager():
        net = mx.gluon.contrib.nn.SyncBatchNorm(num_devices=1, momentum=0.7, prefix='statistics_')
    net.initialize()
    found = {}
    with mx.autograd.record():
        y = net(x)
    found['after_forward'] = [_np(net.running_mean.data()), _np(net.running_var.data())]
    y.backward()
    found['after_backward'] = [_np(net.running_mean.data()), _np(net.running_var.data())]
    found['names'] = list(net.collect_params().keys())
    return found


def _sync_bn_defaults(mx):
    """num_devices left out: a UserWarning, and one device on a machine without GPUs."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with mx.name.NameManager():
            net = mx.gluon.contrib.nn.SyncBatchNorm(prefix='defaults_')
    kinds = {w.category.__name__ for w in caught if not issubclass(w.category, DeprecationWarning)}
    return {'warnings': sorted(kinds),
            'ndev': net._kwargs['ndev'], 'key': net._kwargs['key'], 'repr': repr(net)}


def _sparse_embedding_params(mx):
    """The weight is row_sparse, its gradient too; data() is refused, and row_sparse_data
    until a Trainer holds the parameter."""
    with mx.name.NameManager():
        net = mx.gluon.contrib.nn.SparseEmbedding(5, 2)
    net.initialize()
    idx = mx.nd.array([1, 3])
    found = {'stype': net.weight._stype, 'grad_stype': net.weight._grad_stype,
             'data': _err(lambda: net.weight.data() and 'returned'),
             'rows_without_trainer': _err(lambda: net.weight.row_sparse_data(idx).stype), 'repr': repr(net)}
    mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    found['rows'] = net.weight.row_sparse_data(idx).stype
    return found


def _errors(mx):
    """Factors the pixel shuffles refuse (the number of them must match the axes)."""
    cnn = mx.gluon.contrib.nn
    return {
        'pixel_shuffle1d_tuple': _err(lambda: cnn.PixelShuffle1D((2,)) and 'built'),
        'pixel_shuffle2d_three': _err(lambda: cnn.PixelShuffle2D((1, 2, 3)) and 'built'),
        'pixel_shuffle3d_two': _err(lambda: cnn.PixelShuffle3D((1, 2)) and 'built'),
        'pixel_shuffle2d_channels_not_divisible': _err(
            lambda: cnn.PixelShuffle2D(2)(mx.nd.ones((1, 6, 2, 2))).asnumpy() and 'ran'),
    }


def _reprs(mx):
    cnn = mx.gluon.contrib.nn
    with mx.name.NameManager():
        return {'p1': repr(cnn.PixelShuffle1D(2)), 'p2': repr(cnn.PixelShuffle2D(2)),
                'p3': repr(cnn.PixelShuffle3D((1, 2, 3))), 'identity': repr(cnn.Identity()),
                'empty_concurrent': repr(cnn.HybridConcurrent()),
                'namespace': sorted(n for n in dir(cnn) if not n.startswith('_') and n[0].isupper())}


# ------------------------------------------------------------------ reset_arrays
def _reset(mx, arrays, **kwargs):
    """reset_arrays on ``arrays`` (made by the caller); what it returns and what they hold."""
    try:
        got = mx.nd.reset_arrays(*arrays, **kwargs)
        values = [_np(a) for a in arrays]        # (MXNet reports a failed kernel here)
    except Exception as err:                  # noqa: BLE001
        return _error(err)
    return {'returned': [_np(r) for r in got] if isinstance(got, list) else 'not a list',
            'values': values, 'dtypes': [np.dtype(a.dtype).name for a in arrays],
            'stypes': [a.stype for a in arrays]}


def _reset_arrays(mx):
    rs = np.random.RandomState(5)
    dense = lambda shape, dtype='float32': mx.nd.array(rs.normal(size=shape), dtype=dtype)   # noqa: E731
    base = mx.nd.ones((3, 2))
    view = base[1:2]
    found = {
        'three_dtypes': _reset(mx, [dense((2, 3)), dense((4,), 'float64'), dense((1, 2, 2), 'float16')],
                               num_arrays=3),
        'none': _reset(mx, [], num_arrays=0),
        'nan_inf': _reset(mx, [mx.nd.array([np.nan, np.inf, -np.inf])], num_arrays=1),
        'int32': _reset(mx, [mx.nd.ones((2,), dtype='int32')], num_arrays=1),
        'uint8': _reset(mx, [mx.nd.ones((2,), dtype='uint8')], num_arrays=1),
        'too_few_arrays': _reset(mx, [dense((2,))], num_arrays=2),
        'too_many_arrays': _reset(mx, [dense((2,)), dense((2,))], num_arrays=1),
        'row_sparse': _reset(mx, [mx.nd.ones((3, 2)).tostype('row_sparse'), dense((2,))], num_arrays=2),
        'csr': _reset(mx, [mx.nd.ones((2, 3)).tostype('csr')], num_arrays=1),
    }
    mx.nd.reset_arrays(view, num_arrays=1)
    found['view_zeroes_its_part'] = _np(base)
    rsp = mx.nd.ones((3, 2)).tostype('row_sparse')
    mx.nd.reset_arrays(rsp, num_arrays=1)
    found['row_sparse_rows_left'] = int(rsp.indices.shape[0])
    return found


def _modulated(mx, hybrid):
    """ModulatedDeformableConvolution forward only: MXNet 1.9.1 has no CPU backward for it
    (reflib's gradient is checked by finite differences in test_op_boxes.py)."""
    rs = np.random.RandomState(40)
    with mx.name.NameManager():
        net = mx.gluon.contrib.cnn.ModulatedDeformableConvolution(4, kernel_size=3, padding=1, strides=(1, 2),
                                                                  num_deformable_group=2, activation='tanh')
    rec = {'repr_before': repr(net)}
    net.initialize()
    if hybrid:
        net.hybridize()
    data = mx.nd.array(rs.normal(size=(2, 4, 5, 6)).astype(np.float32))
    net(data)
    params = net.collect_params()
    for name in sorted(params.keys()):
        params[name].set_data(mx.nd.array(_param_values(rs, name, params[name].shape)))
    with mx.autograd.record():
        rec['train'] = _np(net(data))
    rec['predict'] = _np(net(data))
    rec['params'] = [[n, list(p.shape)] for n, p in params.items()]
    rec['repr'] = repr(net)
    return rec


SPECIAL = {
    'modulated_deformable_conv': lambda mx: {'imperative': _modulated(mx, False), 'hybrid': _modulated(mx, True)},
    'identity': lambda mx: {'imperative': _identity(mx, False), 'hybrid': _identity(mx, True)},
    'sync_batchnorm_statistics': _sync_bn_statistics,
    'sync_batchnorm_defaults': _sync_bn_defaults,
    'sparse_embedding_params': _sparse_embedding_params,
    'errors': _errors,
    'reprs': _reprs,
    'reset_arrays': _reset_arrays,
}


def _both(mx, make, shape, seed, opts):
    rs = np.random.RandomState(seed)
    if shape[0] == 'ints':
        x = rs.randint(0, shape[1], size=shape[2]).astype(np.float32)
    else:
        x = rs.normal(size=shape).astype(np.float32)
    return {'imperative': _err(lambda: _layer(mx, make, x, seed, False, **opts)),
            'hybrid': _err(lambda: _layer(mx, make, x, seed, True, **opts))}


def collect(mx, names=None):
    """Every case (or those in ``names``) with numpy arrays in the records."""
    found = {}
    for seed, (name, (make, shape, opts)) in enumerate(sorted(LAYERS.items())):
        if names is None or name in names:
            found[name] = _both(mx, make, shape, seed, opts)
    for name, fn in sorted(SPECIAL.items()):
        if names is None or name in names:
            found[name] = fn(mx)
    return found


def run(mx):
    """Every case, JSON-ready."""
    return encode(collect(mx))
