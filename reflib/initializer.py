"""Initializers: how a parameter gets its first value.

``Module.init_params`` walks over every argument and auxiliary state that no
``arg_params``/``aux_params`` provided and calls ``initializer(desc, arr)``,
where ``desc`` is an :class:`InitDesc` -- the variable's name, which is also
a ``str``, plus the variable's attributes -- and ``arr`` is the NDArray to
fill in place.

``Initializer.__call__`` decides what to do, in this order (MXNet 1.9.1):

1. the variable carries an ``__init__`` attribute (``Variable(init=...)``, or
   set by an operator: BatchNorm marks ``moving_mean`` with
   ``'["zero", {}]'`` and ``moving_var`` with ``'["one", {}]'``): that JSON is
   turned back into an initializer with :func:`create` and its
   ``_init_weight`` fills the array, whatever the name;
2. otherwise the *end of the name* decides::

       ...weight  -> _init_weight   (the only place subclasses differ)
       ...bias    -> 0              ...gamma -> 1          ...beta -> 0
       ...min     -> 0              ...max   -> 1
       ...weight_quantize, ...bias_quantize  (int8 quantized parameters)

   and any other name is an error.  Note the list has no ``moving_mean`` or
   ``moving_var``: a BatchNorm's statistics get their values from rule 1.

Calling an initializer with a plain string instead of an InitDesc is MXNet's
older, deprecated convention; it uses a longer list of suffixes (including
``moving_mean``/``moving_var``/``moving_inv_var``/``moving_avg``) and knows
``upsampling*`` (bilinear) and ``stn_loc*`` names.

Random initializers draw from :mod:`reflib.random`, the seeded generator of
the array's context: repeatable after ``mx.random.seed``, but not the same
numbers as MXNet's generator.  The *distributions* are the same: the scale of
``Xavier`` on a ``(64, 3, 3, 3)`` convolution weight is exactly MXNet's.
"""

import json
import logging
import math
import re
import warnings

import numpy as np

from .base import MXNetError
from .registry import Registry
from . import random
from . import ndarray as nd
from .ndarray import NDArray
from .symbol.symbol import register_init_attr_check

__all__ = ['InitDesc', 'Initializer', 'InitializerError', 'register', 'alias', 'create',
           'Load', 'Mixed', 'Zero', 'One', 'Constant', 'Uniform', 'Normal', 'Orthogonal',
           'Xavier', 'MSRAPrelu', 'Bilinear', 'LSTMBias', 'FusedRNN']


class InitializerError(MXNetError, ValueError):
    """An initializer cannot fill a parameter: unknown name pattern, bad shape, unknown initializer."""


class InitDesc(str):
    """A parameter's name (it *is* the string) plus its attributes and the global initializer.

    ``attrs`` are the variable's attributes from ``Symbol.attr_dict()`` (e.g.
    ``{'__init__': '["zero", {}]'}``); ``global_init`` is set by the first
    initializer that handles the descriptor, so that a nested initializer can
    fall back to it.
    """

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


# ------------------------------------------------------------------ registry
_REGISTRY = Registry('initializer', on_replace='warn', error=InitializerError)   # base: below Initializer


def register(klass, name=None):
    """Make an Initializer subclass creatable by name (its lower-cased class name by default).

    Use as a decorator: ``@mx.init.register``.  The name is what ``dumps()`` writes and what
    ``create`` and the ``__init__`` attribute of a variable look up.
    """
    return _REGISTRY.register(klass, name)


def alias(*aliases):
    """Decorator registering a class under extra names: ``@alias('zeros')``."""
    return _REGISTRY.alias(*aliases)


def create(*args, **kwargs):
    """An Initializer from a name, a JSON string, a config dict, or an Initializer (returned as is).

    >>> create('xavier', magnitude=2).dumps()
    '["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 2}]'
    >>> create('["constant", {"value": 0.5}]').value
    0.5
    """
    if args:
        spec, args = args[0], args[1:]
    elif 'initializer' in kwargs:
        spec = kwargs.pop('initializer')
    else:
        raise InitializerError('create: say which initializer to create')
    if isinstance(spec, Initializer):
        if args or kwargs:
            raise InitializerError('create: %r is already an initializer; extra arguments make no sense'
                                   % (spec,))
        return spec
    if isinstance(spec, dict):
        return create(**spec)
    if not isinstance(spec, str):
        raise InitializerError('create: expected an initializer name or JSON string, got %s'
                               % type(spec).__name__)
    if spec.startswith('['):       # what dumps() writes: '["name", {kwargs}]'
        name, json_kwargs = json.loads(spec)
        return create(name, **json_kwargs)
    if spec.startswith('{'):
        return create(**json.loads(spec))
    return _REGISTRY.find(spec)(*args, **kwargs)


