"""Automatic mixed precision: where float16 runs and where the casts go.

Two ways in, as in MXNet 1.9.1:

* ``init()`` before building a model: the operator functions of ``mx.nd`` and ``mx.sym``
  are replaced by versions that cast their inputs -- to float16 for the operators that gain
  from it (FullyConnected, Convolution, ...), back to float32 for those that need the range
  (exp, softmax, the losses, ...), and to the widest input dtype for those whose inputs must
  agree (elemwise_add, concat, ...).  Training then uses ``init_trainer`` and
  ``scale_loss`` for the dynamic loss scale (loss_scaler.py).
* ``convert_symbol`` / ``convert_model`` / ``convert_hybrid_block`` /
  ``convert_bucketing_module`` on a finished float32 model: a graph rewrite inserting
  ``amp_cast`` and ``amp_multicast`` nodes.  MXNet does this in C++ (its ReducePrecision
  graph pass); the rewrite below follows the same rules, learnt by running MXNet on small
  graphs, so the converted JSON is node for node MXNet's.

``init`` reaches the Python operators too: in MXNet ``a + b`` on NDArrays or Symbols calls
the same module functions that ``init`` replaces (broadcast_add, _Plus, _power_scalar, ...),
so after ``init`` a float16 array plus a float32 one is a float32 array, and ``x + y`` on
Symbols gets an ``amp_multicast`` node.  reflib's NDArray and Symbol keep operators of their
own, so ``init`` redirects them to the replaced functions (``_patch_arithmetic``).

Which operator goes where is in lists/symbol_fp16.py.  The target is float16 only: numpy has
no bfloat16, so reflib cannot compute in it.
"""

import contextlib
import logging

import numpy as np

from ... import ndarray
from ... import optimizer as opt
from ... import symbol
from ...base import DTYPE_TO_FLAG, FLAG_TO_DTYPE, MXNetError, numeric_types
from ...context import current_context
from ...gluon import trainer as _trainer
from ...module import BucketingModule, Module
from ...ndarray import NDArray, math_functions as _nd_math, tape as _tape
from ...ndarray.ndarray import _RECORDED as _ND_OPERATORS
from ...operator import get as _get_op
from ...symbol import Symbol
from ...symbol.infer import infer_graph_types
from ...symbol.symbol import Node, topo_order
from . import lists
from .loss_scaler import LossScaler

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'convert_model',
           'convert_hybrid_block', 'list_lp16_ops', 'list_fp32_ops',
           'list_lp16_fp32_ops', 'list_conditional_fp32_ops',
           'list_widest_type_cast', 'list_loss_output_functions', 'list_lp16_use_fp32_params',
           'convert_symbol', 'convert_bucketing_module']

_FLOAT16 = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)

# Operators whose outputs have names of their own in MXNet ('output', 'mean', 'output0'):
# a cast inserted after one is called <node>_<output name>_amp_cast_<dtype>.  After any
# other operator MXNet uses the output's index instead (flatten0_0_amp_cast_float16).
# Found by converting <op> -> FullyConnected under MXNet 1.9.1, one operator at a time.
_NAMED_OUTPUTS = frozenset([
    'Activation', 'BatchNorm', 'BatchNorm_v1', 'BilinearSampler', 'Concat', 'Convolution',
    'Correlation', 'Crop', 'Deconvolution', 'Dropout', 'FullyConnected', 'GridGenerator', 'GroupNorm',
    'IdentityAttachKLSparseReg', 'InstanceNorm', 'L2Normalization', 'LRN', 'LayerNorm', 'LeakyReLU',
    'MakeLoss', 'Pad', 'Pooling', 'RNN', 'ROIPooling', 'SVMOutput', 'SequenceLast', 'SequenceMask',
    'SequenceReverse', 'SliceChannel', 'SoftmaxActivation', 'SoftmaxOutput', 'SpatialTransformer',
    'SwapAxis', 'UpSampling', '_rnn_param_concat', 'elemwise_add', 'make_loss', 'softmax', 'softmin',
])


class AMPError(MXNetError, AssertionError):
    """A wrong use of AMP (MXNet asserts, so this is an AssertionError too)."""


def _target(target_dtype):
    """The numpy dtype of a target given as 'float16' or np.float16; bfloat16 is refused."""
    if isinstance(target_dtype, str) and target_dtype == 'bfloat16':
        raise AMPError("AMP: target_dtype 'bfloat16' is not supported by reflib (numpy has no "
                       "bfloat16); use 'float16'")
    try:
        dtype = np.dtype(target_dtype)
    except TypeError:
        dtype = None
    if dtype != _FLOAT16:
        raise AMPError("AMP: target_dtype must be 'float16', got %r" % (target_dtype,))
    return dtype


# ------------------------------------------------------------------ the lists
def list_lp16_ops(target_dtype):
    """The operators AMP runs in the low-precision target dtype."""
    _target(target_dtype)
    return lists.symbol_fp16.FP16_FUNCS


