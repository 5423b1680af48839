"""im2col and col2im: a convolution's patch matrix, and patch values summed back into an image.

``im2col`` lays out every window that a convolution's kernel visits in channel-first data
(N, C, *spatial) as one column.  Its output has shape (N, C * K, W), K = prod(kernel)
positions in a window and W windows: for sample n, row ``c * K + k`` holds what channel c
shows under kernel offset k (row-major over the kernel) in each window, the windows in
row-major order over the convolution's output grid.  kernel, stride, dilate and pad mean
what they mean for Convolution (padding reads as zeros), so along each spatial axis there are

    (size + 2 * pad - dilate * (kernel - 1) - 1) // stride + 1

windows, and a convolution is one matrix product per sample:
``weight.reshape(num_filter, -1) @ im2col(x)[n]``.

``col2im`` goes the other way.  It takes (N, C * K, W) columns and adds each value to the
image position (N, C, *output_size) that its window, kernel offset and channel point at.
Where windows overlap the values add up; positions no window covers stay 0; values that
fall on the padding are dropped.  So col2im is not im2col's inverse but its adjoint
(``<im2col(x), c> == <x, col2im(c)>``): the gradient of each is the other.

Both are Convolution's own pieces (``conv.im2col``, ``conv.col2im``), with the batch moved
to the front.

Where reflib and MXNet 1.9.1 part (checked against the real thing):

* MXNet documents 1-D, 2-D and 3-D kernels, but its code runs only 2-D ones: with a 1-D
  kernel forward fails (it reads a fourth dimension the data lacks), with a 3-D one it fails
  unless the last spatial size is 1.  reflib computes the documented result for all three;
  tests/golden/gen_ops_im2col.py records the 1-D and 3-D numbers from MXNet by equivalent
  routes (a 2-D call with a unit axis; a Convolution whose filters pick single taps).
* MXNet infers an output shape for data with more axes than the kernel needs (it ignores the
  extra ones), then fails in forward unless they are all 1; reflib asks for exactly
  ``len(kernel) + 2`` axes (3 for col2im) up front.
* MXNet accepts a negative pad; reflib, as for Convolution, does not.

As in MXNet: the kernel's rank and the lengths of stride, dilate, pad (and output_size)
are checked when the node is made; shapes are inferred only from a fully known data shape,
never backwards from the output; integer data is refused when the operator runs.
"""

from .registry import Operator, Param, register
from .conv import im2col, col2im
from .spatial import LAYOUT_BY_NDIM, spatial_tuple
from ..shapes import merge_shape, shape_is_known, prod, format_shape
from ..base import ParamError, ShapeError, TypeInferError

_SHAPE_DOC = ': (w,), (h, w) or (d, h, w)'


def _geometry(op, p):
    """(kernel, stride, dilate, pad) as full tuples; refuses a kernel of other than 1-3 axes
    and a stride, dilate, pad (or col2im's output_size) of another length than the kernel."""
    nd = len(p.kernel)
    if nd not in (1, 2, 3):
        raise ParamError('%s: kernel must have 1, 2 or 3 entries (a 1-D, 2-D or 3-D window), got %s'
                         % (op, format_shape(p.kernel)))
    geometry = (tuple(p.kernel), spatial_tuple(op, 'stride', p.stride, nd, 1),
                spatial_tuple(op, 'dilate', p.dilate, nd, 1), spatial_tuple(op, 'pad', p.pad, nd, 0))
    if hasattr(p, 'output_size') and len(p.output_size) != nd:
        raise ParamError('%s: parameter %r must have %d entries like kernel, got %s'
                         % (op, 'output_size', nd, format_shape(p.output_size)))
    return geometry


