"""Looking at an executor's memory plan and at where its time goes, from the profiler's
trace (chapter 14)."""


def _entries_in_time_order(exe):
    return sorted(exe.memory_plan.entries.values(), key=lambda e: (e.start, e.key[0] == 'grad', e.end))


def memory_table(exe, limit=None):
    """One line per planned value of ``exe``: when it lives, its size, its block."""
    rows = ['%-28s %5s %5s %10s  %s' % ('value', 'from', 'to', 'bytes', 'block')]
    for e in _entries_in_time_order(exe)[:limit]:
        how = {'inplace': ' (in place)', 'identity': ' (same values)'}.get(e.shares, '')
        rows.append('%-28s %5d %5d %10d  %d%s' % (e.name, e.start, e.end, e.nbytes, e.block.index, how))
    print('\n'.join(rows))


def _time_label(exe, t):
    steps = exe.plan.steps
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
    import matplotlib.pyplot as plt  # on first plot: importing reflib.book stays cheap
    entries = _entries_in_time_order(exe)
    if ax is None:
        # narrow and tall, with 9-point text: shrunk to a phone's width, it stays legible
        _, ax = plt.subplots(figsize=(4.6, 0.32 * len(entries) + 1.5))
    colours = plt.get_cmap('tab10')
    for row, e in enumerate(entries):
        ax.barh(row, e.end - e.start + 0.8, left=e.start - 0.4, height=0.7,
                color=colours(e.block.index % 10), edgecolor='black', linewidth=0.4)
        ax.text(e.end + 0.5, row, '%s  %d KB' % (e.name, round(e.nbytes / 1024)), va='center', fontsize=9)
    times = sorted({t for e in entries for t in (e.start, e.end)})
    last = max(times)
    ax.set_xticks(range(last + 1))
    ax.set_xticklabels([_time_label(exe, t) for t in range(last + 1)], rotation=90, fontsize=9)
    ax.set_yticks([])
    ax.set_ylim(len(entries) - 0.4, -0.6)
    ax.set_xlim(-0.6, last + 6)
    n = len(exe.plan.steps)
    if exe.memory_plan.training:
        ax.axvline(n - 0.5, color='grey', linestyle=':', linewidth=1)
    ax.set_title(title or 'values over time; one colour per block of memory', fontsize=10)
    for side in ('top', 'right', 'left'):
        ax.spines[side].set_visible(False)
    return ax


def trace_spans(trace, categories=('operator', 'MXNET_C_API')):
    """The spans of a profiler trace (``mx.profiler.dump``'s JSON, loaded): ``(category,
    name, begin_ms, end_ms)`` for each begin/end pair of the given categories, in time order."""
    open_at, spans = {}, []
    for e in trace['traceEvents']:
        if e.get('cat') not in categories or e['ph'] not in 'BE':
            continue
        key = (e['cat'], e['name'], e['pid'], e['tid'])
        if e['ph'] == 'B':
            open_at.setdefault(key, []).append(e['ts'])
        else:
            spans.append((e['cat'], e['name'], open_at[key].pop() / 1000.0, e['ts'] / 1000.0))
    return sorted(spans, key=lambda s: s[2])


def last_step(spans):
    """The spans of the last training step: from the last executor forward's start to the end
    of the backward after it, times from that start."""
    start = max(b for cat, name, b, _ in spans if name == 'MXExecutorForward')
    end = max(e for cat, name, _, e in spans if name == 'MXExecutorBackwardEx')
    return [(cat, name, b - start, e - start) for cat, name, b, e in spans if start <= b and e <= end]


def draw_step_timeline(spans, ax=None):
    """One training step as the profiler saw it: the executor's forward and backward on the
    top row, below them one row per operator (in the order they first ran), each bar a run."""
    import matplotlib.pyplot as plt  # on first plot: importing reflib.book stays cheap
    rows = []
    for cat, name, _, _ in spans:
        if cat == 'operator' and name not in rows:
            rows.append(name)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.2, 0.3 * len(rows) + 1.3))
    api = {'MXExecutorForward': ('forward', '#4c72b0'), 'MXExecutorBackwardEx': ('backward', '#dd8452')}
    for cat, name, b, e in spans:
        if name in api:
            label, colour = api[name]
            ax.barh(0, e - b, left=b, height=0.7, color=colour, alpha=0.35)
            ax.text(b + (e - b) / 2, 0, label, ha='center', va='center', fontsize=9)
        elif cat == 'operator':
            colour = '#dd8452' if name.startswith('_backward_') else '#4c72b0'
            ax.barh(1 + rows.index(name), max(e - b, 0.01), left=b, height=0.7, color=colour)
    ax.set_yticks(range(len(rows) + 1))
    ax.set_yticklabels(['executor'] + rows, fontsize=9)
    ax.set_ylim(len(rows) + 0.6, -0.6)
    ax.set_xlabel('ms from the start of the step', fontsize=9)
    ax.tick_params(axis='x', labelsize=9)
    for side in ('top', 'right'):
        ax.spines[side].set_visible(False)
    return ax


def step_costs(spans):
    """What each operator costs a training step, from a trace's spans (``trace_spans``) of
    several identical steps: every run of the plan's k-th operator is the same work, so its
    fastest run over the steps is its cost when nothing interrupts it (another program on a
    shared machine only stretches runs).  A dict from operator name to milliseconds per step,
    summed over the nodes of that operator."""
    steps = [[]]
    for cat, name, begin, end in spans:
        if name == 'MXExecutorForward' and steps[-1]:
            steps.append([])
        if cat == 'operator':
            steps[-1].append((name, end - begin))
    if len({tuple(n for n, _ in step) for step in steps}) != 1:
        raise ValueError('step_costs: the steps of the trace did not run the same operators')
    costs = {}
    for position in zip(*steps):
        name = position[0][0]
        costs[name] = costs.get(name, 0.0) + min(ms for _, ms in position)
    return costs


def executor_share(spans):
    """The share of a training step the executor spends around its operators (looking up
    arrays, summing gradients): per step, its forward and backward time less the operators'
    time inside them, over its forward and backward time; the smallest over the steps of the
    trace (a program that takes the core away stretches whatever runs, operators included)."""
    steps = []                      # [executor ms, operators' ms] of each step
    for cat, name, begin, end in spans:
        if name == 'MXExecutorForward':
            steps.append([0.0, 0.0])
        if name in ('MXExecutorForward', 'MXExecutorBackwardEx'):
            steps[-1][0] += end - begin
        elif cat == 'operator':
            steps[-1][1] += end - begin
    return min((executor - inside) / executor for executor, inside in steps)


def operator_table(table, costs, steps):
    """The ``operator`` rows of ``mx.profiler.dumps(format='json')`` (loaded), in a table that
    fits a page: runs per step, the average run, the cost per step (``step_costs``) and its
    share of the step.  (``mx.profiler.dumps()`` prints MXNet's own table: wider, by total.)"""
    rows = table['Time']['operator']
    step_ms = sum(costs.values())
    lines = ['%-24s %4s %10s %11s  %s' % ('operator', 'runs', 'average', 'a step', 'share of a step')]
    # by operator, each forward above its backward: an order timings cannot change
    for name, r in sorted(rows.items(), key=lambda kv: (kv[0].replace('_backward_', ''), kv[0])):
        lines.append('%-24s %4d %7.3f ms %8.3f ms  %4.1f%% of time' % (name[:24], r['Count'] // steps, r['Avg'],
                                                                       costs[name], 100.0 * costs[name] / step_ms))
    print('\n'.join(lines))
