"""Helpers the book's chapters share: source excerpts, the memory timeline, a grouped profile.

The chapters import them (``from reflib import book``) instead of defining them again, as
d2l does with its package.  Nothing in reflib itself uses this module.
"""

import contextlib
import cProfile
import inspect
import os
import pstats
import textwrap
import time

__all__ = ['excerpt', 'source_lines', 'working_directory', 'svg', 'draw_plan', 'draw_placement', 'draw_group', 'memory_table', 'draw_memory_timeline', 'profile_by_operator']


@contextlib.contextmanager
def working_directory(path):
    """Run a with-block in ``path`` and come back (``contextlib.chdir`` needs Python 3.11)."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield path
    finally:
        os.chdir(before)


def excerpt(obj, first=None, last=None, after=0):
    """Print reflib's own source of ``obj``, from the line containing ``first`` (default: the
    first line) to the next line containing ``last`` (default: the last line), and ``after``
    lines more."""
    lines = inspect.getsource(obj).splitlines()
    start = 0 if first is None else next(i for i, line in enumerate(lines) if first in line)
    stop = len(lines) - 1 if last is None else next(i for i in range(start, len(lines)) if last in lines[i])
    print(textwrap.dedent('\n'.join(lines[start:stop + after + 1])))


def source_lines(obj, *prefixes):
    """Print only the lines of ``obj``'s source that start with one of ``prefixes``."""
    lines = [line for line in inspect.getsource(obj).splitlines() if line.strip().startswith(prefixes)]
    print(textwrap.dedent('\n'.join(lines)))


def svg(digraph):
    """A graphviz.Digraph as an SVG picture for the page (the picture, not the object's repr);
    ``quiet`` keeps dot's layout remarks off the page."""
    from IPython.display import SVG
    return SVG(digraph.pipe(format='svg', encoding='utf-8', quiet=True))


def _entries_in_time_order(exe):
    return sorted(exe._mem.entries.values(), key=lambda e: (e.start, e.key[0] == 'grad', e.end))


def memory_table(exe, limit=None):
    """One line per planned value of ``exe``: when it lives, its size, its block."""
    rows = ['%-28s %5s %5s %10s  %s' % ('value', 'from', 'to', 'bytes', 'block')]
    for e in _entries_in_time_order(exe)[:limit]:
        how = {'inplace': ' (in place)', 'identity': ' (same values)'}.get(e.shares, '')
        rows.append('%-28s %5d %5d %10d  %d%s' % (e.name, e.start, e.end, e.nbytes, e.block.index, how))
    print('\n'.join(rows))


def _time_label(exe, t):
    steps = exe._plan.steps
    n = len(steps)
    if t < n:
        return steps[t].node.name
    if t < 2 * n:
        return steps[2 * n - 1 - t].node.name + "'"
    return 'end'


def draw_memory_timeline(exe, ax=None, title=None):
    """Every planned value as a bar from the step that writes it to the last that reads it;
    values that share a block of memory share a colour (forward steps, then backward ones,
    marked with a prime)."""
    import matplotlib.pyplot as plt
    entries = _entries_in_time_order(exe)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.28 * len(entries) + 1.2))
    colours = plt.get_cmap('tab10')
    for row, e in enumerate(entries):
        ax.barh(row, e.end - e.start + 0.8, left=e.start - 0.4, height=0.7,
                color=colours(e.block.index % 10), edgecolor='black', linewidth=0.4)
        ax.text(e.end + 0.5, row, '%s  %d KB' % (e.name, round(e.nbytes / 1024)), va='center', fontsize=7)
    times = sorted({t for e in entries for t in (e.start, e.end)})
    last = max(times)
    ax.set_xticks(range(last + 1))
    ax.set_xticklabels([_time_label(exe, t) for t in range(last + 1)], rotation=90, fontsize=7)
    ax.set_yticks([])
    ax.set_ylim(len(entries) - 0.4, -0.6)
    ax.set_xlim(-0.6, last + 6)
    n = len(exe._plan.steps)
    if exe._mem.training:
        ax.axvline(n - 0.5, color='grey', linestyle=':', linewidth=1)
    ax.set_title(title or 'values over time; one colour per block of memory', fontsize=9)
    for side in ('top', 'right', 'left'):
        ax.spines[side].set_visible(False)
    return ax


