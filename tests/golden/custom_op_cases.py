"""Operators written in Python (mx.operator.CustomOp): the same programs under MXNet 1.9.1
(gen_custom_op.py records custom_op.json) and under reflib (test_custom_op.py), on the default context (gpu(0) in reflib's device runs).

Each case gives a JSON-able value, 'error' where the library refuses (the exception's type is
not compared).  Random numbers come from numpy, so both libraries see the same values.  The
operators are defined inside ``define(mx)`` because each library has its own registry.
"""

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _v(arr):
    return np.round(arr.asnumpy().astype(np.float64), 5).tolist()


# what the Props were handed, and how often create_operator ran: filled in as the cases run
SEEN = {}


def define(mx):
    """Register the test operators with ``mx``; returns nothing (the registry keeps them)."""

    # ---- softmax as in MXNet's example/numpy-ops: a loss head (no head gradient)
    class Softmax(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
            y /= y.sum(axis=1).reshape((x.shape[0], 1))
            self.assign(out_data[0], req[0], mx.nd.array(y))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().ravel().astype(np.int64)
            y = out_data[0].asnumpy()
            y[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y))

    @mx.operator.register('case_softmax')
    class SoftmaxProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(SoftmaxProp, self).__init__(need_top_grad=False)

        def list_arguments(self):
            return ['data', 'label']

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            SEEN.setdefault('softmax create_operator', []).append(
                [ctx == mx.current_context(), shapes, [int(d) for d in dtypes]])
            return Softmax()

    # ---- y = scale * x * x, with a keyword parameter and a head gradient
    class Square(mx.operator.CustomOp):
        def __init__(self, scale):
            super(Square, self).__init__()
            self.scale = scale

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], self.scale * in_data[0] * in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], 2 * self.scale * in_data[0] * out_grad[0])

    @mx.operator.register('case_square')
    class SquareProp(mx.operator.CustomOpProp):
        def __init__(self, scale='1'):
            super(SquareProp, self).__init__(need_top_grad=True)
            self.scale = float(scale)

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return [out_grad[0], in_data[0]]

        def create_operator(self, ctx, shapes, dtypes):
            SEEN['square creations'] = SEEN.get('square creations', 0) + 1
            return Square(self.scale)

    # ---- y = a * b * b, with the default declarations (for check_numeric_gradient)
    class MulSquare(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[1] * in_data[1])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            a, b, g = in_data[0], in_data[1], out_grad[0]
            self.assign(in_grad[0], req[0], g * b * b)
            self.assign(in_grad[1], req[1], 2 * g * a * b)

    @mx.operator.register('case_mul_square')
    class MulSquareProp(mx.operator.CustomOpProp):
        def list_arguments(self):
            return ['a', 'b']

        def create_operator(self, ctx, shapes, dtypes):
            return MulSquare()

    # ---- the keywords a Prop is handed
    @mx.operator.register('case_kwargs')
    class KwargsProp(mx.operator.CustomOpProp):
        def __init__(self, **kwargs):
            super(KwargsProp, self).__init__()
            SEEN['kwargs'] = sorted([k, type(v).__name__, v] for k, v in kwargs.items())

        def create_operator(self, ctx, shapes, dtypes):
            return Square(1.0)

    # ---- an auxiliary state: a running mean of the input, updated in training forward
    class RunningMean(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            if is_train:
                aux[0][:] = 0.5 * aux[0] + 0.5 * in_data[0].mean(axis=0)
            self.assign(out_data[0], req[0], mx.nd.broadcast_sub(in_data[0], aux[0].reshape((1, -1))))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0])

    @mx.operator.register('case_running_mean')
    class RunningMeanProp(mx.operator.CustomOpProp):
        def list_auxiliary_states(self):
            return ['mean']

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], [(in_shape[0][1],)]

        def create_operator(self, ctx, shapes, dtypes):
            return RunningMean()

    # ---- two inputs, two outputs, a dtype rule: (a + b, a * b) in float64
    class SumProd(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            a, b = in_data[0].astype('float64'), in_data[1].astype('float64')
            self.assign(out_data[0], req[0], a + b)
            self.assign(out_data[1], req[1], a * b)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            a, b = in_data[0].astype('float64'), in_data[1].astype('float64')
            g0, g1 = out_grad[0], out_grad[1]
            self.assign(in_grad[0], req[0], (g0 + g1 * b).astype(in_grad[0].dtype))
            self.assign(in_grad[1], req[1], (g0 + g1 * a).astype(in_grad[1].dtype))

    @mx.operator.register('case_sum_prod')
    class SumProdProp(mx.operator.CustomOpProp):
        def list_arguments(self):
            return ['a', 'b']

        def list_outputs(self):
            return ['sum', 'prod']

        def infer_shape(self, in_shape):
            return [in_shape[0], in_shape[0]], [in_shape[0], in_shape[0]]

        def infer_type(self, in_type):
            return [in_type[0], in_type[0]], [np.float64, np.float64], []

        def create_operator(self, ctx, shapes, dtypes):
            return SumProd()

    # ---- a forward that fails
    class Broken(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            raise ValueError('broken on purpose')

    @mx.operator.register('case_broken')
    class BrokenProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Broken()

    # ---- no inputs: a constant block of ones
    class Ones(mx.operator.CustomOp):
        def __init__(self, shape):
            super(Ones, self).__init__()
            self.shape = shape

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], mx.nd.ones(self.shape))

    @mx.operator.register('case_ones')
    class OnesProp(mx.operator.CustomOpProp):
        def __init__(self, rows, cols):
            super(OnesProp, self).__init__()
            self.shape = (int(rows), int(cols))

        def list_arguments(self):
            return []

        def infer_shape(self, in_shape):
            return [], [self.shape], []

        def infer_type(self, in_type):
            return [], [np.float32], []

        def create_operator(self, ctx, shapes, dtypes):
            return Ones(self.shape)


