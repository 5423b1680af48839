"""Block, HybridBlock and SymbolBlock: Gluon's layers and models.

A **Block** is a Python object whose ``forward`` computes on NDArrays.  Blocks nest: a
Block assigned to an attribute of another becomes its *child*, a Parameter assigned to an
attribute is *registered*, and ``collect_params()`` gathers both down the tree.  Names come
from scopes: a top-level ``nn.Dense`` is ``dense0_`` (the counter of the current
NameManager), a Dense created inside ``with self.name_scope():`` of ``mlp0_`` is
``mlp0_dense0_``, and its weight ``mlp0_dense0_weight``: the same names MXNet gives, so
parameter files are interchangeable.

A **HybridBlock** writes ``hybrid_forward(F, x, ..., **params)`` once for two worlds: called
on NDArrays (``F`` is ``mx.nd``) it runs operator by operator, on the tape when recording;
called on Symbols (``F`` is ``mx.sym``) it *builds a graph*.  ``hybridize()`` switches a
block to the second world for good: the first call traces ``hybrid_forward`` into a Symbol
and every call from then on runs that Symbol through an Executor (executor/cached_graph.py) --
shape inference, the memory plan, the operators' forward and backward of chapters 2-8.
``export`` writes that Symbol and the parameters as a Module checkpoint.

A **SymbolBlock** goes the other way: it wraps an existing Symbol (``SymbolBlock.imports``
loads an exported one) as a block.
"""

import re
import threading
import types
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import initializer
from .. import ndarray
from .. import numpy as _mx_np
from .. import numpy_extension as _mx_npx
from .. import symbol
from ..base import FLAG_TO_DTYPE, MXNetError
from ..ndarray import NDArray
from ..ndarray.ndarray import _STORAGE_TYPE_ID_TO_STR
from ..symbol import Symbol
from ..symbol import naming
from ..executor.cached_graph import CachedGraph
from ..numpy.multiarray import as_np_arrays
from ..util import is_np_array
from .summary import print_summary
from .model_file import load_model, save_model
from .utils import HookHandle
from .parameter import DeferredInitializationError, GluonAssertionError, GluonValueError, Parameter, ParameterDict

__all__ = ['Block', 'HybridBlock', 'SymbolBlock', 'HookHandle']


# ------------------------------------------------------------------ naming scopes
class _BlockScope:
    """The naming scope of one block: inside ``with block.name_scope():`` new child blocks
    are named ``<block prefix><hint><n>_`` (counters per block) and Symbols built there get the
    block's prefix."""
    _current = threading.local()

    def __init__(self, block):
        # a Block weakly: it keeps its scope, so a strong reference would make every block part
        # of a reference cycle, freed (with a hybridized block's executors) only when the cycle
        # collector runs.  Anything else with a ``prefix`` (MXNet's own tests make a scope for
        # a stand-in object) is held, as nothing else may keep it alive.
        self._block_ref = weakref.ref(block) if isinstance(block, Block) else (lambda: block)
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @property
    def _block(self):
        return self._block_ref()

    @staticmethod
    def create(prefix, params, hint):
        """The prefix and ParameterDict of a new block with alias ``hint``."""
        current = getattr(_BlockScope._current, 'value', None)
        if current is None:
            # a top-level block: numbered by the NameManager, as a Symbol would be
            if prefix is None:
                prefix = naming.NameManager.current.get(None, hint) + '_'
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = '%s%d_' % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, 'value', None)
        _BlockScope._current.value = self
        self._name_scope = naming.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _indent(text, spaces):
    lines = text.split('\n')
    return '\n'.join(lines[:1] + [' ' * spaces + line for line in lines[1:]])


