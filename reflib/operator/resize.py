"""Resizing feature maps to a chosen size: BilinearResize2D and AdaptiveAvgPooling2D.

Both work on NCHW data and both are *separable*: what happens along the height does
not depend on the width and the other way round, so each is two one-axis passes.

BilinearResize2D places every output pixel at a fractional source position and mixes
the two nearest source pixels along each axis.  Two conventions place the pixels:

* ``align_corners=True`` (the default): the first and last pixels of input and output
  coincide, so source = ``dst * (in - 1) / (out - 1)``;
* ``align_corners=False``: pixels are areas, their centres are matched, so
  source = ``(dst + 0.5) * in / out - 0.5``, clipped below at 0.

An output axis of size 1 reads source position 0 in both conventions.  As in MXNet
the positions are computed in float32, whatever the data's dtype.

AdaptiveAvgPooling2D averages, for output cell ``o`` of ``out`` along an axis of
``n``, the inputs ``floor(o * n / out)`` up to (excluded) ``ceil((o + 1) * n / out)``:
the windows cover the input and neighbouring ones may overlap by one.

Both backward passes are the transposed linear maps, written as products with the
small (out, in) interpolation or averaging matrices of each axis.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from ..base import ShapeError, ParamError, TypeInferError

_F32 = np.float32


def _check_data(op, shape, what='data'):
    if shape is not None and len(shape) != 4:
        raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                         % (op, what, _fmt_shape(shape)))


def _check_float(op, dtype):
    if dtype is not None and np.dtype(dtype).kind != 'f':
        raise TypeInferError("%s: input 'data' has dtype %s; only floating point data is supported"
                             % (op, np.dtype(dtype).name))


def _float_types(op, in_types, out_types):
    """Output dtype = data dtype (floating point only); a 'like' input of unknown dtype gets
    the data's, as in MXNet, and any other it keeps (only its shape is read)."""
    data = in_types[0] if in_types[0] is not None else out_types[0]
    _check_float(op, data)
    return [data] + [data if t is None else t for t in in_types[1:]], [data]


# =====================================================================
# BilinearResize2D
# =====================================================================

def _source_positions(xp, n_in, n_out, align_corners):
    """Per output index along one axis: (first source index, step to the second, weight of
    the second), in float32 as MXNet computes them."""
    if n_out > 1:
        scale = _F32(n_in - 1) / _F32(n_out - 1) if align_corners else _F32(n_in) / _F32(n_out)
    else:
        scale = _F32(0)
    dst = xp.arange(n_out, dtype=_F32)
    if align_corners:
        src = dst * scale
    else:
        src = xp.maximum((dst + _F32(0.5)) * scale - _F32(0.5), _F32(0))
    first = src.astype(np.int64)                       # src >= 0: truncation is floor
    step = (first < n_in - 1).astype(np.int64)         # the last pixel has no right neighbour
    return first, step, src - first.astype(_F32)


def _interpolation_matrix(xp, n_in, n_out, align_corners, dtype):
    """(n_out, n_in): row o holds the two weights output o gives its source pixels."""
    first, step, frac = _source_positions(xp, n_in, n_out, align_corners)
    t = np.dtype(dtype).type
    frac = frac.astype(dtype)
    rows = xp.arange(n_out)
    matrix = xp.zeros((n_out, n_in), dtype=dtype)
    matrix[rows, first] += t(1) - frac
    matrix[rows, first + step] += frac                 # the same cell when step is 0: weights add to 1
    return matrix


