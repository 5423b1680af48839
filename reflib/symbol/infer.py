"""Shape and type inference over a whole graph.

Each operator knows a local rule (``Operator.infer_shape``) that fills
unknown input/output shapes from known ones, in either direction:
FullyConnected deduces ``weight = (num_hidden, in_dim)`` from ``data``, an
elementwise add deduces one operand from the other.  The graph-level
algorithm below just applies every local rule, forward then backward over the
nodes, until nothing changes.  An inconsistency is reported with the
operator's name and the input it concerns.

The rules carry a dimension not known yet as 0 (MXNet's legacy shapes).  Under NumPy shape
semantics (``mx.np_shape()``) the caller writes it -1 and 0 is a real size: ``_internal``
turns the caller's -1 into 0 for the rules, and ``_as_given`` turns 0 back into -1 for the
caller, in a pass that had -1 dimensions (``zeros_unknown``).  A pass given no -1 reads its
0 dimensions as sizes, so ``infer_shape(x=(0, 5))`` of a FullyConnected layer is ``(0, 4)``,
as in MXNet.  One case stays ambiguous: a pass given both a -1 and a real 0 reports the 0 as
-1, since inside the rules the two are the same value.
"""

import contextlib
import warnings

import numpy as np

from ..base import ShapeError, BindError, MXNetError, FLAG_TO_DTYPE
from ..shapes import is_np_shape, merge_shape, merge_dtype, shape_is_known, zeros_unknown
from .symbol import parse_shape_attr, topo_order, split_variables

__all__ = ['infer_shape', 'infer_type', 'infer_graph_shapes', 'infer_graph_types']


def _given(sym, args, kwargs, what):
    """Map variable name -> given value from positional (argument order) and keyword inputs."""
    arg_names = sym.list_arguments()
    given = {}
    if args:
        if len(args) > len(arg_names):
            raise BindError('%s: got %d positional values for %d arguments %s'
                            % (what, len(args), len(arg_names), arg_names))
        given.update({n: v for n, v in zip(arg_names, args) if v is not None})
    inputs = set(sym.list_inputs())
    for key, value in kwargs.items():
        if key not in inputs:
            raise BindError("%s: %r is not an input of the symbol; inputs are %s"
                            % (what, key, sym.list_inputs()))
        if value is not None:
            given[key] = value
    return given


def _fmt(value):
    """A shape as (2,3), a dtype by name, None as unknown."""
    if value is None:
        return 'unknown'
    if isinstance(value, tuple):
        return '(%s)' % ','.join(str(d) for d in value)
    return np.dtype(value).name


def _differs(new, old):
    # not `new != old`: numpy reads None as float64, so dtype('float64') != None is False
    if new is None or old is None:
        return (new is None) != (old is None)
    return new != old


def _run(nodes, entry, node_rule, merge, kind):
    """Apply ``node_rule`` to every operator node until a fixed point; fills ``entry`` in place."""
    ops = [n for n in nodes if n.op is not None]
    for sweep in range(2 * len(ops) + 2):
        changed = False
        for node in (ops if sweep % 2 == 0 else reversed(ops)):
            nin = node.num_args()
            ins = [entry.get((id(c), i)) for c, i in node.inputs[:nin]]
            auxs = [entry.get((id(c), i)) for c, i in node.inputs[nin:]]
            outs = [entry.get((id(node), i)) for i in range(node.num_outputs())]
            try:
                new_in, new_out, new_aux = node_rule(node, ins, outs, auxs)
            except MXNetError as err:
                # the operator's own rule may not know which input is at fault: list them all
                known = ', '.join('%s=%s:%s' % (in_name, child.output_name(i), _fmt(value))
                                  for in_name, (child, i), value
                                  in zip(node.input_names(), node.inputs, ins + auxs))
                raise type(err)('%s inference failed in operator %r (%s): %s [inputs: %s]'
                                % (kind, node.name, node.op.name, err, known)) from None
            names = node.input_names()
            for (child, i), value, in_name in zip(node.inputs, list(new_in) + list(new_aux), names):
                key = (id(child), i)
                where = "operator %r (%s), input %r (%s)" % (node.name, node.op.name, in_name,
                                                            child.output_name(i))
                merged = merge(entry.get(key), value, where)
                if _differs(merged, entry.get(key)):
                    entry[key] = merged
                    changed = True
            for i, value in enumerate(new_out):
                key = (id(node), i)
                merged = merge(entry.get(key), value, "operator %r (%s), output %d" % (node.name, node.op.name, i))
                if _differs(merged, entry.get(key)):
                    entry[key] = merged
                    changed = True
        if not changed and sweep >= 1:
            break
    return entry


