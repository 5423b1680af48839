"""Looking at a network: ``mx.viz.plot_network`` draws it, ``mx.viz.print_summary`` tabulates it.

Both walk the graph in the same topological order as the symbol's JSON, and
both can be given the input shapes, in which case every tensor's shape is
inferred first and shown *without its batch dimension* (``32x28x28`` for a
``(N, 32, 28, 28)`` tensor, ``128`` for ``(N, 128)``).

>>> import reflib as mx
>>> data = mx.sym.Variable('data')
>>> fc = mx.sym.FullyConnected(data, num_hidden=10, name='fc')
>>> print(mx.viz.plot_network(fc, shape={'data': (1, 4)}).source)  # doctest: +SKIP
digraph plot {
    data [label=data fillcolor="#8dd3c7" ... shape=oval ...]
    fc [label="FullyConnected
10" fillcolor="#fb8072" ... shape=box ...]
    fc -> data [label=4 arrowtail=open dir=back]
}

Drawing conventions (MXNet's):

* variables are filled ovals labelled with their name; those whose name looks
  like a learnable parameter or a statistic (``fc1_weight``, ``bn1_moving_mean``...)
  are left out, or with ``hide_weights=False`` drawn as plain ellipses that only
  their edges declare;
* operators are boxes, coloured by family, labelled with the operator and its
  key parameters (``Convolution\\n3x3/1, 32``) or, for most operators, with the
  node's name;
* every edge goes from a node to the input it reads (``fc1 -> data``) and is drawn
  with ``dir=back``: dot places inputs below their users, and the arrowheads
  point the way the data flows, upwards.
"""

import re
import warnings

from .symbol import Symbol, load_json
from .symbol.symbol import topo_order

__all__ = ['plot_network', 'print_summary']

# Fill colours, one per family of operators (ColorBrewer's "Set3" palette).
_COLOUR_VARIABLE = '#8dd3c7'
_COLOUR_LINEAR = '#fb8072'       # FullyConnected, Convolution
_COLOUR_ACTIVATION = '#ffffb3'   # Activation, LeakyReLU
_COLOUR_NORM = '#bebada'         # BatchNorm
_COLOUR_POOLING = '#80b1d3'      # Pooling
_COLOUR_SHAPE = '#fdb462'        # Concat, Flatten, Reshape
_COLOUR_SOFTMAX = '#b3de69'      # only an op literally named "Softmax" (an alias, so never in 1.x graphs)
_COLOUR_OTHER = '#fccde5'        # everything else, SoftmaxOutput and arithmetic included

_FAMILY_COLOUR = {
    'FullyConnected': _COLOUR_LINEAR, 'Convolution': _COLOUR_LINEAR,
    'Activation': _COLOUR_ACTIVATION, 'LeakyReLU': _COLOUR_ACTIVATION,
    'BatchNorm': _COLOUR_NORM,
    'Pooling': _COLOUR_POOLING,
    'Concat': _COLOUR_SHAPE, 'Flatten': _COLOUR_SHAPE, 'Reshape': _COLOUR_SHAPE,
    'Softmax': _COLOUR_SOFTMAX,
}

# A variable whose name ends like this is a parameter or a statistic, not an input
# (the test is case-sensitive: ``DATA_Weight`` is drawn).
_WEIGHT_SUFFIXES = ('_weight', '_bias', '_beta', '_gamma',
                    '_moving_var', '_moving_mean', '_running_var', '_running_mean')

# The box every node starts from; ``node_attrs`` overrides these keys.
_DEFAULT_NODE_ATTRS = {'shape': 'box', 'fixedsize': 'true', 'width': '1.3',
                       'height': '0.8034', 'style': 'filled'}


def _looks_like_weight(name):
    return name.endswith(_WEIGHT_SUFFIXES)


def _dims(text):
    """The integers in a stored tuple parameter: ``'(3, 3)'`` -> ``['3', '3']``."""
    return re.findall(r'\d+', str(text))


def _is_true(text):
    return str(text).strip().lower() in ('true', '1')


def _format_shape(shape):
    """``(N, 32, 28, 28)`` -> ``'32x28x28'``: the batch dimension is not shown."""
    return 'x'.join(str(d) for d in shape[1:])


# ------------------------------------------------------------------ inference
def _internal_shapes(symbol, shapes):
    """{(id(node), output index): shape} for every visible entry of the graph."""
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shapes)
    if out_shapes is None:
        raise ValueError('Input shape is incomplete')
    return {(id(node), i): tuple(s) for (node, i), s in zip(internals._outputs, out_shapes)}


