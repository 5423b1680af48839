"""Gluon under NumPy array semantics (``npx.set_np()``): the same training programs under MXNet
1.9.1 (gen_gluon_numpy_mode.py records gluon_numpy_mode.json) and under reflib
(test_gluon_numpy_mode.py).  Fixed data and initial weights: no random generator is involved.
Each case records the kinds of array a user meets (parameters, gradients, batches, outputs,
losses), the loss after every epoch and the parameters at the end."""

import numpy as onp


def _weights(shapes, seed):
    rs = onp.random.RandomState(seed)
    return [rs.uniform(-0.5, 0.5, size=s).astype(onp.float32) for s in shapes]


def _kind(mx, x):
    return 'np' if isinstance(x, mx.np.ndarray) else type(x).__name__


def run_case(mx, hybridize, task):
    np, npx, gluon = mx.np, mx.npx, mx.gluon
    npx.set_np()
    try:
        rs = onp.random.RandomState(0)
        X = rs.normal(size=(30, 4)).astype(onp.float32)
        if task == 'classify':
            Y = onp.argmax(X[:, :3], axis=1).astype(onp.float32)
            layers = [gluon.nn.Dense(5, activation='relu'), gluon.nn.Dense(3)]
            loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        else:           # the readers' linear regression: y = 2 x1 - 3.4 x2 + 4.2 (+ x3, x4 unused)
            Y = (X[:, :2] @ onp.array([2, -3.4], onp.float32) + 4.2).reshape(-1, 1)
            layers = [gluon.nn.Dense(1)]
            loss_fn = gluon.loss.L2Loss()
        net = gluon.nn.HybridSequential(prefix='n_')
        with net.name_scope():
            net.add(*layers)
        net.initialize()
        features, labels = np.array(X), np.array(Y)
        net(features[:1])
        params = [p for _, p in sorted(net.collect_params().items())]
        for p, w in zip(params, _weights([p.shape for p in params], 1)):
            p.set_data(np.array(w))
        if hybridize:
            net.hybridize()
            loss_fn.hybridize()
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(features, labels), 6, shuffle=False)
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9})
        losses, kinds = [], {}
        for _ in range(3):
            for x, y in loader:
                with mx.autograd.record():
                    out = net(x)
                    loss = loss_fn(out, y)
                loss.backward()
                trainer.step(x.shape[0])
            losses.append(round(float(loss_fn(net(features), labels).mean().item()), 6))
        kinds = {'batch': _kind(mx, x), 'output': _kind(mx, out), 'loss': _kind(mx, loss),
                 'param': _kind(mx, params[0].data()), 'grad': _kind(mx, params[0].grad())}
        return {'losses': losses, 'kinds': kinds,
                # by position: the layer counters in the names depend on what ran before
                'params': {'%d_%s' % (i, p.name.rsplit('_', 1)[-1]): p.data().asnumpy().round(6).tolist()
                           for i, p in enumerate(params)}}
    finally:
        npx.reset_np()


def softmax_from_scratch(mx):
    """The readers' kind of script, written as d2l writes it for MXNet's NumPy mode: no
    Gluon, arrays and autograd only (fancy indexing, argmax, astype, comparisons, item)."""
    np, npx = mx.np, mx.npx
    npx.set_np()
    try:
        rs = onp.random.RandomState(0)
        X = np.array(rs.normal(size=(8, 5)).astype('float32'))
        y = np.array(rs.randint(0, 3, 8).astype('float32'))
        W = np.array(rs.normal(0, 0.01, (5, 3)).astype('float32'))
        b = np.zeros(3)
        W.attach_grad()
        b.attach_grad()

        def net(X):
            logits = np.exp(np.dot(X.reshape((-1, W.shape[0])), W) + b)
            return logits / logits.sum(1, keepdims=True)

        def accuracy(y_hat, y):
            return float((y_hat.argmax(axis=1).astype(y.dtype) == y).astype(y.dtype).sum())

        found = []
        for _ in range(3):
            with mx.autograd.record():
                y_hat = net(X)
                loss = -np.log(y_hat[range(len(y_hat)), y.astype('int32')])
            loss.backward()
            for param in (W, b):
                param[:] = param - 0.1 * param.grad / 8
            found.append([round(float(loss.mean()), 6), accuracy(net(X), y), _kind(mx, loss)])
        return {'steps': found, 'W': W.asnumpy().round(6).tolist(), 'b': b.asnumpy().round(6).tolist()}
    finally:
        npx.reset_np()


def d2l_hybrid_net(mx):
    """d2l's HybridNet (its hybridize section): Dense, ``F.npx.relu``, Dense, run imperatively
    and then hybridized (``F`` is mx.sym: ``F.npx.relu`` must exist on Symbols), with the
    gradients of one backward pass each way."""
    np, npx, gluon = mx.np, mx.npx, mx.gluon

    class HybridNet(gluon.nn.HybridBlock):
        def __init__(self, **kwargs):
            super(HybridNet, self).__init__(**kwargs)
            self.hidden = gluon.nn.Dense(4)
            self.output = gluon.nn.Dense(2)

        def hybrid_forward(self, F, x):
            seen.append(F.__name__.split('.')[-1])
            x = F.npx.relu(self.hidden(x))
            return self.output(x)

    npx.set_np()
    try:
        seen, found = [], {}
        net = HybridNet(prefix='hn_')
        net.initialize()
        x = np.array(onp.random.RandomState(5).normal(size=(3, 3)).astype(onp.float32))
        net(x)
        params = [p for _, p in sorted(net.collect_params().items())]
        for p, w in zip(params, _weights([p.shape for p in params], 2)):
            p.set_data(np.array(w))
        for mode in ('imperative', 'hybridized'):
            if mode == 'hybridized':
                net.hybridize()
            with mx.autograd.record():
                out = net(x)
            out.backward()
            found[mode] = {'out': out.asnumpy().round(6).tolist(), 'kind': _kind(mx, out),
                           'grads': [p.grad().asnumpy().round(6).tolist() for p in params]}
        net(x)                    # the cached graph: hybrid_forward is not called again
        found['F'] = seen
        return found
    finally:
        npx.reset_np()


def run(mx):
    found = {'%s/%s' % (task, 'hybridized' if hybridize else 'imperative'): run_case(mx, hybridize, task)
             for task in ('classify', 'regress') for hybridize in (False, True)}
    found['softmax_from_scratch'] = softmax_from_scratch(mx)
    found['d2l_hybrid_net'] = d2l_hybrid_net(mx)
    return found
