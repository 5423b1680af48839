"""What a hybridized block runs: its traced Symbol, bound once per input signature.

MXNet calls this object the CachedOp.  reflib builds it from parts the earlier chapters
explain: for each *signature* of a call -- the context, the data inputs' shapes and dtypes,
and which inputs want a gradient -- it binds the Symbol once (``Symbol.bind``: shape and
type inference, the memory plan), with

* the data inputs by reference too, each call's arrays swapped in (MXNet's CachedOp reads
  its inputs where they are: no copy of the batch);
* the parameters' arrays *by reference*, so an optimizer's update (or ``set_data``) is seen
  by the next call without copying, and BatchNorm's running statistics are updated in
  the parameters themselves;
* gradient arrays of its own for the inputs that want one (none at all outside
  ``autograd.record()``: an inference call binds the lighter inference plan).

Inside ``record()`` one call is one node on the autograd tape (reflib/ndarray/tape.py).
Its backward is the executor's backward; the tape then writes the gradients into the
parameters' ``.grad`` (or passes them on to the operators that made the inputs).  Where an
input's ``.grad`` is written (``grad_req='write'``), one executor at a time is bound with that
very ``.grad`` as its gradient array, so the gradient is computed in place, not copied
there (see ``_claim``).  Between a
call's forward and its backward the executor holds that call's intermediate values, so a
second call with the same signature before the first one's backward (a block applied twice
in one step) takes another executor from the pool; an executor goes back to the pool when
its call's backward is done (or the call's outputs are dropped).
"""

import threading
import weakref

from .. import ndarray as nd
from ..symbol.symbol import Group, invoke
from ..context import current_context
from ..ndarray import NDArray
from ..ndarray import tape

__all__ = ['CachedGraph', 'CachedOp']


class _Runner:
    """One bound executor, whether a recorded call still needs its values, and the arguments
    whose gradient array is the variable's own ``.grad``."""
    __slots__ = ('executor', 'busy', 'in_place', '__weakref__')

    def __init__(self, executor, in_place):
        self.executor = executor
        self.busy = False
        self.in_place = in_place


# id of a variable's .grad (NDArray) -> (a weak reference to that array, one to the runner
# whose executor has it as a gradient array).  One writer per array: were two executors bound
# to the same .grad (a block applied twice in one step), the second backward would overwrite
# the first one's gradient before the tape sums the two.  (Keyed by id: NDArray's == is
# elementwise, so it cannot be a dictionary key itself.)
_WRITERS = {}
_WRITERS_LOCK = threading.Lock()


def _claim(grad, runner):
    """Make ``runner`` the one writer of ``grad``; False where a live runner is already."""
    with _WRITERS_LOCK:
        array, owner = _WRITERS.get(id(grad), (None, None))
        if array is not None and array() is grad and owner() is not None:
            return False
        for key in [key for key, (a, o) in _WRITERS.items() if a() is None or o() is None]:
            del _WRITERS[key]           # (forget the arrays and runners that are gone)
        _WRITERS[id(grad)] = (weakref.ref(grad), weakref.ref(runner))
        return True


def _writes_in_place(source, arr):
    """Whether a gradient for ``arr`` can be computed straight into its variable's ``.grad``:
    written (not added), dense, and of the same shape, dtype and device."""
    if not isinstance(source, tape.Variable) or source.req != 'write':
        return False
    grad = source.grad
    return (grad.stype == 'default' and grad._data.shape == arr._data.shape
            and grad._data.dtype == arr._data.dtype and grad._ctx == arr._ctx)


class _GraphCall:
    """The tape's view of one recorded call: ``backward`` as an operator's, over raw arrays;
    ``graph`` (the CachedGraph) for ``autograd.get_symbol``."""
    is_loss = False

    def __init__(self, runner, ctx, graph):
        self.runner, self.ctx = runner, ctx       # (the runner is busy already: CachedGraph._runner)
        self.graph = graph

    def backward(self, p, env, out_grads, ins, outs, aux):
        exe = self.runner.executor
        in_place = self.runner.in_place
        kept = None
        if in_place and not tape.storing_grads():
            # autograd.grad leaves .grad as it was: keep what the executor overwrites there
            kept = {k: exe._grads[k]._data.copy() for k in in_place}
        exe.backward([NDArray(g, self.ctx) for g in out_grads])
        # the executor's own gradient arrays, not copies: the tape is done with them before
        # this executor can run again (it stays busy until the backward pass has finished),
        # and it copies what it keeps (.grad, autograd.grad's results).  A row_sparse one --
        # Embedding(sparse_grad=True) -- goes as its dense values; the parameter's
        # row_sparse .grad keeps the rows
        grads = [None if req == 'null' else (g._data if g.stype == 'default' else g._dense_data())
                 for g, req in zip(exe._grads, exe._grad_req)]
        if kept is not None:
            for k, old in kept.items():
                grads[k] = grads[k].copy()
                exe._grads[k]._data[...] = old
        return grads

    def release(self):
        """The tape is done with this call: its executor may serve another."""
        if self.runner is not None:
            self.runner.busy = False
            self.runner = None

    def __del__(self):
        self.release()


