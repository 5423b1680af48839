"""Gluon's core (Parameter, Block, HybridBlock, hybridize, export, Trainer): the same programs
under MXNet 1.9.1 (gen_gluon.py records gluon.json) and under reflib (test_gluon.py).

Every array comes from numpy (seeded RandomState), and every parameter is set from numpy
after ``initialize`` -- the two libraries' random generators differ, so random
initialisation is never compared.  Names are made inside a fresh NameManager so that the
global counters of the process do not matter.  ``folder``: a scratch directory for files.
"""

import json
import os

import numpy as np


def _v(arr):
    return np.round(arr.asnumpy().astype(np.float64), 5).tolist()


def _try(fn):
    try:
        return fn()
    except Exception as err:        # noqa: BLE001  (the case records which builtin kind was raised)
        kinds = [k.__name__ for k in type(err).__mro__ if k.__module__ == 'builtins']
        return {'error': sorted(set(kinds) & {'AssertionError', 'ValueError', 'RuntimeError', 'TypeError',
                                              'KeyError', 'UserWarning', 'IndexError'})}


def _set_params(net, seed=0, scale=0.5):
    """Every parameter of ``net`` (sorted by name) from a seeded RandomState."""
    rs = np.random.RandomState(seed)
    for name in sorted(net.collect_params().keys()):
        param = net.collect_params()[name]
        param.set_data(rs.uniform(-scale, scale, size=param.shape).astype(np.float32))


def _mlp(mx, prefix=None):
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(5, activation='relu'), nn.Dense(4, activation='tanh'), nn.Dense(3))
    return net