def list_fp32_ops(target_dtype):
    """The operators AMP keeps in float32."""
    _target(target_dtype)
    return lists.symbol_fp16.FP32_FUNCS


def list_lp16_fp32_ops(target_dtype):
    """The operators that run in whichever precision their inputs arrive in."""
    _target(target_dtype)
    return lists.symbol_fp16.FP16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype):
    """(operator, parameter, values) triples: float32 only for those parameter values."""
    _target(target_dtype)
    return lists.symbol_fp16.CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype):
    """The operators whose inputs are brought to their widest dtype."""
    _target(target_dtype)
    return lists.symbol_fp16.WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype):
    """The loss outputs whose gradient ``init`` scales by the loss scale."""
    _target(target_dtype)
    return lists.symbol_fp16.LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype):
    """Inputs kept float32 inside low-precision operators: none for float16 (MXNet has a
    list only for bfloat16)."""
    _target(target_dtype)
    return None


# ------------------------------------------------------------------ amp.init
def _cast_input(x, dtype):
    """``x`` on its way into a patched operator function, cast to ``dtype`` where MXNet casts.

    A Symbol always gets an ``amp_cast`` node (which passes other dtypes through at run
    time).  An NDArray is cast only from the other float of the pair the device computes
    in: MXNet's CPU pair is (bfloat16, float32), so on the CPU a float32 array goes to
    float16 but a float16 array is *not* brought back to float32 by a float32 operator.
    """
    if isinstance(x, Symbol):
        return symbol.amp_cast(x, dtype=dtype.name)
    if isinstance(x, NDArray):
        pair = (_FLOAT32,) if x.context.device_type == 'cpu' else (_FLOAT16, _FLOAT32)
        if x.dtype != dtype and np.dtype(x.dtype) in pair:
            return ndarray.amp_cast(x, dtype=dtype.name)
    return x


def _wants(cond, kwargs):
    """Whether a conditional operator's call matches its condition (parameter, values)."""
    return cond is None or (cond[0] in kwargs and kwargs[cond[0]] in cond[1])


def _casting_nd(f, dtype, cond=None):
    """``f`` with every NDArray argument cast to ``dtype`` first."""
    def wrapped(*args, **kwargs):
        if not _wants(cond, kwargs):
            return f(*args, **kwargs)
        args = [_cast_input(a, dtype) for a in args]
        kwargs = {k: _cast_input(v, dtype) for k, v in kwargs.items()}
        return f(*args, **kwargs)
    return _like(wrapped, f)


def _casting_sym(f, dtype, cond=None):
    """``f`` building its node as usual, then given ``amp_cast`` inputs (auxiliary states
    excepted): the node keeps its name, and the variables ``f`` made for missing inputs
    (``fc1_weight``) are cast too, as in MXNet."""
    def wrapped(*args, **kwargs):
        if not _wants(cond, kwargs):
            return f(*args, **kwargs)
        sym = f(*args, **kwargs)
        node = sym._single_node()
        inputs = [entry if pos >= node.num_args() else _cast_input(Symbol([entry]), dtype)._outputs[0]
                  for pos, entry in enumerate(node.inputs)]
        new = Node(node.op, node.name, node.attrs, inputs)
        return Symbol([(new, i) for i in range(new.num_visible_outputs())])
    return _like(wrapped, f)


def _widest(f, target):
    """``f`` with its array arguments brought to one dtype: float32 if any is float32
    (NDArrays), or through one ``amp_multicast`` node (Symbols)."""
    def wrapped(*args, **kwargs):
        args = list(args)
        slots = [(args, i) for i, a in enumerate(args) if isinstance(a, (Symbol, NDArray))]
        slots += [(kwargs, k) for k, v in kwargs.items() if isinstance(v, (Symbol, NDArray))]
        values = [holder[key] for holder, key in slots]
        if any(isinstance(v, Symbol) for v in values):
            casted = symbol.amp_multicast(*values, num_outputs=len(values))
            for i, (holder, key) in enumerate(slots):
                holder[key] = casted[i]
        else:
            widest = _FLOAT32 if any(v.dtype == _FLOAT32 for v in values) else target
            for holder, key in slots:
                if holder[key].dtype == target and widest != target:
                    holder[key] = ndarray.amp_cast(holder[key], dtype=widest.name)
        return f(*args, **kwargs)
    return _like(wrapped, f)


def _like(wrapped, f):
    wrapped.__name__ = getattr(f, '__name__', 'amp_wrapped')
    wrapped.__module__ = getattr(f, '__module__', None)
    wrapped.__doc__ = getattr(f, '__doc__', None)
    return wrapped


# MXNet files an operator named _<prefix>_x under mx.nd.<prefix>.x; other _names live in _internal
_PREFIXES = ('_contrib_', '_linalg_', '_sparse_', '_image_', '_random_')