def _distinct_outputs(sym):
    """``sym`` with every repeated output (an RNN cell returns its new state as its output
    too) computed by an ``identity`` of its own: then each output gets its own head gradient
    and the gradients of both uses are summed, as MXNet's CachedOp arranges."""
    seen, outputs, changed = set(), [], False
    for k in range(len(sym.list_outputs())):
        out = sym[k]
        key = (id(out._outputs[0][0]), out._outputs[0][1])
        if key in seen:
            out, changed = invoke('identity', out), True
        seen.add(key)
        outputs.append(out)
    return Group(outputs) if changed else sym


class CachedGraph:
    """Runs ``symbol`` on a call's data arrays; ``inputs[k]`` says what the k-th entry of
    ``symbol.list_inputs()`` is: ``(True, i)`` the i-th data array, ``(False, param)`` a
    Parameter."""

    def __init__(self, symbol, inputs, flags=None):
        self.symbol = _distinct_outputs(symbol)
        self.flags = dict(flags or {})
        source = dict(zip(symbol.list_inputs(), inputs))
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._args = [source[n] for n in self._arg_names]
        self._data_args = [(k, i) for k, (is_data, i) in enumerate(self._args) if is_data]
        self._aux = [source[n] for n in self._aux_names]
        self._pools = {}            # signature -> (ids of the parameter arrays bound, [_Runner])
        self._hook = None           # register_op_hook's (callback, monitor_all)
        self._lock = threading.Lock()

    def set_op_hook(self, callback, monitor_all=False):
        """``callback(name, op_name, array)`` for each operator's output (and, with
        ``monitor_all``, its inputs) during forward, names as bytes as MXNet passes them."""
        self._hook = (callback, monitor_all) if callback is not None else None

    def _monitor(self):
        """The executor's monitor callback that hands each report to the op hook with its
        operator's name (the executor names values ``<node>_output``, ``<node>_<input>``)."""
        callback, _ = self._hook
        variables = set(self.symbol.list_inputs())
        ops = {}
        for node in self.symbol.get_internals():
            name = node.name
            if name not in variables:
                ops[name] = node._outputs[0][0].op.name

        def report(name, arr):
            text = name.decode('utf-8')
            if text in variables:
                return                  # a variable reported under its own name: not an operator's
            owner = max((n for n in ops if text.startswith(n + '_')), key=len, default=None)
            if owner is not None:
                callback(name, ops[owner].encode('utf-8'), arr)
        return report

    def signatures(self):
        """The signatures bound so far: ``(context, data shapes, data dtypes, which inputs
        want a gradient)``.  (A pool is kept per signature and per set of ``.grad`` arrays its
        executors write into; those are not part of what a caller sees.)"""
        seen = []
        for key in self._pools:
            if key[:4] not in seen:
                seen.append(key[:4])
        return seen

    def executors(self, signature=None):
        """The executors bound for ``signature`` (all when None)."""
        keys = [k for k in self._pools if signature is None or k[:len(signature)] == tuple(signature)]
        return [r.executor for k in keys for r in self._pools[k][1]]

    def __call__(self, data):
        ctx = current_context()
        args = [data[i] if is_data else i.data(ctx) for is_data, i in self._args]
        aux = [data[i] if is_data else i.data(ctx) for is_data, i in self._aux]
        # (list comprehensions, not generators: this runs twice per training step)
        if tape.is_recording():
            sources = tape.sources_of(args)
            wants = tuple([s is not None for s in sources])
            # the .grad arrays that may serve as gradient arrays: a signature of their own
            writes = tuple([id(s.grad) if _writes_in_place(s, a) else None for s, a in zip(sources, args)])
        else:
            sources, wants, writes = None, (False,) * len(args), None
        # (a sparse input's _data holds its stored values only: its shape and storage are asked for)
        stypes = tuple([a.stype for a in data])
        dense = stypes.count('default') == len(stypes)
        shapes = tuple([a._data.shape for a in data] if dense else [a.shape for a in data])
        signature = (ctx, shapes, tuple([a._data.dtype for a in data]), wants, writes, stypes)
        runner = self._runner(signature, args, aux, ctx, sources)     # now this call's alone
        recorded = False
        try:
            exe = runner.executor
            with ctx.device_scope():
                for k, i in self._data_args:
                    raw = data[i]._data
                    if dense and raw.flags.c_contiguous:
                        # by reference, as MXNet's CachedOp reads its inputs: no copy of the
                        # batch (the plan never writes into an argument's array)
                        exe.arg_arrays[k]._data = raw
                    elif dense:
                        exe.arg_arrays[k]._data = raw.copy()
                    else:
                        data[i].copyto(exe.arg_arrays[k])
                if self._hook is not None:
                    exe.set_monitor_callback(self._monitor(), self._hook[1])
                exe.forward(is_train=tape.is_training())
                if self._hook is not None:
                    exe.set_monitor_callback(None)       # the op hook sees forward values only
                raw = [o._data.copy() for o in exe.outputs]     # the caller's own, not the executor's memory
            results = [NDArray(r, ctx) for r in raw]
            if any(wants):
                # the tape's node holds the runner (and its values) until backward is done
                recorded = tape.record_call(_GraphCall(runner, ctx, self), None, ctx, args + aux, len(args), raw,
                                            results, sources=sources) is not None
        finally:
            if not recorded:
                runner.busy = False
        return results

    def _runner(self, signature, args, aux, ctx, sources):
        """A free executor for ``signature``, marked busy: two threads (a DataLoader's workers
        running a hybridized transform) never share one."""
        # auxiliary states are bound by reference, whoever passes them (mx.nd.CachedOp's caller)
        params = tuple([id(a) for (is_data, _), a in zip(self._args, args) if not is_data]
                       + [id(a) for a in aux])
        with self._lock:
            bound, runners = self._pools.get(signature, (None, []))
            if bound != params:            # a parameter was re-created (cast, reset_ctx): bind afresh
                runners = []
                self._pools[signature] = (params, runners)
            for runner in runners:
                if not runner.busy:
                    runner.busy = True
                    return runner
        runner = self._bind(signature[3], args, aux, ctx, sources)
        runner.busy = True
        with self._lock:
            runners.append(runner)
        return runner

    def _bind(self, wants, args, aux, ctx, sources):
        """A new runner: the symbol bound for these arguments, gradient arrays where wanted --
        the variable's own ``.grad`` where it is written and no other runner writes it."""
        runner = _Runner(None, [])
        arrays, grads, reqs = [], [], []
        for k, ((is_data, source), arr, want) in enumerate(zip(self._args, args, wants)):
            arrays.append(nd.zeros(arr.shape, ctx=ctx, dtype=arr.dtype, stype=arr.stype) if is_data else arr)
            grad = None
            if want and _writes_in_place(sources[k], arr) and _claim(sources[k].grad, runner):
                grad = sources[k].grad
                runner.in_place.append(k)
            elif want:
                stype = 'default' if is_data else source._grad_stype      # a parameter's own gradient storage
                grad = nd.zeros(arr.shape, ctx=ctx, dtype=arr.dtype, stype=stype)
            grads.append(grad)
            reqs.append('write' if want else 'null')
        runner.executor = self.symbol.bind(ctx, arrays, args_grad=grads if any(wants) else None,
                                           grad_req=dict(zip(self._arg_names, reqs)), aux_states=list(aux))
        return runner


