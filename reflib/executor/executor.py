"""Executor: a Symbol bound to arrays, ready to run forward and backward.

``Symbol.bind`` hands over the arrays to use *by reference*: the executor keeps
the NDArray objects and reads their buffers at every forward, so

* ``exe.arg_dict['x'][:] = 3`` (or ``forward(x=...)``, which copies into that
  array) changes what the next forward sees;
* ``w -= lr * g`` on a bound weight updates the model, while
  ``w = w - lr * g`` makes a new array the executor never sees.

``backward`` writes (``grad_req='write'``) or adds (``'add'``) into the bound
gradient arrays, or skips the argument (``'null'``).
"""

import numpy as np

from ..base import BindError, ShapeError, MXNetError
from ..context import Context
from ..ndarray import NDArray, zeros
from ..ndarray.ndarray import move
from ..symbol.symbol import topo_order, aux_variable_ids
from ..symbol.infer import infer_graph_shapes, infer_graph_types
from ..operator.registry import shape_is_known
from .plan import build_plan, memory_plan

__all__ = ['Executor', 'simple_bind']

_GRAD_REQS = ('write', 'add', 'null')


def _as_list(what, values, names, allow_missing=False):
    """Arrays in ``names`` order from a list or dict; errors name the missing/unknown entries."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise BindError('bind: %s has unknown names %s; expected names are %s' % (what, unknown, names))
        missing = [n for n in names if n not in values]
        if missing and not allow_missing:
            raise BindError('bind: %s is missing %s' % (what, missing))
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise BindError('bind: %s has %d arrays but the symbol needs %d (%s)'
                        % (what, len(values), len(names), names))
    return values


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        unknown = sorted(set(grad_req) - set(names))
        if unknown:
            raise BindError('bind: grad_req names unknown arguments %s; arguments are %s' % (unknown, names))
        reqs = [grad_req.get(n, 'null') for n in names]
    else:
        reqs = list(grad_req)
        if len(reqs) != len(names):
            raise BindError('bind: grad_req list has %d entries for %d arguments' % (len(reqs), len(names)))
    for name, req in zip(names, reqs):
        if req not in _GRAD_REQS:
            raise BindError("bind: grad_req for argument %r must be 'write', 'add' or 'null', got %r" % (name, req))
    return reqs


class Executor:
    """The result of bind/simple_bind."""

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req='write', aux_states=None,
                 group2ctx=None, shared_exec=None):
        if not isinstance(ctx, Context):
            raise BindError('bind: ctx must be a Context (a list of contexts is what Module is for), got %r'
                            % (ctx,))
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = dict(group2ctx or {})
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self._arg_names, self._aux_names = arg_names, aux_names
        self._output_names = symbol.list_outputs()

        self.arg_arrays = _as_list('args', args, arg_names)
        for name, arr in zip(arg_names, self.arg_arrays):
            if not isinstance(arr, NDArray):
                raise BindError('bind: argument %r must be an NDArray, got %s' % (name, type(arr).__name__))
        self.grad_arrays = _as_list('args_grad', args_grad, arg_names, allow_missing=True)
        reqs = _grad_reqs(grad_req, arg_names)
        # an argument without a gradient array gets no gradient, whatever grad_req says
        self._grad_req = [r if g is not None else 'null' for r, g in zip(reqs, self.grad_arrays)]
        self.grad_arrays = [g if r != 'null' else None for r, g in zip(self._grad_req, self.grad_arrays)]
        if aux_names and aux_states is None:
            raise BindError('bind: the symbol has auxiliary states %s; pass aux_states' % aux_names)
        self.aux_arrays = _as_list('aux_states', aux_states or [], aux_names)

        self._check_shapes()
        self._build()
        self._monitor = None
        self._monitor_all = False
        self._values = None
        self._trained_forward = False

    # ------------------------------------------------------------- building
    def _check_shapes(self):
        """Run inference with the bound shapes so inconsistencies name the operator at fault."""
        given = {n: a.shape for n, a in zip(self._arg_names, self.arg_arrays)}
        given.update({n: a.shape for n, a in zip(self._aux_names, self.aux_arrays)})
        for name, arr, grad in zip(self._arg_names, self.arg_arrays, self.grad_arrays):
            if grad is not None and grad.shape != arr.shape:
                raise ShapeError('bind: gradient array of %r has shape %s, the argument has %s'
                                 % (name, grad.shape, arr.shape))
        self._nodes, self._entry_shapes = infer_graph_shapes(self._symbol._outputs, given)
        given_types = {n: a.dtype for n, a in zip(self._arg_names, self.arg_arrays)}
        given_types.update({n: a.dtype for n, a in zip(self._aux_names, self.aux_arrays)})
        _, self._entry_types = infer_graph_types(self._symbol._outputs, given_types)

    def _build(self):
        var_ctx = {n: a.context for n, a in zip(self._arg_names, self.arg_arrays)}
        var_ctx.update({n: a.context for n, a in zip(self._aux_names, self.aux_arrays)})
        grad_vars = [n for n, r in zip(self._arg_names, self._grad_req) if r != 'null']
        self._plan = build_plan(self._nodes, self._symbol._outputs, self._ctx, var_ctx,
                                self._group2ctx, grad_vars)
        plan = self._plan
        self._arg_slots = [plan.var_slot[n] for n in self._arg_names]
        self._aux_slots = [plan.var_slot[n] for n in self._aux_names]
        self._bound = list(zip(self._arg_slots, self.arg_arrays)) + list(zip(self._aux_slots, self.aux_arrays))
        # output arrays are allocated once; every forward writes into the same arrays
        self.outputs = []
        for (node, i), slot in zip(self._symbol._outputs, plan.head_slots):
            shape = self._entry_shapes.get((id(node), i))
            dtype = self._entry_types.get((id(node), i)) or np.float32
            if not shape_is_known(shape):
                raise ShapeError('bind: cannot infer the shape of output %r' % node.output_name(i))
            self.outputs.append(zeros(shape, plan.slot_ctx[slot], dtype))

    # ------------------------------------------------------------- views
    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._output_names, self.outputs))

    @property
    def symbol(self):
        return self._symbol

    # ------------------------------------------------------------- running
    def forward(self, is_train=False, **kwargs):
        """Run the graph.  Keyword arrays are copied *into* the bound arguments first."""
        arg_dict = None
        for name, value in kwargs.items():
            if arg_dict is None:
                arg_dict = self.arg_dict
            if name not in arg_dict:
                raise BindError('forward: %r is not an argument of the symbol; arguments are %s'
                                % (name, self._arg_names))
            target = arg_dict[name]
            shape = value.shape if hasattr(value, 'shape') else np.shape(value)
            if tuple(shape) != target.shape:
                raise ShapeError('forward: argument %r is bound with shape %s, got an array of shape %s '
                                 '(use reshape() for a new shape)' % (name, target.shape, tuple(shape)))
            target[:] = value
        values = [None] * self._plan.num_slots
        for slot, arr in self._bound:
            values[slot] = arr._data
        monitor = self._monitor
        for step in self._plan.steps:
            ins = [values[s] for s in step.in_slots]
            for k in step.moves:
                ins[k] = move(ins[k], step.ctx)
            aux = [values[s] for s in step.aux_slots]
            env = step.env_train if is_train else step.env_test
            with step.ctx.device_scope():
                outs = step.op.forward(step.params, env, ins, aux)
            for s, out in zip(step.out_slots, outs):
                values[s] = out
            if monitor is not None:
                self._call_monitor(step, ins, outs)
            if not is_train:
                for s in step.free_after:
                    values[s] = None
        for out, slot in zip(self.outputs, self._plan.head_slots):
            out._data[...] = values[slot]
        self._values = values if is_train else None
        self._trained_forward = is_train
        return self.outputs

    def _call_monitor(self, step, ins, outs):
        node = step.node
        for i in range(step.nvis):
            self._monitor(node.output_name(i), NDArray(outs[i], step.ctx))
        if self._monitor_all:
            for (child, i), value in zip(node.inputs, ins):
                self._monitor('%s_%s' % (node.name, child.output_name(i)), NDArray(value, step.ctx))

    def backward(self, out_grads=None, is_train=True):
        """Propagate gradients from the outputs to every argument with a gradient array.

        Loss heads (SoftmaxOutput, ...) make their own head gradient; any other
        output that a gradient must flow through needs an entry in ``out_grads``.
        """
        if self._values is None:
            raise MXNetError('backward: call forward(is_train=True) first; the last forward '
                             'was %s' % ('in inference mode' if self._trained_forward is False else 'missing'))
        plan = self._plan
        heads = self._head_grads(out_grads)
        grads = {}

        def accumulate(slot, g):
            old = grads.get(slot)
            grads[slot] = g if old is None else old + g

        for slot, g in zip(plan.head_slots, heads):
            if g is not None:
                accumulate(slot, g)
        values = self._values
        for step in reversed(plan.steps):
            if not step.needs_grad:
                continue
            visible = step.out_slots[:step.nvis]
            if not step.op.is_loss and all(s not in grads for s in visible):
                continue
            xp = step.env_train.xp
            ogs = [grads.pop(s, None) for s in step.out_slots]
            if not step.op.is_loss:
                ogs = [xp.zeros_like(values[s]) if g is None and k < step.nvis else g
                       for k, (s, g) in enumerate(zip(step.out_slots, ogs))]
            ins = [values[s] for s in step.in_slots]
            for k in step.moves:
                ins[k] = move(ins[k], step.ctx)
            outs = [values[s] for s in step.out_slots]
            aux = [values[s] for s in step.aux_slots]
            with step.ctx.device_scope():
                in_grads = step.op.backward(step.params, step.env_train, ogs, ins, outs, aux)
            for slot, g in zip(step.in_slots, in_grads):
                if g is not None and plan.carries[slot]:
                    if plan.slot_ctx[slot] != step.ctx:
                        g = move(g, plan.slot_ctx[slot])
                    accumulate(slot, g)
        for slot, req, garr in zip(self._arg_slots, self._grad_req, self.grad_arrays):
            if req == 'null':
                continue
            g = grads.get(slot)
            if req == 'write':
                if g is None:
                    garr._data[...] = 0
                else:
                    garr._data[...] = g
            elif g is not None:
                garr._data += g

    def _head_grads(self, out_grads):
        plan = self._plan
        n = len(plan.head_slots)
        if out_grads is None:
            given = [None] * n
        elif isinstance(out_grads, NDArray):
            given = [out_grads] + [None] * (n - 1)
        elif isinstance(out_grads, dict):
            unknown = sorted(set(out_grads) - set(self._output_names))
            if unknown:
                raise BindError('backward: out_grads names unknown outputs %s; outputs are %s'
                                % (unknown, self._output_names))
            given = [out_grads.get(name) for name in self._output_names]
        else:
            given = list(out_grads)
            if len(given) > n:
                raise BindError('backward: %d out_grads for %d outputs' % (len(given), n))
            given += [None] * (n - len(given))
        heads = []
        for (node, i), slot, name, g, out in zip(self._symbol._outputs, plan.head_slots,
                                                   self._output_names, given, self.outputs):
            if g is None:
                if plan.carries[slot] and not (node.op is not None and node.op.is_loss):
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
        """Copy values into the bound argument/aux arrays (by name)."""
        for params, table in ((arg_params, self.arg_dict), (aux_params or {}, self.aux_dict)):
            for name, value in params.items():
                if name in table:
                    table[name][:] = value
                elif not allow_extra_params:
                    raise BindError('copy_params_from: %r is not an argument or auxiliary state of the '
                                    'symbol (pass allow_extra_params=True to ignore it)' % name)

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, NDArray)`` for every operator output (and input, with monitor_all)."""
        self._monitor = callback
        self._monitor_all = monitor_all

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes that shares every array whose shape did not change."""
        given = {n: a.shape for n, a in zip(self._arg_names, self.arg_arrays) if n not in kwargs}
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs) if not partial_shaping else \
            self._symbol.infer_shape_partial(**kwargs)
        if arg_shapes is None:
            raise ShapeError('reshape: cannot infer all shapes from %s' % kwargs)
        new_args, new_grads = [], []
        for name, shape, arr, grad in zip(self._arg_names, arg_shapes, self.arg_arrays, self.grad_arrays):
            if shape == arr.shape:
                new_args.append(arr)
                new_grads.append(grad)
                continue
            if name not in kwargs and not partial_shaping:
                raise ShapeError('reshape: the shape of %r would change from %s to %s; pass '
                                 'partial_shaping=True to allow it' % (name, given.get(name), shape))
            if np.prod(shape) > np.prod(arr.shape) and not allow_up_sizing:
                raise ShapeError('reshape: %r grows from %s to %s; pass allow_up_sizing=True'
                                 % (name, arr.shape, shape))
            new_args.append(zeros(shape, arr.context, arr.dtype))
            new_grads.append(None if grad is None else zeros(shape, grad.context, grad.dtype))
        new_aux = [a if tuple(s) == a.shape else zeros(s, a.context, a.dtype)
                   for s, a in zip(aux_shapes, self.aux_arrays)]
        reqs = dict(zip(self._arg_names, self._grad_req))
        grads = {n: g for n, g in zip(self._arg_names, new_grads) if g is not None}
        return Executor(self._symbol, self._ctx, new_args, grads, reqs, new_aux, self._group2ctx)

    def memory_report(self):
        """The memory plan of this executor in bytes (see executor.plan.memory_plan)."""
        shapes, dtypes = self._slot_shapes()
        report = memory_plan(self._plan, shapes, dtypes)
        report['arguments'] = sum(a._data.nbytes for a in self.arg_arrays)
        report['gradients'] = sum(g._data.nbytes for g in self.grad_arrays if g is not None)
        report['aux_states'] = sum(a._data.nbytes for a in self.aux_arrays)
        return report

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
        lines.append('memory: intermediates %s kept for backward; inference peak %s; '
                     'pooled allocation %s' % (_mb(mem['naive']), _mb(mem['inference_peak']), _mb(mem['pooled'])))
        return '\n'.join(lines)


def _mb(nbytes):
    return '%.3f MB (%d bytes)' % (nbytes / 2 ** 20, nbytes)


def simple_bind(symbol, ctx, grad_req='write', type_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shapes=None):
    """Allocate zero arrays for every argument, gradient and aux state, then bind.

    Shapes come from inference seeded with ``shapes``; dtypes from
    ``type_dict`` and the variables' ``__dtype__`` (float32 otherwise).  With
    ``group2ctx``, each variable is allocated on its ``__ctx_group__``'s device.
    With ``shared_exec``, arrays named in ``shared_arg_names`` whose shapes match
    are taken from that executor instead of allocated (Module uses this).
    """
    if not isinstance(ctx, Context):
        raise BindError('simple_bind: ctx must be one Context, got %r; to spread a batch over '
                        'several devices use mx.mod.Module(context=[...])' % (ctx,))
    shapes = dict(shapes or {})
    arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
    arg_names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    missing = [n for n, s in zip(arg_names + aux_names, arg_shapes + aux_shapes) if not shape_is_known(s)]
    if missing:
        raise ShapeError('simple_bind: cannot infer the shapes of %s from %s; give their shapes '
                         '(or the shapes they are deduced from) as keyword arguments' % (missing, shapes))
    types = {n: np.float32 for n in arg_names}
    attrs = symbol.attr_dict()
    for n in arg_names:
        if '__dtype__' in attrs.get(n, {}):
            types.pop(n)
    types.update(type_dict or {})
    arg_types, _, aux_types = symbol.infer_type(**{k: v for k, v in types.items() if k in arg_names})
    if arg_types is None:
        raise MXNetError('simple_bind: cannot infer all dtypes from %s' % types)

    def place(name):
        group = attrs.get(name, {}).get('__ctx_group__')
        return (group2ctx or {}).get(group, ctx) if group is not None else ctx

    reqs = _grad_reqs(grad_req, arg_names)
    shared = {}
    if shared_exec is not None:
        names = shared_arg_names if shared_arg_names is not None else arg_names
        shared = {n: (shared_exec.arg_dict.get(n), shared_exec.grad_dict.get(n)) for n in names}
    args, grads = [], {}
    for name, shape, dtype, req in zip(arg_names, arg_shapes, arg_types, reqs):
        arr, grad = shared.get(name, (None, None))
        if arr is None or arr.shape != tuple(shape):
            arr = zeros(shape, place(name), dtype)
            grad = None
        args.append(arr)
        if req != 'null':
            grads[name] = grad if grad is not None else zeros(shape, place(name), dtype)
    aux = [zeros(s, place(n), t) for n, s, t in zip(aux_names, aux_shapes, aux_types)]
    if shared_exec is not None:
        for k, name in enumerate(aux_names):
            old = shared_exec.aux_dict.get(name)
            if old is not None and old.shape == aux[k].shape:
                aux[k] = old
    return Executor(symbol, ctx, args, grads, reqs, aux, group2ctx)
