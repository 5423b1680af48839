"""``mx.sym.contrib``: the ``_contrib_*`` operators under their short names, each node named
after the short name (``sparseembedding0``, ``ctc_loss0``), as MXNet names them."""

import math

from .. import operator as _ops
from . import random as _random
from .linalg import short_named

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = short_named(_name, _name[len(_PREFIX):].lower())
del _name


def rand_zipfian(true_classes, num_sampled, range_max):
    """The graph form of ``mx.nd.contrib.rand_zipfian``: ``num_sampled`` log-uniform classes in
    [0, range_max) and the expected counts of ``true_classes`` and of the samples (float64)."""
    log_range = math.log(range_max + 1)

    def expected_count(classes):
        c = classes.astype('float64')
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled
    drawn = _random.uniform(0, log_range, shape=(num_sampled,), dtype='float64')
    samples = (drawn.exp() - 1).astype('int64') % range_max
    return samples, expected_count(true_classes), expected_count(samples)


# ------------------------------------------------------------- control flow
# A loop or branch in a graph is one node holding its body as a graph of its own (see
# reflib/operator/control_flow.py).  Building it takes three moves: call the body on fresh
# variables inside AttrScope(__subgraph_name__=...), so every node it makes is marked as
# its own; *cut* the body where it reaches a node not so marked (a free variable's
# expression, an earlier loop's output), putting a variable in its place and making the
# outside node an input of the loop node; and record which body argument each input feeds.
from collections import defaultdict as _defaultdict  # noqa: E402

from .attribute import AttrScope as _AttrScope  # noqa: E402
from ..operator import control_flow as _cf  # noqa: E402
from .symbol import Group as _Group, Node as _Node, Symbol as _Symbol  # noqa: E402
from .symbol import invoke as _invoke, topo_order as _topo_order  # noqa: E402

if not hasattr(_AttrScope, '_subgraph_names'):
    # how many bodies of each name were built, to number them uniquely (MXNet's tests read it)
    _AttrScope._subgraph_names = _defaultdict(int)


def _unique_subgraph_name(name):
    """``name`` numbered (``foreach0``), inside an enclosing body prefixed ``outer$name``."""
    outer = _AttrScope.current.get(None).get('__subgraph_name__', '')
    if outer:
        name = outer + '$' + name
    _AttrScope._subgraph_names[name] += 1
    return name + str(_AttrScope._subgraph_names[name] - 1)


def _placeholder(sym):
    """A variable standing for ``sym`` inside the body, named uniquely after it."""
    node, index = sym._outputs[0]
    return _Symbol([(_Node(None, '%s-%d' % (node.name, index)), 0)])


def _body_graph(outputs, name):
    """The body's outputs as one Group whose every output is a node of its own made inside
    the body: an output that is a placeholder, comes from outside, or repeats an earlier
    one goes through ``identity``, so that the loop node can tell its outputs apart."""
    seen, fixed = set(), []
    for sym in outputs:
        node, index = sym._outputs[0]
        if node.op is None or node.attrs.get('__subgraph_name__') != name or (id(node), index) in seen:
            with _AttrScope(__subgraph_name__=name):
                sym = _invoke('identity', sym)
        seen.add((id(sym._outputs[0][0]), sym._outputs[0][1]))
        fixed.append(sym)
    return _Group(fixed)


def _cut(graph, name):
    """Copy ``graph`` with every edge from a node outside the body replaced by a variable.

    Returns ``(body, outer)``: the body Symbol and ``{argument name: outside Symbol}``.
    Variables the body reads keep their names and are fed by themselves: they become inputs
    of the loop node too."""
    copies, outer = {}, {}
    for node in _topo_order(graph._outputs):
        if node.op is None or node.attrs.get('__subgraph_name__') != name:
            continue
        inputs = []
        for child, index in node.inputs:
            if child.op is not None and child.attrs.get('__subgraph_name__') != name:
                var_name = child.output_name(index)
                if var_name not in outer:
                    outer[var_name] = _Symbol([(child, index)])
                    copies[(id(child), index)] = _Node(None, var_name)
                inputs.append((copies[(id(child), index)], 0))
            else:
                if child.op is None:    # a variable: fed by that very variable outside
                    outer.setdefault(child.name, _Symbol([(child, 0)]))
                inputs.append((copies.get(id(child), child), index))
        new = _Node.__new__(_Node)
        new.op, new.name, new.attrs, new.params = node.op, node.name, dict(node.attrs), node.params
        new.inputs = inputs
        copies[id(node)] = new
    return _Symbol([(copies[id(n)], i) for n, i in graph._outputs]), outer


