"""The idioms of d2l's first chapters (ndarray, linear algebra, calculus and autograd,
probability) in its MXNet dialect, ``mx.np``/``mx.npx`` under ``npx.set_np()``: the same calls
under MXNet 1.9.1 (gen_d2l_np.py records d2l_np.json) and under reflib (test_d2l_np.py).
Each entry is what the reader sees printed, ``str()`` of the result, so a difference in a
value, a dtype, a shape or the printing shows; random draws are reported by shape, dtype
and row sums only."""


def run(mx):
    np, npx, autograd = mx.np, mx.npx, mx.autograd
    seen = {}

    def show(name, value):
        seen[name] = str(value)

    npx.set_np()
    try:
        x = np.arange(12)
        show('arange', x)
        show('shape_size', (x.shape, x.size))
        X = x.reshape(3, 4)
        show('reshape_inferred', x.reshape(-1, 4))
        show('exp', np.exp(x))
        y = np.array([2, 4, 8, 16.0])
        xs = np.array([1.0, 2, 4, 8])
        show('arith', [xs + y, xs - y, xs * y, xs / y, xs ** y])
        Y = np.array([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
        show('concat', (np.concatenate([X, Y], axis=0), np.concatenate([X, Y], axis=1)))
        show('compare_sum', (X == Y, X.sum()))
        a, b = np.arange(3).reshape(3, 1), np.arange(2).reshape(1, 2)
        show('broadcast', a + b)
        show('index', (X[-1], X[1:3]))
        Z = X.copy()
        Z[1, 2] = 9
        Z[0:2, :] = 12
        show('assign', Z)
        A = X.asnumpy()
        show('convert', (type(A).__name__, type(np.array(A)).__name__))
        s = np.array([3.5])
        show('scalar', (s, s.item(), float(s), int(s)))
        M = np.arange(20).reshape(5, 4)
        show('transpose_reduce', (M.T, M.sum(axis=0), M.sum(axis=1), M.mean(), M.sum() / M.size))
        show('keepdims_cumsum', (M.sum(axis=1, keepdims=True), M.cumsum(axis=0)))
        show('dot', (np.dot(np.arange(4.0), np.ones(4)), np.dot(M, np.arange(4.0)), np.dot(M, np.ones((4, 3)))))
        u = np.array([3.0, -4.0])
        show('norms', (np.linalg.norm(u), np.abs(u).sum(), np.linalg.norm(np.ones((4, 9)))))
        show('elementwise', (np.power(np.arange(4), 2), np.sqrt(np.arange(4.0)), np.log10(np.array([1.0, 100])),
                             np.sin(np.array([0.0, 1.0])), np.tile(np.arange(3), 2), np.repeat(np.arange(2), 2)))
        g1, g2 = np.meshgrid(np.arange(-1.0, 1.0, 0.5), np.arange(0.0, 1.0, 0.5))
        show('meshgrid', (g1, g2))
        w = np.arange(4.0)
        w.attach_grad()
        with autograd.record():
            out = 2 * np.dot(w, w)
        out.backward()
        show('autograd', (out, w.grad, w.grad == 4 * w))
        with autograd.record():
            out = w.sum()
        out.backward()
        show('autograd_sum', w.grad)
        with autograd.record():
            y2 = w * w
            u2 = y2.detach()
            z = u2 * w
        z.backward()
        show('detach', w.grad == u2)
        counts = np.random.multinomial(10, [1.0 / 6] * 6, size=500)
        cum = counts.astype(np.float32).cumsum(axis=0)
        estimates = cum / cum.sum(axis=1, keepdims=True)
        show('multinomial', (counts.shape, counts.dtype, counts.sum(axis=1)[:5], estimates.shape,
                             type(estimates).__name__))
        drawn = np.random.normal(0, 1, (3, 4))
        show('normal', (drawn.shape, drawn.dtype, type(drawn).__name__))
    finally:
        npx.reset_np()
    return seen
