"""Looking at an executor's memory plan and at where its time goes (chapter 13)."""

import cProfile
import pstats
import time
from ..operator.registry import canonical_operators


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
    n = len(exe.plan.steps)
    if exe.memory_plan.training:
        ax.axvline(n - 0.5, color='grey', linestyle=':', linewidth=1)
    ax.set_title(title or 'values over time; one colour per block of memory', fontsize=9)
    for side in ('top', 'right', 'left'):
        ax.spines[side].set_visible(False)
    return ax


def profile_by_operator(run, repeat=1):
    """Inclusive CPU seconds of each operator's forward and backward while ``run()`` runs,
    plus what the executor adds around them: a dict, largest first."""
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
