"""Positional arguments of ``mx.sym.<op>(...)`` and ``mx.nd.<op>(...)``, placed as MXNet places them.

MXNet generates one Python function per operator whose signature is the operator's
inputs, then its parameters in declaration order, then ``name, attr, out`` (symbols) or
``out, name`` (arrays): ``clip(data, a_min, a_max, ...)``, ``FullyConnected(data, weight,
bias, num_hidden, no_bias, flatten, ...)``.  So ``mx.sym.clip(x, 0, 6)`` clips to [0, 6],
``mx.sym.Dropout(x, 0.5)`` drops half, and ``mx.sym.Convolution(x, w, None, (3, 3), ...)``
leaves the bias to be created (None skips an optional input or parameter).

The signature always lists every input the operator may take, whatever its parameters
(FullyConnected's ``bias`` even with ``no_bias``, LeakyReLU's ``gamma`` for any act_type).
reflib's operators compute their inputs from the parameters instead, so the full list
is found here by asking each operator for its inputs under every value of each of its
flags and choices, and merging the answers in order.  Variadic operators (Concat) take
inputs only.
"""

import numpy as np

from ..operator import get as _get_operator
from ..operator.registry import Params
from .attribute import HIDDEN_KEYS, normalize_key

__all__ = ['declared_inputs', 'auxiliary_inputs', 'split_positional', 'merge_keywords', 'param_string',
           'normalize_call', 'counted_by']

_DECLARED = {}     # id(operator) -> its inputs, as MXNet's signature lists them


def _inputs_under(op, overrides, part='all'):
    """The operator's inputs and auxiliary states (``part='aux'``: the states alone) with
    default parameters changed by ``overrides`` (a required parameter is None); None when the
    operator cannot say."""
    values = {k: (None if spec.required else spec.default) for k, spec in op.params.items()}
    values.update(overrides)
    p = Params(values)
    try:
        return list(op.aux(p)) if part == 'aux' else list(op.input_order(p))
    except Exception:   # noqa: BLE001 -- an operator that needs a required parameter to answer
        return None


def auxiliary_inputs(op):
    """The names among ``declared_inputs(op)`` that are auxiliary states."""
    declared = declared_inputs(op)
    aux = set(_inputs_under(op, {}, 'aux') or [])
    return [n for n in declared if n in aux]


def _merge(into, names):
    """Add the names ``into`` lacks, each right after the name it follows in ``names``."""
    last = -1
    for name in names:
        if name in into:
            last = into.index(name)
        else:
            last += 1
            into.insert(last, name)


def declared_inputs(op):
    """Every input (auxiliary states included) an operator may take, in MXNet's order.

    Flag by flag, the value that gives the most inputs is kept (RNN: ``mode='lstm'`` adds
    ``state_cell``, then ``use_sequence_length=True`` adds ``sequence_length``), so that the
    final list is one the operator itself gives, in its own order; an input that only some
    other combination brings is merged in after the one it follows.
    """
    found = _DECLARED.get(id(op))
    if found is not None:
        return found
    chosen, best, others = {}, _inputs_under(op, {}) or [], []
    for key, spec in op.params.items():
        base = spec.kind[:-len('_or_none')] if spec.kind.endswith('_or_none') else spec.kind
        if base == 'bool':
            variants = [True, False]
        elif base == 'enum':
            variants = list(spec.choices)
        else:
            continue
        for value in variants:
            names = _inputs_under(op, dict(chosen, **{key: value}))
            if names is None:
                continue
            if len(names) > len(best):
                best, chosen = names, dict(chosen, **{key: value})
            others.append(names)
    found = list(best)
    for names in others:
        _merge(found, names)
    _DECLARED[id(op)] = found
    return found