def _data(seed, *shape):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def _train(mx, head):
    """A small classifier trained three SGD steps in a Module; its parameters."""
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=6, name='fc1')
    act = mx.sym.Activation(fc1, act_type='tanh', name='act')
    fc2 = mx.sym.FullyConnected(act, num_hidden=3, name='fc2')
    if head == 'custom':
        net = mx.sym.Custom(fc2, name='softmax', op_type='case_softmax')
    else:
        net = mx.sym.SoftmaxOutput(fc2, name='softmax')
    x = _data(1, 12, 5)
    y = np.random.RandomState(2).randint(0, 3, 12).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name='softmax_label')
    mod = mx.mod.Module(net, label_names=['softmax_label'], context=mx.current_context())
    mod.bind(it.provide_data, it.provide_label)
    arg = {'fc1_weight': _data(3, 6, 5), 'fc1_bias': np.zeros(6, np.float32),
           'fc2_weight': _data(4, 3, 6), 'fc2_bias': np.zeros(3, np.float32)}
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in arg.items()})
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.5})
    outs = []
    for batch in it:
        mod.forward(batch, is_train=True)
        outs.append(_v(mod.get_outputs()[0]))
        mod.backward()
        mod.update()
    params = mod.get_params()[0]
    return {'params': {k: _v(params[k]) for k in sorted(params)}, 'outputs': outs}


def _softmax_module(mx):
    SEEN.pop('softmax create_operator', None)
    custom, builtin = _train(mx, 'custom'), _train(mx, 'builtin')
    # what create_operator is handed (MXNet's Module calls it twice on bind, reflib once)
    return {'custom': custom, 'builtin': builtin, 'create_operator': SEEN['softmax create_operator'][0]}


def _aux_states(mx):
    x = mx.sym.var('x')
    net = mx.sym.Custom(x, op_type='case_running_mean', name='rm')
    exe = net.simple_bind(mx.current_context(), x=(4, 3))
    exe.aux_dict['rm_mean'][:] = 0
    seen = {'aux names': net.list_auxiliary_states(), 'arguments': net.list_arguments(),
            'shapes': net.infer_shape(x=(4, 3))}
    for k in range(2):
        exe.forward(is_train=True, x=mx.nd.array(_data(10 + k, 4, 3)))
        exe.backward(mx.nd.ones((4, 3)))
    seen['train out'] = _v(exe.outputs[0])
    seen['mean'] = _v(exe.aux_dict['rm_mean'])
    seen['grad'] = _v(exe.grad_dict['x'])
    exe.forward(is_train=False, x=mx.nd.array(_data(12, 4, 3)))
    seen['test out'] = _v(exe.outputs[0])
    seen['mean after test'] = _v(exe.aux_dict['rm_mean'])
    return seen


