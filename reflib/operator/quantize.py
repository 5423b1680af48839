"""Quantization: float32 to 8-bit integers and back, as MXNet 1.9.1 computes it on the CPU.

A quantized tensor is integers plus the float range they stand for.  MXNet's scheme is
*zero-centred*: 0 stays 0 and only the magnitude ``M = max(|min|, |max|)`` of the range
matters, so one float step is ``M / levels``:

* int8 keeps the sign: ``q = round(x * levels / M)`` within [-128, 127];
* uint8 has no negatives: the same ``q`` within [0, 255], a negative value becomes 0.

The operators differ in the number of levels and in how they round (measured against
MXNet 1.9.1; its oneDNN kernels and its own agree):

=================  ==========================  ===============  ====================
operator           levels (int8 / uint8)       rounding         output range
=================  ==========================  ===============  ====================
quantize           127 / 255                   half away from   int8: (-M, M);
                                               zero             uint8: as given
quantize_v2        127.5 / 255.5               half to even     the same
dequantize         127.5 / 255.5 (divides)     --               --
requantize         127 / 255                   half to even     int8: (-M, M);
                                                                uint8: (0, M)
=================  ==========================  ===============  ====================

``quantize_v2`` and ``requantize`` take the range from ``min_calib_range`` /
``max_calib_range`` when both are given, else from the data themselves.
requantize turns int32 (whose range is spread over 2**31 - 1 levels, as a product of
two int8 tensors gives it) into 8 bits.  None of them has a gradient: MXNet gives
their inputs zeros.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from ..base import ShapeError, ParamError, TypeInferError

_F32 = np.dtype(np.float32)
_LIMITS = {'int8': (-128, 127), 'uint8': (0, 255)}
_LEVELS = {'int8': 127, 'uint8': 255}
_INT32_LEVELS = 2 ** 31 - 1


def _magnitude(xp, low, high):
    """M = max(|low|, |high|) in float32, shaped (1,) for broadcasting."""
    low = xp.asarray(low, dtype=_F32).reshape(1)
    high = xp.asarray(high, dtype=_F32).reshape(1)
    return xp.maximum(xp.abs(low), xp.abs(high))


def _to_levels(xp, x, scale, out_type, half_even):
    """``x * scale`` rounded to whole levels and kept within ``out_type``'s limits."""
    scaled = x.astype(_F32, copy=False) * scale
    if half_even:
        whole = xp.rint(scaled)
    else:
        whole = xp.sign(scaled) * xp.floor(xp.abs(scaled) + _F32.type(0.5))
    low, high = _LIMITS[out_type]
    return xp.clip(whole, low, high).astype(out_type)


def _scalar(xp, value):
    return xp.full((1,), value, dtype=_F32)


def _check_range_shapes(op, names, in_shapes):
    """The range inputs are one number each: merge them with (1,)."""
    shapes = list(in_shapes)
    for k, name in enumerate(names, start=1):
        if shapes[k] is not None and tuple(shapes[k]) != (1,):
            raise ShapeError('%s: input %r must hold one number, shape %s, got shape %s'
                             % (op, name, _fmt_shape((1,)), _fmt_shape(shapes[k])))
        shapes[k] = (1,)
    return shapes


def _check_dtype(op, name, dtype, allowed):
    if dtype is not None and np.dtype(dtype).name not in allowed:
        raise TypeInferError('%s: input %r must be %s, got %s'
                             % (op, name, ' or '.join(allowed), np.dtype(dtype).name))


class _NoGradient(Operator):
    """Shared by the four: what MXNet registers is a zero gradient for every input."""
    blocks_gradient = True

    def backward_reads(self, p):
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros(x.shape, dtype=x.dtype) for x in inputs]


class _ThreeOutputs(_NoGradient):
    """Data plus the (1,) min and max of the range the integers stand for."""

    def outputs(self, p):
        return ['output0', 'output1', 'output2']

    def _shapes(self, p, in_shapes, out_shapes, range_names):
        shapes = _check_range_shapes(self.name, range_names, in_shapes) if range_names else list(in_shapes)
        data = merge_shape(shapes[0], out_shapes[0], '%s: output' % self.name)
        shapes[0] = data
        return shapes, [data, (1,), (1,)]


