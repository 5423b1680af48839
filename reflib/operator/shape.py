"""Shape ops: they move data around without computing anything.

``Reshape`` (with MXNet's special codes 0, -1, -2, -3, -4), ``Flatten``,
``expand_dims``, ``transpose``, ``BlockGrad``, ``_copy`` (``identity``),
``Concat`` and ``SliceChannel`` (``split``).

MXNet 1.x conventions: a 0 dimension in shape inference means *unknown*, and
an output never shares memory with an input unless the memory plan says so
(``reshaped_into`` writes into the planned array, which for Reshape and Flatten
is usually the input's own memory).
"""

from .registry import Operator, Param, register
from ..shapes import is_np_shape, merge_shape, shape_is_known
from ..shapes import prod as _prod
from .common import shape_str, normalize_axis, fresh_copy, reshaped_into
from ..base import ParamError, ShapeError

__all__ = ['reshape_target']


# ================================================================ Reshape
class _BadCodes(Exception):
    """Internal: the reshape codes cannot be applied; the message says why."""


def _apply_codes(src, codes, reverse=False):
    """The shape MXNet's reshape codes give for input dims ``src``.

    ``src`` holds ints, or ``None`` for a dimension not known yet; the result
    uses ``None`` the same way.  The codes, read left to right while walking
    through the input dimensions:

    ====  =================================================================
    n>0   output dim n (consumes one input dim)
    0     copy the current input dim
    -1    infer this dim from the element count (at most one; consumes one)
    -2    copy all remaining input dims
    -3    merge the next two input dims into one
    -4    split the current input dim into the next two codes (``a, b``);
          one of them may be -1
    ====  =================================================================

    With ``reverse=True`` both the input dims and the codes are read right to
    left (the result is reversed back), so ``0`` copies from the end.

    One MXNet 1.9.1 detail is kept on purpose: the size inferred for ``-1`` is
    written at the position of the ``-1`` *in the code list*.  After a ``-2``
    or ``-4`` that position differs from the output position (a ``-4`` before
    the ``-1`` moves it right, and when it falls past the end nothing is
    written); MXNet does the same, so e.g. ``(2,3,4)`` with codes
    ``(-4,1,2,-1,1)`` gives ``(1,2,1,12)`` in both.
    """
    src, codes = list(src), [int(c) for c in codes]
    if reverse:
        src.reverse()
        codes.reverse()
    ndim = len(src)
    out, s, i, infer_at = [], 0, 0, None
    while i < len(codes):
        code = codes[i]
        if code == 0:
            if s >= ndim:
                raise _BadCodes('code 0 at position %d copies input dim %d, but the input has %d dims'
                                % (i, s, ndim))
            out.append(src[s])
            s += 1
        elif code == -1:
            if infer_at is not None:
                raise _BadCodes('more than one -1 (only one dim can be inferred)')
            infer_at = i
            out.append(1)
            s += 1
        elif code == -2:
            out.extend(src[s:])
            s = ndim
        elif code == -3:
            if s + 1 >= ndim:
                raise _BadCodes('-3 at position %d merges input dims %d and %d, but the input has %d dims'
                                % (i, s, s + 1, ndim))
            d1, d2 = src[s], src[s + 1]
            out.append(None if d1 is None or d2 is None else d1 * d2)
            s += 2
        elif code == -4:
            if i + 2 >= len(codes):
                raise _BadCodes('-4 at position %d must be followed by two split sizes' % i)
            if s >= ndim:
                raise _BadCodes('-4 at position %d splits input dim %d, but the input has %d dims'
                                % (i, s, ndim))
            d0, d1, d2 = src[s], codes[i + 1], codes[i + 2]
            s += 1
            i += 2
            if d1 == -1 and d2 == -1:
                raise _BadCodes('-4 split sizes cannot both be -1')
            if d1 == 0 or d2 == 0 or d1 < -1 or d2 < -1:
                raise _BadCodes('-4 split sizes must be positive or -1, got %d, %d' % (d1, d2))
            if d0 is not None:
                asked = (d1, d2)
                if d1 == -1:
                    d1 = d0 // d2
                if d2 == -1:
                    d2 = d0 // d1
                if d1 * d2 != d0:
                    raise _BadCodes('-4 split sizes (%d, %d) do not fit input dim %d' % (asked + (d0,)))
            out.append(None if d1 == -1 else d1)
            out.append(None if d2 == -1 else d2)
        elif code > 0:
            out.append(code)
            s += 1
        else:
            raise _BadCodes('unknown code %d (valid: positive sizes, 0, -1, -2, -3, -4)' % code)
        i += 1
    if infer_at is not None and infer_at < len(out):   # past the end: MXNet writes nothing
        if any(d is None for d in src):
            out[infer_at] = None
        else:
            rest = _prod(out)          # the -1 slot still holds its placeholder 1
            if rest == 0:
                raise _BadCodes('cannot infer -1: the other dims have zero elements')
            out[infer_at] = _prod(src) // rest
    if reverse:
        out.reverse()
    return out