# ------------------------------------------------------------------ base class
class Initializer:
    """Base class: fills biases, gammas, betas, ...; subclasses say how to fill weights.

    The keyword arguments given to ``__init__`` are kept in ``_kwargs``: they are what
    ``dumps()`` writes, so ``create(init.dumps())`` rebuilds an equal initializer.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    # ------------------------------------------------------------- describing
    def dumps(self):
        """``'["<lower-cased class name>", {constructor kwargs}]'``, the ``__init__`` attribute format."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # equal by value and mutable, as in MXNet: not hashable

    def set_verbosity(self, verbose=False, print_func=None):
        """Log one line per initialized array: its name, the rule used and ``print_func(arr)``.

        The default statistic is ``norm(arr) / sqrt(arr.size)`` (root mean square).
        """
        self._verbose = verbose
        self._print_func = print_func or (
            lambda x: str(float(x.norm().asscalar()) / math.sqrt(x.size)))
        return self

    def _verbose_print(self, desc, how, arr):
        if self._verbose and self._print_func:
            logging.info('Initialized %s as %s: %s', desc, how, self._print_func(arr))

    # ------------------------------------------------------------- dispatch
    # (suffix, method name) in the order MXNet 1.9.1 tries them for an InitDesc.
    _SUFFIX_RULES = (('weight', '_init_weight'), ('bias', '_init_bias'), ('gamma', '_init_gamma'),
                     ('beta', '_init_beta'), ('min', '_init_zero'), ('max', '_init_one'),
                     ('weight_quantize', '_init_quantized_weight'),
                     ('bias_quantize', '_init_quantized_bias'))

    # The older convention (a plain string name): more suffixes, checked in this order.
    _LEGACY_SUFFIX_RULES = (('bias', '_init_bias'), ('gamma', '_init_gamma'), ('beta', '_init_beta'),
                            ('weight', '_init_weight'), ('moving_mean', '_init_zero'),
                            ('moving_var', '_init_one'), ('moving_inv_var', '_init_zero'),
                            ('moving_avg', '_init_zero'), ('min', '_init_zero'), ('max', '_init_one'))

    def __call__(self, desc, arr):
        """Fill ``arr`` (an NDArray, in place) for the parameter described by ``desc``."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init_attr = desc.attrs.get('__init__', '')
        if init_attr:
            # the variable chose its own initializer: it wins over this one and over the name
            create(init_attr)._init_weight(desc, arr)
            self._verbose_print(desc, init_attr, arr)
            return
        for suffix, method in self._SUFFIX_RULES:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        warnings.warn('calling an initializer with a plain name string is deprecated; '
                      'pass mx.init.InitDesc(name, attrs) instead', DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError('initializer: the name must be a string, got %s' % type(name).__name__)
        if not isinstance(arr, NDArray):
            raise TypeError('initializer: the array must be an NDArray, got %s' % type(arr).__name__)
        if name.startswith('upsampling'):
            self._init_bilinear(name, arr)
            return
        if name.startswith('stn_loc') and name.endswith('weight'):
            self._init_zero(name, arr)
            return
        if name.startswith('stn_loc') and name.endswith('bias'):
            self._init_loc_bias(name, arr)
            return
        for suffix, method in self._LEGACY_SUFFIX_RULES:
            if name.endswith(suffix):
                getattr(self, method)(name, arr)
                return
        self._init_default(name, arr)

    # ------------------------------------------------------------- the rules
    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    _init_bias = _init_zero
    _init_beta = _init_zero
    _init_gamma = _init_one

    def _init_weight(self, name, arr):
        raise NotImplementedError('%s does not say how to fill weights (%s): subclasses of '
                                  'Initializer must implement _init_weight' % (type(self).__name__, name))

    def _init_bilinear(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)

    def _init_loc_bias(self, name, arr):
        if arr.shape[0] != 6:
            raise InitializerError('%s: a spatial transformer localisation bias has 6 entries, '
                                   'this array has shape %s' % (name, arr.shape))
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_quantized_weight(self, _, arr):
        # MXNet draws ONE int in [-127, 127) and broadcasts it over the array
        value = random.randint(-127, 127, shape=(1,), dtype='int32').asnumpy()
        arr[:] = np.int8(value)

    def _init_quantized_bias(self, _, arr):
        arr[:] = 0

    def _init_default(self, name, _):
        raise InitializerError(
            'cannot initialize %r: without an __init__ attribute only names ending in weight, bias, '
            'gamma (1), beta (0), min (0) or max (1) have a default; give the variable its own '
            'initializer with mx.sym.Variable(%r, init=mx.init....)' % (str(name), str(name)))


def _bilinear_kernel(shape):
    """Weights of a bilinear upsampling kernel, repeated over the first two axes.

    Both spatial axes use the factor of the last one (MXNet computes it from shape[3]).
    """
    if len(shape) != 4:
        raise InitializerError('Bilinear needs a 4-D (out, in, height, width) weight, got shape %s'
                               % (shape,))
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    x = np.arange(shape[3])
    y = np.arange(shape[2])
    kernel = np.outer(1 - np.abs(y / f - c), 1 - np.abs(x / f - c)).astype(np.float32)
    return np.broadcast_to(kernel, shape)


_REGISTRY.base = Initializer


# ------------------------------------------------------------------ combinators
class Load:
    """Fill parameters from a dict (or a .params file), falling back to ``default_init``.

    Keys may carry the ``arg:``/``aux:`` prefixes of checkpoint files; they are dropped.
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = nd.load(param)
        if not isinstance(param, dict):
            raise InitializerError('Load: expected a dict of name -> NDArray (or a file holding one), '
                                   'got %s' % type(param).__name__)
        self.param = {}
        for name, arr in param.items():
            if name.startswith(('arg:', 'aux:')):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            if tuple(arr.shape) != tuple(self.param[name].shape):
                raise InitializerError('Load: %s has shape %s in the loaded parameters, the target has %s'
                                       % (name, tuple(self.param[name].shape), tuple(arr.shape)))
            arr[:] = self.param[name]
            if self.verbose:
                logging.info('Initialized %s by loading', name)
            return
        if self.default_init is None:
            raise InitializerError('Load: %s is not among the loaded parameters (%s) and no default_init '
                                   'was given' % (name, ', '.join(sorted(self.param))))
        self.default_init(name, arr)
        if self.verbose:
            logging.info('Initialized %s by default', name)


