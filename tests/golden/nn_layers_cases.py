"""gluon.nn's layers: the same programs under MXNet 1.9.1 (gen_nn_layers.py records
nn_layers.json) and under reflib (test_gluon_nn.py).

Each layer case builds one layer (inside a fresh NameManager, so the process's name
counters do not matter) twice: once run imperatively, once hybridized.  Each time it
records the printed form and the parameters' shapes before the first forward (unknown
dimensions as 0), runs one forward to finish deferred initialisation, sets every
parameter from a seeded numpy RandomState (the libraries' random generators differ, so
random initialisation is never compared), then records a training forward and backward
with a given head gradient: the output, the input's gradient, every parameter's gradient,
the parameters without a gradient after (BatchNorm's running statistics move), the parameters' names,
shapes, grad_req and dtype, the printed form, and -- hybridized -- the graph's nodes
(name, op) from ``net._cached_graph[1].tojson()``.  BatchNorm cases also record a
prediction-mode forward.

``collect(mx)`` returns the records with numpy arrays (test_gluon_nn.py compares the
imperative and hybridized runs of reflib exactly); ``run(mx)`` the same rounded to 5
decimals, JSON-ready.
"""

import json
import warnings

import numpy as np


def _err(fn):
    """``fn()``, or which builtin kind of error it raised (the messages differ)."""
    try:
        return fn()
    except Exception as err:        # noqa: BLE001  (the case records which builtin kind was raised)
        kinds = [k.__name__ for k in type(err).__mro__ if k.__module__ == 'builtins']
        return {'error': sorted(set(kinds) & {'AssertionError', 'ValueError', 'TypeError', 'KeyError'})}


def _np(arr):
    if arr.stype != 'default':
        arr = arr.tostype('default')
    return arr.asnumpy().astype(np.float64)


def _param_values(rs, name, shape):
    """Test values for one parameter: variances and scales positive, the rest around 0."""
    if name.endswith(('running_var', 'gamma')):
        return rs.uniform(0.5, 1.5, size=shape).astype(np.float32)
    if name.endswith('alpha'):
        return rs.uniform(0.05, 0.5, size=shape).astype(np.float32)
    return rs.uniform(-0.5, 0.5, size=shape).astype(np.float32)


def _params(net):
    return [[name, list(p.shape), p.grad_req, np.dtype(p.dtype).name] for name, p in net.collect_params().items()]


def _graph(net):
    nodes = json.loads(net._cached_graph[1].tojson())['nodes']
    return [[node['name'], node['op']] for node in nodes]


def _layer(mx, make, x, seed, hybrid, x_grad=True, predict=False):
    """One run of the layer ``make(nn)`` on ``x`` (a numpy array); see the module docstring."""
    nn = mx.gluon.nn
    with mx.name.NameManager():
        net = make(nn)
    rec = {'repr_before': repr(net), 'shapes_before': [[n, list(p.shape)] for n, p in net.collect_params().items()]}
    net.initialize()
    if hybrid:
        with warnings.catch_warnings():     # (a Sequential of HybridBlocks advises HybridSequential)
            warnings.simplefilter('ignore')
            net.hybridize()
    data = mx.nd.array(x)
    net(data)                                   # deferred initialisation (prediction mode: stats untouched)
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
    rec['params'] = _params(net)
    rec['repr'] = repr(net)
    if predict:
        rec['predict'] = _np(net(data))
    if hybrid and isinstance(net, mx.gluon.HybridBlock):
        rec['graph'] = _graph(net)
    return rec


def _both(mx, make, shape, seed, ints=None, **opts):
    """The layer imperative and hybridized; ``ints``: integer inputs below that bound."""
    rs = np.random.RandomState(seed)
    x = rs.randint(0, ints, size=shape).astype(np.float32) if ints else rs.normal(size=shape).astype(np.float32)
    return {'imperative': _err(lambda: _layer(mx, make, x, seed, False, **opts)),
            'hybrid': _err(lambda: _layer(mx, make, x, seed, True, **opts))}