def _describe(codes, reverse):
    return 'shape=%s%s' % (tuple(codes), ', reverse=True' if reverse else '')


def reshape_target(src_shape, codes, reverse=False):
    """The shape an array of ``src_shape`` gets from MXNet reshape ``codes``.

    Used by ``NDArray.reshape`` and by the ``Reshape`` operator; see
    :func:`_apply_codes` for the codes.  Raises :class:`ShapeError` naming the
    source and requested shapes when the codes do not apply or the element
    count would change.

    >>> reshape_target((2, 3, 4), (-1, 0))
    (8, 3)
    >>> reshape_target((2, 3, 4), (0, -3))
    (2, 12)
    >>> reshape_target((10, 5, 4), (-1, 0), reverse=True)
    (50, 4)
    """
    src = tuple(int(d) for d in src_shape)
    codes = tuple(int(c) for c in codes)
    try:
        out = tuple(_apply_codes(src, codes, reverse))
    except _BadCodes as err:
        raise ShapeError('cannot reshape array of shape %s with %s: %s'
                         % (shape_str(src), _describe(codes, reverse), err)) from None
    if _prod(out) != _prod(src):
        raise ShapeError('cannot reshape array of shape %s (%d elements) with %s: the result %s has %d elements'
                         % (shape_str(src), _prod(src), _describe(codes, reverse), shape_str(out), _prod(out)))
    return out


class _SameValues(Operator):
    """An operator whose output is its input with another shape: it may share the input's
    memory, and its backward is the output gradient with the input's shape."""

    def inplace(self, p):
        return [(0, 0)]

    def inplace_identity(self, p):
        return True

    def backward_inplace(self, p):
        return [(0, 0)]

    def backward_reads(self, p):
        return [], []                      # only the input's shape, which the stand-in has

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [reshaped_into(env, out_grads[0], inputs[0].shape, env.grad_target(0))]


