"""Executor: a Symbol bound to arrays, ready to run forward and backward.

``Symbol.bind`` hands over the arrays to use *by reference*: the executor keeps
the NDArray objects and reads their buffers at every forward, so

* ``exe.arg_dict['x'][:] = 3`` (or ``forward(x=...)``, which copies into that
  array) changes what the next forward sees;
* ``w -= lr * g`` on a bound weight updates the model, while
  ``w = w - lr * g`` makes a new array the executor never sees.

``backward`` writes (``grad_req='write'``) or adds (``'add'``) into the bound
gradient arrays, or skips the argument (``'null'``).  As in MXNet it may follow
any forward, training or not: ``is_train`` only switches what Dropout and
BatchNorm do.  Outputs live in memory allocated once at bind; each forward
hands out fresh NDArray handles over that same memory, as MXNet does.
"""

import numpy as np

from .. import engine
from .. import profiler as _profiler
from ..base import BindError, ComputeError, ShapeError, MXNetError, TypeInferError
from ..context import Context
from ..ndarray import NDArray, zeros
from ..ndarray.ndarray import move
from ..operator.registry import OpEnv
from ..operator.sparse_rows import SparseRows, is_csr_matrix
from ..symbol.common_expr import eliminate_common_expr, elimination_enabled
from ..symbol.symbol import check_unique_variables, topo_order
from ..symbol.infer import infer_graph_shapes, infer_graph_types
from ..symbol.storage import argument_stypes, gradient_stypes
from ..ndarray.sparse import zeros as sparse_zeros
from ..shapes import prod, shape_is_known
from .plan import build_plan
from .memory import check_fits, plan_memory
from .sparse_storage import bound_value, sparse_gradient_arrays, store_dense, store_rows
from ..threads import governor

__all__ = ['Executor', 'simple_bind']

_GRAD_REQS = ('write', 'add', 'null')


def _arrays_by_name(what, values, names, allow_missing=False):
    """Arrays in ``names`` order from a list or a dict.

    A dict may hold more names than the symbol has: MXNet ignores them, which is what lets one
    ``arg_params`` dict from a checkpoint feed a smaller graph (say, features cut out with
    ``get_internals``).  A missing name is an error unless ``allow_missing`` (gradients).
    """
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and not allow_missing:
            raise BindError('bind: %s is missing %s (the symbol needs %s)' % (what, missing, names))
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise BindError('bind: %s has %d arrays but the symbol needs %d (%s)'
                        % (what, len(values), len(names), names))
    return values


def _grad_reqs(grad_req, names):
    """One of 'write'/'add'/'null' per argument, from a str, a list, or a dict (absent names: 'null')."""
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, 'null') for n in names]  # names the symbol lacks are ignored, as in MXNet
    elif isinstance(grad_req, (list, tuple)):
        reqs = list(grad_req)
        if len(reqs) != len(names):
            raise BindError('bind: grad_req list has %d entries for %d arguments %s' % (len(reqs), len(names), names))
    else:
        raise BindError("bind: grad_req must be 'write', 'add' or 'null', or a list or dict of them, got %r"
                        % (grad_req,))
    for name, req in zip(names, reqs):
        if req not in _GRAD_REQS:
            raise BindError("bind: grad_req for argument %r must be 'write', 'add' or 'null', got %r" % (name, req))
    return reqs


def _check_groups(nodes, group2ctx):
    """With a group2ctx map, every ctx_group used in the graph must be in it (MXNet refuses to guess)."""
    for group, ctx in (group2ctx or {}).items():
        if not isinstance(ctx, Context):
            raise BindError('bind: group2ctx maps ctx_group %r to %r; each group needs exactly one '
                            'Context (to spread a batch over devices, use mx.mod.Module)' % (group, ctx))
    if not group2ctx:
        return
    for node in nodes:
        group = node.ctx_group()
        if group is not None and group not in group2ctx:
            raise BindError('bind: node %r is in ctx_group %r, which group2ctx does not map to a context; '
                            'group2ctx has %s' % (node.name, group, sorted(group2ctx)))


def _view(arr, shape):
    """An array of ``shape`` over the first elements of ``arr``'s memory (MXNet reuses buffers this way)."""
    size = int(np.prod(shape, dtype=np.int64))
    return NDArray(arr._data.reshape(-1)[:size].reshape(shape), arr.context)


def _write(target, value, step, slot):
    """Copy an operator's result into its planned array (an operator that uses ``env.out``
    computes it there and returns that very array: then this is not called)."""
    if value.shape != target.shape:
        raise ShapeError('%s %r: output %d has shape %s, but shape inference planned %s'
                         % (step.op.name, step.node.name, step.out_slots.index(slot),
                            tuple(value.shape), tuple(target.shape)))
    target[...] = value


class StepArrays:
    """An executor's arrays for one step of its plan: the OpEnv of each mode (``out``: the
    planned arrays forward writes into), the planned gradient arrays of the inputs, and
    read-only stand-ins for the forward values this step's backward never reads."""
    __slots__ = ('env_train', 'env_test', 'env_backward', 'grad_bufs', 'stub_ins', 'stub_outs', 'densify')

    def __init__(self, step):
        self.env_train = OpEnv(step.ctx, True)
        self.env_test = OpEnv(step.ctx, False)
        # backward's own: its grad_out is set on every call (which gradient arrays are still free)
        self.env_backward = OpEnv(step.ctx, True, step.wants)
        self.grad_bufs = self.stub_ins = self.stub_outs = None
        self.densify = ()       # (input position, slot): a CSR argument this operator reads densely


