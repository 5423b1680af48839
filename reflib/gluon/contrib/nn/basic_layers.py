"""The layers of ``gluon.contrib.nn``.

* Concurrent, HybridConcurrent: every child gets the same input; the outputs are joined
  along ``axis`` (an Inception block's branches, a residual branch next to an Identity).
* Identity: hands its input back.
* SparseEmbedding: Embedding whose weight and gradient are row_sparse, for vocabularies
  too large to hold or update densely.
* SyncBatchNorm: BatchNorm (channels on axis 1) through the ``_contrib_SyncBatchNorm``
  operator, one device only (see the class).
* PixelShuffle1D/2D/3D: move groups of channels into the spatial axes (sub-pixel
  upsampling).

Like gluon.nn's layers, each names its operators and parameters as MXNet 1.9.1 does, so a
hybridized layer's graph and its parameter names read the same in both libraries.
"""

import warnings

import numpy as np

from .... import ndarray
from ....context import num_gpus
from ...block import Block, HybridBlock
from ...parameter import GluonAssertionError, GluonValueError
from ...nn import Sequential, HybridSequential, BatchNorm

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']


class Concurrent(Sequential):
    """Run every child on the same input and concatenate their outputs along ``axis``
    (default -1, the last), in the order the children were added; plain Python (a Block).

    ``add``, indexing and ``len`` are Sequential's.
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        """Each child applied to ``x``, the results joined along ``self.axis``."""
        branches = [child(x) for child in self._children.values()]
        return ndarray.concat(*branches, dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Concurrent for HybridBlocks: each child on the same input, the outputs concatenated
    along ``axis`` (default -1); hybridized, the branches and the join are one graph."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        """Each child applied to ``x``, the results joined along ``self.axis`` (one ``concat``)."""
        branches = [child(x) for child in self._children.values()]
        return F.concat(*branches, dim=self.axis)


class Identity(HybridBlock):
    """A layer that returns its input unchanged: the shortcut branch of a HybridConcurrent."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        """``x`` itself."""
        return x


class SparseEmbedding(Block):
    """An embedding table (``input_dim`` rows of ``output_dim`` numbers) stored row_sparse:
    integer indices ``x`` of any shape give ``x.shape + (output_dim,)``.

    The weight is a row_sparse Parameter and so is its gradient (only the looked-up rows);
    each forward pulls just the rows ``x`` names (``row_sparse_data``), which is what makes a
    huge vocabulary trainable with the optimizers that update rows lazily.  A plain Block:
    it does not hybridize.
    """

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype,
                        'sparse_grad': True}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, stype='row_sparse', grad_stype='row_sparse')

    def forward(self, x):
        """The rows of the weight that ``x`` indexes, through the Embedding operator."""
        rows = self.weight.row_sparse_data(x)
        return ndarray.Embedding(x, rows, name='fwd', **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return '%s(%s -> %s, %s)' % (type(self).__name__, kw['input_dim'], kw['output_dim'], kw['dtype'])


class SyncBatchNorm(BatchNorm):
    """Batch normalisation over channel axis 1 whose statistics, in MXNet, are those of the
    whole batch spread over ``num_devices`` devices (the per-device calls meet under the
    layer's prefix, the operator's ``key``).

    The arguments are MXNet 1.9.1's: ``in_channels`` (0: from the first input),
    ``num_devices`` (None: the number of GPUs, at least 1, with a warning), ``momentum``,
    ``epsilon``, ``center``, ``scale``, ``use_global_stats`` and the four initializers.  The
    parameters and their names are BatchNorm's (gamma, beta, running_mean, running_var).

    With one device it gives BatchNorm's numbers (``_contrib_SyncBatchNorm`` with ``ndev=1``).
    ``num_devices`` other than 1 is refused here: reflib computes each call's output as soon as
    it is made, so the first device's output could not wait for the other devices' parts of
    the batch, and a per-device statistic would silently give other numbers than MXNet.
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones', **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)
        if num_devices is None:
            # MXNet guesses every visible GPU, and warns that the guess may be wrong
            warnings.warn('SyncBatchNorm: num_devices not given, so it is taken to be the number of '
                          'GPUs (at least 1); give it if the model does not use them all', UserWarning,
                          stacklevel=2)
            num_devices = max(num_gpus(), 1)
        if num_devices != 1:
            raise GluonValueError(
                'SyncBatchNorm: num_devices=%r is not supported; reflib runs each device\'s call to '
                'completion before the next one starts, so statistics shared across devices cannot be '
                'computed. Use num_devices=1 (per-device statistics, as BatchNorm)' % (num_devices,))
        # the operator's arguments, in the order the layer prints them
        self._kwargs = {'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats, 'ndev': num_devices, 'key': self.prefix}

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        """One ``_contrib_SyncBatchNorm`` call (node ``fwd``) on ``x`` and the four parameters."""
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name='fwd',
                                       **self._kwargs)


