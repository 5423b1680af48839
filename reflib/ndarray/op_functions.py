"""Imperative operators: ``mx.nd.FullyConnected(x, w, b, num_hidden=3)`` and friends.

The same registry entry that a Symbol node uses runs here directly on
NDArrays, in inference mode.  This is how MXNet's ``mx.nd`` namespace gets
its operators too: one definition, two front ends.
"""

import re

import numpy as np

from .. import engine
from .. import profiler as _profiler
from ..base import BindError, ComputeError, MXNetError, ShapeError, TypeInferError
from ..context import Context, current_context
from .. import operator as _ops
from ..operator.registry import OpEnv, input_positions
from ..operator.sparse_rows import SparseRows
from . import tape
from .ndarray import NDArray, check_out, move, use_operator_call
from ..shapes import shape_is_known
from ..symbol.positional import counted_by, normalize_call

__all__ = ['invoke', 'make_function', 'SPARSE_FORMS']

# operator name -> its sparse form, ``form(op, p, inputs, out)``: the result MXNet gives when an
# input is sparse, or NotImplemented where MXNet runs the operator on the dense arrays (sparse.py
# fills the table in); an operator without a form always runs on the dense arrays
SPARSE_FORMS = {}


def invoke(op_name, *args, **kwargs):
    """Run the operator ``op_name`` on NDArrays, as ``mx.nd.<op_name>(*args, **kwargs)`` does.

    Positional arguments are the operator's inputs in order; keyword arguments are inputs by
    name or the operator's parameters.  ``out=`` (an NDArray, or a list of them) receives the
    results in place and is returned.  The output dtypes are those of MXNet's type inference,
    sparse inputs use the operator's sparse form where it has one (else their dense values),
    and while autograd records, the call goes on its tape.

    Returns:
        NDArray, or a list of NDArrays for an operator with several outputs; ``out`` when
        given.

    Raises:
        BindError: missing, unknown or surplus inputs, or an input that is not an NDArray.
        ShapeError, TypeInferError: inputs whose shapes or dtypes the operator refuses.
    """
    profiling = _profiler.ACTIVE        # (the one test a call pays while the profiler is off)
    if profiling:
        called = _profiler.now_us()
    op, args, arrays, raw, extras = normalize_call(
        op_name, args, kwargs, lambda v: isinstance(v, NDArray), ('out', 'name'), 'mx.nd.%s' % op_name)
    out = extras['out']
    # graph attributes (lr_mult, ctx_group, __x__) mean nothing to an array
    raw = {k: v for k, v in raw.items() if not (k.startswith('__') and k.endswith('__'))}
    p = op.parse_params(raw)
    names = op.inputs(p) + op.aux(p)
    inputs = _place_inputs(op, p, names, args, arrays)
    for n, a in zip(names, inputs):
        if not isinstance(a, NDArray):
            raise BindError('nd.%s: input %r must be an NDArray, got %s' % (op.name, n, type(a).__name__))
    kept = {}                       # input position -> a sparse input as the operator takes it
    if any(type(a) is not NDArray and a.stype != 'default' for a in inputs):
        result = _sparse_call(op, p, inputs, out)
        if result is not NotImplemented:
            if profiling and _profiler.records('api'):
                _profiler.span('MXNET_C_API', 'MXImperativeInvokeEx', called)
            return result
        # MXNet's storage fallback: an operator with no sparse form runs on the dense arrays;
        # one that takes them as they are (a Python operator) gets them so, the tape the dense
        kept = _kept_sparse(op, p, inputs)
        inputs = [_dense_form(a) if a.stype != 'default' else a for a in inputs]
    for n, a in zip(names, inputs):
        if not shape_is_known(a.shape):
            # legacy shapes read () and a 0 dimension as "unknown": MXNet refuses to run on them
            raise ShapeError('nd.%s: input %r has shape %s, which legacy shapes read as unknown; '
                             'zero-size and 0-d arrays need mx.np_shape()' % (op.name, n, a.shape))
    # an operator with no inputs (_zeros, _random_uniform) runs where its ``ctx`` says
    ctx = inputs[0].context if inputs else _context_of(kwargs.get('ctx'))
    nin = len(op.inputs(p))
    out_types = _inferred_types(op, p, names, inputs, nin)
    env = OpEnv(ctx, tape.is_training())        # Dropout and BatchNorm follow autograd's mode
    if out is not None and op.reads_out(p):
        env.out = [t._data for t in (out if isinstance(out, (list, tuple)) else [out])]
    failed = engine.failure_of([a._data for a in inputs])
    if failed is not None:          # an input's computation failed: this one fails too, unrun
        outs = _failed_outputs(op, p, inputs, nin, out_types, ctx, failed)
    else:
        try:
            if profiling:
                began = _profiler.now_us()
            with ctx.device_scope():
                raws = [kept.get(k, a._data) for k, a in enumerate(inputs)]
                outs = op.forward(p, env, raws[:nin], raws[nin:])
            if profiling:
                _profiler.ran(op.name, began, ctx, outs)
        except ComputeError as err:     # raised at the next wait on the result, as MXNet's engine does
            failed = err
            env.fail_random_state(err)
            outs = _failed_outputs(op, p, inputs, nin, out_types, ctx, err)
        except (ValueError, IndexError) as err:
            # numpy refused the arrays: say which shapes the operator's rule refuses (the rule
            # runs only here, so a call that works pays nothing for it); the operator's own
            # errors already say what is wrong
            if not isinstance(err, MXNetError):
                _explain_shapes(op, p, names, inputs, nin)
            raise
    # the dtypes MXNet's type inference gives (a bound executor allocates these): numpy's
    # promotion (int32 data times float32 weights -> float64) must not decide them
    results = [NDArray(o if t is None or o.dtype == t else _converted(o, t), ctx)
               for o, t in zip(outs[:op.visible_outputs(p)], out_types)]
    targets = None if out is None else (out if isinstance(out, (list, tuple)) else [out])
    if targets is not None and len(targets) != len(results):
        raise BindError('nd.%s: out= has %d arrays for %d outputs' % (op.name, len(targets), len(results)))
    if tape.is_recording() and failed is None:       # autograd: the call goes on the tape
        for t in targets or ():
            tape.check_writable(t)
        tape.record_call(op, p, ctx, inputs, nin, outs, targets or results, raw)
    if out is not None:
        for t, r in zip(targets, results):
            check_out(t, r.shape, r.dtype, 'nd.%s' % op.name)
            if t.stype == 'default':
                t._data[...] = move(r._data, t.context)
            else:
                t[:] = r
        if failed is not None:
            engine.fail([t._data for t in targets], failed)
        if profiling and _profiler.records('api'):
            _profiler.span('MXNET_C_API', 'MXImperativeInvokeEx', called)
        return out
    if profiling and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXImperativeInvokeEx', called)
    return results[0] if len(results) == 1 else results