class Executor:
    """The result of bind/simple_bind."""

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req='write', aux_states=None,
                 group2ctx=None, shared_exec=None, _parent_outputs=None):
        if not isinstance(ctx, Context):
            raise BindError('bind: ctx must be a Context (a list of contexts is what Module is for), got %r'
                            % (ctx,))
        check_unique_variables(symbol, 'bind')
        self._symbol = symbol
        self._parent_outputs = _parent_outputs     # reshape(): outputs go into these where they fit
        # what runs: the symbol with repeated computations merged, as MXNet's bind does
        self._graph = eliminate_common_expr(symbol) if elimination_enabled() else symbol
        self._ctx = ctx
        self._group2ctx = dict(group2ctx or {})
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self._arg_names, self._aux_names = arg_names, aux_names
        self._output_names = symbol.list_outputs()

        self.arg_arrays = _arrays_by_name('args', args, arg_names)
        for name, arr in zip(arg_names, self.arg_arrays):
            if not isinstance(arr, NDArray):
                raise BindError('bind: argument %r must be an NDArray, got %s' % (name, type(arr).__name__))
        # one gradient array (or None) per argument; kept even under 'null' (then never written)
        self._grads = _arrays_by_name('args_grad', args_grad, arg_names, allow_missing=True)
        # MXNet: bind without args_grad leaves exe.grad_arrays None, not a list of Nones
        self.grad_arrays = None if args_grad is None else self._grads
        reqs = _grad_reqs(grad_req, arg_names)
        # an argument without a gradient array gets no gradient, whatever grad_req says
        self._grad_req = [r if g is not None else 'null' for r, g in zip(reqs, self._grads)]
        if aux_names and aux_states is None:
            raise BindError('bind: the symbol has auxiliary states %s; pass aux_states' % aux_names)
        # the arguments whose gradient stays row_sparse (sparse_storage.py): slot -> its array
        self._grad_sparse_args = sparse_gradient_arrays(symbol, arg_names, self.arg_arrays, self._grads,
                                                        self._grad_req)
        self.aux_arrays = _arrays_by_name('aux_states', aux_states or [], aux_names)
        for name, arr in zip(aux_names, self.aux_arrays):
            if not isinstance(arr, NDArray):
                raise BindError('bind: auxiliary state %r must be an NDArray, got %s' % (name, type(arr).__name__))

        # the memory behind the planned blocks: this executor's own, or a pool it shares with
        # shared_exec (bucketing: every bucket's executor draws on one pool, see _allocate)
        self._memory_pool = shared_exec._memory_pool if shared_exec is not None else []
        self._check_shapes()
        _check_groups(self._nodes, self._group2ctx)
        self._build()
        self._monitor = None
        self._monitor_all = False
        self._failed = None      # the ComputeError of the last forward, if it failed (engine.py)
        self._values = None      # every slot's value from the last forward, kept for backward

    # ------------------------------------------------------------- building
    def _check_shapes(self):
        """Run inference with the bound shapes so inconsistencies name the operator at fault."""
        given = {n: a.shape for n, a in zip(self._arg_names, self.arg_arrays)}
        given.update({n: a.shape for n, a in zip(self._aux_names, self.aux_arrays)})
        for name, arr, grad in zip(self._arg_names, self.arg_arrays, self._grads):
            if grad is not None and grad.shape != arr.shape:
                raise ShapeError('bind: gradient array of %r has shape %s, the argument has %s'
                                 % (name, grad.shape, arr.shape))
        self._nodes, self._entry_shapes = infer_graph_shapes(self._graph._outputs, given)
        given_types = {n: a.dtype for n, a in zip(self._arg_names, self.arg_arrays)}
        given_types.update({n: a.dtype for n, a in zip(self._aux_names, self.aux_arrays)})
        _, self._entry_types = infer_graph_types(self._graph._outputs, given_types)

    def _build(self):
        var_ctx = {n: a.context for n, a in zip(self._arg_names, self.arg_arrays)}
        var_ctx.update({n: a.context for n, a in zip(self._aux_names, self.aux_arrays)})
        grad_vars = [n for n, r in zip(self._arg_names, self._grad_req) if r != 'null']
        self._plan = build_plan(self._nodes, self._graph._outputs, self._ctx, var_ctx,
                                self._group2ctx, grad_vars)
        plan = self._plan
        self._arg_slots = [plan.var_slot[n] for n in self._arg_names]
        self._aux_slots = [plan.var_slot[n] for n in self._aux_names]
        self._bound = list(zip(self._arg_slots, self.arg_arrays)) + list(zip(self._aux_slots, self.aux_arrays))
        self._sparse_bound = [(slot, arr) for slot, arr in self._bound if arr.stype != 'default']
        self._grad_sparse = {self._arg_slots[k]: g for k, g in self._grad_sparse_args.items()}
        # values whose gradient may stay row_sparse on its way back: their operator's backward
        # takes a SparseRows head (``Operator.takes_sparse_head``), as MXNet's _square_sum does
        self._sparse_heads = {s for step in plan.steps if step.op.takes_sparse_head
                              for s in step.out_slots} - set(plan.head_slots)
        # output memory is allocated once; every forward writes into the same buffers
        self.outputs = []
        heads = []
        for (node, i), slot in zip(self._graph._outputs, plan.head_slots):
            shape = self._entry_shapes.get((id(node), i))
            dtype = np.dtype(self._entry_types.get((id(node), i)) or np.float32)
            if not shape_is_known(shape):
                raise ShapeError('bind: cannot infer the shape of output %r' % node.output_name(i))
            heads.append((shape, plan.slot_ctx[slot], dtype, node.output_name(i)))
        check_fits([(ctx, prod(shape) * dtype.itemsize, (name, shape, dtype)) for shape, ctx, dtype, name in heads],
                   'bind', lambda h: 'output %r %s %s' % (h[0], tuple(h[1]), h[2].name))
        parents = self._parent_outputs or [None] * len(heads)
        for (shape, ctx, dtype, _), parent in zip(heads, parents):
            if parent is not None and parent.context == ctx and parent.dtype == dtype and parent.size >= prod(shape):
                self.outputs.append(_view(parent, shape))     # reshape(): the parent's memory, as MXNet
            else:
                self.outputs.append(zeros(shape, ctx, dtype))
        # backward needs the forward's intermediates; MXNet allows backward after *any* forward
        # (is_train only switches Dropout/BatchNorm), so they are kept whenever a gradient is wanted
        self._needs_backward = bool(grad_vars)
        self._allocate()

    def _allocate(self):
        """Plan every intermediate value's memory (memory.py), allocate the blocks, and hand
        each step the arrays it writes into: ``env.out`` for forward, ``grad_bufs`` for backward."""
        plan = self._plan
        shapes, dtypes = self._slot_shapes()
        # an argument's gradient goes straight into its gradient array ('write'), unless it must
        # be summed apart first: 'add', or an array of another dtype or device
        arg_of = dict(zip(self._arg_slots, zip(self.arg_arrays, self._grads, self._grad_req)))
        self._grad_direct = {}
        summed_apart = set()
        for slot, (arr, garr, req) in arg_of.items():
            if req == 'null' or slot in self._grad_sparse:      # (a row_sparse one is never dense)
                continue
            if req == 'write' and garr.stype == 'default' and garr.dtype == arr.dtype and garr.context == arr.context:
                self._grad_direct[slot] = garr._data
            else:
                summed_apart.add(slot)
        self._mem = plan_memory(plan, shapes, dtypes, self._needs_backward, summed_apart)
        buffers = self._blocks_from_pool(self._mem.blocks)
        # each value is a view at the start of its block (the views keep the blocks alive)
        arrays = {key: buffers[e.block.index][:e.nbytes].view(e.dtype).reshape(e.shape)
                  for key, e in self._mem.entries.items()}
        # where each value lives: a planned array, an output array, or (arguments) the bound array
        head_array = {}
        for out, slot in zip(self.outputs, plan.head_slots):
            head_array.setdefault(slot, out._data)
        self._slot_array = [None] * plan.num_slots
        for slot in range(plan.num_slots):
            self._slot_array[slot] = arrays.get(('out', slot), head_array.get(slot))
        self._grad_array = {}
        for (kind, slot), arr in arrays.items():
            if kind == 'grad':
                self._grad_array[slot] = arr
        for slot, arr in self._grad_direct.items():
            self._grad_array.setdefault(slot, arr)
        # read-only zeros in place of the forward values a backward does not read
        self._stub = {}
        self._step_arrays = [self._arrays_for(step, shapes, dtypes) for step in plan.steps]
        self._densified = {s for arrays in self._step_arrays for _, s in arrays.densify}
        self._backward_done = False

    def _arrays_for(self, step, shapes, dtypes):
        """What this executor gives one step of the plan: the arrays it writes into and the
        stand-ins for the values its backward does not read (the plan itself stays as built)."""
        arrays = StepArrays(step)
        outs = [self._slot_array[s] for s in step.out_slots]
        arrays.env_train.out = arrays.env_test.out = outs if any(o is not None for o in outs) else None
        bufs = []
        for k, s in enumerate(step.in_slots):
            # (only slots that carry a gradient have an array, of the slot's own dtype;) a
            # second occurrence of one slot (x + x) and a gradient that must change device
            # are computed apart and added in
            first_here = step.in_slots.index(s) == k and k not in step.moves
            bufs.append(self._grad_array.get(s) if first_here else None)
        arrays.grad_bufs = bufs if any(b is not None for b in bufs) else None
        sparse_stype = {slot: arr.stype for slot, arr in self._sparse_bound}
        takes = step.op.sparse_inputs(step.params)
        arrays.densify = tuple((k, s) for k, s in enumerate(step.in_slots)
                               if s in sparse_stype and sparse_stype[s] not in takes.get(k, ()))
        stub_ins = [None if k in step.bwd_ins else self._stub_for(s, shapes, dtypes)
                    for k, s in enumerate(step.in_slots)]
        stub_outs = [None if j in step.bwd_outs else self._stub_for(s, shapes, dtypes)
                     for j, s in enumerate(step.out_slots)]
        # None when backward reads every one of them (the common case: no list to merge)
        arrays.stub_ins = stub_ins if any(st is not None for st in stub_ins) else None
        arrays.stub_outs = stub_outs if any(st is not None for st in stub_outs) else None
        return arrays

    def _blocks_from_pool(self, blocks):
        """One byte buffer per planned block, taken from the memory pool where one fits.

        An executor bound alone has a pool of its own and allocates every block.  One bound
        with ``shared_exec`` (Module's ``shared_module``, so every bucket of a BucketingModule)
        shares that executor's pool, as MXNet's graph executor does: each block, largest
        first, takes the smallest pooled buffer on its device that is large enough and not
        taken by another of its blocks; only what finds none is allocated, and added to the
        pool for the next executor.  Executors sharing a pool must not run interleaved (one
        bucket's forward between another's forward and backward): Module never does.
        """
        buffers = [None] * len(blocks)
        taken = set()
        self._borrowed_bytes = 0
        new = []                             # the blocks no pooled buffer serves
        for block in sorted(blocks, key=lambda b: -b.nbytes):
            nbytes = max(block.nbytes, 1)
            fits = [(buf.nbytes, k) for k, (ctx, buf) in enumerate(self._memory_pool)
                    if k not in taken and ctx == block.ctx and buf.nbytes >= nbytes]
            if fits:
                k = min(fits)[1]
                buffers[block.index] = self._memory_pool[k][1][:nbytes]
                self._borrowed_bytes += nbytes
                taken.add(k)
            else:
                new.append(block)
        # only what must be allocated counts; refused before any of it is
        check_fits([(b.ctx, b.nbytes, b) for b in new], 'bind', self._describe_block)
        for block in new:
            with block.ctx.device_scope():
                buffers[block.index] = block.ctx.xp.empty(max(block.nbytes, 1), dtype=np.uint8)
            self._memory_pool.append((block.ctx, buffers[block.index]))
        return buffers

    def _describe_block(self, block):
        """'the output of node 'fc1' (64, 128) float32' for the largest value a block holds."""
        held = [e for e in self._mem.entries.values() if e.block is block]
        if not held:
            return 'a block of planned memory'
        e = max(held, key=lambda e: e.nbytes)
        return '%s %s %s' % (e.name, tuple(e.shape), e.dtype.name)

    def _stub_for(self, slot, shapes, dtypes):
        """A read-only array of zeros with the slot's shape: what backward gets in place of a
        forward value it does not read (whose memory may hold something else by then)."""
        if slot not in self._stub and shape_is_known(shapes.get(slot)):
            ctx = self._plan.slot_ctx[slot]
            xp = ctx.xp
            with ctx.device_scope():
                self._stub[slot] = xp.broadcast_to(xp.zeros((), dtype=dtypes[slot]), shapes[slot])
        return self._stub.get(slot)

    # ------------------------------------------------------------- views
    @property
    def arg_dict(self):
        """A new dict from argument name to the bound argument NDArray (``arg_arrays``); writing
        into one of these arrays changes what the next ``forward`` reads.
        """
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        """A new dict from argument name to its gradient NDArray, or None for an argument that gets
        no gradient.
        """
        return dict(zip(self._arg_names, self._grads))

    @property
    def aux_dict(self):
        """A new dict from auxiliary state name to its bound NDArray (``aux_arrays``)."""
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        """A new dict from output name (``list_outputs()``) to its NDArray in ``outputs``."""
        return dict(zip(self._output_names, self.outputs))

    @property
    def symbol(self):
        """The Symbol this executor was bound from."""
        return self._symbol

    def get_optimized_symbol(self):
        """The graph this executor runs: its symbol after bind's graph passes (repeated
        computations merged, see symbol/common_expr.py)."""
        return self._graph

    # ------------------------------------------------------------- running
    def forward(self, is_train=False, **kwargs):
        """Run the graph.  Keyword arrays are copied *into* the bound arguments first."""
        called = _profiler.now_us() if _profiler.ACTIVE else None
        arg_dict = self.arg_dict if kwargs else None
        for name, value in kwargs.items():
            if name not in arg_dict:
                raise BindError('forward: %r is not an argument of the symbol; arguments are %s'
                                % (name, self._arg_names))
            target = arg_dict[name]
            shape = value.shape if hasattr(value, 'shape') else np.shape(value)
            if tuple(shape) != target.shape:
                raise ShapeError('forward: argument %r is bound with shape %s, got an array of shape %s '
                                 '(use reshape() for a new shape)' % (name, target.shape, tuple(shape)))
            target[:] = value
        governor.check()        # BLAS threads: the cores other processes leave free (threads.py)
        values = self._bound_values()
        # an argument computed by a failed operator (engine.py); the list only when anything failed
        failed = engine.failure_of([arr._data for _, arr in self._bound]) if engine.pending() else None
        if failed is None:
            try:
                self._run_steps(values, is_train)
            except Exception as err:
                _name_the_node(err, '_run_steps', 'forward')
                if not isinstance(err, ComputeError):
                    raise
                failed = err
        self._failed = failed
        if failed is not None:
            # as MXNet's engine: an operator failed on its values (or an argument came from one
            # that did), and the outputs raise it at the next wait on them (reflib/engine.py)
            self.outputs = [NDArray(out._data, out.context) for out in self.outputs]
            engine.fail([out._data for out in self.outputs], failed)
            self._values = None
            if called is not None:
                _profiler.api_done('MXExecutorForward', called)
            return self.outputs
        for out, slot in zip(self.outputs, self._plan.head_slots):
            if out._data is not values[slot]:
                out._data[...] = values[slot]
        # like MXNet, each forward hands out fresh NDArray handles over the same output memory,
        # so an output kept from an earlier forward shows the new values too
        self.outputs = [NDArray(out._data, out.context) for out in self.outputs]
        self._values = values if self._needs_backward else None
        self._backward_done = False
        if called is not None:
            _profiler.api_done('MXExecutorForward', called)
        return self.outputs

    def _run_steps(self, values, is_train):
        """forward's loop: every step in plan order, each output into ``values``."""
        monitor = self._monitor
        profiling = _profiler.ACTIVE and _profiler.records('symbolic')      # (no call while off)
        for step, arrays in zip(self._plan.steps, self._step_arrays):
            if profiling:
                began = _profiler.now_us()
            ins = [values[s] for s in step.in_slots]
            for k, s in arrays.densify:
                ins[k] = self._dense_args[s]
            for k in step.moves:
                ins[k] = move(ins[k], step.ctx)
            aux = [values[s] for s in step.aux_slots]
            if monitor is not None and self._monitor_all:
                self._monitor_inputs(step, ins + aux)
            env = arrays.env_train if is_train else arrays.env_test
            if step.on_gpu:
                with step.ctx.device_scope():
                    outs = step.op.forward(step.params, env, ins, aux)
            else:
                outs = step.op.forward(step.params, env, ins, aux)
            if env.out is None:
                for s, out in zip(step.out_slots, outs):
                    values[s] = out
            else:                # planned memory: values[s] already is the target array
                for s, out, target in zip(step.out_slots, outs, env.out):
                    if target is None:
                        values[s] = out
                    elif out is not target:
                        _write(target, out, step, s)
            if profiling:
                _profiler.operator(step.op.name, began, step.ctx)
            if monitor is not None:       # monitor_all: the hidden outputs too (LRN's tmp_norm)
                for i in range(len(step.out_slots) if self._monitor_all else step.nvis):
                    self._report(step.node.output_name(i), NDArray(values[step.out_slots[i]], step.ctx))

    def _bound_values(self):
        """Every slot's array: the planned ones, with the bound arguments and aux states."""
        values = list(self._slot_array)
        for slot, arr in self._bound:
            values[slot] = arr._data
        # sparse arguments as they are (an operator that does not take them reads _dense_args)
        if self._sparse_bound:          # (a dense graph pays nothing here)
            self._dense_args = {slot: arr._dense_data() for slot, arr in self._sparse_bound
                                if slot in self._densified}
            for slot, arr in self._sparse_bound:
                values[slot] = bound_value(arr)
        return values

    def _monitor_inputs(self, step, values):
        """monitor_all: each input as MXNet names it: a variable under its own name, then every
        input as ``<node>_<input name>``."""
        node = step.node
        for (child, i), in_name, value in zip(node.inputs, node.op.monitor_input_names(node.params), values):
            if is_csr_matrix(value) or isinstance(value, SparseRows):
                value = value.toarray() if is_csr_matrix(value) else value.dense(step.ctx.xp)
            arr = NDArray(value, step.ctx)
            if child.op is None:
                self._report(child.name, arr)
            self._report('%s_%s' % (node.name, in_name), arr)

    def backward(self, out_grads=None, is_train=True):
        """Propagate gradients from the outputs to every argument with a gradient array.

        Loss heads (SoftmaxOutput, ...) make their own head gradient; any other
        output that a gradient must flow through needs an entry in ``out_grads``.
        """
        if not self._needs_backward:
            return  # no argument wants a gradient: nothing to compute
        called = _profiler.now_us() if _profiler.ACTIVE else None
        failed = self._failed
        if failed is None and engine.pending():     # a head gradient from a failed operator
            heads = out_grads.values() if isinstance(out_grads, dict) else (
                out_grads if isinstance(out_grads, (list, tuple)) else [out_grads])
            failed = engine.failure_of([g._data for g in heads if isinstance(g, NDArray)])
        if failed is None:
            try:
                self._backward(out_grads)
            except Exception as err:
                _name_the_node(err, '_backward', 'backward')
                if not isinstance(err, ComputeError):
                    raise
                failed = err
        if failed is not None:
            # the forward (or a head gradient, or a backward step) failed: so do the gradients
            engine.fail([g._data for g, req in zip(self._grads, self._grad_req) if req != 'null'], failed)
        if called is not None:
            _profiler.api_done('MXExecutorBackwardEx', called)

    def _backward(self, out_grads):
        """backward's work, once nothing upstream has failed."""
        if self._values is None:
            # MXNet runs backward on whatever its memory holds.  Where no backward step reads a
            # forward value (x * 2), that gives the right gradient, so reflib does it too;
            # where one does, MXNet's answer is garbage, and reflib refuses
            readers = [s.node.name for s in self._plan.steps if s.needs_grad and (s.bwd_ins or s.bwd_outs)]
            if readers:
                raise MXNetError('backward: call forward() first; the backward of %s reads forward values, '
                                 'and there are none yet' % readers)
            self._values = self._bound_values()
        if self._backward_done and not self._mem.backward_repeatable:
            raise MXNetError('backward: call forward() again first. This backward already ran on the last '
                             "forward's values, and the memory plan has since reused some of them for "
                             'gradients (MXNet would silently compute wrong gradients here; '
                             'REFLIB_SHARE_MEMORY=0 keeps them apart)')
        plan = self._plan
        heads = self._head_grads(out_grads)
        grads = {}                  # slot -> its gradient array, once something was written into it
        zero = set()                # slots an operator gave a zero (None) gradient
        sparse = {}                 # slot -> the SparseRows summed for a row_sparse gradient array
        grad_array = self._grad_array

        # a value read by several operators gets one gradient from each; they are summed in
        # the forward order of those operators (as MXNet sums them: it fixes the float32
        # rounding, the same as autograd's), once all have arrived -- the first to arrive
        # (the last reader) waits in the planned gradient array, the others beside it
        first_rank = {}             # slot -> rank of the gradient in its planned array
        later = {}                  # slot -> [(rank, gradient)] that arrived after the first

        def accumulate(slot, g, rank):
            if isinstance(g, SparseRows):
                if slot in self._grad_sparse or slot in self._sparse_heads:
                    sparse[slot] = g if slot not in sparse else sparse[slot].plus(g, self._plan.slot_ctx[slot].xp)
                    return
                g = g.dense(self._plan.slot_ctx[slot].xp)     # it meets dense arithmetic here
            if slot in grads:
                # a copy: g may be planned memory that a later step's gradient reuses
                later.setdefault(slot, []).append((rank, g.copy()))
                return
            target = grad_array.get(slot)
            if target is None:      # nothing reads it (a loss head's output: its backward ignores it)
                return
            if g is not target:     # the operator did not compute it there (env.grad_out)
                target[...] = g
            grads[slot] = target
            first_rank[slot] = rank

        def summed(slot):
            """The slot's gradient, every part added in, in forward order."""
            target = grads.pop(slot, None)
            parts = later.pop(slot, None)
            if not parts:
                return target
            parts.append((first_rank[slot], target))
            parts.sort(key=lambda item: item[0])
            total = parts[0][1] + parts[1][1]
            for _, g in parts[2:]:
                total += g
            target[...] = total
            return target

        def head_of(slot):
            """An operator's head gradient: summed, or row_sparse where only SparseRows came."""
            g = summed(slot)
            rows = sparse.pop(slot, None) if slot in self._sparse_heads else None
            if rows is None:
                return g
            return rows if g is None else g + rows.dense(self._plan.slot_ctx[slot].xp)

        # an output listed twice (an RNN's last output is also its last state) takes the head
        # gradient given last, as in MXNet 1.9.1: the two are not summed
        head_grad = {}
        for slot, g in zip(plan.head_slots, heads):
            if g is not None:
                head_grad[slot] = g
        for k, (slot, g) in enumerate(head_grad.items()):
            accumulate(slot, g, (-1, k))
        values = self._values
        last = len(plan.steps) - 1
        profiling = _profiler.ACTIVE and _profiler.records('symbolic')      # (no call while off)
        for back, (step, arrays) in enumerate(zip(reversed(plan.steps), reversed(self._step_arrays))):
            if not step.needs_grad:
                continue
            loss = step.is_loss
            if not loss and not any(map(grads.__contains__, step.visible)) and not (
                    sparse and any(map(sparse.__contains__, step.visible))):
                continue
            if later or sparse:
                ogs = [head_of(s) for s in step.out_slots]
            else:                   # (the common case: every head gradient arrived whole)
                ogs = [grads.pop(s, None) for s in step.out_slots]
            if not loss:
                for k, s in enumerate(step.visible):
                    if ogs[k] is None:       # an output nobody used: its gradient is zero
                        ogs[k] = grad_array[s]
                        ogs[k][...] = 0
            if arrays.stub_ins is None:
                ins = [values[s] for s in step.in_slots]
            else:
                ins = [values[s] if st is None else st for s, st in zip(step.in_slots, arrays.stub_ins)]
            for k, s in arrays.densify:
                ins[k] = self._dense_args[s]
            for k in step.moves:
                ins[k] = move(ins[k], step.ctx)
            if arrays.stub_outs is None:
                outs = [values[s] for s in step.out_slots]
            else:
                outs = [values[s] if st is None else st for s, st in zip(step.out_slots, arrays.stub_outs)]
            aux = [values[s] for s in step.aux_slots]
            env = arrays.env_backward
            # an input's planned gradient array is handed to the operator when this is the first
            # gradient for it; later ones are added in
            if arrays.grad_bufs is not None:
                env.grad_out = [None if buf is None or s in grads else buf
                                for buf, s in zip(arrays.grad_bufs, step.in_slots)]
            if profiling:
                began = _profiler.now_us()
            if step.on_gpu:
                with step.ctx.device_scope():
                    in_grads = step.op.backward(step.params, env, ogs, ins, outs, aux)
            else:
                in_grads = step.op.backward(step.params, env, ogs, ins, outs, aux)
            if profiling:
                _profiler.operator(step.op.name, began, step.ctx, backward=True)
            if self._monitor is not None:
                self._monitor_grads(step, ins, in_grads)
            for k, slot, move_to in step.grad_to:       # the inputs a gradient flows to
                g = in_grads[k]
                if g is not None:
                    accumulate(slot, g if move_to is None else move(g, move_to), (last - back, k))
                elif not loss:
                    zero.add(slot)      # "zero" (an index input): MXNet writes the zeros
        self._backward_done = True
        for slot in list(later):
            grads[slot] = summed(slot)
        for slot, req, garr in zip(self._arg_slots, self._grad_req, self._grads):
            if slot in self._grad_sparse:
                store_rows(garr, sparse.get(slot) if plan.carries[slot] else None)
                continue
            if req != 'null' and garr.stype == 'row_sparse':       # a dense gradient, stored row_sparse
                g = grads.get(slot)
                store_dense(garr, g if g is not None and plan.carries[slot] else garr._ctx.xp.zeros(garr.shape))
                continue
            if req == 'write' and not plan.carries[slot]:
                garr._data[...] = 0     # only BlockGrad lies between it and the outputs
                continue
            if req == 'null':
                continue
            g = grads.get(slot)
            if g is None:
                # an operator said "zero" for it (topk's input under ret_typ='indices', take's
                # indices): zeros, as MXNet writes; nothing at all reached it (a loss head's
                # label): MXNet leaves the array as it was
                if req == 'write' and slot in zero:
                    garr._data[...] = 0
                continue
            if slot in self._grad_direct:
                continue                # computed straight into the bound array
            if req == 'write':
                garr._data[...] = move(g, garr.context)
            else:
                garr._data += move(g, garr.context)

    def _monitor_grads(self, step, ins, in_grads):
        """MXNet's backward node for ``fc1`` is ``fc1_backward``; it reports each input gradient a
        gradient flows to as ``fc1_backward_output<i>`` (no number when there is one input)."""
        # every input is reported, as MXNet's backward node has one output per input even where
        # nothing reads it (a label, data bound without a gradient); reflib reports zeros there
        for k, (slot, g) in enumerate(zip(step.in_slots, in_grads)):
            if g is None or not self._plan.carries[slot]:
                g = step.ctx.xp.zeros_like(ins[k])
            suffix = '' if len(step.in_slots) == 1 else str(k)
            self._report('%s_backward_output%s' % (step.node.name, suffix), NDArray(g, step.ctx))

    def _head_grads(self, out_grads):
        """Head gradients from None, one NDArray, a list, or a dict naming every output."""
        plan = self._plan
        n = len(plan.head_slots)
        if out_grads is None:
            given = [None] * n
        elif isinstance(out_grads, NDArray):
            given = [out_grads] + [None] * (n - 1)
        elif isinstance(out_grads, dict):
            missing = [name for name in self._output_names if name not in out_grads]
            if missing:
                raise BindError('backward: out_grads dict lacks outputs %s; it must name every output of %s'
                                % (missing, self._output_names))
            given = [out_grads[name] for name in self._output_names]
        else:
            # MXNet ignores head gradients beyond the last output
            given = list(out_grads)[:n]
            given += [None] * (n - len(given))
        heads = []
        for (node, i), slot, name, g, out in zip(self._graph._outputs, plan.head_slots,
                                                   self._output_names, given, self.outputs):
            if not plan.carries[slot]:
                # no gradient passes back from this output (a comparison, a BlockGrad): its head
                # gradient is never read, so MXNet neither needs nor checks one
                heads.append(None)
                continue
            if g is None:
                if not (node.op is not None and node.op.loss_head(node.params)):
                    raise BindError('backward: output %r is not a loss head, so it needs a head gradient; '
                                    'pass out_grads (e.g. out_grads=[mx.nd.ones(%s)])' % (name, out.shape))
                heads.append(None)
                continue
            if not isinstance(g, NDArray):
                raise BindError('backward: out_grads for %r must be an NDArray, got %s' % (name, type(g).__name__))
            if g.shape != out.shape:
                raise ShapeError('backward: head gradient for %r has shape %s, the output has %s'
                                 % (name, g.shape, out.shape))
            heads.append(move(g._data, plan.slot_ctx[slot]))
        return heads

    # --------------------------------------------------------- conveniences
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values into the bound argument/aux arrays (by name; the arrays stay the same objects)."""
        for params, table, what in ((arg_params, self.arg_dict, 'argument'),
                                    (aux_params or {}, self.aux_dict, 'auxiliary state')):
            for name, value in params.items():
                if name not in table:
                    if allow_extra_params:
                        continue
                    raise BindError('copy_params_from: %r is not an %s of the symbol (pass '
                                    'allow_extra_params=True to ignore it)' % (name, what))
                shape = tuple(np.shape(value))
                if shape != table[name].shape:
                    raise ShapeError('copy_params_from: %s %r has shape %s, the given value has %s'
                                     % (what, name, table[name].shape, shape))
                table[name][:] = value

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, NDArray)`` for every operator output (and input, with monitor_all),
        and for every gradient backward computes.  The name is UTF-8 bytes, as MXNet's C API
        passes it (``mx.base.py_str(name)`` or ``name.decode()`` makes it a str); where MXNet
        passes the array's raw C handle, reflib passes the NDArray itself."""
        self._monitor = callback
        self._monitor_all = monitor_all

    def _report(self, name, arr):
        self._monitor(name.encode('utf-8'), arr)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing memory with this one.

        Arrays whose shape is unchanged are the same NDArray objects (weights stay shared).  An
        array that shrinks becomes a view on the start of the old memory, as MXNet does; one that
        grows needs ``allow_up_sizing=True`` and gets new memory.  The outputs too: where the
        new output fits, it is the start of this executor's output, so a forward of either
        writes the other's first rows (MXNet's outputs come from one shared pool).  An argument not named in
        ``kwargs`` may only change shape with ``partial_shaping=True``.
        """
        if partial_shaping:
            arg_shapes, _, aux_shapes = self._symbol.infer_shape_partial(**kwargs)
        else:
            arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None or not all(shape_is_known(s) for s in arg_shapes + aux_shapes):
            raise ShapeError('reshape: cannot infer every shape from %s' % kwargs)

        def resized(name, arr, shape):
            shape = tuple(shape)
            if arr is None or arr.shape == shape:
                return arr
            if name not in kwargs and not partial_shaping:
                raise ShapeError('reshape: the shape of %r, which was not given, would change from %s '
                                 'to %s; pass partial_shaping=True to allow it' % (name, arr.shape, shape))
            if np.prod(shape) > arr.size:
                if not allow_up_sizing:
                    raise ShapeError('reshape: %r grows from %s to %s; pass allow_up_sizing=True to '
                                     'allocate new memory' % (name, arr.shape, shape))
                return zeros(shape, arr.context, arr.dtype)
            return _view(arr, shape)

        new_args = [resized(n, a, s) for n, a, s in zip(self._arg_names, self.arg_arrays, arg_shapes)]
        new_grads = [resized(n, g, s) for n, g, s in zip(self._arg_names, self._grads, arg_shapes)]
        new_aux = [resized(n, a, s) for n, a, s in zip(self._aux_names, self.aux_arrays, aux_shapes)]
        reshaped = Executor(self._symbol, self._ctx, new_args, new_grads, self._grad_req, new_aux,
                            self._group2ctx, _parent_outputs=self.outputs)
        if self._monitor is not None:   # the monitor keeps watching, as MXNet rebinds its callback
            reshaped.set_monitor_callback(self._monitor, self._monitor_all)
        return reshaped

    @property
    def plan(self):
        """The plan bind compiled (executor/plan.py): ``plan.steps`` in the order forward runs
        them, each step's operator, context and slots.  A description: it never changes."""
        return self._plan

    @property
    def memory_plan(self):
        """The memory plan bind made (executor/memory.py): every intermediate value's entry
        (its lifetime and block) and the blocks.  ``memory_report()`` adds it up."""
        return self._mem

    @property
    def memory_pool(self):
        """``(context, bytes)`` of each buffer in this executor's memory pool, which every
        executor bound with ``shared_exec=`` this one (bucketing) draws from too."""
        return [(ctx, buf.nbytes) for ctx, buf in self._memory_pool]

    def memory_report(self):
        """The bytes this executor holds, from its memory plan (see executor/memory.py).

        ``planned``: the blocks bind allocated for the intermediate values of forward (and,
        for training, backward's gradients); ``outputs``: the output arrays; ``total``: the
        two together, the figure MXNet's ``debug_str()`` ends with ("Total N MB allocated").
        ``unshared``: what the planned values would take with no sharing at all;
        ``inplace``: how many values are computed into an input's memory; ``borrowed``: the
        part of ``planned`` that lives in memory another executor allocated (``shared_exec``,
        bucketing), so ``planned - borrowed`` is what this bind added.  ``arguments``,
        ``gradients`` and ``aux_states`` are the caller's arrays.
        """
        mem = self._mem
        report = {
            'planned': mem.total_bytes,
            'outputs': sum(o._data.nbytes for o in self.outputs),
            'unshared': mem.unshared_bytes,
            'blocks': len(mem.blocks),
            'entries': len(mem.entries),
            'inplace': mem.count('inplace'),
            'identity': mem.count('identity'),
            'borrowed': self._borrowed_bytes,
        }
        report['total'] = report['planned'] + report['outputs']
        report['arguments'] = sum(a._data.nbytes for a in self.arg_arrays)
        report['gradients'] = sum(g._data.nbytes for g in self._grads if g is not None)
        report['aux_states'] = sum(a._data.nbytes for a in self.aux_arrays)
        return report

    @property
    def _total_exec_bytes(self):
        """What this executor's memory plan allocated, outputs included (``memory_report()['total']``)."""
        return self._mem.total_bytes + sum(o._data.nbytes for o in self.outputs)

    def _slot_shapes(self):
        shapes, dtypes = {}, {}
        slot_of = {}
        for node in self._nodes:
            for i in range(node.num_outputs()):
                slot_of[(id(node), i)] = len(slot_of)
        for key, slot in slot_of.items():
            shapes[slot] = self._entry_shapes.get(key)
            dtypes[slot] = self._entry_types.get(key) or np.float32
        return shapes, dtypes

    def debug_str(self):
        """The plan as text: every step, its context, shapes, and the memory it needs."""
        shapes, _ = self._slot_shapes()
        plan = self._plan
        lines = ['Executor on %s, %d operator steps' % (self._ctx, len(plan.steps))]
        for name, arr, req in zip(self._arg_names, self.arg_arrays, self._grad_req):
            lines.append('  arg  %-24s %-16s @%s grad_req=%s' % (name, arr.shape, arr.context, req))
        for name, arr in zip(self._aux_names, self.aux_arrays):
            lines.append('  aux  %-24s %-16s @%s' % (name, arr.shape, arr.context))
        for k, step in enumerate(plan.steps):
            ins = ', '.join(plan.slot_name[s] for s in step.in_slots + step.aux_slots)
            outs = ', '.join('%s%s' % (plan.slot_name[s], shapes.get(s)) for s in step.out_slots)
            extra = ''
            if step.moves:
                extra += '  copy-in from %s' % sorted({str(plan.slot_ctx[step.in_slots[m]]) for m in step.moves})
            if not step.needs_grad:
                extra += '  (no backward)'
            lines.append('step %d: %s %r @%s (%s) -> %s%s' % (k, step.op.name, step.node.name, step.ctx,
                                                             ins, outs, extra))
        mem = self.memory_report()
        lines.append('memory: arguments %s, gradients %s, aux %s' % (
            _mb(mem['arguments']), _mb(mem['gradients']), _mb(mem['aux_states'])))
        for block in self._mem.blocks:
            names = ', '.join(e.name + {'inplace': ' (in place)', 'identity': ' (same values)'}.get(e.shares, '')
                              for e in block.entries)
            lines.append('storage %d: %d bytes @%s: %s' % (block.index, block.nbytes, block.ctx, names))
        lines.append('memory: %d values in %d blocks, %s (%s unshared) + outputs %s; '
                     '%d computed in place' % (mem['entries'], mem['blocks'], _mb(mem['planned']),
                                               _mb(mem['unshared']), _mb(mem['outputs']), mem['inplace']))
        lines.append('total %s' % _mb(mem['total']))
        # MXNet's last words: the planned memory, outputs included, in whole MB (rounded down)
        lines.append('Total %d MB allocated' % (mem['total'] >> 20))
        return '\n'.join(lines)