def _home(module, op_name):
    """(namespace, attribute) where ``module`` keeps the function of operator ``op_name``."""
    for prefix in _PREFIXES:
        if op_name.startswith(prefix) and (prefix != '_random_' or op_name.endswith('_like')):
            sub = getattr(module, prefix[1:-1], None)
            if sub is not None and hasattr(sub, op_name[len(prefix):]):
                return sub, op_name[len(prefix):]
            break
    if op_name.startswith('_'):
        return module._internal, op_name
    return module, op_name


def _patch(module, op_name, make):
    where, attr = _home(module, op_name)
    f = getattr(where, attr, None)
    if f is None:
        raise AMPError('amp.init: %s has no function for operator %r' % (module.__name__, op_name))
    setattr(where, attr, make(f))


def _patch_module(module, target, target_ops, conditional_ops, fp32_ops):
    """Replace the functions of ``module`` (ndarray or symbol) for the operators of the
    lists; returns the names of the operators replaced."""
    casting = _casting_sym if module is symbol else _casting_nd
    patched = set()
    for name in target_ops if target_ops is not None else list_lp16_ops(target):
        _patch(module, name, lambda f: casting(f, target))
        patched.add(name)
    for name in fp32_ops if fp32_ops is not None else list_fp32_ops(target):
        _patch(module, name, lambda f: casting(f, _FLOAT32))
        patched.add(name)
    for name, param, values in (conditional_ops if conditional_ops is not None
                                else list_conditional_fp32_ops(target)):
        _patch(module, name, lambda f: casting(f, _FLOAT32, (param, values)))
        patched.add(name)
    for name in list_widest_type_cast(target):
        _patch(module, name, lambda f: _widest(f, target))
        patched.add(name)
    return patched


def _current(module, op_name):
    """The function ``module`` has for ``op_name`` now (AMP's replacement, once patched)."""
    where, attr = _home(module, op_name)
    return getattr(where, attr)


# NDArray's operator methods: (Python operator as ndarray.py's _RECORDED names it, whether
# the number stands on the left, whether the result goes into the array itself)
_ND_METHODS = {
    '__add__': ('+', False, False), '__radd__': ('+', True, False),
    '__sub__': ('-', False, False), '__rsub__': ('-', True, False),
    '__mul__': ('*', False, False), '__rmul__': ('*', True, False),
    '__truediv__': ('/', False, False), '__rtruediv__': ('/', True, False),
    '__mod__': ('%', False, False), '__rmod__': ('%', True, False),
    '__pow__': ('**', False, False), '__rpow__': ('**', True, False),
    '__eq__': ('==', False, False), '__ne__': ('!=', False, False),
    '__gt__': ('>', False, False), '__ge__': ('>=', False, False),
    '__lt__': ('<', False, False), '__le__': ('<=', False, False),
    '__iadd__': ('+=', False, True), '__isub__': ('-=', False, True),
    '__imul__': ('*=', False, True), '__itruediv__': ('/=', False, True),
    '__imod__': ('%=', False, True),
}


def _amp_nd_method(method, operator, reverse, inplace, patched):
    """NDArray's ``method`` calling, as MXNet's NDArray does, the module function of its
    operator (broadcast_add between arrays, _plus_scalar with a number, ...) when AMP has
    replaced that function; ``method`` itself otherwise."""
    array_op, scalar_op, reverse_op = _ND_OPERATORS[operator]

    def amp_method(self, other):
        if isinstance(other, NDArray):
            op_name, args, kwargs = array_op, ((other, self) if reverse else (self, other)), {}
        elif isinstance(other, numeric_types):
            op_name, args, kwargs = reverse_op if reverse else scalar_op, (self,), {'scalar': float(other)}
        else:
            return method(self, other)
        if op_name not in patched:
            return method(self, other)
        if inplace:
            # out= is an input to the replaced function too: a float16 array += a float32 one
            # gives a new float32 array and leaves the float16 one as it was (MXNet does so)
            _tape.check_writable(self)
            kwargs['out'] = self
        return _current(ndarray, op_name)(*args, **kwargs)
    return _like(amp_method, method)


def _amp_sym_binary(binary, patched):
    """Symbol's ``_binary`` (behind ``+``, ``*``, ``>``, ...) building its node with the
    function AMP replaced, where it replaced the operator's."""
    def amp_binary(self, other, op_name, scalar_name, reverse=False):
        if isinstance(other, Symbol) and op_name in patched:
            lhs, rhs = (other, self) if reverse else (self, other)
            return _current(symbol, op_name)(lhs, rhs)
        if isinstance(other, numeric_types) and scalar_name in patched:
            return _current(symbol, scalar_name)(self, scalar=other)
        return binary(self, other, op_name, scalar_name, reverse)
    return _like(amp_binary, binary)


def _amp_nd_invoke(invoke, patched):
    """math_functions' ``invoke`` (behind mx.nd.add, maximum, power, ...) going through the
    replaced function of a patched operator."""
    def amp_invoke(op_name, *args, **kwargs):
        if op_name in patched:
            return _current(ndarray, op_name)(*args, **kwargs)
        return invoke(op_name, *args, **kwargs)
    return _like(amp_invoke, invoke)