def _req_add(mx):
    x = mx.sym.var('x')
    net = mx.sym.Custom(x, op_type='case_square', scale=3, name='sq')
    SEEN['square creations'] = 0
    exe = net.simple_bind(mx.current_context(), x=(2, 3), grad_req='add')
    exe.grad_dict['x'][:] = 1
    for k in range(3):
        exe.forward(is_train=True, x=mx.nd.array(_data(20 + k, 2, 3)))
        exe.backward(mx.nd.array(_data(30 + k, 2, 3)))
    return {'grad': _v(exe.grad_dict['x']), 'out': _v(exe.outputs[0]),
            'creations': SEEN['square creations']}


def _partial_shapes(mx):
    data, label = mx.sym.var('data'), mx.sym.var('label')
    net = mx.sym.Custom(data, label, op_type='case_softmax', name='sm')
    seen = {}
    seen['from data'] = net.infer_shape(data=(4, 3))
    seen['partial from data'] = net.infer_shape_partial(data=(4, 3))
    seen['partial from label'] = _try(lambda: net.infer_shape_partial(label=(4,)))
    seen['nothing known'] = _try(lambda: net.infer_shape_partial())
    fc = mx.sym.FullyConnected(data, num_hidden=5, name='fc')
    after = mx.sym.Custom(fc, op_type='case_square', name='sq')
    seen['after fc'] = after.infer_shape_partial(data=(2, 7))
    seen['after fc, nothing'] = after.infer_shape_partial()
    return seen


def _types(mx):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    net = mx.sym.Custom(a, b, op_type='case_sum_prod', name='sp')
    seen = {'outputs': net.list_outputs(), 'arguments': net.list_arguments()}
    _, out_types, _ = net.infer_type(a='float32')
    seen['types'] = [np.dtype(t).name for t in out_types]
    exe = net.simple_bind(mx.current_context(), a=(2, 2), b=(2, 2))
    exe.forward(is_train=True, a=mx.nd.array(_data(40, 2, 2)), b=mx.nd.array(_data(41, 2, 2)))
    exe.backward([mx.nd.ones((2, 2), dtype='float64'), mx.nd.array(_data(42, 2, 2), dtype='float64')])
    seen['out'] = [_v(o) for o in exe.outputs]
    seen['out dtypes'] = [np.dtype(o.dtype).name for o in exe.outputs]
    seen['grads'] = [_v(exe.grad_dict['a']), _v(exe.grad_dict['b'])]
    return seen


def _json_round_trip(mx):
    x = mx.sym.var('x')
    with mx.name.NameManager():        # fresh automatic names (relu0), whatever ran before
        net = mx.sym.Custom(mx.sym.relu(x), op_type='case_square', scale=0.5, name='sq') + 1
    text = net.tojson()
    back = mx.sym.load_json(text)
    value = _data(50, 2, 2)
    outs = [_v(s.eval(ctx=mx.current_context(), x=mx.nd.array(value))[0]) for s in (net, back)]
    nodes = [{k: n.get(k) for k in ('op', 'name', 'attrs')} for n in __import__('json').loads(text)['nodes']]
    return {'nodes': nodes, 'same json': back.tojson() == text, 'outputs': outs,
            'arguments': back.list_arguments()}


def _kwargs(mx):
    SEEN.pop('kwargs', None)
    mx.sym.Custom(mx.sym.var('x'), op_type='case_kwargs', scale=2, rate=0.5, shape=(1, 2), flag=True,
                  text='hi', name='kw')
    symbolic = SEEN.pop('kwargs', None)
    mx.nd.Custom(mx.nd.ones((2,)), op_type='case_kwargs', scale=2, shape=(3,))
    return {'symbolic': symbolic, 'imperative': SEEN.pop('kwargs', None)}


