"""The two matrix products of multi-head attention, read straight from interleaved projections.

A transformer layer projects its input once into queries, keys and values for all heads
and keeps them side by side in the last axis, sequence first:

* self-attention: ``(seq, batch, heads * 3 * head_dim)``, per head the query, key and
  value of ``head_dim`` each, one after the other;
* encoder-decoder attention: the queries ``(seq_q, batch, heads * head_dim)`` from the
  decoder, keys and values ``(seq_k, batch, heads * 2 * head_dim)`` from the encoder.

The operators pick each head's slice, so no transpose or slice operator has to copy
them out first, and multiply per (batch, head) pair; the pairs are numbered
``batch * heads + head``:

* ``*_qk``: scores ``(batch * heads, seq_q, seq_k)`` = ``q k^T / sqrt(head_dim)``;
* ``*_valatt``: ``attention @ v`` for attention weights ``(batch * heads, seq_q, seq_k)``,
  laid back into ``(seq_q, batch, heads * head_dim)``.

The gradients are the same products transposed; the slots of the interleaved input an
operator does not read get a zero gradient.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from ..base import ShapeError


def _heads_param():
    return {'heads': Param('int', doc='the number of attention heads', low=1)}


def _check_projection(op, name, shape, heads, parts):
    """Check a (seq, batch, heads * parts * head_dim) input; its head_dim, or None."""
    if shape is None:
        return None
    if len(shape) != 3:
        raise ShapeError('%s: input %r must be 3-d (seq_length, batch, features), got shape %s'
                         % (op, name, _fmt_shape(shape)))
    if shape[2] and shape[2] % (heads * parts):
        raise ShapeError('%s: the last axis of input %r must be heads * %d * head_dim, a multiple of %d '
                         '(heads=%d), got shape %s' % (op, name, parts, heads * parts, heads, _fmt_shape(shape)))
    return shape[2] // (heads * parts) if shape[2] else None


def _split_heads(x, heads, parts, part):
    """Part ``part`` of every head of (seq, batch, heads * parts * d): (batch * heads, seq, d)."""
    seq, batch, features = x.shape
    d = features // (heads * parts)
    per_head = x.reshape(seq, batch, heads, parts, d)[:, :, :, part, :]
    return per_head.transpose(1, 2, 0, 3).reshape(batch * heads, seq, d)


def _join_heads(xp, parts_by_slot, seq, batch, heads, d, dtype):
    """The (seq, batch, heads * parts * d) array whose slot k holds ``parts_by_slot[k]``
    ((batch * heads, seq, d), or None for zeros): the inverse of ``_split_heads``."""
    out = xp.zeros((seq, batch, heads, len(parts_by_slot), d), dtype=dtype)
    for slot, values in enumerate(parts_by_slot):
        if values is not None:
            out[:, :, :, slot, :] = values.reshape(batch, heads, seq, d).transpose(2, 0, 1, 3)
    return out.reshape(seq, batch, heads * len(parts_by_slot) * d)


def _merge_heads(x, heads):
    """(batch * heads, seq, d) laid out as (seq, batch, heads * d)."""
    pairs, seq, d = x.shape
    return x.reshape(pairs // heads, heads, seq, d).transpose(2, 0, 1, 3).reshape(seq, pairs // heads, heads * d)


def _scale(head_dim, dtype):
    return np.dtype(dtype).type(1.0 / np.sqrt(head_dim))


def _check_attention(op, shape, pairs, seq_q, seq_k):
    """Check attention weights (batch * heads, seq_q, seq_k) against what the values imply."""
    if shape is None:
        return
    want = (pairs, seq_q, seq_k)
    if len(shape) != 3 or any(w and s and w != s for w, s in zip(want, shape)):
        raise ShapeError('%s: input %r must be (batch * heads, seq_q, seq_k) = %s, got shape %s'
                         % (op, 'attention', _fmt_shape(want), _fmt_shape(shape)))


# =====================================================================
# self-attention
# =====================================================================

@register
class InterleavedSelfAttQK(Operator):
    """Self-attention scores: queries_keys_values (seq, batch, heads * 3 * d) ->
    (batch * heads, seq, seq), ``q k^T / sqrt(d)`` per head."""
    name = '_contrib_interleaved_matmul_selfatt_qk'
    params = _heads_param()

    def inputs(self, p):
        return ['queries_keys_values']

    def backward_reads(self, p):
        return [0], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        qkv = in_shapes[0]
        _check_projection(self.name, 'queries_keys_values', qkv, p.heads, 3)
        if qkv is None:
            return list(in_shapes), list(out_shapes), aux_shapes
        out = merge_shape(out_shapes[0], (qkv[1] * p.heads, qkv[0], qkv[0]), '%s: output' % self.name)
        return list(in_shapes), [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        qkv = inputs[0]
        self.infer_shape(p, [tuple(qkv.shape)], [None], [])
        q, k = _split_heads(qkv, p.heads, 3, 0), _split_heads(qkv, p.heads, 3, 1)
        scale = _scale(q.shape[2], qkv.dtype)
        return [env.xp.matmul(q, k.transpose(0, 2, 1)) * scale]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, qkv, grad = env.xp, inputs[0], out_grads[0]
        q, k = _split_heads(qkv, p.heads, 3, 0), _split_heads(qkv, p.heads, 3, 1)
        scale = _scale(q.shape[2], qkv.dtype)
        d_q = xp.matmul(grad, k) * scale
        d_k = xp.matmul(grad.transpose(0, 2, 1), q) * scale
        seq, batch = qkv.shape[:2]
        return [_join_heads(xp, [d_q, d_k, None], seq, batch, p.heads, q.shape[2], qkv.dtype)]


@register
class InterleavedSelfAttValAtt(Operator):
    """Self-attention output: the values of queries_keys_values (seq, batch, heads * 3 * d)
    weighted by attention (batch * heads, seq, seq) -> (seq, batch, heads * d)."""
    name = '_contrib_interleaved_matmul_selfatt_valatt'
    params = _heads_param()

    def inputs(self, p):
        return ['queries_keys_values', 'attention']

    def backward_reads(self, p):
        return [0, 1], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        qkv, att = in_shapes
        d = _check_projection(self.name, 'queries_keys_values', qkv, p.heads, 3)
        if qkv is None:
            return list(in_shapes), list(out_shapes), aux_shapes
        _check_attention(self.name, att, qkv[1] * p.heads, qkv[0], qkv[0])
        att = merge_shape(att, (qkv[1] * p.heads, qkv[0], qkv[0]), '%s: input attention' % self.name)
        out = merge_shape(out_shapes[0], (qkv[0], qkv[1], p.heads * (d or 0)), '%s: output' % self.name)
        return [qkv, att], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        qkv, att = inputs
        self.infer_shape(p, [tuple(qkv.shape), tuple(att.shape)], [None], [])
        v = _split_heads(qkv, p.heads, 3, 2)
        return [_merge_heads(env.xp.matmul(att, v), p.heads)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (qkv, att) = env.xp, inputs
        v = _split_heads(qkv, p.heads, 3, 2)
        seq, batch = qkv.shape[:2]
        grad = _split_heads(out_grads[0], p.heads, 1, 0)                 # (batch * heads, seq, d)
        d_v = xp.matmul(att.transpose(0, 2, 1), grad)
        d_att = xp.matmul(grad, v.transpose(0, 2, 1))
        return [_join_heads(xp, [None, None, d_v], seq, batch, p.heads, v.shape[2], qkv.dtype), d_att]


# =====================================================================
# encoder-decoder attention
# =====================================================================

@register
class InterleavedEncDecQK(Operator):
    """Encoder-decoder scores: queries (seq_q, batch, heads * d) and the keys of keys_values
    (seq_k, batch, heads * 2 * d) -> (batch * heads, seq_q, seq_k), ``q k^T / sqrt(d)``."""
    name = '_contrib_interleaved_matmul_encdec_qk'
    params = _heads_param()

    def inputs(self, p):
        return ['queries', 'keys_values']

    def backward_reads(self, p):
        return [0, 1], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        queries, kv = in_shapes
        d_q = _check_projection(self.name, 'queries', queries, p.heads, 1)
        d_k = _check_projection(self.name, 'keys_values', kv, p.heads, 2)
        if queries is None or kv is None:
            return list(in_shapes), list(out_shapes), aux_shapes
        if (d_q and d_k and d_q != d_k) or (queries[1] and kv[1] and queries[1] != kv[1]):
            raise ShapeError('%s: inputs %r %s and %r %s must have one batch size and one head_dim '
                             '(heads=%d)' % (self.name, 'queries', _fmt_shape(queries), 'keys_values',
                                             _fmt_shape(kv), p.heads))
        out = merge_shape(out_shapes[0], (queries[1] * p.heads, queries[0], kv[0]), '%s: output' % self.name)
        return list(in_shapes), [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        queries, kv = inputs
        self.infer_shape(p, [tuple(queries.shape), tuple(kv.shape)], [None], [])
        q, k = _split_heads(queries, p.heads, 1, 0), _split_heads(kv, p.heads, 2, 0)
        return [env.xp.matmul(q, k.transpose(0, 2, 1)) * _scale(q.shape[2], queries.dtype)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (queries, kv), grad = env.xp, inputs, out_grads[0]
        q, k = _split_heads(queries, p.heads, 1, 0), _split_heads(kv, p.heads, 2, 0)
        scale = _scale(q.shape[2], queries.dtype)
        d_q = _merge_heads(xp.matmul(grad, k) * scale, p.heads)
        d_k = xp.matmul(grad.transpose(0, 2, 1), q) * scale
        seq_k, batch = kv.shape[:2]
        return [d_q, _join_heads(xp, [d_k, None], seq_k, batch, p.heads, q.shape[2], kv.dtype)]


@register
class InterleavedEncDecValAtt(Operator):
    """Encoder-decoder output: the values of keys_values (seq_k, batch, heads * 2 * d)
    weighted by attention (batch * heads, seq_q, seq_k) -> (seq_q, batch, heads * d)."""
    name = '_contrib_interleaved_matmul_encdec_valatt'
    params = _heads_param()

    def inputs(self, p):
        return ['keys_values', 'attention']

    def backward_reads(self, p):
        return [0, 1], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        kv, att = in_shapes
        d = _check_projection(self.name, 'keys_values', kv, p.heads, 2)
        if kv is None or att is None:
            return list(in_shapes), list(out_shapes), aux_shapes
        if len(att) != 3:
            raise ShapeError('%s: input %r must be 3-d (batch * heads, seq_q, seq_k), got shape %s'
                             % (self.name, 'attention', _fmt_shape(att)))
        _check_attention(self.name, att, kv[1] * p.heads, att[1], kv[0])
        out = merge_shape(out_shapes[0], (att[1], kv[1], p.heads * (d or 0)), '%s: output' % self.name)
        return list(in_shapes), [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        kv, att = inputs
        self.infer_shape(p, [tuple(kv.shape), tuple(att.shape)], [None], [])
        v = _split_heads(kv, p.heads, 2, 1)
        return [_merge_heads(env.xp.matmul(att, v), p.heads)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (kv, att) = env.xp, inputs
        v = _split_heads(kv, p.heads, 2, 1)
        seq_k, batch = kv.shape[:2]
        grad = _split_heads(out_grads[0], p.heads, 1, 0)                 # (batch * heads, seq_q, d)
        d_v = xp.matmul(att.transpose(0, 2, 1), grad)
        d_att = xp.matmul(grad, v.transpose(0, 2, 1))
        return [_join_heads(xp, [None, d_v], seq_k, batch, p.heads, v.shape[2], kv.dtype), d_att]
