"""The execution plan: a graph turned into a flat list of steps, plus its memory plan.

Binding compiles the graph once.  Every output of every node gets a *slot*
(an index into one list of arrays); a step says "run operator X on slots
[a, b, c], write slots [d]".  Forward walks the steps in order, backward in
reverse.  The plan also decides:

* which context each step runs on (its ``__ctx_group__`` via group2ctx, else
  the executor's context) and which inputs must be copied across devices;
* which steps lie on a path to an argument that wants a gradient (backward
  skips the rest), and, per step, which of its inputs' gradients are wanted
  (an operator skips the others: no data gradient for the first layer);
* when each intermediate slot is last read, so the forward of an executor that
  will never run backward (no gradient wanted) can drop it right there (the
  memory plan: peak memory is the live set, not the sum);
* where such a forward can compute an output *in place*, into the buffer of an
  input nobody reads afterwards (an activation over its convolution's output,
  a residual sum over one summand), as MXNet's planner does.
"""

import os

import numpy as np

from ..operator.registry import OpEnv

__all__ = ['Step', 'Plan', 'build_plan', 'memory_plan']


class Step:
    """One operator call."""
    __slots__ = ('node', 'op', 'params', 'ctx', 'in_slots', 'aux_slots', 'out_slots',
                 'moves', 'needs_grad', 'free_after', 'env_train', 'env_test', 'nvis',
                 'inplace', 'env_inplace', 'on_gpu', 'grad_to')

    def __init__(self, node, ctx, in_slots, aux_slots, out_slots):
        self.node, self.op, self.params, self.ctx = node, node.op, node.params, ctx
        self.in_slots, self.aux_slots, self.out_slots = in_slots, aux_slots, out_slots
        self.moves = []          # positions of inputs produced on another context
        self.needs_grad = False  # does any input lead back to an argument with a gradient
        self.free_after = []     # slots whose last reader (in inference) is this step
        self.env_train = OpEnv(ctx, True)
        self.env_test = OpEnv(ctx, False)
        self.nvis = node.num_visible_outputs()
        self.inplace = []        # (input position, output position) an inference forward computes in place
        self.env_inplace = None  # env_test, plus which inputs may be overwritten
        self.on_gpu = ctx.device_type == 'gpu'   # needs a device scope around its calls
        self.grad_to = []        # (input position, slot, context to move to or None): gradients to keep


class Plan:
    def __init__(self, steps, num_slots, var_slot, slot_ctx, slot_name, head_slots, carries):
        self.steps = steps
        self.num_slots = num_slots
        self.var_slot = var_slot      # variable node name -> slot
        self.slot_ctx = slot_ctx      # slot -> Context where the value lives
        self.slot_name = slot_name    # slot -> entry name (e.g. 'fc1_output')
        self.head_slots = head_slots  # graph outputs
        self.carries = carries        # slot -> does a gradient flow through it


def build_plan(nodes, outputs, default_ctx, var_ctx, group2ctx, grad_vars):
    """Compile topologically ordered ``nodes`` into a Plan.

    var_ctx: variable name -> context of its bound array.
    grad_vars: names of variables whose gradient is wanted.
    """
    slot_of, slot_ctx, slot_name, var_slot = {}, [], [], {}
    steps = []
    group2ctx = group2ctx or {}
    for node in nodes:
        if node.op is None:
            slot_of[(id(node), 0)] = len(slot_ctx)
            var_slot[node.name] = len(slot_ctx)
            slot_ctx.append(var_ctx[node.name])
            slot_name.append(node.name)
            continue
        nin = node.num_args()
        ins = [slot_of[(id(c), i)] for c, i in node.inputs[:nin]]
        auxs = [slot_of[(id(c), i)] for c, i in node.inputs[nin:]]
        group = node.ctx_group()
        if group is not None and group in group2ctx:
            ctx = group2ctx[group]
        elif group2ctx and ins:
            # MXNet's device placement: an untagged operator runs where its first input lives
            ctx = slot_ctx[ins[0]]
        else:
            ctx = default_ctx
        outs = []
        for i in range(node.num_outputs()):
            slot_of[(id(node), i)] = len(slot_ctx)
            outs.append(len(slot_ctx))
            slot_ctx.append(ctx)
            slot_name.append(node.output_name(i))
        step = Step(node, ctx, ins, auxs, outs)
        step.moves = [k for k, s in enumerate(ins) if slot_ctx[s] != ctx]
        steps.append(step)

    # gradient flow: a slot "carries gradient" if it depends on a variable that wants one
    carries = [False] * len(slot_ctx)
    for name in grad_vars:
        carries[var_slot[name]] = True
    for step in steps:
        step.needs_grad = any(carries[s] for s in step.in_slots)
        for s in step.out_slots:
            carries[s] = step.needs_grad
        # backward computes only the input gradients that flow somewhere (see OpEnv.wants)
        step.env_train.wants = tuple(carries[s] for s in step.in_slots)
        step.grad_to = [(k, s, slot_ctx[s] if slot_ctx[s] != step.ctx else None)
                        for k, s in enumerate(step.in_slots) if carries[s]]

    head_slots = [slot_of[(id(n), i)] for n, i in outputs]
    # inference liveness: free an intermediate after its last reader unless it is a head
    last_reader = {}
    for k, step in enumerate(steps):
        for s in step.in_slots:
            last_reader[s] = k
    keep = set(head_slots) | set(var_slot.values())
    for s, k in last_reader.items():
        if s not in keep:
            steps[k].free_after.append(s)
    for k, step in enumerate(steps):  # outputs nobody reads (Dropout's mask at test time)
        step.free_after.extend(s for s in step.out_slots if s not in last_reader and s not in keep)
    # in place (inference): an output may take over an input's buffer when the operator offers
    # it and nothing reads that input later: an intermediate (never a bound array or a graph
    # output), on this step's context, read once by this step and by no later one.
    # MXNET_EXEC_ENABLE_INPLACE=0 turns it off, as in MXNet.
    allow_inplace = os.environ.get('MXNET_EXEC_ENABLE_INPLACE', '1').strip().lower() not in ('0', 'false')
    for k, step in enumerate(steps if allow_inplace else []):
        used_in, used_out = set(), set()
        for i, o in step.op.inplace(step.params):
            s = step.in_slots[i]
            if (last_reader.get(s) == k and s not in keep and i not in step.moves
                    and step.in_slots.count(s) == 1 and i not in used_in and o not in used_out):
                step.inplace.append((i, o))
                used_in.add(i)
                used_out.add(o)
        if step.inplace:
            step.env_inplace = OpEnv(step.ctx, False, overwrite=tuple(i for i, _ in step.inplace))
    return Plan(steps, len(slot_ctx), var_slot, slot_ctx, slot_name, head_slots, carries)