class Mixed:
    """The first initializer whose regular expression matches the start of the name fills it.

    >>> init = Mixed(['.*bias', '.*'], [Zero(), Uniform(0.1)])
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise InitializerError('Mixed: %d patterns but %d initializers'
                                   % (len(patterns), len(initializers)))
        self.map = [(re.compile(p), init) for p, init in zip(patterns, initializers)]

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):       # re.match: anchored at the start of the name
                init(name, arr)
                return
        raise InitializerError('Mixed: parameter %s matches none of the patterns %s; add ".*" at the '
                               'end with a default initializer'
                               % (name, [prog.pattern for prog, _ in self.map]))


# ------------------------------------------------------------------ initializers
@register
@alias('zeros')
class Zero(Initializer):
    """Weights are 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias('ones')
class One(Initializer):
    """Weights are 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Weights are ``value``: a scalar, or an array broadcast to the weight's shape."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        value = self._kwargs['value']
        if isinstance(value, NDArray):      # arrays are written as nested lists
            self._kwargs['value'] = value.asnumpy().tolist()
        elif isinstance(value, (np.ndarray, np.generic)):
            self._kwargs['value'] = value.tolist()
        return json.dumps([type(self).__name__.lower(), self._kwargs])


def _non_negative(owner, name, value):
    """``value`` itself (dumps() writes it back as given) once it is known to be a number >= 0.
    MXNet accepts ``Normal(sigma=-1)`` and fails only when it draws; reflib refuses it here."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) or not value >= 0:
        raise InitializerError('%s: %s must be a number >= 0, got %r' % (owner, name, value))
    return value