# name -> (make(nn), input shape, options)
LAYERS = {
    # convolutions
    'conv1d_relu': (lambda nn: nn.Conv1D(4, 3, strides=2, padding=1, activation='relu'), (2, 3, 7), {}),
    'conv2d_groups_dilated': (lambda nn: nn.Conv2D(4, (3, 2), strides=(2, 1), padding=(1, 0), dilation=(1, 2),
                                                   groups=2), (1, 4, 5, 6), {}),
    'conv2d_no_bias_tanh': (lambda nn: nn.Conv2D(3, 3, use_bias=False, in_channels=2, activation='tanh'),
                            (2, 2, 4, 5), {}),
    'conv3d': (lambda nn: nn.Conv3D(2, 2, padding=1), (1, 2, 3, 2, 2), {}),
    'conv1d_transpose': (lambda nn: nn.Conv1DTranspose(3, 3, strides=2, padding=1, output_padding=1),
                         (2, 2, 5), {}),
    'conv2d_transpose_groups': (lambda nn: nn.Conv2DTranspose(4, 3, strides=2, padding=1, output_padding=(1, 0),
                                                              groups=2, in_channels=4), (1, 4, 3, 3), {}),
    'conv2d_transpose_deferred': (lambda nn: nn.Conv2DTranspose(2, (2, 3), strides=(1, 2)), (1, 3, 3, 3), {}),
    'conv3d_transpose': (lambda nn: nn.Conv3DTranspose(2, 2, strides=2), (1, 2, 2, 2, 1), {}),
    # pooling
    'maxpool1d': (lambda nn: nn.MaxPool1D(3, 2, 1), (2, 2, 7), {}),
    'maxpool2d_ceil': (lambda nn: nn.MaxPool2D((2, 3), strides=(2, 1), padding=(1, 1), ceil_mode=True),
                       (2, 2, 5, 5), {}),
    'maxpool3d': (lambda nn: nn.MaxPool3D(), (1, 2, 4, 4, 5), {}),
    'avgpool1d_exclude_pad': (lambda nn: nn.AvgPool1D(3, 2, 1, count_include_pad=False), (2, 2, 7), {}),
    'avgpool2d_ceil': (lambda nn: nn.AvgPool2D(3, 2, 1, ceil_mode=True), (2, 2, 6, 6), {}),
    'avgpool2d_default': (lambda nn: nn.AvgPool2D(), (1, 2, 4, 5), {}),
    'avgpool3d_exclude_pad': (lambda nn: nn.AvgPool3D(2, padding=1, count_include_pad=False), (1, 2, 3, 3, 2), {}),
    'global_maxpool1d': (lambda nn: nn.GlobalMaxPool1D(), (2, 3, 5), {}),
    'global_maxpool2d': (lambda nn: nn.GlobalMaxPool2D(), (2, 3, 4, 3), {}),
    'global_maxpool3d': (lambda nn: nn.GlobalMaxPool3D(), (1, 2, 2, 3, 2), {}),
    'global_avgpool1d': (lambda nn: nn.GlobalAvgPool1D(), (2, 3, 5), {}),
    'global_avgpool2d': (lambda nn: nn.GlobalAvgPool2D(), (2, 3, 4, 3), {}),
    'global_avgpool3d': (lambda nn: nn.GlobalAvgPool3D(), (1, 2, 2, 3, 2), {}),
    'reflection_pad2d': (lambda nn: nn.ReflectionPad2D(2), (1, 2, 4, 5), {}),
    'reflection_pad2d_widths': (lambda nn: nn.ReflectionPad2D((0, 0, 0, 0, 1, 2, 0, 1)), (1, 1, 3, 4), {}),
    # normalisation
    'batchnorm': (lambda nn: nn.BatchNorm(), (2, 3, 3, 2), {'predict': True}),
    'batchnorm_last_axis_fixed': (lambda nn: nn.BatchNorm(axis=-1, momentum=0.8, epsilon=1e-3, center=False,
                                                          scale=False), (3, 2, 4), {'predict': True}),
    'batchnorm_global_stats': (lambda nn: nn.BatchNorm(use_global_stats=True, in_channels=3), (2, 3, 4),
                               {'predict': True}),
    'batchnorm_relu': (lambda nn: nn.BatchNormReLU(), (2, 3, 2, 3), {'predict': True}),
    'instancenorm': (lambda nn: nn.InstanceNorm(), (2, 3, 5), {}),
    'instancenorm_axis2_scaled': (lambda nn: nn.InstanceNorm(axis=2, scale=True, center=False), (2, 3, 3, 2), {}),
    'layernorm': (lambda nn: nn.LayerNorm(), (2, 3, 4), {}),
    'layernorm_axis1': (lambda nn: nn.LayerNorm(axis=1, center=False, epsilon=1e-3), (2, 3, 4), {}),
    'groupnorm': (lambda nn: nn.GroupNorm(num_groups=2), (2, 4, 3, 2), {}),
    'groupnorm_unscaled': (lambda nn: nn.GroupNorm(num_groups=3, scale=False), (2, 6, 3), {}),
    # the rest of basic_layers
    'dense_deferred_relu': (lambda nn: nn.Dense(3, activation='relu'), (2, 4), {}),
    'dense_no_flatten': (lambda nn: nn.Dense(2, flatten=False, use_bias=False, in_units=3), (2, 4, 3), {}),
    'embedding': (lambda nn: nn.Embedding(10, 4), ('ints', 10, (2, 3)), {'x_grad': False}),
    'embedding_sparse_grad': (lambda nn: nn.Embedding(8, 3, sparse_grad=True), ('ints', 8, (4,)),
                              {'x_grad': False}),
    'flatten': (lambda nn: nn.Flatten(), (2, 3, 2), {}),
    'lambda_name': (lambda nn: nn.Lambda('tanh'), (2, 3), {}),
    'lambda_function': (lambda nn: nn.Lambda(lambda x: x.relu() * 0.9 + x * 0.1), (2, 3), {}),
    'hybrid_lambda_name': (lambda nn: nn.HybridLambda('tanh'), (2, 3), {}),
    'hybrid_lambda_function': (lambda nn: nn.HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.1)), (2, 3), {}),
    'dropout_zero': (lambda nn: nn.Dropout(0.0), (2, 3), {}),
    # activations
    'activation_softrelu': (lambda nn: nn.Activation('softrelu'), (2, 3), {}),
    'leaky_relu': (lambda nn: nn.LeakyReLU(0.1), (2, 5), {}),
    'prelu': (lambda nn: nn.PReLU(), (2, 5), {}),
    'prelu_channels': (lambda nn: nn.PReLU(in_channels=3), (2, 3, 4), {}),
    'elu': (lambda nn: nn.ELU(0.5), (2, 5), {}),
    'selu': (lambda nn: nn.SELU(), (2, 5), {}),
    'swish': (lambda nn: nn.Swish(beta=2.0), (2, 5), {}),
    'gelu': (lambda nn: nn.GELU(), (2, 5), {}),
}


