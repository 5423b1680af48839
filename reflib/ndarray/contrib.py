"""``mx.nd.contrib``: the ``_contrib_*`` operators under their short names
(``contrib.ctc_loss``, ``contrib.SparseEmbedding``)."""

import math

from .. import operator as _ops
from ..context import current_context
from .ndarray import NDArray as _NDArray, full as _full
from .op_functions import make_function
from .random import uniform

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = make_function(_name)
del _name


# ------------------------------------------------------------- tests of each value
# Python functions over ordinary operators, as in MXNet: 1.0 where the test holds, else 0.0,
# in the data's dtype (and with autograd, a zero gradient: comparisons pass none back)
def isnan(data):
    """1 where ``data`` is NaN (the one value not equal to itself), else 0."""
    return data != data


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0."""
    return data.abs() == float('inf')


def isfinite(data):
    """1 where ``data`` is neither NaN nor infinite, else 0."""
    return (data == data) * (data.abs() != float('inf'))


# ------------------------------------------------------------- optimizer steps
# AdamW and LAMB live in MXNet's contrib: their operators (_adamw_update, _multi_lamb_update, ...)
# take every array in one flat list, and these functions, MXNet's front doors to them, take a
# list per kind and interleave them
_adamw, _mp_adamw = make_function('_adamw_update'), make_function('_mp_adamw_update')
_multi_adamw, _multi_mp_adamw = make_function('_multi_adamw_update'), make_function('_multi_mp_adamw_update')
_multi_lamb, _multi_mp_lamb = make_function('_multi_lamb_update'), make_function('_multi_mp_lamb_update')


def _scale_array(rescale_grad, ctx):
    """AdamW's ``rescale_grad`` as its operators take it: an NDArray on the weights' device (a
    number becomes a float32 array of one value)."""
    if isinstance(rescale_grad, _NDArray):
        return rescale_grad.as_in_context(ctx)
    return _full((1,), rescale_grad, ctx=ctx)


def _interleaved(*per_kind):
    """``[w0, g0, m0, w1, g1, m1, ...]`` from ``[w0, w1], [g0, g1], [m0, m1]``."""
    return [array for group in zip(*per_kind) for array in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """One AdamW step (operator ``_adamw_update``): ``mean`` and ``var`` updated in place,
    the new weight returned (into ``out``).  ``rescale_grad`` may be a number or an NDArray;
    a step whose value is 0, NaN or infinite changes nothing."""
    return _adamw(weight, grad, mean, var, _scale_array(rescale_grad, weight.context), lr=lr, eta=eta,
                  beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out,
                  name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """adamw_update on the float32 master copy ``weight32`` of a float16 weight (operator
    ``_mp_adamw_update``)."""
    return _mp_adamw(weight, grad, mean, var, weight32, _scale_array(rescale_grad, weight.context), lr=lr,
                     eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient,
                     out=out, name=name, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """adamw_update on each of the lists' weights (operator ``_multi_adamw_update``), with
    ``lrs``, ``wds`` and ``etas`` one value per weight; ``size`` is how many (0: all)."""
    arrays = _interleaved(weights, grads, mean, var) + [_scale_array(rescale_grad, weights[0].context)]
    return _multi_adamw(*arrays, num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, out=out,
                        name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None,
                          name=None, size=0, **kwargs):
    """mp_adamw_update on each of the lists' weights (operator ``_multi_mp_adamw_update``)."""
    arrays = (_interleaved(weights, grads, mean, var, weights32)
              + [_scale_array(rescale_grad, weights[0].context)])
    return _multi_mp_adamw(*arrays, num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas,
                           out=out, name=name, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0, **kwargs):
    """One LAMB step on each of the lists' weights (operator ``_multi_lamb_update``):
    ``step_count``, ``lrs`` and ``wds`` one value per weight; ``mean`` and ``var`` are
    updated in place, the new weights returned (into ``out``)."""
    return _multi_lamb(*_interleaved(weights, grads, mean, var), num_tensors=num_tensors or len(weights),
                       step_count=step_count, learning_rates=lrs, wds=wds, out=out, **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None, num_tensors=0,
                         **kwargs):
    """multi_lamb_update on float16 weights with float32 master copies ``weights32`` (operator
    ``_multi_mp_lamb_update``)."""
    return _multi_mp_lamb(*_interleaved(weights, grads, mean, var, weights32),
                          num_tensors=num_tensors or len(weights), step_count=step_count,
                          learning_rates=lrs, wds=wds, out=out, **kwargs)


# ------------------------------------------------------------- candidate sampling
def _expected_count(classes, num_sampled, log_range):
    """How often ``num_sampled`` log-uniform draws are expected to give each of ``classes``:
    ``num_sampled * log((c + 2) / (c + 1)) / log(range_max + 1)``, in float64."""
    c = classes.astype('float64')
    return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """``num_sampled`` classes in [0, range_max) drawn, with repeats, from the log-uniform
    (Zipfian) distribution ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)`` -- frequent
    words first, as a vocabulary sorted by count has them -- for sampled softmax.  Returns
    the samples (int64), and the expected counts of ``true_classes`` and of the samples."""
    log_range = math.log(range_max + 1)
    ctx = current_context() if ctx is None else ctx
    drawn = uniform(0, log_range, shape=(num_sampled,), dtype='float64', ctx=ctx)
    # c = floor(exp(u) - 1) is log-uniform when u is uniform on [0, log(range_max + 1))
    samples = (drawn.exp() - 1).astype('int64') % range_max
    return (samples, _expected_count(true_classes.as_in_context(ctx), num_sampled, log_range),
            _expected_count(samples, num_sampled, log_range))


