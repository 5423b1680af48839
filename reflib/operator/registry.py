"""The operator registry: one place per operator.

Every operator is a subclass of :class:`Operator` registered under its MXNet
name.  One class holds everything about the operator, side by side:

``params``        its parameters (name -> :class:`Param`), parsed from Python
                  values or from the strings stored in a symbol's JSON;
``inputs(p)``     the names of its inputs (``['data', 'weight', 'bias']``);
``aux(p)``        auxiliary states it reads and updates (BatchNorm's moving stats);
``outputs(p)``    the names of its outputs; the first ``visible_outputs(p)`` are
                  seen by the user, the rest are kept for backward (Dropout's mask);
``infer_shape``   fills in unknown shapes from known ones, in both directions;
``infer_type``    the same for dtypes;
``forward``       computes outputs from inputs with ``env.xp`` (numpy or cupy);
``backward``      computes input gradients from output gradients.

``p`` is always the parsed parameter namespace of one node.  Shapes are tuples
or ``None`` (unknown); a 0 inside a tuple is an unknown dimension, as in MXNet.
"""

import ast
import re
import warnings

import numpy as np

from ..base import ParamError, ShapeError
from ..registry import Registry
# the shape algebra lives below the operators (reflib/shapes.py); chapter 3 shows merge_shape
# as registry.merge_shape, where it lived before
from ..shapes import format_shape, merge_shape, prod
from .. import engine
from ..generators import generator, random_state

__all__ = ['Operator', 'Param', 'register', 'get', 'list_operators', 'OpEnv',
           'Params']

_REGISTRY = Registry('operator', lower=False, on_replace='raise', error=ParamError)


class _Required:
    def __repr__(self):
        return 'required'


REQUIRED = _Required()