# =====================================================================
# quantize
# =====================================================================

@register
class Quantize(_ThreeOutputs):
    """float32 data in the range (min_range, max_range) to int8 or uint8 (see the module doc)."""
    name = '_contrib_quantize'
    params = {'out_type': Param('enum', 'uint8', choices=('int8', 'uint8'), doc='the integer type')}

    def inputs(self, p):
        return ['data', 'min_range', 'max_range']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = self._shapes(p, in_shapes, out_shapes, ('min_range', 'max_range'))
        return ins, outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        for k, name in enumerate(self.inputs(p)):
            _check_dtype(self.name, name, in_types[k], ('float32',))
        return [_F32] * 3, [np.dtype(p.out_type), _F32, _F32], aux_types

    def forward(self, p, env, inputs, aux):
        xp, (data, low, high) = env.xp, inputs
        _check_dtype(self.name, 'data', data.dtype, ('float32',))
        magnitude = _magnitude(xp, low, high)
        scale = _F32.type(_LEVELS[p.out_type]) / magnitude
        out = _to_levels(xp, data, scale, p.out_type, half_even=False)
        if p.out_type == 'int8':
            return [out, -magnitude, magnitude.copy()]
        return [out, xp.asarray(low, dtype=_F32).reshape(1).copy(), xp.asarray(high, dtype=_F32).reshape(1).copy()]


# =====================================================================
# quantize_v2
# =====================================================================

def _calibrated(op, p):
    """The calibration range (low, high), or None to measure the data."""
    given = (p.min_calib_range is not None, p.max_calib_range is not None)
    if given == (True, True):
        return p.min_calib_range, p.max_calib_range
    if any(given):
        # MXNet then silently measures the data; one bound alone is almost surely a mistake
        raise ParamError('%s: give both min_calib_range and max_calib_range or neither, got %r and %r'
                         % (op, p.min_calib_range, p.max_calib_range))
    return None


def _chosen_type(p):
    """'auto' means uint8 when a calibrated range has no negatives, else int8."""
    if p.out_type != 'auto':
        return p.out_type
    if p.min_calib_range is not None and p.max_calib_range is not None and p.min_calib_range >= 0:
        return 'uint8'
    return 'int8'


def _calib_params():
    return {
        'min_calib_range': Param('float_or_none', None, doc='the calibrated minimum; None: measure the data'),
        'max_calib_range': Param('float_or_none', None, doc='the calibrated maximum; None: measure the data'),
    }


@register
class QuantizeV2(_ThreeOutputs):
    """float32 data to int8 or uint8, over a calibrated range or the data's own (module doc).

    Data already int8 or uint8 passes through unchanged, with the calibrated range or,
    without one, the full range of its type: (-127.5, 127.5) or (0, 255.5).
    """
    name = '_contrib_quantize_v2'
    params = dict({'out_type': Param('enum', 'int8', choices=('auto', 'int8', 'uint8'),
                                     doc="the integer type; 'auto': from min_calib_range's sign")},
                  **_calib_params())

    def inputs(self, p):
        return ['data']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = self._shapes(p, in_shapes, out_shapes, ())
        return ins, outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        _check_dtype(self.name, 'data', in_types[0], ('float32', 'int8', 'uint8'))
        return [in_types[0]], [np.dtype(_chosen_type(p)), _F32, _F32], aux_types

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        _check_dtype(self.name, 'data', data.dtype, ('float32', 'int8', 'uint8'))
        out_type = _chosen_type(p)
        calib = _calibrated(self.name, p)
        if data.dtype != _F32:
            if calib is None:
                calib = (0.0, 255.5) if data.dtype == np.uint8 else (-127.5, 127.5)
            return [data.astype(out_type), _scalar(xp, calib[0]), _scalar(xp, calib[1])]
        if calib is not None:
            low, high = _scalar(xp, calib[0]), _scalar(xp, calib[1])
        else:
            low, high = data.min().reshape(1), data.max().reshape(1)
        magnitude = _magnitude(xp, low, high)
        scale = _F32.type(_LEVELS[out_type] + 0.5) / magnitude
        out = _to_levels(xp, data, scale, out_type, half_even=True)
        if out_type == 'int8':
            return [out, -magnitude, magnitude.copy()]
        return [out, low.astype(_F32), high.astype(_F32)]