def names(mx):
    """Block names in nested scopes (MXNet's rules: per-scope counters, prefixes)."""
    nn, gluon = mx.gluon.nn, mx.gluon

    class Mixed(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense0 = nn.Dense(2)
                self.dense1 = nn.Dense(3, in_units=2)
                self.scale = self.params.get('scale', shape=(1,), init='ones')

        def hybrid_forward(self, F, x, scale):
            return F.broadcast_mul(self.dense1(self.dense0(x)), scale)

    with mx.name.NameManager():
        a, b = nn.Dense(2), nn.Dense(2)
        seq = _mlp(mx)
        mixed = Mixed()
        named = nn.Dense(2, prefix='mine_')
        inner = nn.Sequential()
        with inner.name_scope():
            inner.add(nn.Dense(1), _mlp(mx))
    return {
        'top': [a.name, b.name, a.prefix, seq.name],
        'seq_params': sorted(seq.collect_params().keys()),
        'mixed_params': sorted(mixed.collect_params().keys()),
        'mixed_own': sorted(mixed.params.keys()),
        'named': sorted(named.collect_params().keys()),
        'inner': sorted(inner.collect_params().keys()),
        'select': sorted(seq.collect_params('.*weight').keys()),
        'select_alt': sorted(inner.collect_params('.*dense0_bias|.*dense2_weight').keys()),
        'with_prefix': sorted(inner._collect_params_with_prefix().keys()),
        'repr_before': repr(seq),
        'param_repr': repr(seq[0].weight),
    }


def parameters(mx):
    gluon = mx.gluon
    out = {}
    p = gluon.Parameter('w', shape=(2, 3), init=mx.init.Constant(0.5))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    out['list_ctx'] = [str(c) for c in p.list_ctx()]
    out['data'] = _v(p.data(mx.cpu(1)))
    out['grad'] = _v(p.grad(mx.cpu(0)))
    p.set_data(mx.nd.ones((2, 3)) * 2)
    out['set_data'] = [_v(d) for d in p.list_data()]
    out['reduce'] = _v(p._reduce())
    out['not_on_ctx'] = _try(lambda: p.data(mx.cpu(2)))
    out['reinit_warns'] = _try(lambda: p.initialize())
    q = gluon.Parameter('q', shape=(0, 3), allow_deferred_init=True)
    q.initialize()
    out['deferred_data'] = _try(lambda: q.data())
    out['deferred_ctx'] = [str(c) for c in q.list_ctx()]
    q.shape = (4, 3)
    q._finish_deferred_init()
    out['finished_shape'] = list(q.data().shape)
    out['bad_shape'] = _try(lambda: setattr(q, 'shape', (5, 3)))
    r = gluon.Parameter('r', shape=(0, 3))
    out['no_deferred'] = _try(lambda: r.initialize())
    s = gluon.Parameter('s', shape=(2,), grad_req='null')
    s.initialize()
    out['null_grad'] = _try(lambda: s.grad())
    out['bad_req'] = _try(lambda: gluon.Parameter('t', grad_req='sometimes'))
    u = gluon.Parameter('u', shape=(2,))
    out['uninitialised'] = _try(lambda: u.data())
    d = gluon.ParameterDict('net_')
    w = d.get('weight', shape=(0, 4))
    same = d.get('weight', shape=(3, 0))
    out['merged_shape'] = [list(w.shape), same is w]
    out['get_mismatch'] = _try(lambda: d.get('weight', shape=(2, 4)))
    out['dtype_mismatch'] = _try(lambda: d.get('weight', dtype='float16'))
    c = d.get_constant('const', [[1, 2], [3, 4]])
    c.initialize()
    out['constant'] = [_v(c.data()), c.grad_req, repr(c)]
    out['constant_missing'] = _try(lambda: d.get_constant('nothing'))
    e = gluon.ParameterDict('other_')
    e.get('weight')
    out['update_clash'] = _try(lambda: d.update({'net_weight': gluon.Parameter('net_weight')}))
    d.setattr('lr_mult', 0.5)
    out['setattr'] = sorted((k, v.lr_mult) for k, v in d.items())
    out['dict_repr'] = repr(e)
    z = gluon.Parameter('z', shape=(2,))
    z.initialize(init='ones', ctx=mx.cpu(0))
    z.cast('float64')
    out['cast'] = [str(z.data().dtype), str(z.grad().dtype)]
    z.grad_req = 'null'
    out['req_null'] = _try(lambda: z.grad())
    return out


def _forward_backward(mx, net, x, train=True):
    with mx.autograd.record(train_mode=train):
        y = net(x)
        loss = (y * y).sum()
    loss.backward()
    params = net.collect_params()
    return {'y': _v(y), 'grads': {k: _v(params[k].grad()) for k in sorted(params.keys()) if params[k].grad_req != 'null'}}


def mlp_hybrid(mx):
    """A three-layer MLP: imperative, then hybridized; outputs and gradients."""
    rs = np.random.RandomState(1)
    x = mx.nd.array(rs.uniform(-1, 1, size=(4, 6)))
    out = {}
    with mx.name.NameManager():
        net = _mlp(mx)
    net.initialize()
    net(x)                          # finishes the deferred initialisation
    _set_params(net, seed=2)
    out['imperative'] = _forward_backward(mx, net, x)
    net.hybridize()
    out['hybrid'] = _forward_backward(mx, net, x)
    out['hybrid_again'] = _forward_backward(mx, net, x * 2)
    out['inference'] = _v(net(x))
    sym = net._cached_graph[1]
    out['graph'] = [(n['op'], n['name']) for n in json.loads(sym.tojson())['nodes']]
    out['arguments'] = sym.list_arguments()
    return out


def deferred(mx):
    """Shapes finished by the first forward, for nested blocks and a custom HybridBlock."""
    gluon, nn = mx.gluon, mx.gluon.nn

    class Affine(gluon.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(units, 0), allow_deferred_init=True)
                self.offset = self.params.get('offset', shape=(units,), init='zeros')
            self._units = units

        def hybrid_forward(self, F, x, weight, offset):
            return F.FullyConnected(x, weight, offset, num_hidden=self._units) * 2

    out = {}
    for hybrid in (False, True):
        with mx.name.NameManager():
            net = nn.HybridSequential()
            with net.name_scope():
                net.add(Affine(3), nn.Dense(2))
        net.initialize(mx.init.Constant(0.25))
        if hybrid:
            net.hybridize()
        y = net(mx.nd.ones((2, 5)))
        out['hybrid' if hybrid else 'imperative'] = {
            'shapes': sorted((k, list(v.shape)) for k, v in net.collect_params().items()),
            'y': _v(y)}
    with mx.name.NameManager():
        bad = nn.Dense(3, in_units=4)
    bad.initialize()
    out['bad_input'] = _try(lambda: bad(mx.nd.ones((2, 5))))
    bad.hybridize()
    out['bad_input_hybrid'] = _try(lambda: bad(mx.nd.ones((2, 5))))
    return out


def export_files(mx, folder):
    """export writes -symbol.json and -0000.params; Module and SymbolBlock load them."""
    rs = np.random.RandomState(3)
    x = mx.nd.array(rs.uniform(-1, 1, size=(2, 6)))
    with mx.name.NameManager():
        net = _mlp(mx)
    net.initialize()
    net(x)
    _set_params(net, seed=4)
    out = {'before_hybridize': _try(lambda: net.export(os.path.join(folder, 'none')))}
    net.hybridize()
    y = net(x)
    path = os.path.join(folder, 'mlp')
    net.export(path, epoch=3)
    with open(path + '-symbol.json') as f:
        graph = json.load(f)
    out['json_nodes'] = [(n['op'], n['name'], n.get('attrs', {})) for n in graph['nodes']]
    out['json_heads'] = graph['heads']
    params = mx.nd.load(path + '-0003.params')
    out['param_names'] = sorted(params)
    mod = mx.mod.Module.load(path, 3, data_names=['data'], label_names=None)
    mod.bind(data_shapes=[('data', (2, 6))], for_training=False)
    mod.forward(mx.io.DataBatch([x]), is_train=False)
    out['module'] = _v(mod.get_outputs()[0])
    out['net'] = _v(y)
    block = mx.gluon.SymbolBlock.imports(path + '-symbol.json', ['data'], path + '-0003.params')
    out['imports'] = _v(block(x))
    out['imports_params'] = sorted(block.collect_params().keys())
    return out


def save_load(mx, folder):
    """save_parameters names by attribute path; load_parameters into a fresh net (other
    global names) gives the same outputs; the legacy full-name files load too."""
    rs = np.random.RandomState(5)
    x = mx.nd.array(rs.uniform(-1, 1, size=(2, 6)))
    with mx.name.NameManager():
        net = _mlp(mx)
        other = _mlp(mx)
    net.initialize()
    net(x)
    _set_params(net, seed=6)
    path = os.path.join(folder, 'mlp.params')
    net.save_parameters(path)
    out = {'keys': sorted(mx.nd.load(path))}
    other.load_parameters(path)
    out['same'] = _v(other(x)) == _v(net(x))
    legacy = os.path.join(folder, 'legacy.params')
    net.collect_params().save(legacy, strip_prefix=net.prefix)
    out['legacy_keys'] = sorted(mx.nd.load(legacy))
    with mx.name.NameManager():
        third = _mlp(mx)
    third.load_parameters(legacy)
    out['legacy_same'] = _v(third(x)) == _v(net(x))
    with mx.name.NameManager():
        small = mx.gluon.nn.HybridSequential()
        with small.name_scope():
            small.add(mx.gluon.nn.Dense(5))
    out['extra'] = _try(lambda: small.load_parameters(path))
    small.load_parameters(path, ignore_extra=True)
    out['ignore_extra'] = list(small[0].weight.shape)
    with mx.name.NameManager():
        bigger = _mlp(mx)
        with bigger.name_scope():
            bigger.add(mx.gluon.nn.Dense(2))
    out['missing'] = _try(lambda: bigger.load_parameters(path))
    return out


def _train(mx, net, trainer, batches, ctxs, steps=3, batch_size=4):
    values = []
    for step in range(steps):
        x, y = batches[step % len(batches)]
        xs = mx.gluon.utils.split_and_load(x, ctxs) if len(ctxs) > 1 else [x.as_in_context(ctxs[0])]
        ys = mx.gluon.utils.split_and_load(y, ctxs) if len(ctxs) > 1 else [y.as_in_context(ctxs[0])]
        with mx.autograd.record():
            losses = [((net(a) - b) ** 2).sum(axis=1) for a, b in zip(xs, ys)]
        for loss in losses:
            loss.backward()
        trainer.step(batch_size)
        values.append(float(sum(loss.sum().asscalar() for loss in losses)))
    params = net.collect_params()
    return {'loss': [round(v, 4) for v in values],
            'params': {k: _v(params[k].data(ctxs[0])) for k in sorted(params.keys())}}


def trainer(mx, folder):
    rs = np.random.RandomState(7)
    batches = [(mx.nd.array(rs.uniform(-1, 1, size=(4, 6))), mx.nd.array(rs.uniform(-1, 1, size=(4, 3))))
               for _ in range(3)]
    out = {}
    setups = {
        'sgd_one_ctx': ([mx.cpu(0)], 'sgd', {'learning_rate': 0.1}, 'device', None),
        'momentum_two_ctx': ([mx.cpu(0), mx.cpu(1)], 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}, 'device',
                             None),
        'adam_local_no_kv_update': ([mx.cpu(0), mx.cpu(1)], 'adam', {'learning_rate': 0.01}, 'local', False),
        'adam_local_kv_update': ([mx.cpu(0), mx.cpu(1)], 'adam', {'learning_rate': 0.01}, 'local', True),
        'wd_no_kvstore': ([mx.cpu(0)], 'sgd', {'learning_rate': 0.1, 'wd': 0.01}, None, None),
        'momentum_teststore': ([mx.cpu(0), mx.cpu(1)], 'sgd', {'learning_rate': 0.1, 'momentum': 0.9}, 'teststore',
                               None),
    }
    for key, (ctxs, optimizer, opt_params, kvstore, on_kv) in setups.items():
        with mx.name.NameManager():
            net = _mlp(mx)
        net.initialize(ctx=ctxs)
        net(batches[0][0].as_in_context(ctxs[0]))
        _set_params(net, seed=8)
        net.collect_params()['hybridsequential0_dense2_weight'].lr_mult = 0.5
        tr = mx.gluon.Trainer(net.collect_params(), optimizer, opt_params, kvstore=kvstore,
                              update_on_kvstore=on_kv)
        out[key] = _train(mx, net, tr, batches, ctxs)
        out[key]['kvstore'] = None if tr._kvstore is None else tr._kvstore.type
        out[key]['update_on_kvstore'] = tr._update_on_kvstore
    # allreduce_grads + update == step; learning rate; stale gradients; states
    with mx.name.NameManager():
        net = _mlp(mx)
    net.initialize()
    net(batches[0][0])
    _set_params(net, seed=8)
    tr = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.5},
                          update_on_kvstore=False)
    x, y = batches[0]
    with mx.autograd.record():
        loss = ((net(x) - y) ** 2).sum()
    loss.backward()
    tr.allreduce_grads()
    tr.update(4)
    out['split_step'] = _v(net[0].weight.data())
    out['stale'] = _try(lambda: tr.step(4))
    tr.step(4, ignore_stale_grad=True)
    out['ignored_stale'] = _v(net[0].weight.data())
    tr.set_learning_rate(0.05)
    out['learning_rate'] = tr.learning_rate
    with mx.autograd.record():
        loss = ((net(x) - y) ** 2).sum()
    loss.backward()
    tr.step(4)
    states = os.path.join(folder, 'trainer.states')
    tr.save_states(states)
    with mx.autograd.record():
        loss = ((net(x) - y) ** 2).sum()
    loss.backward()
    saved = {k: p.data().copy() for k, p in net.collect_params().items()}
    tr.step(4)
    after = _v(net[0].weight.data())
    for k, p in net.collect_params().items():
        p.set_data(saved[k])
    tr2 = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.3, 'momentum': 0.5},
                           update_on_kvstore=False)
    tr2.load_states(states)
    with mx.autograd.record():
        loss = ((net(x) - y) ** 2).sum()
    loss.backward()
    tr2.step(4)
    out['states_resume'] = [after, _v(net[0].weight.data()), tr2.learning_rate]
    out['bad_params'] = _try(lambda: mx.gluon.Trainer([1, 2], 'sgd'))
    return out