def _factors(factor, count, layer):
    """``factor`` as ``count`` ints: one number is used for every axis, a sequence must have
    ``count`` of them."""
    if np.ndim(factor) == 0:
        return (int(factor),) * count
    factors = tuple(int(f) for f in factor)
    if len(factors) != count:
        raise GluonAssertionError('%s: factor needs %d numbers (one per spatial axis) or one, got %d'
                                  % (layer, count, len(factors)))
    return factors


def _pixel_shuffle(F, x, factors):
    """``(N, C * f1 * ... * fd, S1, ..., Sd)`` -> ``(N, C, S1 * f1, ..., Sd * fd)``.

    The channel axis is read as ``(C, f1, ..., fd)``; the value at factor position
    ``(i1, ..., id)`` of spatial position ``(s1, ..., sd)`` lands at ``(s1 * f1 + i1, ...)``.
    Only reshapes with MXNet's special codes and one transpose, so that it works on Symbols
    of not-yet-known shapes as well as on NDArrays, and its gradient is their gradient.
    """
    d = len(factors)
    spatial = (0,) * d
    total = int(np.prod(factors))
    # split the channels into (C, f1 * ... * fd)
    x = F.reshape(x, (0, -4, -1, total) + spatial)
    # then peel the factors off one at a time: (N, C, f1, ..., fd, S1, ..., Sd)
    for k in range(d - 1):
        rest = int(np.prod(factors[k + 1:]))
        x = F.reshape(x, (0, 0) + (0,) * k + (-4, factors[k], rest) + spatial)
    # pair each spatial axis with its factor, (N, C, S1, f1, ..., Sd, fd), and merge each pair
    order = [0, 1]
    for k in range(d):
        order += [2 + d + k, 2 + k]
    x = F.transpose(x, axes=tuple(order))
    return F.reshape(x, (0, 0) + (-3,) * d)


class PixelShuffle1D(HybridBlock):
    """Sub-pixel upsampling of the width: ``(N, f * C, W)`` -> ``(N, C, W * f)``, each group of
    ``f`` channels becoming ``f`` neighbouring positions.  ``factor``: one int."""

    def __init__(self, factor):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        """Move the factor out of the channels into the width."""
        return _pixel_shuffle(F, x, (self._factor,))

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._factor)


class PixelShuffle2D(HybridBlock):
    """Sub-pixel upsampling of height and width: ``(N, f1 * f2 * C, H, W)`` ->
    ``(N, C, H * f1, W * f2)``, each group of ``f1 * f2`` channels becoming an ``f1 x f2``
    block of pixels.  ``factor``: one int for both axes, or ``(f1, f2)``."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2, type(self).__name__)

    def hybrid_forward(self, F, x):
        """Move the factors out of the channels into height and width."""
        return _pixel_shuffle(F, x, self._factors)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._factors)


class PixelShuffle3D(HybridBlock):
    """Sub-pixel upsampling of depth, height and width: ``(N, f1 * f2 * f3 * C, D, H, W)`` ->
    ``(N, C, D * f1, H * f2, W * f3)``.  ``factor``: one int for all three axes, or
    ``(f1, f2, f3)``."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3, type(self).__name__)

    def hybrid_forward(self, F, x):
        """Move the factors out of the channels into depth, height and width."""
        return _pixel_shuffle(F, x, self._factors)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._factors)