def split_positional(op, args, is_input, extra_names, what):
    """``(input list, inputs by name, parameters by name)`` from the positional ``args`` of a call to operator ``op``.

    The first ones go to the operator's inputs (``is_input(value)`` or None), the rest to
    its parameters in declaration order, then to ``extra_names`` (``name``, ``attr``,
    ``out``).  Inputs come back as a list for a variadic operator (Concat), else by name
    (a None skipped), so that an input the parameters leave out (FullyConnected's bias
    under ``no_bias``) can still be passed as None in its place.
    """
    if op.key_var_num_args:        # Concat(*data): every positional value is an input
        for i, value in enumerate(args):
            if not is_input(value):
                raise TypeError('%s: positional arguments of a variadic operator must be its inputs '
                                '(%s), got %r at position %d' % (what, 'arrays or symbols', value, i))
        return list(args), {}, {}
    slots = list(declared_inputs(op))
    # MXNet's signature lists some operators' auxiliary states (BatchNorm's moving_mean) and
    # not others': a value that is no array where a state would be starts the parameters
    aux = auxiliary_inputs(op)
    while aux and slots[-1] in aux:
        pos = len(slots) - 1
        if pos < len(args) and (args[pos] is None or is_input(args[pos])) and all(
                a is None or is_input(a) for a in args[:pos]):
            break
        slots.pop()
    inputs = {}
    for i, (slot, value) in enumerate(zip(slots, args)):
        if value is None:
            continue
        if not is_input(value):
            raise TypeError('%s: positional argument %d goes to input %r, which must be an array or a '
                            'symbol, got %r; parameters come after all the inputs %s, or by keyword'
                            % (what, i, slot, value, slots))
        inputs[slot] = value
    rest = args[len(slots):]
    names = list(op.params) + list(extra_names)
    if len(rest) > len(names):
        raise TypeError('%s takes at most %d positional arguments (inputs %s, then %s), got %d'
                        % (what, len(slots) + len(names), slots, names, len(args)))
    params = {}
    for name, value in zip(names, rest):
        if value is not None:
            if is_input(value) and name in op.params:
                raise TypeError('%s: positional argument %r goes to parameter %r; inputs come first %s'
                                % (what, value, name, slots))
            params[name] = value
    return [], inputs, params


def merge_keywords(kwargs, *positional, what=''):
    """The call's keywords with the ones from positions added; a name given both ways raises."""
    for given in positional:
        for key, value in given.items():
            if key in kwargs:
                raise TypeError('%s got multiple values for argument %r' % (what, key))
            kwargs[key] = value
    return kwargs


def param_string(value):
    """The string a parameter value is stored as, as MXNet's front end writes it (``str``):
    a dtype by name, and the numbers of a tuple or list one by one, so that numpy integers
    (``axes=(np.int64(1), np.int64(0))``) read ``(1, 0)`` and not numpy 2's ``np.int64(1)``."""
    if isinstance(value, type) or isinstance(value, np.dtype):
        return np.dtype(value).name
    if isinstance(value, tuple):
        return '(%s%s)' % (', '.join(str(v) for v in value), ',' if len(value) == 1 else '')
    if isinstance(value, list):
        return '[%s]' % ', '.join(str(v) for v in value)
    return str(value)


def normalize_call(op_name, args, kwargs, is_input, extra_names, what):
    """One operator call of either front end, in MXNet's conventions: the one place where
    ``mx.sym.<op>(...)`` and ``mx.nd.<op>(...)`` turn their arguments into an operator call.

    ``is_input`` tells an input (a Symbol, an NDArray) from a parameter; ``extra_names`` are
    the front end's own trailing keywords (``('name', 'attr', 'out')`` for symbols,
    ``('out', 'name')`` for arrays), in the order its generated signature lists them.
    Returns ``(op, inputs, named_inputs, raw, extras)``: the positional inputs, the inputs
    given by keyword, the parameters as the strings MXNet stores (graph attributes such as
    ``lr_mult`` normalised to ``__lr_mult__``, and ``key_var_num_args`` filled in), and the
    extras given (``{'name': ..., 'out': ...}``).
    """
    op = _get_operator(op_name)
    if any(not is_input(a) for a in args):
        # parameters (or None for a skipped input) by position, as MXNet's generated functions
        # take them: inputs, then parameters in declaration order, then the extras
        args, by_name, params = split_positional(op, args, is_input, extra_names, what)
        kwargs = merge_keywords(dict(kwargs), by_name, params, what=what)
    else:
        kwargs = dict(kwargs)
    extras = {key: kwargs.pop(key, None) for key in extra_names}
    named, raw = {}, {}
    for key, value in kwargs.items():
        if is_input(value):
            named[key] = value
        elif key in HIDDEN_KEYS:
            # lr_mult=2 on any operator call is stored as __lr_mult__, as MXNet stores it
            raw[normalize_key(key)] = str(value)
        elif value is not None:
            raw[key] = param_string(value)
        elif key in op.params and (op.params[key].kind.endswith('_or_none') or op.params[key].default is None):
            # an explicit None is MXNet's 'None' (sort(axis=None) flattens: the default is -1)
            raw[key] = 'None'
    if op.key_var_num_args and op.key_var_num_args not in raw:
        raw[op.key_var_num_args] = str(op.var_num_args_for(len(args)))
    return op, list(args), named, raw, extras


def counted_by(op, p):
    """`` with num_weights=2`` for an operator whose input count a parameter sets, to say in an
    error about the number of inputs which count was asked for; '' for any other operator."""
    key = op.key_var_num_args
    if not key or key not in op.params or op.params[key].kind != 'int':
        return ''
    return ' with %s=%s' % (key, getattr(p, key))
