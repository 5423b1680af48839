"""CTCLoss: connectionist temporal classification loss (Graves et al., 2006).

data is (T, N, C): for every time step and sample, unnormalised scores over an
alphabet of C symbols, one of which is the *blank* (symbol 0 with
``blank_label='first'``, symbol C-1 with ``'last'``).  The loss of sample n is
``-log P(label_n | data_n)``, P summing the softmax probabilities of every path
(one symbol per step) that becomes the label once repeats are merged and
blanks dropped.

label is (N, L), floats truncated to class indices.  A sample's label ends
where the padding value first appears -- 0 with ``'first'``, -1 with
``'last'`` (what MXNet 1.9.1 does; its documentation of ``blank_label`` says
the opposite) -- or, with ``use_label_lengths``, after ``label_lengths[n]``
entries, all of which count (a 0 with ``'first'`` is then the blank symbol).  With
``use_data_lengths`` only the first ``data_lengths[n]`` steps of sample n
count; the others get zero gradient.

The sums over paths are the forward (alpha) and backward (beta) recursions
over the label with a blank between and around its symbols, in log space and
for the whole batch at once.  Step s of that extended label may be reached
from s, s-1, and s-2 when symbol s is not blank and differs from symbol s-2.
MXNet's backward recursion asks instead that symbol s-2 is not blank: the two
rules differ only when a label holds the blank symbol (which label_lengths
allows), and there reflib follows MXNet, whose gradient is then not exactly
the derivative of its loss.

Samples MXNet (warp-ctc) gives up on: when a label needs more steps than the
sample has (its length plus its repeated neighbours exceeds the data length)
MXNet outputs a loss of 0 and leaves the gradient unwritten; reflib outputs 0
with zero gradient.  A label holding the blank symbol can have probability 0:
the loss is then inf, as in MXNet, and reflib's gradient is 0 (MXNet's is not
finite).  Label values outside [0, C) and lengths outside their range, which
MXNet reads out of bounds for, are refused.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str, any_true, to_host
from ..base import ShapeError, MXNetError


def _log_softmax(xp, x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))


def _shift(xp, a, k, fill):
    """``a`` moved k places right along its last axis, ``fill`` coming in on the left."""
    out = xp.full_like(a, fill)
    out[..., k:] = a[..., :a.shape[-1] - k]
    return out


def _shift_left(xp, a, k, fill):
    """``a`` moved k places left along its last axis, ``fill`` coming in on the right."""
    out = xp.full_like(a, fill)
    out[..., :a.shape[-1] - k] = a[..., k:]
    return out


class _Lattice:
    """One batch's extended labels and log-probabilities: what both recursions need."""

    def __init__(self, xp, data, labels, label_len, data_len, blank):
        self.xp = xp
        steps, batch, _ = data.shape
        self.steps, self.batch = steps, batch
        self.neg = data.dtype.type(-np.inf)
        width = 2 * labels.shape[1] + 1
        ext = xp.full((batch, width), blank, dtype=np.int64)
        ext[:, 1::2] = labels
        self.ext = ext
        self.label_len, self.data_len = label_len, data_len
        self.logp = _log_softmax(xp, data)
        # emit[t, n, s]: log-probability of extended symbol s of sample n at step t
        self.emit = self.logp[:, xp.arange(batch)[:, None], ext]
        self.valid = xp.arange(width)[None, :] < (2 * label_len + 1)[:, None]
        # skip_into[s]: s may be reached from s-2 (alpha); skip_from[s]: s may go on to
        # s+2 (beta).  Both need the symbols two apart to differ; alpha asks that the target
        # is not blank, beta that the source is not, as warp-ctc does.  The two agree unless
        # a label holds the blank symbol (possible with label_lengths).
        differ = ext[:, 2:] != ext[:, :-2]
        self.skip_into = xp.zeros((batch, width), dtype=bool)
        self.skip_into[:, 2:] = differ & (ext[:, 2:] != blank)
        self.skip_from = xp.zeros((batch, width), dtype=bool)
        self.skip_from[:, :-2] = differ & (ext[:, :-2] != blank)
        # loss 0 and no gradient: labels that need more steps than there are (MXNet gives
        # up on them), and samples with no steps at all (an empty label then has probability 1)
        used = xp.arange(labels.shape[1])[None, :] < label_len[:, None]
        repeats = (used[:, 1:] & (labels[:, 1:] == labels[:, :-1])).sum(axis=1)
        self.zero_loss = (label_len + repeats > data_len) | (data_len == 0)

    def alpha(self):
        """log P(the first t+1 steps end in extended symbol s), (T, N, S)."""
        xp, neg = self.xp, self.neg
        out = xp.full(self.emit.shape, neg, dtype=self.emit.dtype)
        first = xp.full(self.emit.shape[1:], neg, dtype=self.emit.dtype)
        first[:, :2] = self.emit[0, :, :2]
        out[0] = xp.where(self.valid, first, neg)
        for t in range(1, self.steps):
            prev = out[t - 1]
            reach = xp.logaddexp(prev, _shift(xp, prev, 1, neg))
            reach = xp.logaddexp(reach, xp.where(self.skip_into, _shift(xp, prev, 2, neg), neg))
            out[t] = xp.where(self.valid, reach + self.emit[t], neg)
        return out

    def beta(self):
        """log P(steps t+1.. of the sample, given extended symbol s at step t), (T, N, S)."""
        xp, neg = self.xp, self.neg
        width = self.ext.shape[1]
        pos = xp.arange(width)[None, :]
        end = 2 * self.label_len[:, None]
        last = ((pos == end) | (pos == end - 1)) & self.valid
        start = xp.where(last, self.emit.dtype.type(0), neg)
        out = xp.full(self.emit.shape, neg, dtype=self.emit.dtype)
        for t in range(self.steps - 1, -1, -1):
            here = (t == self.data_len - 1)[:, None]
            inside = (t < self.data_len - 1)[:, None]
            if t + 1 < self.steps:
                nxt = out[t + 1] + self.emit[t + 1]
                back = xp.logaddexp(nxt, _shift_left(xp, nxt, 1, neg))
                back = xp.logaddexp(back, xp.where(self.skip_from, _shift_left(xp, nxt, 2, neg), neg))
                back = xp.where(self.valid, back, neg)
            else:
                back = xp.full(start.shape, neg, dtype=start.dtype)
            out[t] = xp.where(here, start, xp.where(inside, back, neg))
        return out

    def log_likelihood(self, alpha):
        """log P(label | data) per sample, from the alpha of its last step (-inf where impossible)."""
        xp = self.xp
        samples = xp.arange(self.batch)
        last_step = xp.maximum(self.data_len - 1, 0)
        end = 2 * self.label_len
        final = alpha[last_step, samples, end]
        before = alpha[last_step, samples, xp.maximum(end - 1, 0)]
        before = xp.where(self.label_len > 0, before, self.neg)
        return xp.logaddexp(final, before)


