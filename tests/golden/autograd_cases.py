"""mx.autograd: the same programs under MXNet 1.9.1 (gen_autograd.py records autograd.json) and
under reflib (test_autograd.py).  Each case gives a JSON-able value, 'error' where the library
refuses (the exception's type is not compared: MXNet's are all MXNetError).  Random numbers
come from numpy, so that both libraries see the same values."""

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _v(arr):
    return np.round(arr.asnumpy().astype(np.float64), 5).tolist()


def _grad_of(mx, values, build, head=None, req='write'):
    """x from ``values``, attach_grad, record ``build(x)``, backward; x.grad."""
    x = mx.nd.array(values)
    x.attach_grad(grad_req=req)
    with mx.autograd.record():
        y = build(x)
    y.backward(None if head is None else mx.nd.array(head))
    return {'y': _v(y), 'grad': _v(x.grad)}


def _twice(mx, retain):
    x = mx.nd.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    y.backward(retain_graph=retain)
    y.backward()
    return _v(x.grad)


def _accumulate(mx):
    x = mx.nd.array([1., 2.])
    x.attach_grad(grad_req='add')
    for _ in range(3):
        with mx.autograd.record():
            y = (x * x).sum()
        y.backward()
    return _v(x.grad)


def _states(mx):
    ag, seen = mx.autograd, []
    seen.append((ag.is_recording(), ag.is_training()))
    with ag.record():
        seen.append((ag.is_recording(), ag.is_training()))
        with ag.pause():
            seen.append((ag.is_recording(), ag.is_training()))
        with ag.predict_mode():
            seen.append((ag.is_recording(), ag.is_training()))
    with ag.record(train_mode=False):
        seen.append((ag.is_recording(), ag.is_training()))
    with ag.train_mode():
        seen.append((ag.is_recording(), ag.is_training()))
    seen.append((ag.set_recording(True), ag.set_recording(False), ag.set_training(True), ag.set_training(False)))
    return [list(flags) for flags in seen]


def _detach_and_pause(mx):
    a = mx.nd.array([[1., 2.], [3., 4.]])
    a.attach_grad()
    with mx.autograd.record():
        b = a * 2
        c = (b.detach() * a).sum()
    c.backward()
    detached = _v(a.grad)
    with mx.autograd.record():
        b = a * 2
        with mx.autograd.pause():
            d = b * 10
        e = (b + d).sum()
    e.backward()
    return {'detach': detached, 'pause': _v(a.grad)}


def _grad_function(mx):
    a = mx.nd.array([[1., 2.], [3., 4.]])
    a.attach_grad()
    a.grad[:] = 5
    with mx.autograd.record():
        h = a * a
    g = mx.autograd.grad(h, [a], head_grads=mx.nd.ones((2, 2)) * 2)
    return {'grad': _v(g[0]), 'untouched .grad': _v(a.grad)}


def _function(mx):
    class Sigmoid(mx.autograd.Function):
        def forward(self, x):
            y = 1 / (1 + mx.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)
    return _grad_of(mx, [[1., 2.], [-3., 0.]], lambda x: Sigmoid()(x) * 3)


def _mark_variables(mx):
    v, buffer = mx.nd.array([1., 2.]), mx.nd.zeros((2,))
    mx.autograd.mark_variables([v], [buffer])
    with mx.autograd.record():
        q = v * v * v
    q.backward()
    after_backward = _v(buffer)
    v.grad[:] = 9              # v.grad is the buffer's memory
    return {'buffer': after_backward, 'written through v.grad': _v(buffer)}


def _unreached(mx):
    u, w = mx.nd.array([1., 2.]), mx.nd.array([5., 5.])
    u.attach_grad()
    w.attach_grad()
    w.grad[:] = 7
    with mx.autograd.record():
        r = u * 2
    r.backward()
    return {'u': _v(u.grad), 'w (not reached)': _v(w.grad)}


def _multi_head(mx):
    x = mx.nd.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y1, y2 = x * 2, x * x
    mx.autograd.backward([y1, y2], [mx.nd.ones((3,)), mx.nd.array([1., 0., 2.])])
    return _v(x.grad)


def _write_in_graph(mx, what):
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3
        if what == 'variable':
            x[:] = 1
        elif what == 'result +=':
            y += 1
        elif what == 'out=':
            mx.nd.relu(x, out=y)
    return 'written'


def _write_after(mx):
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3
    y[:] = 1                   # outside record: allowed
    return _v(y)


