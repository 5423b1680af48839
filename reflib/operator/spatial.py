"""Sliding windows over the spatial axes, shared by Convolution and Pooling.

Both layers compute channel-first data ``(batch, channel, *spatial)`` and slide a
kernel with a stride, a dilation and padding over the spatial axes.  Instead
of looping over output positions, they loop over the few kernel offsets
(9 for 3x3): each offset reads one strided slice of the padded input
(``offset_slices``), so the work is done by whole-array operations.

Channel-last layouts (``NWC``, ``NHWC``, ``NDHWC``) are read through a transposed view
as channel-first; MXNet 1.9.1's CPU build pools them but only infers their shapes for
(de)convolution, whose CPU kernels take channel-first data only.
"""

import functools
import itertools

from ..shapes import format_shape as _fmt_shape
from ..base import ParamError


def spatial_tuple(op, name, value, nd, fill):
    """``value`` (possibly empty = unset) as an nd-tuple; an explicit one must have nd entries."""
    if not value:
        return (fill,) * nd
    if len(value) != nd:
        raise ParamError('%s: parameter %r must have %d entries like kernel, got %s'
                         % (op, name, nd, _fmt_shape(value)))
    return tuple(value)


LAYOUT_BY_NDIM = {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}
CHANNEL_LAST_BY_NDIM = {1: 'NWC', 2: 'NHWC', 3: 'NDHWC'}


def is_channel_last(op, layout, nd):
    """Whether ``layout`` (None: the channel-first default) puts the channels last, for
    ``nd`` spatial axes; a layout of another rank is refused."""
    if layout is None or layout == LAYOUT_BY_NDIM[nd]:
        return False
    if layout == CHANNEL_LAST_BY_NDIM[nd]:
        return True
    raise ParamError('%s: layout %r does not fit %d spatial axes: use %r or %r'
                     % (op, layout, nd, LAYOUT_BY_NDIM[nd], CHANNEL_LAST_BY_NDIM[nd]))


# Channel-last data (N, *spatial, C) is computed as the channel-first (N, C, *spatial) it is a
# transposed view of: these two axis orders go there and back, for arrays and shapes alike.
def channel_first_axes(ndim):
    """Read (N, *spatial, C) as (N, C, *spatial)."""
    return (0, ndim - 1) + tuple(range(1, ndim - 1))


def channel_last_axes(ndim):
    """Read (N, C, *spatial) as (N, *spatial, C): the inverse of :func:`channel_first_axes`."""
    return (0,) + tuple(range(2, ndim)) + (1,)


def refuse_channel_last(op, layout):
    """(De)convolution's compute on channel-last data: refused, as by MXNet 1.9.1 on CPU."""
    raise ParamError("%s: layout %r is not computed: MXNet 1.9.1 on CPU infers a channel-last "
                     "%s's shapes but computes channel-first layouts only (NCW, NCHW, NCDHW), "
                     "and so does reflib; transpose the data to channel-first instead"
                     % (op, layout, op.lower()))


def permute_shape(shape, axes):
    """``shape`` with its entries in the order ``axes``.  None stays None, and so does a shape
    of another rank: the shape check it then meets reports it as given."""
    if shape is None or len(shape) != len(axes):
        return shape
    return tuple(shape[a] for a in axes)


def offset_slices(kernel, dilate, stride, out_size):
    """For every kernel offset (row-major), the slices of the padded input it touches.

    Output position ``o`` along a spatial axis reads input ``o*stride + k*dilate``
    for offset ``k``; so offset ``k`` sees one strided slice of the padded input,
    of exactly the output's length.  Sliding windows thereby become a short
    Python loop over the kernel (9 steps for 3x3) of whole-array operations.
    """
    return _offset_slices(tuple(kernel), tuple(dilate), tuple(stride), tuple(out_size))


@functools.lru_cache(maxsize=256)
def _offset_slices(kernel, dilate, stride, out_size):
    # a layer asks for the same slices on every call: building them is host time a GPU
    # would otherwise wait for (a tuple, so that no caller can change the cached answer)
    ranges = [range(k) for k in kernel]
    out = []
    for offsets in itertools.product(*ranges):
        spatial = tuple(slice(k * d, k * d + s * (n - 1) + 1, s)
                        for k, d, s, n in zip(offsets, dilate, stride, out_size))
        out.append((slice(None), slice(None)) + spatial)
    return tuple(out)


def pad_spatial(xp, x, before, after, value=0):
    """Pad every axis after the first two (batch and channel)."""
    if not any(before) and not any(after):
        return x
    widths = [(0, 0), (0, 0)] + list(zip(before, after))
    return xp.pad(x, widths, mode='constant', constant_values=value)


def crop_spatial(x, before, size):
    return x[(slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in zip(before, size))]


def stack_rows(xp, blocks):
    """The matrices in ``blocks`` one below the other; a single block is returned as it is.

    (``xp.concatenate`` copies even one block, megabytes per call for a convolution.)
    """
    return blocks[0] if len(blocks) == 1 else xp.concatenate(blocks)
