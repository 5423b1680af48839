"""A picture of a BucketingModule (chapter 14): one executor per bucket, all over one set of
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
    """Every bound bucket of ``module`` (a BucketingModule) and what it shares with the default one."""
    default_key = module.default_bucket_key
    owner_module = module.buckets[default_key]
    owner = owner_module.exec_group.execs[0]
    params = owner_module.exec_group.param_names
    dot = digraph(rankdir='LR', nodesep='0.3', ranksep='0.9',
                  node={'shape': 'box', 'style': 'rounded,filled'})
    rows = [(name, 'x'.join(map(str, owner.arg_dict[name].shape))) for name in params]
    dot.node('params', _table('parameters (one set)', rows, '#eeeeee'), shape='plaintext', style='')
    dot.node('grads', _table('their gradients', [(n,) for n in params], '#f4f4f4'),
             shape='plaintext', style='')
    shared_optimizer = all(m.optimizer is owner_module.optimizer for m in module.buckets.values())
    if owner_module.optimizer_initialized:
        dot.node('opt', '%s optimizer, updater\nand KVStore: one of each' % type(owner_module.optimizer).__name__,
                 fillcolor='#fff2cc')
    pool = owner.memory_pool
    dot.node('pool', 'memory pool\n%d buffers, %s' % (len(pool), _kb(sum(nbytes for _, nbytes in pool))),
             fillcolor='#f8dcc0')
    keys = [key for key, bucket in sorted(module.buckets.items()) if bucket.binded]
    with dot.subgraph() as column:          # the buckets one above the other, smallest first
        column.attr(rank='same')
        for k in range(len(keys) - 1):
            column.edge('b%d' % k, 'b%d' % (k + 1), style='invis')
    for k, key in enumerate(keys):
        bucket = module.buckets[key]
        exe = bucket.exec_group.execs[0]
        report = exe.memory_report()
        data_shape = exe.arg_dict[bucket.data_names[0]].shape
        name = 'b%d' % k
        label = 'bucket %s%s\nExecutor: %d steps\ndata %s' % (
            key, ' (default)' if key == default_key else '', len(exe.plan.steps), data_shape)
        dot.node(name, label, fillcolor=DEVICE_COLOURS[k % len(DEVICE_COLOURS)])
        if key == default_key:
            args_label = grads_label = 'its own %d arrays' % len(params)
        else:
            args_label = 'the same %d arrays' % _same_arrays(exe, owner, 'arg_dict', params)
            grads_label = 'the same %d arrays' % _same_arrays(exe, owner, 'grad_dict', params)
        dot.edge(name, 'params', label=args_label, color=WEIGHT_BLUE)
        dot.edge(name, 'grads', label=grads_label, color=GRADIENT_RED)
        own = report['planned'] - report['borrowed']
        if not report['borrowed']:
            pool_label = 'allocates %s' % _kb(own)
        elif own:
            pool_label = 'borrows %s, allocates %s' % (_kb(report['borrowed']), _kb(own))
        else:
            pool_label = 'borrows all %s' % _kb(report['borrowed'])
        dot.edge(name, 'pool', label=pool_label, style='dashed', color='#888888')
        if owner_module.optimizer_initialized and shared_optimizer:
            dot.edge(name, 'opt', label='borrow_optimizer' if key != default_key else 'init_optimizer',
                     color='#b58900')
    return dot