def _patch_arithmetic(nd_patched, sym_patched):
    """Make ``a + b``, ``a > 2``, ``a += b``, mx.nd.add(a, b), ... of NDArrays and Symbols use
    the replaced operator functions, as MXNet's do (its arithmetic calls those functions)."""
    for name, (operator, reverse, inplace) in _ND_METHODS.items():
        setattr(NDArray, name, _amp_nd_method(getattr(NDArray, name), operator, reverse, inplace, nd_patched))
    Symbol._binary = _amp_sym_binary(Symbol._binary, sym_patched)
    _nd_math.invoke = _amp_nd_invoke(_nd_math.invoke, nd_patched)


def _patch_loss_outputs(module, scaler, target):
    """The loss outputs' gradient multiplied by the loss scale (NDArray calls); a Symbol's
    cannot follow a scale that changes after the graph is built, so it only warns."""
    for name in list_loss_output_functions(target):
        f = getattr(module, name, None)
        if f is None:
            continue
        if module is ndarray:
            def scaled(*args, _f=f, **kwargs):
                kwargs['grad_scale'] = kwargs.get('grad_scale', 1.0) * scaler.loss_scale
                return _f(*args, **kwargs)
            setattr(module, name, _like(scaled, f))
        else:
            def warned(*args, _f=f, **kwargs):
                logging.warning('%s does not support dynamic loss scaling in symbolic and hybridized '
                                'execution.', _f.__name__)
                return _f(*args, **kwargs)
            setattr(module, name, _like(warned, f))


_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Switch AMP on for everything built from now on (once per process; a second call does
    nothing, as in MXNet).  The lists override the defaults of lists/symbol_fp16.py."""
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    target = _target(target_dtype)
    _amp_initialized = True
    logging.info('Using AMP')
    patched = {module: _patch_module(module, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
               for module in (symbol, ndarray)}
    _patch_arithmetic(patched[ndarray], patched[symbol])
    _loss_scaler = LossScaler()
    _patch_loss_outputs(ndarray, _loss_scaler, target)
    _patch_loss_outputs(symbol, _loss_scaler, target)


def init_trainer(optimizer_or_trainer):
    """Give a gluon Trainer a dynamic loss scaler (the one ``init`` made, for the first)."""
    global _amp_loss_scale_initialized
    if not _amp_initialized:
        raise AMPError('AMP not initialized, did you forget to call amp.init()?')
    if isinstance(optimizer_or_trainer, _trainer.Trainer):
        if not _amp_loss_scale_initialized:
            _amp_loss_scale_initialized = True
            scaler = _loss_scaler
        else:
            scaler = LossScaler()
        optimizer_or_trainer._amp_loss_scaler = scaler
        optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale
    elif isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError('AMP is currently only compatible with Gluon Trainer, not with the optimizer %r'
                        % type(optimizer_or_trainer).__name__)
    else:
        raise TypeError('optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is %s'
                        % type(optimizer_or_trainer))


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """``with amp.scale_loss(loss, trainer) as scaled: scaled.backward()``: the loss (or each
    of a list of losses) times the loss scale, and the trainer set to divide it out again."""
    scaler = getattr(optimizer_or_trainer, '_amp_loss_scaler', None)
    if scaler is None:
        raise AMPError('Loss scaler is not initialized, did you forget to call amp.init_trainer()?')
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divide the loss scale out of the gradients now (to clip them, say); the trainer's
    step then applies them unscaled."""
    if isinstance(optimizer_or_trainer, _trainer.Trainer):
        for param in optimizer_or_trainer._params:
            for grad in param._grad or []:
                grad[:] *= optimizer_or_trainer._scale
        optimizer_or_trainer._scale = 1.
    elif isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError('AMP is currently only compatible with Gluon Trainer, not with the optimizer %r'
                        % type(optimizer_or_trainer).__name__)
    else:
        raise TypeError('optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is %s'
                        % type(optimizer_or_trainer))


