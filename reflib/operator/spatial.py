"""Sliding windows over the spatial axes, shared by Convolution and Pooling.

Both layers see channel-first data ``(batch, channel, *spatial)`` and slide a
kernel with a stride, a dilation and padding over the spatial axes.  Instead
of looping over output positions, they loop over the few kernel offsets
(9 for 3x3): each offset reads one strided slice of the padded input
(``offset_slices``), so the work is done by whole-array operations.
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


def check_layout(op, layout, nd):
    # channel-last layouts exist in MXNet only on GPU (cuDNN); reflib keeps channel-first
    if layout is not None and layout != LAYOUT_BY_NDIM[nd]:
        raise ParamError('%s: layout %r is not supported; only the channel-first layout %r '
                         'for a %d-D kernel' % (op, layout, LAYOUT_BY_NDIM[nd], nd))


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
