"""Write the golden NDArray files that tests/test_ndarray.py reads, using real MXNet.

Run with an interpreter that has MXNet 1.9.1 installed::

    /tmp/mxv/bin/python tests/golden/gen_ndarray_files.py

The arrays come from ``golden_arrays()``, which needs only numpy, so the test
can rebuild the exact same values and check what reflib loads, and compare
the bytes reflib writes with the bytes MXNet wrote.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def golden_arrays():
    """name -> (numpy array); deterministic, small, one per supported dtype."""
    rng = np.random.RandomState(1234)
    return {
        'f32_2x3': rng.uniform(-1, 1, (2, 3)).astype(np.float32),
        'f64_4': (rng.standard_normal(4) * 1e3).astype(np.float64),
        'f16_2x2': np.array([[0.5, -2.0], [65504.0, 6e-5]], dtype=np.float16),
        'u8_5': np.array([0, 1, 127, 128, 255], dtype=np.uint8),
        'i32_3x1': np.array([[-2147483648], [0], [2147483647]], dtype=np.int32),
        'i8_2x2x2': np.arange(-4, 4, dtype=np.int8).reshape(2, 2, 2),
        'i64_3': np.array([-(2 ** 62), 7, 2 ** 62 + 1], dtype=np.int64),
        'bool_4': np.array([True, False, False, True]),
        'f32_2x0': np.zeros((2, 0), dtype=np.float32),
        'f32_1x1x1x7': np.linspace(-3, 3, 7, dtype=np.float32).reshape(1, 1, 1, 7),
    }


def params_arrays():
    """A small model's parameters, as Module.save_params / save_checkpoint name them."""
    rng = np.random.RandomState(7)
    return {
        'arg:fc1_weight': rng.standard_normal((4, 3)).astype(np.float32),
        'arg:fc1_bias': np.zeros(4, dtype=np.float32),
        'aux:bn0_moving_var': np.ones(3, dtype=np.float32),
        'arg:poids_\u00e9t\u00e9': np.array([1.25, -0.5], dtype=np.float32),
    }


def npx_arrays():
    """What npx.save writes in d2l's read-write section: a list and a dict of mx.np arrays."""
    listed = [np.arange(4, dtype=np.float32), np.array(2.5, dtype=np.float32)]
    named = {'x': np.arange(4, dtype=np.float32), 'y': np.zeros((2, 3), dtype=np.int32)}
    return listed, named


def main():
    import mxnet as mx

    def nd(x, ctx=None):
        return mx.nd.array(x, ctx=ctx or mx.cpu(0), dtype=x.dtype)

    def path(name):
        return os.path.join(HERE, name)

    arrays = golden_arrays()
    mx.nd.save(path('mx_list.nd'), [nd(x) for x in arrays.values()])
    mx.nd.save(path('mx_dict.nd'), {k: nd(x) for k, x in arrays.items()})
    mx.nd.save(path('mx_model.params'), {k: nd(x) for k, x in params_arrays().items()})
    mx.nd.save(path('mx_single.nd'), nd(arrays['f32_2x3']))
    mx.nd.save(path('mx_empty.nd'), [])
    # arrays saved from other CPU contexts: the record keeps the device, load gives cpu(0)
    mx.nd.save(path('mx_ctx.nd'), [nd(arrays['f32_2x3'], mx.cpu(1)),
                                   nd(arrays['i32_3x1'], mx.cpu_pinned(0))])
    # a 0-d array can only be stored in numpy-shape mode (record magic 0xF993FACA)
    with mx.util.np_shape(True):
        mx.nd.save(path('mx_npshape_scalar.nd'), [mx.nd.array(np.array(2.5, dtype=np.float32))])
    # mx.npx.save: mx.np arrays (a 0-d one too), a list and a dict, under npx.set_np()
    mx.npx.set_np()
    try:
        listed, named = npx_arrays()
        mx.npx.save(path('mx_npx_list.nd'), [mx.np.array(x, dtype=x.dtype) for x in listed])
        mx.npx.save(path('mx_npx_dict.nd'), {k: mx.np.array(x, dtype=x.dtype) for k, x in named.items()})
    finally:
        mx.npx.reset_np()
    # sparse storage (row_sparse), which reflib loads and saves back byte for byte
    rsp = mx.nd.sparse.row_sparse_array((np.ones((1, 2), np.float32), np.array([1])), shape=(3, 2))
    mx.nd.save(path('mx_row_sparse.nd'), [rsp])

    # sanity: MXNet reads back what it wrote
    back = mx.nd.load(path('mx_dict.nd'))
    for k, x in arrays.items():
        assert back[k].dtype == x.dtype and back[k].shape == x.shape, k
        assert (back[k].asnumpy() == x).all(), k
    total = sum(os.path.getsize(path(f)) for f in os.listdir(HERE) if f.startswith('mx_'))
    print('wrote golden files into %s (%d bytes), MXNet %s' % (HERE, total, mx.__version__))


if __name__ == '__main__':
    main()