def memory_plan(plan, slot_shape, slot_dtype):
    """Bytes of every intermediate, and what sharing buffers by liveness would need.

    Returns a dict: ``naive`` (every intermediate kept: what training forward
    holds for backward), ``inference_peak`` (largest live set when each slot is
    dropped after its last reader and in-place outputs take over their input's
    buffer), and ``pooled`` (a greedy allocator that reuses a freed block of at
    least the needed size, as MXNet's PlanMemory does), plus ``inplace``: how
    many outputs the inference forward computes in place, and ``training_peak``:
    ``naive`` plus the most gradient bytes alive at once during backward.
    """
    def nbytes(s):
        shape = slot_shape.get(s)
        if shape is None:
            return 0
        return int(np.prod(shape, dtype=np.int64)) * np.dtype(slot_dtype.get(s, np.float32)).itemsize

    naive = sum(nbytes(s) for step in plan.steps for s in step.out_slots)
    live, peak = 0, 0
    free_blocks, pool_total, block_of = [], 0, {}
    handed_over = set()           # inputs whose buffer an in-place output took over
    for step in plan.steps:
        in_place = {step.out_slots[o]: step.in_slots[i] for i, o in step.inplace}
        for s in step.out_slots:
            if s in in_place:     # no new bytes: the input's block now holds this output
                source = in_place[s]
                handed_over.add(source)
                if source in block_of:
                    block_of[s] = block_of.pop(source)
                continue
            size = nbytes(s)
            live += size
            fit = [b for b in free_blocks if b >= size]
            if fit:
                best = min(fit)
                free_blocks.remove(best)
                block_of[s] = best
            else:
                block_of[s] = size
                pool_total += size
        peak = max(peak, live)
        for s in step.free_after:
            if s in handed_over:
                continue
            live -= nbytes(s)
            if s in block_of:
                free_blocks.append(block_of.pop(s))
    return {'naive': naive, 'inference_peak': peak, 'pooled': pool_total,
            'inplace': sum(len(step.inplace) for step in plan.steps),
            'training_peak': naive + _backward_gradient_peak(plan, nbytes)}


def _backward_gradient_peak(plan, nbytes):
    """The most bytes of gradient arrays alive at once during backward, as reflib's backward runs.

    Walking the steps in reverse, a step holds the gradients of its outputs (zeros for a
    visible output that got none) while it computes its inputs' gradients; then its outputs'
    gradients go, and its inputs' stay until the steps that produced those inputs consume
    them.  Head gradients, the operators' own temporaries and the gradients of the bound
    arguments are not counted (MXNet writes the last straight into the caller's gradient
    arrays; reflib still makes a temporary and copies it).
    """
    variables = set(plan.var_slot.values())
    live, peak = {}, 0
    for step in reversed(plan.steps):
        if not step.needs_grad:
            continue
        outs = sum(live.pop(s, 0) or (nbytes(s) if k < step.nvis and not step.op.is_loss else 0)
                   for k, s in enumerate(step.out_slots))
        wanted = [s for s in step.in_slots if plan.carries[s] and s not in live and s not in variables]
        new = sum(nbytes(s) for s in set(wanted))
        peak = max(peak, sum(live.values()) + outs + new)
        for s in wanted:
            live[s] = nbytes(s)
    return peak
