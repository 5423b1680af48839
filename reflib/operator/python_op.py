"""The older Python operators: ``mx.operator.PythonOp`` and its two kinds, ``NumpyOp`` (forward
and backward compute on numpy arrays) and ``NDArrayOp`` (on NDArrays).  MXNet 1.9.1 still ships
them, deprecated in favour of CustomOp; some of its examples and tests use them.

One object describes the operator and computes it: a subclass overrides ``list_arguments``,
``list_outputs``, ``infer_shape`` (which answers ``(input shapes, output shapes)``, no auxiliary
states), ``need_top_grad`` (or passes ``need_top_grad`` to the constructor), and

* ``forward(in_data, out_data)``: fills ``out_data[j]`` in place;
* ``backward(out_grad, in_data, out_data, in_grad)``: fills ``in_grad[k]`` in place.
  ``out_grad`` is empty when the operator makes its own head gradient (``need_top_grad()``
  False: a loss).

``op.get_symbol(*inputs, name=...)`` (or ``op(*inputs, ...)``) gives the operator's node.  reflib
builds it on the Custom operator (custom.py): each instance becomes a CustomOpProp registered
under an op_type of its own, whose CustomOp hands the arrays to the instance's methods.  So the
node is a ``Custom`` node (MXNet's is ``_Native`` or ``_NDArray``), and like MXNet's it lives only
as long as the process: its op_type names an object, not something a symbol file can rebuild.

Where reflib differs from MXNet 1.9.1 (which runs these through C callbacks):

* a NumpyOp gets copies of the arrays (MXNet: views of the engine's buffers); what it writes
  into ``out_data`` and ``in_grad`` is copied back, so writing in place works the same;
* the gradient arrays start at zero (MXNet: whatever the buffer held), and a gradient requested
  with grad_req='add' is accumulated (MXNet refuses: "NativeOp doesn't support AddTo");
* an input whose shape is unknown reaches ``infer_shape`` as an empty list, as for a CustomOp
  (MXNet's NumpyOp crashes the process there);
* an exception in the user's code is raised, naming the class and its op_type (MXNet prints the
  traceback from the callback and goes on, or returns a failure from the engine);
* an NDArrayOp with ``need_top_grad()`` False works (MXNet 1.9.1 fails in backward: "Shape is
  unknown"), given an empty ``out_grad`` as a NumpyOp is.
"""

import itertools
import warnings

from .custom import CustomOp, CustomOpProp, register

# The symbol layer sits above the operators, so it hands down the function that makes a node
# when it is imported (use_symbols), as ndarray hands custom.py its array class
_SYMBOLS = {'invoke': None}


def use_symbols(invoke):
    """Called once by reflib/symbol/symbol.py: ``invoke(op_name, *inputs, **params)`` makes a node."""
    _SYMBOLS['invoke'] = invoke

__all__ = ['PythonOp', 'NumpyOp', 'NDArrayOp', 'use_symbols']

_SERIAL = itertools.count(1)


class PythonOp:
    """Base of the older Python operators; ``need_top_grad`` is what ``need_top_grad()`` answers
    unless a subclass overrides it."""
    # every instance that made a symbol, as MXNet keeps them (its nodes point at them)
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn('PythonOp has been deprecated. Please use CustomOp')

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The operator's node on the given inputs (symbols, positional or by argument name)."""
        raise NotImplementedError('%s.get_symbol: PythonOp is a base class; subclass NumpyOp or NDArrayOp'
                                  % type(self).__name__)

    def forward(self, in_data, out_data):
        """The default forward copies the first input to the first output."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """The default backward sets the first input's gradient to ones."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """``(input shapes, output shapes)``: by default the inputs as given, one output shaped
        as the first input."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ['output']

    def list_arguments(self):
        return ['data']

    def need_top_grad(self):
        """Whether backward takes the outputs' gradient (False: a loss, which makes its own)."""
        return self.need_top_grad_

    # ----------------------------------------------------------- the adapter
    # what the subclasses set: the CustomOp that computes with this kind of operator
    _compute = None
    _kind = 'python_op'

    def _make_symbol(self, args, kwargs):
        """Register this instance as a CustomOpProp (once) and make its Custom node."""
        if _SYMBOLS['invoke'] is None:
            raise RuntimeError('%s.get_symbol: the symbol layer is not loaded (import reflib)' % type(self).__name__)
        op_type = getattr(self, '_op_type', None)
        if op_type is None:
            name = type(self).__name__
            op_type = '_%s_%s_%d' % (self._kind, name, next(_SERIAL))
            prop_cls = type(name, (_PythonOpProp,), {'python_op': self, 'compute': self._compute,
                                                     '__module__': __name__})
            register(op_type)(prop_cls)
            self._op_type = op_type
            PythonOp._ref_holder.append(self)
        return _SYMBOLS['invoke']('Custom', *args, op_type=op_type, **kwargs)


