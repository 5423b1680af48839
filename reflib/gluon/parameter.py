"""Gluon's Parameter: one named weight, its copy on each context, and its gradient buffers.

A Parameter is created *before* its shape is fully known (``nn.Dense(10)`` does not know how
many inputs it will see), so its life has three stages:

1. declared: a name, a shape that may hold unknown (0) dimensions, a dtype, an initializer;
2. initialize() called: if the shape is complete the values are drawn at once; if not,
   the initializer and the contexts are kept (*deferred*) until the first forward pass
   infers the missing dimensions (HybridBlock.infer_shape) and calls
   ``_finish_deferred_init``;
3. live: one NDArray per context (``data(ctx)``) and, unless ``grad_req='null'``, one
   gradient buffer per context, each data array marked as an autograd variable whose
   gradient goes into its buffer.  The Trainer keeps the copies equal.

A ParameterDict is the named collection a Block hands out (``collect_params()``): it adds
the owning block's prefix to the names and can share parameters with another dict.
"""

import re
import warnings
from collections import OrderedDict

import numpy as np

from .. import autograd
from .. import initializer
from .. import ndarray
from .. import symbol
from ..base import MXNetError
from ..context import Context, cpu, current_context
from ..numpy.multiarray import as_np_arrays
from ..shapes import is_np_shape, shape_is_known
from ..util import is_np_array

__all__ = ['DeferredInitializationError', 'GluonAssertionError', 'GluonValueError', 'Parameter', 'Constant', 'ParameterDict', 'tensor_types']

tensor_types = (symbol.Symbol, ndarray.NDArray)

GRAD_REQS = ('write', 'add', 'null')
STYPES = ('default', 'row_sparse', 'csr')


class DeferredInitializationError(MXNetError):
    """A parameter's values were asked for before the first forward pass gave its shape."""


class GluonAssertionError(MXNetError, AssertionError):
    """A Gluon consistency check that failed (MXNet asserts these, so they are AssertionErrors too)."""


class GluonValueError(MXNetError, ValueError):
    """A Gluon call given a value it cannot use (a ValueError, as in MXNet)."""


def _contexts(ctx):
    if ctx is None:
        return [current_context()]
    return [ctx] if isinstance(ctx, Context) else list(ctx)


