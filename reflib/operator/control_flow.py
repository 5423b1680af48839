"""Control flow as graph operators: ``_foreach``, ``_while_loop`` and ``_cond``.

MXNet 1.9.1 runs a loop or a branch inside a graph as *one node* whose parameters hold the
body as a graph of its own (a subgraph).  The node's inputs are everything the body reads
from outside -- the sequence, the initial states, the free variables -- and at run time the
node binds the body once to an inner executor and runs it once per step, feeding each
step's states into the next.  Backward runs the inner executor's backward step by step in
reverse order, carrying the gradient of the states backwards through time.

This file also holds the helpers ``mx.sym.contrib``'s front ends use: ``flatten`` and
``regroup``, which turn a nested list of symbols into a flat list and a *format* that
remembers the nesting, and back (``mx.nd.contrib`` writes the same few lines out for
NDArrays, so as not to import this file).

``num_args`` counts the inputs *and* the subgraphs, as MXNet's does (its subgraphs are
inputs of the node too): ``_foreach`` has ``num_args - 1`` inputs, ``_while_loop``
``num_args - 2`` and ``_cond`` ``num_args - 3``.
"""


# ------------------------------------------------------------ nested lists of arrays
def flatten(args, leaf_type, what):
    """``(flat list, format)`` of a nested list of ``leaf_type`` values (Symbols).

    The format of a single value is ``0``; of a list it is the list of its items' formats.
    A body may return one array, a list, or lists within lists; flattening lets the loop
    treat them all as a plain list, and ``regroup`` gives the caller its own nesting back.
    """
    if isinstance(args, leaf_type):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise TypeError('%s must be a %s or a (nested) list of them, got %s'
                        % (what, leaf_type.__name__, type(args).__name__))
    flat, fmt = [], []
    for item in args:
        items, item_fmt = flatten(item, leaf_type, what)
        flat.extend(items)
        fmt.append(item_fmt)
    return flat, fmt


def regroup(flat, fmt):
    """The inverse of ``flatten``: ``(nested value, what is left of flat)``."""
    if isinstance(fmt, int):
        return flat[0], flat[1:]
    nested = []
    for item_fmt in fmt:
        item, flat = regroup(flat, item_fmt)
        nested.append(item)
    return nested, flat


def as_python_scalar(value, kind, what):
    """``bool(pred)`` or ``int(max_iterations)`` from an array of one element or a number."""
    if hasattr(value, 'asscalar'):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError('cannot convert %s (%r) to a Python %s' % (what, value, kind.__name__)) from None


def func_name(func):
    """How an error message names the user's body function."""
    return getattr(func, '__qualname__', None) or getattr(func, '__name__', None) or repr(func)


# ------------------------------------------------------------ the body as a graph
import numpy as np  # noqa: E402

from .registry import Operator, Param, register  # noqa: E402
from ..shapes import is_np_shape, merge_shape  # noqa: E402

_LOADED = {}   # subgraph JSON -> Subgraph, so each node parses its body once