# ------------------------------------------------------------- control flow
# Imperative loops and branches are plain Python: each call of the body runs its operators
# at once, and under autograd.record each of them is recorded, so the gradient flows back
# through every step without the loop itself being an operator.
# (The graph forms share the same nesting rules, in reflib/operator/control_flow.py; this
# file does not import that one, whose operators run their bodies on an executor, which
# imports this package: the few lines are written out again here instead.)
from .ndarray import zeros as _zeros  # noqa: E402

_stack, _concat = make_function('stack'), make_function('concat')


def _flatten(args, what):
    """``(flat list, format)`` of an NDArray or a nested list of them; the format of one
    array is 0, of a list the list of its items' formats (``_regroup`` undoes it)."""
    if isinstance(args, _NDArray):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise TypeError('%s must be an NDArray or a (nested) list of them, got %s'
                        % (what, type(args).__name__))
    flat, fmt = [], []
    for item in args:
        items, item_fmt = _flatten(item, what)
        flat.extend(items)
        fmt.append(item_fmt)
    return flat, fmt


def _regroup(flat, fmt):
    """The nesting ``fmt`` records, rebuilt from ``flat``: ``(nested, what is left)``."""
    if isinstance(fmt, int):
        return flat[0], flat[1:]
    nested = []
    for item_fmt in fmt:
        item, flat = _regroup(flat, item_fmt)
        nested.append(item)
    return nested, flat


def _scalar(value, kind, what):
    """``bool(pred)`` or ``int(max_iterations)`` from an array of one element or a number."""
    if isinstance(value, _NDArray):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError('cannot convert %s (%r) to a Python %s' % (what, value, kind.__name__)) from None


def _func_name(func):
    return getattr(func, '__qualname__', None) or getattr(func, '__name__', None) or repr(func)


def foreach(body, data, init_states):
    """Run ``body(item, states) -> (outputs, new_states)`` over axis 0 of ``data``.

    ``data`` is an NDArray or a (nested) list of them, all as long along axis 0; step ``i``
    sees ``data[i]`` (or the list of each one's ``[i]``).  The outputs of all steps are
    stacked along a new axis 0; the states after the last step are returned as the body
    gave them.  This is a scan: ``foreach(lambda x, s: (x + s[0], [x + s[0]]), seq, [zero])``
    is a cumulative sum.  Returns ``(outputs, final_states)``.
    """
    flat_data, data_fmt = _flatten(data, 'foreach data')
    flat_states, _ = _flatten(init_states, 'foreach init_states')
    num_steps = flat_data[0].shape[0]
    states, steps, out_fmt = init_states, [], []
    for i in range(num_steps):
        item = _regroup([d[i] for d in flat_data], data_fmt)[0]
        outs, states = body(item, states)
        flat_outs, out_fmt = _flatten(outs, 'the output of foreach body %s' % _func_name(body))
        new_states, _ = _flatten(states, 'the states of foreach body %s' % _func_name(body))
        if len(new_states) != len(flat_states):
            # a state dropped or added would silently shift every later step's inputs
            raise ValueError('foreach body %s returned %d states, but init_states has %d'
                             % (_func_name(body), len(new_states), len(flat_states)))
        steps.append(flat_outs)
    stacked = [_stack(*per_step, axis=0) for per_step in zip(*steps)]
    return _regroup(stacked, out_fmt)[0] if stacked else [], states


def while_loop(cond, func, loop_vars, max_iterations=None):
    """``while cond(*loop_vars): step_output, loop_vars = func(*loop_vars)``, at most
    ``max_iterations`` times.

    ``cond`` returns an array of one element (nonzero means go on).  The step outputs are
    stacked along a new axis 0 and padded to ``max_iterations`` rows, so the result has the
    same shape however early the loop stops -- the shape the graph form must know before it
    runs.  MXNet leaves the padding rows uninitialised; reflib fills them with zeros.
    Returns ``(outputs, final_loop_vars)``: a single NDArray ``loop_vars`` comes back as one.
    """
    if max_iterations is None:
        raise ValueError('while_loop: max_iterations must be given (the output has that many rows)')
    max_iterations = _scalar(max_iterations, int, 'max_iterations')
    single = isinstance(loop_vars, _NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise ValueError('while_loop: loop_vars must hold at least one array')
    steps, out_fmt = [], None
    while len(steps) < max_iterations and _scalar(cond(*loop_vars), bool, 'the result of cond'):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, _NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError('while_loop body %s returned %d loop_vars, but loop_vars has %d'
                             % (_func_name(func), len(new_vars), len(loop_vars)))
        flat_outs, out_fmt = _flatten(step_output, 'the output of while_loop body %s'
                                      % _func_name(func))
        if steps and len(flat_outs) != len(steps[0]):
            raise ValueError('while_loop body %s returned %d outputs at step %d, but %d at step 0'
                             % (_func_name(func), len(flat_outs), len(steps), len(steps[0])))
        steps.append(flat_outs)
        loop_vars = new_vars
    stacked = []
    for per_step in zip(*steps):
        rows = [x.expand_dims(0) for x in per_step]
        if len(steps) < max_iterations:
            rows.append(_zeros((max_iterations - len(steps),) + per_step[0].shape,
                                  ctx=per_step[0].context, dtype=per_step[0].dtype))
        stacked.append(_concat(*rows, dim=0))
    outputs = _regroup(stacked, out_fmt)[0] if out_fmt is not None and stacked else []
    return outputs, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """``then_func()`` if ``pred`` (an array of one element) is nonzero, else ``else_func()``.

    Only the branch taken runs, so only its operators are recorded for autograd."""
    return then_func() if _scalar(pred, bool, 'pred') else else_func()