@register
class BilinearResize2D(Operator):
    """Resize (N, C, H, W) data to (N, C, height, width) by bilinear interpolation.

    ``mode`` picks the output size:

    * ``size``: ``height`` and ``width``; or, when ``scale_height`` is given, ``int(H *
      scale_height)`` and ``int(W * scale_width)`` (both scales are then required; a
      ``scale_width`` alone is ignored, as in MXNet);
    * ``odd_scale``: an even size is scaled, an odd one keeps its corners on the
      pixel lattice: ``int((H - 1) * scale_height) + 1``;
    * ``like``: the height and width of the second input ``like`` (which gets no gradient);
    * ``to_even_down``, ``to_even_up``, ``to_odd_down``, ``to_odd_up``: the nearest
      even (odd) size below or above, the size itself when it already is.
    """
    name = '_contrib_BilinearResize2D'
    params = {
        'height': Param('int', 1, doc='output height (mode size, without scale_height)', low=1, high=10000),
        'width': Param('int', 1, doc='output width (mode size, without scale_height)', low=1, high=10000),
        'scale_height': Param('float_or_none', None, doc='height factor (modes size and odd_scale)'),
        'scale_width': Param('float_or_none', None, doc='width factor (modes size and odd_scale)'),
        'mode': Param('enum', 'size', choices=('like', 'odd_scale', 'size', 'to_even_down', 'to_even_up',
                                               'to_odd_down', 'to_odd_up'),
                      doc='how the output size is chosen'),
        'align_corners': Param('bool', True, doc='match corner pixels (True) or pixel centres (False)'),
    }

    def inputs(self, p):
        return ['data', 'like'] if p.mode == 'like' else ['data']

    def backward_reads(self, p):
        return [], []                                   # shapes are all backward needs

    def _out_size(self, p, data, like):
        """(height, width) of the output, or None while an input it needs is unknown."""
        height, width = data[2], data[3]
        if p.mode == 'like':
            return None if like is None else (like[2], like[3])
        if p.mode in ('size', 'odd_scale'):
            scaled = p.scale_height is not None or p.mode == 'odd_scale'
            if scaled and (p.scale_height is None or p.scale_width is None):
                raise ParamError('%s: mode %r with scale_height needs both scale_height and scale_width, '
                                 'got scale_height=%r, scale_width=%r'
                                 % (self.name, p.mode, p.scale_height, p.scale_width))
            if not scaled:
                return p.height, p.width

            # MXNet multiplies in float32 and truncates
            def scale(n, factor):
                return int(_F32(factor) * _F32(n))
            if p.mode == 'size':
                return scale(height, p.scale_height), scale(width, p.scale_width)
            return tuple(scale(n, f) if n % 2 == 0 else scale(n - 1, f) + 1
                         for n, f in ((height, p.scale_height), (width, p.scale_width)))
        even, up = p.mode.startswith('to_even'), p.mode.endswith('up')
        wanted = 0 if even else 1
        return tuple(n if n % 2 == wanted else (n + 1 if up else n - 1) for n in (height, width))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        like = in_shapes[1] if p.mode == 'like' else None
        _check_data(self.name, data)
        _check_data(self.name, like, 'like')
        if data is None or (p.mode == 'like' and like is None):
            return list(in_shapes), list(out_shapes), aux_shapes
        if (p.mode == 'like' and not all(like[2:])) or not all(data[2:]):
            return list(in_shapes), list(out_shapes), aux_shapes
        size = self._out_size(p, data, like)
        out = merge_shape(out_shapes[0], (data[0], data[1]) + tuple(size), '%s: output' % self.name)
        return list(in_shapes), [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        ins, outs = _float_types(self.name, in_types, out_types)
        return ins, outs, aux_types

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        _check_float(self.name, data.dtype)
        shapes = [tuple(x.shape) for x in inputs]
        _, (out_shape,), _ = self.infer_shape(p, shapes, [None], [])
        n_in_h, n_in_w = data.shape[2:]
        n_out_h, n_out_w = out_shape[2:]
        t = data.dtype.type
        # width first, then height: MXNet's order of the products, so float32 rounds alike
        first, step, frac = _source_positions(xp, n_in_w, n_out_w, p.align_corners)
        frac = frac.astype(data.dtype)
        rows = (t(1) - frac) * data[..., first] + frac * data[..., first + step]
        first, step, frac = _source_positions(xp, n_in_h, n_out_h, p.align_corners)
        frac = frac.astype(data.dtype)[:, None]
        out = (t(1) - frac) * rows[..., first, :] + frac * rows[..., first + step, :]
        return [xp.ascontiguousarray(out.astype(data.dtype, copy=False))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, grad, data = env.xp, out_grads[0], inputs[0]
        along_h = _interpolation_matrix(xp, data.shape[2], grad.shape[2], p.align_corners, grad.dtype)
        along_w = _interpolation_matrix(xp, data.shape[3], grad.shape[3], p.align_corners, grad.dtype)
        d_data = xp.matmul(xp.matmul(along_h.T, grad), along_w)
        grads = [d_data.astype(data.dtype, copy=False)]
        if p.mode == 'like':
            # the second input only lends its size
            grads.append(xp.zeros(inputs[1].shape, dtype=inputs[1].dtype))
        return grads


# =====================================================================
# AdaptiveAvgPooling2D
# =====================================================================

def _windows(xp, n_in, n_out):
    """Per output cell along one axis: the (n_out, widest) input indices of its window, a
    mask of which are inside it, and the window sizes.  Indices are integer arithmetic:
    floor(o * n / out) and ceil((o + 1) * n / out)."""
    cells = xp.arange(n_out, dtype=np.int64)
    start = (cells * n_in) // n_out
    end = -((-(cells + 1) * n_in) // n_out)
    size = end - start
    widest = max(-((-n_in) // max(n_out, 1)) + 1, 1)   # a window spans at most ceil(n/out) + 1
    offsets = xp.arange(widest, dtype=np.int64)
    inside = offsets[None, :] < size[:, None]
    index = xp.minimum(start[:, None] + offsets[None, :], n_in - 1)
    return index, inside, size


def _averaging_matrix(xp, n_in, n_out, dtype):
    """(n_out, n_in): row o is 1/size over the window of output cell o.  Compared, not
    scattered: a scatter through a boolean mask would make a GPU wait for its count."""
    cells = xp.arange(n_out, dtype=np.int64)[:, None]
    start = (cells * n_in) // n_out
    end = -((-(cells + 1) * n_in) // n_out)
    columns = xp.arange(n_in, dtype=np.int64)[None, :]
    inside = (columns >= start) & (columns < end)
    return inside.astype(dtype) / (end - start).astype(dtype)


def _output_size(op, output_size):
    if len(output_size) == 0:
        return 1, 1
    if len(output_size) == 1:
        return output_size[0], output_size[0]
    if len(output_size) == 2:
        return tuple(output_size)
    raise ParamError('%s: output_size must be one size or (height, width), got %s'
                     % (op, _fmt_shape(output_size)))


@register
class AdaptiveAvgPooling2D(Operator):
    """Average-pool (N, C, H, W) data to (N, C, *output_size): the windows are chosen to fit.

    ``output_size`` is ``(height, width)``, or one size for both; the default, empty,
    pools to 1 x 1.
    """
    name = '_contrib_AdaptiveAvgPooling2D'
    params = {
        'output_size': Param('shape', (), doc='(height, width) or one size for both; empty: 1', low=0),
    }

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        size = _output_size(self.name, p.output_size)
        data = in_shapes[0]
        _check_data(self.name, data)
        if data is None:
            return list(in_shapes), list(out_shapes), aux_shapes
        out = merge_shape(out_shapes[0], (data[0], data[1]) + size, '%s: output' % self.name)
        return list(in_shapes), [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        ins, outs = _float_types(self.name, in_types, out_types)
        return ins, outs, aux_types

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        _check_float(self.name, data.dtype)
        _, (out_shape,), _ = self.infer_shape(p, [tuple(data.shape)], [None], [])
        out_h, out_w = out_shape[2:]
        if min(out_shape) == 0 or min(data.shape) == 0:
            return [xp.zeros(out_shape, dtype=data.dtype)]
        zero = data.dtype.type(0)
        # sums over the windows with a select, not a product with 0: an inf stays in its window
        index, inside, size_w = _windows(xp, data.shape[3], out_w)
        sums = xp.where(inside, data[..., index], zero).sum(axis=-1)            # (N, C, H, out_w)
        index, inside, size_h = _windows(xp, data.shape[2], out_h)
        picked = xp.where(inside[:, :, None], sums[..., index, :], zero)        # (N, C, out_h, k, out_w)
        sums = picked.sum(axis=-2)
        out = sums / size_h[:, None].astype(data.dtype) / size_w.astype(data.dtype)
        return [out.astype(data.dtype, copy=False)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, grad, data = env.xp, out_grads[0], inputs[0]
        along_h = _averaging_matrix(xp, data.shape[2], grad.shape[2], grad.dtype)
        along_w = _averaging_matrix(xp, data.shape[3], grad.shape[3], grad.dtype)
        return [xp.matmul(xp.matmul(along_h.T, grad), along_w).astype(data.dtype, copy=False)]