def profile_by_operator(run, repeat=1):
    """Inclusive CPU seconds of each operator's forward and backward while ``run()`` runs,
    plus what the executor adds around them: a dict, largest first."""
    from .operator.registry import canonical_operators
    # CPU time of this process, not wall time: a moment the process waits for a core (another
    # program, a busy test run) is then not charged to whichever operator was running
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(repeat):
        run()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    ops = {}
    for op in canonical_operators():
        for kind in ('forward', 'backward'):
            method = getattr(type(op), kind)
            code = method.__code__
            ops[(code.co_filename, code.co_firstlineno, code.co_name)] = method.__qualname__
    times = {}
    total_ops = 0.0
    executor = {}
    for (filename, line, name), (_, _, _, cumulative, _) in stats.items():
        label = ops.get((filename, line, name))
        if label is not None:
            times[label] = times.get(label, 0.0) + cumulative
            total_ops += cumulative
        elif filename.endswith('executor.py') and name in ('forward', 'backward'):
            executor[name] = executor.get(name, 0.0) + cumulative
    around = sum(executor.values()) - total_ops
    if around > 0:
        times['executor around the operators'] = around
    return dict(sorted(times.items(), key=lambda kv: -kv[1]))


# ----------------------------------------------------------------------------- pictures of reflib's structures

_GROUP_COLOURS = ['#cfe2f3', '#fce5cd', '#d9ead3', '#ead1dc', '#fff2cc']


def draw_plan(exe):
    """An executor's plan (chapter 5): slots as boxes (arguments grey, intermediates white,
    outputs green) and steps as ellipses, in the order they run."""
    import graphviz
    plan = exe._plan
    internals = exe.symbol.get_internals()
    shapes = dict(zip(internals.list_outputs(),
                      internals.infer_shape(**{n: a.shape for n, a in exe.arg_dict.items()})[1]))
    shapes.update({n: a.shape for n, a in exe.arg_dict.items()})
    dot = graphviz.Digraph(graph_attr={'rankdir': 'TB', 'nodesep': '0.15', 'ranksep': '0.3'},
                           node_attr={'fontname': 'Helvetica', 'fontsize': '10'})
    for slot, name in enumerate(plan.slot_name):
        colour = ('#dddddd' if slot in plan.var_slot.values()
                  else '#c9ecc9' if slot in plan.head_slots else 'white')
        dot.node('s%d' % slot, 'slot %d: %s\n%s' % (slot, name, shapes.get(name, '')),
                 shape='box', style='filled', fillcolor=colour)
    for k, step in enumerate(plan.steps):
        dot.node('t%d' % k, 'step %d\n%s' % (k, step.op.name), shape='ellipse', style='filled',
                 fillcolor='#dbe7f6')
        for slot in step.in_slots:
            dot.edge('s%d' % slot, 't%d' % k)
        for slot in step.out_slots:
            dot.edge('t%d' % k, 's%d' % slot)
    return dot