def _mb(nbytes):
    return '%.3f MB (%d bytes)' % (nbytes / 2 ** 20, nbytes)


def _name_the_node(err, loop, phase):
    """Add to an error raised by an operator which node of the graph it ran for: the ``step``
    that ``loop`` (the method running the steps) was at, read from the traceback's frame, so
    the loops themselves pay nothing for it."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        step = frame.f_locals.get('step') if frame.f_code.co_name == loop else None
        if step is not None:
            note = '(raised in the %s of node %r, operator %s)' % (phase, step.node.name, step.op.name)
            if note not in getattr(err, '__notes__', ()):
                err.add_note(note)
            return
        tb = tb.tb_next


def simple_bind(symbol, ctx, grad_req='write', type_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, shapes=None,
                stype_dict=None):
    """Infer every shape from the given input shapes, allocate all arrays, and bind.

    Shapes come from inference seeded with ``shapes`` (names the symbol lacks are ignored, as
    in MXNet).  dtypes: without ``type_dict`` every argument is float32 unless its Variable
    declares a dtype; with one, only those dtypes are given and the rest must follow by
    inference.  With ``group2ctx`` each array lives on its ``__ctx_group__``'s device.
    Storage: an argument is sparse where ``stype_dict`` or its Variable's ``stype`` says so,
    and a gradient is row_sparse where every operator reading the argument sends it so
    (symbol/storage.py); of those only a parameter itself is shared, never a gradient.

    Sharing with ``shared_exec`` happens, as in MXNet, only when ``shared_buffer`` (a dict) is
    passed too -- that is how Module calls it: arguments in ``shared_arg_names`` (parameters)
    and every auxiliary state are taken from ``shared_exec`` (new memory without one); every other array (data, labels,
    their gradients under the key ``'grad of <name>'``) is a view on the start of the buffer's
    array of that name when that is large enough, or new memory recorded in the buffer.
    The new executor also takes the memory for its intermediate values from ``shared_exec``'s
    pool (``Executor._blocks_from_pool``), so a smaller bucket adds no memory at all.
    """
    if not isinstance(ctx, Context):
        raise BindError('simple_bind: ctx must be one Context, got %r; to spread a batch over '
                        'several devices use mx.mod.Module(context=[...])' % (ctx,))
    arg_names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    inputs = set(arg_names + aux_names)
    shapes = {k: v for k, v in (shapes or {}).items() if k in inputs}
    arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
    missing = [n for n, s in zip(arg_names + aux_names, arg_shapes + aux_shapes) if not shape_is_known(s)]
    if missing:
        raise ShapeError('simple_bind: cannot infer the shapes of %s from %s; give their shapes '
                         '(or the shapes they are deduced from) as keyword arguments' % (missing, shapes))
    attrs = symbol.attr_dict()
    if type_dict is None:
        types = {n: np.float32 for n in arg_names if '__dtype__' not in attrs.get(n, {})}
    else:
        types = {k: v for k, v in type_dict.items() if k in inputs}
    arg_types, _, aux_types = symbol.infer_type_partial(**types)
    missing = [n for n, t in zip(arg_names + aux_names, arg_types + aux_types) if t is None]
    if missing:
        raise TypeInferError('simple_bind: cannot infer the dtypes of %s from %s; add them to '
                             'type_dict' % (missing, types))
    _check_groups(topo_order(symbol._outputs), group2ctx)

    def place(name):
        group = attrs.get(name, {}).get('__ctx_group__')
        return (group2ctx or {}).get(group, ctx) if group is not None else ctx

    sharing = shared_exec is not None and shared_buffer is not None
    # parameters never go into the buffer, even for the first executor (no shared_exec yet):
    # the buffer holds data, labels and their gradients only, as MXNet's does
    shared_names = set(shared_arg_names or ()) if shared_buffer is not None else set()

    def from_exec(table, name, shape, dtype):
        """shared_exec's array of that name if it fits exactly, else new memory."""
        old = getattr(shared_exec, table).get(name) if sharing else None
        if old is not None and old.shape == tuple(shape) and old.dtype == dtype:
            return old
        return zeros(shape, place(name), dtype)

    def from_buffer(key, name, shape, dtype):
        if shared_buffer is None:
            return zeros(shape, place(name), dtype)
        old = shared_buffer.get(key)
        if (old is not None and old.size >= np.prod(shape) and old.dtype == dtype
                and old.context == place(name)):
            return _view(old, shape)
        shared_buffer[key] = zeros(shape, place(name), dtype)
        return shared_buffer[key]

    reqs = _grad_reqs(grad_req, arg_names)
    arg_stypes = argument_stypes(symbol, stype_dict)
    grad_stypes = gradient_stypes(symbol, arg_stypes)
    # refused before anything is allocated if it cannot fit (numpy's MemoryError names nothing)
    needs = []
    for name, shape, dtype, req in zip(arg_names, arg_shapes, arg_types, reqs):
        nbytes = prod(shape) * np.dtype(dtype).itemsize
        needs.append((place(name), nbytes, ('argument', name, shape, dtype)))
        if req != 'null' and grad_stypes[name] == 'default':
            needs.append((place(name), nbytes, ('the gradient of', name, shape, dtype)))
    needs += [(place(n), prod(s) * np.dtype(t).itemsize, ('auxiliary state', n, s, t))
              for n, s, t in zip(aux_names, aux_shapes, aux_types)]
    check_fits(needs, 'simple_bind', lambda d: '%s %r %s %s' % (d[0], d[1], tuple(d[2]), np.dtype(d[3]).name))
    args, grads = [], {}
    for name, shape, dtype, req in zip(arg_names, arg_shapes, arg_types, reqs):
        if arg_stypes[name] != 'default' or grad_stypes[name] != 'default':
            # a sparse parameter is shared (its gradient is not), as in MXNet
            old = getattr(shared_exec, 'arg_dict', {}).get(name) if sharing and name in shared_names else None
            if (old is not None and old.stype == arg_stypes[name] and old.shape == tuple(shape)
                    and old.dtype == dtype):
                args.append(old)
            else:
                args.append(sparse_zeros(arg_stypes[name], shape, place(name), dtype))
            if req != 'null':
                grads[name] = sparse_zeros(grad_stypes[name], shape, place(name), dtype)
        elif name in shared_names:
            args.append(from_exec('arg_dict', name, shape, dtype))
            if req != 'null':
                grads[name] = from_exec('grad_dict', name, shape, dtype)
        else:
            args.append(from_buffer(name, name, shape, dtype))
            if req != 'null':
                grads[name] = from_buffer('grad of ' + name, name, shape, dtype)
    if sharing:
        aux = [from_exec('aux_dict', n, s, t) for n, s, t in zip(aux_names, aux_shapes, aux_types)]
    else:
        aux = [zeros(s, place(n), t) for n, s, t in zip(aux_names, aux_shapes, aux_types)]
    return Executor(symbol, ctx, args, grads, reqs, aux, group2ctx, shared_exec if sharing else None)