def _window_grid(op, sizes, geometry, what):
    """The number of windows along each spatial axis of an image of spatial ``sizes``."""
    counts = []
    for axis, (n, k, s, d, pd) in enumerate(zip(sizes, *geometry)):
        span = d * (k - 1) + 1
        if span > n + 2 * pd:
            raise ShapeError('%s: the dilated kernel spans %d along spatial axis %d, more than the padded '
                             '%s (%d + 2*%d = %d)' % (op, span, axis, what, n, pd, n + 2 * pd))
        counts.append((n + 2 * pd - span) // s + 1)
    return tuple(counts)


def _check_float(op, x):
    if x.dtype.kind != 'f':
        raise TypeInferError("%s: input 'data' has dtype %s; only floating point data is supported"
                             % (op, x.dtype.name))


def _columns(env, image, geometry, grid, target):
    """im2col of ``image`` (N, C, *spatial) as (N, C*K, W), in ``target`` when given."""
    batch = image.shape[0]
    cols = im2col(env.xp, image, geometry, grid, env)           # (C*K, N*W), scratch memory
    if target is None:
        target = env.xp.empty((batch, cols.shape[0], prod(grid)), dtype=image.dtype)
    target[...] = cols.reshape(cols.shape[0], batch, prod(grid)).swapaxes(0, 1)
    return target


def _image(env, cols, image_shape, geometry, grid, target):
    """col2im of ``cols`` (N, C*K, W) as an image of ``image_shape``, in ``target`` when given."""
    xp = env.xp
    batch, channels = image_shape[:2]
    # (N, C, K, *grid) -> (C, K, *grid, N): the batch-last layout conv.col2im adds up fastest
    batch_last = xp.ascontiguousarray(xp.moveaxis(
        cols.reshape((batch, channels, prod(geometry[0])) + tuple(grid)), 0, -1))
    image = col2im(xp, batch_last, image_shape, geometry, grid).swapaxes(0, 1)     # (N, C, ...) view
    if target is None:
        return xp.ascontiguousarray(image)
    target[...] = image
    return target


# the window geometry both operators take, in MXNet's order
_WINDOW_PARAMS = {
        'kernel': Param('shape', doc='window size' + _SHAPE_DOC, low=1),
        'stride': Param('shape', (), doc='step between windows' + _SHAPE_DOC + '; default 1 per axis', low=1),
        'dilate': Param('shape', (), doc='spacing between kernel taps' + _SHAPE_DOC + '; default 1 per axis',
                        low=1),
        'pad': Param('shape', (), doc='zero padding on both sides' + _SHAPE_DOC + '; default 0 per axis', low=0),
}


class _Windowed(Operator):
    """What im2col and col2im share: the window geometry, checked when the node is made (as
    MXNet does), and a backward that reads only the data's shape."""

    def parse_params(self, raw):
        p = super().parse_params(raw)
        _geometry(self.name, p)          # as MXNet: a bad geometry is refused when the node is made
        return p

    def backward_reads(self, p):
        return [], []                       # only the data's shape


@register
class Im2col(_Windowed):
    """Every kernel window of channel-first data as a column: (N, C, *spatial) ->
    (N, C * prod(kernel), number of windows); see the module doc."""
    name = 'im2col'
    params = dict(_WINDOW_PARAMS)

    def _grid(self, p, shape, geometry):
        nd = len(geometry[0])
        if len(shape) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d (batch, channel, %s) for a %d-D kernel, got shape %s'
                             % (self.name, 'data', nd + 2, ', '.join(LAYOUT_BY_NDIM[nd][2:]), nd,
                                format_shape(shape)))
        return _window_grid(self.name, shape[2:], geometry, "input 'data' size")

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if not shape_is_known(data):        # as MXNet: nothing until the whole data shape is known
            return list(in_shapes), list(out_shapes), aux_shapes
        geometry = _geometry(self.name, p)
        grid = self._grid(p, data, geometry)
        out = (data[0], data[1] * prod(geometry[0]), prod(grid))
        return [data], [merge_shape(out_shapes[0], out, '%s: output' % self.name)], aux_shapes

    def forward(self, p, env, inputs, aux):
        data = inputs[0]
        _check_float(self.name, data)
        geometry = _geometry(self.name, p)
        return [_columns(env, data, geometry, self._grid(p, data.shape, geometry), env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        if not env.wants_grad(0):
            return [None]
        shape = inputs[0].shape
        geometry = _geometry(self.name, p)
        return [_image(env, out_grads[0], shape, geometry, self._grid(p, shape, geometry), env.grad_target(0))]


@register
class Col2im(_Windowed):
    """Columns summed back into an image: (N, C * prod(kernel), number of windows) ->
    (N, C, *output_size), each value added where its window read; see the module doc."""
    name = 'col2im'
    params = {'output_size': Param('shape', doc='spatial size of the image' + _SHAPE_DOC, low=1),
              **_WINDOW_PARAMS}

    def _image_shape(self, p, shape, geometry):
        """(N, C, *output_size) for columns of ``shape``, and the window grid; checks ``shape``."""
        grid = _window_grid(self.name, p.output_size, geometry, 'output_size')
        if len(shape) != 3:
            raise ShapeError('%s: input %r must be 3-d (batch, channel * kernel size, windows), got shape %s'
                             % (self.name, 'data', format_shape(shape)))
        if shape[2] != prod(grid):
            raise ShapeError('%s: input %r must have %d windows on axis 2 (a %s grid for output_size=%s), '
                             'got shape %s' % (self.name, 'data', prod(grid), 'x'.join(map(str, grid)),
                                               format_shape(p.output_size), format_shape(shape)))
        size = prod(geometry[0])
        if shape[1] % size:
            raise ShapeError('%s: axis 1 of input %r must be a multiple of the kernel size %d (channels * %d), '
                             'got shape %s' % (self.name, 'data', size, size, format_shape(shape)))
        return (shape[0], shape[1] // size) + tuple(p.output_size), grid

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if not shape_is_known(data):        # as MXNet: nothing until the whole data shape is known
            return list(in_shapes), list(out_shapes), aux_shapes
        out, _ = self._image_shape(p, data, _geometry(self.name, p))
        return [data], [merge_shape(out_shapes[0], out, '%s: output' % self.name)], aux_shapes

    def forward(self, p, env, inputs, aux):
        data = inputs[0]
        _check_float(self.name, data)
        geometry = _geometry(self.name, p)
        shape, grid = self._image_shape(p, data.shape, geometry)
        return [_image(env, data, shape, geometry, grid, env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        if not env.wants_grad(0):
            return [None]
        geometry = _geometry(self.name, p)
        _, grid = self._image_shape(p, inputs[0].shape, geometry)
        return [_columns(env, out_grads[0], geometry, grid, env.grad_target(0))]
