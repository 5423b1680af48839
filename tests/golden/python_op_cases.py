"""The older Python operators, mx.operator.NumpyOp and NDArrayOp: the same calls under MXNet
1.9.1 (gen_python_op.py records python_op.json) and under reflib (test_python_op.py).  Each
case gives a JSON-able value: arrays as [shape, dtype, rounded values].

MXNet 1.9.1 runs these operators through C callbacks that only work where every input shape is
known (a NumpyOp crashes otherwise), that refuse grad_req='add', and (an NDArrayOp) that fail
in backward when need_top_grad() is False; the cases stay inside what works there."""

import warnings

import numpy as np


def _arr(a):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    return [list(a.shape), np.dtype(a.dtype).name, np.round(a.astype(np.float64), 5).tolist()]


def define(mx):
    """The operator classes, made on the library ``mx``."""

    class NumpySoftmax(mx.operator.NumpyOp):
        """example/numpy-ops/numpy_softmax.py's loss: softmax forward, (p - onehot) backward."""
        def need_top_grad(self):
            return False

        def list_arguments(self):
            return ['data', 'label']

        def list_outputs(self):
            return ['prob']

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]]

        def forward(self, in_data, out_data):
            x, y = in_data[0], out_data[0]
            y[:] = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
            y /= y.sum(axis=1).reshape((x.shape[0], 1))

        def backward(self, out_grad, in_data, out_data, in_grad):
            label = in_data[1].reshape((in_data[1].size,)).astype(int)
            dx = in_grad[0]
            dx[:] = out_data[0]
            dx[np.arange(label.shape[0]), label] -= 1.0

    class NDArrayScaledTanh(mx.operator.NDArrayOp):
        """A middle layer on NDArrays: y = tanh(x) * scale, dx = dy * scale * (1 - tanh^2)."""
        def __init__(self, scale):
            super().__init__(True)
            self.scale = scale

        def forward(self, in_data, out_data):
            out_data[0][:] = mx.nd.tanh(in_data[0]) * self.scale

        def backward(self, out_grad, in_data, out_data, in_grad):
            t = out_data[0] / self.scale
            in_grad[0][:] = out_grad[0] * self.scale * (1 - t * t)

    class NumpyTwoOutputs(mx.operator.NumpyOp):
        """Two inputs and two outputs: (a * b, a + 2 b)."""
        def list_arguments(self):
            return ['a', 'b']

        def list_outputs(self):
            return ['prod', 'total']

        def infer_shape(self, in_shape):
            return [in_shape[0], in_shape[0]], [in_shape[0], in_shape[0]]

        def forward(self, in_data, out_data):
            a, b = in_data
            out_data[0][:] = a * b
            out_data[1][:] = a + 2 * b

        def backward(self, out_grad, in_data, out_data, in_grad):
            a, b = in_data
            in_grad[0][:] = out_grad[0] * b + out_grad[1]
            in_grad[1][:] = out_grad[0] * a + 2 * out_grad[1]

    return {'NumpySoftmax': NumpySoftmax, 'NDArrayScaledTanh': NDArrayScaledTanh,
            'NumpyTwoOutputs': NumpyTwoOutputs}


def _mlp(mx, ops, head, middle):
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    net = middle(net) if middle else mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=4, name='fc2')
    return head(net)


def _train(mx, sym, steps=4):
    """A few SGD steps in a Module on fixed data and parameters: the parameters and the last
    outputs."""
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (12, 6)).astype(np.float32)
    y = (np.arange(12) % 4).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=6, label_name='softmax_label')
    mod = mx.mod.Module(sym, data_names=['data'], label_names=['softmax_label'], context=mx.cpu())
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(6, 6), softmax_label=(6,))[0]))
    prng = np.random.RandomState(3)
    params = {k: mx.nd.array(prng.uniform(-0.5, 0.5, shapes[k])) for k in sorted(shapes)
              if k not in ('data', 'softmax_label')}
    mod.init_params(arg_params=params, aux_params={})
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.5, 'momentum': 0.9})
    outs = []
    for _ in range(steps):
        it.reset()
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
            outs = [o.asnumpy() for o in mod.get_outputs()]
    arg, _ = mod.get_params()
    return {'params': {k: _arr(v) for k, v in sorted(arg.items())}, 'outputs': [_arr(o) for o in outs]}


