"""Symbol: a graph of operator nodes, described before any data exists.

A Symbol is a list of *outputs*, each a (node, index) pair.  A node is either
a variable (an input of the graph: data, label, a weight) or an operator
applied to the outputs of other nodes.  Everything else — the argument list,
shapes, JSON, binding — is computed by walking the graph from the outputs.

>>> import reflib as mx
>>> data = mx.sym.Variable('data')
>>> fc1 = mx.sym.FullyConnected(data, num_hidden=128, name='fc1')
>>> fc1.list_arguments()
['data', 'fc1_weight', 'fc1_bias']
>>> net = mx.sym.SoftmaxOutput(mx.sym.Activation(fc1, act_type='relu'), name='softmax')
>>> net.list_arguments()[-1], net.list_outputs()
('softmax_label', ['softmax_output'])
"""

import ast
import json
import warnings

import numpy as np

from .. import profiler as _profiler
from ..operator import python_op as _python_op
from ..operator.registry import input_positions
from ..base import (MXNetError, ParamError, BindError, DTYPE_TO_FLAG, FLAG_TO_DTYPE, NotImplementedForSymbol,
                    numeric_types)
from ..context import current_context
from ..util import atomic_write_text
from .attribute import AttrScope, HIDDEN_KEYS, normalize_key
from .naming import NameManager
from ..fluent import fluent_method
from .positional import counted_by, normalize_call, param_string  # noqa: F401  (param_string: its old home)

__all__ = ['Symbol', 'Variable', 'var', 'Group', 'invoke']


def _parse(op, node_name, attrs):
    """The operator's parsed parameters from a node's attributes (other keys are not parameters)."""
    try:
        return op.parse_params({k: v for k, v in attrs.items() if k in op.params})
    except ParamError as err:
        raise ParamError('operator %r: %s' % (node_name, err)) from None


def _check_param_names(op, node_name, attrs):
    """Plain (non ``__hidden__``) keys must be parameters of the operator, as MXNet checks --
    except for an operator without parameters, which MXNet lets keep them as attributes."""
    if not op.params:
        ignored = sorted(k for k in attrs if not (k.startswith('__') and k.endswith('__')))
        if ignored:
            warnings.warn('%s %r takes no parameters: %s kept as attributes only, as in MXNet'
                          % (op.name, node_name, ', '.join(ignored)), stacklevel=4)
        return
    for key in attrs:
        if key not in op.params and not (key.startswith('__') and key.endswith('__')):
            raise ParamError('%s %r: unknown parameter %r; known parameters: %s'
                             % (op.name, node_name, key, ', '.join(sorted(op.params)) or '(none)'))


def parse_shape_attr(text):
    """The shape a ``__shape__`` attribute holds (``"(2, 3)"`` or ``"[2, 3]"``), or None if it
    holds none: a tuple of whole numbers, -1 meaning unknown (and 0 too under legacy shapes)."""
    try:
        shape = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= -1 for d in shape):
        return None
    return tuple(shape)


