"""Convolution, transposed convolution, pooling and reflection padding layers.

A convolution layer owns ``weight`` (and ``bias``) and calls the Convolution or
Deconvolution operator; a pooling layer owns nothing and calls Pooling.  The weight's
shape is asked of the operator's own shape inference, with the input's channel count as
0 when it is not given (deferred initialisation fills it in on the first forward): the
operator is the one place that knows how kernel, groups and layout shape the weight.

Layouts: the layers accept MXNet's (channel-first, and channel-last for 2-D/3-D
convolution and every pooling) and hand them to the operator.  Pooling computes every one
of them; a channel-last (transposed) convolution gets its weight shape (with in_channels
read off the data's last axis) but refuses to run, as MXNet 1.9.1 on CPU does.
"""

from ... import symbol
from ...base import numeric_types
from ..block import HybridBlock
from ..parameter import GluonAssertionError
from .activations import Activation

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose',
           'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D', 'GlobalAvgPool1D', 'GlobalAvgPool2D',
           'GlobalAvgPool3D', 'ReflectionPad2D']


def _check(condition, message):
    if not condition:
        raise GluonAssertionError(message)


def _repeat(value, n):
    """One number for every spatial axis becomes a tuple of ``n``; a sequence stays as given
    (MXNet prints it as given, list or tuple)."""
    return (value,) * n if isinstance(value, numeric_types) else value


def _sized(value, n, what, layer):
    """``value`` as ``n`` sizes, refusing a sequence of another length."""
    value = _repeat(value, n)
    _check(len(value) == n, '%s: %s must be a number or a list of %d ints, got %r' % (layer, what, n, value))
    return value


def _param_shapes(op_name, data_shape, kwargs):
    """The operator's shapes for (data, weight, bias) given a data shape with unknowns (0)."""
    out = getattr(symbol, op_name)(symbol.var('data', shape=data_shape), **kwargs)
    return out.infer_shape_partial()[0]


class _Conv(HybridBlock):
    """What the six convolution layers share.

    ``channels``: output channels (the operator's num_filter); ``kernel_size``,
    ``strides``, ``padding``, ``dilation``: per spatial axis (a number means the same on
    each); ``groups``: channel groups convolved separately; ``in_channels`` 0: taken from the
    first input; ``activation``: an Activation applied to the result (None: linear);
    ``op_name``: 'Convolution' or 'Deconvolution'; ``adj``: the transposed convolution's
    output padding.  The bias starts at zero; the weight's initializer None means the one
    given to ``initialize``."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 op_name='Convolution', adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            self._op_name = op_name
            # the operator's arguments, passed as they are on every call (and kept in
            # this order: the printed form reads them)
            self._kwargs = {'kernel': kernel_size, 'stride': _repeat(strides, n), 'dilate': _repeat(dilation, n),
                            'pad': _repeat(padding, n), 'num_filter': channels, 'num_group': groups,
                            'no_bias': not use_bias, 'layout': layout}
            if adj is not None:
                self._kwargs['adj'] = adj
            data_shape = [0] * (n + 2)
            data_shape[layout.find('N')] = 1
            data_shape[layout.find('C')] = in_channels
            shapes = _param_shapes(op_name, tuple(data_shape), self._kwargs)
            self.weight = self.params.get('weight', shape=shapes[1], init=weight_initializer,
                                          allow_deferred_init=True)
            self.bias = self.params.get('bias', shape=shapes[2], init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + '_') if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        inputs = (x, weight) if bias is None else (x, weight, bias)
        out = op(*inputs, name='fwd', **self._kwargs)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return 'conv'

    def __repr__(self):
        kw = self._kwargs
        n = len(kw['kernel'])
        parts = ['kernel_size=%s' % (kw['kernel'],), 'stride=%s' % (kw['stride'],)]
        if kw['pad'] != (0,) * n:
            parts.append('padding=%s' % (kw['pad'],))
        if kw['dilate'] != (1,) * n:
            parts.append('dilation=%s' % (kw['dilate'],))
        # (MXNet 1.9.1 never prints the transposed layers' output_padding: it looks for an
        # attribute those layers do not set; reflib prints what MXNet prints)
        if kw['num_group'] != 1:
            parts.append('groups=%s' % kw['num_group'])
        if self.bias is None:
            parts.append('bias=False')
        if self.act is not None:
            parts.append(str(self.act))
        # the weight's axis 1 and axis 0, whatever they mean for this layer and layout
        # (input -> output channels for a channel-first convolution), as MXNet prints them
        shape = self.weight.shape
        mapping = '%s -> %s' % (shape[1] if shape[1] else None, shape[0])
        return '%s(%s, %s)' % (type(self).__name__, mapping, ', '.join(parts))


def _conv_init(layer, kernel_size, n, layout, layouts, kwargs, op_name):
    """The checks every convolution layer makes; the kernel as ``n`` sizes and the operator's
    name (a subclass may pass ``op_name``)."""
    name = type(layer).__name__
    _check(layout in layouts, '%s: only supports %s layout for now, got %r'
           % (name, ' and '.join(repr(l) for l in layouts), layout))
    return _sized(kernel_size, n, 'kernel_size', name), kwargs.pop('op_name', op_name)


class Conv1D(_Conv):
    """1-D convolution over (batch, channels, width) data (layout 'NCW' only)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout='NCW',
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros', in_channels=0,
                 **kwargs):
        kernel_size, op_name = _conv_init(self, kernel_size, 1, layout, ('NCW',), kwargs, 'Convolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over (batch, channels, height, width) data."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout='NCHW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        kernel_size, op_name = _conv_init(self, kernel_size, 2, layout, ('NCHW', 'NHWC'), kwargs, 'Convolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over (batch, channels, depth, height, width) data."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1,
                 layout='NCDHW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        kernel_size, op_name = _conv_init(self, kernel_size, 3, layout, ('NCDHW', 'NDHWC'), kwargs, 'Convolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name, **kwargs)


class _ConvTranspose(_Conv):
    """The transposed (fractionally strided) convolutions: the Deconvolution operator, its
    weight (in_channels, channels / groups, *kernel); ``output_padding`` adds to one side
    of the output (the operator's adj)."""

    def __init__(self, n, layouts, channels, kernel_size, strides, padding, output_padding, dilation, groups,
                 layout, activation, use_bias, weight_initializer, bias_initializer, in_channels, kwargs):
        kernel_size, op_name = _conv_init(self, kernel_size, n, layout, layouts, kwargs, 'Deconvolution')
        output_padding = _sized(output_padding, n, 'output_padding', type(self).__name__)
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name=op_name, adj=output_padding,
                         **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (layout 'NCW' only)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1,
                 layout='NCW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super().__init__(1, ('NCW',), channels, kernel_size, strides, padding, output_padding, dilation, groups,
                         layout, activation, use_bias, weight_initializer, bias_initializer, in_channels, kwargs)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), output_padding=(0, 0),
                 dilation=(1, 1), groups=1, layout='NCHW', activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(2, ('NCHW', 'NHWC'), channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer, bias_initializer, in_channels,
                         kwargs)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), output_padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout='NCDHW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(3, ('NCDHW', 'NDHWC'), channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer, bias_initializer, in_channels,
                         kwargs)