class Subgraph:
    """A body graph held by a control-flow node, and the inner executor that runs it.

    The node's parameters keep the body as its JSON text (so a saved graph keeps its
    loops); ``Subgraph.of`` turns that text back into a Symbol once.  ``run`` binds the body
    to an executor the first time it meets a context and argument shapes, and afterwards
    only copies the new argument values in: one executor serves every step of a loop, and
    every later run.  (They are kept for the life of the process, one per body, context and
    shapes: the price of not binding once per step.)
    """

    def __init__(self, text):
        # a body is a Symbol, a layer above the operators: a node that holds a graph needs it
        from ..symbol.serialization import load_json
        self.symbol = load_json(text)
        self.arg_names = self.symbol.list_arguments()
        self.num_outputs = len(self.symbol.list_outputs())
        self._exe = {}

    @classmethod
    def of(cls, text):
        if text not in _LOADED:
            _LOADED[text] = cls(text)
        return _LOADED[text]

    # ------------------------------------------------------------------ inference
    def infer_shapes(self, arg_shapes):
        """``(argument shapes, output shapes)`` from the known ones (None: unknown)."""
        known = {n: s for n, s in zip(self.arg_names, arg_shapes) if s is not None}
        args, outs, _ = self.symbol.infer_shape_partial(**known)

        def unknown_as_none(shape):       # infer_shape_partial gives () where it found nothing
            return None if shape is None or len(shape) == 0 else tuple(shape)
        args = [unknown_as_none(a) or known.get(n)
                for n, a in zip(self.arg_names, args or [None] * len(self.arg_names))]
        return args, [unknown_as_none(o) for o in (outs or [None] * self.num_outputs)]

    def infer_types(self, arg_types):
        known = {n: t for n, t in zip(self.arg_names, arg_types) if t is not None}
        args, outs, _ = self.symbol.infer_type_partial(**known)
        return (list(args or [None] * len(self.arg_names)), list(outs or [None] * self.num_outputs))

    # ------------------------------------------------------------------ running
    def run(self, env, values, head_grads=None):
        """Forward the body on ``values`` (raw arrays, one per argument); with
        ``head_grads`` also backward.  Returns ``(outputs, argument gradients)``."""
        from ..ndarray.ndarray import NDArray   # the inner executor (Symbol.bind) takes NDArrays
        train = head_grads is not None or env.is_train
        key = (env.ctx, tuple((v.shape, v.dtype) for v in values), head_grads is not None)
        exe = self._exe.get(key)
        if exe is None:
            args = {n: NDArray(env.xp.array(v), env.ctx) for n, v in zip(self.arg_names, values)}
            grads, req = None, 'null'
            if head_grads is not None:
                # integer arguments (a loop counter) take no gradient
                req = {n: 'write' if np.issubdtype(v.dtype, np.floating) else 'null'
                       for n, v in zip(self.arg_names, values)}
                grads = {n: NDArray(env.xp.zeros_like(v), env.ctx) for n, v in zip(self.arg_names, values)}
            exe = self._exe[key] = self.symbol.bind(env.ctx, args, args_grad=grads, grad_req=req)
        else:
            for name, v in zip(self.arg_names, values):
                exe.arg_dict[name]._data[...] = v
        exe.forward(is_train=train)
        outputs = [env.xp.array(o._data) for o in exe.outputs]
        if head_grads is None:
            return outputs, None
        heads = [NDArray(env.xp.zeros_like(o) if g is None else env.xp.asarray(g, dtype=o.dtype), env.ctx)
                 for o, g in zip(outputs, head_grads)]
        exe.backward(heads)
        grads = [None if exe.grad_dict.get(n) is None else env.xp.array(exe.grad_dict[n]._data)
                 for n in self.arg_names]
        return outputs, grads


def _locs(doc):
    return Param('shape', (), doc=doc)


def _add(total, g):
    """Sum gradients, None standing for zero."""
    if g is None:
        return total
    return g if total is None else total + g


