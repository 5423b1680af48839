"""Operators written in Python: ``mx.operator.CustomOp``, ``CustomOpProp`` and ``register``.

A user describes an operator with two classes.  The *Prop* (a ``CustomOpProp``) says what the
graph needs to know before anything runs: the names of the inputs, outputs and auxiliary
states, the shape and dtype rules, which forward values backward reads, and whether the
operator takes a head gradient.  The *Op* (a ``CustomOp``) computes, on NDArrays.  The Prop is
registered under a name with ``@mx.operator.register('name')`` and the operator is used as
``mx.sym.Custom(x, op_type='name', k=v)`` or ``mx.nd.Custom(x, op_type='name', k=v)``.

In the graph all of them are one operator, ``Custom``, whose node carries ``op_type`` and the
user's keywords as its attributes, so a symbol file stores it like any other node.  Its
parameters are open-ended: every keyword but ``op_type`` is handed to the Prop's ``__init__``
as the string a symbol file would hold (``scale=2`` arrives as ``'2'``), as MXNet hands them.

Where things are created, as MXNet 1.9.1 creates them:

* a Prop for each node (each ``mx.sym.Custom`` call, each load of a symbol file) and for each
  ``mx.nd.Custom`` call, when its parameters are parsed;
* an Op by ``Prop.create_operator(ctx, in_shapes, in_dtypes)`` the first time the node runs
  on a context with those input shapes and dtypes; a bound executor keeps calling that same
  Op, so an Op may keep state between batches.  Each ``mx.nd.Custom`` call makes its own.

Storage types, as MXNet 1.9.1 has them: a Prop that overrides ``infer_storage_type`` (and
``infer_storage_type_backward``) gets its Op handed ``CSRNDArray``/``RowSparseNDArray`` objects
wherever it declares 'csr'/'row_sparse' -- inputs, outputs and auxiliary states in forward; head
gradients, inputs, outputs, input gradients and auxiliary states in backward -- whether the
arrays come from a bound executor or from ``mx.nd.Custom`` (recorded by autograd or not).
Outputs and input gradients start as zero arrays of the declared storage.  What goes back into
the graph is dense (a row_sparse input gradient goes back as its rows), so the result of
``mx.nd.Custom`` and an executor's outputs are dense NDArrays holding the same values.  The
default rules allow dense arrays only: a sparse input to a Prop that keeps them is an error,
as in MXNet.  A sparse auxiliary state is handed over read-only: what the Op writes into it
is not kept.

The user's code runs with autograd's recording paused (its NDArray calls are not part of the
recorded graph: the operator's own backward is) and in training mode when forward was asked
for training, as MXNet runs it.
"""

import numpy as np

from .. import profiler as _profiler
from ..base import DTYPE_TO_FLAG, MXNetError, ParamError, ShapeError, TypeInferError
from ..shapes import format_shape, merge_shape
from .registry import REQUIRED, Operator, Param, Params, get as get_operator, register as _register_operator
from .sparse_rows import SparseRows, is_csr_matrix

__all__ = ['CustomOp', 'CustomOpProp', 'register', 'registered_custom_ops', 'use_arrays']

# op_type -> the registered CustomOpProp subclass
_PROPS = {}

# What the user's code is handed and how it runs belongs to the NDArray layer, above this
# one: it puts here its array class and autograd's switches when it is imported (use_arrays)
_FRONT_END = {}


def use_arrays(array_class, set_recording, set_training):
    """Called by the NDArray layer: ``array_class(raw, ctx)`` wraps a raw array as the NDArray
    the user's Op gets; ``set_recording``/``set_training`` set autograd's flags and return the
    previous ones."""
    _FRONT_END.update(array=array_class, set_recording=set_recording, set_training=set_training)


def use_storage(view, dense, rows, zeros):
    """Called by the NDArray layer's sparse module: ``view(raw, stype, ctx)`` is an NDArray of
    storage ``stype`` holding a raw value's numbers (a dense raw array itself where stype is
    'default'), ``dense(array)`` an NDArray's raw dense values, ``rows(array)`` a
    RowSparseNDArray's raw ``(rows, values)``, ``zeros(stype, shape, ctx, dtype)`` a zero array."""
    _FRONT_END.update(view=view, dense=dense, rows=rows, zeros=zeros)