@register
class Reshape(_SameValues):
    """Same data, new shape; ``shape`` may use the special codes of :func:`reshape_target`.

    ``target_shape``/``keep_highest`` are MXNet's deprecated spelling (a 0 in
    ``target_shape`` is inferred; ``keep_highest`` keeps the first input dim);
    they are used only when ``shape`` is empty.
    """
    name = 'Reshape'
    aliases = ('reshape',)
    params = {
        'shape': Param('shape', (), doc='the target shape, with codes 0, -1, -2, -3, -4', low=-4),
        'reverse': Param('bool', False, doc='apply the codes right to left'),
        'target_shape': Param('shape', (), doc='deprecated: target shape, one 0 is inferred'),
        'keep_highest': Param('bool', False, doc='deprecated: with target_shape, keep the first input dim'),
    }

    def _dims(self, p, src):
        """Output dims (None = unknown) for input dims ``src`` (None = unknown); None if no target given."""
        if p.shape:
            return _apply_codes(src, p.shape, p.reverse)
        if p.target_shape:
            dims = list(p.target_shape)
            start = 0
            if p.keep_highest:
                dims[0], start = src[0] if src else None, 1
            holes = [i for i in range(start, len(dims)) if dims[i] == 0]
            for i in holes:
                dims[i] = None
            if len(holes) == 1 and all(d is not None for d in src):
                rest = _prod(d for d in dims if d is not None)
                if rest:
                    dims[holes[0]] = _prod(src) // rest
            return dims
        return None

    def _request(self, p):
        if p.shape:
            return _describe(p.shape, p.reverse)
        return 'target_shape=%s%s' % (p.target_shape, ', keep_highest=True' if p.keep_highest else '')

    def _forward_shape(self, p, data):
        """Output shape (0 = unknown) from input shape ``data``, checking the element count."""
        src = [d if d > 0 else None for d in data]
        try:
            dims = self._dims(p, src)
        except _BadCodes as err:
            raise ShapeError("Reshape: cannot reshape input 'data' of shape %s with %s: %s"
                             % (shape_str(data), self._request(p), err)) from None
        if dims is None:
            return None
        out = tuple(d if d is not None else 0 for d in dims)
        if shape_is_known(data) and shape_is_known(out) and _prod(out) != _prod(data):
            raise ShapeError("Reshape: cannot reshape input 'data' of shape %s (%d elements) with %s: "
                             "the result %s has %d elements"
                             % (shape_str(data), _prod(data), self._request(p), shape_str(out), _prod(out)))
        if shape_is_known(data) and not shape_is_known(out):
            raise ShapeError("Reshape: cannot reshape input 'data' of shape %s with %s: "
                             "the result %s is not fully determined" % (shape_str(data), self._request(p), shape_str(out)))
        return out

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        where = 'Reshape output (%s)' % self._request(p)
        if data is None:                       # like MXNet: the input's ndim is needed
            return [data], [out], aux_shapes
        out = merge_shape(out, self._forward_shape(p, data), where)
        # backward: a fully known output fixes one unknown input dim
        unknown = [i for i, d in enumerate(data) if d == 0]
        if shape_is_known(out) and len(unknown) == 1:
            rest = _prod(d for d in data if d)
            if rest == 0 or _prod(out) % rest:
                raise ShapeError("Reshape: input 'data' of shape %s cannot give output shape %s"
                                 % (shape_str(data), shape_str(out)))
            data = tuple(_prod(out) // rest if d == 0 else d for d in data)
            out = merge_shape(out, self._forward_shape(p, data), where)
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        if p.shape:
            try:
                target = reshape_target(x.shape, p.shape, p.reverse)
            except ShapeError as err:
                raise ShapeError("Reshape: input 'data': %s" % err) from None
        elif p.target_shape:
            target = self._forward_shape(p, x.shape)
        elif is_np_shape():
            # NumPy shape semantics: an empty target is a scalar's shape (one element), as in MXNet
            if x.size != 1:
                raise ShapeError("Reshape: cannot reshape input 'data' of shape %s (%d elements) into "
                                 "shape () (1 element)" % (shape_str(x.shape), x.size))
            target = ()
        else:
            raise ParamError("Reshape: parameter 'shape' is empty, so the target shape is unknown")
        return [reshaped_into(env, x, target, env.target(0))]


@register
class Flatten(_SameValues):
    """(N, d1, d2, ...) -> (N, d1*d2*...); a 1-d input (N,) becomes (N, 1)."""
    name = 'Flatten'
    aliases = ('flatten',)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            if len(data) == 0:
                raise ShapeError("Flatten: input 'data' needs at least 1 dim, got shape ()")
            rest = data[1:]
            out = merge_shape(out, (data[0], _prod(rest) if all(rest) else 0), 'Flatten output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        if x.ndim == 0:
            raise ShapeError("Flatten: input 'data' needs at least 1 dim, got shape ()")
        return [reshaped_into(env, x, (x.shape[0], _prod(x.shape[1:])), env.target(0))]


@register
class ExpandDims(Operator):
    """Insert a size-1 axis at position ``axis`` (-ndim-1 <= axis <= ndim)."""
    name = 'expand_dims'
    params = {'axis': Param('int', doc='where the new axis goes (negative counts from the end)')}

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            axis = normalize_axis(self.name, 'axis', p.axis, len(data), extra=1)
            out = merge_shape(out, data[:axis] + (1,) + data[axis:], 'expand_dims output')
        elif out is not None and len(out) >= 1:
            axis = normalize_axis(self.name, 'axis', p.axis, len(out) - 1, extra=1)
            data = out[:axis] + out[axis + 1:]
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim, extra=1)
        return [fresh_copy(env.xp, x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0].reshape(inputs[0].shape)]


@register
class Transpose(Operator):
    """Permute the axes: output axis i is input axis ``axes[i]``; empty ``axes`` reverses them."""
    name = 'transpose'
    params = {'axes': Param('shape', (), doc='the permutation; empty means reverse the axes')}

    def _perm(self, p, ndim):
        if not p.axes:
            return tuple(range(ndim - 1, -1, -1))
        if len(p.axes) != ndim:
            raise ShapeError('transpose: axes=%s has %d entries but the input has %d dims'
                             % (tuple(p.axes), len(p.axes), ndim))
        perm = tuple(normalize_axis(self.name, 'axes entry', a, ndim) for a in p.axes)
        if sorted(perm) != list(range(ndim)):
            raise ShapeError('transpose: axes=%s is not a permutation of 0..%d' % (tuple(p.axes), ndim - 1))
        return perm

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        known = data if data is not None else out
        if known is None:
            return [data], [out], aux_shapes
        perm = self._perm(p, len(known))
        if data is not None:
            out = merge_shape(out, tuple(data[a] for a in perm), 'transpose output')
        inverse = [0] * len(perm)
        for i, a in enumerate(perm):
            inverse[a] = i
        data = merge_shape(data, tuple(out[a] for a in inverse), "transpose input 'data'")
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [env.xp.ascontiguousarray(x.transpose(self._perm(p, x.ndim)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        perm = self._perm(p, inputs[0].ndim)
        inverse = [0] * len(perm)
        for i, a in enumerate(perm):
            inverse[a] = i
        return [out_grads[0].transpose(inverse)]


@register
class BlockGrad(Operator):
    """Identity in forward; no gradient flows back (the input's gradient is zero, and the
    executor's plan does not even run the backward behind it: see ``blocks_gradient``)."""
    name = 'BlockGrad'
    aliases = ('stop_gradient',)
    blocks_gradient = True

    def forward(self, p, env, inputs, aux):
        return [fresh_copy(env.xp, inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


@register
class Copy(Operator):
    """Identity: a copy of the input; the gradient passes through unchanged."""
    name = '_copy'
    aliases = ('identity',)

    def forward(self, p, env, inputs, aux):
        return [fresh_copy(env.xp, inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0]]


@register
class IdentityLikeRhs(Operator):
    """``lhs`` unchanged, with the shape of ``rhs``: MXNet's internal way to tie two shapes
    so that inference can carry one back to the other (``rhs`` is read for its shape only
    and gets a zero gradient)."""
    name = '_identity_with_attr_like_rhs'

    def inputs(self, p):
        return ['lhs', 'rhs']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        known = None
        for name, shape in zip(('lhs', 'rhs', 'output'), list(in_shapes) + list(out_shapes)):
            known = merge_shape(known, shape, '%s: %s against the other shapes' % (self.name, _what(name)))
        return [known, known], [known], aux_shapes

    def forward(self, p, env, inputs, aux):
        return [fresh_copy(env.xp, inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0], env.xp.zeros_like(inputs[1])]

    def backward_reads(self, p):
        return [1], []


# ================================================================ Concat / split
def _what(name):
    return 'output' if name == 'output' else 'input %r' % name


@register
class Concat(Operator):
    """Join ``num_args`` inputs along axis ``dim``; they must agree on every other axis.

    Inputs are named ``arg0``, ``arg1``, ... (what MXNet calls auto-created
    input variables).  Shape inference also fills one input whose size on
    the concat axis is unknown when the output's is known.
    """
    name = 'Concat'
    aliases = ('concat',)
    key_var_num_args = 'num_args'
    params = {
        'num_args': Param('int', doc='number of inputs (set from the number of arguments)', low=1),
        'dim': Param('int', 1, doc='the axis to join along (negative counts from the end)'),
    }

    def inputs(self, p):
        if p.num_args < 1:
            raise ParamError('Concat: num_args must be >= 1, got %d' % p.num_args)
        return ['arg%d' % i for i in range(p.num_args)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        names = self.inputs(p)
        out = out_shapes[0]
        shapes = list(zip(names, in_shapes)) + [('output', out)]
        ref = next(((n, s) for n, s in shapes if s is not None), None)
        if ref is None:
            return list(in_shapes), [out], aux_shapes
        ndim = len(ref[1])
        axis = normalize_axis(self.name, 'dim', p.dim, ndim)
        # every shape must match the others off the concat axis
        common, source = [0] * ndim, [None] * ndim
        for name, shape in shapes:
            if shape is None:
                continue
            what = 'output' if name == 'output' else 'input %r' % name
            if len(shape) != ndim:
                raise ShapeError('Concat: %s has shape %s but %s has shape %s; all must have %d dims'
                                 % (what, shape_str(shape), _what(ref[0]), shape_str(ref[1]), ndim))
            for i, d in enumerate(shape):
                if i == axis or not d:
                    continue
                if common[i] and common[i] != d:
                    raise ShapeError('Concat: %s has shape %s but %s has shape %s; '
                                     'they may differ only on axis dim=%d'
                                     % (what, shape_str(shape), _what(source[i][0]), shape_str(source[i][1]), axis))
                if not common[i]:
                    common[i], source[i] = d, (name, shape)
        sizes = [s[axis] if s is not None else 0 for s in in_shapes]
        total = out[axis] if out is not None else 0
        if all(sizes):
            if total and total != sum(sizes):
                raise ShapeError('Concat: output has size %d on axis dim=%d but the inputs add up to %d (%s)'
                                 % (total, axis, sum(sizes), ' + '.join(map(str, sizes))))
            total = sum(sizes)
        elif total and sizes.count(0) == 1:
            missing = sizes.index(0)
            rest = total - sum(sizes)
            if rest <= 0:
                raise ShapeError('Concat: output has size %d on axis dim=%d but the known inputs already '
                                 'add up to %d' % (total, axis, sum(sizes)))
            sizes[missing] = rest

        def with_axis(size):
            return tuple(size if i == axis else common[i] for i in range(ndim))
        return [with_axis(s) for s in sizes], [with_axis(total)], aux_shapes

    def forward(self, p, env, inputs, aux):
        axis = normalize_axis(self.name, 'dim', p.dim, inputs[0].ndim)
        ref = inputs[0].shape
        for name, x in zip(self.inputs(p), inputs):
            if x.ndim != len(ref) or any(a != b for i, (a, b) in enumerate(zip(x.shape, ref)) if i != axis):
                raise ShapeError("Concat: input %r has shape %s but input 'arg0' has shape %s; "
                                 "they may differ only on axis dim=%d" % (name, shape_str(x.shape), shape_str(ref), axis))
        return [env.xp.concatenate(list(inputs), axis=axis)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        axis = normalize_axis(self.name, 'dim', p.dim, g.ndim)
        grads, start = [], 0
        for x in inputs:
            stop = start + x.shape[axis]
            grads.append(g[(slice(None),) * axis + (slice(start, stop),)])
            start = stop
        return grads


@register
class RNNParamConcat(Concat):
    """Concat for the flattened weights of a fused RNN layer (Gluon's LSTM/GRU/RNN join their
    per-layer weights into the RNN operator's one parameter vector with it).  It computes
    what Concat computes; its shape rule goes further: when the output's size is known and
    *several* inputs' sizes are not -- the two directions of a bidirectional layer whose
    input size is still unknown -- the rest is split equally among them."""
    name = '_rnn_param_concat'
    aliases = ()

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs, aux = super().infer_shape(p, in_shapes, out_shapes, aux_shapes)
        out = outs[0]
        if out is None or any(s is None for s in ins):
            return ins, outs, aux
        axis = normalize_axis(self.name, 'dim', p.dim, len(out))
        unknown = [k for k, s in enumerate(ins) if not s[axis]]
        if len(unknown) > 1 and out[axis]:
            rest = out[axis] - sum(s[axis] for s in ins)
            if rest <= 0 or rest % len(unknown):
                raise ShapeError('_rnn_param_concat: %d inputs of unknown size cannot share the %d elements the '
                                 'output has left on axis dim=%d equally' % (len(unknown), rest, axis))
            for k in unknown:
                ins[k] = tuple(rest // len(unknown) if i == axis else d for i, d in enumerate(ins[k]))
        return ins, outs, aux


@register
class SliceChannel(Operator):
    """Cut the input into ``num_outputs`` equal pieces along ``axis``.

    Outputs are named ``output0``, ``output1``, ...  With ``squeeze_axis``
    the cut axis (which must then have size ``num_outputs``) is dropped.
    """
    eliminable = False
    name = 'SliceChannel'
    aliases = ('split',)
    params = {
        'num_outputs': Param('int', doc='how many pieces', low=1),
        'axis': Param('int', 1, doc='the axis to cut (negative counts from the end)'),
        'squeeze_axis': Param('bool', False, doc='drop the cut axis (each piece has size 1 on it)'),
    }

    def outputs(self, p):
        if p.num_outputs < 1:
            raise ParamError('SliceChannel: num_outputs must be >= 1, got %d' % p.num_outputs)
        return ['output%d' % i for i in range(p.num_outputs)]

    def _piece_shape(self, p, data):
        axis = normalize_axis(self.name, 'axis', p.axis, len(data))
        d, n = data[axis], p.num_outputs
        if d and p.squeeze_axis and d != n:
            raise ShapeError("SliceChannel: with squeeze_axis=True axis %d of input 'data' must have size "
                             "num_outputs=%d, got shape %s" % (axis, n, shape_str(data)))
        if d and d % n:
            raise ShapeError("SliceChannel: cannot cut axis %d of input 'data' (shape %s) into %d equal pieces"
                             % (axis, shape_str(data), n))
        if p.squeeze_axis:
            return tuple(data[:axis]) + tuple(data[axis + 1:])
        return tuple(data[:axis]) + (d // n,) + tuple(data[axis + 1:])

    def _data_shape(self, p, data, piece):
        """What a known piece says of the (partly known) input: every other axis, and the cut
        axis as num_outputs pieces (MXNet infers ``a`` from ``split(a)[1] + c`` so)."""
        axis = normalize_axis(self.name, 'axis', p.axis, len(data))
        piece = tuple(piece)
        if p.squeeze_axis:
            return piece[:axis] + (p.num_outputs,) + piece[axis:]
        return piece[:axis] + (piece[axis] * p.num_outputs,) + piece[axis + 1:]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        for piece in outs:
            # only into an input of known rank, as MXNet: an unknown one stays unknown
            if piece is not None and data is not None and len(piece) == len(data) - p.squeeze_axis:
                data = merge_shape(data, self._data_shape(p, data, piece), "SliceChannel input 'data'")
        if data is not None:
            piece = self._piece_shape(p, data)
            outs = [merge_shape(o, piece, 'SliceChannel output%d' % k) for k, o in enumerate(outs)]
        return [data], outs, aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        piece = self._piece_shape(p, x.shape)
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim)
        step = x.shape[axis] // p.num_outputs
        return [fresh_copy(env.xp, x[(slice(None),) * axis + (slice(k * step, (k + 1) * step),)]).reshape(piece)
                for k in range(p.num_outputs)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim)
        shape = list(x.shape)
        shape[axis] //= p.num_outputs
        parts = [xp.zeros(shape, dtype=x.dtype) if g is None else g.reshape(shape)
                 for g in out_grads[:p.num_outputs]]
        return [xp.concatenate(parts, axis=axis)]


@register
class SplitV2(Operator):
    """Cut the input along ``axis`` at the positions ``indices`` (starting with 0), or into
    ``sections`` equal pieces when that is given (> 0); ``squeeze_axis`` drops the axis from
    pieces of size 1.  MXNet's ``split_v2`` (numpy's split) front ends build the parameters."""
    name = '_split_v2'
    params = {
        'indices': Param('shape', (), doc='where each piece starts (the first is 0)'),
        'axis': Param('int', 0, doc='the axis to cut (negative counts from the end)'),
        'squeeze_axis': Param('bool', False, doc='drop the cut axis from pieces of size 1'),
        'sections': Param('int', 0, doc='this many equal pieces instead of indices (0: use indices)', low=0),
    }

    def outputs(self, p):
        count = p.sections if p.sections > 0 else len(p.indices)
        if count < 1:
            raise ParamError('_split_v2: give sections > 0 or at least one index')
        return ['output%d' % i for i in range(count)]

    def _bounds(self, p, size):
        """[(start, stop)] of every piece along an axis of ``size``."""
        if p.sections > 0:
            if size % p.sections:
                raise ShapeError('_split_v2: an axis of size %d does not split into %d equal sections'
                                 % (size, p.sections))
            step = size // p.sections
            return [(k * step, (k + 1) * step) for k in range(p.sections)]
        starts = list(p.indices)
        if any(b < a for a, b in zip(starts, starts[1:])) or starts[-1] > size:
            raise ShapeError('_split_v2: indices %s must rise and stay within the axis (size %d)'
                             % (shape_str(starts), size))
        return list(zip(starts, starts[1:] + [size]))

    def _piece_shapes(self, p, data):
        axis = normalize_axis(self.name, 'axis', p.axis, len(data))
        shapes = []
        for start, stop in self._bounds(p, data[axis]):
            keep = () if p.squeeze_axis and stop - start == 1 else (stop - start,)
            shapes.append(tuple(data[:axis]) + keep + tuple(data[axis + 1:]))
        return shapes

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, outs = in_shapes[0], list(out_shapes)
        if data is not None:
            outs = [merge_shape(o, piece, '_split_v2 output%d' % k)
                    for k, (o, piece) in enumerate(zip(outs, self._piece_shapes(p, data)))]
        return [data], outs, aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim)
        return [fresh_copy(env.xp, x[(slice(None),) * axis + (slice(start, stop),)]).reshape(shape)
                for (start, stop), shape in zip(self._bounds(p, x.shape[axis]), self._piece_shapes(p, x.shape))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim)
        parts = []
        for (start, stop), g in zip(self._bounds(p, x.shape[axis]), out_grads):
            shape = list(x.shape)
            shape[axis] = stop - start
            parts.append(xp.zeros(shape, dtype=x.dtype) if g is None else g.reshape(shape))
        return [xp.concatenate(parts, axis=axis)]