def linear_regression(mx):
    """The readers' Gluon linear regression (seed notes 004): ArrayDataset + DataLoader
    (shuffled by numpy's global generator, seeded), Sequential + Dense(1), L2Loss, Trainer
    sgd 0.03, step(batch_size); and the same with loss.mean() + step(1)."""
    gluon, nn = mx.gluon, mx.gluon.nn
    rs = np.random.RandomState(10)
    true_w, true_b = [2, -3.4], 4.2
    feats = rs.normal(size=(1000, 2)).astype(np.float32)
    labs = (true_w[0] * feats[:, 0] + true_w[1] * feats[:, 1] + true_b
            + rs.normal(size=1000)).astype(np.float32)
    features, labels = mx.nd.array(feats), mx.nd.array(labs)
    out = {}
    for mean in (False, True):
        np.random.seed(11)
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(features, labels), 10, shuffle=True)
        net = nn.Sequential()
        net.add(nn.Dense(1))
        net.initialize(mx.init.Normal(sigma=0.01))
        net(features[:1])
        net[0].weight.set_data(mx.nd.array([[0.01, -0.02]]))
        loss = gluon.loss.L2Loss()
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.03})
        epochs = []
        for _ in range(3):
            for x, y in loader:
                with mx.autograd.record():
                    l = loss(net(x), y)
                    if mean:
                        l = l.mean()
                l.backward()
                trainer.step(1 if mean else 10)
            epochs.append(round(float(loss(net(features), labels).mean().asscalar()), 4))
        out['mean' if mean else 'sum'] = {'loss': epochs, 'w': _v(net[0].weight.data()), 'b': _v(net[0].bias.data())}
    return out