def check_variable_attrs(name, attrs):
    """Refuse a variable whose hidden attributes cannot be read back by inference, the
    optimizer or the initializer, naming the attribute: the same check for ``Variable(...)``
    and for a variable loaded from JSON, so that a bad value fails here and not later."""
    def bad(key, what):
        raise ParamError('variable %r: attribute %s=%r is not %s' % (name, key, attrs[key], what))
    if '__shape__' in attrs and parse_shape_attr(attrs['__shape__']) is None:
        bad('__shape__', 'a shape (a tuple of whole numbers >= -1, -1 meaning unknown)')
    if '__dtype__' in attrs:
        try:
            if int(attrs['__dtype__']) not in FLAG_TO_DTYPE:
                raise ValueError
        except (ValueError, TypeError):
            bad('__dtype__', "one of MXNet's type flags %s" % sorted(FLAG_TO_DTYPE))
    for key in ('__lr_mult__', '__wd_mult__'):
        if key in attrs:
            try:
                float(attrs[key])
            except (ValueError, TypeError):
                bad(key, 'a number')
    if attrs.get('__init__'):
        try:
            for check in _INIT_ATTR_CHECKS:
                check(attrs['__init__'])
        except (MXNetError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            bad('__init__', 'an initializer (a name, or the JSON that Initializer.dumps writes)')


# How an ``__init__`` attribute is checked: the initializer module, a layer above this one,
# registers ``initializer.create`` here when it is imported (``import reflib`` does), so a
# bad initializer is refused when the variable is made or loaded, not first at init_params
_INIT_ATTR_CHECKS = []


def register_init_attr_check(check):
    """Add ``check(text)``, which raises on an ``__init__`` attribute it cannot read."""
    if check not in _INIT_ATTR_CHECKS:
        _INIT_ATTR_CHECKS.append(check)


class Node:
    """One vertex of the graph: a variable (``op is None``) or an operator application."""
    __slots__ = ('op', 'name', 'attrs', 'params', 'inputs')

    def __init__(self, op, name, attrs=None, inputs=()):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)  # [(Node, output index)]
        self.params = None if op is None else _parse(op, name, self.attrs)

    @property
    def is_variable(self):
        return self.op is None

    def num_outputs(self):
        return 1 if self.op is None else len(self.op.outputs(self.params))

    def num_visible_outputs(self):
        return 1 if self.op is None else self.op.visible_outputs(self.params)

    def num_args(self):
        """Inputs that are arguments (the rest are auxiliary states)."""
        return 0 if self.op is None else len(self.op.inputs(self.params))

    def input_names(self):
        return self.op.inputs(self.params) + self.op.aux(self.params)

    def output_name(self, index):
        if self.op is None:
            return self.name
        outs = self.op.outputs(self.params)
        return '%s_%s' % (self.name, outs[index]) if self.name else outs[index]

    def ctx_group(self):
        return self.attrs.get('__ctx_group__')


def topo_order(heads):
    """Nodes reachable from ``heads`` in post-order DFS (inputs before users, in input order)."""
    order, seen = [], set()
    for head, _ in heads:
        if id(head) in seen:
            continue
        stack = [(head, 0)]
        seen.add(id(head))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


def check_unique_variables(sym, what):
    """Refuse a graph with two different variables of one name: binding gives each name one
    array, so one of them would silently get the other's (MXNet refuses at bind too)."""
    seen, twice = {}, []
    for node in topo_order(sym._outputs):
        if node.op is None:
            if node.name in seen and seen[node.name] is not node and node.name not in twice:
                twice.append(node.name)
            seen.setdefault(node.name, node)
    if twice:
        raise BindError('%s: the symbol has two different variables named %s; give each input its own '
                        'name, or use the same Variable twice' % (what, ', '.join(repr(n) for n in twice)))


def aux_variable_ids(nodes):
    """ids of the variable nodes that some operator uses as an auxiliary state."""
    aux = set()
    for node in nodes:
        if node.op is not None:
            for node_in, _ in node.inputs[node.num_args():]:
                aux.add(id(node_in))
    return aux


def split_variables(nodes):
    """(argument nodes, auxiliary-state nodes) among ``nodes``, keeping their order."""
    aux = aux_variable_ids(nodes)
    variables = [n for n in nodes if n.op is None]
    return [n for n in variables if id(n) not in aux], [n for n in variables if id(n) in aux]