class Param:
    """One operator parameter: its kind, default, bounds and help.

    kind is one of 'int', 'float', 'bool', 'shape' (a tuple of ints), 'floats' (a tuple of
    floats: multi_sgd_update's ``lrs``), 'str', 'enum' (one of ``choices``), 'int_or_none',
    'float_or_none', 'shape_or_none'.
    ``low`` and ``high`` bound a number, or every element of a shape, inclusively
    (MXNet's ``set_lower_bound`` and ``set_range``).

    Parsing is one path for a Python value (``mx.sym.FullyConnected(num_hidden=128)``)
    and for the string a symbol file stores (``"128"``), and as strict as MXNet's: an
    int is a whole number written as one (``2.7``, ``3.0``, ``True`` and ``1e20`` are
    refused, as is anything outside int32), and a value outside the bounds is refused
    with the operator, the parameter and the bound in the message.

    The bounds are MXNet 1.9.1's where it has them (``num_hidden >= 1``, Dropout's
    ``p`` in [0, 1]).  reflib is stricter where MXNet accepts a value and then fails
    later or computes nonsense: a zero or negative kernel, stride or dilation, a negative
    pad, ``num_group=0`` (MXNet crashes on it), a Reshape code below -4.
    """
    __slots__ = ('kind', 'default', 'choices', 'doc', 'low', 'high')

    def __init__(self, kind, default=REQUIRED, choices=None, doc='', low=None, high=None):
        self.kind, self.default, self.choices, self.doc = kind, default, choices, doc
        self.low, self.high = low, high

    @property
    def required(self):
        return self.default is REQUIRED

    def parse(self, value, op, name):
        """A Python value from ``value`` (already typed, or the string form from JSON)."""
        kind = self.kind
        if value is None or (isinstance(value, str) and value == 'None'):
            if kind.endswith('_or_none') or self.default is None:
                return None
            raise ParamError('%s: parameter %r cannot be None' % (op, name))
        base = kind[:-len('_or_none')] if kind.endswith('_or_none') else kind
        try:
            parsed = self._parse_base(base, value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            expected = ('one of %s' % (self.choices,)) if base == 'enum' else _EXPECTED.get(base, base)
            raise ParamError('%s: parameter %r expects %s, got %r' % (op, name, expected, value)) from None
        self._check_bounds(parsed, op, name)
        return parsed

    def _parse_base(self, base, value):
        if base == 'int':
            return _whole_number(value)
        if base == 'float':
            if isinstance(value, bool):
                raise TypeError(value)
            return float(value)
        if base == 'bool':
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ('true', '1'):
                    return True
                if low in ('false', '0'):
                    return False
                raise ValueError(value)
            if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
                return bool(value)
            raise TypeError(value)
        if base == 'shape':
            if isinstance(value, str):
                value = _literal(value)
            if isinstance(value, np.ndarray) and value.ndim == 1:     # a shape read off numpy
                value = value.tolist()
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                return (_whole_number(value),)
            if not isinstance(value, (tuple, list)):
                raise TypeError(value)
            return tuple(_whole_number(v) for v in value)
        if base == 'floats':
            return _float_tuple(value)
        if base == 'enum':
            value = str(value)
            if value not in self.choices:
                raise ValueError(value)
            return value
        if base == 'str':
            return str(value)
        raise AssertionError('unknown parameter kind %r' % base)

    def _check_bounds(self, parsed, op, name):
        if self.low is None and self.high is None:
            return
        values = parsed if isinstance(parsed, tuple) else (parsed,)
        for v in values:
            if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
                if self.high is None:
                    bound = 'at least %s' % (self.low,)
                elif self.low is None:
                    bound = 'at most %s' % (self.high,)
                else:
                    bound = 'in [%s, %s]' % (self.low, self.high)
                what = ('every element of parameter %r' if isinstance(parsed, tuple) else 'parameter %r') % name
                raise ParamError('%s: %s must be %s, got %r' % (op, what, bound, parsed))


_EXPECTED = {'int': 'a whole number (int32)', 'shape': 'a tuple of whole numbers',
             'floats': 'a tuple of finite numbers, as (0.1, 0.2)'}
_INT32 = (-2 ** 31, 2 ** 31 - 1)


def _whole_number(value):
    """An int from an int, or from a string that is written as one, within int32 (as MXNet)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(value)
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip('+-').isdigit():
            raise ValueError(value)
        value = int(text)
    elif isinstance(value, (int, np.integer)):
        value = int(value)
    else:
        raise TypeError(value)
    if not _INT32[0] <= value <= _INT32[1]:
        raise ValueError(value)
    return value


def _float_tuple(value):
    """A tuple of floats from a tuple or list of numbers, from one number (a tuple of one), or
    from the text of either: ``'(0.1, 0.2)'``, ``'[0.1 0.2]'`` (numpy's print of an array, which
    is what the front ends make of one), ``'0.1'``.  Non-finite values are refused, as MXNet's
    parser refuses them inside a tuple."""
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r'\[[^,\]]*\]', text):       # numpy's print: numbers apart by spaces
            value = [float(t) for t in text[1:-1].split()]
        else:
            value = ast.literal_eval(text)
            if isinstance(value, tuple) and not text.startswith('('):
                raise ValueError(text)                  # '0.1,0.2': MXNet wants the brackets
    if isinstance(value, np.ndarray) and value.ndim <= 1:
        value = value.tolist()
    if not isinstance(value, (tuple, list)):
        value = (value,)
    numbers = []
    for v in value:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(v)
        if not np.isfinite(v):
            raise ValueError(v)
        numbers.append(float(v))
    return tuple(numbers)


def _literal(text):
    text = text.strip()
    if re.fullmatch(r'\[\s*-?\d+(\s+-?\d+)*\s*\]', text):     # numpy's print of a shape: '[2 5]'
        return [int(t) for t in text[1:-1].split()]
    return ast.literal_eval(text)


class Params:
    """Parsed parameters of one node, readable as attributes (``p.num_hidden``).

    ``memo`` keeps what an operator derives from them (a reduction's axes for an ndim), so
    a graph run many times derives it once; it is not a parameter: equality and the repr
    ignore it."""
    __slots__ = ('__dict__', 'memo')

    def __init__(self, values):
        self.__dict__.update(values)
        self.memo = {}

    def __repr__(self):
        return 'Params(%s)' % ', '.join('%s=%r' % kv for kv in sorted(self.__dict__.items()))

    def __eq__(self, other):
        return isinstance(other, Params) and self.__dict__ == other.__dict__


# (context, name) -> the bytes of that scratch buffer; see OpEnv.workspace
_WORKSPACES = {}


class OpEnv:
    """Where one operator call runs: the array module, the context, train or test mode.

    ``wants`` (one bool per input, or None for all) tells ``backward`` which input
    gradients anybody will read: the executor's plan sets it, so that, say, the first
    FullyConnected layer does not compute the gradient of the data, which no one asked
    for.  An operator may return None for an input it is not asked about.

    ``out`` and ``grad_out`` are the executor's planned memory (see executor/memory.py):
    ``out[j]`` is the array output ``j`` of forward lives in, ``grad_out[k]`` the array
    input ``k``'s gradient goes to, each None where the operator must allocate for
    itself.  An operator that can, computes straight into them and returns those very
    arrays; one that does not returns new arrays and the executor copies them in.  Such
    an array may share memory with an input only where the operator offered that
    (``Operator.inplace`` and ``Operator.backward_inplace``), so an operator that offers
    it must compute correctly when ``out[j]`` *is* that input.
    """
    __slots__ = ('xp', 'ctx', 'is_train', 'wants', 'out', 'grad_out', 'drew_random')

    def __init__(self, ctx, is_train=False, wants=None):
        self.ctx = ctx
        self.xp = ctx.xp
        self.is_train = is_train
        self.wants = wants
        self.out = None
        self.grad_out = None
        self.drew_random = False

    def target(self, j):
        """The planned array for output ``j`` of forward, or None."""
        return None if self.out is None else self.out[j]

    def grad_target(self, k):
        """The planned array for the gradient of input ``k``, or None."""
        return None if self.grad_out is None else self.grad_out[k]

    def wants_grad(self, k):
        """Whether the gradient of input ``k`` is needed."""
        return self.wants is None or self.wants[k]

    def workspace(self, name, shape, dtype):
        """Scratch memory for the duration of one operator call (MXNet's TempSpace).

        One buffer per (context, name), kept between calls and grown when a bigger one is
        asked for, so that a convolution's im2col matrix does not cost a fresh allocation
        (and its page faults) on every call.  What is in it is garbage, and nothing an
        operator returns may point into it.
        """
        nbytes = prod(shape) * np.dtype(dtype).itemsize
        key = (self.ctx, name)
        buf = _WORKSPACES.get(key)
        if buf is None or buf.nbytes < nbytes:
            with self.ctx.device_scope():
                buf = _WORKSPACES[key] = self.xp.empty(max(nbytes, 1), dtype=np.uint8)
        return buf[:nbytes].view(dtype).reshape(shape)

    @property
    def rng(self):
        """The device's random generator.  As in MXNet, every sampling operator shares it: after
        one failed (a negative scale), every later draw on the device fails with the same error,
        unrun, until a wait raises it (reflib/engine.py)."""
        if engine.pending():
            failed = engine.failure_of([random_state(self.ctx)])
            if failed is not None:
                raise failed
        self.drew_random = True
        return generator(self.ctx)

    def fail_random_state(self, error):
        """A call that drew from the generator failed with ``error``: so does the device's
        random state, as MXNet's engine marks the random resource the operator wrote."""
        if self.drew_random:
            engine.fail([random_state(self.ctx)], error)


class Operator:
    """Base class of all operators.  Subclasses set ``name`` and override what differs."""

    name = None
    aliases = ()
    params = {}
    # the parameter that counts variadic inputs (Concat's num_args), set from len(args)
    key_var_num_args = None
    # loss heads compute their own head gradient: backward needs no out_grads for them
    is_loss = False
    # no gradient passes through (BlockGrad, and operators whose gradient is zero everywhere:
    # comparisons, zeros_like, shape_array): the plan drops the backward behind them
    blocks_gradient = False
    # MXNet's C registry gives the operator no input names: monitor_input_names
    unnamed_inputs = False
    # False where MXNet 1.9.1 registers no gradient at all: binding a graph that needs one
    # through it is refused (executor/plan.py)
    differentiable = True
    # two nodes of this operator with the same inputs and parameters may merge into one
    # (symbol/common_expr.py); False for those MXNet 1.9.1 keeps apart: random ones, ones
    # asking for scratch space (FullyConnected), and its older stateful ones (SliceChannel...)
    eliminable = True
    # False for an operator MXNet 1.9.1 registers but makes no mx.nd/mx.sym function for
    # (_CachedOp): reflib makes none either
    has_function = True

    # ---------------------------------------------------------------- params
    def parse_params(self, raw):
        """Parse a dict of parameter values; unknown names and missing required ones raise."""
        values = {}
        for key, value in raw.items():
            spec = self.params.get(key)
            if spec is None and not self.params:
                # MXNet 1.9.1 ignores any keyword given to an operator without parameters
                # (broadcast_maximum(a, b, axis=1)); reflib ignores it too, saying so
                warnings.warn('%s takes no parameters: %s=%s is ignored, as in MXNet' % (self.name, key, value),
                              stacklevel=4)
                continue
            if spec is None:
                raise ParamError(
                    "%s: unknown parameter %r; known parameters: %s"
                    % (self.name, key, ', '.join(sorted(self.params)) or '(none)'))
            values[key] = spec.parse(value, self.name, key)
        for key, spec in self.params.items():
            if key not in values:
                if spec.required:
                    raise ParamError('%s: required parameter %r is missing' % (self.name, key))
                values[key] = spec.default
        return Params(values)

    # ------------------------------------------------------------- structure
    def inputs(self, p):
        return ['data']

    def aux(self, p):
        return []

    def input_order(self, p):
        """Every input and auxiliary state, in the order MXNet's function takes them by position
        and its graph files list them.  The default, the inputs and then the states, is MXNet's
        order for nearly every operator; one whose states sit among its inputs (MXNet's
        multi_sgd_mom_update takes weight_0, grad_0, mom_0, weight_1, ...) gives its order here,
        and mx.nd, mx.sym and the JSON reader and writer place its arrays by it."""
        return self.inputs(p) + self.aux(p)

    reorders_inputs = False     # whether input_order differs from the default (set by register)

    def var_num_args_for(self, n_inputs):
        """The value ``key_var_num_args`` takes when a call leaves it out and passes
        ``n_inputs`` arrays: their number (Concat's num_args), or, where each counted item takes
        several arrays, the number of items (multi_sgd_update's num_weights)."""
        return n_inputs

    def outputs(self, p):
        return ['output']

    def inplace(self, p):
        """``(input, output)`` pairs: output ``o`` may be computed into input ``i``'s memory.

        The memory plan uses a pair when nothing reads input ``i`` after this operator,
        backward included (MXNet's ``FInplaceOption``); forward then gets an ``env.out[o]``
        that is input ``i``'s memory.
        """
        return []

    def inplace_identity(self, p):
        """True when each ``inplace`` output holds its input's very values (a reshape).

        Then the output may share the input's memory even while the input is still read
        elsewhere: both are the same numbers (MXNet's ``FInplaceIdentity``).
        """
        return False

    def backward_reads(self, p):
        """Which forward values backward reads: ``(input positions, output positions)``.

        The memory plan keeps exactly these alive until this operator's backward has run;
        the others may be overwritten sooner, and backward gets a read-only array of zeros
        of the right shape in their place.  The default, None, is every input and output.
        """
        return None

    def backward_inplace(self, p):
        """``(output, input)`` pairs: input ``i``'s gradient may be computed into the memory
        of output ``o``'s gradient (an activation's ``dx = dy * f'(y)``)."""
        return []

    def monitor_input_names(self, p):
        """The names a monitor callback reports this operator's inputs under
        (``<node>_<name>``): its inputs' names, or, where MXNet's C registry declares none for
        the operator (Activation), MXNet's fallback ``input0``, ``input1``..."""
        if self.unnamed_inputs:
            return ['input%d' % k for k in range(len(self.inputs(p)) + len(self.aux(p)))]
        return self.inputs(p) + self.aux(p)

    def loss_head(self, p):
        """Whether this node makes its own head gradient (``is_loss``): backward then takes no
        gradient of its outputs.  Per node where the parameters decide (a Python operator's
        ``need_top_grad``, custom.py)."""
        return self.is_loss

    def gradient_blocked(self, p):
        """Whether no gradient passes this node back to its inputs (``blocks_gradient``, or
        for some parameter values only: topk returning indices)."""
        return self.blocks_gradient

    def visible_outputs(self, p):
        """How many outputs the user sees; the rest only carry state to backward."""
        return len(self.outputs(p))

    def sparse_inputs(self, p):
        """``{input position: storage types it takes as they are}``: a 'csr' array arrives as
        scipy's (cupyx's) ``csr_matrix``, a 'row_sparse' one as ``SparseRows`` (sparse_rows.py).
        Every other sparse input gets its dense form, as MXNet's "storage fallback" gives it."""
        return {}

    def grad_stype(self, p, k, in_stypes):
        """How input ``k``'s gradient is stored, given the inputs' storage types: 'row_sparse'
        where backward returns it as ``SparseRows`` (sparse_rows.py), else 'default'."""
        return 'default'

    # True where backward takes the gradient of its output as ``SparseRows`` when it comes so
    # (from dot with a CSR lhs): MXNet's _square_sum stores its own gradient in those rows only
    takes_sparse_head = False

    # True where the row-sparse gradient may not go into a dense gradient array: MXNet refuses
    # to bind Embedding(sparse_grad=True) so, while dot's falls back to dense
    sparse_grad_only = False

    def reads_out(self, p):
        """Whether forward reads what ``out=`` held before (``all_finite(init_output=False)``
        ANDs into it); mx.nd then hands the out= arrays in as ``env.out``."""
        return False

    def aux_init(self, p):
        """Initializer names MXNet records on auto-created aux variables (``__init__`` attr)."""
        return {}

    def input_var_init(self, p):
        """``{input: initializer JSON}`` put on the variable fed to that input when the node is
        built, whoever made the variable (MXNet's FSetInputVarAttrOnCompose)."""
        return {}

    # ------------------------------------------------------------- inference
    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        """Default: one output with the shape of every input (elementwise ops)."""
        known = None
        for s in list(in_shapes) + list(out_shapes):
            known = merge_shape(known, s, self.name)
        return ([known] * len(in_shapes), [known] * len(out_shapes), list(aux_shapes))

    def infer_type(self, p, in_types, out_types, aux_types):
        """Default: every input, output and aux state has one dtype."""
        known = None
        for t in list(in_types) + list(out_types) + list(aux_types):
            if t is not None:
                known = t
                break
        return ([known] * len(in_types), [known] * len(out_types), [known] * len(aux_types))

    # ----------------------------------------------------------- computation
    def forward(self, p, env, inputs, aux):
        raise NotImplementedError(self.name)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        """Gradients of the inputs (list aligned with ``inputs``; None means zero/no gradient)."""
        raise NotImplementedError('%s has no backward' % self.name)

    def help_text(self):
        """The docstring of ``mx.sym.<name>``/``mx.nd.<name>``: what the class says, then its parameters."""
        lines = [(type(self).__doc__ or self.name).strip(), '', 'Parameters:']
        for key, spec in sorted(self.params.items()):
            default = 'required' if spec.required else 'default %r' % (spec.default,)
            lines.append('  %s (%s, %s) %s' % (key, spec.kind, default, spec.doc))
        return '\n'.join(lines)

    def __repr__(self):
        return '<Operator %s>' % self.name


def register(cls):
    """Class decorator: instantiate ``cls`` and make it findable by its name and aliases."""
    # decided once here, so that a call of the many operators that keep the inputs-then-states
    # order pays nothing for the few that do not
    cls.reorders_inputs = cls.input_order is not Operator.input_order
    op = cls()
    for key in (cls.name,) + tuple(cls.aliases):
        _REGISTRY.register(op, key)
    return cls


def get(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParamError('unknown operator %r' % name) from None


def list_operators():
    """Every registered name (aliases included), sorted."""
    return sorted(_REGISTRY)


def canonical_operators():
    """One entry per operator (no aliases)."""
    seen, out = set(), []
    for key in sorted(_REGISTRY):
        op = _REGISTRY[key]
        if id(op) not in seen:
            seen.add(id(op))
            out.append(op)
    return out


def input_positions(op, p):
    """For each entry of ``op.input_order(p)``, its position among ``op.inputs(p) + op.aux(p)``:
    where the k-th array of a call in MXNet's order goes (the identity for nearly every operator)."""
    names = op.inputs(p) + op.aux(p)
    order = op.input_order(p)
    if order == names:
        return list(range(len(names)))
    at = {name: k for k, name in enumerate(names)}
    return [at[name] for name in order]


def expect_ndim(op_name, arg, shape, ndim):
    """Raise a ShapeError unless ``shape`` has ``ndim`` dims."""
    if shape is not None and len(shape) != ndim:
        raise ShapeError('%s: input %r must be %d-d, got shape %s' % (op_name, arg, ndim, format_shape(shape)))