# ------------------------------------------------------------------ the graph rewrite
class _Rewrite:
    """One pass over a float32 graph, making a copy with the casts in.

    Every node is copied, inputs first.  Two tables remember, per output of the *old*
    graph, where that value is available as float32 (``fp32``) and as the target dtype
    (``low``) in the new graph: an operator's own output once its dtype is known, or an
    ``amp_cast`` made earlier -- so one cast serves every later user of the value.  A value
    in neither table has a dtype the pass does not know (a variable, or what follows one).
    """

    def __init__(self, target, target_ops, fp32_ops, widest_ops, conditional, excluded,
                 data_names, cast_optional_params):
        self.target = target
        self.target_ops, self.fp32_ops, self.widest_ops = set(target_ops), set(fp32_ops), set(widest_ops)
        self.conditional = conditional          # op name -> {param: [values]}
        self.excluded = set(excluded)
        self.data_names = set(data_names)
        self.cast_optional_params = cast_optional_params
        self.mirror = {}                        # id(old node) -> new node
        self.fp32 = {}                          # (id(old node), index) -> new (node, index)
        self.low = {}

    # -- helpers
    def copy_of(self, entry):
        node, index = entry
        return self.mirror[id(node)], index

    def suffix(self, entry):
        """How a cast after ``entry`` is named: ''/_<output name>/_<index>, as MXNet names it."""
        node, index = entry
        if node.op is None:
            return ''
        if node.op.name in _NAMED_OUTPUTS:
            return '_' + node.op.outputs(node.params)[index]
        return '_%d' % index

    def cast(self, entry, dtype, table):
        """A new ``amp_cast`` of ``entry`` to ``dtype``, remembered in ``table``."""
        node = entry[0]
        name = '%s%s_amp_cast_%s' % (node.name, self.suffix(entry), dtype.name)
        cast = Node(_get_op('amp_cast'), name, {'dtype': dtype.name}, [self.copy_of(entry)])
        table[_key(entry)] = (cast, 0)
        return cast, 0

    def as_fp32(self, entry):
        """``entry`` as float32: a known float32 value, else a (new) cast."""
        found = self.fp32.get(_key(entry))
        return found if found is not None else self.cast(entry, _FLOAT32, self.fp32)

    def as_low(self, entry):
        found = self.low.get(_key(entry))
        return found if found is not None else self.cast(entry, self.target, self.low)

    def mark_outputs(self, old, new, dtypes):
        """Remember the new node's outputs in the table of their dtype (others: unknown)."""
        for i, dtype in enumerate(dtypes):
            if dtype == self.target:
                self.low[(id(old), i)] = (new, i)
            elif dtype == _FLOAT32:
                self.fp32[(id(old), i)] = (new, i)

    def infer_outputs(self, old, first):
        """The output dtypes of ``old`` when its first input is ``first`` (None where the
        operator cannot tell), with the input dtypes it implies; (None, None) if it refuses."""
        nin = old.num_args()
        given = [None] * len(old.inputs)
        if given:
            given[0] = first
        try:
            new_in, new_out, new_aux = old.op.infer_type(old.params, given[:nin], [None] * old.num_outputs(),
                                                         given[nin:])
        except MXNetError:
            return None, None
        return [_dtype(t) for t in list(new_in) + list(new_aux)], [_dtype(t) for t in new_out]

    def is_conditional_fp32(self, old):
        params = self.conditional.get(old.op.name)
        if not params or old.name in self.excluded:
            return False
        return any(old.attrs.get(param) in values for param, values in params.items())

    # -- the four kinds of node
    def keep_fp32(self, old, new):
        """An operator that needs float32: what arrives in float16 is cast back (a variable
        is taken to be float32 already)."""
        self.mark_outputs(old, new, [_FLOAT32] * old.num_outputs())
        for entry in old.inputs:
            if _key(entry) in self.fp32:
                new.inputs.append(self.fp32[_key(entry)])
            elif entry[0].op is None:
                new.inputs.append(self.copy_of(entry))
            else:
                new.inputs.append(self.cast(entry, _FLOAT32, self.fp32))

    def go_low(self, old, new):
        """An operator that runs in the target dtype: its inputs are cast to it, except the
        ones it must update in place (auxiliary states), those its type rule puts in another
        dtype (BatchNorm's gamma stays float32), and -- with cast_optional_params -- the
        parameters, which are then stored in the target dtype instead."""
        in_types, out_types = self.infer_outputs(old, self.target)
        if out_types is None:
            raise MXNetError('amp.convert_symbol: %s %r cannot run in %s (its type rule refuses it)'
                             % (old.op.name, old.name, self.target.name))
        self.mark_outputs(old, new, out_types)
        nin = old.num_args()
        for pos, entry in enumerate(old.inputs):
            child = entry[0]
            optional_param = (self.cast_optional_params and child.op is None
                              and child.name not in self.data_names)
            if _key(entry) in self.low:
                new.inputs.append(self.low[_key(entry)])
            elif optional_param or pos >= nin or in_types[pos] not in (self.target, None):
                new.inputs.append(self.copy_of(entry))
                if optional_param:
                    self.low[_key(entry)] = self.copy_of(entry)
            else:
                new.inputs.append(self.cast(entry, self.target, self.low))

    def go_widest(self, old, new):
        """An operator whose inputs must share a dtype: float32 if any input is float32,
        else the target; when some input's dtype is unknown, one amp_multicast decides at
        run time."""
        if not old.inputs:
            raise MXNetError('amp.convert_symbol: %s %r has no inputs; the symbol was built wrongly'
                             % (old.op.name, old.name))
        keys = [_key(e) for e in old.inputs]
        if any(k not in self.low and k not in self.fp32 for k in keys):
            first = old.inputs[0]
            multi = Node(_get_op('amp_multicast'), '%s%s_amp_multicast' % (first[0].name, self.suffix(first)),
                         {'num_outputs': str(len(old.inputs))}, [self.copy_of(e) for e in old.inputs])
            new.inputs.extend((multi, i) for i in range(len(old.inputs)))
            return
        dtype = _FLOAT32 if any(k in self.fp32 for k in keys) else self.target
        self.mark_outputs(old, new, [dtype] * old.num_outputs())
        convert = self.as_fp32 if dtype == _FLOAT32 else self.as_low
        new.inputs.extend(convert(e) for e in old.inputs)

    def go_conditional_fp32(self, old, new):
        """A conditional float32 operator whose condition holds: every input cast to
        float32 (variables too, unlike keep_fp32), auxiliary states excepted."""
        self.mark_outputs(old, new, [_FLOAT32] * old.num_outputs())
        nin = old.num_args()
        for pos, entry in enumerate(old.inputs):
            if _key(entry) in self.fp32:
                new.inputs.append(self.fp32[_key(entry)])
            elif pos >= nin:
                new.inputs.append(self.copy_of(entry))
            else:
                new.inputs.append(self.cast(entry, _FLOAT32, self.fp32))

    def pass_through(self, old, new):
        """Any other node: no cast; its outputs' dtypes follow from the first input's, when
        that is known."""
        new.inputs.extend(self.copy_of(e) for e in old.inputs)
        if not old.inputs:
            return
        first = _key(old.inputs[0])
        if first in self.low or first in self.fp32:
            _, out_types = self.infer_outputs(old, self.target if first in self.low else _FLOAT32)
            if out_types is not None:
                self.mark_outputs(old, new, out_types)

    def run(self, outputs):
        for old in topo_order(outputs):
            new = Node.__new__(Node)
            new.op, new.name, new.attrs, new.params, new.inputs = old.op, old.name, dict(old.attrs), old.params, []
            op_name = None if old.op is None else old.op.name
            if (op_name in self.fp32_ops) or old.name in self.excluded:
                self.keep_fp32(old, new)
            elif op_name in self.target_ops:
                self.go_low(old, new)
            elif op_name in self.widest_ops:
                self.go_widest(old, new)
            elif op_name is not None and self.is_conditional_fp32(old):
                self.go_conditional_fp32(old, new)
            else:
                self.pass_through(old, new)
            self.mirror[id(old)] = new
        # the model's outputs are float32, as its users expect
        return [self.as_fp32(entry) for entry in outputs]


