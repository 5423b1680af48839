"""The casts MXNet's automatic mixed precision (AMP) puts into a graph: ``amp_cast`` and
``amp_multicast``.

Both change the dtype of float16 and float32 arrays only (MXNet's "low precision float and
FP32"); an array of any other dtype (float64, the integers) passes through as it is.  The
values are converted as ``Cast`` converts them, and the gradient goes back converted to the
input's dtype.  Shapes never change.

Where MXNet 1.9.1's oneDNN (MKLDNN) CPU kernels differ from its plain ones (which it runs
with ``MXNET_MKLDNN_ENABLED=0``), reflib follows the plain ones:

* ``amp_cast`` from float32 to an integer dtype: the plain kernel truncates toward zero as
  ``Cast`` does; oneDNN rounds to the nearest even integer and saturates (NaN becoming the
  largest int8 and int32 but 0 for uint8), and fails for int64.
* ``amp_multicast`` with a float16 input: oneDNN fails ("unknown type"); the plain kernel
  casts.  (MXNet's own test of it runs on GPU only.)
"""

import numpy as np

from .registry import Operator, Param, register
from ..base import ShapeError, TypeInferError
from ..shapes import merge_shape

# what amp_cast and amp_multicast convert; every other dtype passes through
_LOW_PRECISION = (np.dtype(np.float16), np.dtype(np.float32))
AMP_CAST_DTYPES = ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')


def _known(t):
    return None if t is None else np.dtype(t)


def _cast(x, dtype, copy=True):
    """``x`` as ``dtype``, converted as Cast converts (out-of-range values wrap as in C)."""
    with np.errstate(all='ignore'):
        return x.astype(dtype, copy=copy)


@register
class AmpCast(Operator):
    """The input converted to ``dtype`` if it is float16 or float32, else unchanged.

    So ``amp_cast(x, dtype='float16')`` halves a float32 ``x`` but leaves a float64 or an
    int32 one as it is, and a float16 or float32 input goes to any ``dtype`` (an integer
    one too, truncating toward zero as ``Cast`` does).  The gradient is converted back to
    the input's dtype.  ``dtype='bfloat16'`` is accepted but refused when it would convert
    (numpy has no bfloat16).  An output dtype says nothing about the input's.
    """
    name = 'amp_cast'
    unnamed_inputs = True           # MXNet's monitor calls its input "input0"
    params = {'dtype': Param('enum', choices=AMP_CAST_DTYPES, doc='the dtype float16 and float32 input becomes')}

    def _out_dtype(self, p, in_dtype):
        if in_dtype not in _LOW_PRECISION:
            return in_dtype
        if p.dtype == 'bfloat16':
            raise TypeInferError('amp_cast: dtype bfloat16 is not supported by reflib (numpy has no bfloat16)')
        return np.dtype(p.dtype)

    def infer_type(self, p, in_types, out_types, aux_types):
        data = _known(in_types[0])
        return list(in_types), [None if data is None else self._out_dtype(p, data)], aux_types

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [_cast(x, self._out_dtype(p, x.dtype))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [_cast(out_grads[0], inputs[0].dtype, copy=False)]


@register
class AmpMultiCast(Operator):
    """Each of ``num_outputs`` inputs, the float16 and float32 ones converted to one dtype.

    Without ``cast_narrow`` that dtype is float32 if any input is float32; if none is, it
    is MXNet 1.9.1's starting point, the dtype of the *first* input -- so the float16
    inputs follow a first input that is float64 or an integer (``(int32, float16)`` gives
    ``(int32, int32)``, ``(float16, int32)`` gives ``(float16, int32)``), as in MXNet.
    With ``cast_narrow`` it is float16 if any input is float16, else float32.  Inputs of
    other dtypes pass through.  Output ``i`` has input ``i``'s shape (they need not agree),
    and its gradient goes back converted to input ``i``'s dtype.

    While some input dtypes are unknown, only the outputs of known inputs are inferred,
    from those alone, as MXNet does.  ``num_outputs`` is the number of inputs; MXNet 1.9.1
    wants it given, reflib fills it in from the inputs when it is left out.
    """
    name = 'amp_multicast'
    key_var_num_args = 'num_outputs'
    params = {
        'num_outputs': Param('int', doc='the number of inputs (and of outputs)', low=1),
        'cast_narrow': Param('bool', False, doc='cast to the narrowest dtype (float16) instead of the widest'),
    }

    def inputs(self, p):
        return ['data_%d' % i for i in range(p.num_outputs)]

    def outputs(self, p):
        return ['output%d' % i for i in range(p.num_outputs)]

    def _common(self, p, types):
        """The dtype the float16 and float32 inputs become (None: not known yet)."""
        if p.cast_narrow:
            return np.dtype(np.float16) if np.dtype(np.float16) in types else np.dtype(np.float32)
        return np.dtype(np.float32) if np.dtype(np.float32) in types else types[0]

    def _out_dtypes(self, p, types):
        common = self._common(p, types)
        return [t if t is None or t not in _LOW_PRECISION else common for t in types]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        shapes = [merge_shape(i, o, '%s: input %d and output %d' % (self.name, k, k))
                  for k, (i, o) in enumerate(zip(in_shapes, out_shapes))]
        return shapes, list(shapes), aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        types = [_known(t) for t in in_types]
        return list(in_types), self._out_dtypes(p, types), aux_types

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        if len(inputs) != p.num_outputs:
            raise ShapeError('%s: num_outputs=%d, but %d inputs were given' % (self.name, p.num_outputs, len(inputs)))
        dtypes = self._out_dtypes(p, [np.dtype(x.dtype) for x in inputs])
        return [_cast(x, t) for x, t in zip(inputs, dtypes)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [_cast(g, x.dtype, copy=False) for g, x in zip(out_grads, inputs)]