def _place_inputs(op, p, names, args, arrays):
    """The call's arrays in the registry's order, ``names`` (inputs, then states).  Positional
    ones come in MXNet's order, ``op.input_order``, which is the same but for the few operators
    whose states sit among their inputs (multi_sgd_mom_update's weight_0, grad_0, mom_0, ...)."""
    order = op.input_order(p) if op.reorders_inputs else names
    if len(args) > len(order):
        raise BindError('nd.%s%s takes %d inputs (%s), got %d'
                        % (op.name, counted_by(op, p), len(order), order, len(args)))
    if order is names:
        inputs = list(args) + [arrays.pop(n, None) for n in names[len(args):]]
    else:
        inputs = [None] * len(names)
        for k, a in zip(input_positions(op, p), args):
            inputs[k] = a
        inputs = [arrays.pop(n, None) if a is None else a for n, a in zip(names, inputs)]
    if arrays:
        raise BindError('nd.%s has no inputs %s; its inputs are %s' % (op.name, sorted(arrays), order))
    missing = [n for n, a in zip(names, inputs) if a is None]
    if missing:
        missing = [n for n in order if n in missing]        # listed in MXNet's order
        raise BindError('nd.%s%s: missing inputs %s' % (op.name, counted_by(op, p), missing))
    return inputs


def _dense_form(array):
    """A sparse input's dense values for an operator without a sparse form; on autograd's tape
    it stands where the sparse array stood (the same values, so the gradient flows through)."""
    dense = array.todense()
    entry = getattr(array, '_entry', None)
    if entry is not None:
        dense._entry = entry
    return dense


def _kept_sparse(op, p, inputs):
    """``{position: raw sparse value}`` for the sparse inputs an operator marked
    ``imperative_sparse`` takes as they are (``sparse_inputs``): a csr_matrix or SparseRows."""
    if not getattr(op, 'imperative_sparse', False):
        return {}
    takes = op.sparse_inputs(p)
    return {k: a._matrix() if a.stype == 'csr' else SparseRows(a._aux[0], a._data, a.shape)
            for k, a in enumerate(inputs) if a.stype in takes.get(k, ())}


