"""mx.npx operators (and a few mx.np functions) on mx.np arrays: the same calls under MXNet 1.9.1 (gen_npx.py records
npx.json) and under reflib (test_npx.py).  Each case records the kind, shape, dtype and values
of every result."""

import numpy as onp


def _record(mx, out):
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [{'np': isinstance(o, mx.np.ndarray), 'shape': list(o.shape), 'dtype': str(o.dtype),
             'values': o.asnumpy().astype('float64').round(5).ravel().tolist()} for o in outs]


def run(mx):
    np, npx = mx.np, mx.npx
    rs = onp.random.RandomState(3)

    def a(*shape, scale=1.0):
        return np.array((rs.normal(size=shape) * scale).astype('float32'))

    x, img, seq = a(3, 4), a(2, 3, 5, 5), a(4, 2, 3)
    ints = np.array([[1, 2, 3], [4, 5, 6]], dtype='int32')
    calls = {
        'relu': lambda: npx.relu(x),
        'sigmoid': lambda: npx.sigmoid(x),
        'softmax': lambda: npx.softmax(x, axis=-1),
        'softmax_temperature': lambda: npx.softmax(x, axis=0, temperature=2.0),
        'log_softmax': lambda: npx.log_softmax(x),
        'activation': lambda: npx.activation(x, act_type='tanh'),
        'leaky_relu': lambda: npx.leaky_relu(x, act_type='leaky', slope=0.2),
        'fully_connected': lambda: npx.fully_connected(x, a(5, 4), a(5), num_hidden=5),
        'convolution': lambda: npx.convolution(img, a(4, 3, 3, 3), a(4), kernel=(3, 3), num_filter=4, pad=(1, 1)),
        'deconvolution': lambda: npx.deconvolution(img, a(3, 2, 2, 2), kernel=(2, 2), num_filter=2, no_bias=True),
        'pooling': lambda: npx.pooling(img, kernel=(2, 2), stride=(2, 2), pool_type='max'),
        'batch_norm': lambda: npx.batch_norm(img, np.ones(3), np.zeros(3), a(3), np.ones(3) * 2, fix_gamma=False),
        'layer_norm': lambda: npx.layer_norm(x, np.ones(4) * 2, np.zeros(4) + 0.5),
        'dropout_outside_record': lambda: npx.dropout(x, p=0.5),
        'embedding': lambda: npx.embedding(np.array([[0, 2], [1, 1]], dtype='float32'), a(3, 4), input_dim=3,
                                           output_dim=4),
        'sequence_mask': lambda: npx.sequence_mask(seq, np.array([1, 3], dtype='float32'),
                                                   use_sequence_length=True, value=-1.0),
        'pick': lambda: npx.pick(x, np.array([0, 3, 1], dtype='float32'), axis=1),
        'one_hot': lambda: npx.one_hot(np.array([0, 2, 1], dtype='float32'), depth=4),
        'topk': lambda: npx.topk(x, k=2, ret_typ='both'),
        'batch_dot': lambda: npx.batch_dot(seq, a(4, 3, 2)),
        'batch_flatten': lambda: npx.batch_flatten(img),
        'reshape_like': lambda: npx.reshape_like(x, a(4, 3)),
        'gather_nd': lambda: npx.gather_nd(x, np.array([[0, 2], [1, 3]], dtype='float32')),
        'smooth_l1': lambda: npx.smooth_l1(x, scalar=1.0),
        'erf': lambda: npx.erf(x),
        'gammaln': lambda: npx.gammaln(np.abs(x) + 0.5),
        'cast': lambda: npx.cast(x, dtype='float16'),
        'slice': lambda: npx.slice(x, begin=(0, 1), end=(2, 3)),
        'shape_array': lambda: npx.shape_array(img),
        # and the mx.np functions this session added
        'np.abs': lambda: np.abs(x),
        'np.square': lambda: np.square(x),
        'np.square_of_ints': lambda: np.square(np.array([[-3, 2]], dtype='int32')),
        'np.tanh': lambda: np.tanh(x),
        'np.sin': lambda: np.sin(x),
        'np.cos_of_ints': lambda: np.cos(np.array([0, 1, 2], dtype='int32')),
        'np.exp_of_ints': lambda: np.exp(np.array([1, 2, 5], dtype='int32')),
        'np.sqrt_of_ints': lambda: np.sqrt(np.array([1, 2, 5], dtype='int32')),
        'np.max_axis0': lambda: np.max(x, axis=0),
        'np.min_all': lambda: np.min(x),
        'np.amax_keepdims': lambda: np.amax(x, axis=1, keepdims=True),
        'np.prod': lambda: np.prod(x, axis=1),
        'np.argmax_flat': lambda: np.argmax(x),
        'np.argmax_axis1': lambda: np.argmax(x, axis=1),
        'np.argmin_axis0': lambda: np.argmin(x, axis=0),
        'np.clip': lambda: np.clip(x, -0.5, 0.5),
        'np.clip_no_low': lambda: np.clip(x, None, 0.25),
        'np.where_arrays': lambda: np.where(x > 0, x, -x),
        'np.where_scalars': lambda: np.where(x > 0, 1.0, 0.0),
        'np.transpose': lambda: np.transpose(img).shape and np.transpose(img),
        'np.transpose_axes': lambda: np.transpose(img, (0, 2, 3, 1)),
        'np.expand_dims': lambda: np.expand_dims(x, 1),
        'np.squeeze': lambda: np.squeeze(np.expand_dims(x, 0)),
        'np.linspace': lambda: np.linspace(0, 1, 5),
        'np.linspace_no_end': lambda: np.linspace(-1, 1, 4, endpoint=False),
        'method.max': lambda: x.max(axis=1),
        'method.argmax': lambda: x.argmax(axis=1),
        'method.clip': lambda: x.clip(0, 1),
        # the mx.np functions and methods d2l's MXNet edition calls (added in session 16)
        'np.sinh': lambda: np.sinh(x),
        'np.cosh': lambda: np.cosh(x),
        'np.sinh_of_ints': lambda: np.sinh(ints),
        'np.power_arrays': lambda: np.power(np.abs(x) + 0.5, x),
        'np.power_broadcast': lambda: np.power(np.abs(x) + 0.5, np.array([1.0, 2.0, 0.5, 3.0])),
        'np.power_scalar_exponent': lambda: np.power(x, 2),
        'np.power_scalar_base': lambda: np.power(2, x),
        'np.power_ints_half': lambda: np.power(ints, 0.5),
        'np.power_ints': lambda: np.power(ints, 2),
        'np.tile_int': lambda: np.tile(x, 2),
        'np.tile_longer_reps': lambda: np.tile(x, (2, 1, 2)),
        'np.tile_ints': lambda: np.tile(ints, (2, 1)),
        'np.repeat_flat': lambda: np.repeat(x, 2),
        'np.repeat_axis0': lambda: np.repeat(x, 3, axis=0),
        'np.cumsum_flat': lambda: np.cumsum(x),
        'np.cumsum_axis1': lambda: np.cumsum(x, axis=1),
        'np.cumsum_ints': lambda: np.cumsum(ints),
        'np.cumsum_float64': lambda: np.cumsum(ints, dtype='float64'),
        'np.var_all': lambda: np.var(x),
        'np.std_axis0': lambda: np.std(x, axis=0),
        'np.std_ddof_keepdims': lambda: np.std(x, axis=1, ddof=1, keepdims=True),
        'np.std_of_ints': lambda: np.std(ints),
        'np.var_of_ints': lambda: np.var(ints),
        'np.meshgrid_xy': lambda: np.meshgrid(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])),
        'np.meshgrid_ij': lambda: np.meshgrid(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), indexing='ij'),
        'np.meshgrid_three': lambda: np.meshgrid(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]),
                                                 np.array([6.0, 7.0, 8.0, 9.0])),
        'np.genfromtxt': lambda: np.genfromtxt(['1,2.5,3', '4,5,-6'], delimiter=','),
        'np.log10': lambda: np.log10(np.abs(x) + 0.5),
        'np.log10_of_powers': lambda: np.log10(np.array([1.0, 10.0, 100.0, 1000.0])),
        'np.exp_of_small_ints': lambda: np.exp(np.arange(4)),
        'np.linalg.norm_vector': lambda: np.linalg.norm(x[0]),
        'np.linalg.norm_matrix': lambda: np.linalg.norm(x),
        'np.linalg.norm_axis1_keepdims': lambda: np.linalg.norm(x, axis=1, keepdims=True),
        'np.linalg.norm_ord1': lambda: np.linalg.norm(x[1], ord=1),
        'np.linalg.norm_pair_axes': lambda: np.linalg.norm(img, axis=(2, 3)),
        'np.flip_axis0': lambda: np.flip(x, 0),
        'np.flip_all': lambda: np.flip(img[0], None),
        'np.flip_axes': lambda: np.flip(img[0], (0, 2)),
        'np.ravel': lambda: np.ravel(img[0]),
        'np.eye': lambda: np.eye(3, 4, k=1),
        'np.eye_int': lambda: np.eye(2, dtype='int32'),
        'np.identity': lambda: np.identity(3),
        'np.full_like': lambda: np.full_like(x, 7),
        'np.full_like_int': lambda: np.full_like(x, 7.5, dtype='int32'),
        'np.add': lambda: np.add(x, x[0]),
        'np.subtract_number': lambda: np.subtract(x, 1),
        'np.multiply_number_first': lambda: np.multiply(2, x),
        'np.divide_ints': lambda: np.divide(ints, 2),
        'np.true_divide': lambda: np.true_divide(x, 4),
        'np.mod': lambda: np.mod(x, 0.7),
        'np.equal': lambda: np.equal(x, x[0]),
        'np.not_equal': lambda: np.not_equal(x, 0),
        'np.greater': lambda: np.greater(x, 0.1),
        'np.greater_equal': lambda: np.greater_equal(x, x[1]),
        'np.less': lambda: np.less(x, 0),
        'np.less_equal': lambda: np.less_equal(x, 0),
        'method.cumsum': lambda: x.cumsum(axis=0),
        'method.std': lambda: x.std(),
        'method.var_axis': lambda: x.var(axis=1),
        'method.repeat': lambda: x.repeat(2, axis=1),
        'method.swapaxes': lambda: img.swapaxes(1, 3),
        'method.as_in_ctx': lambda: x.as_in_ctx(mx.cpu()),
        'method.broadcast_to': lambda: x[0].broadcast_to((2, 4)),
        'np.broadcast_to': lambda: np.broadcast_to(x[:, :1], (2, 3, 4)),
    }
    rint_input = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.567, -3.2])
    for name in ('log2', 'log1p', 'expm1', 'floor', 'ceil', 'trunc', 'fix', 'rint', 'sign', 'negative',
                 'reciprocal', 'tan', 'arcsin', 'arccos', 'arctan', 'cbrt', 'degrees', 'radians', 'absolute',
                 'fabs'):
        function = getattr(np, name)
        data = np.abs(x) + 0.25 if name.startswith('log') else x
        calls['np.%s' % name] = (lambda f, d: lambda: f(d))(function, data)
        calls['np.%s_of_ints' % name] = (lambda f: lambda: f(ints))(function)
    calls['np.rint_halves'] = lambda: np.rint(rint_input)
    found = {name: _record(mx, call()) for name, call in calls.items()}

    w = a(3, 4)
    w.attach_grad()
    with mx.autograd.record():
        loss = npx.log_softmax(npx.relu(w) * 2).sum()
    loss.backward()
    found['gradient_through_npx'] = _record(mx, [loss, w.grad])

    v = a(3, 4)
    v.attach_grad()
    npx.set_np()            # MXNet adds two 0-d arrays only under NumPy shape semantics
    try:
        with mx.autograd.record():
            picked = np.where(v > 0, np.clip(v, 0, 0.8), v * 0.5)
            loss = np.max(np.transpose(picked), axis=1).sum() + np.prod(np.expand_dims(v[0], 0))
        loss.backward()
        found['gradient_through_np'] = _record(mx, [loss, v.grad])
        u = a(3, 4)
        u.attach_grad()
        with mx.autograd.record():
            gx, gy = np.meshgrid(u[0], u[1])
            loss = (np.cumsum(np.power(np.abs(u) + 0.5, 2), axis=1) * np.tile(u[2], (3, 1))).sum() \
                + np.repeat(np.sinh(u), 2, axis=0).sum() + (gx * gy).sum()
        loss.backward()
        found['gradient_through_np_d2l'] = _record(mx, [loss, u.grad])
        # MXNet 1.9.1 gives np.var and np.std a zero gradient (reflib differentiates them)
        with mx.autograd.record():
            spread = np.std(u, axis=0).sum() + np.var(u)
        spread.backward()
        found['mxnet_gradient_of_std_and_var'] = _record(mx, [spread, u.grad])
    finally:
        npx.reset_np()
    return found