def _check_shapes(op, answer, n_in, n_out):
    """The ``(input shapes, output shapes)`` an operator's infer_shape returned, checked."""
    name = type(op).__name__
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise ValueError('%s.infer_shape must return (input shapes, output shapes), got %r' % (name, answer))
    ins, outs = (list(part) for part in answer)
    if len(ins) != n_in:
        raise ValueError('%s.infer_shape returned %d input shapes, but list_arguments names %d: %s'
                         % (name, len(ins), n_in, op.list_arguments()))
    if len(outs) != n_out:
        raise ValueError('%s.infer_shape returned %d output shapes, but list_outputs names %d: %s'
                         % (name, len(outs), n_out, op.list_outputs()))
    return ins, outs


class _PythonOpProp(CustomOpProp):
    """The CustomOpProp of one PythonOp instance (a subclass per instance sets ``python_op``
    and ``compute``): every question goes to the instance."""
    python_op = None
    compute = None

    def __init__(self):
        super().__init__(need_top_grad=True)

    def need_top_grad(self):
        return bool(self.python_op.need_top_grad())

    def list_arguments(self):
        return list(self.python_op.list_arguments())

    def list_outputs(self):
        return list(self.python_op.list_outputs())

    def infer_shape(self, in_shape):
        op = self.python_op
        ins, outs = _check_shapes(op, op.infer_shape(in_shape), len(self.list_arguments()),
                                  len(self.list_outputs()))
        return ins, outs, []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        declare = getattr(self.python_op, 'declare_backward_dependency', None)
        if declare is None:           # a NumpyOp's backward may read everything
            return super().declare_backward_dependency(out_grad, in_data, out_data)
        return list(declare(out_grad, in_data, out_data))

    def create_operator(self, ctx, in_shapes, in_dtypes):
        # the one instance computes everywhere, as in MXNet (its state is shared)
        compute = type(type(self.python_op).__name__, (self.compute,), {'__module__': __name__})
        return compute(self.python_op)


class _NumpyCompute(CustomOp):
    """Runs a NumpyOp: numpy copies in, what it wrote copied back."""

    def __init__(self, python_op):
        super().__init__()
        self.python_op = python_op

    def forward(self, is_train, req, in_data, out_data, aux):
        outs = [o.asnumpy() for o in out_data]
        self.python_op.forward(in_data=[a.asnumpy() for a in in_data], out_data=outs)
        for dst, r, src in zip(out_data, req, outs):
            self.assign(dst, r, src)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = [g.asnumpy() for g in in_grad]
        heads = [g.asnumpy() for g in out_grad] if self.python_op.need_top_grad() else []
        self.python_op.backward(out_grad=heads, in_data=[a.asnumpy() for a in in_data],
                                out_data=[o.asnumpy() for o in out_data], in_grad=grads)
        for dst, r, src in zip(in_grad, req, grads):
            self.assign(dst, r, src)


class _NDArrayCompute(CustomOp):
    """Runs an NDArrayOp on the NDArrays themselves."""

    def __init__(self, python_op):
        super().__init__()
        self.python_op = python_op

    def forward(self, is_train, req, in_data, out_data, aux):
        self.python_op.forward(in_data=list(in_data), out_data=list(out_data))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        heads = list(out_grad) if self.python_op.need_top_grad() else []
        self.python_op.backward(out_grad=heads, in_data=list(in_data), out_data=list(out_data),
                                in_grad=list(in_grad))


class NumpyOp(PythonOp):
    """A Python operator that computes on numpy arrays: override ``forward`` and ``backward``
    (and the descriptions of PythonOp).  Deprecated in MXNet: CustomOp replaces it."""
    _compute = _NumpyCompute
    _kind = 'numpy_op'

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn('NumpyOp has been deprecated. Please use CustomOp')

    def get_symbol(self, *args, **kwargs):
        return self._make_symbol(args, kwargs)


class NDArrayOp(PythonOp):
    """A Python operator that computes on NDArrays: override ``forward`` and ``backward`` (and
    the descriptions of PythonOp, and ``declare_backward_dependency``).  Deprecated in MXNet:
    CustomOp replaces it."""
    _compute = _NDArrayCompute
    _kind = 'ndarray_op'

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn('NDArrayOp has been deprecated. Please use CustomOp')

    def get_symbol(self, *args, **kwargs):
        return self._make_symbol(args, kwargs)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids, among those given, of the values backward reads: the head gradients when
        ``need_top_grad()``, the inputs and the outputs."""
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)