# ------------------------------------------------------------------ pooling
class _Pooling(HybridBlock):
    """What the pooling layers share: the Pooling operator's arguments.

    ``strides`` None: the pool size (windows side by side); ``ceil_mode``: round the
    output size up (the operator's 'full' convention) rather than down ('valid');
    ``count_include_pad`` (average pooling): whether the zero padding counts in each
    window's divisor (None: the operator's default)."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        n = len(pool_size)
        self._kwargs = {'kernel': pool_size, 'stride': _repeat(strides, n), 'pad': _repeat(padding, n),
                        'global_pool': global_pool, 'pool_type': pool_type, 'layout': layout,
                        'pooling_convention': 'full' if ceil_mode else 'valid'}
        if count_include_pad is not None:
            self._kwargs['count_include_pad'] = count_include_pad

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name='fwd', **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return ('%s(size=%s, stride=%s, padding=%s, ceil_mode=%s, global_pool=%s, pool_type=%s, layout=%s)'
                % (type(self).__name__, kw['kernel'], kw['stride'], kw['pad'], kw['pooling_convention'] == 'full',
                   kw['global_pool'], kw['pool_type'], kw['layout']))


_POOL_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _pool_args(layer, pool_size, n, layout):
    """The checks every pooling layer makes; the pool size as ``n`` sizes."""
    name = type(layer).__name__
    _check(layout in _POOL_LAYOUTS[n], '%s: only %s layouts are valid for %dD Pooling, got %r'
           % (name, ' and '.join(_POOL_LAYOUTS[n]), n, layout))
    return _sized(pool_size, n, 'pool_size', name)


class MaxPool1D(_Pooling):
    """The maximum over each window of ``pool_size`` along the width."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False, **kwargs):
        pool_size = _pool_args(self, pool_size, 1, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'max', layout, **kwargs)


class MaxPool2D(_Pooling):
    """The maximum over each (height, width) window."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout='NCHW', ceil_mode=False, **kwargs):
        pool_size = _pool_args(self, pool_size, 2, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'max', layout, **kwargs)


class MaxPool3D(_Pooling):
    """The maximum over each (depth, height, width) window."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout='NCDHW', **kwargs):
        pool_size = _pool_args(self, pool_size, 3, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'max', layout, **kwargs)


class AvgPool1D(_Pooling):
    """The mean over each window along the width."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False, count_include_pad=True,
                 **kwargs):
        pool_size = _pool_args(self, pool_size, 1, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'avg', layout, count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """The mean over each (height, width) window."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False, layout='NCHW',
                 count_include_pad=True, **kwargs):
        pool_size = _pool_args(self, pool_size, 2, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'avg', layout, count_include_pad, **kwargs)


class AvgPool3D(_Pooling):
    """The mean over each (depth, height, width) window."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout='NCDHW',
                 count_include_pad=True, **kwargs):
        pool_size = _pool_args(self, pool_size, 3, layout)
        super().__init__(pool_size, strides, padding, ceil_mode, False, 'avg', layout, count_include_pad, **kwargs)


class _GlobalPooling(_Pooling):
    """One value per sample and channel, over all the spatial positions (the operator's
    global_pool; the kernel size it is given does not matter)."""

    def __init__(self, n, pool_type, layout, kwargs):
        _pool_args(self, (1,) * n, n, layout)
        super().__init__((1,) * n, None, 0, True, True, pool_type, layout, **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """The maximum over the width."""

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(1, 'max', layout, kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """The maximum over height and width."""

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(2, 'max', layout, kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """The maximum over depth, height and width."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(3, 'max', layout, kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """The mean over the width."""

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(1, 'avg', layout, kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """The mean over height and width."""

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(2, 'avg', layout, kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """The mean over depth, height and width."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(3, 'avg', layout, kwargs)


class ReflectionPad2D(HybridBlock):
    """Pad the last two axes of (N, C, H, W) data by mirroring it (the edge itself not
    repeated).  ``padding``: one number for all four sides, or the 8 numbers of the pad
    operator's ``pad_width`` (before/after for each of the four axes)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        _check(len(padding) == 8, 'ReflectionPad2D: padding must be a number or 8 numbers, got %r' % (padding,))
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode='reflect', pad_width=self._padding)