def foreach(body, data, init_states, name='foreach'):
    """The graph form of ``mx.nd.contrib.foreach``: one ``_foreach`` node that runs ``body``
    once per slice of ``data`` along axis 0 at execution time (the body is *not* unrolled).

    ``body(item, states)`` is called once, on variables, to build the body graph.  Returns
    ``(outputs, final_states)`` nested as the body returns them."""
    flat_data, data_fmt = _cf.flatten(data, _Symbol, 'foreach data')
    flat_states, state_fmt = _cf.flatten(init_states, _Symbol, 'foreach init_states')
    name = _unique_subgraph_name(name)
    with _AttrScope(__subgraph_name__=name):
        data_vars = [_placeholder(s) for s in flat_data]
        state_vars = [_placeholder(s) for s in flat_states]
        outs, states = body(_cf.regroup(data_vars, data_fmt)[0], _cf.regroup(state_vars, state_fmt)[0])
    what = 'foreach body %s' % _cf.func_name(body)
    flat_outs, out_fmt = _cf.flatten(outs, _Symbol, 'the output of ' + what)
    flat_new, new_fmt = _cf.flatten(states, _Symbol, 'the states of ' + what)
    # AssertionError, as MXNet raises here (its own tests catch that class)
    if len(flat_new) != len(flat_states) or new_fmt != state_fmt:
        raise AssertionError('%s returned %d states, but init_states has %d (or nests them differently)'
                             % (what, len(flat_new), len(flat_states)))
    graph, outer = _cut(_body_graph(flat_outs + flat_new, name), name)
    args = graph.list_arguments()
    for role, variables in (('data', data_vars), ('state', state_vars)):
        for v in variables:
            if v.name not in args:
                raise AssertionError('%s does not use its %s argument %s: MXNet requires every '
                                 'sequence and state to be used' % (what, role, v.name))
    in_data = [args.index(v.name) for v in data_vars]
    in_state = [args.index(v.name) for v in state_vars]
    taken = set(in_data) | set(in_state)
    remain = [k for k in range(len(args)) if k not in taken]
    result = _invoke('_foreach', *(flat_data + flat_states + [outer[args[k]] for k in remain]),
                     num_args=len(flat_data) + len(flat_states) + len(remain) + 1,
                     subgraph=graph.tojson(), num_outputs=len(flat_outs) + len(flat_new),
                     num_out_data=len(flat_outs), in_data_locs=tuple(in_data),
                     in_state_locs=tuple(in_state), remain_locs=tuple(remain))
    results = [result[i] for i in range(len(flat_outs) + len(flat_new))]
    outputs = _cf.regroup(results[:len(flat_outs)], out_fmt)[0] if flat_outs else []
    return outputs, _cf.regroup(results[len(flat_outs):], state_fmt)[0] if flat_new else []


def _branch_graph(func, name, what):
    """Build one body (a cond or a branch) in its own scope and cut it: ``(graph, outer,
    output format)``."""
    name = _unique_subgraph_name(name)
    with _AttrScope(__subgraph_name__=name):
        outs = func()
    flat, fmt = _cf.flatten(outs, _Symbol, what)
    graph, outer = _cut(_body_graph(flat, name), name)
    return graph, outer, fmt, len(flat)


def _union_inputs(graphs, known):
    """One input list for several graphs: each argument is fed by ``known[name]`` (a loop
    variable), a node the cut took out, or the variable itself; an outside Symbol read by
    several graphs is one input.  Returns ``(inputs, one location list per graph)``."""
    inputs, index_of, all_locs = [], {}, []
    for graph, outer in graphs:
        locs = []
        for arg in graph.list_arguments():
            sym = known[arg] if arg in known else outer[arg]
            node, index = sym._outputs[0]
            if arg in known:
                # a loop variable is an input of its own even where the same Symbol is also
                # read as a free value: the loop replaces the one, never the other
                key = ('loop variable', arg)
            else:
                key = ('variable', node.name) if node.op is None else (id(node), index)
            if key not in index_of:
                index_of[key] = len(inputs)
                inputs.append(sym)
            locs.append(index_of[key])
        all_locs.append(tuple(locs))
    return inputs, all_locs


