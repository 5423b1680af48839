"""Deformable convolution layers: a 2-D convolution whose taps move by offsets that an
ordinary convolution of the same input computes (DeformableConvolution, over the
``_contrib_DeformableConvolution`` operator), and its v2 whose same convolution also
computes a mask that scales every tap (ModulatedDeformableConvolution: the offset
convolution's last third of channels, ``2 * sigmoid``, over
``_contrib_ModulatedDeformableConvolution``).  Both operators live in
reflib/operator/detection.py.

Parameters, as MXNet 1.9.1 names them: ``offset_weight``/``offset_bias`` of the offset
convolution (zeros by default, so a new layer starts as a plain convolution),
``deformable_conv_weight``/``deformable_conv_bias`` of the deformable one.  The
deformable weight's input-channel size is always left to the first call, even where
``in_channels`` is given (MXNet does the same); the offset weight's takes ``in_channels``.
"""

from .... import symbol
from ....base import numeric_types
from ...block import HybridBlock
from ...parameter import GluonAssertionError
from ...nn import Activation

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']


def _pair(value):
    return (value,) * 2 if isinstance(value, numeric_types) else value


class DeformableConvolution(HybridBlock):
    """2-D deformable convolution (v1): ``channels`` outputs, the taps of a ``kernel_size``
    kernel moved by offsets that a Convolution of the input with ``2*kh*kw*num_deformable_group``
    filters (same kernel, strides, padding, dilation and groups) computes at every output
    position.  ``activation``: an Activation applied to the result.  NCHW data only (MXNet
    accepts 'NHWC' here and then fails in the operator; reflib's operator refuses it)."""

    # how many offset channels per tap and deformable group: a vertical and a horizontal shift
    _per_tap = 2
    _conv_params_first = False

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout='NCHW', use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            if layout not in ('NCHW', 'NHWC'):
                raise GluonAssertionError("%s: only 'NCHW' and 'NHWC' layouts are accepted, got %r"
                                          % (type(self).__name__, layout))
            kernel = _pair(kernel_size)
            self._channels, self._in_channels = channels, in_channels
            taps = kernel[0] * kernel[1] * num_deformable_group
            self._split = 2 * taps          # the offset convolution's channels that are shifts
            geometry = {'kernel': kernel, 'stride': _pair(strides), 'dilate': _pair(dilation),
                        'pad': _pair(padding)}
            self._kwargs_offset = dict(geometry, num_filter=self._per_tap * taps, num_group=groups,
                                       no_bias=not offset_use_bias, layout=layout)
            self._kwargs_deformable_conv = dict(geometry, num_filter=channels, num_group=groups,
                                                num_deformable_group=num_deformable_group,
                                                no_bias=not use_bias, layout=layout)
            if adj:             # (no convolution takes it: the call refuses it, as in MXNet)
                self._kwargs_offset['adj'] = self._kwargs_deformable_conv['adj'] = adj
            data_shape = [0, 0, 0, 0]
            data_shape[layout.find('N')], data_shape[layout.find('C')] = 1, in_channels
            offset_shapes = symbol.Convolution(symbol.var('data', shape=tuple(data_shape)),
                                               **self._kwargs_offset).infer_shape_partial()[0]

            def offset_params():
                self.offset_weight = self.params.get('offset_weight', shape=offset_shapes[1],
                                                     init=offset_weight_initializer, allow_deferred_init=True)
                self.offset_bias = self.params.get('offset_bias', shape=offset_shapes[2],
                                                   init=offset_bias_initializer,
                                                   allow_deferred_init=True) if offset_use_bias else None

            def conv_params():
                self.deformable_conv_weight = self.params.get('deformable_conv_weight',
                                                              shape=(channels, 0) + tuple(kernel),
                                                              init=weight_initializer, allow_deferred_init=True)
                self.deformable_conv_bias = self.params.get('deformable_conv_bias', shape=(channels,),
                                                            init=bias_initializer,
                                                            allow_deferred_init=True) if use_bias else None
            # (the order of the parameters, as each layer of MXNet's makes them)
            for make in ((conv_params, offset_params) if self._conv_params_first else (offset_params, conv_params)):
                make()
            self.act = Activation(activation, prefix=activation + '_') if activation else None

    def _offset(self, F, x, offset_weight, offset_bias):
        inputs = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*inputs, cudnn_off=True, **self._kwargs_offset)

    def _deform(self, F, x, offset, weight, bias):
        extra = {} if bias is None else {'bias': bias}
        return F.contrib.DeformableConvolution(data=x, offset=offset, weight=weight, name='fwd',
                                               **extra, **self._kwargs_deformable_conv)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        out = self._deform(F, x, self._offset(F, x, offset_weight, offset_bias), deformable_conv_weight,
                           deformable_conv_bias)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return 'deformable_conv'

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        parts = ['kernel_size=%s' % (kw['kernel'],), 'stride=%s' % (kw['stride'],)]
        if kw['pad'] != (0, 0):
            parts.append('padding=%s' % (kw['pad'],))
        if kw['dilate'] != (1, 1):
            parts.append('dilation=%s' % (kw['dilate'],))
        if kw['num_group'] != 1:
            parts.append('groups=%s' % kw['num_group'])
        if self.deformable_conv_bias is None:
            parts.append('bias=False')
        if self.act is not None:
            parts.append(str(self.act))
        shape = self.deformable_conv_weight.shape
        return '%s(%s -> %s, %s)' % (type(self).__name__, shape[1] if shape[1] else None, shape[0],
                                     ', '.join(parts))


class ModulatedDeformableConvolution(DeformableConvolution):
    """2-D deformable convolution v2: as DeformableConvolution, and the offset convolution
    has ``3*kh*kw*num_deformable_group`` filters, the last third giving each tap a factor
    ``2 * sigmoid`` (1 where the offset weights are zero).  ``channels`` must be a multiple of
    ``num_deformable_group`` (the operator's rule in MXNet 1.9.1)."""

    _per_tap = 3
    _conv_params_first = True
    __repr__ = HybridBlock.__repr__         # (MXNet 1.9.1 prints it as any block: its children)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        both = self._offset(F, x, offset_weight, offset_bias)
        offset = F.slice_axis(both, axis=1, begin=0, end=self._split)
        mask = F.sigmoid(F.slice_axis(both, axis=1, begin=self._split, end=None)) * 2
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        out = F.contrib.ModulatedDeformableConvolution(data=x, offset=offset, mask=mask,
                                                       weight=deformable_conv_weight, name='fwd',
                                                       **extra, **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return 'modulated_deformable_conv'