def _key(entry):
    return id(entry[0]), entry[1]


def _dtype(t):
    return None if t is None else np.dtype(t)


def _input_dtypes(outputs, data_names, target, cast_optional_params):
    """dtype of each input variable of the converted graph (id -> dtype or None), MXNet's way:
    inferred from the data being float32 (declared ``__dtype__`` is not read), and with
    cast_optional_params, a still-unknown variable that only feeds casts to one dtype takes it."""
    nodes = topo_order(outputs)
    variables = [n for n in nodes if n.op is None]
    declared = {id(v): v.attrs.pop('__dtype__') for v in variables if '__dtype__' in v.attrs}
    try:
        _, entry = infer_graph_types(outputs, {n: _FLOAT32 for n in data_names})
    finally:
        for v in variables:
            if id(v) in declared:
                v.attrs['__dtype__'] = declared[id(v)]
    inferred = {id(v): entry.get((id(v), 0)) for v in variables}
    if not cast_optional_params:
        return inferred
    result, seen = dict(inferred), {}

    def settle(var, dtype):
        # a variable cast to two different dtypes keeps the inferred one (MXNet's rule)
        if var.name not in seen:
            if result[id(var)] is None:
                seen[var.name] = dtype
                result[id(var)] = dtype
        elif seen[var.name] != dtype:
            result[id(var)] = inferred[id(var)]
    for node in nodes:
        if node.op is None:
            continue
        if node.op.name == 'amp_cast':
            for child, _ in node.inputs:
                if child.op is None:
                    settle(child, np.dtype(node.attrs['dtype']))
        elif node.op.name == 'amp_multicast' and all(child.op is None for child, _ in node.inputs):
            for child, _ in node.inputs:
                settle(child, target)
    return result


def _set_dtype_attrs(outputs, data_names, model_params, dtypes):
    """Write ``__dtype__`` (MXNet's type flag, float32 where unknown) on the parameters, or,
    when no parameter is named, refresh it where the model already declared one."""
    flag = {id(v): DTYPE_TO_FLAG[dtypes[id(v)]] if dtypes.get(id(v)) is not None else 0
            for v in topo_order(outputs) if v.op is None}
    for var in topo_order(outputs):
        if var.op is not None:
            continue
        if model_params:
            if var.name in model_params:
                var.attrs['__dtype__'] = str(flag[id(var)])
        elif '__dtype__' in var.attrs:
            var.attrs['__dtype__'] = str(flag[id(var)])


