"""A picture of a BucketingModule (chapter 15): one executor per bucket, all over one set of
parameters, gradients, optimizer and memory pool.

Everything drawn is read from the live module: an edge says "the same arrays" only when the
bucket's executor holds the very NDArray objects the default bucket's executor holds, and the
memory figures come from each executor's ``memory_report()``.
"""

from .drawing import DEVICE_COLOURS, GRADIENT_RED, WEIGHT_BLUE, digraph


def _kb(nbytes):
    return '%.1f KB' % (nbytes / 1024)


def _table(title, rows, colour):
    """An HTML-like graphviz table: a title row over rows of one or more cells."""
    width = max(len(row) for row in rows)
    cells = ''.join('<tr>%s</tr>' % ''.join('<td align="left">%s</td>' % c for c in row) for row in rows)
    return ('<<table border="0" cellborder="1" cellspacing="0" cellpadding="3" bgcolor="%s">'
            '<tr><td colspan="%d"><b>%s</b></td></tr>%s</table>>' % (colour, width, title, cells))


def _same_arrays(exe, owner, table, names):
    """How many of ``owner``'s arrays ``names`` in ``table`` ('arg_dict' or 'grad_dict')
    ``exe`` holds itself (the very objects, not copies)."""
    mine, theirs = getattr(exe, table), getattr(owner, table)
    return sum(1 for name in names if mine.get(name) is not None and mine[name] is theirs[name])


def draw_buckets(module):
    """Every bound bucket of ``module`` (a BucketingModule) and what it shares with the default one.

    Each bucket's box says, one line per shared object, what its executor does with it;
    the arrow to that object leaves from that line and has its colour, so no arrow needs
    a label of its own."""
    default_key = module.default_bucket_key
    owner_module = module.buckets[default_key]
    owner = owner_module.exec_group.execs[0]
    params = owner_module.exec_group.param_names
    dot = digraph(rankdir='LR', nodesep='0.25', ranksep='0.7',
                  node={'shape': 'box', 'style': 'rounded,filled'}, edge={'penwidth': '1.3'})
    rows = [(name, 'x'.join(map(str, owner.arg_dict[name].shape))) for name in params]
    dot.node('params', _table('parameters (one set)', rows, '#eeeeee'), shape='plaintext', style='')
    dot.node('grads', _table('their gradients', [(n,) for n in params], '#f4f4f4'),
             shape='plaintext', style='')
    shared_optimizer = all(m.optimizer is owner_module.optimizer for m in module.buckets.values())
    with_optimizer = owner_module.optimizer_initialized and shared_optimizer
    if owner_module.optimizer_initialized:
        dot.node('opt', '%s optimizer,\nupdater and KVStore:\none of each' % type(owner_module.optimizer).__name__,
                 fillcolor='#fff2cc')
    pool = owner.memory_pool
    dot.node('pool', 'memory pool\n%d buffers\n%s' % (len(pool), _kb(sum(nbytes for _, nbytes in pool))),
             fillcolor='#f8dcc0')
    keys = [key for key, bucket in sorted(module.buckets.items()) if bucket.binded]
    with dot.subgraph() as column:          # the buckets one above the other, smallest first
        column.attr(rank='same')
        for k in range(len(keys) - 1):
            column.edge('b%d' % k, 'b%d' % (k + 1), style='invis')
    with dot.subgraph() as column:          # what they share, in the order of their lines
        column.attr(rank='same')
        targets = ['params', 'grads', 'pool'] + (['opt'] if owner_module.optimizer_initialized else [])
        for a, b in zip(targets, targets[1:]):
            column.edge(a, b, style='invis')
    ink = {'params': WEIGHT_BLUE, 'grads': GRADIENT_RED, 'pool': '#777777', 'opt': '#b58900'}
    for k, key in enumerate(keys):
        bucket = module.buckets[key]
        exe = bucket.exec_group.execs[0]
        report = exe.memory_report()
        data_shape = exe.arg_dict[bucket.data_names[0]].shape
        name = 'b%d' % k
        if key == default_key:
            args_says = grads_says = 'its own %d' % len(params)
        else:
            args_says = 'the same %d' % _same_arrays(exe, owner, 'arg_dict', params)
            grads_says = 'the same %d' % _same_arrays(exe, owner, 'grad_dict', params)
        own = report['planned'] - report['borrowed']
        if not report['borrowed']:
            pool_says = 'allocates %s' % _kb(own)
        elif own:
            pool_says = 'borrows %s,<br align="left"/>allocates %s' % (_kb(report['borrowed']), _kb(own))
        else:
            pool_says = 'borrows all %s' % _kb(report['borrowed'])
        lines = [('params', 'parameters: %s' % args_says), ('grads', 'gradients: %s' % grads_says),
                 ('pool', 'memory: %s' % pool_says)]
        if with_optimizer:
            lines.append(('opt', 'init_optimizer' if key == default_key else 'borrow_optimizer'))
        cells = ''.join('<tr><td align="left" port="%s"><font color="%s">%s</font></td></tr>'
                        % (target, ink[target], text) for target, text in lines)
        title = 'bucket %s%s' % (key, ' (default)' if key == default_key else '')
        label = ('<<table border="0" cellspacing="0" cellpadding="1"><tr><td><b>%s</b></td></tr>'
                 '<tr><td>Executor: %d steps</td></tr><tr><td>data %s</td></tr>%s</table>>'
                 % (title, len(exe.plan.steps), data_shape, cells))
        dot.node(name, label, fillcolor=DEVICE_COLOURS[k % len(DEVICE_COLOURS)])
        for target, _ in lines:
            dot.edge('%s:%s:e' % (name, target), target, color=ink[target],
                     style='dashed' if target == 'pool' else 'solid')
    return dot