class CachedOp:
    """``mx.nd.CachedOp(sym)``: a Symbol called like a function on NDArrays, one per entry
    of ``sym.list_inputs()`` (arguments and auxiliary states, in that order), bound once per
    signature as a hybridized block's graph is.  Returns the output, or a list of them;
    ``out=`` takes the results.  Inside ``autograd.record()`` it is one node on the tape."""

    def __init__(self, sym, flags=()):
        self._names = sym.list_inputs()
        self._graph = CachedGraph(sym, [(True, k) for k in range(len(self._names))], dict(flags))

    def __call__(self, *args, **kwargs):
        out = kwargs.pop('out', None)
        if kwargs:
            raise TypeError('CachedOp takes only out= by keyword, got %s' % sorted(kwargs))
        if len(args) != len(self._names) or not all(isinstance(a, NDArray) for a in args):
            raise TypeError('CachedOp: give one NDArray per input %s, in that order; got %d arguments'
                            % (self._names, len(args)))
        results = self._graph(list(args))
        if out is None:
            return results[0] if len(results) == 1 else results
        targets = out if isinstance(out, (list, tuple)) else [out]
        if len(targets) != len(results):
            raise TypeError('CachedOp: out= has %d arrays for %d outputs' % (len(targets), len(results)))
        for target, result in zip(targets, results):
            target[:] = result
        return out
