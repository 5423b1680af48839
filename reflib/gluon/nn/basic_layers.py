"""Containers and the basic layers: Sequential, HybridSequential, Dense, Dropout, the
normalisation layers (BatchNorm, BatchNormReLU, InstanceNorm, LayerNorm, GroupNorm),
Embedding, Flatten, Lambda and HybridLambda.

Each layer declares its parameters (names, shapes with 0 for what the first input will
tell, initializers, grad_req as MXNet 1.9.1 gives them) and calls one operator, named
``fwd`` where MXNet names it so: a hybridized layer's graph then has MXNet's node names
(``batchnorm0_fwd``), and an exported model reads the same in both libraries."""

import warnings

import numpy as np

from ... import ndarray
from ... import symbol
from ..block import Block, HybridBlock, _indent
from ..parameter import GluonAssertionError, GluonValueError
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding', 'BatchNorm', 'BatchNormReLU',
           'InstanceNorm', 'LayerNorm', 'GroupNorm', 'Flatten', 'Lambda', 'HybridLambda']


class _Stack:
    """What both sequential containers share: ``add``, indexing (a slice is a new container
    over the same layers), ``len`` and the printed form."""

    def add(self, *blocks):
        """Append layers; they run in the order added."""
        for block in blocks:
            self.register_child(block)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)

    def __repr__(self):
        lines = ['  (%s): %s' % (key, _indent(repr(block), 2)) for key, block in self._children.items()]
        return '%s(\n%s\n)' % (type(self).__name__, '\n'.join(lines))


class Sequential(_Stack, Block):
    """Layers run one after the other, in Python."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x):
        """Pass ``x`` through the layers in the order they were added; return the last one's output."""
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider using "
                          "HybridSequential for the best performance." % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_Stack, HybridBlock):
    """Layers run one after the other; hybridized, the whole stack is one Symbol."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        """Pass ``x`` through the layers in the order they were added; return the last one's output.

        Hybridized, this traces the whole stack into one Symbol.
        """
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """A fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    ``units``: outputs; ``in_units``: inputs (0: taken from the first input, deferred
    initialisation); ``flatten``: treat all axes but the first as one (True) or apply the
    layer to the last axis only (False).  ``weight_initializer`` None means the one given
    to ``initialize``; the bias starts at zero.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype='float32',
                 weight_initializer=None, bias_initializer='zeros', in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = self.params.get('bias', shape=(units,), init=bias_initializer, dtype=dtype,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + '_') if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name='fwd')
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        rows, cols = self.weight.shape
        return '%s(%s -> %s, %s)' % (type(self).__name__, cols if cols else None, rows,
                                     self.act if self.act is not None else 'linear')


def _scale_and_shift(block, size, scale, center, gamma_initializer, beta_initializer, **extra):
    """A normalisation layer's ``gamma`` and ``beta`` of shape ``(size,)``: learned when
    ``scale``/``center`` ask for it, else left at their initial values (grad_req 'null')."""
    block.gamma = block.params.get('gamma', grad_req='write' if scale else 'null', shape=(size,),
                                   init=gamma_initializer, allow_deferred_init=True, **extra.get('gamma', {}))
    block.beta = block.params.get('beta', grad_req='write' if center else 'null', shape=(size,),
                                  init=beta_initializer, allow_deferred_init=True, **extra.get('beta', {}))


def _settings(kwargs):
    """``key=value, ...`` as the normalisation layers print their settings (values by repr)."""
    return ', '.join('%s=%r' % item for item in kwargs.items())


