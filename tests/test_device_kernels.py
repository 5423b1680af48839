"""The device kernels (operator/common.device_kernel) give the bits of the xp code they stand in for.

On a GPU a few hot loops run as one fused cupy kernel: col2im in Convolution's data
gradient, max pooling's backward, the SGD momentum step.  Each test here runs the same
call twice on the GPU, the kernel on and off (``USE_DEVICE_KERNELS``), and asks for equal
bits, NaN, infinities, ties and -0.0 included.  Only a real GPU runs CUDA code: on the CPU
and under the strict stand-in there is no kernel to compare, so the module is skipped
there, and bench/gpu_check.py runs it (tests/device_tests.txt).
"""

import numpy as np
import pytest

import reflib as mx
from reflib.operator import OpEnv, common
from reflib.operator.registry import get

import device

pytestmark = pytest.mark.skipif(device.MODE != 'gpu', reason='device kernels run only on a GPU')

CTX = device.CTX


def both_ways(call):
    """call() with the kernels on, then off, as host arrays."""
    try:
        common.USE_DEVICE_KERNELS = True
        fused = [mx.nd.ndarray.to_numpy(a) for a in call()]
        common.USE_DEVICE_KERNELS = False
        plain = [mx.nd.ndarray.to_numpy(a) for a in call()]
    finally:
        common.USE_DEVICE_KERNELS = True
    return fused, plain


def same_bits(fused, plain):
    for a, b in zip(fused, plain):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def backward(name, params, inputs):
    op = get(name)
    p = op.parse_params({k: str(v) for k, v in params.items()})
    xp = CTX.xp
    ins = [xp.asarray(a) for a in inputs]
    outs = op.forward(p, OpEnv(CTX, True), ins, [])
    rng = np.random.RandomState(1)
    heads = [xp.asarray(rng.standard_normal(o.shape).astype(o.dtype)) for o in outs]
    return lambda: [g for g in op.backward(p, OpEnv(CTX, True), heads, ins, outs, []) if g is not None]


@pytest.mark.parametrize('params', [
    dict(kernel=(5, 5), num_filter=6),
    dict(kernel=(3, 3), num_filter=4, pad=(1, 1), stride=(2, 2)),
    dict(kernel=(3, 2), num_filter=4, pad=(2, 1), dilate=(2, 3), stride=(1, 2)),
    dict(kernel=(3, 3), num_filter=4, num_group=2, no_bias=True),
])
def test_col2im_gives_the_loops_bits(params):
    rng = np.random.RandomState(0)
    channels = 4
    data = rng.standard_normal((3, channels, 11, 10)).astype(np.float32)
    weight = rng.standard_normal((params['num_filter'], channels // params.get('num_group', 1))
                                 + params['kernel']).astype(np.float32)
    inputs = [data, weight] + ([] if params.get('no_bias') else [np.zeros(params['num_filter'], np.float32)])
    same_bits(*both_ways(backward('Convolution', params, inputs)))


def pooling_data(shape, ties=False, nan=False, dtype=np.float32):
    rng = np.random.RandomState(2)
    x = rng.standard_normal(shape).astype(dtype)
    if ties:
        x = np.round(x).astype(dtype)         # many equal maxima in a window
    if nan:
        x.flat[::17] = np.nan
        x.flat[5::23] = -0.0
    return x


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('params', [
    dict(kernel=(2, 2), stride=(2, 2)),                          # LeNet's: disjoint, tiling
    dict(kernel=(3, 3), stride=(3, 3)),                          # disjoint, a border left over
    dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)),              # overlapping, padded
    dict(kernel=(3, 2), stride=(2, 1), pooling_convention='full'),
])
@pytest.mark.parametrize('values', ['plain', 'ties', 'nan'])
def test_max_pool_backward_gives_the_loops_bits(params, values, dtype):
    data = pooling_data((2, 3, 9, 8), ties=values == 'ties', nan=values == 'nan', dtype=dtype)
    same_bits(*both_ways(backward('Pooling', dict(params, pool_type='max'), [data])))


def test_sgd_momentum_kernel_gives_sgd_steps_bits():
    rng = np.random.RandomState(3)
    start = rng.standard_normal((64, 33)).astype(np.float32)
    start.flat[::50] = np.inf
    start.flat[7::61] = -0.0
    grad = rng.standard_normal(start.shape).astype(np.float32) * 1e3
    grad.flat[11::70] = np.nan

    def steps():
        opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-4, rescale_grad=1 / 32.)
        weight = mx.nd.array(start, ctx=CTX)
        state = opt.create_state(0, weight)
        for _ in range(3):
            opt.update(0, weight, mx.nd.array(grad, ctx=CTX), state)
        return [weight._data, state._data]
    fused, plain = both_ways(steps)
    same_bits(fused, plain)
