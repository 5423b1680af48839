"""The execution plan: a graph turned into a flat list of steps.

Binding compiles the graph once.  Every output of every node gets a *slot*
(an index into one list of arrays); a step says "run operator X on slots
[a, b, c], write slots [d]".  Forward walks the steps in order, backward in
reverse.  The plan also decides:

* which context each step runs on (its ``__ctx_group__`` via group2ctx, else
  the executor's context) and which inputs must be copied across devices;
* which steps lie on a path from an argument that wants a gradient to an
  output, with no BlockGrad between (backward skips the rest), and, per step, which of its inputs' gradients are wanted
  (an operator skips the others: no data gradient for the first layer);
* which forward values each backward reads (``Operator.backward_reads``).

Where each value lives is the memory plan's business (memory.py).
"""

from ..base import BindError

__all__ = ['Step', 'Plan', 'build_plan']


class Step:
    """One operator call, as bind planned it.  A description only: build_plan fills it in and
    nothing changes it afterwards (the arrays an executor gives each step are the executor's,
    see Executor._allocate)."""
    __slots__ = ('node', 'op', 'params', 'ctx', 'in_slots', 'aux_slots', 'out_slots',
                 'moves', 'needs_grad', 'wants', 'nvis', 'on_gpu', 'grad_to',
                 'bwd_ins', 'bwd_outs', 'visible', 'is_loss', '_fixed')

    def __init__(self, node, ctx, in_slots, aux_slots, out_slots):
        self.node, self.op, self.params, self.ctx = node, node.op, node.params, ctx
        self.in_slots, self.aux_slots, self.out_slots = in_slots, aux_slots, out_slots
        self.moves = []          # positions of inputs produced on another context
        self.needs_grad = False  # does any input lead back to an argument with a gradient
        self.wants = None        # per input: does its gradient flow anywhere (OpEnv.wants)
        self.nvis = node.num_visible_outputs()
        self.visible = out_slots[:self.nvis]   # the outputs a user sees (and sends gradients to)
        self.on_gpu = ctx.device_type == 'gpu'   # needs a device scope around its calls
        self.is_loss = node.op.loss_head(node.params)   # makes its own head gradient
        self.grad_to = []        # (input position, slot, context to move to or None): gradients to keep
        self.bwd_ins = self.bwd_outs = ()   # positions of the inputs / outputs backward reads

    def __setattr__(self, name, value):
        if getattr(self, '_fixed', False):
            raise AttributeError('a planned Step does not change once build_plan has made it '
                                 '(tried to set %r of %s)' % (name, self.node.name))
        object.__setattr__(self, name, value)


class Plan:
    """A graph laid out for execution: ``steps`` to run in order, each reading and writing
    numbered value slots.

    Attributes:
        steps: the operator calls, in order.
        num_slots (int): how many value slots there are.
        var_slot (dict): variable name -> its slot.
        slot_ctx (list): slot -> the Context where the value lives.
        slot_name (list): slot -> the value's name (e.g. ``fc1_output``).
        head_slots (list): the slots of the graph's outputs.
        carries (list): slot -> whether a gradient (possibly non-zero) flows through it.
    """

    def __init__(self, steps, num_slots, var_slot, slot_ctx, slot_name, head_slots, carries):
        self.steps = steps
        self.num_slots = num_slots
        self.var_slot = var_slot      # variable node name -> slot
        self.slot_ctx = slot_ctx      # slot -> Context where the value lives
        self.slot_name = slot_name    # slot -> entry name (e.g. 'fc1_output')
        self.head_slots = head_slots  # graph outputs
        self.carries = carries        # slot -> does a (possibly non-zero) gradient flow through it


def _gradient_flow(steps, num_slots, grad_slots, head_slots):
    """Which slots a gradient flows through, setting each step's ``needs_grad``.

    A gradient flows through a slot that lies on a path from an argument that wants one
    (``grad_slots``) up to a graph output, with no ``BlockGrad`` on the way: MXNet's zero
    propagation.  Behind a BlockGrad the gradient can only be zero, so those backward steps
    never run and plan no memory; the arguments there get zeros (Executor.backward).
    """
    reaches = [False] * num_slots             # depends on an argument that wants a gradient
    for s in grad_slots:
        reaches[s] = True
    for step in steps:
        step.needs_grad = any(reaches[s] for s in step.in_slots)
        for s in step.out_slots:
            reaches[s] = step.needs_grad
    carries = [False] * num_slots             # ... and leads to an output without a BlockGrad
    for s in head_slots:
        carries[s] = reaches[s]
    for step in reversed(steps):
        step.needs_grad = (step.needs_grad and not step.op.gradient_blocked(step.params)
                           and any(carries[s] for s in step.out_slots))
        for s in step.out_slots:
            carries[s] = carries[s] and step.needs_grad
        for s in step.in_slots:
            carries[s] = carries[s] or (step.needs_grad and reaches[s])
    for step in steps:
        if step.needs_grad and not step.op.differentiable:
            raise BindError("bind: a gradient must flow through operator %r (%s), which has none (MXNet "
                            "1.9.1 registers none either); bind its inputs with grad_req='null', or put "
                            "BlockGrad after it" % (step.node.name, step.op.name))
    return carries


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

    head_slots = [slot_of[(id(n), i)] for n, i in outputs]
    carries = _gradient_flow(steps, len(slot_ctx), [var_slot[name] for name in grad_vars], head_slots)
    for step in steps:
        # backward computes only the input gradients that flow somewhere (see OpEnv.wants)
        step.wants = tuple(carries[s] for s in step.in_slots)
        step.grad_to = [(k, s, slot_ctx[s] if slot_ctx[s] != step.ctx else None)
                        for k, s in enumerate(step.in_slots) if carries[s]]

    for step in steps:
        reads = step.op.backward_reads(step.params)
        if reads is None:
            reads = range(len(step.in_slots)), range(len(step.out_slots))
        step.bwd_ins, step.bwd_outs = tuple(reads[0]), tuple(reads[1])
        step._fixed = True
    return Plan(steps, len(slot_ctx), var_slot, slot_ctx, slot_name, head_slots, carries)