@register
class CTCLoss(Operator):
    """Per-sample CTC loss, shape (N,); its gradient w.r.t. data in backward (see the module doc).

    Inputs: data (T, N, C), label (N, L) with L <= T, then ``data_lengths`` (N,)
    with ``use_data_lengths`` and ``label_lengths`` (N,) with ``use_label_lengths``.
    The data gradient is ``head[n] * (softmax(data) - posterior of each symbol)``;
    label and lengths get none.  MXNet calls the output ``output0``: it is the first
    of two, the second (hidden) being the gradient MXNet computes in forward; reflib
    computes the gradient in backward instead.
    """
    name = 'CTCLoss'
    aliases = ('ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss')
    params = {
        'use_data_lengths': Param('bool', False, doc='take an input data_lengths (steps per sample)'),
        'use_label_lengths': Param('bool', False, doc='take an input label_lengths instead of '
                                                      'ending labels at the padding value'),
        'blank_label': Param('enum', 'first', choices=('first', 'last'),
                             doc="the blank symbol: 0 ('first', labels padded with 0) or C-1 "
                                 "('last', labels padded with -1)"),
    }

    def inputs(self, p):
        return (['data', 'label'] + (['data_lengths'] if p.use_data_lengths else [])
                + (['label_lengths'] if p.use_label_lengths else []))

    def outputs(self, p):
        return ['output0']

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0] if in_types[0] is not None else out_types[0]
        return [data] + [t if t is not None else data for t in in_types[1:]], [data], aux_types

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, label = in_shapes[0], in_shapes[1]
        for shape, name, ndim in ((data, 'data', 3), (label, 'label', 2)):
            if shape is not None and len(shape) != ndim:
                raise ShapeError("%s: input %r must be %d-d, got shape %s" % (self.name, name, ndim, shape_str(shape)))
        batch = merge_shape(out_shapes[0], None if data is None else (data[1],), '%s: output' % self.name)
        if label is not None:
            batch = merge_shape(batch, (label[0],), "%s: input 'label' (N, L) against data (T, N, C)" % self.name)
        for shape, name in zip(in_shapes[2:], self.inputs(p)[2:]):
            batch = merge_shape(batch, shape, '%s: input %r' % (self.name, name))
        if data is not None and label is not None and data[0] and label[1] and label[1] > data[0]:
            raise ShapeError("%s: labels of %d symbols (input 'label' %s) cannot fit %d steps (data %s)"
                             % (self.name, label[1], shape_str(label), data[0], shape_str(data)))
        if data is not None and batch is not None:
            data = (data[0], batch[0], data[2])
        if label is not None and batch is not None:
            label = (batch[0], label[1])
        return [data, label] + [batch] * (len(in_shapes) - 2), [batch], aux_shapes

    # ----------------------------------------------------------------- inputs
    def _lattice(self, p, env, inputs):
        xp, data, label = env.xp, inputs[0], inputs[1]
        if data.ndim != 3 or label.ndim != 2 or label.shape[0] != data.shape[1]:
            raise ShapeError("%s: needs data (T, N, C) and label (N, L), got %s and %s"
                             % (self.name, shape_str(data.shape), shape_str(label.shape)))
        steps, batch, classes = data.shape
        rest = dict(zip(self.inputs(p)[2:], inputs[2:]))
        labels = label.astype(np.int64)
        width = labels.shape[1]
        if p.use_label_lengths:
            label_len = self._lengths(xp, rest['label_lengths'], batch, width, 'label_lengths')
        else:
            pad = 0 if p.blank_label == 'first' else -1
            is_pad = xp.concatenate([labels == pad, xp.ones((batch, 1), dtype=bool)], axis=1)
            label_len = is_pad.argmax(axis=1)
        if p.use_data_lengths:
            data_len = self._lengths(xp, rest['data_lengths'], batch, steps, 'data_lengths')
        else:
            data_len = xp.full((batch,), steps, dtype=np.int64)
        used = xp.arange(width)[None, :] < label_len[:, None]
        if any_true(used & ((labels < 0) | (labels >= classes))):
            raise MXNetError("%s: input 'label' holds a symbol outside [0, %d) (the alphabet of data %s)"
                             % (self.name, classes, shape_str(data.shape)))
        blank = 0 if p.blank_label == 'first' else classes - 1
        lattice = _Lattice(xp, data, labels, label_len, data_len, blank)
        return lattice

    def _lengths(self, xp, lengths, batch, most, name):
        if lengths.shape != (batch,):
            raise ShapeError('%s: input %r must have shape (%d,), got %s'
                             % (self.name, name, batch, shape_str(lengths.shape)))
        out = lengths.astype(np.int64)
        if any_true((out < 0) | (out > most)):
            raise MXNetError('%s: input %r must hold lengths in [0, %d], got %s'
                             % (self.name, name, most, to_host(lengths)))
        return out

    # ------------------------------------------------------------ computation
    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        lattice = self._lattice(p, env, inputs)
        loss = -lattice.log_likelihood(lattice.alpha())
        return [xp.where(lattice.zero_loss, data.dtype.type(0), loss).astype(data.dtype, copy=False)]

    def backward_reads(self, p):
        return list(range(len(self.inputs(p)))), []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data = env.xp, inputs[0]
        lattice = self._lattice(p, env, inputs)
        alpha = lattice.alpha()
        loglik = lattice.log_likelihood(alpha)
        usable = ~lattice.zero_loss & xp.isfinite(loglik)
        loglik = xp.where(usable, loglik, data.dtype.type(0))
        # posterior of extended symbol s at step t, summed into the symbols it stands for
        posterior = xp.exp(alpha + lattice.beta() - loglik[None, :, None])
        onehot = (lattice.ext[:, :, None] == xp.arange(data.shape[2])).astype(data.dtype)
        grad = xp.exp(lattice.logp) - xp.einsum('tns,nsc->tnc', posterior, onehot)
        live = (xp.arange(data.shape[0])[:, None] < lattice.data_len[None, :]) & usable[None, :]
        # where, not a product with 0: padded steps may hold NaN or inf (MXNet gives them 0)
        grad = xp.where(live[:, :, None], grad * out_grads[0][None, :, None], data.dtype.type(0))
        return [grad.astype(data.dtype, copy=False)] + [None] * (len(inputs) - 1)