def _internal(shape):
    """The rules' form of a caller's shape: -1 (unknown) becomes 0."""
    return tuple(0 if d < 0 else int(d) for d in shape)


def _as_given(shape):
    """A shape back in the caller's form under NumPy shape semantics: 0 (unknown) is -1."""
    return None if shape is None else tuple(-1 if d == 0 else d for d in shape)


def infer_graph_shapes(outputs, given):
    """{(id(node), index): shape} for every entry of the graph reachable from ``outputs``,
    in the form the caller's semantics reads (legacy: 0 unknown; NumPy shape: -1 unknown)."""
    nodes = topo_order(outputs)
    entry = {}
    unknown_dims = False
    for node in nodes:
        if node.op is None:
            # a shape given by the caller wins over the one declared with Variable(shape=...), as in MXNet
            shape = given.get(node.name)
            if shape is None and '__shape__' in node.attrs:
                shape = parse_shape_attr(node.attrs['__shape__'])
            if shape is not None:
                unknown_dims = unknown_dims or any(d < 0 for d in shape)
                entry[(id(node), 0)] = merge_shape(None, _internal(shape), 'variable %r' % node.name)

    def rule(node, ins, outs, auxs):
        return node.op.infer_shape(node.params, ins, outs, auxs)
    with zeros_unknown() if unknown_dims else contextlib.nullcontext():
        entry = _run(nodes, entry, rule, merge_shape, 'shape')
    if unknown_dims and is_np_shape():
        entry = {key: _as_given(shape) for key, shape in entry.items()}
    return nodes, entry


def _check_given_shape(name, shape):
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise ShapeError('infer_shape: shape of %r must be a tuple of ints, got %r' % (name, shape))
    if is_np_shape():
        if any(d < -1 for d in shape):
            raise ShapeError('infer_shape: shape of %r has a dimension below -1: %r (-1 means unknown)'
                             % (name, tuple(shape)))
    elif any(d < 0 for d in shape):
        # MXNet 1.9.1 errors on (4, -3) and quietly gives up on (-1, 5); both are refused here
        raise ShapeError('infer_shape: shape of %r has a negative dimension: %r (0 means unknown; '
                         'inside mx.np_shape() -1 does)' % (name, tuple(shape)))