def _check_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops):
    """The three lists as MXNet accepts them: lists, disjoint, of operators AMP knows."""
    for what, value in (('target_dtype_ops', target_dtype_ops), ('fp32_ops', fp32_ops),
                        ('conditional_fp32_ops', conditional_fp32_ops)):
        if not isinstance(value, list):
            raise AMPError('amp.convert_symbol: %s should be a list, got %s' % (what, type(value).__name__))
    for item in conditional_fp32_ops:
        if not (isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str)
                and isinstance(item[1], str) and isinstance(item[2], list)):
            raise AMPError('amp.convert_symbol: conditional_fp32_ops should be a list of (str, str, list of str), '
                           'got the entry %r' % (item,))
    conditional_names = [c[0] for c in conditional_fp32_ops]
    for (a, la), (b, lb) in ((('target_dtype_ops', target_dtype_ops), ('fp32_ops', fp32_ops)),
                             (('target_dtype_ops', target_dtype_ops), ('conditional_fp32_ops', conditional_names)),
                             (('fp32_ops', fp32_ops), ('conditional_fp32_ops', conditional_names))):
        common = set(la) & set(lb)
        if common:
            raise AMPError('Ops cannot be in two or more lists. Common ops in %s and %s %s' % (a, b, sorted(common)))
    known = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                + [c[0] for c in list_conditional_fp32_ops(target)])
    unknown = set(target_dtype_ops + fp32_ops + conditional_names) - known
    if unknown:
        raise AMPError('amp.convert_symbol: ops %s are in none of amp.list_lp16_ops, list_fp32_ops, '
                       'list_lp16_fp32_ops and list_conditional_fp32_ops' % sorted(unknown))


def convert_symbol(sym, target_dtype='float16', target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """A copy of the float32 model ``sym`` with ``amp_cast``/``amp_multicast`` nodes inserted
    so that the target-dtype operators run in it and the float32 ones in float32.

    ``target_dtype_ops``/``fp32_ops``/``conditional_fp32_ops`` replace the default lists;
    ``excluded_sym_names`` are nodes kept in float32 whatever their operator;
    ``data_names`` are the inputs that are data (float32), the other inputs being parameters
    (by default, the inputs without a declared ``__dtype__`` are data).
    ``cast_optional_params=True`` casts no parameter in the graph: they are marked
    (``__dtype__``) to be stored in the target dtype instead, as convert_model then does.
    """
    if not isinstance(sym, Symbol):
        raise AMPError('First argument to convert_symbol should be Symbol, got %s' % type(sym).__name__)
    target = _target(target_dtype)
    target_dtype_ops = list_lp16_ops(target) if target_dtype_ops is None else target_dtype_ops
    fp32_ops = list_fp32_ops(target) if fp32_ops is None else fp32_ops
    conditional_fp32_ops = list_conditional_fp32_ops(target) if conditional_fp32_ops is None else conditional_fp32_ops
    _check_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops)
    if excluded_sym_names is None:
        excluded_sym_names = []
    if not isinstance(excluded_sym_names, list):
        raise AMPError('excluded_sym_names should be a list of strs, got %s' % type(excluded_sym_names).__name__)

    conditional = {}
    for op_name, param, values in conditional_fp32_ops:
        conditional.setdefault(op_name, {}).setdefault(param, []).extend(values)
    inputs = sym.list_inputs()
    if data_names is None:
        attrs = sym.attr_dict()
        data_names = [n for n in inputs if '__dtype__' not in attrs.get(n, {})]
    model_params = set(inputs) - set(data_names)

    rewrite = _Rewrite(target, target_dtype_ops, fp32_ops, list_widest_type_cast(target), conditional,
                       excluded_sym_names, data_names, cast_optional_params)
    outputs = rewrite.run(sym._outputs)
    dtypes = _input_dtypes(outputs, data_names, target, cast_optional_params)
    _set_dtype_attrs(outputs, data_names, model_params, dtypes)
    return Symbol(outputs)


def _declared_dtype(attrs):
    flag = attrs.get('__dtype__')
    return None if flag in (None, '-1') else FLAG_TO_DTYPE[int(flag)]


def convert_model(sym, arg_params, aux_params, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """``convert_symbol`` for a model with its parameters: the inputs not in the two dicts
    are the data, and each parameter is converted to the dtype the new graph declares for it.
    The dicts are updated in place and returned, as in MXNet."""
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise AMPError('excluded_sym_names must be a list of strings representing the names of the symbols '
                       'that should not be casted, while received type %s' % type(excluded_sym_names))
    if not isinstance(sym, Symbol):
        raise AMPError('First argument to convert_model should be Symbol, got %s' % type(sym).__name__)
    if not isinstance(arg_params, dict) or not isinstance(aux_params, dict):
        raise AMPError('convert_model: arg_params and aux_params should be dicts of name to NDArray, got %s and %s'
                       % (type(arg_params).__name__, type(aux_params).__name__))
    param_names = set(arg_params) | set(aux_params)
    data_names = [n for n in sym.list_inputs() if n not in param_names]
    sym = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)
    attrs = sym.attr_dict()
    for names, params in ((sym.list_arguments(), arg_params), (sym.list_auxiliary_states(), aux_params)):
        for name in names:
            dtype = _declared_dtype(attrs.get(name, {}))
            if dtype is not None:
                params[name] = params[name].astype(dtype)
    return sym, arg_params, aux_params


