"""Pictures of arrays: Python names, NDArray handles and the buffers behind them (chapter 1),
an executor's four lists of arrays (chapter 4), an executor group's slices (chapter 7)."""

import numpy as np

from .drawing import DEVICE_COLOURS, GRADIENT_RED, digraph, lines

ALLOCATED, BORROWED = '#f8dcc0', '#cfe0f5'


def _owner(buf):
    """The numpy array that owns the memory a view looks into."""
    while buf.base is not None:
        buf = buf.base
    return buf


def _index_of(items, obj):
    """(position of ``obj`` in ``items`` by identity, whether it was added just now)."""
    for i, item in enumerate(items):
        if item is obj:
            return i, False
    items.append(obj)
    return len(items) - 1, True


def draw_handles(**names):
    """Python names -> NDArray handles -> the numpy buffers behind them (arrays on the cpu).

    Two names on one handle are one NDArray; two handles on one buffer are views of the same
    memory, and the edge says which elements of it each one sees."""
    dot = digraph(rankdir='LR', nodesep='0.25', node={'fontsize': '11'}, edge={'fontsize': '11'})
    handles, buffers = [], []
    for name, arr in names.items():
        dot.node('name_' + name, name, shape='plaintext', fontname='Courier')
        h, new_handle = _index_of(handles, arr)
        dot.edge('name_' + name, 'h%d' % h)
        if not new_handle:
            continue
        dot.node('h%d' % h, 'NDArray %s\n@%s' % ('x'.join(map(str, arr.shape)), arr.context),
                 shape='box', style='rounded,filled', fillcolor='#dbe7f6')
        buf = _owner(arr.handle)
        b, new_buffer = _index_of(buffers, buf)
        if new_buffer:
            values = np.array2string(buf.ravel(), precision=2, max_line_width=40)
            dot.node('b%d' % b, 'buffer: %d x %s\n%s' % (buf.size, buf.dtype, values),
                     shape='box', style='filled', fillcolor='#f6e7d3')
        # where the view starts inside its buffer, counted in elements
        start = (arr.handle.__array_interface__['data'][0] - buf.__array_interface__['data'][0]) // buf.itemsize
        whole = start == 0 and arr.size == buf.size
        dot.edge('h%d' % h, 'b%d' % b, label='' if whole else 'elements %d..%d' % (start, start + arr.size - 1))
    return dot


def _nbytes(arr):
    return arr.size * np.dtype(arr.dtype).itemsize


def draw_executor(exe, caller=None, title=''):
    """An executor's arrays in four columns (``arg_arrays``, ``grad_arrays``, ``aux_arrays``,
    ``outputs``).  ``caller`` maps the caller's Python names to arrays: an executor array that
    *is* one of them is drawn blue, as borrowed, with an edge from that name; every other one
    was allocated by simple_bind or the executor (orange).  A dashed box is "no array"."""
    legend = ('<<table border="0" cellspacing="4"><tr><td colspan="3">%s</td></tr><tr>'
              '<td bgcolor="%s"> allocated by simple_bind or the executor </td>'
              '<td bgcolor="%s"> borrowed from the caller </td>'
              '<td border="1" style="dashed"> no array </td></tr></table>>' % (title, ALLOCATED, BORROWED))
    caller = caller or {}
    dot = digraph(rankdir='LR', nodesep='0.1', ranksep='0.35', label=legend, labelloc='t',
                  node={'shape': 'box', 'style': 'rounded,filled', 'width': '1.3'})
    columns = [('arg_arrays', exe.arg_dict), ('grad_arrays', exe.grad_dict),
               ('aux_arrays', exe.aux_dict), ('outputs', exe.output_dict)]
    links = []
    with dot.subgraph(name='cluster_exe') as box:
        box.attr(label='Executor', style='rounded', color='#888888')
        for column, table in columns:
            if not table:
                continue
            with box.subgraph(name='cluster_' + column) as sub:
                sub.attr(label=column, style='dashed', color='#bbbbbb')
                for name, arr in table.items():
                    node = column + '__' + name
                    if arr is None:
                        sub.node(node, lines(name, 'none'), style='rounded,dashed', color='#999999',
                                 fontcolor='#777777')
                        continue
                    owners = [pyname for pyname, value in caller.items() if value is arr]
                    sub.node(node, lines(name, '%s, %d B' % (arr.shape, _nbytes(arr))),
                             fillcolor=BORROWED if owners else ALLOCATED)
                    links += [(pyname, node) for pyname in owners]
    # invisible edges line the columns up: an argument's gradient sits right of the argument
    names = list(exe.arg_dict)
    for name in names:
        dot.edge('arg_arrays__' + name, 'grad_arrays__' + name, style='invis')
    for k, name in enumerate(list(exe.aux_dict) + list(exe.output_dict)):
        column = 'aux_arrays' if name in exe.aux_dict else 'outputs'
        dot.edge('grad_arrays__' + names[min(k, len(names) - 1)], column + '__' + name, style='invis')
    with dot.subgraph() as left:
        left.attr(rank='same')
        for pyname, _ in links:
            left.node('py__' + pyname, pyname, shape='plaintext', style='', fontname='Courier')
    for pyname, node in links:
        dot.edge('py__' + pyname, node, color='#3b6aa0')
    return dot


