"""Small helpers the operator families share.

Shapes in messages, axes, copies that never alias their input, summing a
broadcast gradient back to its input's shape, scatter-add, erf, and the one
shape rule every shape-preserving layer uses.  Each operator file imports
what it needs from here; nothing here registers an operator.
"""

import math

import numpy as np

from ..shapes import merge_shape
from ..base import ShapeError


def shape_str(shape):
    """``(2,3,4)``, ``(5,)``: a shape without spaces; unknown dims show as 0."""
    if shape is None:
        return 'unknown'
    return '(%s%s)' % (','.join(str(d) for d in shape), ',' if len(shape) == 1 else '')


def normalize_axis(op, what, axis, ndim, extra=0):
    """``axis`` made non-negative, checked against ``ndim`` (+``extra`` for insert positions)."""
    size = ndim + extra
    if not -size <= axis < size:
        raise ShapeError('%s: %s=%d is out of range for a %d-d input (valid: %d..%d)'
                         % (op, what, axis, ndim, -size, size - 1))
    return axis + size if axis < 0 else axis


def fresh_copy(xp, x):
    """A fresh, contiguous array holding ``x`` (outputs never alias inputs)."""
    return xp.array(x, copy=True, order='C')


def reshaped_into(env, x, shape, target):
    """``x`` with a new shape, in the planned array ``target`` if there is one, else in
    fresh memory (outputs never alias inputs).  The plan usually makes ``target`` ``x``'s
    own memory (``inplace_identity``): then nothing moves.
    """
    if target is None:
        return fresh_copy(env.xp, x.reshape(shape))
    view = x.reshape(shape)
    if not same_memory(view, target):
        target[...] = view
    return target


def same_memory(a, b):
    """Whether two arrays of one shape are the very same elements (same start and strides)."""
    if a.strides != b.strides or a.dtype != b.dtype:
        return False
    if hasattr(a, '__array_interface__'):                                # numpy
        return a.__array_interface__['data'][0] == b.__array_interface__['data'][0]
    return a.data.ptr == b.data.ptr                                      # cupy


def sum_to(g, shape):
    """Sum ``g`` over the axes broadcasting created or stretched, so it gets ``shape``."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def sign_of(x):
    """-1, 0 or 1 in ``x``'s dtype; NaN gives 0 (MXNet's sign, unlike numpy's)."""
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


def expand_to(xp, g, like):
    """``g`` (broadcastable to ``like``) materialized as a new array of ``like``'s shape."""
    return xp.zeros(like.shape, dtype=g.dtype) + g


def is_numpy(xp):
    return xp.__name__ == 'numpy'


def rounded_once(xp, ufunc, x, out=None):
    """``ufunc(x)``; for float32 data on the host, computed in float64 and rounded to float32
    once.  numpy's own float32 exp, log and sin (vectorised, up to 2-3 ulp off) differ from
    the correctly rounded value in 12-39% of elements; MXNet's CPU kernels call the C
    library's expf, logf, sinf, which are (nearly always) correctly rounded, and so does this:
    exp(1) is 2.7182817 as in MXNet, not numpy's 2.718282; log10(100) is 2, not 2.0000002.
    It costs about 2.5x numpy's float32 time for these functions alone.  With ``out`` the
    result is written there (which may be ``x`` itself)."""
    if x.dtype == np.float32 and is_numpy(xp):
        wide = ufunc(x, dtype=np.float64)
        if out is None:
            return wide.astype(np.float32)
        np.copyto(out, wide, casting='same_kind')
        return out
    return ufunc(x) if out is None else ufunc(x, out=out)


def to_host(x):
    """A numpy copy of a device array, or ``x`` itself on the host (numpy arrays and scalars).

    On a GPU this is a synchronisation: the host waits for every kernel queued before it
    and copies the bytes back.  Operators call it only on the way to an error message;
    ``ndarray.to_numpy`` is this same function.
    """
    return x if isinstance(x, (np.ndarray, np.generic)) else x.get()


def any_true(mask):
    """Whether any element of the boolean array ``mask`` is true, as a Python bool.

    For checks whose answer decides what happens next (refuse a label out of range, say).
    On the host it is one scan.  On a GPU it is an explicit synchronisation (one byte comes
    back), the same price MXNet's GPU kernels pay for such checks (``take(mode='raise')``).
    """
    return bool(to_host(mask.any()))


def may_be_true(xp, mask):
    """``any_true`` where knowing is free (the host); True, without asking, on a GPU.

    For a shortcut that skips work when ``mask`` is all false (windows without NaN, say):
    the caller's general path must be correct either way, and on a device asking would
    cost a synchronisation that the skipped work does not.
    """
    return bool(mask.any()) if is_numpy(xp) else True


# Tests turn this off to compare a device kernel with the xp code it stands in for.
USE_DEVICE_KERNELS = True
_DEVICE_KERNELS = {}


def device_kernel(xp, name, in_params, out_params, body):
    """A cupy ``ElementwiseKernel`` (compiled once per name), or None where the xp code runs.

    A few hot loops (an SGD step, col2im, max-pooling's backward) launch one fused kernel
    on a GPU instead of several whole-array operations: on small layers each launch costs
    more host time than the GPU spends on it.  The kernel does the xp code's arithmetic in
    the xp code's order, compiled without fused multiply-adds (``--fmad=false``), so it
    gives the same bits.  None on the host, under the strict test stand-in (which cannot
    run CUDA code), or with ``USE_DEVICE_KERNELS`` off.
    """
    if is_numpy(xp) or not USE_DEVICE_KERNELS:
        return None
    kernel = _DEVICE_KERNELS.get(name)
    if kernel is None:
        make = getattr(xp, 'ElementwiseKernel', None)
        if make is None:
            return None
        kernel = _DEVICE_KERNELS[name] = make(in_params, out_params, body, 'reflib_' + name,
                                              options=('--fmad=false',))
    return kernel


def scatter_add(xp, target, index, values):
    """``target[index] += values`` where repeated indices all add up (in place).

    Plain ``target[index] += values`` keeps only one of the repeated writes;
    numpy spells the accumulating version ``np.add.at`` and cupy
    ``cupyx.scatter_add``.
    """
    if is_numpy(xp):
        np.add.at(target, index, values)
    else:
        import cupyx  # only on a device: reflib never needs cupy to import
        cupyx.scatter_add(target, index, values)
    return target


def erf_array(xp, x):
    """The error function elementwise; numpy itself has none."""
    if not is_numpy(xp):
        from cupyx.scipy.special import erf  # only on a device
        return erf(x)
    try:
        from scipy.special import erf
        return erf(x)
    except ImportError:  # scipy is optional: fall back to the (slow) scalar version
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


def lowest_value(dtype):
    """The most negative value of ``dtype``: padding for max pooling (MXNet uses it too)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == 'f' else np.iinfo(dtype).min


def same_as_data(in_shapes, out_shapes, where):
    """One shape for data and every output (shape-preserving layers)."""
    known = in_shapes[0]
    for s in out_shapes:
        known = merge_shape(known, s, where)
    return known


def shape_donor_types(in_types, out_types, aux_types):
    """The dtype rule of an operator whose second input gives only its shape (slice_like,
    reshape_like, broadcast_like): the output has the first input's dtype and the second's
    may be any; as in MXNet 1.9.1, the output's is given once both inputs' are known."""
    data, donor = in_types[0], in_types[1]
    if data is None and out_types[0] is not None:
        data = out_types[0]
    return [data, donor], [data if donor is not None else out_types[0]], aux_types