# =====================================================================
# dequantize
# =====================================================================

@register
class Dequantize(_NoGradient):
    """int8 or uint8 data standing for the range (min_range, max_range) back to float32:
    ``q * M / 127.5`` or ``q * M / 255.5`` with ``M = max(|min_range|, |max_range|)``."""
    name = '_contrib_dequantize'
    params = {'out_type': Param('enum', 'float32', choices=('float32',), doc='the float type')}

    def inputs(self, p):
        return ['data', 'min_range', 'max_range']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        shapes = _check_range_shapes(self.name, ('min_range', 'max_range'), in_shapes)
        data = merge_shape(shapes[0], out_shapes[0], '%s: output' % self.name)
        return [data] + shapes[1:], [data], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        _check_dtype(self.name, 'data', in_types[0], ('int8', 'uint8'))
        for k, name in ((1, 'min_range'), (2, 'max_range')):
            _check_dtype(self.name, name, in_types[k], ('float32',))
        return [in_types[0], _F32, _F32], [_F32], aux_types

    def forward(self, p, env, inputs, aux):
        xp, (data, low, high) = env.xp, inputs
        _check_dtype(self.name, 'data', data.dtype, ('int8', 'uint8'))
        levels = _LEVELS[data.dtype.name] + 0.5
        step = _magnitude(xp, low, high) / _F32.type(levels)
        return [data.astype(_F32) * step]


# =====================================================================
# requantize
# =====================================================================

@register
class Requantize(_ThreeOutputs):
    """int32 data standing for (min_range, max_range) to int8 or uint8 (module doc).

    Without a calibrated range reflib measures the data's own largest magnitude.  (MXNet
    1.9.1 does too, but returns min_range > max_range and every value with its sign
    flipped there; reflib gives what the formula gives.)
    """
    name = '_contrib_requantize'
    params = dict({'out_type': Param('enum', 'int8', choices=('auto', 'int8', 'uint8'),
                                     doc="the integer type; 'auto': from min_calib_range's sign")},
                  **_calib_params())

    def inputs(self, p):
        return ['data', 'min_range', 'max_range']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = self._shapes(p, in_shapes, out_shapes, ('min_range', 'max_range'))
        return ins, outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        _check_dtype(self.name, 'data', in_types[0], ('int32',))
        for k, name in ((1, 'min_range'), (2, 'max_range')):
            _check_dtype(self.name, name, in_types[k], ('float32',))
        return [np.dtype(np.int32), _F32, _F32], [np.dtype(_chosen_type(p)), _F32, _F32], aux_types

    def forward(self, p, env, inputs, aux):
        xp, (data, low, high) = env.xp, inputs
        _check_dtype(self.name, 'data', data.dtype, ('int32',))
        out_type = _chosen_type(p)
        # float64 division first, as MXNet forms the int32 step, then float32 like the rest
        step = (_magnitude(xp, low, high).astype(np.float64) / _INT32_LEVELS).astype(_F32)
        real = data.astype(_F32) * step
        calib = _calibrated(self.name, p)
        if calib is not None:
            magnitude = _magnitude(xp, _scalar(xp, calib[0]), _scalar(xp, calib[1]))
        else:
            magnitude = xp.abs(real).max().reshape(1) if real.size else _scalar(xp, 0.0)
        scale = _F32.type(_LEVELS[out_type]) / magnitude
        out = _to_levels(xp, real, scale, out_type, half_even=True)
        low_out = -magnitude if out_type == 'int8' else _scalar(xp, 0.0)
        return [out, low_out, magnitude.copy()]
