"""``mx.np``: a small, real subset of MXNet 1.9.1's NumPy interface (``mxnet.numpy``).

What is here:

* ``ndarray``, a subclass of NDArray whose indexing, arithmetic and methods hand back
  ``mx.np.ndarray``; it prints as NumPy does (``array([1., 2.])``, the dtype named unless it is
  float32), its ``dtype`` is a ``numpy.dtype``, and ``reshape`` follows NumPy's rules (one -1,
  none of MXNet's special codes).  ``as_nd_ndarray()`` / ``NDArray.as_np_ndarray()`` convert
  between the two kinds, sharing memory.
* creation (``array``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``, ``zeros_like``,
  ``ones_like``; float32 unless a dtype is given), ``concatenate``, ``stack``, ``split``,
  ``reshape``, ``sum``, ``mean``, ``dot``, ``exp``, ``log``, ``sqrt``, ``tanh``, ``sin``, ``cos``,
  ``abs``, ``square``, ``maximum``, ``minimum``, ``max``/``amax``, ``min``/``amin``, ``prod``,
  ``argmax``, ``argmin`` (int64), ``clip``, ``where``, ``transpose``, ``expand_dims``, ``squeeze``,
  ``linspace``, ``sinh``, ``cosh``, ``power``, ``tile``, ``repeat``, ``cumsum``, ``var``, ``std``,
  ``meshgrid``, ``genfromtxt``, ``broadcast_to``, ``log10`` and ``linalg.norm`` (the functions
  d2l's MXNet edition calls), NumPy's other elementwise functions (``floor``, ``sign``,
  ``arctan``, ... and ``add``, ``equal``, ...), ``flip``, ``ravel``, ``eye``, ``identity``,
  ``full_like``, and ``mx.np.random`` (``uniform``, ``normal``, ``randn``,
  ``randint``, ``choice``, ``multinomial``, with NumPy's ``size=``).

Every function runs the registry's operators through the imperative call path, so autograd
records it as it records ``mx.nd``.  The functions run under NumPy shape semantics whatever
the thread's switch says (``()`` is a scalar's shape, a 0 dimension a real size); MXNet
refuses 0-d and zero-size arrays here unless ``npx.set_np()`` was called.

Under ``npx.set_np()`` Gluon works with these arrays: Parameters hold them, HybridBlocks and
the DataLoader hand them back (see ``reflib.util.set_np``).  Also here: NumPy's dtypes and
constants (``mx.np.float32`` is ``numpy.float32``), and ``item()``, ``float()``, ``int()`` of a
one-element array.

The elementwise functions keep an integer input's dtype (``exp`` of int32 is int32, the
fraction dropped), as MXNet 1.9.1's do where NumPy would give floats.

Not covered: NumPy's type promotion (two operands must share a dtype, as for NDArray, except
that integer ``/`` gives float32), the rest of MXNet's ``mx.np`` functions, and MXNet's NumPy
symbols (``mx.sym.np``): a block whose ``hybrid_forward`` calls ``F.np`` cannot be hybridized
(one that calls ``F.npx`` can: ``mx.sym.npx`` has every ``mx.npx`` operator).
"""

from .multiarray import (ndarray, array, zeros, ones, full, empty, arange, zeros_like, ones_like,
                         concatenate, stack, split, reshape, sum, mean, dot, maximum, minimum, max, min, amax,
                         amin, prod, argmax, argmin, clip, where, transpose, expand_dims, squeeze, linspace,
                         power, tile, repeat, cumsum, var, std, meshgrid, genfromtxt, broadcast_to, flip, ravel,
                         eye, identity, full_like, _UNARY, _BY_OPERATOR)
from . import multiarray as _multiarray
# the elementwise functions made from multiarray's tables (exp, floor, add, equal, ...)
globals().update({_name: getattr(_multiarray, _name) for _name in list(_UNARY) + list(_BY_OPERATOR)})
from . import random, linalg
# NumPy's dtypes and constants, the very objects: mx.np.float32 is numpy.float32, as in MXNet
from numpy import (float16, float32, float64, int8, uint8, int32, int64, bool_, pi, e, inf,  # noqa: E402
                   nan, newaxis)
bool = bool_      # noqa: A001  (MXNet's mx.np.bool is NumPy's bool_)

__all__ = ['ndarray', 'array', 'zeros', 'ones', 'full', 'empty', 'arange', 'zeros_like', 'ones_like',
           'concatenate', 'stack', 'split', 'reshape', 'sum', 'mean', 'dot', 'maximum', 'minimum', 'max',
           'min', 'amax', 'amin', 'prod', 'argmax', 'argmin', 'clip', 'where', 'transpose', 'expand_dims',
           'squeeze', 'linspace', 'power', 'tile', 'repeat', 'cumsum', 'var', 'std', 'meshgrid',
           'genfromtxt', 'broadcast_to', 'flip', 'ravel', 'eye', 'identity', 'full_like', 'random', 'linalg',
           'float16', 'float32', 'float64', 'int8', 'uint8', 'int32', 'int64', 'bool_', 'bool', 'pi', 'e',
           'inf', 'nan', 'newaxis']
__all__ += list(_UNARY) + list(_BY_OPERATOR)