def _internal_types(symbol, dtypes):
    """{(id(node), output index): numpy scalar type} for every visible entry of the graph."""
    internals = symbol.get_internals()
    _, out_types, _ = internals.infer_type(**dtypes)
    if out_types is None:
        raise ValueError('Input type is incomplete')
    return {(id(node), i): t for (node, i), t in zip(internals._outputs, out_types)}


# ---------------------------------------------------------------- plot_network
def _node_label(node):
    """The text in an operator's box: the operator and its key parameters, or the node's name.

    Parameters are shown as the user wrote them (the strings stored on the node).
    """
    attrs = node.attrs
    op = node.op.name
    if op == 'Convolution':
        stride = 'x'.join(_dims(attrs['stride'])) if 'stride' in attrs else '1'
        return 'Convolution\n%s/%s, %s' % ('x'.join(_dims(attrs['kernel'])), stride, attrs['num_filter'])
    if op == 'FullyConnected':
        return 'FullyConnected\n%s' % attrs['num_hidden']
    if op == 'Activation':
        return 'Activation\n%s' % attrs['act_type']
    if op == 'LeakyReLU':
        return 'LeakyReLU\n%s' % attrs.get('act_type', 'Leaky')
    if op == 'Pooling':
        kernel = 'x'.join(_dims(attrs['kernel'])) if 'kernel' in attrs else '[]'
        stride = 'x'.join(_dims(attrs['stride'])) if 'stride' in attrs else '1'
        # (MXNet fails on a Pooling whose pool_type was left at its default; we show it)
        return 'Pooling\n%s, %s/%s' % (attrs.get('pool_type', 'max'), kernel, stride)
    if op == 'Custom' and 'op_type' in attrs:
        return attrs['op_type']
    return node.name


def _warn_repeated_names(nodes):
    """Warn, as MXNet does, when two nodes share a name: graphviz draws one box per name, so
    the picture joins them (and may show a cycle that the graph does not have)."""
    seen, repeated = set(), []
    for node in nodes:
        if node.name in seen and node.name not in repeated:
            repeated.append(node.name)
        seen.add(node.name)
    if repeated:
        warnings.warn('There are multiple variables with the same name in your graph, this may result '
                      'in cyclic graph. Repeated names: %s' % ','.join(repeated), RuntimeWarning)


def plot_network(symbol, title='plot', save_format='pdf', shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):
    """Draw ``symbol`` as a ``graphviz.Digraph`` (call ``.render()`` or ``.view()`` on it).

    shape : dict, optional
        Input shapes (``{'data': (N, 1, 28, 28)}``); each edge is then labelled with
        the shape of the tensor it carries, batch dimension left out.
    dtype : dict, optional
        Input dtypes; each edge label then ends with ``(float32)`` and the like.
    node_attrs : dict
        Graphviz attributes overriding the default box (``{'shape': 'oval'}``).
    hide_weights : bool
        Leave out variables named like parameters (``*_weight``, ``*_bias``,
        ``*_gamma``, ``*_beta``, moving/running means and variances) and their
        edges; with False their edges are drawn to plain, unstyled nodes.
    """
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError('Draw network requires graphviz library') from None
    if not isinstance(symbol, Symbol):
        raise TypeError('symbol must be a Symbol')
    if any(node.op is not None and node.op.name in ('amp_cast', 'amp_multicast')
           for node in topo_order(symbol._outputs)):
        # MXNet draws the graph its tojson() writes, which leaves out the casts mixed
        # precision inserted (mx.contrib.amp): the same picture here
        symbol = load_json(symbol.tojson())
    shapes = _internal_shapes(symbol, shape) if shape is not None else None
    types = _internal_types(symbol, dtype) if dtype is not None else None

    base_attrs = dict(_DEFAULT_NODE_ATTRS)
    base_attrs.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    nodes = topo_order(symbol._outputs)
    _warn_repeated_names(nodes)

    # all the nodes first ...
    hidden = set()
    for node in nodes:
        attrs = dict(base_attrs)
        if node.is_variable:
            if _looks_like_weight(node.name):
                # never declared: with hide_weights=False only their edges are drawn, and
                # graphviz shows them as plain unfilled ellipses, as in MXNet's drawings
                if hide_weights:
                    hidden.add(id(node))
                continue
            attrs['shape'] = 'oval'
            attrs['fillcolor'] = _COLOUR_VARIABLE
            label = node.name
        else:
            attrs['fillcolor'] = _FAMILY_COLOUR.get(node.op.name, _COLOUR_OTHER)
            label = _node_label(node)
        dot.node(name=node.name, label=label, **attrs)

    # ... then, for every operator, one edge per input it reads, pointing back to that input
    for node in nodes:
        for child, index in node.inputs:
            if id(child) in hidden:
                continue
            label = ''
            if shapes is not None:
                label = _format_shape(shapes[(id(child), index)])
            if types is not None:
                label += '(%s)' % types[(id(child), index)].__name__
            dot.edge(tail_name=node.name, head_name=child.name,
                     label=label, dir='back', arrowtail='open')
    return dot