# ------------------------------------------------------------------- _foreach
@register
class Foreach(Operator):
    """Scan a body graph over axis 0 of its data inputs, carrying states from step to step.

    Inputs, in order: the sequences (``in_data_locs`` says which body argument each feeds,
    one slice per step), the initial states (``in_state_locs``), and everything else the
    body reads (``remain_locs``: weights, free variables; the same at every step).  The
    body's outputs are its per-step outputs (the first ``num_out_data``, stacked along a new
    axis 0) then its new states, which become the state arguments of the next step.
    """
    name = '_foreach'
    key_var_num_args = 'num_args'
    params = {
        'num_args': Param('int', low=1, doc='the inputs and the one subgraph'),
        'subgraph': Param('str', doc='the body, as symbol JSON'),
        'num_outputs': Param('int', low=0),
        'num_out_data': Param('int', low=0),
        'in_data_locs': _locs('the body argument each sequence feeds'),
        'in_state_locs': _locs('the body argument each state feeds'),
        'remain_locs': _locs('the body argument each other input feeds'),
    }
    eliminable = False

    def inputs(self, p):
        return ['data%d' % i for i in range(p.num_args - 1)]

    def outputs(self, p):
        return ['output%d' % i for i in range(p.num_outputs)]

    @staticmethod
    def _item_shape(shape):
        """The shape of one step's slice of a sequence: a 1-D sequence gives (1,) outside
        NumPy-shape mode, as MXNet's legacy shapes have no 0-d arrays."""
        return shape[1:] if len(shape) > 1 or is_np_shape() else (1,)

    @staticmethod
    def _arg_positions(p):
        """For each operator input, the body argument it feeds."""
        return list(p.in_data_locs) + list(p.in_state_locs) + list(p.remain_locs)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        body = Subgraph.of(p.subgraph)
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        pos = self._arg_positions(p)
        arg = [None] * len(body.arg_names)
        for k, s in enumerate(in_shapes):
            arg[pos[k]] = (self._item_shape(s) if s is not None and len(s) else None) if k < nd_ else s
        for i in range(ns):        # a state's shape is also its new value's shape
            s = out_shapes[p.num_out_data + i]
            if s is not None:
                arg[pos[nd_ + i]] = merge_shape(arg[pos[nd_ + i]], s, self.name)
        arg, outs = body.infer_shapes(arg)
        steps = next((s[0] for s in in_shapes[:nd_] if s is not None and len(s)), None)
        new_in = list(in_shapes)
        for k in range(len(in_shapes)):
            if k >= nd_ and arg[pos[k]] is not None:
                new_in[k] = merge_shape(in_shapes[k], arg[pos[k]], self.name)
        new_out = []
        for j, s in enumerate(outs):
            if j < p.num_out_data:
                new_out.append(None if s is None or steps is None else (steps,) + s)
            else:
                new_out.append(merge_shape(s, new_in[nd_ + j - p.num_out_data], self.name))
        return new_in, new_out, list(aux_shapes)

    def infer_type(self, p, in_types, out_types, aux_types):
        body = Subgraph.of(p.subgraph)
        pos = self._arg_positions(p)
        arg = [None] * len(body.arg_names)
        for k, t in enumerate(in_types):
            arg[pos[k]] = t
        arg, outs = body.infer_types(arg)
        return [arg[pos[k]] if t is None else t for k, t in enumerate(in_types)], outs, list(aux_types)

    def _steps(self, p, env, inputs):
        """Forward through every step: ``(per-step outputs, per-step argument values)``."""
        body = Subgraph.of(p.subgraph)
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        pos = self._arg_positions(p)
        values = [None] * len(body.arg_names)
        for k in range(nd_, len(inputs)):
            values[pos[k]] = inputs[k]
        per_step_out, per_step_args = [], []
        for t in range(inputs[0].shape[0] if nd_ else 0):
            for k in range(nd_):
                values[pos[k]] = inputs[k][t].reshape(self._item_shape(inputs[k].shape))
            per_step_args.append(list(values))
            outs, _ = body.run(env, values)
            per_step_out.append(outs)
            for i in range(ns):
                values[pos[nd_ + i]] = outs[p.num_out_data + i]
        return per_step_out, per_step_args

    def forward(self, p, env, inputs, aux):
        per_step_out, _ = self._steps(p, env, inputs)
        nd_ = len(p.in_data_locs)
        ns = len(p.in_state_locs)
        data = [env.xp.stack([o[j] for o in per_step_out]) for j in range(p.num_out_data)]
        states = ([env.xp.array(s) for s in per_step_out[-1][p.num_out_data:]] if per_step_out
                  else [env.xp.array(inputs[nd_ + i]) for i in range(ns)])
        return data + states

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # the states of each step are computed again from the inputs (not kept from forward),
        # then the body's backward runs from the last step to the first, the gradient of each
        # step's states becoming the head gradient of the previous step's new states
        body = Subgraph.of(p.subgraph)
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        pos = self._arg_positions(p)
        _, per_step_args = self._steps(p, env, inputs)
        carried = list(out_grads[p.num_out_data:])
        data_grads = [env.xp.zeros_like(inputs[k]) for k in range(nd_)]
        remain = [None] * (len(inputs) - nd_ - ns)
        for t in reversed(range(len(per_step_args))):
            heads = [None if g is None else g[t] for g in out_grads[:p.num_out_data]] + carried
            _, grads = body.run(env, per_step_args[t], heads)
            for k in range(nd_):
                if grads[pos[k]] is not None:
                    data_grads[k][t] = grads[pos[k]].reshape(data_grads[k][t].shape)
            carried = [grads[pos[nd_ + i]] for i in range(ns)]
            for r in range(len(remain)):
                remain[r] = _add(remain[r], grads[pos[nd_ + ns + r]])
        return data_grads + carried + remain


# ----------------------------------------------------------------- _while_loop
def _feed(values, locs):
    """The arguments of one body: ``values[l]`` for each of its locations ``l``."""
    return [values[l] for l in locs]