def _layers(mx):
    rng = np.random.RandomState(3)
    data = mx.nd.array(rng.randn(4, 3))
    weight, bias = mx.nd.array(rng.randn(5, 3)), mx.nd.array(rng.randn(5))
    gamma, beta = mx.nd.array(rng.rand(5) + 0.5), mx.nd.array(rng.randn(5))
    mean, var = mx.nd.zeros((5,)), mx.nd.ones((5,))
    label = mx.nd.array([0, 4, 2, 1])
    for p in (data, weight, bias, gamma, beta):
        p.attach_grad()
    with mx.autograd.record():
        h = mx.nd.FullyConnected(data, weight, bias, num_hidden=5)
        h = mx.nd.BatchNorm(h, gamma, beta, mean, var, fix_gamma=False)
        h = mx.nd.Activation(h, act_type='tanh')
        out = mx.nd.SoftmaxOutput(h, label)
    out.backward()
    return {'out': _v(out), 'moving mean': _v(mean), 'moving var': _v(var),
            'grads': [_v(p.grad) for p in (data, weight, bias, gamma, beta)]}


def _convolution(mx):
    rng = np.random.RandomState(4)
    x, w = mx.nd.array(rng.randn(2, 1, 5, 5)), mx.nd.array(rng.randn(3, 1, 3, 3))
    x.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True, pad=(1, 1))
        z = mx.nd.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type='max').sum()
    z.backward()
    return {'z': _v(z), 'dx': _v(x.grad), 'dw': _v(w.grad)}


def _embedding(mx):
    weight = mx.nd.array(np.arange(12).reshape(4, 3))
    weight.attach_grad()
    with mx.autograd.record():
        e = mx.nd.Embedding(mx.nd.array([[1, 3], [1, 1]]), weight, input_dim=4, output_dim=3)
        s = (e * mx.nd.array([1., 2., 3.])).sum()
    s.backward()
    return _v(weight.grad)


def _dropout_modes(mx):
    x = mx.nd.ones((4, 4))
    x.attach_grad()
    with mx.autograd.record(train_mode=False):
        kept = mx.nd.Dropout(x, p=0.5)
    with mx.autograd.record():
        dropped = mx.nd.Dropout(x, p=0.5)
    dropped.backward()
    values = sorted(set(np.round(dropped.asnumpy().ravel(), 5).tolist()))
    # the mask is random; its values and the gradient's pattern are not
    return {'inference': _v(kept), 'training values': values,
            'grad equals output': bool(np.array_equal(x.grad.asnumpy(), dropped.asnumpy()))}