def _small_cnn(nn):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(),
                nn.Conv2D(2, 1, activation='relu'), nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(3))
    return net


def _small_seq(nn):
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation='tanh'), nn.LayerNorm(), nn.Dense(2))
    return net


LAYERS['hybrid_sequential_cnn'] = (_small_cnn, (2, 2, 4, 4), {'predict': True})
LAYERS['sequential_mlp'] = (_small_seq, (3, 5), {})


def _dropout_train(mx, hybrid):
    """Dropout while training: random, so only what must hold whatever the draw."""
    nn = mx.gluon.nn
    rs = np.random.RandomState(7)
    x = mx.nd.array(rs.uniform(1, 2, size=(4, 50, 3)))     # no zeros among the inputs
    head = mx.nd.array(rs.uniform(1, 2, size=(4, 50, 3)))
    found = {}
    for name, rate, axes in (('plain', 0.5, ()), ('shared_axis1', 0.3, (1,))):
        with mx.name.NameManager():
            net = nn.Dropout(rate, axes=axes)
        if hybrid:
            net.hybridize()
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward(head)
        y, g, xs, hs = y.asnumpy(), x.grad.asnumpy(), x.asnumpy(), head.asnumpy()
        kept = y != 0
        scale = 1 / (1 - rate)
        found[name] = {
            'kept_scaled': bool(np.allclose(y[kept], xs[kept] * scale, rtol=1e-6)),
            'grad_follows_mask': bool(np.allclose(g, np.where(kept, hs * scale, 0), rtol=1e-6)),
            'some_dropped_some_kept': bool(kept.any() and not kept.all()),
            'mask_shared_on_axes': bool((kept == kept[:, :1, :]).all()) if axes else None,
            'predict_is_identity': bool((net(x).asnumpy() == xs).all()),
            'repr': repr(net),
        }
        with mx.autograd.record(train_mode=False):
            y = net(x)
        y.backward(head)
        found[name]['predict_grad_is_head'] = bool(np.allclose(x.grad.asnumpy(), hs))
        if hybrid:
            found[name]['graph'] = _graph(net)
    return found


def _prelu_initial(mx):
    """PReLU's own initializer (0.25, or the one given) and that its shape is not deferred."""
    nn = mx.gluon.nn
    with mx.name.NameManager():
        default, given = nn.PReLU(), nn.PReLU(alpha_initializer=mx.init.Constant(0.1), in_channels=3)
    for net in (default, given):
        net.initialize()
    return {'default': default.alpha.data().asnumpy().tolist(), 'given': given.alpha.data().asnumpy().tolist(),
            'names': [default.alpha.name, given.alpha.name]}