# --------------------------------------------------------------- print_summary
def _shown_output(node):
    """(id(node), index) of the output a summary row describes, or None.

    That is the node's output called ``<name>_output`` (a variable's only
    output); nodes with several numbered outputs (SliceChannel) have none, and
    their row shows no shape.
    """
    if node.is_variable:
        return (id(node), 0)
    names = node.op.outputs(node.params)[:node.num_visible_outputs()]
    return (id(node), names.index('output')) if 'output' in names else None


def _param_count(node, in_channels, out_shape):
    """Learnable parameters of one layer, counted the way MXNet's summary counts them.

    Only four operators have parameters here; ``in_channels`` is the sum of the
    first non-batch dimension of the inputs listed as previous layers (0 when no
    shapes were given), so a FullyConnected fed a 4-D tensor is counted from its
    channels alone, as MXNet does.  (One deliberate difference: MXNet takes only
    the exact string ``'True'`` as ``no_bias``; any true spelling counts here.)
    """
    op, attrs = node.op.name, node.attrs
    if op == 'Convolution':
        num_filter = int(attrs['num_filter'])
        count = in_channels * num_filter // int(attrs.get('num_group', 1))
        for k in _dims(attrs['kernel']):
            count *= int(k)
        if not _is_true(attrs.get('no_bias', False)):
            count += num_filter
        return count
    if op == 'FullyConnected':
        bias = 0 if _is_true(attrs.get('no_bias', False)) else 1
        return (in_channels + bias) * int(attrs['num_hidden'])
    if op == 'BatchNorm':
        # gamma and beta: the moving mean and variance are not parameters
        return 2 * out_shape[1] if out_shape else 0
    if op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def _print_row(fields, positions):
    """One line of the table: field i is cut or padded so that it ends at column positions[i]."""
    line = ''
    for field, end in zip(fields, positions):
        line = (line + str(field))[:end]
        line += ' ' * (end - len(line))
    print(line)


def print_summary(symbol, shape=None, line_length=120, positions=[.44, .64, .74, 1.]):
    """Print a Keras-style table of the layers of ``symbol`` and the total parameter count.

    One row per operator (plus the graph's first input): ``name(op)``, its
    output shape without the batch dimension (given ``shape``), its parameter
    count and the layers it reads.  Variables other than the first input are
    not layers: a weight is part of its layer's count, and a second data input
    is neither listed as a previous layer nor counted in a layer's input
    channels (so FullyConnected on it counts only its bias).

    positions : list
        Where each of the four columns ends, as fractions of ``line_length``
        (or as absolute columns when the last one is above 1).
    """
    if not isinstance(symbol, Symbol):
        raise TypeError('symbol must be a Symbol')
    shapes = _internal_shapes(symbol, shape) if shape is not None else {}
    nodes = topo_order(symbol._outputs)
    position = {id(node): i for i, node in enumerate(nodes)}
    # The variables that count as layers: node 0 (the first input), plus, as MXNet
    # derives this set from the first head entry (node, output index, 0), the node
    # of the first output and the node numbered like that output's index.
    head, head_index = symbol._outputs[0]
    layer_ids = {0, position[id(head)], head_index}

    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def shown_shape(node):
        key = _shown_output(node)
        return shapes.get(key) if key is not None else None

    print('_' * line_length)
    _print_row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'], positions)
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node.is_variable and i > 0:
            continue
        previous, in_channels = [], 0
        for child, _ in node.inputs:
            if child.is_variable and position[id(child)] not in layer_ids:
                continue
            previous.append(child.name)
            child_shape = shown_shape(child)
            if child_shape is not None and len(child_shape) > 1:
                in_channels += child_shape[1]
        out_shape = shown_shape(node)
        count = 0 if node.is_variable else _param_count(node, in_channels, out_shape)
        total += count
        op_name = 'null' if node.is_variable else node.op.name
        _print_row(['%s(%s)' % (node.name, op_name),
                    _format_shape(out_shape) if out_shape is not None else '',
                    count, previous[0] if previous else ''], positions)
        for name in previous[1:]:
            _print_row(['', '', '', name], positions)
        print('=' * line_length if i == len(nodes) - 1 else '_' * line_length)
    print('Total params: %d' % total)
    print('_' * line_length)
