"""``mx.operator.get_all_registered_operators`` and ``get_operator_arguments``: what MXNet's
C API says of each operator, here read from the registry (names, then MXNet's type strings:
``"int, required"``, ``"{'relu', 'tanh'}, required"``, ``"boolean, optional, default=0"``)."""

import collections

import numpy as np

from .registry import REQUIRED, get, list_operators

__all__ = ['OperatorArguments', 'get_all_registered_operators', 'get_operator_arguments']

OperatorArguments = collections.namedtuple('OperatorArguments', ['narg', 'names', 'types'])

_KIND = {'int': 'int', 'float': 'float', 'bool': 'boolean', 'shape': 'Shape(tuple)', 'str': 'string',
         'floats': 'tuple of <float>',
         'int_or_none': 'int or None', 'float_or_none': 'float or None', 'shape_or_none': 'Shape or None',
         'bool_or_none': 'boolean or None'}


def get_all_registered_operators():
    """Every operator name, aliases included (MXNet's list holds both, e.g. ``relu`` and ``_Plus``)."""
    return list_operators()


def _default_text(spec):
    """The default as MXNet prints it: numbers of int kinds and enums quoted, bools as 0/1,
    shapes as [2,2], floats and None bare."""
    value = spec.default
    base = spec.kind[:-len('_or_none')] if spec.kind.endswith('_or_none') else spec.kind
    if value is None:
        return "'None'" if base in ('int', 'enum') else 'None'
    if base == 'bool':
        return str(int(value))
    if base == 'shape':
        return '[%s]' % ','.join(str(d) for d in value)
    if base == 'floats':
        return '[%s]' % ','.join('%g' % v for v in value)      # MultiBoxTarget's [0.1,0.1,0.2,0.2]
    if base in ('int', 'enum', 'str'):
        return "'%s'" % value
    return '%.9g' % np.float32(value)       # a C++ float printed: 0.333999991, 1


def _type_text(spec):
    if spec.kind == 'enum':
        # an enum that may be None lists None first, as MXNet does: {None, 'NCHW', ...}
        choices = sorted(set(spec.choices) | ({None} if spec.default is None else set()),
                         key=lambda c: (c is not None, str(c)))
        kind = '{%s}' % ', '.join('None' if c is None else "'%s'" % c for c in choices)
        separator = ','              # MXNet writes "{'a', 'b'},optional", with no space
    else:
        kind, separator = _KIND.get(spec.kind, spec.kind), ', '
    if spec.default is REQUIRED:
        return kind + ', required'
    return '%s%soptional, default=%s' % (kind, separator, _default_text(spec))


def get_operator_arguments(op_name):
    """``OperatorArguments(narg, names, types)`` of operator ``op_name``: its inputs and
    auxiliary states (typed ``NDArray-or-Symbol``, ``NDArray-or-Symbol[]`` for a variable
    number of them) and then its parameters.  Where an input exists only for some parameter
    values (LeakyReLU's ``gamma``, for ``prelu``) it is listed only then; MXNet always lists it."""
    op = get(op_name)
    if op.key_var_num_args:
        names, types = ['data'], ['NDArray-or-Symbol[]']
    else:
        p = op.parse_params({k: _example(s) for k, s in op.params.items() if s.required})
        names = list(op.input_order(p))
        types = ['NDArray-or-Symbol'] * len(names)
    for name, spec in op.params.items():
        names.append(name)
        types.append(_type_text(spec))
    return OperatorArguments(len(names), names, types)


def _example(spec):
    """A value for a required parameter, so that inputs() can be asked (it may depend on params)."""
    if spec.kind == 'enum':
        return spec.choices[0]
    return {'int': max(spec.low or 1, 1), 'float': 1.0, 'bool': False, 'shape': (1,), 'floats': (1.0,),
            'str': ''}.get(spec.kind, 1)