def _initializers(mx):
    """The layers' own initializers (no random draw involved): biases zero, BatchNorm's ones
    and zeros, LayerNorm/GroupNorm/InstanceNorm gamma one."""
    nn = mx.gluon.nn
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(2, 1, in_channels=1), nn.BatchNorm(in_channels=2), nn.LayerNorm(in_channels=3),
                    nn.InstanceNorm(in_channels=2, scale=True), nn.GroupNorm(2), nn.Dense(2, in_units=2),
                    nn.Conv2DTranspose(2, 1, in_channels=2, bias_initializer='ones'))
    net.initialize(mx.init.Zero())
    return {name: p.data().asnumpy().tolist() for name, p in net.collect_params().items()}


def _batchnorm_cast(mx):
    """A float16 BatchNorm keeps float32 parameters (its neighbours go to float16)."""
    nn = mx.gluon.nn
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(2, in_units=3), nn.BatchNorm(in_channels=2))
    net.cast('float16')
    return [[name, np.dtype(p.dtype).name] for name, p in net.collect_params().items()]


def _errors(mx):
    """Arguments the layers refuse."""
    nn = mx.gluon.nn
    return {
        'leaky_relu_negative': _err(lambda: nn.LeakyReLU(-0.1) and 'built'),
        'lambda_unknown_name': _err(lambda: nn.Lambda('no_such_op') and 'built'),
        'lambda_not_callable': _err(lambda: nn.Lambda(3) and 'built'),
        'hybrid_lambda_unknown_name': _err(lambda: nn.HybridLambda('no_such_op') and 'built'),
        'conv1d_nwc': _err(lambda: nn.Conv1D(2, 3, layout='NWC') and 'built'),
        'conv2d_kernel_of_3': _err(lambda: nn.Conv2D(2, (1, 2, 3)) and 'built'),
        'conv2d_transpose_output_padding_of_1': _err(lambda: nn.Conv2DTranspose(2, 3, output_padding=(1,)) and
                                                     'built'),
        'maxpool2d_ncw': _err(lambda: nn.MaxPool2D(layout='NCW') and 'built'),
        'maxpool2d_size_of_3': _err(lambda: nn.MaxPool2D((2, 2, 2)) and 'built'),
        'global_avgpool3d_nchw': _err(lambda: nn.GlobalAvgPool3D(layout='NCHW') and 'built'),
        'reflection_pad_4': _err(lambda: nn.ReflectionPad2D((1, 1, 1, 1)) and 'built'),
    }


SPECIAL = {
    'dropout_train': lambda mx: {'imperative': _dropout_train(mx, False), 'hybrid': _dropout_train(mx, True)},
    'prelu_initial': _prelu_initial,
    'initializers': _initializers,
    'batchnorm_cast_float16': _batchnorm_cast,
    'errors': _errors,
}


def collect(mx, names=None):
    """Every case (or those in ``names``) with numpy arrays in the records."""
    found = {}
    for seed, (name, (make, shape, opts)) in enumerate(sorted(LAYERS.items())):
        if names is None or name in names:
            if shape[0] == 'ints':
                found[name] = _both(mx, make, shape[2], seed, ints=shape[1], **opts)
            else:
                found[name] = _both(mx, make, shape, seed, **opts)
    for name, fn in sorted(SPECIAL.items()):
        if names is None or name in names:
            found[name] = fn(mx)
    return found


def encode(value):
    """JSON-ready: arrays as nested lists rounded to 5 decimals."""
    if isinstance(value, np.ndarray):
        return np.round(value, 5).tolist()
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def run(mx):
    return encode(collect(mx))


def compact(record):
    """The record with each hybridized run stored as what differs from its imperative run
    (``hybrid_changes``; in MXNet the graph, mostly): the golden file half the size."""
    out = {}
    for case, value in record.items():
        eager, hybrid = (value.get('imperative'), value.get('hybrid')) if isinstance(value, dict) else (None, None)
        if isinstance(eager, dict) and isinstance(hybrid, dict) and 'error' not in eager and 'error' not in hybrid \
                and set(eager) <= set(hybrid):
            value = {'imperative': eager, 'hybrid_changes': {k: v for k, v in hybrid.items() if eager.get(k) != v}}
        out[case] = value
    return out


def expand(record):
    """The inverse of :func:`compact`."""
    out = {}
    for case, value in record.items():
        if isinstance(value, dict) and 'hybrid_changes' in value:
            value = {'imperative': value['imperative'], 'hybrid': dict(value['imperative'], **value['hybrid_changes'])}
        out[case] = value
    return out