def infer_shape(sym, args, kwargs, partial):
    """``Symbol.infer_shape`` and ``infer_shape_partial``: the shapes of ``sym``'s arguments,
    outputs and auxiliary states from the shapes given.

    Args:
        sym (Symbol): the graph.
        args: shapes of the arguments in ``list_arguments()`` order (None: not given).
        kwargs: shapes by input name.
        partial: False gives up on an incomplete answer, True returns what is known.

    Returns:
        tuple: ``(arg_shapes, out_shapes, aux_shapes)``, lists of tuples.  Not partial: three
        Nones, with a warning, when some shape cannot be decided.  Partial: an unknown shape
        is ``()`` under legacy shapes and None inside ``mx.np_shape()``.

    Raises:
        BindError: a name that is not an input, or too many positional shapes.
        ShapeError: a given shape is malformed or contradicts an operator's rule.
    """
    given = _given(sym, args, kwargs, 'infer_shape')
    for name, shape in given.items():
        _check_given_shape(name, shape)
    nodes, entry = infer_graph_shapes(sym._outputs, given)
    arg_nodes, aux_nodes = split_variables(nodes)
    arg_shapes = [entry.get((id(n), 0)) for n in arg_nodes]
    aux_shapes = [entry.get((id(n), 0)) for n in aux_nodes]
    out_shapes = [entry.get((id(n), i)) for n, i in sym._outputs]
    if partial:
        # an unknown shape is () under legacy shapes, None under NumPy shape semantics
        unknown = None if is_np_shape() else ()

        def fill(shapes):
            return [tuple(s) if s is not None else unknown for s in shapes]
        return fill(arg_shapes), fill(out_shapes), fill(aux_shapes)
    unknown = ['%s: %s' % (n.name, tuple(s) if s is not None else ())
               for n, s in zip(arg_nodes + aux_nodes, arg_shapes + aux_shapes) if not shape_is_known(s)]
    if unknown or not all(shape_is_known(s) for s in out_shapes):
        # MXNet warns and returns three Nones here rather than raising; infer_shape_partial shows what is known
        warnings.warn('infer_shape: cannot decide the shapes of these inputs (%s means an unknown '
                      'dimension); give them, or shapes they follow from: %s. Returning (None, None, None)'
                      % ('-1' if is_np_shape() else '0', ', '.join(unknown)), stacklevel=3)
        return None, None, None
    return arg_shapes, out_shapes, aux_shapes


def infer_graph_types(outputs, given):
    """The dtypes of every entry of the graph reachable from ``outputs``.

    Args:
        outputs: the graph's ``(node, output index)`` pairs.
        given (dict): variable name -> dtype; a variable not given uses its ``__dtype__``
            attribute, if it has one.

    Returns:
        tuple: ``(nodes, entry)``: the nodes in topological order, and a dict from
        ``(id(node), output index)`` to a numpy dtype, for the entries whose dtype is known.
    """
    nodes = topo_order(outputs)
    entry = {}
    for node in nodes:
        if node.op is None:
            dtype = given.get(node.name)
            if dtype is None and '__dtype__' in node.attrs:
                dtype = FLAG_TO_DTYPE[int(node.attrs['__dtype__'])]
            if dtype is not None:
                entry[(id(node), 0)] = np.dtype(dtype)

    def rule(node, ins, outs, auxs):
        return node.op.infer_type(node.params, ins, outs, auxs)
    return nodes, _run(nodes, entry, rule, merge_dtype, 'type')


def infer_type(sym, args, kwargs, partial):
    """``Symbol.infer_type`` and ``infer_type_partial``: the dtypes of ``sym``'s arguments,
    outputs and auxiliary states from the dtypes given (``args`` in argument order,
    ``kwargs`` by name).

    Returns:
        tuple: ``(arg_types, out_types, aux_types)``, lists of numpy type objects.  An unknown
        dtype is None when ``partial``; otherwise one makes the answer three Nones, with a
        warning.

    Raises:
        BindError: a name that is not an input, or too many positional dtypes.
        TypeInferError: the dtypes contradict an operator's rule.
    """
    given = _given(sym, args, kwargs, 'infer_type')
    nodes, entry = infer_graph_types(sym._outputs, given)
    arg_nodes, aux_nodes = split_variables(nodes)

    def types(keys):
        return [entry[k].type if entry.get(k) is not None else None for k in keys]
    arg_types = types([(id(n), 0) for n in arg_nodes])
    aux_types = types([(id(n), 0) for n in aux_nodes])
    out_types = types([(id(n), i) for n, i in sym._outputs])
    if not partial and any(t is None for t in arg_types + aux_types + out_types):
        unknown = [n.name for n, t in zip(arg_nodes + aux_nodes, arg_types + aux_types) if t is None]
        warnings.warn('infer_type: cannot decide the dtypes of %s; give them (or dtypes they follow '
                      'from). Returning (None, None, None)' % unknown, stacklevel=3)
        return None, None, None
    return arg_types, out_types, aux_types