class CustomOp:
    """Base class of the computation of a Python operator: override ``forward`` and ``backward``.

    ``forward(is_train, req, in_data, out_data, aux)`` writes each output into ``out_data[j]``
    as ``req[j]`` says; ``backward(req, out_grad, in_data, out_data, in_grad, aux)`` writes the
    gradient of each input into ``in_grad[k]`` as ``req[k]`` says.  ``self.assign`` does the
    writing for either.
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` from ``in_data`` (and ``aux``); the base does nothing."""

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` from ``out_grad`` and the forward values; the base does nothing."""

    def assign(self, dst, req, src):
        """Put ``src`` into the NDArray ``dst`` as the request ``req`` says: ``'write'`` and
        ``'inplace'`` overwrite it, ``'add'`` adds to what is there, ``'null'`` leaves it."""
        if req == 'null':
            return
        if req in ('write', 'inplace'):
            dst[:] = src
        elif req == 'add':
            dst[:] += src
        else:
            raise ValueError("CustomOp.assign: req must be 'null', 'write', 'inplace' or 'add', got %r" % (req,))


class CustomOpProp:
    """Base class of the description of a Python operator.

    The defaults describe one input ``data``, one output ``output`` of the input's shape and
    dtype, no auxiliary states, and a backward that reads the head gradient (unless
    ``need_top_grad=False``), the inputs and the outputs.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def need_top_grad(self):
        """Whether backward takes the gradient of the outputs (False: a loss, which makes its own)."""
        return self.need_top_grad_

    def list_arguments(self):
        return ['data']

    def list_outputs(self):
        return ['output']

    def list_auxiliary_states(self):
        return []

    def infer_shape(self, in_shape):
        """``(input shapes, output shapes[, aux shapes])`` from the input shapes: by default
        every output has the first input's shape."""
        return in_shape, [in_shape[0]] * len(self.list_outputs()), []

    def infer_type(self, in_type):
        """``(input dtypes, output dtypes[, aux dtypes])``: by default all the first input's."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype):
        """``(inputs, outputs[, aux])`` storage types ('default', 'csr', 'row_sparse') from the
        inputs' (``in_stype``): the default allows dense inputs only and makes everything dense."""
        for k, stype in enumerate(in_stype):
            if stype != 'default':
                raise ValueError('%s.infer_storage_type: input %d is %r; a Prop that takes sparse inputs '
                                 'overrides infer_storage_type and infer_storage_type_backward'
                                 % (type(self).__name__, k, stype))
        return (in_stype, ['default'] * len(self.list_outputs()),
                ['default'] * len(self.list_auxiliary_states()))

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        """``(head gradients, inputs, outputs, input gradients, aux)`` storage types for backward,
        from those forward found (``igrad_stype``: how the input gradients are stored, where
        known).  The default allows dense head and input gradients only and makes every
        array dense."""
        for what, stypes in (('head gradient', ograd_stype), ('input gradient', igrad_stype)):
            for k, stype in enumerate(stypes):
                if stype not in ('default', 'undefined'):
                    raise ValueError('%s.infer_storage_type_backward: %s %d is %r; a Prop with sparse '
                                     'gradients overrides infer_storage_type_backward'
                                     % (type(self).__name__, what, k, stype))
        groups = (ograd_stype, in_stype, out_stype, igrad_stype, aux_stype)
        return tuple(['default'] * len(group) for group in groups)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids, among those given, of the values backward reads."""
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The CustomOp that computes; the base one computes nothing."""
        return CustomOp()


def register(reg_name):
    """Class decorator: register a ``CustomOpProp`` subclass as op_type ``reg_name``.

    Registering a name again replaces the earlier class, as MXNet does (a script run twice in
    one interpreter redefines its operators)."""
    if not isinstance(reg_name, str):
        raise TypeError('mx.operator.register takes the op_type name (a string), got %r; '
                        "use it as @mx.operator.register('name')" % (reg_name,))

    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError('mx.operator.register(%r): %r is not a subclass of mx.operator.CustomOpProp'
                            % (reg_name, prop_cls))
        _PROPS[reg_name] = prop_cls
        return prop_cls
    return do_register


def registered_custom_ops():
    """The op_type names registered so far, sorted."""
    return sorted(_PROPS)


# MXNet registers the base Prop itself under this name: Custom(x, op_type='custom_op') is an
# operator with one input and one output that computes nothing
register('custom_op')(CustomOpProp)


# ------------------------------------------------------------------ the graph operator
def _is_hidden(key):
    return key.startswith('__') and key.endswith('__')


class _OpenParams(dict):
    """Custom's parameter table: ``op_type``, and any other keyword the user passes.

    Listing it gives ``op_type`` alone (the one parameter MXNet documents), but every key that
    is no graph attribute (``__lr_mult__``) counts as a parameter, so that the symbol front end
    keeps the user's keywords on the node and hands them to ``parse_params``.
    """
    _EXTRA = Param('str', '', doc='a keyword for the CustomOpProp, passed to it as a string')

    def __contains__(self, key):
        return isinstance(key, str) and not _is_hidden(key)

    def __getitem__(self, key):
        if key in self.keys():
            return dict.__getitem__(self, key)
        if key in self:
            return self._EXTRA
        raise KeyError(key)

    def get(self, key, default=None):
        return self[key] if key in self else default


class CustomParams(Params):
    """One Custom node's parameters: its ``op_type``, the user's keywords (strings), the Prop
    made from them, and in ``ops`` the Ops made so far (one per context, input shapes and
    dtypes) and the output shapes and dtypes found for each input signature."""

    def __init__(self, op_type, kwargs, prop):
        super().__init__({'op_type': op_type, 'kwargs': kwargs})
        self.prop = prop
        self.ops = {}

    def __repr__(self):
        return 'CustomParams(op_type=%r, %s)' % (self.op_type, ', '.join(
            '%s=%r' % kv for kv in sorted(self.kwargs.items())))

    def __eq__(self, other):
        return (isinstance(other, CustomParams) and self.op_type == other.op_type
                and self.kwargs == other.kwargs)

    __hash__ = None

    def __reduce__(self):
        # pickled as its keywords (a pickled Symbol holds its nodes' parameters): unpickling
        # makes a new Prop, as loading the symbol's JSON does in MXNet; its Ops are not kept
        return _parse_custom, (dict(self.kwargs, op_type=self.op_type),)

    def what(self):
        """How errors name the operator: ``Custom(op_type='softmax', SoftmaxProp)``."""
        return "Custom(op_type=%r, %s)" % (self.op_type, type(self.prop).__name__)


def _parse_custom(raw):
    return get_operator('Custom').parse_params(raw)


def _user_error(p, method, err):
    """An MXNetError for an exception raised by the user's ``method``, naming the op_type."""
    return MXNetError('%s: %s raised %s: %s' % (p.what(), method, type(err).__name__, err))


def _shape_for_user(shape):
    """A shape as MXNet hands it to a Prop: a list of ints, empty when unknown."""
    return [] if shape is None else [int(d) for d in shape]


def _shape_from_user(shape):
    """A shape a Prop returned (list, tuple, NDArray shape) as reflib keeps it: a tuple, or
    None where the Prop left it empty (unknown)."""
    if shape is None:
        return None
    shape = tuple(int(d) for d in shape)
    return shape if shape else None


def _dtype_from_user(dtype):
    return None if dtype is None else np.dtype(dtype)


def _three(result, p, method, counts):
    """A Prop's ``(inputs, outputs)`` or ``(inputs, outputs, aux)`` answer, each list checked
    against the numbers of inputs, outputs and auxiliary states."""
    if not isinstance(result, (tuple, list)) or len(result) not in (2, 3):
        raise MXNetError('%s: %s must return 2 or 3 lists (inputs, outputs[, auxiliary states]), got %r'
                         % (p.what(), method, result))
    parts = [list(r) for r in result] + ([] if len(result) == 3 else [[]])
    for part, count, what in zip(parts, counts, ('inputs', 'outputs', 'auxiliary states')):
        if len(part) != count:
            raise MXNetError('%s: %s returned %d entries for the %s, expected %d'
                             % (p.what(), method, len(part), what, count))
    return parts


_STYPES = ('default', 'row_sparse', 'csr')


def _stype_of(raw):
    """How a raw value is stored: a csr_matrix, SparseRows (row_sparse) or a dense array."""
    if is_csr_matrix(raw):
        return 'csr'
    return 'row_sparse' if isinstance(raw, SparseRows) else 'default'


def _overrides(prop, method):
    return getattr(type(prop), method, None) is not getattr(CustomOpProp, method)


def _stype_lists(result, p, method, counts):
    """A Prop's storage-type answer: lists of the sizes ``counts``, each entry a storage type
    (a trailing auxiliary-state list may be left out where there are none)."""
    if isinstance(result, (tuple, list)) and len(result) == len(counts) - 1 and not counts[-1]:
        result = list(result) + [[]]
    if not isinstance(result, (tuple, list)) or len(result) != len(counts):
        raise MXNetError('%s: %s must return %d lists of storage types, got %r'
                         % (p.what(), method, len(counts), result))
    parts = [list(r) for r in result]
    for part, count in zip(parts, counts):
        if len(part) != count:
            raise MXNetError('%s: %s returned %r where %d storage types belong'
                             % (p.what(), method, part, count))
        for stype in part:
            if stype not in _STYPES:
                raise MXNetError("%s: %s returned the storage type %r; valid ones are 'default', "
                                 "'row_sparse' and 'csr'" % (p.what(), method, stype))
    return parts


def _view(raw, stype, ctx):
    return _FRONT_END['view'](raw, stype, ctx)


@_register_operator
class Custom(Operator):
    """An operator written in Python: the CustomOpProp registered as ``op_type`` says what it
    takes and gives, and the CustomOp it creates computes (see mx.operator.register)."""
    name = 'Custom'
    params = _OpenParams(op_type=Param('str', doc='the name the CustomOpProp was registered under'))
    # all positional arguments are inputs (MXNet's Custom(*data, **kwargs)).  Naming op_type
    # here means the front ends count the inputs into op_type only when op_type is missing,
    # which parse_params then reports
    key_var_num_args = 'op_type'
    # the user's Op may keep state and draw random numbers: two equal nodes stay two
    eliminable = False

    # ---------------------------------------------------------------- params
    def parse_params(self, raw):
        raw = dict(raw)
        op_type = raw.pop('op_type', None)
        if op_type is None or op_type is REQUIRED:
            raise ParamError("Custom: required parameter 'op_type' is missing")
        op_type = str(op_type)
        prop_cls = _PROPS.get(op_type)
        if prop_cls is None and op_type.isdigit():
            # the front ends' count of the inputs (key_var_num_args above): no op_type was given
            raise ParamError("Custom: required parameter 'op_type' is missing (the name a CustomOpProp "
                             "was registered under: Custom(x, op_type='name'))")
        if prop_cls is None:
            raise ParamError('Custom: op_type %r is not registered (mx.operator.register(name) on a '
                             'CustomOpProp subclass registers one); registered: %s'
                             % (op_type, ', '.join(registered_custom_ops())))
        kwargs = {key: str(value) for key, value in raw.items() if not _is_hidden(key)}
        try:
            prop = prop_cls(**kwargs)
        except Exception as err:     # noqa: BLE001 -- the user's constructor: say whose it is
            raise ParamError('Custom(op_type=%r): %s(%s) raised %s: %s'
                             % (op_type, prop_cls.__name__, ', '.join('%s=%r' % kv for kv in sorted(kwargs.items())),
                                type(err).__name__, err)) from err
        return CustomParams(op_type, kwargs, prop)

    # ------------------------------------------------------------- structure
    def _ask(self, p, method, *args):
        try:
            return getattr(p.prop, method)(*args)
        except MXNetError:
            raise
        except Exception as err:     # noqa: BLE001 -- the user's code
            raise _user_error(p, method, err) from err

    def inputs(self, p):
        return list(self._ask(p, 'list_arguments'))

    def outputs(self, p):
        return list(self._ask(p, 'list_outputs'))

    def aux(self, p):
        return list(self._ask(p, 'list_auxiliary_states'))

    def _counts(self, p):
        return len(self.inputs(p)), len(self.outputs(p)), len(self.aux(p))

    def _dependencies(self, p):
        """``(head gradients, inputs, outputs)`` positions backward reads, from the Prop's
        ``declare_backward_dependency`` over MXNet's numbering: the head gradients first,
        then the inputs, then the outputs."""
        nin, nout, _ = self._counts(p)
        out_grad = list(range(nout))
        in_data = list(range(nout, nout + nin))
        out_data = list(range(nout + nin, nout + nin + nout))
        deps = set(self._ask(p, 'declare_backward_dependency', out_grad, in_data, out_data))
        return ([j for j in range(nout) if out_grad[j] in deps],
                [k for k in range(nin) if in_data[k] in deps],
                [j for j in range(nout) if out_data[j] in deps])

    def loss_head(self, p):
        # need_top_grad=False: the operator makes its own head gradient, as a loss does (its
        # backward is handed zeros for the head gradient, which MXNet leaves unset)
        return not p.prop.need_top_grad()

    def backward_reads(self, p):
        _, ins, outs = self._dependencies(p)
        return ins, outs

    # ------------------------------------------------------------- storage
    # mx.nd.Custom hands its sparse inputs over as they are (op_functions.invoke), as the
    # executor does for the positions sparse_inputs names
    imperative_sparse = True

    def sparse_inputs(self, p):
        both = ('csr', 'row_sparse')
        return {k: both for k in range(len(self.inputs(p)) + len(self.aux(p)))}

    def _forward_stypes(self, p, in_stypes, aux_stypes):
        """``(inputs, outputs, aux)`` storage types the Prop gives inputs stored as ``in_stypes``
        (and aux states as ``aux_stypes``); None where everything is dense by the default rules
        (no question is asked then).  A sparse array where the Prop wants another storage is
        refused, as MXNet refuses it.  Asked once per node and storage types, as MXNet asks
        when it binds."""
        if (all(s == 'default' for s in list(in_stypes) + list(aux_stypes))
                and not _overrides(p.prop, 'infer_storage_type')
                and not _overrides(p.prop, 'infer_storage_type_backward')):
            return None
        key = ('forward stypes', tuple(in_stypes), tuple(aux_stypes))
        if key not in p.ops:
            p.ops[key] = self._ask_forward_stypes(p, in_stypes, aux_stypes)
        return p.ops[key]

    def _ask_forward_stypes(self, p, in_stypes, aux_stypes):
        result = self._ask(p, 'infer_storage_type', list(in_stypes))
        ins, outs, auxs = _stype_lists(result, p, 'infer_storage_type', self._counts(p))
        for names, given, said in ((self.inputs(p), in_stypes, ins), (self.aux(p), aux_stypes, auxs)):
            for name, have, want in zip(names, given, said):
                if have != 'default' and have != want:
                    raise MXNetError('%s: storage type inconsistent for %r: it is %s, but infer_storage_type '
                                     'says %s' % (p.what(), name, have, want))
        return ins, outs, auxs

    def _backward_stypes(self, p, ograd, ins, outs, igrad, auxs):
        """``(head gradients, inputs, outputs, input gradients, aux)`` storage types backward
        works on, by the Prop's infer_storage_type_backward (asked once per node and storage
        types)."""
        key = ('backward stypes',) + tuple(tuple(group) for group in (ograd, ins, outs, igrad, auxs))
        if key not in p.ops:
            result = self._ask(p, 'infer_storage_type_backward', list(ograd), list(ins), list(outs),
                               list(igrad), list(auxs))
            p.ops[key] = _stype_lists(result, p, 'infer_storage_type_backward',
                                      (len(ograd), len(ins), len(outs), len(igrad), len(auxs)))
        return p.ops[key]

    def grad_stype(self, p, k, in_stypes):
        # row_sparse where the Prop's backward stores the gradient so: it goes back as its rows
        nin = len(self.inputs(p))
        ins = list(in_stypes[:nin])
        auxs = (list(in_stypes[nin:]) + ['default'] * len(self.aux(p)))[:len(self.aux(p))]
        try:
            found = self._forward_stypes(p, ins, auxs)
            if found is None:
                return 'default'
            ins_st, outs_st, aux_st = found
            igrad = self._backward_stypes(p, ['default'] * len(outs_st), ins_st, outs_st, ins, aux_st)[3]
        except MXNetError:
            return 'default'            # (binding goes on; forward says what is wrong)
        return 'row_sparse' if k < nin and igrad[k] == 'row_sparse' else 'default'

    def _given_stypes(self, p, inputs, aux, remember):
        """How the inputs and aux states are stored.  autograd's tape keeps the dense form of a
        sparse input, so what forward saw is remembered (``remember``) and read back (for the
        same shapes and dtypes) where backward gets dense arrays."""
        in_stypes = [_stype_of(a) for a in inputs]
        aux_stypes = [_stype_of(a) for a in aux]
        key = ('stypes',) + tuple((tuple(a.shape), np.dtype(a.dtype)) for a in list(inputs) + list(aux))
        if remember:
            if any(s != 'default' for s in in_stypes + aux_stypes):
                p.ops[key] = (in_stypes, aux_stypes)
            else:
                p.ops.pop(key, None)
        elif key in p.ops:
            seen_in, seen_aux = p.ops[key]
            in_stypes = [s if s != 'default' else seen for s, seen in zip(in_stypes, seen_in)]
            aux_stypes = [s if s != 'default' else seen for s, seen in zip(aux_stypes, seen_aux)]
        return in_stypes, aux_stypes

    def _to_graph(self, view, target):
        """A sparse-stored output's values as the graph carries them: dense, in ``target`` if
        there is one."""
        dense = _FRONT_END['dense'](view)
        if target is None or tuple(target.shape) != tuple(dense.shape):
            return dense
        target[...] = dense
        return target

    def _keep_aux(self, raws, views):
        """Writes into an aux state handed over in another storage go back into its dense array."""
        for raw, view in zip(raws, views):
            if _stype_of(raw) == 'default' and view.stype != 'default':
                raw[...] = _FRONT_END['dense'](view)

    # ------------------------------------------------------------- inference
    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        counts = self._counts(p)
        given = [_shape_for_user(s) for s in in_shapes]
        try:
            result = p.prop.infer_shape(given)
        except Exception as err:     # noqa: BLE001 -- the user's code
            # an unknown shape reaches the Prop as an empty list, as in MXNet, and a rule that
            # needs it (most read in_shape[0][0]) fails: so does inference, partial or not,
            # as MXNet's does
            raise ShapeError('%s: infer_shape(%s) raised %s: %s%s'
                             % (p.what(), given, type(err).__name__, err,
                                ' (an empty list is an unknown shape)' if [] in given else '')) from err
        ins, outs, auxs = _three(result, p, 'infer_shape', counts)
        merged = []
        for names, mine, theirs, what in ((self.inputs(p), in_shapes, ins, 'input'),
                                          (self.outputs(p), out_shapes, outs, 'output'),
                                          (self.aux(p), aux_shapes, auxs, 'auxiliary state')):
            row = []
            for name, known, said in zip(names, mine, theirs):
                said = _shape_from_user(said)
                try:
                    row.append(merge_shape(known, said, 'Custom'))
                except ShapeError:
                    raise ShapeError('%s: infer_shape gives %s %r the shape %s, but it has %s'
                                     % (p.what(), what, name, format_shape(said), format_shape(known))) from None
            merged.append(row)
        return merged[0], merged[1], merged[2]

    def infer_type(self, p, in_types, out_types, aux_types):
        counts = self._counts(p)
        # numpy's type objects (np.float32) as MXNet hands them, None where unknown
        given = [None if t is None else np.dtype(t).type for t in in_types]
        try:
            result = p.prop.infer_type(given)
        except Exception as err:     # noqa: BLE001 -- the user's code
            if any(t is None for t in in_types):
                # a rule that cannot work on an unknown dtype leaves the dtypes unknown, so
                # that partial inference goes on (MXNet fails here instead)
                return list(in_types), list(out_types), list(aux_types)
            raise TypeInferError('%s: infer_type(%s) raised %s: %s'
                                 % (p.what(), given, type(err).__name__, err)) from err
        ins, outs, auxs = _three(result, p, 'infer_type', counts)
        merged = []
        for names, mine, theirs, what in ((self.inputs(p), in_types, ins, 'input'),
                                          (self.outputs(p), out_types, outs, 'output'),
                                          (self.aux(p), aux_types, auxs, 'auxiliary state')):
            row = []
            for name, known, said in zip(names, mine, theirs):
                said = _dtype_from_user(said)
                if known is not None and said is not None and np.dtype(known) != said:
                    raise TypeInferError('%s: infer_type gives %s %r the dtype %s, but it has %s'
                                         % (p.what(), what, name, said.name, np.dtype(known).name))
                row.append(said if said is not None else known)
            merged.append(row)
        return merged[0], merged[1], merged[2]

    # ----------------------------------------------------------- computation
    def _operator(self, p, ctx, inputs):
        """The user's Op for this context and these input shapes and dtypes (made once)."""
        shapes = tuple(tuple(int(d) for d in a.shape) for a in inputs)
        dtypes = tuple(np.dtype(a.dtype) for a in inputs)
        key = (ctx, shapes, dtypes)
        op = p.ops.get(key)
        if op is None:
            flags = [DTYPE_TO_FLAG.get(t, -1) for t in dtypes]
            op = self._ask(p, 'create_operator', ctx, [list(s) for s in shapes], flags)
            if not isinstance(op, CustomOp):
                raise MXNetError('%s: create_operator must return a mx.operator.CustomOp, got %r'
                                 % (p.what(), op))
            p.ops[key] = op
        return op

    def _run(self, p, op, method, train, *args):
        """Call the user's ``op.method(*args)`` as MXNet does: recording paused, training as
        ``train`` says, and its error named by op_type."""
        was_recording = _FRONT_END['set_recording'](False)
        was_training = _FRONT_END['set_training'](train)
        try:
            if _profiler.ACTIVE:        # MXNet's '<op_type>::pure_python' and what it calls inside
                with _profiler.custom_code(p.op_type, backward=method == 'backward'):
                    getattr(op, method)(*args)
            else:
                getattr(op, method)(*args)
        except MXNetError as err:
            raise type(err)('%s: %s.%s: %s' % (p.what(), type(op).__name__, method, err)) from err
        except Exception as err:     # noqa: BLE001 -- the user's code
            raise _user_error(p, '%s.%s' % (type(op).__name__, method), err) from err
        finally:
            _FRONT_END['set_recording'](was_recording)
            _FRONT_END['set_training'](was_training)

    def _output_specs(self, p, inputs, aux):
        """The outputs' shapes and dtypes for these inputs: the Prop's rules, asked once per
        input signature (MXNet asks them when it binds, not on every batch)."""
        key = ('specs',) + tuple((tuple(a.shape), np.dtype(a.dtype)) for a in list(inputs) + list(aux))
        found = p.ops.get(key)
        if found is None:
            nout = len(self.outputs(p))
            in_shapes = [tuple(a.shape) for a in inputs]
            _, out_shapes, _ = self.infer_shape(p, in_shapes, [None] * nout, [tuple(a.shape) for a in aux])
            _, out_types, _ = self.infer_type(p, [a.dtype for a in inputs], [None] * nout, [a.dtype for a in aux])
            for name, shape in zip(self.outputs(p), out_shapes):
                if shape is None:
                    raise ShapeError('%s: infer_shape leaves the shape of output %r unknown for inputs %s'
                                     % (p.what(), name, in_shapes))
            found = p.ops[key] = (out_shapes, out_types)
        return found

    def forward(self, p, env, inputs, aux):
        stypes = self._forward_stypes(p, *self._given_stypes(p, inputs, aux, True))
        if stypes is not None:
            return self._sparse_forward(p, env, inputs, aux, stypes)
        NDArray = _FRONT_END['array']
        xp, ctx = env.xp, env.ctx
        out_shapes, out_types = self._output_specs(p, inputs, aux)
        outs = []
        for j, (shape, dtype) in enumerate(zip(out_shapes, out_types)):
            target = env.target(j)
            if target is not None and tuple(target.shape) == tuple(shape):
                target[...] = 0         # the planned array: what an earlier batch left there goes
                outs.append(target)
            else:
                # an output whose dtype nothing says (no inputs, and a Prop silent on it) is
                # float32, MXNet's default
                outs.append(xp.zeros(shape, dtype=dtype if dtype is not None else np.float32))
        op = self._operator(p, ctx, inputs)
        self._run(p, op, 'forward', env.is_train, env.is_train, ['write'] * len(outs),
                  [NDArray(a, ctx) for a in inputs], [NDArray(o, ctx) for o in outs],
                  [NDArray(a, ctx) for a in aux])
        return outs

    def _sparse_forward(self, p, env, inputs, aux, stypes):
        """forward where the Prop declares storage types: each array handed over in its own."""
        in_st, out_st, aux_st = stypes
        ctx = env.ctx
        out_shapes, out_types = self._output_specs(p, inputs, aux)
        in_views = [_view(a, s, ctx) for a, s in zip(inputs, in_st)]
        aux_views = [_view(a, s, ctx) for a, s in zip(aux, aux_st)]
        out_views = []
        for j, (shape, dtype, stype) in enumerate(zip(out_shapes, out_types, out_st)):
            dtype = dtype if dtype is not None else np.float32
            target = env.target(j)
            if stype != 'default':
                out_views.append(_FRONT_END['zeros'](stype, shape, ctx, dtype))
                continue
            if target is not None and tuple(target.shape) == tuple(shape):
                target[...] = 0
            else:
                target = env.xp.zeros(shape, dtype=dtype)
            out_views.append(_view(target, 'default', ctx))
        op = self._operator(p, ctx, inputs)
        self._run(p, op, 'forward', env.is_train, env.is_train, ['write'] * len(out_views),
                  in_views, out_views, aux_views)
        self._keep_aux(aux, aux_views)
        return [self._to_graph(v, env.target(j)) for j, v in enumerate(out_views)]

    def _sparse_backward(self, p, env, out_grads, inputs, outputs, aux, stypes, given):
        """backward where the Prop declares storage types: each array handed over in its own."""
        in_st, out_st, aux_st = stypes
        ctx, xp = env.ctx, env.xp
        grads = [xp.zeros(o.shape, dtype=o.dtype) if g is None else g for g, o in zip(out_grads, outputs)]
        og_st, in_st, out_st, ig_st, aux_st = self._backward_stypes(
            p, [_stype_of(g) for g in grads], in_st, out_st, given, aux_st)
        req = ['write' if env.wants_grad(k) else 'null' for k in range(len(inputs))]
        in_grads = []
        for k, (a, stype) in enumerate(zip(inputs, ig_st)):
            if stype != 'default':
                in_grads.append(_FRONT_END['zeros'](stype, a.shape, ctx, a.dtype))
                continue
            target = env.grad_target(k)
            if target is not None and tuple(target.shape) == tuple(a.shape):
                target[...] = 0
            else:
                target = xp.zeros(a.shape, dtype=a.dtype)
            in_grads.append(_view(target, 'default', ctx))
        aux_views = [_view(a, s, ctx) for a, s in zip(aux, aux_st)]
        op = self._operator(p, ctx, inputs)
        self._run(p, op, 'backward', True, req,
                  [_view(g, s, ctx) for g, s in zip(grads, og_st)],
                  [_view(a, s, ctx) for a, s in zip(inputs, in_st)],
                  [_view(o, s, ctx) for o, s in zip(outputs, out_st)], in_grads, aux_views)
        self._keep_aux(aux, aux_views)
        result = []
        for k, (g, r) in enumerate(zip(in_grads, req)):
            if r == 'null':
                result.append(None)
            elif g.stype == 'row_sparse':       # its rows go back as they are
                rows, values = _FRONT_END['rows'](g)
                result.append(SparseRows(rows, values, g.shape))
            else:
                result.append(self._to_graph(g, env.grad_target(k)))
        return result

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        given_in, given_aux = self._given_stypes(p, inputs, aux, False)
        stypes = self._forward_stypes(p, given_in, given_aux)
        if stypes is not None:
            return self._sparse_backward(p, env, out_grads, inputs, outputs, aux, stypes, given_in)
        NDArray = _FRONT_END['array']
        xp, ctx = env.xp, env.ctx
        # a head gradient nobody sent (an output no loss reads) is zero, as for any operator
        grads = [xp.zeros(o.shape, dtype=o.dtype) if g is None else g for g, o in zip(out_grads, outputs)]
        req = ['write' if env.wants_grad(k) else 'null' for k in range(len(inputs))]
        in_grads = []
        for k, a in enumerate(inputs):
            target = env.grad_target(k)
            if target is not None and tuple(target.shape) == tuple(a.shape):
                target[...] = 0         # the user may add into it ('add' on a fresh gradient)
                in_grads.append(target)
            else:
                in_grads.append(xp.zeros(a.shape, dtype=a.dtype))
        op = self._operator(p, ctx, inputs)
        self._run(p, op, 'backward', True, req,
                  [NDArray(g, ctx) for g in grads], [NDArray(a, ctx) for a in inputs],
                  [NDArray(o, ctx) for o in outputs], [NDArray(g, ctx) for g in in_grads],
                  [NDArray(a, ctx) for a in aux])
        return [g if r != 'null' else None for g, r in zip(in_grads, req)]