class Symbol:
    """A handle to one or more outputs of a graph."""
    __slots__ = ('_outputs', '__weakref__')
    __array_priority__ = 1000.0

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # ---------------------------------------------------------------- naming
    @property
    def name(self):
        """The node's name when every output comes from one node (a SliceChannel's outputs
        too, as in MXNet), None for a group of several nodes."""
        node = self._single_node()
        return None if node is None else node.name

    def __repr__(self):
        if self.name is not None:      # one node, even with several outputs (<Symbol split0>)
            return '<Symbol %s>' % self.name
        return '<Symbol group [%s]>' % ', '.join(n.name for n, _ in self._outputs)

    # ------------------------------------------------------------ structure
    def _topo(self):
        return topo_order(self._outputs)

    def _variables(self):
        """(argument nodes, auxiliary-state nodes), each in graph order."""
        return split_variables(self._topo())

    def list_arguments(self):
        """Names of the inputs that are data, labels or learnable parameters."""
        return [n.name for n in self._variables()[0]]

    def list_auxiliary_states(self):
        """Names of the inputs that are state updated by the graph itself (BatchNorm's moving stats)."""
        return [n.name for n in self._variables()[1]]

    def list_inputs(self):
        """All variable names (arguments and auxiliary states) in graph order."""
        return [n.name for n in self._topo() if n.op is None]

    def list_outputs(self):
        """The names of the graph's outputs, in order: ``<node name>_<output name>``, such as
        ``fc1_output``, or the name of a variable that is itself an output.

        >>> data = mx.sym.Variable('data')
        >>> mx.sym.FullyConnected(data, num_hidden=4, name='fc1').list_outputs()
        ['fc1_output']
        """
        return [node.output_name(i) for node, i in self._outputs]

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([out]) for out in self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise ValueError('no output named %r; outputs are %s' % (index, names))
            if len(matches) > 1:
                raise ValueError('more than one output named %r' % index)
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not isinstance(index, (int, np.integer)):
            raise TypeError('Symbol index must be an int, a slice or an output name, got %r' % (index,))
        if index < 0:  # MXNet refuses negative indices (they would wrap around in C as huge unsigned ints)
            raise MXNetError('Symbol index %d: only nonnegative output indices are accepted' % index)
        if index >= len(self._outputs):
            raise IndexError('output index %d out of range for %d outputs' % (index, len(self._outputs)))
        return Symbol([self._outputs[index]])

    def get_internals(self):
        """A group of every output of every node: variables and visible operator outputs."""
        outs = []
        for node in self._topo():
            outs.extend((node, i) for i in range(node.num_visible_outputs()))
        return Symbol(outs)

    def get_children(self):
        """The inputs of this symbol's node(s), as a group; None for a variable.

        Each node counts once, as in MXNet: the three outputs of one SliceChannel have the
        one data input as their children, a group of two operators has both inputs lists.
        """
        children, seen = [], set()
        for node, _ in self._outputs:
            if id(node) not in seen:
                seen.add(id(node))
                children.extend(node.inputs)
        return Symbol(children) if children else None

    # ------------------------------------------------------------ attributes
    def _single_node(self):
        """The node behind every output, or None when the outputs come from several nodes (a group)."""
        nodes = {id(n): n for n, _ in self._outputs}
        return next(iter(nodes.values())) if len(nodes) == 1 else None

    def attr(self, key):
        """One attribute of this symbol's node (``lr_mult`` finds ``__lr_mult__`` too); None if absent.

        A group of several nodes has no attributes of its own, so the answer is None, as in MXNet.
        """
        node = self._single_node()
        if node is None:
            return None
        if key in node.attrs:
            return node.attrs[key]
        return node.attrs.get(normalize_key(key))

    def list_attr(self, recursive=False):
        """The attributes of this symbol's (first) node, hidden keys also under their plain names."""
        if recursive:
            raise DeprecationWarning('list_attr(recursive=True) is gone in MXNet 1.x; use attr_dict()')
        return _with_aliases(self._outputs[0][0].attrs)

    def attr_dict(self):
        """``{node name: attributes}`` for every node that has attributes."""
        out = {}
        for node in self._topo():
            if node.attrs:
                out[node.name] = _with_aliases(node.attrs)
        return out

    def _set_attr(self, **kwargs):
        """Set string attributes on this symbol's node; an operator parameter is re-parsed."""
        node = self._single_node()
        if node is None:
            raise MXNetError('_set_attr only works on a symbol with a single node, not on a group of %d'
                             % len(self._outputs))
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ParamError('_set_attr: attribute %r must be a string, got %r' % (key, value))
        attrs = dict(node.attrs)
        attrs.update({normalize_key(k): v for k, v in kwargs.items()})
        if node.op is not None:
            # the whole attribute set is checked again, so an unknown plain key is an error here too
            _check_param_names(node.op, node.name, attrs)
            node.params = _parse(node.op, node.name, attrs)
        node.attrs = attrs

    # ------------------------------------------------------------- inference
    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from the shapes given; (None, None, None) if incomplete."""
        from .infer import infer_shape          # infer.py builds on this file
        return infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """Like infer_shape, but unknown shapes are returned as () instead of giving up."""
        from .infer import infer_shape          # infer.py builds on this file
        return infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        """The dtypes of all arguments, outputs and auxiliary states, inferred from the dtypes given.

        Args:
            *args: dtypes of the arguments in ``list_arguments()`` order (None: not given).
            **kwargs: dtypes by input name.

        Returns:
            tuple: ``(arg_types, out_types, aux_types)``, lists of numpy type objects; three Nones
            (with a warning) when some dtype cannot be decided.

        Raises:
            BindError: a name that is not an input, or too many positional dtypes.
            TypeInferError: the dtypes given contradict an operator's rule.

        >>> x = mx.sym.Variable('x')
        >>> (x + 1).infer_type(x='float16')
        ([<class 'numpy.float16'>], [<class 'numpy.float16'>], [])
        """
        from .infer import infer_type           # infer.py builds on this file
        return infer_type(self, args, kwargs, partial=False)

    def infer_type_partial(self, *args, **kwargs):
        """Like ``infer_type``, but a dtype that cannot be decided is returned as None instead of
        giving up on all of them.
        """
        from .infer import infer_type           # infer.py builds on this file
        return infer_type(self, args, kwargs, partial=True)

    # ---------------------------------------------------------- serialization
    def tojson(self, remove_amp_cast=True):
        """The graph as MXNet's JSON; ``remove_amp_cast`` leaves out the casts mixed precision
        inserted (``amp_cast``/``amp_multicast``; see mx.contrib.amp), as MXNet does by default."""
        from .serialization import to_json      # serialization.py builds on this file
        return to_json(self, remove_amp_cast)

    def save(self, fname, remove_amp_cast=True):
        """Write the graph to the file ``fname`` as MXNet's JSON (``tojson``), atomically: a crash
        leaves the old file or the new one, whole.  ``remove_amp_cast`` as in ``tojson``.
        """
        atomic_write_text(fname, self.tojson(remove_amp_cast))

    # ------------------------------------------------------------------ bind
    def simple_bind(self, ctx, grad_req='write', type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Infer every shape from the given input shapes, allocate all arrays, and bind."""
        from ..executor import simple_bind      # the layer above: MXNet's Symbol.bind ties them
        with _profiler.api_call('_SimpleBindImpl') if _profiler.ACTIVE else _profiler.QUIET:
            return simple_bind(self, ctx, grad_req=grad_req, type_dict=type_dict, group2ctx=group2ctx,
                               shared_arg_names=shared_arg_names, shared_exec=shared_exec,
                               shared_buffer=shared_buffer, shapes=kwargs, stype_dict=stype_dict)

    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None,
             group2ctx=None, shared_exec=None):
        """Make an Executor over the given arrays (used by reference, not copied)."""
        from ..executor import Executor         # the layer above: MXNet's Symbol.bind ties them
        with _profiler.api_call('MXExecutorBindEX') if _profiler.ACTIVE else _profiler.QUIET:
            return Executor(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given arrays (no gradients) and run forward; returns the outputs."""
        exe = self.bind(ctx or current_context(), kwargs, grad_req='null')
        return exe.forward()

    def _gen_atomic_symbol(self):
        """The head's operator alone, as MXNet's C API makes it: its parameters, no inputs and
        no name, every output listed (``['output', 'state_output', ...]`` for an LSTM)."""
        node = self._single_node()
        if node is None or node.op is None:
            raise MXNetError('_gen_atomic_symbol: the symbol must be the output(s) of one operator, '
                             'got %s' % self.list_outputs())
        params = {k: v for k, v in node.attrs.items() if not (k.startswith('__') and k.endswith('__'))}
        atom = Node(node.op, '', params)
        return Symbol([(atom, i) for i in range(atom.num_visible_outputs())])

    # ------------------------------------------------------------- composing
    def __call__(self, *args, **kwargs):
        """A copy of the graph with variables replaced by other symbols (``net(data=x)``).

        Only keywords work: MXNet 1.x composes a built graph by input name, never by position.
        """
        name = kwargs.pop('name', None)
        if args:
            raise BindError('compose: a built symbol is composed by keyword (net(data=other)), got %d '
                            'positional symbols; inputs are %s' % (len(args), self.list_inputs()))
        known = self.list_inputs()
        for key, sym in kwargs.items():
            if key not in known:
                raise BindError('compose: %r is not an input of this symbol; inputs are %s' % (key, known))
            if not isinstance(sym, Symbol) or len(sym) != 1:
                raise BindError('compose: %r must be a single-output Symbol, got %r' % (key, sym))
        out = Symbol(copy_graph(self._outputs, kwargs))
        if name and len(out) == 1 and out._outputs[0][0].op is not None:
            out._outputs[0][0].name = name
        return out

    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        return Symbol(copy_graph(self._outputs, {}))

    def copy(self):
        """A deep copy of the graph: new nodes with the same names, operators and attributes."""
        return self.__deepcopy__(None)

    # ------------------------------------------------------------ arithmetic
    def _binary(self, other, op_name, scalar_name, reverse=False):
        if isinstance(other, Symbol):
            lhs, rhs = (other, self) if reverse else (self, other)
            return invoke(op_name, lhs, rhs)
        if isinstance(other, numeric_types):
            return invoke(scalar_name, self, scalar=other)
        raise TypeError('unsupported operand type %s for Symbol arithmetic' % type(other).__name__)

    # Each overload calls the operator under the internal name MXNet's Python front end uses, because
    # that name (lower-cased) is the automatic node name: a + b -> _plus0, a * 2 -> _mulscalar0.
    def __add__(self, o): return self._binary(o, '_Plus', '_PlusScalar')
    def __radd__(self, o): return self._binary(o, '_Plus', '_PlusScalar', True)
    def __sub__(self, o): return self._binary(o, '_Minus', '_MinusScalar')
    def __rsub__(self, o): return self._binary(o, '_Minus', '_RMinusScalar', True)

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, 'bool')
    def __mul__(self, o): return self._binary(o, '_Mul', '_MulScalar')
    def __rmul__(self, o): return self._binary(o, '_Mul', '_MulScalar', True)
    def __truediv__(self, o): return self._binary(o, '_Div', '_DivScalar')
    def __rtruediv__(self, o): return self._binary(o, '_Div', '_RDivScalar', True)
    def __pow__(self, o): return self._binary(o, '_Power', '_PowerScalar')
    def __rpow__(self, o): return self._binary(o, '_Power', '_rpower_scalar', True)
    def __mod__(self, o): return self._binary(o, '_Mod', '_ModScalar')
    def __rmod__(self, o): return self._binary(o, '_Mod', '_RModScalar', True)

    # Comparisons build 0/1 Symbols (same-shape or scalar form), as in MXNet: ``a == b`` is a
    # graph node, never a bool.  ``2 < a`` needs no reversed operator: Python asks ``a > 2``.
    def __eq__(self, o): return self._binary(o, '_equal', '_equal_scalar')
    def __ne__(self, o): return self._binary(o, '_not_equal', '_not_equal_scalar')
    def __gt__(self, o): return self._binary(o, '_greater', '_greater_scalar')
    def __ge__(self, o): return self._binary(o, '_greater_equal', '_greater_equal_scalar')
    def __lt__(self, o): return self._binary(o, '_lesser', '_lesser_scalar')
    def __le__(self, o): return self._binary(o, '_lesser_equal', '_lesser_equal_scalar')

    def __neg__(self):
        return invoke('_MulScalar', self, scalar=-1.0)

    def __abs__(self):
        return invoke('abs', self)

    # == builds a node rather than comparing, so, as in MXNet 1.9.1, a Symbol is not hashable
    # (no dict key, no set member): ``{sym: 1}`` raises TypeError there too
    __hash__ = None

    # conveniences MXNet offers as methods
    def astype(self, dtype):
        """The symbol cast to ``dtype`` (a ``Cast`` node, named ``cast<n>`` as in MXNet)."""
        return invoke('cast', self, dtype=dtype)

    def reshape(self, *args, **kwargs):
        """The ``Reshape`` operator applied to this symbol.  The shape may be given as one tuple, as
        several ints, or as ``shape=``; MXNet's special codes (0, -1, -2, -3, -4) and the other
        ``Reshape`` parameters (``reverse=``, ``name=``) are accepted.
        """
        shape = args[0] if len(args) == 1 else (args or kwargs.pop('shape'))
        shape = (shape,) if isinstance(shape, int) else tuple(shape)      # x.reshape(-1), as MXNet allows
        return invoke('Reshape', self, shape=shape, **kwargs)

    def flatten(self, **kwargs):
        """The ``Flatten`` operator: the first axis kept, the others merged into one."""
        return invoke('Flatten', self, **kwargs)

    def sum(self, *args, **kwargs):
        """The ``sum`` operator applied to this symbol (``axis=``, ``keepdims=`` ...)."""
        return invoke('sum', self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        """The ``mean`` operator applied to this symbol (``axis=``, ``keepdims=`` ...)."""
        return invoke('mean', self, *args, **kwargs)

    def transpose(self, *args, **kwargs):
        """The ``transpose`` operator: the axes permuted (``axes=``; reversed by default)."""
        return invoke('transpose', self, *args, **kwargs)

    def expand_dims(self, axis, **kwargs):
        """The ``expand_dims`` operator: a new axis of length 1 inserted at ``axis``."""
        return invoke('expand_dims', self, axis=axis, **kwargs)

    def __getattr__(self, name):
        # MXNet's fluent methods (sym.sort(), sym.topk(k=2), sym.clip(0, 6)): the operator of
        # that name, found when asked for (see reflib/fluent.py)
        if name.startswith('__'):
            raise AttributeError(name)
        return fluent_method(self, name, invoke, 'Symbol')


def _with_aliases(attrs):
    """attrs plus the plain names of hidden keys (``__lr_mult__`` also as ``lr_mult``), as MXNet lists them."""
    out = dict(attrs)
    for key in HIDDEN_KEYS:
        hidden = '__%s__' % key
        if hidden in attrs:
            out[key] = attrs[hidden]
    return out


def copy_graph(outputs, replace):
    """Copy the graph under ``outputs``; variables named in ``replace`` become those symbols' outputs."""
    mapping = {}  # id(old node) -> (new node, fixed output index or None)

    def resolve(node, index):
        new, fixed = mapping[id(node)]
        return new, index if fixed is None else fixed

    for node in topo_order(outputs):
        if node.op is None and node.name in replace:
            mapping[id(node)] = replace[node.name]._outputs[0]
            continue
        new = Node.__new__(Node)
        new.op, new.name, new.attrs, new.params = node.op, node.name, dict(node.attrs), node.params
        new.inputs = [resolve(child, i) for child, i in node.inputs]
        mapping[id(node)] = (new, None)
    return [resolve(node, i) for node, i in outputs]


# --------------------------------------------------------------------- creation
def _dtype_flag(dtype):
    try:
        return DTYPE_TO_FLAG[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise ParamError('Variable: unsupported dtype %r' % (dtype,)) from None


# MXNet's numbering of storage types, as a variable's ``__storage_type__`` holds it (storage.py)
STYPE_IDS = {'default': 0, 'row_sparse': 1, 'csr': 2}


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None,
             init=None, stype=None, **kwargs):
    """A named input of the graph: data, label, or a parameter.

    ``shape``, ``dtype``, ``lr_mult``, ``wd_mult`` and ``init`` are stored as the
    hidden attributes ``__shape__``, ``__dtype__`` (MXNet's type flag),
    ``__lr_mult__``, ``__wd_mult__`` and ``__init__``, which inference, the
    optimizer and the initializer read back.
    """
    if not isinstance(name, str):
        raise TypeError('Variable name must be a string, got %r' % (name,))
    attrs = {normalize_key(k): v for k, v in AttrScope.current.get(attr).items()}
    if shape is not None:
        attrs['__shape__'] = str(shape)  # as given: MXNet writes [2, 3] for a list
    if lr_mult is not None:
        attrs['__lr_mult__'] = str(lr_mult)
    if wd_mult is not None:
        attrs['__wd_mult__'] = str(wd_mult)
    if dtype is not None:
        attrs['__dtype__'] = str(_dtype_flag(dtype))
    if init is not None:
        attrs['__init__'] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in STYPE_IDS:
            raise ParamError("Variable %r: stype must be 'default', 'row_sparse' or 'csr', got %r" % (name, stype))
        attrs['__storage_type__'] = str(STYPE_IDS[stype])
    for key, value in kwargs.items():
        if not (key.startswith('__') and key.endswith('__')):
            raise ParamError('Variable %r: attribute %r is not supported; extra attributes must '
                             'start and end with double underscores' % (name, key))
        attrs[key] = str(value)
    check_variable_attrs(name, attrs)
    return Symbol([(Node(None, name, attrs), 0)])


var = Variable


def Group(symbols):
    """One symbol whose outputs are the outputs of all ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError('Group expects a non-empty list of Symbols')
    outputs = []
    for sym in symbols:
        outputs.extend(sym._outputs)
    return Symbol(outputs)


def missing_input(node, pos, aux_init=None):
    """The variable MXNet creates for input ``pos`` of ``node`` when nobody gave one: named
    ``<node name>_<input name>``, carrying the node's attributes; an auxiliary state also
    gets its initializer (BatchNorm's moving variance starts at one)."""
    in_name = node.input_names()[pos]
    aux_init = node.op.aux_init(node.params) if aux_init is None else aux_init
    var_attrs = dict(node.attrs)
    if pos >= node.num_args() and in_name in aux_init:
        var_attrs['__init__'] = json.dumps([aux_init[in_name], {}])
    return Node(None, '%s_%s' % (node.name, in_name), var_attrs)


def invoke(op_name, *args, **kwargs):
    """Apply operator ``op_name`` to symbols: the function behind ``mx.sym.<Op>(...)``.

    Positional symbols fill the operator's inputs in order, keyword symbols
    fill them by name, and every missing input becomes a new Variable named
    ``<node name>_<input name>`` (that is where ``fc1_weight`` comes from).
    Non-symbol keywords are operator parameters; so are positional values after
    the inputs, in MXNet's order (``mx.sym.clip(x, 0, 6)``, see positional.py).
    """
    # out= is accepted, as in MXNet, and meaningless for a symbol; lr_mult=2 & co. are stored
    # as __lr_mult__ (on the node and on the variables it creates)
    op, args, sym_kwargs, raw, extras = normalize_call(
        op_name, args, kwargs, lambda v: isinstance(v, Symbol), ('name', 'attr', 'out'), 'mx.sym.%s' % op_name)
    name, attr = extras['name'], extras['attr']
    for i, value in enumerate(args):
        if not isinstance(value, Symbol):
            raise TypeError('%s: positional argument %d must be a Symbol, got %s; pass parameters '
                            'by keyword' % (op.name, i, type(value).__name__))

    scope_attrs = {normalize_key(k): v for k, v in AttrScope.current.get(attr).items()}
    attrs = dict(raw)
    attrs.update(scope_attrs)     # an AttrScope's or attr='s lr_mult wins over the keyword, as in MXNet
    _check_param_names(op, name or op_name, attrs)
    # MXNet's hint is the name the op was *called* by, lower-cased: mx.sym.elemwise_add -> elemwise_add0,
    # a + b (which calls _Plus) -> _plus0, 2 ** a (which calls _rpower_scalar) -> _rpower_scalar0
    node_name = NameManager.current.get(name, op_name.lower())
    if _profiler.ACTIVE and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXSymbolCreateAtomicSymbol', _profiler.now_us())
    node = Node(op, node_name, attrs)

    input_names = node.input_names()
    order = op.input_order(node.params)       # positional symbols fill the inputs in MXNet's order
    if len(args) > len(order):
        raise BindError('%s %r%s takes %d inputs (%s), got %d positional symbols'
                        % (op.name, node_name, counted_by(op, node.params), len(order), ', '.join(order),
                           len(args)))
    positional = dict(zip(input_positions(op, node.params), args))      # the node's position -> symbol
    if not input_names and sym_kwargs:
        # MXNet 1.9.1 composes nothing into an operator without inputs and drops the symbols
        # given (its tests pass data= to random.randn); reflib drops them too, saying so
        warnings.warn('%s %r takes no inputs: the symbols given as %s are ignored, as in MXNet'
                      % (op.name, node_name, ', '.join(sorted(sym_kwargs))), stacklevel=3)
        sym_kwargs = {}
    for key in sym_kwargs:
        if key not in input_names:
            raise BindError('%s %r has no input %r; its inputs are %s'
                            % (op.name, node_name, key, ', '.join(input_names)))
    aux_init = op.aux_init(node.params)
    input_var_init = op.input_var_init(node.params)
    for pos, in_name in enumerate(input_names):
        if pos in positional:
            sym = positional[pos]
            if in_name in sym_kwargs:
                raise BindError('%s %r: input %r given twice' % (op.name, node_name, in_name))
        elif in_name in sym_kwargs:
            sym = sym_kwargs[in_name]
        else:
            sym = Symbol([(missing_input(node, pos, aux_init), 0)])
        if len(sym._outputs) != 1:
            raise BindError('%s %r: input %r must be a single-output symbol, got a group of %d'
                            % (op.name, node_name, in_name, len(sym._outputs)))
        node.inputs.append(sym._outputs[0])
        # the operator's own (PReLU's gamma: 0.25), for a variable that has none: a caller's
        # init=One() on the variable wins, as in MXNet
        init = input_var_init.get(in_name)
        var = sym._outputs[0][0]
        if init is not None and var.op is None and '__init__' not in var.attrs:
            var.attrs['__init__'] = init
    return Symbol([(node, i) for i in range(node.num_visible_outputs())])


# the older Python operators (NumpyOp, NDArrayOp) make their Custom nodes through invoke
_python_op.use_symbols(invoke)
