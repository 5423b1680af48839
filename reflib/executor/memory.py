"""The memory plan: which buffer each value of forward and backward lives in.

Binding knows every shape, so it can decide all memory once, as MXNet's graph
executor does (its ``PlanMemory`` pass).  The values are the *entries*:

* ``('out', s)``: slot ``s``, an output of a forward step;
* ``('grad', s)``: the gradient of slot ``s``, summed during backward.

Time runs over forward (step k at time k) and then, for an executor that
computes gradients, over backward (step k's backward at time 2n-1-k).  An entry
lives from the step that first writes it to the last step that reads it:

* a forward output until its last reader in forward and, if the producer's or a
  reader's backward needs it (``Operator.backward_reads``), until that backward;
* a gradient from its first contribution to the backward of the step that made
  the value (which consumes it).

Walking the timeline, each new entry takes a free block of memory (the smallest
that is big enough, or the largest smaller one, grown, within a factor of 16 in
size, as MXNet does), or *shares* the block of an input entry: in place, when
the operator allows it and the input dies at this very step (an activation over
a convolution's output), or as an identity (a reshape's output *is* its input's
memory).  Entries whose lifetimes do not overlap may share a block; entries
alive at the same time never do, unless one is an identity of the other.

Arguments, their gradients and auxiliary states are the caller's arrays; graph
outputs live in the executor's output arrays.  Neither is planned here.
``REFLIB_SHARE_MEMORY=0`` gives every entry its own block, and
``MXNET_EXEC_ENABLE_INPLACE=0`` turns in-place off: the results do not change.
"""

import os

import numpy as np

from ..base import BindError
from ..shapes import prod

__all__ = ['Entry', 'Block', 'MemoryPlan', 'Timeline', 'plan_memory', 'check_fits', 'available_bytes']

# MXNet's NNVM_EXEC_MATCH_RANGE: a free block is reused only within this factor of the size
MATCH_RANGE = 16


class Entry:
    """One value of forward or backward that the plan gives memory to."""
    __slots__ = ('key', 'name', 'shape', 'dtype', 'nbytes', 'ctx', 'start', 'end', 'block', 'shares')

    def __init__(self, key, name, shape, dtype, ctx, start):
        self.key, self.name, self.shape, self.dtype, self.ctx = key, name, shape, np.dtype(dtype), ctx
        self.nbytes = prod(shape) * self.dtype.itemsize
        self.start = self.end = start
        self.block = None
        self.shares = None       # 'inplace' or 'identity': how it came to share its input's block

    def __repr__(self):
        return '<Entry %s %s [%d, %d]>' % (self.name, self.shape, self.start, self.end)


class Block:
    """One piece of memory, allocated once at bind, used by entries one after another."""
    __slots__ = ('index', 'ctx', 'nbytes', 'entries', 'live')

    def __init__(self, index, ctx, nbytes):
        self.index, self.ctx, self.nbytes = index, ctx, nbytes
        self.entries = []    # every entry that ever lives in it, in the order they came
        self.live = set()    # keys of the entries alive now (during planning)


class MemoryPlan:
    """The result: entries (each knows its block and how it came to share it) and blocks."""

    def __init__(self, entries, blocks, training, forward_steps):
        self.entries = entries      # key -> Entry
        self.blocks = blocks
        self.training = training
        # a second backward after one forward reads the forward values again: it may, unless
        # a gradient took over the memory of a value that backward reads
        self.backward_repeatable = not any(
            any(e.key[0] == 'out' and e.end >= forward_steps for e in b.entries)
            and any(e.key[0] == 'grad' for e in b.entries) for b in blocks)

    @property
    def total_bytes(self):
        """The bytes of all the blocks together: the memory the plan allocates."""
        return sum(b.nbytes for b in self.blocks)

    def count(self, shares):
        """How many values share an input's block this way: 'inplace' or 'identity'."""
        return sum(1 for e in self.entries.values() if e.shares == shares)

    @property
    def unshared_bytes(self):
        """What the entries would take with a block each."""
        return sum(e.nbytes for e in self.entries.values())

    def overlapping_pairs(self):
        """Pairs of entries alive at once in one block, other than identities and in-place
        hand-overs: none, if the plan is right (the tests check it)."""
        bad = []
        for block in self.blocks:
            for i, a in enumerate(block.entries):
                for b in block.entries[i + 1:]:
                    if _related(a, b):
                        continue
                    if a.start <= b.end and b.start <= a.end:
                        bad.append((a, b))
        return bad


def _related(a, b):
    """b took over a's block in place at the step where a dies, or one is an identity view."""
    if b.shares == 'identity' or a.shares == 'identity':
        return True
    return b.shares == 'inplace' and b.start == a.end