@register
class WhileLoop(Operator):
    """Run the body graph ``func`` while the graph ``cond`` gives a nonzero scalar, at most
    ``max_iterations`` times.

    The inputs are the union of what the two graphs read; ``cond_input_locs`` and
    ``func_input_locs`` list, for each argument of each graph, the input that feeds it.
    Loop variable ``i`` is ``func``'s argument ``func_var_locs[i]``: after each step it takes
    the value of ``func``'s output ``num_out_data + i``.  The first ``num_out_data`` outputs
    are stacked along a new axis 0 of ``max_iterations`` rows -- a graph needs its shapes
    before it runs -- and the rows after the last step are zeros (MXNet leaves them
    uninitialised).
    """
    name = '_while_loop'
    key_var_num_args = 'num_args'
    params = {
        'num_args': Param('int', low=2, doc='the inputs and the two subgraphs'),
        'cond': Param('str', doc='the condition graph, as symbol JSON'),
        'func': Param('str', doc='the body graph, as symbol JSON'),
        'max_iterations': Param('int', low=0),
        'cond_input_locs': _locs('the input feeding each argument of cond'),
        'func_input_locs': _locs('the input feeding each argument of func'),
        'func_var_locs': _locs('the argument of func that is each loop variable'),
        'num_out_data': Param('int', low=0),
        'num_outputs': Param('int', low=0),
    }
    eliminable = False

    def inputs(self, p):
        return ['data%d' % i for i in range(p.num_args - 2)]

    def outputs(self, p):
        return ['output%d' % i for i in range(p.num_outputs)]

    @staticmethod
    def _var_inputs(p):
        """The operator input holding each loop variable's initial value."""
        return [p.func_input_locs[a] for a in p.func_var_locs]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        func = Subgraph.of(p.func)
        new_in = list(in_shapes)
        for i, k in enumerate(self._var_inputs(p)):
            new_in[k] = merge_shape(new_in[k], out_shapes[p.num_out_data + i], self.name)
        args, outs = func.infer_shapes(_feed(new_in, p.func_input_locs))
        for a, k in enumerate(p.func_input_locs):
            new_in[k] = merge_shape(new_in[k], args[a], self.name)
        cond_args, _ = Subgraph.of(p.cond).infer_shapes(_feed(new_in, p.cond_input_locs))
        for a, k in enumerate(p.cond_input_locs):
            new_in[k] = merge_shape(new_in[k], cond_args[a], self.name)
        new_out = [None if s is None else (p.max_iterations,) + s for s in outs[:p.num_out_data]]
        new_out += [new_in[k] for k in self._var_inputs(p)]
        return new_in, new_out, list(aux_shapes)

    def infer_type(self, p, in_types, out_types, aux_types):
        new_in = list(in_types)
        args, outs = Subgraph.of(p.func).infer_types(_feed(new_in, p.func_input_locs))
        for a, k in enumerate(p.func_input_locs):
            new_in[k] = new_in[k] or args[a]
        new_out = list(outs[:p.num_out_data]) + [new_in[k] for k in self._var_inputs(p)]
        return new_in, new_out, list(aux_types)

    def _steps(self, p, env, inputs):
        """Forward until ``cond`` says stop: ``(per-step outputs, per-step input values)``."""
        cond, func = Subgraph.of(p.cond), Subgraph.of(p.func)
        values, var_inputs = list(inputs), self._var_inputs(p)
        per_step_out, per_step_values = [], []
        while len(per_step_out) < p.max_iterations:
            (go,), _ = cond.run(env, _feed(values, p.cond_input_locs))
            if not bool(go.reshape(-1)[0]):
                break
            per_step_values.append(list(values))
            outs, _ = func.run(env, _feed(values, p.func_input_locs))
            per_step_out.append(outs)
            for i, k in enumerate(var_inputs):
                values[k] = outs[p.num_out_data + i]
        return per_step_out, per_step_values, values

    def forward(self, p, env, inputs, aux):
        per_step_out, _, values = self._steps(p, env, inputs)
        if per_step_out:
            rows = [(o.shape, o.dtype) for o in per_step_out[0][:p.num_out_data]]
        else:       # the body never ran: every row is padding, of the shapes func would give
            func = Subgraph.of(p.func)
            _, shapes = func.infer_shapes(_feed([x.shape for x in inputs], p.func_input_locs))
            _, types = func.infer_types(_feed([x.dtype for x in inputs], p.func_input_locs))
            rows = list(zip(shapes, types))[:p.num_out_data]
        data = []
        for j, (shape, dtype) in enumerate(rows):
            stacked = env.xp.zeros((p.max_iterations,) + tuple(shape), dtype)
            for t, outs in enumerate(per_step_out):
                stacked[t] = outs[j]
            data.append(stacked)
        return data + [env.xp.array(values[k]) for k in self._var_inputs(p)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # as _foreach: the steps again, then func's backward from the last step to the first
        func = Subgraph.of(p.func)
        _, per_step_values, _ = self._steps(p, env, inputs)
        var_inputs = self._var_inputs(p)
        carried = list(out_grads[p.num_out_data:])
        grads = [None] * len(inputs)
        for t in reversed(range(len(per_step_values))):
            heads = [None if g is None else g[t] for g in out_grads[:p.num_out_data]] + carried
            _, arg_grads = func.run(env, _feed(per_step_values[t], p.func_input_locs), heads)
            carried = [None] * len(var_inputs)
            for a, k in enumerate(p.func_input_locs):
                if k in var_inputs:
                    carried[var_inputs.index(k)] = arg_grads[a]
                else:
                    grads[k] = _add(grads[k], arg_grads[a])
        for i, k in enumerate(var_inputs):
            grads[k] = _add(grads[k], carried[i])
        return grads


# ----------------------------------------------------------------------- _cond
@register
class Cond(Operator):
    """``then_branch`` if the graph ``cond`` gives a nonzero scalar, else ``else_branch``:
    only the branch taken runs.  Each graph's arguments are fed from the inputs listed in
    its ``*_input_locs``; both branches give ``num_outputs`` outputs of the same shapes."""
    name = '_cond'
    key_var_num_args = 'num_args'
    params = {
        'num_args': Param('int', low=3, doc='the inputs and the three subgraphs'),
        'cond': Param('str', doc='the predicate graph, as symbol JSON'),
        'then_branch': Param('str', doc='the graph run when the predicate holds'),
        'else_branch': Param('str', doc='the graph run when it does not'),
        'cond_input_locs': _locs('the input feeding each argument of cond'),
        'then_input_locs': _locs('the input feeding each argument of then_branch'),
        'else_input_locs': _locs('the input feeding each argument of else_branch'),
        'num_outputs': Param('int', low=1),
    }
    eliminable = False

    def inputs(self, p):
        return ['data%d' % i for i in range(p.num_args - 3)]

    def outputs(self, p):
        return ['output%d' % i for i in range(p.num_outputs)]

    def _branches(self, p):
        return ((Subgraph.of(p.cond), p.cond_input_locs), (Subgraph.of(p.then_branch), p.then_input_locs),
                (Subgraph.of(p.else_branch), p.else_input_locs))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        new_in, new_out = list(in_shapes), list(out_shapes)
        for graph, locs in self._branches(p):
            args, outs = graph.infer_shapes(_feed(new_in, locs))
            for a, k in enumerate(locs):
                new_in[k] = merge_shape(new_in[k], args[a], self.name)
            if graph is not self._branches(p)[0][0]:
                new_out = [merge_shape(o, s, self.name) for o, s in zip(new_out, outs)]
        return new_in, new_out, list(aux_shapes)

    def infer_type(self, p, in_types, out_types, aux_types):
        new_in, new_out = list(in_types), list(out_types)
        for graph, locs in self._branches(p)[1:]:
            args, outs = graph.infer_types(_feed(new_in, locs))
            for a, k in enumerate(locs):
                new_in[k] = new_in[k] or args[a]
            new_out = [o or t for o, t in zip(new_out, outs)]
        return new_in, new_out, list(aux_types)

    def _taken(self, p, env, inputs):
        (pred, pred_locs), then_, else_ = self._branches(p)
        (value,), _ = pred.run(env, _feed(inputs, pred_locs))
        return then_ if bool(value.reshape(-1)[0]) else else_

    def forward(self, p, env, inputs, aux):
        graph, locs = self._taken(p, env, inputs)
        outs, _ = graph.run(env, _feed(inputs, locs))
        return outs

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        graph, locs = self._taken(p, env, inputs)
        _, arg_grads = graph.run(env, _feed(inputs, locs), list(out_grads))
        grads = [None] * len(inputs)
        for a, k in enumerate(locs):
            grads[k] = _add(grads[k], arg_grads[a])
        return grads