def convert_hybrid_block(block, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None,
                         cast_optional_params=False):
    """A SymbolBlock running the converted graph of a hybridized, already-run HybridBlock,
    with its parameters (each in the dtype the new graph declares).  ``ctx``: where they
    live (MXNet's default is gpu(0); reflib's is the current context)."""
    from ...gluon import HybridBlock, SymbolBlock     # gluon builds on symbol and ndarray, as we do
    if not isinstance(block, HybridBlock):
        raise AMPError('block input should be a HybridBlock, got %s' % type(block).__name__)
    if not block._cached_graph:
        raise RuntimeError('Please first call block.hybridize() and then run forward with this block at least '
                           'once before calling convert_hybrid_block.')
    ctx = current_context() if ctx is None else ctx
    inputs, sym = block._cached_graph
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names=[i.name for i in inputs],
                               cast_optional_params=cast_optional_params)
    arg_names = set(converted.list_arguments())
    attrs = converted.attr_dict()
    values = {}
    for name, param in block.collect_params().items():
        kind = 'arg' if name in arg_names else 'aux'
        value = param._reduce()
        dtype = _declared_dtype(attrs.get(name, {}))
        values['%s:%s' % (kind, name)] = value if dtype is None else value.astype(dtype)
    result = SymbolBlock(converted, inputs)
    for name, param in result.collect_params().items():
        for key in ('arg:' + name, 'aux:' + name):
            if key in values and param.dtype != values[key].dtype:
                param.cast(values[key].dtype)
    result.collect_params().load_dict(values, ctx=ctx)
    return result


def convert_bucketing_module(bucketing_mod, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A new, unbound BucketingModule running every bucket of ``bucketing_mod`` converted by
    ``convert_model``, with its parameters.

    ``bucketing_mod`` must have buckets (be bound) and initialized parameters.  As in MXNet
    1.9.1:

    * the buckets converted are those the module has made so far; its ``sym_gen`` is kept
      as it is, so a bucket first seen later runs in float32;
    * the parameters are the current module's host copies (``_arg_params``, as last synced:
      ``get_params`` first to carry over trained values), and that same dict is converted in
      place: after a conversion with ``cast_optional_params`` the original module's dict
      holds the float16 arrays too;
    * every bucket's module takes the data and label names of the default bucket.

    The other arguments are ``convert_model``'s.
    """
    if not isinstance(bucketing_mod, BucketingModule):
        raise AMPError('convert_bucketing_module: bucketing_mod should be a BucketingModule, got %s'
                       % type(bucketing_mod).__name__)
    if not bucketing_mod._buckets:
        raise AMPError('convert_bucketing_module: the BucketingModule has no buckets yet; bind it first')
    if not bucketing_mod.params_initialized:
        raise AMPError('convert_bucketing_module: the parameters of the BucketingModule are not initialized; '
                       'call init_params (or set_params) first')
    default_key = bucketing_mod._default_bucket_key
    if default_key not in bucketing_mod._buckets:
        raise AMPError('convert_bucketing_module: the BucketingModule has no module for its default bucket %r'
                       % (default_key,))
    current = bucketing_mod._curr_module
    arg_params, aux_params = current._arg_params, current._aux_params
    if not isinstance(arg_params, dict) or not isinstance(aux_params, dict):
        raise AMPError('convert_bucketing_module: the current bucket module (%r) holds no parameters'
                       % (bucketing_mod._curr_bucket_key,))
    symbols = {}
    for key, module in bucketing_mod._buckets.items():
        symbols[key], arg_params, aux_params = convert_model(
            module._symbol, arg_params, aux_params, target_dtype=target_dtype,
            target_dtype_ops=target_dtype_ops, fp32_ops=fp32_ops, conditional_fp32_ops=conditional_fp32_ops,
            excluded_sym_names=excluded_sym_names, cast_optional_params=cast_optional_params)

    kwargs = bucketing_mod._module_kwargs
    result = BucketingModule(bucketing_mod._sym_gen, default_key, **kwargs)
    _, data_names, label_names = result._call_sym_gen(default_key)
    for key, sym in symbols.items():
        result._buckets[key] = Module(sym, data_names, label_names, **kwargs)
    result._curr_module = result._buckets[default_key]
    result._curr_module._arg_params = arg_params
    result._curr_module._aux_params = aux_params
    result._curr_module.params_initialized = True
    result.params_initialized = True
    return result