def _linear_regression(mx):
    """The readers' notes' script: nd + autograd, hand-written SGD (same data, same start)."""
    rng = np.random.RandomState(0)
    features = mx.nd.array(rng.normal(size=(200, 2)))
    labels = 2 * features[:, 0] - 3.4 * features[:, 1] + 4.2
    labels += mx.nd.array(rng.normal(scale=0.01, size=labels.shape))
    w, b = mx.nd.array(rng.normal(scale=0.01, size=(2, 1))), mx.nd.zeros((1,))
    w.attach_grad()
    b.attach_grad()

    def linreg(x):
        return mx.nd.dot(x, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
    losses = []
    for _ in range(3):
        for i in range(0, 200, 10):
            j = mx.nd.array(np.arange(i, i + 10))
            x, y = features.take(j), labels.take(j)
            with mx.autograd.record():
                loss = squared_loss(linreg(x), y)
            loss.backward()
            for param in (w, b):
                param[:] = param - 0.03 * param.grad / 10
        # (5 digits: the float32 mean of 200 numbers may differ in the last bit)
        losses.append(round(float(squared_loss(linreg(features), labels).mean().asscalar()), 5))
    return {'w': _v(w), 'b': _v(b), 'losses': losses}


def _get_symbol(mx):
    import json
    x, z, c = mx.nd.ones((1,)), mx.nd.ones((1,)), mx.nd.ones((1,))
    x.attach_grad()
    z.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * z - 1 + c
    graph = mx.autograd.get_symbol(y)
    # MXNet numbers the names with counters of the whole process (var175, node_399): compare
    # the names without their numbers, and the graph itself
    bare = ''.maketrans('', '', '0123456789')
    nodes = [[n['op'], n['name'].translate(bare), n.get('attrs', {}), n['inputs']]
             for n in json.loads(graph.tojson())['nodes']]
    return {'arguments': [a.translate(bare) for a in graph.list_arguments()],
            'outputs': [o.translate(bare) for o in graph.list_outputs()], 'nodes': nodes}


def _get_symbol_of_hybridized(mx):
    """A hybridized block's call in get_symbol: written out operator by operator up to
    inline_limit operators, else one _CachedOp node (compared without the process-wide
    numbers in the names, as above; the variables' numbers also follow each library's own
    order of marking, so only which inputs each operator reads is compared)."""
    import json
    bare = ''.maketrans('', '', '0123456789')
    found = {}
    for limit in (3, 2, 0):
        net = mx.gluon.nn.HybridSequential(prefix='h_')
        with net.name_scope():
            for _ in range(3):
                net.add(mx.gluon.nn.Dense(4, in_units=4))
        net.initialize()
        net.hybridize(inline_limit=limit)
        with mx.autograd.record():
            y = net(mx.nd.ones((1, 4)))
        graph = mx.autograd.get_symbol(y)
        nodes = json.loads(graph.tojson())['nodes']
        found[str(limit)] = {
            'nodes': [[n['op'], n['name'].translate(bare), n.get('attrs', {}),
                       [nodes[i[0]]['op'] for i in n['inputs']]] for n in nodes],
            'arguments': sorted(a.translate(bare) for a in graph.list_arguments()),
            'outputs': [o.translate(bare) for o in graph.list_outputs()]}
        y.backward()
    return found


def run(mx):
    nd = mx.nd
    cases = {
        'x*x + 2x': lambda: _grad_of(mx, [1., 2., 3.], lambda x: x * x + 2 * x),
        'head gradient': lambda: _grad_of(mx, [1., 2., 3.], lambda x: x * x, head=[1., 0.5, 2.]),
        'scalars both sides': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: (1 / x - x / 2 + 3 - x) % 5),
        'power and rpower': lambda: _grad_of(mx, [0.5, 1.5], lambda x: x ** 3 + 2 ** x),
        'comparison': lambda: _grad_of(mx, [1., 2., 3.], lambda x: (x > 1.5) * x),
        'slice': lambda: _grad_of(mx, [[1., 2.], [3., 4.], [5., 6.]], lambda x: x[1:3] * 3),
        'int index': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: x[1] * 3),
        'int and slice': lambda: _grad_of(mx, [[1., 2., 3.], [4., 5., 6.]], lambda x: x[1, 0:2] * x[0, 1:3]),
        'take rows': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: x[nd.array([1, 1, 0])] * 2),
        'reshape': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: x.reshape((4,)) * nd.array([1, 2, 3, 4])),
        'T': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: x.T * nd.array([[1, 2], [3, 4]])),
        'sum axis then square': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: nd.sum(x, axis=1) ** 2),
        'methods': lambda: _grad_of(mx, [[1., 2.], [3., 4.]], lambda x: x.exp().log().sqrt().sum(axis=0) * x.mean()),
        'astype float64': lambda: _grad_of(mx, [[1., 2.]], lambda x: x.astype('float64') * 2),
        'copy and negative': lambda: _grad_of(mx, [1., -2.], lambda x: -x.copy() * x),
        'dot and broadcast': lambda: _grad_of(mx, [[1., 2.], [3., 4.]],
                                              lambda x: nd.broadcast_add(nd.dot(x, x), nd.array([[1.], [2.]]))),
        'softmax': lambda: _grad_of(mx, [[1., 2., 0.], [0., -1., 3.]], lambda x: nd.softmax(x), head=[[1, 2, 3], [3, 2, 1]]),
        'where': lambda: _grad_of(mx, [1., 2., 3.], lambda x: nd.where(x > 1.5, x * 2, x * 10)),
        'used twice': lambda: _grad_of(mx, [1., 2.], lambda x: x * x * x),
        'grad_req add': lambda: _accumulate(mx),
        'backward twice': lambda: _try(lambda: _twice(mx, False)),
        'backward twice, retain_graph': lambda: _twice(mx, True),
        'not recorded': lambda: _try(lambda: nd.array([1., 2.]).backward()),
        'recording and training states': lambda: _states(mx),
        'detach and pause': lambda: _detach_and_pause(mx),
        'autograd.grad': lambda: _grad_function(mx),
        'Function': lambda: _function(mx),
        'mark_variables': lambda: _mark_variables(mx),
        'a variable not reached': lambda: _unreached(mx),
        'two heads': lambda: _multi_head(mx),
        'write into a variable while recording': lambda: _try(lambda: _write_in_graph(mx, 'variable')),
        'write into a result while recording': lambda: _try(lambda: _write_in_graph(mx, 'result +=')),
        'out= a result while recording': lambda: _try(lambda: _write_in_graph(mx, 'out=')),
        'write into a result afterwards': lambda: _write_after(mx),
        'FullyConnected BatchNorm tanh SoftmaxOutput': lambda: _layers(mx),
        'Convolution and Pooling': lambda: _convolution(mx),
        'Embedding': lambda: _embedding(mx),
        'Dropout follows train_mode': lambda: _dropout_modes(mx),
        "the readers' linear regression": lambda: _linear_regression(mx),
        'get_symbol': lambda: _get_symbol(mx),
        'get_symbol of hybridized calls': lambda: _get_symbol_of_hybridized(mx),
    }
    return {k: fn() for k, fn in cases.items()}