class Timeline:
    """The moments of one forward and backward over ``num_steps`` steps.

    Forward step k runs at time k; the backward of step k at time 2n-1-k (backward walks
    the steps in reverse); ``end`` (2n) is after the last backward, when gradients of the
    arguments are handed over."""

    def __init__(self, num_steps):
        self.num_steps = num_steps
        self.end = 2 * num_steps

    def forward(self, k):
        """The time at which forward step ``k`` runs: ``k``."""
        return k

    def backward(self, k):
        """The time at which the backward of step ``k`` runs: ``2 * num_steps - 1 - k``."""
        return 2 * self.num_steps - 1 - k

    def is_forward(self, t):
        """Whether time ``t`` falls in the forward pass."""
        return t < self.num_steps

    def is_backward(self, t):
        """Whether time ``t`` falls in the backward pass (before ``end``)."""
        return self.num_steps <= t < self.end

    def backward_step(self, t):
        """The step whose backward runs at time ``t``."""
        return 2 * self.num_steps - 1 - t


def _flag(name, default='1'):
    return os.environ.get(name, default).strip().lower() not in ('0', 'false')


def plan_memory(plan, slot_shape, slot_dtype, training, var_grads):
    """Plan the memory of ``plan``'s entries: their lifetimes, then a block for each.

    slot_shape, slot_dtype: per slot.  training: plan backward too.  var_grads: for each
    variable slot whose gradient backward sums in a planned entry (``grad_req='add'``, or a
    gradient array elsewhere), True; variables absent from it get their gradient written
    straight into the caller's array.
    """
    share = _flag('REFLIB_SHARE_MEMORY')
    allow_inplace = share and _flag('MXNET_EXEC_ENABLE_INPLACE')
    timeline = Timeline(len(plan.steps))
    entries = _forward_values(plan, slot_shape, slot_dtype, timeline, training)
    if training:
        _gradients(plan, slot_shape, slot_dtype, timeline, var_grads, entries)
    callers = set(plan.var_slot.values()) | set(plan.head_slots)   # values in the caller's arrays
    blocks = _BlockWalk(entries, share).run(
        timeline, lambda e, t: _inplace_sources(plan, timeline, callers, e, t) if allow_inplace else None)
    return MemoryPlan(entries, blocks, training, timeline.num_steps)


def _forward_values(plan, slot_shape, slot_dtype, timeline, training):
    """An entry for every planned forward output, alive from its step to its last reader:
    in forward, and (training) in the backward of any step that reads it there."""
    heads = set(plan.head_slots)
    entries = {}
    for k, step in enumerate(plan.steps):
        for s in step.out_slots:
            if s not in heads and slot_shape.get(s):
                entries[('out', s)] = Entry(('out', s), plan.slot_name[s], slot_shape[s],
                                            slot_dtype[s], plan.slot_ctx[s], timeline.forward(k))
        for s in step.in_slots:
            e = entries.get(('out', s))
            if e is not None:
                e.end = max(e.end, timeline.forward(k))
    if training:
        for k, step in enumerate(plan.steps):
            if not step.needs_grad:
                continue
            read = [step.in_slots[i] for i in step.bwd_ins] + [step.out_slots[j] for j in step.bwd_outs]
            for s in read:
                e = entries.get(('out', s))
                if e is not None:
                    e.end = max(e.end, timeline.backward(k))
    return entries


def _gradients(plan, slot_shape, slot_dtype, timeline, var_grads, entries):
    """Add an entry for every gradient backward sums: alive from its first contribution to
    the backward of the step that produced the value (an argument's: to the end)."""
    steps = plan.steps
    variables = set(plan.var_slot.values())
    producer = {s: k for k, step in enumerate(steps) for s in step.out_slots}

    def grad_entry(s, t):
        key = ('grad', s)
        e = entries.get(key)
        if e is None:
            e = entries[key] = Entry(key, 'grad of ' + plan.slot_name[s], slot_shape[s], slot_dtype[s],
                                     plan.slot_ctx[s], t)
            e.end = timeline.end if s in variables else timeline.backward(producer[s])
        e.start = min(e.start, t)

    def planned(s):
        """Does the gradient of slot ``s`` get an entry (not the caller's array, not a loss's)?"""
        if s in variables:
            return s in var_grads
        step = steps[producer[s]]
        return not step.op.loss_head(step.params) and step.out_slots.index(s) < step.nvis and slot_shape.get(s)

    for s in plan.head_slots:
        if plan.carries[s] and planned(s):
            grad_entry(s, timeline.num_steps)          # given before the first backward step
    for k in reversed(range(len(steps))):
        step = steps[k]
        if not step.needs_grad:
            continue
        if not step.op.loss_head(step.params):     # a visible output that gets no gradient is given zeros
            for s in step.out_slots[:step.nvis]:
                if slot_shape.get(s):
                    grad_entry(s, timeline.backward(k))
        for _, s, _ in step.grad_to:
            if planned(s):
                grad_entry(s, timeline.backward(k))