def _autograd(mx):
    x = mx.nd.array(_data(60, 2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type='case_square', scale=2)
        z = (y * x).sum()
    z.backward()
    seen = {'y': _v(y), 'grad': _v(x.grad)}
    a, b = mx.nd.array(_data(61, 2, 2)), mx.nd.array(_data(62, 2, 2))
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        s, p = mx.nd.Custom(a, b, op_type='case_sum_prod')
        loss = (s * 2 + p).sum()
    loss.backward()
    seen['sum prod'] = [_v(s), _v(p), _v(a.grad), _v(b.grad)]
    # a loss head under autograd: its backward ignores the head gradient
    data, label = mx.nd.array(_data(63, 4, 3)), mx.nd.array([0, 2, 1, 1])
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.Custom(data, label, op_type='case_softmax')
    out.backward()
    seen['softmax'] = [_v(out), _v(data.grad)]
    return seen


def _hybrid(mx):
    gluon = mx.gluon

    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(Net, self).__init__(**kwargs)
            with self.name_scope():
                self.dense = gluon.nn.Dense(4, in_units=3)

        def hybrid_forward(self, F, x):
            return F.Custom(self.dense(x), op_type='case_square', scale=2)

    seen = {}
    for hybridize in (False, True):
        net = Net(prefix='net_')
        net.initialize(mx.init.Constant(0.1))
        net.dense.weight.set_data(mx.nd.array(_data(70, 4, 3)))
        if hybridize:
            net.hybridize()
        x = mx.nd.array(_data(71, 2, 3))
        with mx.autograd.record():
            y = net(x)
            loss = (y * y).sum()
        loss.backward()
        seen['hybridized' if hybridize else 'imperative'] = {
            'y': _v(y), 'weight grad': _v(net.dense.weight.grad()), 'bias grad': _v(net.dense.bias.grad())}
    return seen


def _numeric_gradient(mx):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    net = mx.sym.Custom(a, b, op_type='case_mul_square', name='ms')

    def check(dtype):
        mx.test_utils.check_numeric_gradient(net, [_data(80, 3, 4).astype(dtype), _data(81, 3, 4).astype(dtype)],
                                             numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
        return 'ok'
    return {'float32': _try(lambda: check(np.float32)), 'float64': _try(lambda: check(np.float64))}


def _errors(mx):
    x = mx.nd.ones((2, 2))

    def broken_nd():
        mx.nd.Custom(x, op_type='case_broken').asnumpy()
        return 'ran'

    def broken_sym():
        exe = mx.sym.Custom(mx.sym.var('x'), op_type='case_broken', name='bad').bind(mx.current_context(), {'x': x})
        exe.forward()[0].asnumpy()
        return 'ran'
    return {'forward raises (nd)': _try(broken_nd), 'forward raises (executor)': _try(broken_sym),
            'unregistered op_type': _try(lambda: mx.sym.Custom(mx.sym.var('x'), op_type='no_such_op_anywhere')),
            'unregistered op_type (nd)': _try(lambda: mx.nd.Custom(x, op_type='no_such_op_anywhere')),
            }


def _no_inputs(mx):
    out = mx.nd.Custom(op_type='case_ones', rows=2, cols=3)
    net = mx.sym.Custom(op_type='case_ones', rows=1, cols=2, name='ones')
    return {'nd': _v(out), 'dtype': np.dtype(out.dtype).name, 'arguments': net.list_arguments(),
            'shapes': net.infer_shape(), 'sym': _v(net.eval(ctx=mx.current_context())[0])}


def _creations(mx):
    """How many Ops create_operator makes: one per bound executor (kept across batches), one
    per imperative call."""
    x = mx.sym.var('x')
    net = mx.sym.Custom(x, op_type='case_square', name='sq')
    SEEN['square creations'] = 0
    exe = net.simple_bind(mx.current_context(), x=(2,))
    for _ in range(3):
        exe.forward(is_train=True, x=mx.nd.ones((2,)))
        exe.backward(mx.nd.ones((2,)))
    # (MXNet creates the Op when it binds, reflib when the executor first runs: the count
    # after the batches is the same)
    bound = SEEN['square creations']
    for _ in range(2):
        mx.nd.Custom(mx.nd.ones((2,)), op_type='case_square').asnumpy()
    return {'bind and three batches': bound, 'imperative calls': SEEN['square creations'] - bound}


def cases(mx):
    """Each case's name and the function that runs it under ``mx``."""
    return {
        'softmax in a Module equals SoftmaxOutput': lambda: _softmax_module(mx),
        'auxiliary states': lambda: _aux_states(mx),
        "grad_req='add'": lambda: _req_add(mx),
        'partial shapes': lambda: _partial_shapes(mx),
        'two inputs, two outputs, float64 outputs': lambda: _types(mx),
        'JSON round trip': lambda: _json_round_trip(mx),
        'keywords arrive as strings': lambda: _kwargs(mx),
        'nd.Custom under autograd': lambda: _autograd(mx),
        'in a hybridized HybridBlock': lambda: _hybrid(mx),
        'check_numeric_gradient': lambda: _numeric_gradient(mx),
        'errors': lambda: _errors(mx),
        'no inputs': lambda: _no_inputs(mx),
        'create_operator calls': lambda: _creations(mx),
    }


def run(mx):
    define(mx)
    return {k: fn() for k, fn in cases(mx).items()}