def _short_list(names, limit=6):
    """The names for an error message, the middle elided when there are many."""
    names = list(names)
    if len(names) > limit:
        names = names[:limit // 2] + ['...'] + names[-(limit // 2):]
    return ', '.join("'%s'" % n for n in names)


class Parameter:
    """A weight of a Block (see the module docstring for its life).

    ``grad_req``: 'write' (backward overwrites the gradient), 'add' (accumulates; clear it
    with ``zero_grad``) or 'null' (no gradient).  ``lr_mult``/``wd_mult`` scale the
    optimizer's learning rate and weight decay for this parameter.  ``init``: this
    parameter's own initializer (name or Initializer), which wins over the one given to
    ``initialize``.  ``allow_deferred_init``: whether unknown (0) dimensions may wait for the
    first forward pass.
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0,
                 init=None, allow_deferred_init=False, differentiable=True, stype='default',
                 grad_stype='default'):
        self._var = None
        self._data = None           # list of NDArray, one per context (None until initialised)
        self._grad = None           # the same for the gradient buffers (None under grad_req 'null')
        self._np_arrays = False     # data and gradients are mx.np.ndarray (made under npx.set_np())
        self._ctx_list = None
        self._trainer = None
        self._deferred_init = ()    # (init, contexts, default_init, data) while waiting for a shape
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._shape = (shape,) if isinstance(shape, int) else (tuple(shape) if shape is not None else None)
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, value in (('stype', stype), ('grad_stype', grad_stype)):
            if value not in STYPES:
                raise GluonAssertionError("%s for Parameter '%s' must be one of %s, got %r" % (what, name, STYPES, value))
        self._stype, self._grad_stype = stype, grad_stype

    def __repr__(self):
        return 'Parameter %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    # ------------------------------------------------------------- attributes
    @property
    def grad_req(self):
        """How backward treats this parameter's gradient: ``'write'``, ``'add'`` or ``'null'``.

        ``'write'`` overwrites the gradient buffer on each backward, ``'add'`` adds to it (clear it
        with ``zero_grad``), ``'null'`` keeps no gradient.  Setting it on an initialized parameter
        creates or drops the gradient buffers; a parameter made with ``differentiable=False`` is
        always ``'null'``.

        Raises:
            GluonAssertionError: when set to any other value.
        """
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in GRAD_REQS:
            raise GluonAssertionError("grad_req must be one of 'write', 'add', or 'null', but got '%s'" % (req,))
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            self._data = self._in_kind([d.detach() for d in self._data])      # no longer an autograd variable
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The data type of the values, as it was given (``numpy.float32`` or ``'float32'``, say).

        Setting it casts the parameter, as ``cast`` does.
        """
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def stype(self):
        """The storage type of the values: ``'default'`` (dense), ``'row_sparse'`` or ``'csr'``."""
        return self._stype

    @property
    def shape(self):
        """The shape, unknown dimensions as 0 (as -1 under np-shape semantics)."""
        if self._shape is None:
            return None
        if is_np_shape():
            return tuple(d if d != 0 else -1 for d in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(new_shape)
        if self._shape is not None:
            fits = len(new_shape) == len(self._shape) and all(
                old in (-1, 0, new) for new, old in zip(new_shape, self._shape))
            if not fits:
                raise GluonAssertionError("Parameter '%s': shape %s does not fit the declared shape %s"
                                 % (self.name, new_shape, self._shape))
        self._shape = new_shape

    # ------------------------------------------------------------- initialisation
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(), force_reinit=False):
        """Allocate the values on each context of ``ctx`` (default: the current context) and
        fill them: ``init``, else this parameter's own ``init``, else ``default_init``.
        With unknown dimensions the work waits for the first forward pass (deferred)."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        contexts = _contexts(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        self._deferred_init = (init, contexts, default_init, None)
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                return
            self._deferred_init = ()
            raise GluonValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                             % (self.name, self.shape))
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Draw the values now that the shape is known (called by the first forward)."""
        if not self._deferred_init:
            return
        init, contexts, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise GluonAssertionError("Cannot initialize Parameter '%s' because it has invalid shape: %s. Please "
                             "specify in_units, in_channels, etc for `Block`s." % (self.name, self.shape))
        with autograd.pause():
            if data is None:
                # drawn once on the CPU and copied to every context, so that the copies agree
                data = ndarray.zeros(self.shape, ctx=cpu(), dtype=self.dtype, stype=self._stype)
                initializer.create(default_init)(initializer.InitDesc(self.name, {'__init__': init}), data)
            self._init_impl(data, contexts)

    def _init_impl(self, data, contexts):
        self._ctx_list = list(contexts)
        # as in MXNet, NumPy array semantics at the moment the values are made decide their kind
        self._np_arrays = is_np_array()
        self._data = self._in_kind([data.copyto(c) for c in self._ctx_list])
        self._init_grad()

    def _in_kind(self, arrays):
        """``arrays`` as this parameter's kind of array: mx.np.ndarray where it was made under
        NumPy array semantics (the same objects, so autograd's marks stay), else as they are."""
        return as_np_arrays(arrays) if self._np_arrays else arrays

    def _init_grad(self):
        if self.grad_req == 'null':
            self._grad = None
            return
        self._grad = self._in_kind([ndarray.zeros(d.shape, ctx=d.context, dtype=d.dtype, stype=self._grad_stype)
                                    for d in self._data])
        autograd.mark_variables(self._data, self._grad, self.grad_req)

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """Take the values from ``data`` (a loaded file), checking shape and dtype."""
        if cast_dtype and dtype_source not in ('current', 'saved'):
            raise GluonAssertionError("dtype_source must be 'current' or 'saved', got %r" % (dtype_source,))
        if self.shape:
            unknown = -1 if is_np_shape() else 0
            if len(self.shape) != len(data.shape) or any(
                    mine not in (unknown, saved) for mine, saved in zip(self.shape, data.shape)):
                raise GluonAssertionError("Failed loading Parameter '%s' from saved params: shape incompatible "
                                 "expected %s vs saved %s" % (self.name, self.shape, data.shape))
            self.shape = data.shape
        if self.dtype is not None and np.dtype(self.dtype) != np.dtype(data.dtype):
            if not cast_dtype:
                raise GluonAssertionError("Failed loading Parameter '%s' from saved params: dtype incompatible "
                                 "expected %s vs saved %s. Set cast_dtype=True to cast the dtype of saved "
                                 "params." % (self.name, np.dtype(self.dtype), np.dtype(data.dtype)))
            if dtype_source == 'current':
                data = data.astype(self.dtype)
            else:
                self.cast(data.dtype)      # the saved dtype wins: arrays already made are cast too
        if data.stype != self._stype:
            data = data.tostype(self._stype)
        contexts = None if ctx is None else _contexts(ctx)
        if self._data is None:
            if self._deferred_init:
                if contexts is not None and set(contexts) != set(self._deferred_init[1]):
                    raise GluonAssertionError("Failed to load Parameter '%s' on %s because it was previous initialized "
                                     "on %s." % (self.name, contexts, self._deferred_init[1]))
                contexts = self._deferred_init[1]
            self._init_impl(data, contexts or [cpu()])
        else:
            if contexts is not None and set(contexts) != set(self.list_ctx()):
                raise GluonAssertionError("Failed to load Parameter '%s' on %s because it was previous initialized on "
                                 "%s." % (self.name, contexts, self.list_ctx()))
            self.set_data(data)
        self._deferred_init = ()

    # ------------------------------------------------------------- the arrays
    def _check_and_get(self, arrays, ctx):
        """``arrays`` (data or gradients) on ``ctx``; ``ctx`` list: all of them."""
        if arrays is not None:
            if ctx is list:
                return arrays
            if ctx is None:
                if len(arrays) == 1:
                    return arrays[0]
                ctx = current_context()
            for c, arr in zip(self._ctx_list, arrays):
                if c == ctx:
                    return arr
            raise MXNetError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                             % (self.name, ctx, self._ctx_list))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through "
                "the network before accessing Parameters. You can also avoid deferred initialization by "
                "specifying in_units, num_features, etc., for network layers." % self.name)
        raise MXNetError("Parameter '%s' has not been initialized. Note that you should initialize parameters "
                         "and create Trainer with Block.collect_params() instead of Block.params because the "
                         "later does not include Parameters of nested child Blocks" % self.name)

    def data(self, ctx=None):
        """The values on ``ctx`` (the only context when there is one)."""
        arrays = self._data
        if (arrays is not None and len(arrays) == 1 and self._stype == 'default'
                and (ctx is None or self._ctx_list[0] == ctx)):
            return arrays[0]            # one context, asked for: a hybridized call's every parameter
        if self._stype != 'default':
            raise MXNetError("Cannot return a copy of Parameter '%s' on ctx %s via data() because its storage "
                             "type is %s. Please use row_sparse_data() instead." % (self.name, ctx, self._stype))
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The values on every context, as a list of NDArrays in the order of ``list_ctx()``.

        Raises:
            MXNetError: when the parameter is not initialized, or is not dense (use
                ``list_row_sparse_data`` for a row_sparse one).
            DeferredInitializationError: when initialization waits for the first forward pass.
        """
        if self._stype != 'default':
            raise MXNetError("Cannot return copies of Parameter '%s' on all contexts via list_data() because "
                             "its storage type is %s. Please use row_sparse_data() instead."
                             % (self.name, self._stype))
        return self._check_and_get(self._data, list)

    def _no_grad_check(self):
        if self._data is not None and self._grad is None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)

    def grad(self, ctx=None):
        """The gradient buffer on ``ctx`` (an NDArray; with one context, ``ctx`` may be omitted).

        Raises:
            MXNetError: when ``grad_req`` is ``'null'``, the parameter is not initialized, or it
                has no copy on ``ctx``.
            DeferredInitializationError: when initialization waits for the first forward pass.

        >>> p = mx.gluon.Parameter('w', shape=(2,))
        >>> p.initialize()
        >>> p.grad()
        <BLANKLINE>
        [0. 0.]
        <NDArray 2 @cpu(0)>
        """
        self._no_grad_check()
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient buffers on every context, as a list of NDArrays in the order of ``list_ctx()``.

        Raises:
            MXNetError: when ``grad_req`` is ``'null'`` or the parameter is not initialized.
        """
        self._no_grad_check()
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts the parameter lives on (or will, while its initialization is deferred).

        Raises:
            MXNetError: when the parameter was never initialized.
        """
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse parameter, pulled through its Trainer's store."""
        if self._stype != 'row_sparse':
            raise MXNetError("Cannot return a copy of Parameter %s via row_sparse_data() because its storage "
                             "type is %s. Please use data() instead." % (self.name, self._stype))
        return self._pull_rows(self._check_and_get(self._data, row_id.context), row_id)

    def list_row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse parameter on every context, as a list of NDArrays.

        The rows are pulled through the Trainer's kvstore, so a Trainer must have been created
        with this parameter.

        Args:
            row_id: an NDArray of the row indices wanted.

        Raises:
            MXNetError: when the parameter is not row_sparse or has no Trainer.
            TypeError: when ``row_id`` is not an NDArray.
        """
        if self._stype != 'row_sparse':
            raise MXNetError("Cannot return copies of Parameter '%s' on all contexts via list_row_sparse_data() "
                             "because its storage type is %s. Please use data() instead." % (self.name, self._stype))
        return self._pull_rows(self._check_and_get(self._data, list), row_id)

    def _pull_rows(self, results, row_id):
        if not isinstance(row_id, ndarray.NDArray):
            raise TypeError('row_id must have NDArray type, but %s is given' % type(row_id).__name__)
        if self._trainer is None:
            raise MXNetError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with it."
                             % self.name)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    def _set_trainer(self, trainer):
        if self._stype != 'default' and self._trainer is not None and trainer is not None \
                and self._trainer is not trainer:
            raise MXNetError("Failed to set the trainer for Parameter '%s' because it was already set. More than "
                             "one trainers for a %s Parameter is not supported." % (self.name, self._stype))
        self._trainer = trainer

    def set_data(self, data):
        """Write ``data`` into the values on every context (in place: bound graphs see it)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise GluonAssertionError("Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore \
                and self not in trainer._params_to_init:
            trainer._reset_kvstore()        # the store's copy would overwrite the new values
        for arr in self._check_and_get(self._data, list):
            arr[:] = data

    def zero_grad(self):
        """Set the gradient buffers on every context to zero (nothing to do under ``grad_req='null'``).

        Needed between iterations with ``grad_req='add'``, where backward accumulates.
        """
        if self._grad is None:
            return
        for g in self._grad:
            g[:] = 0

    def _reduce(self):
        """One CPU copy of the values (the mean over the contexts), for saving."""
        if self._stype != 'default':
            rows = ndarray.arange(0, self.shape[0], dtype='int64', ctx=cpu())
            data = ndarray.zeros(self.shape, stype='row_sparse', ctx=cpu())
            self._trainer._row_sparse_pull(self, data, rows, full_idx=True)
            return data
        copies = self.list_data()
        if len(copies) == 1:
            return copies[0].copyto(cpu())
        return ndarray.add_n(*[c.copyto(cpu()) for c in copies]) / len(copies)

    def reset_ctx(self, ctx):
        """Move the values to other contexts (kept, not redrawn)."""
        contexts = _contexts(ctx)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, contexts)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, contexts, default_init, data)
        else:
            raise GluonValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                             % self.name)

    def cast(self, dtype):
        """Change the dtype, converting the values and the gradient buffers."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = self._in_kind([d.astype(dtype) for d in self._data])
            if self._grad is None:
                return
            self._grad = self._in_kind([g.astype(dtype) for g in self._grad])
            autograd.mark_variables(self._data, self._grad, self.grad_req)

    def var(self):
        """The Symbol variable that stands for this parameter in a hybridized graph."""
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                   wd_mult=self.wd_mult, init=self.init, stype=self._stype)
        return self._var


class _ConstantInit(initializer.Initializer):
    """Fills a Constant with its value (whatever the name says)."""

    def __init__(self, value):
        super().__init__()
        self._value = value

    def _init_weight(self, _, arr):
        arr[:] = self._value

    def dumps(self):                 # a constant's value is in its file, not in the graph's JSON
        return '["zero", {}]'


class Constant(Parameter):
    """A parameter that training leaves alone: grad_req is always 'null'; ``set_data``
    still changes it."""

    def __init__(self, name, value):
        if not isinstance(value, ndarray.NDArray):
            value = ndarray.array(value)
        self.value = value
        super().__init__(name, grad_req='null', shape=value.shape, dtype=value.dtype, init=_ConstantInit(value))

    def __repr__(self):
        return 'Constant %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    @property
    def grad_req(self):
        """Always ``'null'``: a Constant has no gradient.  Setting another value warns and is ignored."""
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn('Constant parameter "%s" does not support grad_req other than "null", and new value '
                          '"%s" is ignored.' % (self.name, req))


class ParameterDict:
    """The parameters of a block (and, from collect_params, of its children), by full name.

    ``get(name, ...)`` prepends the dict's prefix and returns the parameter of that name,
    creating it (or taking it from the ``shared`` dict) when there is none."""

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = '\n'.join('  ' + repr(p) for p in self.values())
        return '%s(\n%s\n)' % (self._prefix + ' ' if self._prefix else '', body)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        """The ``(full name, Parameter)`` pairs, in the order the parameters were added."""
        return self._params.items()

    def keys(self):
        """The full names of the parameters (prefix included), in the order they were added.

        >>> d = mx.gluon.ParameterDict('net_')
        >>> w = d.get('weight', shape=(2, 3))
        >>> list(d.keys())
        ['net_weight']
        """
        return self._params.keys()

    def values(self):
        """The Parameters, in the order they were added."""
        return self._params.values()

    @property
    def prefix(self):
        """The prefix ``get`` and ``get_constant`` put in front of a name (the owning block's prefix)."""
        return self._prefix

    def _lookup(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter ``prefix + name``, created with ``kwargs`` if it does not exist; an
        existing one must agree with ``kwargs`` (unknown shape dimensions are filled in)."""
        name = self._prefix + name
        param = self._lookup(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None:
                setattr(param, key, value)
                continue
            if key == 'shape':
                value = (value,) if isinstance(value, int) else tuple(value)
                if len(value) == len(existing) and all(a == b or a <= 0 or b <= 0 for a, b in zip(value, existing)):
                    param._shape = tuple(b if a <= 0 else a for a, b in zip(value, existing))
                    continue
            elif key == 'dtype' and np.dtype(value) == np.dtype(existing):
                continue
            if value is not None and value != existing:
                raise GluonAssertionError("Cannot retrieve Parameter '%s' because desired attribute does not match with "
                                 "stored for attribute '%s': desired '%s' vs stored '%s'."
                                 % (name, key, value, existing))
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``, created from ``value`` if it does not exist."""
        name = self._prefix + name
        param = self._lookup(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '%s'. Please specify value if you want to create a new "
                               "constant." % name)
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise GluonAssertionError("Parameter '%s' already exists but it is not a constant." % name)
            value = value.asnumpy() if isinstance(value, ndarray.NDArray) else np.asarray(value)
            if param.shape != value.shape or not (param.value.asnumpy() == value).all():
                raise GluonAssertionError("Constant '%s' already exists but it's value doesn't match new value" % name)
        return param

    def update(self, other):
        """Add ``other``'s parameters; a name may only be shared by the same parameter."""
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise GluonAssertionError("Cannot update self with other because they have different Parameters with the "
                                 "same name '%s'" % key)
        for key, value in other.items():
            self._params[key] = value

    def select(self, pattern):
        """The parameters whose full name matches the regular expression (collect_params's select)."""
        found = ParameterDict(self._prefix)
        regex = re.compile(pattern)
        found._params.update((k, v) for k, v in self.items() if regex.match(k))
        return found

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize every parameter; ``init`` is the default for those without their own."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set the gradients of every parameter to zero (see ``Parameter.zero_grad``)."""
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx):
        """Move every parameter to ``ctx`` (a Context or a list of Contexts), keeping its values.

        Raises:
            GluonValueError: when a parameter was never initialized.
        """
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """The contexts of all the parameters together, each once, in order of first appearance."""
        found = []
        for param in self.values():
            found.extend(c for c in param.list_ctx() if c not in found)
        return found

    def setattr(self, name, value):
        """Set an attribute (``grad_req``, ``lr_mult``, ...) on every parameter."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Save the values (one CPU copy each) under their names minus ``strip_prefix``."""
        arrays = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise GluonValueError("Prefix '%s' is to be striped before saving, but Parameter's name '%s' does not "
                                 "start with '%s'." % (strip_prefix, param.name, strip_prefix))
            arrays[param.name[len(strip_prefix):]] = param._reduce()
        ndarray.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='',
             cast_dtype=False, dtype_source='current'):
        """Load values saved by ``save`` (or a Module checkpoint's ``arg:``/``aux:`` names)."""
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise GluonAssertionError("restore_prefix is '%s' but Parameters name '%s' does not start with '%s'."
                                     % (restore_prefix, name, restore_prefix))
        self.load_dict(ndarray.load(filename), ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix='',
                  filename=None, cast_dtype=False, dtype_source='current'):
        """Load values from a dict (or list of pairs) of name to NDArray, as ``load`` does from a file.

        Args:
            param_dict: the arrays by name, as ``mx.nd.load`` returns them; names starting with
                ``arg:`` or ``aux:`` (a Module checkpoint) lose that tag.
            ctx: the context(s) for parameters that are not initialized yet (default: where their
                deferred initialization would put them, else the CPU).
            allow_missing: if false, a parameter of this dict absent from ``param_dict`` is an error.
            ignore_extra: if false, a name in ``param_dict`` that is not a parameter is an error.
            restore_prefix: put in front of every loaded name before matching (what ``save``'s
                ``strip_prefix`` took off).
            filename: the file the arrays came from, named in error messages.
            cast_dtype: convert values whose dtype differs instead of failing.
            dtype_source: with ``cast_dtype``, which dtype wins: ``'current'`` (the parameter's) or
                ``'saved'`` (the loaded array's).

        Raises:
            GluonAssertionError: on a missing or extra name (unless allowed), or a loaded value
                whose shape or dtype does not fit.
        """
        where = 'file: %s' % filename if filename else 'param_dict'
        pairs = param_dict.items() if isinstance(param_dict, dict) else param_dict
        loaded = {restore_prefix + (k[4:] if k.startswith(('arg:', 'aux:')) else k): v for k, v in pairs}
        strip = len(restore_prefix)
        if not allow_missing:
            for name in self.keys():
                if name not in loaded:
                    raise GluonAssertionError("Parameter '%s' is missing in %s, which contains parameters: %s. Please make "
                                     "sure source and target networks have the same prefix."
                                     % (name[strip:], where, _short_list(loaded)))
        for name, value in loaded.items():
            if name not in self._params:
                if not ignore_extra:
                    raise GluonAssertionError("Parameter '%s' loaded from %s is not present in ParameterDict, choices are: "
                                     "%s. Set ignore_extra to True to ignore. Please make sure source and target "
                                     "networks have the same prefix."
                                     % (name[strip:], where, _short_list(self._params)))
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
