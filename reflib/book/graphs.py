"""Pictures of a symbol's graph: its inferred shapes (chapter 3), an executor's plan
(chapter 5), its operators placed on devices (chapter 6), its dtypes under mixed
precision (chapter 14)."""

import json

from .drawing import DEVICE_COLOURS, GRADIENT_RED, digraph, lines
from ..context import cpu


def _entry_name(node):
    """The name infer_shape gives a node's (first) output."""
    return node['name'] if node['op'] == 'null' else node['name'] + '_output'


def draw_shapes(sym, **given):
    """Every node of ``sym``, and every edge labelled with the full shape inferred from the
    ``given`` input shapes; the given inputs are green, the deduced ones grey."""
    internals = sym.get_internals()
    _, shapes, _ = internals.infer_shape(**given)
    shape_of = dict(zip(internals.list_outputs(), shapes))
    graph = json.loads(sym.tojson())
    nodes = graph['nodes']
    dot = digraph(nodesep='0.2', ranksep='0.45', node={'fontsize': '11'}, edge={'fontname': 'Courier'})
    for i, node in enumerate(nodes):
        if node['op'] == 'null':
            dot.node(str(i), node['name'], shape='oval', style='filled',
                     fillcolor='#8dd3c7' if node['name'] in given else '#e8e8e8')
        else:
            dot.node(str(i), '%s\n(%s)' % (node['name'], node['op']), shape='box', style='rounded,filled',
                     fillcolor='#fdd9a8')
        for src, _, _ in node['inputs']:
            dot.edge(str(src), str(i), label=str(shape_of[_entry_name(nodes[src])]))
    for k, (i, _, _) in enumerate(graph['heads']):
        dot.node('head%d' % k, 'output', shape='plaintext')
        dot.edge(str(i), 'head%d' % k, label=str(shape_of[_entry_name(nodes[i])]))
    return dot


def draw_dtypes(sym, **given):
    """Every node of ``sym`` as its JSON has it *with* mixed precision's casts (``tojson``
    leaves them out by default), each edge labelled with the dtype inference gives it from
    the input dtypes (float32 unless ``given``); the casts are blue, float16 edges bold."""
    internals = sym.get_internals()
    _, types, _ = internals.infer_type(**dict({n: 'float32' for n in sym.list_arguments()}, **given))
    dtype_of = {name: t.__name__ if hasattr(t, '__name__') else str(t)
                for name, t in zip(internals.list_outputs(), types)}
    graph = json.loads(sym.tojson(remove_amp_cast=False))
    nodes = graph['nodes']
    dot = digraph(nodesep='0.2', ranksep='0.4', node={'fontsize': '11'}, edge={'fontname': 'Courier'})
    for i, node in enumerate(nodes):
        if node['op'] == 'null':
            dot.node(str(i), node['name'], shape='oval', style='filled', fillcolor='#e8e8e8')
        elif node['op'].startswith('amp_'):
            dot.node(str(i), '%s\n(%s)' % (node['op'], node['attrs']['dtype']), shape='box',
                     style='rounded,filled', fillcolor='#a6cee3')
        else:
            dot.node(str(i), '%s\n(%s)' % (node['name'], node['op']), shape='box', style='rounded,filled',
                     fillcolor='#fdd9a8')
        for src, _, _ in node['inputs']:
            dtype = dtype_of[_entry_name(nodes[src])]
            dot.edge(str(src), str(i), label=dtype, penwidth='2.2' if dtype == 'float16' else '1')
    return dot


def draw_plan(exe):
    """An executor's plan: slots as boxes (arguments grey, intermediates white, outputs green)
    and steps as ellipses, in the order they run."""
    plan = exe.plan
    internals = exe.symbol.get_internals()
    shapes = dict(zip(internals.list_outputs(),
                      internals.infer_shape(**{n: a.shape for n, a in exe.arg_dict.items()})[1]))
    shapes.update({n: a.shape for n, a in exe.arg_dict.items()})
    dot = digraph(nodesep='0.15', ranksep='0.3')
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
    """A symbol's graph with one box per ``ctx_group`` and the edges that cross devices in red.
    A variable read by one operator only (its weight, its bias) is listed in that operator's
    box instead of drawn, which keeps the picture narrow."""
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
    dot = digraph(nodesep='0.15', ranksep='0.3', fontsize='12',
                  node={'style': 'filled', 'fillcolor': 'white'}, edge={'color': '#888888'})
    for k, g in enumerate(order):
        with dot.subgraph(name='cluster_%d' % k) as box:
            box.attr(label='%s  on  %s' % (g or 'no group', device[g]), style='rounded,filled',
                     fillcolor=DEVICE_COLOURS[k % len(DEVICE_COLOURS)], color='#666666')
            for i, node in enumerate(nodes):
                if groups[i] != g or i in folded:
                    continue
                if node['op'] == 'null':          # data, a label, a shared weight
                    box.node(str(i), node['name'], shape='ellipse', height='0.3')
                else:
                    # one line per folded variable: a long list on one line widens the picture
                    own = [nodes[v]['name'] for v in folded if folded[v] == i]
                    box.node(str(i), lines(node['name'], node['op'], *own, bold_first=True), shape='box')
    for i, node in enumerate(nodes):
        for src, _, _ in node['inputs']:
            if src in folded:
                continue
            if device[groups[src]] != device[groups[i]]:
                dot.edge(str(src), str(i), label='copy', color=GRADIENT_RED, fontcolor=GRADIENT_RED,
                         penwidth='2.2')
            else:
                dot.edge(str(src), str(i))
    return dot