class Dropout(HybridBlock):
    """Zero a fraction ``rate`` of the inputs while training (scaling the rest by
    ``1 / (1 - rate)``); the identity when predicting.  ``axes``: axes along which one
    draw is shared (the same units dropped at every position along them)."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False)
        # rate 0 is a copy, with MXNet's graph node (``_copy``, named by its counter)
        return F.identity(x)

    def __repr__(self):
        return '%s(p = %s, axes=%s)' % (type(self).__name__, self._rate, self._axes)


class _BatchNorm(HybridBlock):
    """What BatchNorm and BatchNormReLU share: the four parameters of one channel axis
    (``gamma``, ``beta`` learned; ``running_mean``, ``running_var`` updated by the operator in
    training and used in prediction, never given a gradient) and the operator's settings.

    ``scale=False`` fixes gamma at 1 (the operator's ``fix_gamma``) and ``center=False``
    leaves beta out of training (grad_req 'null'); ``in_channels`` 0 waits for the first
    input."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 fuse_relu=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(**kwargs)
        # the operator's arguments, in the order the layer prints them
        self._kwargs = {'axis': axis, 'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats}
        self.fuse_relu = fuse_relu
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        _scale_and_shift(self, in_channels, scale, center, gamma_initializer, beta_initializer,
                         gamma={'differentiable': scale}, beta={'differentiable': center})
        self.running_mean = self.params.get('running_mean', grad_req='null', shape=shape,
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get('running_var', grad_req='null', shape=shape,
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def cast(self, dtype):
        # statistics in half precision lose too much: MXNet keeps a float16 network's
        # BatchNorm in float32, and so does reflib
        if np.dtype(dtype).name == 'float16':
            dtype = 'float32'
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name='fwd', **self._kwargs)
        if self.fuse_relu:
            # MXNet fuses the two into one oneDNN operator (_contrib_BatchNormWithReLU, 4-D
            # input only); reflib has no fused operator, and relu after BatchNorm gives the
            # same values and gradients
            out = F.relu(out)
        return out

    def __repr__(self):
        channels = self.gamma.shape[0]
        return '%s(%s, in_channels=%s)' % (type(self).__name__, _settings(self._kwargs), channels or None)


class BatchNorm(_BatchNorm):
    """Batch normalisation over axis ``axis`` (the channels): normalise by the batch's
    mean and variance while training (updating the running ones with ``momentum``), by the
    running ones when predicting or with ``use_global_stats``; then ``gamma * x + beta``."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer='zeros', gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, fuse_relu=False, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)


class BatchNormReLU(_BatchNorm):
    """BatchNorm followed by relu (the same arguments as BatchNorm)."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer='zeros', gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, fuse_relu=True, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)


class Embedding(HybridBlock):
    """A lookup table: integer indices ``x`` (any shape) -> rows of ``weight``
    (``input_dim`` x ``output_dim``), out shape ``x.shape + (output_dim,)``.

    ``sparse_grad``: the weight's gradient is row_sparse (only the looked-up rows), which
    the optimizers that support it update lazily."""

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None, sparse_grad=False,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype,
                        'sparse_grad': sparse_grad}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, allow_deferred_init=True,
                                      grad_stype='row_sparse' if sparse_grad else 'default')

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '%s(%s -> %s, %s)' % (type(self).__name__, self._kwargs['input_dim'], self._kwargs['output_dim'],
                                     self._kwargs['dtype'])


class Flatten(HybridBlock):
    """``(N, d1, d2, ...)`` -> ``(N, d1 * d2 * ...)``."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return type(self).__name__


class InstanceNorm(HybridBlock):
    """Normalise each sample's each channel over its other axes, then ``gamma * x + beta``
    per channel.  ``axis``: the channel axis (the operator wants it at 1, so another axis is
    swapped there and back).  Note the default ``scale=False``: gamma stays at its initial
    value (ones) unless asked for."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer='zeros',
                 gamma_initializer='ones', in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}
        self._axis = axis
        self._epsilon = epsilon
        _scale_and_shift(self, in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon).swapaxes(1, self._axis)

    def __repr__(self):
        # unlike BatchNorm, an unknown channel count prints as 0 (as in MXNet)
        return '%s(%s, in_channels=%s)' % (type(self).__name__, _settings(self._kwargs), self.gamma.shape[0])


class LayerNorm(HybridBlock):
    """Normalise over the single axis ``axis`` (the last by default), then ``gamma * x +
    beta`` along it."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer='zeros',
                 gamma_initializer='ones', in_channels=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}
        self._axis = axis
        self._epsilon = epsilon
        _scale_and_shift(self, in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        # no name='fwd': MXNet names this node by its counter (``layernorm0_layernorm0``)
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    def __repr__(self):
        return '%s(%s, in_channels=%s)' % (type(self).__name__, _settings(self._kwargs), self.gamma.shape[0])


class GroupNorm(HybridBlock):
    """Split axis 1 (channels) into ``num_groups`` groups and normalise each sample's each
    group over all its values.  In MXNet 1.9.1 gamma and beta have one value per *group*
    (shape ``(num_groups,)``), not per channel."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer='zeros',
                 gamma_initializer='ones', prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {'eps': epsilon, 'num_groups': num_groups, 'center': center, 'scale': scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        _scale_and_shift(self, num_groups, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, _settings(self._kwargs))


def _function_name(function, what):
    """``function``'s printed name; an error naming ``what`` when it is neither a name nor
    callable."""
    if isinstance(function, str):
        return function
    if callable(function):
        return function.__name__
    raise GluonValueError('Unrecognized function in lambda: %r of type %s (%s takes an operator name or a '
                          'function)' % (function, type(function), what))


class Lambda(Block):
    """A function as a Block: ``function`` is the name of an ``mx.nd`` operator ('tanh') or
    a callable taking the inputs (``lambda x: nd.LeakyReLU(x, slope=0.1)``).  Runs in
    Python only: hybridize() leaves it as it is."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        name = _function_name(function, 'Lambda')
        if isinstance(function, str):
            if not hasattr(ndarray, function):
                raise GluonAssertionError('Lambda: function name %s is not found in ndarray.' % function)
            function = getattr(ndarray, function)
        self._func_impl = function
        self._func_name = name

    def forward(self, *args):
        """Return ``function(*args)``: the wrapped function applied to the inputs as given."""
        return self._func_impl(*args)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._func_name)


class HybridLambda(HybridBlock):
    """A function as a HybridBlock: ``function`` is the name of an operator found in both
    ``mx.nd`` and ``mx.sym`` ('tanh'), or a callable ``function(F, x, *args)`` written for
    either (``lambda F, x: F.LeakyReLU(x, slope=0.1)``)."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        self._func_name = _function_name(function, 'HybridLambda')
        if isinstance(function, str):
            if not (hasattr(ndarray, function) and hasattr(symbol, function)):
                raise GluonAssertionError('HybridLambda: function name %s is not found in symbol/ndarray.'
                                          % function)
            function = _by_name(function)
        self._func = function

    def hybrid_forward(self, F, x, *args):
        """Return ``function(F, x, *args)`` (an operator name calls ``F.<name>(x, *args)``)."""
        return self._func(F, x, *args)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._func_name)


def _by_name(name):
    """``F.<name>(*args)`` for whichever of mx.nd / mx.sym ``F`` is."""
    def call(F, *args):
        return getattr(F, name)(*args)
    return call