def _sparse_call(op, p, inputs, out):
    """The operator's sparse form (SPARSE_FORMS) run on ``inputs``, its result written into
    ``out=`` where one is given; NotImplemented where MXNet would fall back to dense.

    While autograd records, an input on the tape sends the call down the dense path, which
    the tape records (the sparse forms are not recorded)."""
    sparse_form = SPARSE_FORMS.get(op.name)
    if sparse_form is None or (tape.is_recording() and any(getattr(a, '_entry', None) is not None for a in inputs)):
        return NotImplemented
    result = sparse_form(op, p, inputs, out)
    if result is NotImplemented or out is None:
        return result
    target = out[0] if isinstance(out, (list, tuple)) else out
    if result is not target:
        check_out(target, result.shape, result.dtype, 'nd.%s' % op.name)
        result.copyto(target)           # any storage into any: dense, or cast to the target's form
    return out


def _converted(values, dtype):
    # a NaN or infinity becoming an integer (arcsin of int32 2 stays int32, as in MXNet) gives
    # the C conversion's value, as MXNet's kernels do, without numpy's RuntimeWarning
    with np.errstate(invalid='ignore', over='ignore'):
        return values.astype(dtype)


def _failed_outputs(op, p, inputs, nin, out_types, ctx, error):
    """Outputs of the shapes the operator would give, marked failed with ``error`` (engine.py);
    where the shapes cannot be told, the error is raised now."""
    shapes = [a.shape for a in inputs]
    try:
        _, out_shapes, _ = op.infer_shape(p, shapes[:nin], [None] * len(op.outputs(p)), shapes[nin:])
    except MXNetError:
        out_shapes = [None]
    if not all(s is not None and shape_is_known(s) for s in out_shapes):
        raise error
    default = inputs[0].dtype if inputs else np.float32
    with ctx.device_scope():
        outs = [ctx.xp.zeros(s, dtype=t if t is not None else default) for s, t in zip(out_shapes, out_types)]
    engine.fail(outs, error)
    return outs


def _explain_shapes(op, p, names, inputs, nin):
    """Raise a ShapeError naming the input whose shape the operator's shape rule refuses (or
    would give another shape), if there is one."""
    shapes = [tuple(a.shape) for a in inputs]
    given = ', '.join('%s %s' % (n, s) for n, s in zip(names, shapes))
    try:
        ins, _, auxs = op.infer_shape(p, shapes[:nin], [None] * len(op.outputs(p)), shapes[nin:])
    except MXNetError as err:
        raise ShapeError('nd.%s: the inputs do not fit (%s): %s' % (op.name, given, err)) from None
    for name, have, want in zip(names, shapes, list(ins) + list(auxs)):
        if want is not None and shape_is_known(want) and tuple(want) != have:
            raise ShapeError('nd.%s: input %r has shape %s, but with these inputs (%s) %s needs %s there'
                             % (op.name, name, have, given, op.name, tuple(want)))


def _inferred_types(op, p, names, inputs, nin):
    """The output dtypes the operator's type rule gives for these inputs; a TypeInferError,
    naming the input, where the rule wants another dtype (MXNet refuses such a call too)."""
    given = [np.dtype(a.dtype) for a in inputs]
    ins, outs, auxs = op.infer_type(p, given[:nin], [None] * len(op.outputs(p)), given[nin:])
    for name, have, want in zip(names, given, list(ins) + list(auxs)):
        if want is not None and np.dtype(want) != have:
            raise TypeInferError('nd.%s: input %r is %s, but %s needs %s there (the dtypes of its inputs '
                                 'must agree: cast with .astype)' % (op.name, name, have.name, op.name,
                                                                     np.dtype(want).name))
    return [None if t is None else np.dtype(t) for t in outs]


def _context_of(value):
    """A Context from a ``ctx`` argument: a Context, its string (``'gpu(1)'``) or None/''."""
    if value is None or value == '':
        return current_context()
    if isinstance(value, Context):
        return value
    match = re.fullmatch(r'\s*(\w+)\((\d+)\)\s*', str(value))
    return Context(match.group(1), int(match.group(2))) if match else Context(str(value))


def make_function(op_name):
    """The Python function ``mx.nd.<op_name>``: it calls ``invoke(op_name, ...)``, and carries
    the operator's name and the operator class's docstring.
    """
    def fn(*args, **kwargs):
        return invoke(op_name, *args, **kwargs)
    fn.__name__ = op_name
    fn.__doc__ = (type(_ops.get(op_name)).__doc__ or op_name).strip()
    return fn


use_operator_call(invoke)      # NDArray's operator methods (x.sort(), x.argmax(out=y)) go through it
# a Python operator (mx.operator.CustomOp) computes on NDArrays, with autograd's recording paused
_ops.custom.use_arrays(NDArray, tape.set_recording, tape.set_training)