def _inplace_sources(plan, timeline, callers, e, t):
    """``(source entry keys, identity)`` whose block entry ``e``, starting at ``t``, may take
    over, as its operator allows (``Operator.inplace`` forward, ``backward_inplace`` for
    gradients); None where it may take none.  ``callers``: the slots of the arguments and
    the graph's outputs, whose gradients never share."""
    kind, slot = e.key
    if kind == 'out' and timeline.is_forward(t):
        step = plan.steps[t]
        j = step.out_slots.index(slot)
        pairs = [(i, ('out', step.in_slots[i])) for i, o in step.op.inplace(step.params) if o == j]
    elif kind == 'grad' and timeline.is_backward(t) and slot not in callers:
        # (an argument's gradient is the caller's; a head's is copied in before backward)
        step = plan.steps[timeline.backward_step(t)]
        if slot not in step.in_slots:
            return None
        i = step.in_slots.index(slot)
        pairs = [(i2, ('grad', step.out_slots[o])) for o, i2 in step.op.backward_inplace(step.params)
                 if i2 == i]
    else:
        return None
    # an input read twice by the step, or copied from another device, is not its to reuse
    sources = [key for i, key in pairs
               if i not in step.moves and step.in_slots.count(step.in_slots[i]) == 1]
    return sources, step.op.inplace_identity(step.params)


class _BlockWalk:
    """Walk the timeline, giving every entry a block when it starts and freeing blocks whose
    entries have all ended."""

    def __init__(self, entries, share):
        self.entries, self.share = entries, share
        self.blocks, self.free = [], []

    def run(self, timeline, sources_of):
        starting, ending = {}, {}
        for e in self.entries.values():
            starting.setdefault(e.start, []).append(e)
        for e in self.entries.values():
            ending.setdefault(e.end, []).append(e)
        for t in range(timeline.end + 1):
            for e in starting.get(t, ()):
                found = sources_of(e, t)
                if found is None or not self._share_with(e, t, *found):
                    self._place(e, self._take_block(e))
            for e in ending.get(t, ()):
                block = e.block
                block.live.discard(e.key)
                if not block.live:
                    self.free.append(block)
        return self.blocks

    def _take_block(self, e):
        """A free block of e's device: the smallest big enough, else the largest smaller one
        (grown), each within MATCH_RANGE of e's size; else a new one."""
        if self.share:
            size = e.nbytes
            mine = [b for b in self.free if b.ctx == e.ctx]
            big = [b for b in mine if size <= b.nbytes <= size * MATCH_RANGE]
            small = [b for b in mine if size // MATCH_RANGE <= b.nbytes < size]
            block = None
            if big:        # the smallest block that is big enough
                block = min(big, key=lambda b: (b.nbytes, b.index))
            elif small:    # else the largest smaller one, grown
                block = max(small, key=lambda b: (b.nbytes, -b.index))
                block.nbytes = size     # allocated at its largest size
            if block is not None:
                self.free.remove(block)
                return block
        block = Block(len(self.blocks), e.ctx, e.nbytes)    # nothing fits
        self.blocks.append(block)
        return block

    def _place(self, e, block, how=None):
        e.block, e.shares = block, how
        block.entries.append(e)
        block.live.add(e.key)

    def _share_with(self, e, t, sources, identity):
        """Put ``e`` into the block of the first of ``sources`` that allows it: as an identity
        view, or in place when that source dies at ``t`` and is alone in its block."""
        for key in sources:
            src = self.entries.get(key)
            if src is None or src.block is None or src.ctx != e.ctx or src.nbytes != e.nbytes:
                continue
            if identity:
                self._place(e, src.block, 'identity')
            elif src.end == t and src.block.live == {src.key}:
                self._place(e, src.block, 'inplace')
            else:
                continue
            return True
        return False


# ---------------------------------------------------------------- does it fit at all?
def available_bytes(ctx):
    """Bytes a new allocation on ``ctx`` can have now, or None where that cannot be known.

    The host: ``MemAvailable`` of /proc/meminfo (Linux), else free pages.  A GPU: the
    device's free memory plus what cupy's pool holds unused.
    """
    if ctx.device_type == 'gpu':
        try:
            xp = ctx.xp
            with ctx.device_scope():
                free, _ = xp.cuda.runtime.memGetInfo()
                return free + xp.get_default_memory_pool().free_bytes()
        except Exception:  # noqa: BLE001 - no way to ask: do not guess
            return None
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf('SC_AVPHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
    except (ValueError, OSError, AttributeError):
        return None


def format_bytes(n):
    for unit in ('bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'):
        if n < 1024 or unit == 'PiB':
            return ('%d %s' % (n, unit)) if unit == 'bytes' else ('%.1f %s' % (n, unit))
        n /= 1024.0


def check_fits(needs, what, describe):
    """Refuse, before allocating, a bind whose arrays cannot fit: ``needs`` is a list of
    ``(ctx, nbytes, item)``; the error gives the total, what is available, and the largest
    array by name, ``describe(item)`` (asked only then: numpy's own MemoryError names none)."""
    totals = {}
    for ctx, nbytes, _ in needs:
        totals[ctx] = totals.get(ctx, 0) + nbytes
    for ctx, total in totals.items():
        available = available_bytes(ctx)
        if available is None or total <= available:
            continue
        nbytes, item = max(((n, i) for c, n, i in needs if c == ctx), key=lambda pair: pair[0])
        raise BindError('%s: the arrays need %s on %s, but %s are available; the largest is %s, %s'
                        % (what, format_bytes(total), ctx, format_bytes(available), describe(item),
                           format_bytes(nbytes)))