# ------------------------------------------------------------------ nested inputs and outputs
def _flatten(args, what):
    """A nested list of NDArrays/Symbols as a flat list plus the format to rebuild it:
    0 for one array, -1 for None, n > 0 for a Symbol with n outputs, a list for a list."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        n = len(args.list_outputs())
        return [args], n if n > 1 else 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise GluonValueError('When hybridized, the %s of HybridBlock must be (nested) list of Symbol or NDArray, '
                              'but got %r of type %s' % (what, args, type(args)))
    flat, fmts = [], []
    for item in args:
        items, fmt = _flatten(item, what)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _regroup(flat, fmt):
    """The inverse of _flatten."""
    def take(items, fmt):
        if isinstance(fmt, int):
            if fmt == 0:
                return items[0], items[1:]
            if fmt == -1:
                if items[0] is not None:
                    raise GluonValueError('the HybridBlock was hybridized with None in this place and got %r'
                                          % (items[0],))
                return None, items[1:]
            return items[:fmt], items[fmt:]
        out = []
        for f in fmt:
            value, items = take(items, f)
            out.append(value)
        return out, items
    return take(flat, fmt)[0]


def _kinds(args):
    """(has a Symbol, has an NDArray, contexts in order) over nested arguments."""
    found = [False, False, []]

    def walk(value):
        if isinstance(value, NDArray):
            found[1] = True
            if value.context not in found[2]:
                found[2].append(value.context)
        elif isinstance(value, Symbol):
            found[0] = True
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
    walk(args)
    return found


# ------------------------------------------------------------------ Block
def _np_results(out):
    """A block's output under ``npx.set_np()``: its legacy NDArrays, in nested lists too,
    turned into mx.np.ndarray (the same objects: autograd's record of them stays)."""
    if isinstance(out, (list, tuple)):
        as_np_arrays([o for o in out if not isinstance(o, (list, tuple))])
        for o in out:
            if isinstance(o, (list, tuple)):
                _np_results(o)
        return out
    return as_np_arrays([out])[0]


class _NumpyFront:
    """The ``F`` of ``hybrid_forward`` run imperatively under ``npx.set_np()``: ``mx.nd``, each
    of whose functions hands its NDArrays back as mx.np.ndarray, so that a layer's arithmetic
    between them and its NumPy inputs stays in one kind of array; ``F.np`` and ``F.npx`` are
    ``mx.np`` and ``mx.npx``.  (MXNet's layers branch on ``is_np_array()`` to F.np/F.npx
    operators instead; reflib's layers run the same registry operators either way.)"""

    def __init__(self, namespace):
        self._namespace = namespace

    def __repr__(self):
        return repr(self._namespace)        # print(F) shows the module, as in MXNet

    def __getattr__(self, name):
        if name == 'np':
            found = _mx_np
        elif name == 'npx':
            found = _mx_npx
        else:
            value = getattr(self._namespace, name)
            if isinstance(value, types.ModuleType):
                found = _NumpyFront(value)
            elif callable(value) and not isinstance(value, type):
                def found(*args, **kwargs):
                    return _np_results(value(*args, **kwargs))
                found.__name__ = name
            else:
                found = value
        setattr(self, name, found)          # looked up once
        return found


_NUMPY_ND = _NumpyFront(ndarray)


class Block:
    """The base of every layer and model: children, parameters, names, ``forward``.

    Subclass it, create children and parameters in ``__init__`` inside
    ``with self.name_scope():``, and define ``forward(*args)``.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = ['  (%s): %s' % (key, _indent(repr(block), 2))
                 for key, block in self.__dict__.items() if isinstance(block, Block)]
        return '%s(\n%s\n)' % (type(self).__name__, '\n'.join(lines))

    def __setattr__(self, name, value):
        if name in self.__dict__:
            existing = self.__dict__[name]
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError('Changing attribute type for %s from %s to %s is not allowed.'
                                % (name, type(existing), type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise GluonAssertionError("Overriding Parameter attribute %s is not allowed. If you want to share "
                                          "parameters between blocks, please set 'params' at Block construction "
                                          "instead." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _alias(self):
        return type(self).__name__.lower()

    @property
    def prefix(self):
        """The prefix of this block's name and of its parameters' names, with the trailing ``_``.

        A block made inside another block's ``name_scope()`` carries the parent's prefix in front
        of its own (``mlp0_dense0_``).

        >>> mx.gluon.nn.Dense(3, prefix='fc_').prefix
        'fc_'
        """
        return self._prefix

    @property
    def name(self):
        """The block's name: its prefix without the trailing ``_``.

        >>> mx.gluon.nn.Dense(3, prefix='fc_').name
        'fc'
        """
        return self._name

    def name_scope(self):
        """``with block.name_scope():`` names the children and parameters created inside."""
        return self._scope

    @property
    def params(self):
        """This block's own parameters (not its children's: see collect_params)."""
        return self._params

    def _warn_unregistered(self):
        """Blocks kept in a plain list/dict attribute are not children: their parameters
        would be missed, so say so (as MXNet does)."""
        children = set(map(id, self._children.values()))

        def hides_block(value):
            if isinstance(value, Block):
                return id(value) not in children
            if isinstance(value, (list, tuple)):
                return any(hides_block(v) for v in value)
            if isinstance(value, dict):
                return any(hides_block(v) for v in value.values())
            return False
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not key.startswith('__') and key != '_children' \
                    and hides_block(value):
                warnings.warn('"%s.%s" is an unregistered container with Blocks. Note that Blocks inside the list, '
                              'tuple or dict will not be registered automatically. Make sure to register them '
                              'using register_child() or switching to nn.Sequential/nn.HybridSequential instead. '
                              % (type(self).__name__, key), stacklevel=3)

    def collect_params(self, select=None):
        """This block's and all its descendants' parameters, by full name; ``select``: a
        regular expression the names must match (``'.*weight|.*bias'``)."""
        self._warn_unregistered()
        found = ParameterDict(self._params.prefix)
        if select:
            pattern = re.compile(select)
            found.update({k: v for k, v in self.params.items() if pattern.match(k)})
        else:
            found.update(self.params)
        for child in self._children.values():
            found.update(child.collect_params(select=select))
        return found

    def _collect_params_with_prefix(self, prefix=''):
        """Parameters by their *attribute path* (``0.weight``, ``encoder.dense0.bias``): the
        keys of save_parameters, which do not depend on the global name counters."""
        if prefix:
            prefix += '.'
        found = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def save_parameters(self, filename, deduplicate=False):
        """Save the parameters under their attribute paths (an MXNet .params file)."""
        params = self._collect_params_with_prefix()
        if deduplicate:            # a shared parameter once, under the first path that reaches it
            first = {}
            for key, param in params.items():
                first.setdefault(id(param), key)
            params = {key: param for key, param in params.items() if first[id(param)] == key}
        ndarray.save(filename, {key: param._reduce() for key, param in params.items()})

    def save_params(self, filename):
        """Deprecated: save the parameters by full name, with this block's prefix stripped.

        Writes ``collect_params().save(filename, strip_prefix=self.prefix)`` after a warning.
        Prefer ``save_parameters``, whose attribute-path keys do not depend on the global name
        counters.
        """
        warnings.warn('save_params is deprecated. Please use save_parameters.')
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source='current'):
        """Load a file written by save_parameters (or, when its names have no '.', by the
        older save_params / ParameterDict.save, matched by full name)."""
        loaded = ndarray.load(filename)
        if not isinstance(loaded, dict):
            raise GluonValueError("load_parameters: '%s' holds a list of arrays, not named parameters" % filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any('.' in key for key in loaded):
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            paths = {}
            for key, param in params.items():
                paths.setdefault(id(param), []).append(key)
            for key, param in params.items():
                if not any(p in loaded for p in paths[id(param)]):
                    raise GluonAssertionError("Parameter '%s' is missing in file '%s', which contains parameters: "
                                              "%s. Set allow_missing=True to ignore missing parameters."
                                              % (key, filename, sorted(loaded)))
        for key, value in loaded.items():
            if key not in params:
                if not ignore_extra:
                    raise GluonValueError("Parameter '%s' loaded from file '%s' is not present in ParameterDict, "
                                          "which contains parameters %s. Set ignore_extra=True to ignore. "
                                          % (key, filename, sorted(params)))
                continue
            params[key]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def save(self, prefix):
        """Save the network's structure, the graphs of its hybridized blocks and its parameters:
        ``<prefix>-model.json`` and ``<prefix>-model.params``, as MXNet 1.9.1 writes them
        (reflib/gluon/model_file.py).  ``load`` reads them into a network built the same way."""
        save_model(self, prefix)

    def load(self, prefix):
        """Set this network up from ``save``'s files: it must be built by the same code, in
        the same order, as the one saved.  Hybridized blocks get their saved graphs (ready to
        run, not traced again), children the keys they were saved under, and the parameters
        their values.

        Raises:
            MXNetError: when the file cannot be read or does not describe this network.
        """
        load_model(self, prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated: load a parameter file; warns, then does what ``load_parameters`` does."""
        warnings.warn('load_params is deprecated. Please use load_parameters.')
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block, name=None):
        """Make ``block`` a child (``name``: its key, by default its position)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` after each forward."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant, then on this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """Initialize every parameter of the tree (``init`` for those without their own)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlocks in the tree (a plain Block itself stays Python)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast every parameter of this block and its descendants to ``dtype`` (e.g. ``'float16'``).

        Initialized parameters get new data and gradient arrays holding their values converted
        to the new type; uninitialized ones will be created with it.
        """
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def __call__(self, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Compute the block's output from its inputs; every subclass must define it.

        Usually not called directly: calling the block (``block(x)``) runs the forward pre-hooks,
        then ``forward``, then the forward hooks.  The inputs and outputs are usually NDArrays.

        Raises:
            NotImplementedError: in the base class, which has no computation of its own.
        """
        raise NotImplementedError('%s must define forward' % type(self).__name__)

    def register_op_hook(self, callback, monitor_all=False):
        """Install ``callback`` on every descendant HybridBlock, to watch its operators.

        Once a hybridized block runs, ``callback(name, op_name, array)`` is called for each
        operator's output: ``name`` is the output's name and ``op_name`` the operator's, both as
        bytes, ``array`` an NDArray.  With ``monitor_all=True`` the operators' inputs are reported
        too.  Blocks that are not hybridized run operator by operator and report nothing.
        """
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for one forward of ``inputs``."""
        print_summary(self, inputs)


# ------------------------------------------------------------------ HybridBlock
class HybridBlock(Block):
    """A Block written as ``hybrid_forward(F, x, *args, **params)``: imperative until
    ``hybridize()``, then run as one Symbol through the executor."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()        # (input variables, output Symbol) once traced
        self._cached_op = None         # the CachedGraph that runs it
        self._cached_op_args = []      # per graph input: (True, data index) or (False, Parameter)
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise GluonValueError('Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are '
                                  'using Sequential, please try HybridSequential instead.' % (block, type(block)))
        super().register_child(block, name)
        self._clear_cached_op()

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False, static_shape=False,
                  inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Run this block (and its children) as one Symbol from the next call on.

        reflib's executor always plans memory once per input signature and reuses it, which
        is what ``static_alloc=True, static_shape=True`` ask of MXNet: the flags are accepted
        and change nothing.  ``backend`` (graph partitioning for an accelerator library) is
        refused: reflib has no such backends."""
        if backend is not None:
            raise MXNetError('hybridize(backend=%r): reflib has no subgraph backends' % (backend,))
        self._active = active
        self._flags = [('static_alloc', static_alloc), ('static_shape', static_shape), ('inline_limit', inline_limit)]
        if clear:
            self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn('"%s" is being hybridized while still having forward hook/pre-hook. If "%s" is a child of '
                          'HybridBlock, the hooks will not take effect.' % (self, self))
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, inline_limit=inline_limit,
                          forward_bulk_size=forward_bulk_size, backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        """Cast the parameters to ``dtype`` as ``Block.cast`` does, and drop the traced graph.

        The next call of a hybridized block traces ``hybrid_forward`` again with the new type.
        """
        self._clear_cached_op()
        super().cast(dtype)

    # ------------------------------------------------------------- tracing
    def _get_graph(self, *args):
        """Trace hybrid_forward with Symbols: variables ``data`` (one input) or ``data0``,
        ``data1``, ... and each parameter's variable.  Done once; the result is cached."""
        if not self._cached_graph:
            flat, self._in_format = _flatten(args, 'input')
            real = [a for a in flat if a is not None]
            if not real:
                raise GluonValueError('All args are None and we do not support such a case. Received args=%r'
                                      % (args,))
            names = ['data'] if len(real) == 1 else ['data%d' % i for i in range(len(real))]
            variables = iter([symbol.var(n) for n in names])
            inputs = [None if a is None else next(variables) for a in flat]
            params = {key: p.var() for key, p in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(symbol, *_regroup(inputs, self._in_format), **params)
            outs, self._out_format = _flatten(out, 'output')
            self._cached_graph = [i for i in inputs if i is not None], symbol.Group(outs)
        return self._cached_graph

    def _infer_attrs(self, infer, attr, *args):
        inputs, out = self._get_graph(*args)
        flat = [a for a in _flatten(args, 'input')[0] if a is not None]
        known = {var.name: getattr(arr, attr) for var, arr in zip(inputs, flat)}
        arg_attrs, _, aux_attrs = getattr(out, infer)(**known)
        if arg_attrs is None:
            raise GluonValueError('%s: the inputs %s do not determine every parameter of %s'
                                  % (infer, known, self.name))
        found = dict(zip(out.list_arguments(), arg_attrs))
        found.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            setattr(param, attr, found[param.name])

    def infer_shape(self, *args):
        """Fill in the parameters' unknown dimensions from the inputs' shapes."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Set the parameters' dtypes from the inputs' dtypes, by type inference on the traced graph.

        Args:
            *args: the inputs the block will be called with (NDArrays), whose ``dtype`` is read.

        Raises:
            GluonValueError: when the inputs do not determine the type of every parameter.
        """
        self._infer_attrs('infer_type', 'dtype', *args)

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as err:
            raise GluonValueError('Deferred initialization failed because shape cannot be inferred. %s' % err) \
                from err

    # ------------------------------------------------------------- running
    def forward(self, x, *args):
        """Run the block on NDArrays or Symbols; called by ``block(x, ...)``.

        On Symbols it calls ``hybrid_forward`` with ``F = mx.sym`` and returns the Symbol built.
        On NDArrays it either calls ``hybrid_forward`` with ``F = mx.nd`` and the parameters'
        arrays on the inputs' context (finishing deferred initialization from the input shapes on
        the first call), or, once hybridized, runs the cached graph.

        Raises:
            GluonValueError: on inputs that mix NDArrays and Symbols, or contain neither, or (when
                hybridized) NDArrays on several contexts.
        """
        if self._active and type(x) is NDArray and all(type(a) is NDArray for a in args):
            # the common hybridized call, NDArrays only: the checks below, made in one pass
            ctx = x._ctx
            if any(a._ctx != ctx for a in args):
                contexts = _kinds([x] + list(args))[2]
                raise GluonValueError('Find multiple contexts in the input, After hybridized, the HybridBlock only '
                                      'supports one input context. Find all contexts = %s' % contexts)
            with ctx:
                return self._call_cached_op(x, *args)
        has_symbol, has_ndarray, contexts = _kinds([x] + list(args))
        if has_symbol and has_ndarray:
            raise GluonValueError('In HybridBlock, we do not support mixed NDArrays and Symbols types for the '
                                  'input. Please check the type of the args.\n')
        if not has_symbol and not has_ndarray:
            raise GluonValueError('In HybridBlock, there must be one NDArray or one Symbol in the input. Please '
                                  'check the type of the args.\n')
        if has_symbol:
            params = {key: p.var() for key, p in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(symbol, x, *args, **params)
        ctx = contexts[0]
        if self._active:
            if len(contexts) > 1:
                raise GluonValueError('Find multiple contexts in the input, After hybridized, the HybridBlock only '
                                      'supports one input context. Find all contexts = %s' % contexts)
            with ctx:
                out = self._call_cached_op(x, *args)
            return _np_results(out) if is_np_array() else out
        with ctx:
            try:
                params = {key: p.data(ctx) for key, p in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for param in self.params.values():
                    param._finish_deferred_init()
                params = {key: p.data(ctx) for key, p in self._reg_params.items()}
            if is_np_array():
                return _np_results(self.hybrid_forward(_NUMPY_ND, x, *args, **params))
            return self.hybrid_forward(ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation of the block, written once for NDArrays and Symbols; subclasses define it.

        Args:
            F: the operator namespace to use: ``mx.nd`` when the block runs imperatively,
                ``mx.sym`` while it is traced into a graph (hybridized, or called on Symbols).
                Write ``F.FullyConnected(...)`` rather than ``mx.nd.FullyConnected(...)``.
            x: the first input (an NDArray or a Symbol, like ``F``).
            *args: further inputs.
            **kwargs: the block's own parameters by attribute name (``weight=...``), as arrays of
                the input's context, or as Symbol variables.

        Returns:
            The output: an NDArray/Symbol or a (nested) list of them.

        Raises:
            NotImplementedError: in the base class.
        """
        raise NotImplementedError('%s must define hybrid_forward' % type(self).__name__)

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_index = {var.name: i for i, var in enumerate(data)}
        params = self.collect_params()
        used = set(out.list_inputs())
        for name in used:
            if name not in params and name not in data_index:
                raise GluonAssertionError('Unknown input to HybridBlock: %s' % name)
        unused = [i for name, i in data_index.items() if name not in used]
        if unused:
            warnings.warn('The %s input to HybridBlock is not used by any computation. Is this intended?'
                          % ', '.join('%d-th' % i for i in unused), stacklevel=4)
        unused = [name for name in params.keys() if name not in used]
        if unused:
            warnings.warn('Parameter %s is not used by any computation. Is this intended?' % ', '.join(unused),
                          stacklevel=4)
        self._cached_op_args = [(True, data_index[name]) if name in data_index else (False, params[name])
                                for name in out.list_inputs()]
        self._cached_op = CachedGraph(out, self._cached_op_args, dict(self._flags))

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        if all(type(a) is NDArray for a in args):     # plain arrays: flat already
            flat, fmt = list(args), [0] * len(args)
        else:
            flat, fmt = _flatten(args, 'input')
        if fmt != self._in_format and not _same_but_defaults(fmt, self._in_format):
            raise GluonValueError('The argument structure of HybridBlock does not match the cached version. Stored '
                                  'format = %s, input format = %s' % (self._in_format, fmt))
        data = [a for a in flat if a is not None]
        self._cached_op.set_op_hook(self._callback, self._monitor_all)
        try:
            # (the graph asks every parameter for its array before it runs anything)
            out = self._cached_op(data)
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            for is_data, param in self._cached_op_args:
                if not is_data:
                    param._finish_deferred_init()
            out = self._cached_op(data)
        return _regroup(out, self._out_format)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` names): the
        checkpoint ``mx.mod.Module.load(path, epoch)`` and ``SymbolBlock.imports`` read."""
        if not self._cached_graph:
            raise MXNetError('Please first call block.hybridize() and then run forward with this block at least '
                             'once before calling export.')
        sym = self._cached_graph[1]
        sym_file = '%s-symbol.json' % path
        sym.save(sym_file, remove_amp_cast=remove_amp_cast)
        arg_names, aux_names = set(sym.list_arguments()), set(sym.list_auxiliary_states())
        arrays = {}
        params = [p for is_data, p in self._cached_op_args if not is_data] if self._cached_op_args \
            else list(self.collect_params().values())
        for param in params:
            if param.name in arg_names:
                arrays['arg:' + param.name] = param._reduce()
            elif param.name in aux_names:
                arrays['aux:' + param.name] = param._reduce()
            else:
                warnings.warn('Parameter "%s" is not found in the graph. ' % param.name, stacklevel=3)
        params_file = '%s-%04d.params' % (path, epoch)
        ndarray.save(params_file, arrays)
        return sym_file, params_file

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` for the operators of this block and its children.

        The hook fires while the block runs hybridized: ``name`` names each operator output (and,
        with ``monitor_all=True``, each operator input), ``op_name`` the operator, both as bytes,
        and ``array`` holds the value as an NDArray.
        """
        self._callback = callback
        self._monitor_all = monitor_all
        super().register_op_hook(callback, monitor_all)

    def optimize_for(self, x, *args, backend=None, **kwargs):
        """Partition the graph for an accelerator backend; not supported by reflib.

        Raises:
            MXNetError: always, since reflib has no subgraph backends.
        """
        raise MXNetError('optimize_for(backend=%r): reflib has no subgraph backends' % (backend,))


def _same_but_defaults(fmt, stored):
    """Formats that differ only by trailing None arguments (left to their defaults)."""
    if not isinstance(fmt, list) or not isinstance(stored, list):
        return False
    short, long_ = (fmt, stored) if len(fmt) < len(stored) else (stored, fmt)
    return long_[:len(short)] == short and all(f == -1 for f in long_[len(short):])


# ------------------------------------------------------------------ SymbolBlock
def _common_prefix(names):
    if not names:
        return ''
    prefix = names[0]
    for name in names[1:]:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


class SymbolBlock(HybridBlock):
    """A block that runs a given Symbol: ``outputs`` the graph, ``inputs`` the variables
    that are data (every other argument and auxiliary state becomes a Parameter)."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False, ignore_extra=False):
        """Load an exported model: ``-symbol.json`` and, if given, its ``.params``."""
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(n, dtype=np.float32) for n in input_names]
        else:
            inputs = [symbol.var(n) for n in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                        dtype_source='saved')
        return block

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, 'input')
        outs, self._out_format = _flatten(outputs, 'output')
        input_names = set()
        for var in syms:
            if len(var.get_internals().list_outputs()) != 1:
                raise GluonAssertionError('Input symbols must be variable, but %s is an output of operators' % var)
            input_names.add(var.name)
        out = symbol.Group(outs) if len(outs) > 1 else outs[0]
        arg_types, aux_types = self._param_types(syms, out)
        # a hybridized call binds every parameter dense, so a sparse one is refused here, up front
        stored = out.attr_dict()
        for name in out.list_inputs():
            stype = stored.get(name, {}).get('__storage_type__', '0')
            if name not in input_names and stype not in ('0', '-1'):
                raise GluonAssertionError("SymbolBlock: parameter %r is declared %s; a SymbolBlock's parameters "
                                          "must be dense" % (name, _STORAGE_TYPE_ID_TO_STR.get(int(stype), stype)))
        for name, dtype in zip(out.list_arguments(), arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(out.list_auxiliary_states(), aux_types):
            if name not in input_names:
                self.params.get(name, grad_req='null', allow_deferred_init=True, dtype=dtype)
        self._cached_graph = syms, out
        strip = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[strip:]: value for key, value in self._params.items()}

    @staticmethod
    def _param_types(inputs, out):
        """The parameters' dtypes from type inference on the inputs' declared dtypes (float32
        where nothing says otherwise)."""
        known = {}
        for var in inputs:
            dtype = var.attr('__dtype__')
            if dtype is not None:
                known[var.name] = FLAG_TO_DTYPE[int(dtype)]
        try:
            arg_types, _, aux_types = out.infer_type_partial(**known)
        except MXNetError:
            arg_types = aux_types = None
        default = np.float32
        arg_types = [t or default for t in (arg_types or [None] * len(out.list_arguments()))]
        aux_types = [t or default for t in (aux_types or [None] * len(out.list_auxiliary_states()))]
        return arg_types, aux_types

    def __repr__(self):
        graph_inputs, out = self._cached_graph
        return '%s(\n%s : %d -> %d\n)' % (type(self).__name__, out, len(graph_inputs), len(out.list_outputs()))

    def forward(self, x, *args):
        """Run the wrapped Symbol on NDArrays, or compose it with Symbols.

        Given NDArrays (as many as the block's input variables), the graph runs through the
        executor on the first input's context and the outputs come back as NDArrays.  Given
        Symbols, the block's graph is returned with its input variables replaced by them.

        Raises:
            GluonAssertionError: when the first input is neither an NDArray nor a Symbol, or the
                Symbol inputs do not match the block's input structure.
        """
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise GluonAssertionError('HybridBlock requires the first argument to forward be either Symbol or '
                                      'NDArray, but got %s' % type(x))
        flat, fmt = _flatten([x] + list(args), 'input')
        if fmt != self._in_format:
            raise GluonAssertionError('Invalid input format')
        graph_inputs, out = self._cached_graph
        composed = out(**{var.name: arg for var, arg in zip(graph_inputs, flat)})
        return _regroup(list(composed), self._out_format)

    def _clear_cached_op(self):
        kept = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = kept

    def _get_graph(self, *args):
        return self._cached_graph

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Not used: a SymbolBlock runs the Symbol it wraps (see ``forward``).

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError('a SymbolBlock runs its Symbol; it has no hybrid_forward')

    def reset_ctx(self, ctx):
        """Move every parameter of the block to ``ctx`` (a Context or a list of Contexts)."""
        for param in self.collect_params().values():
            param.reset_ctx(ctx)