def draw_group(group, name='fc1_weight'):
    """A DataParallelExecutorGroup: the batch and its slices, one box per executor, and one
    parameter's per-device arrays, which *are* the group's ``param_arrays`` and
    ``grad_arrays`` entries (dashed), summed by the KVStore."""
    i = group.param_names.index(name)
    colours = DEVICE_COLOURS[:4]
    dot = digraph(rankdir='LR', nodesep='0.25', ranksep='0.6',
                  node={'shape': 'box', 'style': 'rounded,filled', 'fillcolor': 'white'})
    rows = ''.join('<tr><td port="s%d" bgcolor="%s">samples %d-%d</td></tr>'
                   % (k, colours[k % 4], s.start, s.stop - 1) for k, s in enumerate(group.slices))
    dot.node('batch', '<<table border="0" cellborder="1" cellspacing="0" cellpadding="4">'
                      '<tr><td><b>batch of %d</b></td></tr>%s</table>>' % (group.batch_size, rows),
             shape='plaintext', style='')
    dot.node('params', lines('param_arrays[%d]' % i, '(%s)' % name), style='filled', fillcolor='#eeeeee')
    dot.node('grads', lines('grad_arrays[%d]' % i, '(%s)' % name), style='filled', fillcolor='#eeeeee')
    dot.node('kv', lines('KVStore (Module)', 'sums the %d' % len(group.execs), 'gradients'),
             style='filled', fillcolor='#fff2cc')
    for k, (exe, s) in enumerate(zip(group.execs, group.slices)):
        with dot.subgraph(name='cluster_%d' % k) as box:
            box.attr(label='execs[%d] on %s' % (k, exe.arg_dict['data'].context), style='rounded,filled',
                     fillcolor=colours[k % 4], color='#888888')
            box.node('d%d' % k, lines("arg_dict['data']", exe.arg_dict['data'].shape))
            box.node('w%d' % k, lines("arg_dict['%s']" % name, exe.arg_dict[name].shape))
            box.node('g%d' % k, lines("grad_dict['%s']" % name, exe.grad_dict[name].shape))
        dot.edge('batch:s%d' % k, 'd%d' % k, label='rows %d:%d' % (s.start, s.stop))
        dot.edge('w%d' % k, 'params', dir='back', style='dashed', color='#555555', label='[%d] is' % k)
        dot.edge('g%d' % k, 'grads', dir='back', style='dashed', color='#555555', label='[%d] is' % k)
    # the KVStore sits between the two lists, in their column: the picture stays narrow
    with dot.subgraph() as column:
        column.attr(rank='same')
        for node in ('params', 'kv', 'grads'):
            column.node(node)
    # drawn from the top down (params, kv, grads) and turned round with dir='back'
    dot.edge('params', 'kv', color=GRADIENT_RED, penwidth='1.5', label='pull', dir='back')
    dot.edge('kv', 'grads', color=GRADIENT_RED, penwidth='1.5', label='push', dir='back')
    return dot