def _numpy_softmax_module(mx, ops):
    custom = _mlp(mx, ops, lambda net: ops['NumpySoftmax']()(data=net, name='softmax'), None)
    builtin = _mlp(mx, ops, lambda net: mx.sym.SoftmaxOutput(net, name='softmax'), None)
    return {'arguments': custom.list_arguments(), 'outputs': custom.list_outputs(),
            'custom': _train(mx, custom), 'builtin': _train(mx, builtin)}


def _ndarray_middle_module(mx, ops):
    sym = _mlp(mx, ops, lambda net: mx.sym.SoftmaxOutput(net, name='softmax'),
               lambda net: ops['NDArrayScaledTanh'](1.5)(net, name='stanh'))
    return {'arguments': sym.list_arguments(), 'internals': sym.get_internals().list_outputs(),
            'trained': _train(mx, sym)}


def _two_outputs_executor(mx, ops):
    op = ops['NumpyTwoOutputs']()
    sym = op.get_symbol(mx.sym.var('x'), mx.sym.var('y'), name='two')
    rng = np.random.RandomState(5)
    x, y = (rng.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(2))
    args = {'x': mx.nd.array(x), 'y': mx.nd.array(y)}
    grads = {'x': mx.nd.zeros((2, 3)), 'y': mx.nd.zeros((2, 3))}
    exe = sym.bind(mx.cpu(), args=args, args_grad=grads)
    outs = exe.forward(is_train=True)
    heads = [mx.nd.array(rng.uniform(-1, 1, (2, 3))), mx.nd.array(rng.uniform(-1, 1, (2, 3)))]
    exe.backward(heads)
    return {'arguments': sym.list_arguments(), 'outputs': sym.list_outputs(),
            'shapes': [list(map(list, part)) for part in sym.infer_shape(x=(2, 3), y=(2, 3))],
            'forward': [_arr(o) for o in outs], 'grads': [_arr(grads['x']), _arr(grads['y'])]}


def _default_numpy_op(mx, ops):
    """The base NumpyOp: a copy forward, ones as the gradient (test_operator.py::test_python_op)."""
    sym = mx.operator.NumpyOp().get_symbol(mx.sym.var('X'), name='numpy_op')
    x = mx.nd.arange(6).reshape((2, 3))
    dx = mx.nd.zeros((2, 3))
    exe = sym.bind(mx.cpu(), args=[x], args_grad={'X': dx})
    out = exe.forward(is_train=True)[0]
    exe.backward(mx.nd.ones((2, 3)) * 3)
    return {'arguments': sym.list_arguments(), 'outputs': sym.list_outputs(), 'forward': _arr(out),
            'grad': _arr(dx)}


def _default_ndarray_op_inference(mx, ops):
    """The base NDArrayOp in a prediction: the copy forward, twice on the same executor."""
    sym = mx.operator.NDArrayOp()(mx.sym.var('X'), name='nd_op') * 2
    exe = sym.simple_bind(mx.cpu(), X=(3,), grad_req='null')
    got = []
    for k in range(2):
        exe.arg_dict['X'][:] = mx.nd.array([1, 2, 3]) * (k + 1)
        got.append(_arr(exe.forward(is_train=False)[0]))
    return {'arguments': sym.list_arguments(), 'forward': got}


CASES = {
    'NumpyOp softmax in a Module, next to SoftmaxOutput': _numpy_softmax_module,
    'NDArrayOp middle layer in a Module': _ndarray_middle_module,
    'NumpyOp two inputs two outputs in an executor': _two_outputs_executor,
    'default NumpyOp': _default_numpy_op,
    'default NDArrayOp in inference': _default_ndarray_op_inference,
}


def run(mx):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ops = define(mx)
        return {name: fn(mx, ops) for name, fn in CASES.items()}