def summation_order(mx):
    """x feeds x*1, x*1e8 and x*-1e8, recorded in one order and added in another: in float32
    the gradient of x is 1 or 0 depending on the order its three parts are summed in.  MXNet
    sums them in the forward order of the expression, imperative and hybridized alike."""
    scale = {'a': 1.0, 'b': 1e8, 'c': -1e8}

    class Three(mx.gluon.HybridBlock):
        def __init__(self, created, combined):
            super().__init__()
            self.created, self.combined = created, combined

        def hybrid_forward(self, F, x):
            part = {k: x * scale[k] for k in self.created}
            return (part[self.combined[0]] + part[self.combined[1]]) + part[self.combined[2]]

    out = {}
    for created in ('abc', 'bca'):
        for combined in ('abc', 'bca', 'cab'):
            row = []
            for hybrid in (False, True):
                x = mx.nd.ones((1,))
                x.attach_grad()
                block = Three(created, combined)
                if hybrid:
                    block.hybridize()
                with mx.autograd.record():
                    y = block(x)
                y.backward()
                row.append(float(x.grad.asscalar()))
            out['%s_%s' % (created, combined)] = row
    return out


def cast_dtype(mx, folder):
    """ParameterDict.load with cast_dtype: the parameter's dtype wins ('current'), or the
    file's does ('saved'), also for parameters that already hold arrays (and gradients)."""
    path = os.path.join(folder, 'typed.params')
    saved = mx.gluon.ParameterDict('')
    saved.get('w0', shape=(3, 2), dtype='float32')
    saved.get('w1', shape=(3, 2), dtype='int8')
    saved.initialize(mx.init.One())
    saved.save(path)
    params = mx.gluon.ParameterDict('')
    params.get('w0', shape=(3, 2), dtype='float16')
    params.get('w1', shape=(3, 2), dtype='float64')
    out = {'refused': _try(lambda: params.load(path))}

    def dtypes():
        return [[str(np.dtype(params[k].data().dtype)), str(np.dtype(params[k].grad().dtype)),
                 _v(params[k].data())] for k in ('w0', 'w1')]
    params.load(path, cast_dtype=True, dtype_source='current')
    out['current'] = dtypes()
    params.load(path, cast_dtype=True, dtype_source='saved')
    out['saved'] = dtypes()
    return out


CASES = {
    'summation_order': lambda mx, folder: summation_order(mx),
    'names': lambda mx, folder: names(mx),
    'parameters': lambda mx, folder: parameters(mx),
    'mlp_hybrid': lambda mx, folder: mlp_hybrid(mx),
    'deferred': lambda mx, folder: deferred(mx),
    'export': export_files,
    'save_load': save_load,
    'cast_dtype': cast_dtype,
    'trainer': trainer,
    'linear_regression': lambda mx, folder: linear_regression(mx),
}


def run(mx, folder):
    return {name: case(mx, folder) for name, case in CASES.items()}