def while_loop(cond, func, loop_vars, max_iterations=None, name='while_loop'):
    """The graph form of ``mx.nd.contrib.while_loop``: one ``_while_loop`` node holding the
    graphs of ``cond`` and ``func``, run step by step at execution time (not unrolled).

    The step outputs have ``max_iterations`` rows whatever the number of steps taken.
    Returns ``(outputs, final_loop_vars)`` nested as ``func`` and ``loop_vars`` are."""
    if max_iterations is None:
        raise ValueError('while_loop: max_iterations must be given (the output has that many rows)')
    max_iterations = _cf.as_python_scalar(max_iterations, int, 'max_iterations')
    flat_vars, var_fmt = _cf.flatten(loop_vars, _Symbol, 'while_loop loop_vars')
    if not flat_vars:
        raise ValueError('while_loop: loop_vars must hold at least one symbol')
    placeholders = {}

    def variables():
        made = [_placeholder(s) for s in flat_vars]
        placeholders.update((v.name, s) for v, s in zip(made, flat_vars))
        return made

    def cond_body():
        result = cond(*variables())
        if not isinstance(result, _Symbol):
            raise ValueError('while_loop cond %s must return a Symbol, got %s'
                             % (_cf.func_name(cond), type(result).__name__))
        return [result]
    cond_graph, cond_outer, _, _ = _branch_graph(cond_body, name + '_cond', 'while_loop cond')
    step = {}

    def func_body():
        outs, new_vars = func(*variables())
        outs = [] if outs is None else outs
        new_vars = [] if new_vars is None else new_vars
        flat_outs, step['fmt'] = _cf.flatten(outs, _Symbol, 'the output of while_loop body %s'
                                             % _cf.func_name(func))
        flat_new, _ = _cf.flatten(new_vars, _Symbol, 'the loop_vars of while_loop body %s'
                                  % _cf.func_name(func))
        if len(flat_new) != len(flat_vars):
            raise ValueError('while_loop body %s returned %d loop_vars, but loop_vars has %d'
                             % (_cf.func_name(func), len(flat_new), len(flat_vars)))
        step['num_out_data'] = len(flat_outs)
        return flat_outs + flat_new
    func_graph, func_outer, _, num_outputs = _branch_graph(func_body, name + '_func', 'while_loop body')
    inputs, (cond_locs, func_locs) = _union_inputs([(cond_graph, cond_outer), (func_graph, func_outer)],
                                                   placeholders)
    func_args = func_graph.list_arguments()
    var_locs = []
    for i, s in enumerate(flat_vars):
        arg = _placeholder(s).name
        if arg not in func_args:
            raise ValueError('while_loop body %s does not use loop_var %d (%s)' % (_cf.func_name(func), i, arg))
        var_locs.append(func_args.index(arg))
    result = _invoke('_while_loop', *inputs, num_args=len(inputs) + 2,
                     cond=cond_graph.tojson(), func=func_graph.tojson(),
                     max_iterations=max_iterations, cond_input_locs=cond_locs,
                     func_input_locs=func_locs, func_var_locs=tuple(var_locs),
                     num_out_data=step['num_out_data'], num_outputs=num_outputs)
    results = [result[i] for i in range(num_outputs)]
    n = step['num_out_data']
    outputs = _cf.regroup(results[:n], step['fmt'])[0] if n else []
    return outputs, _cf.regroup(results[n:], var_fmt)[0]


def cond(pred, then_func, else_func, name='cond'):
    """The graph form of ``mx.nd.contrib.cond``: one ``_cond`` node holding the graphs of
    ``pred``, ``then_func()`` and ``else_func()``; at execution time only the branch the
    predicate picks runs.  Returns the outputs nested as ``then_func`` returns them."""
    pred_graph, pred_outer, _, num_pred = _branch_graph(lambda: pred, name + '_pred', 'cond pred')
    if num_pred != 1:
        raise ValueError('cond: pred must be a single Symbol, got %d outputs' % num_pred)
    then_graph, then_outer, then_fmt, num_then = _branch_graph(then_func, name + '_then', 'the output of then_func')
    else_graph, else_outer, _, num_else = _branch_graph(else_func, name + '_else', 'the output of else_func')
    if num_then != num_else:
        raise ValueError('cond: then_func %s returns %d outputs but else_func %s returns %d'
                         % (_cf.func_name(then_func), num_then, _cf.func_name(else_func), num_else))
    inputs, (pred_locs, then_locs, else_locs) = _union_inputs(
        [(pred_graph, pred_outer), (then_graph, then_outer), (else_graph, else_outer)], {})
    result = _invoke('_cond', *inputs, num_args=len(inputs) + 3,
                     cond=pred_graph.tojson(), then_branch=then_graph.tojson(),
                     else_branch=else_graph.tojson(), cond_input_locs=pred_locs,
                     then_input_locs=then_locs, else_input_locs=else_locs, num_outputs=num_then)
    return _cf.regroup([result[i] for i in range(num_then)], then_fmt)[0]


# ------------------------------------------------------------- optimizer steps
def _scale_symbol(rescale_grad):
    """AdamW's ``rescale_grad`` as a symbol: a number becomes a constant of one value."""
    if isinstance(rescale_grad, _Symbol):
        return rescale_grad
    return _invoke('_full', shape=(1,), value=rescale_grad)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """The graph form of ``mx.nd.contrib.adamw_update``: an ``_adamw_update`` node, ``mean`` and
    ``var`` its auxiliary states."""
    return _invoke('_adamw_update', weight=weight, grad=grad, mean=mean, var=var,
                   rescale_grad=_scale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1, beta2=beta2,
                   epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """The graph form of ``mx.nd.contrib.mp_adamw_update``: an ``_mp_adamw_update`` node."""
    return _invoke('_mp_adamw_update', weight=weight, grad=grad, mean=mean, var=var, weight32=weight32,
                   rescale_grad=_scale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1, beta2=beta2,
                   epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out, name=name, **kwargs)