def draw_placement(symbol, group2ctx, default_ctx=None):
    """A symbol's graph with one box per ``ctx_group`` and the edges that cross devices in red
    (chapter 6).  A variable read by one operator only (its weight, its bias) is listed in that
    operator's box instead of drawn, which keeps the picture narrow."""
    import json
    import graphviz
    from .context import cpu
    default_ctx = cpu(0) if default_ctx is None else default_ctx
    nodes = json.loads(symbol.tojson())['nodes']
    readers = {}
    for i, node in enumerate(nodes):
        for src, _, _ in node['inputs']:
            readers.setdefault(src, []).append(i)
    folded = {i: readers[i][0] for i, node in enumerate(nodes)
              if node['op'] == 'null' and len(readers.get(i, [])) == 1
              and node['name'] != 'data' and not node['name'].endswith('label')}
    groups = [node.get('attrs', {}).get('__ctx_group__') for node in nodes]
    order = list(dict.fromkeys(groups))           # groups in graph order, no repeats
    device = {g: default_ctx if g is None else group2ctx[g] for g in order}
    font = {'fontname': 'Helvetica', 'fontsize': '10'}
    dot = graphviz.Digraph(
        graph_attr={'rankdir': 'TB', 'nodesep': '0.15', 'ranksep': '0.3', 'fontname': 'Helvetica',
                    'fontsize': '12'},
        node_attr=dict(font, style='filled', fillcolor='white'),
        edge_attr=dict(font, color='#888888', arrowsize='0.6'))
    for k, g in enumerate(order):
        with dot.subgraph(name='cluster_%d' % k) as box:
            box.attr(label='%s  on  %s' % (g or 'no group', device[g]), style='rounded,filled',
                     fillcolor=_GROUP_COLOURS[k % len(_GROUP_COLOURS)], color='#666666')
            for i, node in enumerate(nodes):
                if groups[i] != g or i in folded:
                    continue
                if node['op'] == 'null':          # data, a label, a shared weight
                    box.node(str(i), node['name'], shape='ellipse', fontsize='9', height='0.3')
                else:
                    own = [nodes[v]['name'] for v in folded if folded[v] == i]
                    label = '%s\n%s' % (node['name'], node['op'])
                    if own:
                        label += '\n' + ', '.join(own)
                    box.node(str(i), label, shape='box')
    for i, node in enumerate(nodes):
        for src, _, _ in node['inputs']:
            if src in folded:
                continue
            if device[groups[src]] != device[groups[i]]:
                dot.edge(str(src), str(i), label='copy', color='#cc0000', fontcolor='#cc0000',
                         penwidth='2.2')
            else:
                dot.edge(str(src), str(i))
    return dot


def draw_group(group, name='fc1_weight'):
    """A DataParallelExecutorGroup (chapter 7): the batch and its slices, one box per executor,
    and one parameter's per-device arrays, which *are* the group's ``param_arrays`` and
    ``grad_arrays`` entries (dashed), summed by the KVStore."""
    import graphviz
    i = group.param_names.index(name)
    font = {'fontname': 'Helvetica', 'fontsize': '10'}
    colours = _GROUP_COLOURS[:4]
    dot = graphviz.Digraph(
        graph_attr=dict(font, rankdir='LR', nodesep='0.25', ranksep='0.6'),
        node_attr=dict(font, shape='box', style='rounded,filled', fillcolor='white'),
        edge_attr=dict(font, arrowsize='0.6'))
    rows = ''.join('<tr><td port="s%d" bgcolor="%s">samples %d-%d</td></tr>'
                   % (k, colours[k % 4], s.start, s.stop - 1) for k, s in enumerate(group.slices))
    dot.node('batch', '<<table border="0" cellborder="1" cellspacing="0" cellpadding="4">'
                      '<tr><td><b>batch of %d</b></td></tr>%s</table>>' % (group.batch_size, rows),
             shape='plaintext', style='')
    dot.node('params', 'param_arrays[%d]\n(%s)' % (i, name), style='filled', fillcolor='#eeeeee')
    dot.node('grads', 'grad_arrays[%d]\n(%s)' % (i, name), style='filled', fillcolor='#eeeeee')
    dot.node('kv', 'KVStore (Module)\nsums the %d gradients' % len(group.execs), style='filled',
             fillcolor='#fff2cc')
    for k, (exe, s) in enumerate(zip(group.execs, group.slices)):
        with dot.subgraph(name='cluster_%d' % k) as box:
            box.attr(label='execs[%d] on %s' % (k, exe.arg_dict['data'].context), style='rounded,filled',
                     fillcolor=colours[k % 4], color='#888888')
            box.node('d%d' % k, "arg_dict['data']\n%s" % (exe.arg_dict['data'].shape,))
            box.node('w%d' % k, "arg_dict['%s']\n%s" % (name, exe.arg_dict[name].shape))
            box.node('g%d' % k, "grad_dict['%s']\n%s" % (name, exe.grad_dict[name].shape))
        dot.edge('batch:s%d' % k, 'd%d' % k, label='copy rows %d:%d' % (s.start, s.stop))
        dot.edge('w%d' % k, 'params', dir='back', style='dashed', color='#555555', label='[%d] is' % k)
        dot.edge('g%d' % k, 'grads', dir='back', style='dashed', color='#555555', label='[%d] is' % k)
    dot.edge('grads', 'kv', color='#cc0000', penwidth='1.5', label='push')
    dot.edge('kv', 'params', color='#cc0000', penwidth='1.5', label='pull', constraint='false')
    return dot