@register
class Uniform(Initializer):
    """Weights drawn uniformly from [-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = _non_negative('Uniform', 'scale', scale)

    def _init_weight(self, _, arr):
        random.uniform(-self.scale, self.scale, arr.shape, dtype=arr.dtype, out=arr)


@register
class Normal(Initializer):
    """Weights drawn from N(0, sigma^2)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = _non_negative('Normal', 'sigma', sigma)

    def _init_weight(self, _, arr):
        random.normal(0, self.sigma, arr.shape, dtype=arr.dtype, out=arr)


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (Saxe et al. 2013) times ``scale``, from uniform or normal draws."""

    def __init__(self, scale=1.414, rand_type='uniform'):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == 'uniform':
            draws = random.uniform(-1.0, 1.0, shape=(nout, nin), ctx=arr.context).asnumpy()
        elif self.rand_type == 'normal':
            draws = random.normal(0.0, 1.0, shape=(nout, nin), ctx=arr.context).asnumpy()
        else:
            raise InitializerError('Orthogonal: rand_type must be "uniform" or "normal", got %r'
                                   % (self.rand_type,))
        u, _, v = np.linalg.svd(draws, full_matrices=False)
        q = u if u.shape == draws.shape else v      # the factor with the draws' shape
        arr[:] = (self.scale * q).reshape(arr.shape)


def xavier_scale(shape, factor_type='avg', magnitude=3.0, name='weight'):
    """The bound (uniform) or standard deviation (gaussian) Xavier uses for ``shape``.

    fan_in = shape[1] * receptive field, fan_out = shape[0] * receptive field, where the
    receptive field is the product of the axes after the first two (1 for a 2-D weight),
    and the scale is ``sqrt(magnitude / factor)`` with factor = (fan_in + fan_out) / 2,
    fan_in or fan_out.  A (64, 3, 3, 3) convolution: fan_in 27, fan_out 576.
    """
    if len(shape) < 2:
        raise InitializerError('Xavier cannot initialize %s of shape %s: it needs at least 2 dimensions'
                               % (name, tuple(shape)))
    receptive = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    if factor_type == 'avg':
        factor = (fan_in + fan_out) / 2.0
    elif factor_type == 'in':
        factor = fan_in
    elif factor_type == 'out':
        factor = fan_out
    else:
        raise InitializerError('Xavier: factor_type must be "avg", "in" or "out", got %r' % (factor_type,))
    return float(np.sqrt(float(magnitude) / factor))


@register
class Xavier(Initializer):
    """Glorot & Bengio's scaling: uniform in [-s, s] or gaussian with std s, s = sqrt(magnitude/factor).

    See :func:`xavier_scale` for how fan_in, fan_out and the factor are computed.
    """

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(_non_negative('Xavier', 'magnitude', magnitude))

    def _init_weight(self, name, arr):
        scale = xavier_scale(arr.shape, self.factor_type, self.magnitude, name)
        if self.rnd_type == 'uniform':
            random.uniform(-scale, scale, arr.shape, dtype=arr.dtype, out=arr)
        elif self.rnd_type == 'gaussian':
            random.normal(0, scale, arr.shape, dtype=arr.dtype, out=arr)
        else:
            raise InitializerError('Xavier: rnd_type must be "uniform" or "gaussian", got %r'
                                   % (self.rnd_type,))


@register
class MSRAPrelu(Xavier):
    """He et al.'s initialization for (P)ReLU nets: gaussian Xavier with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type='avg', slope=0.25):
        super().__init__('gaussian', factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {'factor_type': factor_type, 'slope': slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernels (for Deconvolution weights)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """All zeros except the forget gate's quarter (the second of four), set to ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


@register
class FusedRNN(Initializer):
    """The flat parameter vector of a fused ``RNN`` layer (``mx.rnn.FusedRNNCell``), filled as
    the separate gate weights and biases it holds would be: ``init`` (or, when None, the
    global initializer) on each, and for LSTM the forget gate's biases set to ``forget_bias``.

    ``init`` may be given as the JSON text ``dumps()`` writes (MXNet 1.9.1 fails to rebuild
    one from that text: it looks the name up in the wrong registry).
    """

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                         forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._forget_bias = bidirectional, forget_bias

    def _init_weight(self, desc, arr):
        # rnn/ builds on this module (LSTMBias, FusedRNN): MXNet's FusedRNN imports rnn here too
        from .rnn.fused import FusedRNNCell
        fallback = getattr(desc, 'global_init', None)
        if self._init is None and fallback is None:
            raise InitializerError('%s: FusedRNN without an init of its own needs a global initializer '
                                   '(pass an InitDesc whose global_init is set)' % (desc,))
        cell = FusedRNNCell(self._num_hidden, self._num_layers, self._mode, self._bidirectional,
                            forget_bias=self._forget_bias, prefix='')
        init = self._init if self._init is not None else fallback
        pieces = cell.unpack_weights({'parameters': arr})
        for name, piece in pieces.items():
            if self._mode == 'lstm' and name.endswith('_f_bias'):
                piece[:] = self._forget_bias
            else:
                init(InitDesc(name, global_init=fallback), piece)
        arr[:] = cell.pack_weights(pieces)['parameters']


# a variable's __init__ attribute is checked against this module's registry when the variable
# is made or loaded (the symbol layer below cannot import it: it asks through this hook)
register_init_attr_check(create)
