"""The fused recurrent layer ``RNN``: a whole stack of Elman, LSTM or GRU layers over a whole
sequence in one operator, its weights in one flat ``parameters`` vector.

Inputs are time-major: ``data`` (T, N, C), ``state`` (L*D, N, H) and, for LSTM,
``state_cell`` (L*D, N, H), where L is ``num_layers``, D is 2 for ``bidirectional`` (else 1)
and H ``state_size``; row ``l*D + d`` of a state belongs to layer ``l``, direction ``d``
(0 forwards, 1 backwards).  The output is (T, N, D*H): each step's last-layer hidden state,
the two directions side by side.  With ``state_outputs`` the final states follow.

``parameters`` holds, as MXNet lays it out: first every weight, layer by layer and in each
layer direction by direction, the input-to-hidden matrix (G*H, C_l) then the
hidden-to-hidden one (G*H, H); then every bias in the same order (i2h, h2h).  G is the
number of gates (1, LSTM 4 in the order input, forget, cell, output; GRU 3 in the order
reset, update, new) and C_l the layer's input size: C for the first layer, D*H above it
(D*P with a projection, below).

Per step, with ``x`` the layer's input and ``h`` the previous hidden state::

    rnn_tanh / rnn_relu   h' = act(W_i x + b_i + W_h h + b_h)
    lstm                  i, f, g, o = sig, sig, tanh, sig of (W_i x + b_i + W_h h + b_h)
                          c' = f*c + i*g  (clipped to [min, max] with lstm_state_clip_*)
                          h' = o * tanh(c')
    gru                   r, z = sig(W_i x + b_i + W_h h + b_h) (their rows)
                          n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
                          h' = (1 - z) * n + z * h

The reset gate multiplies the hidden layer's whole candidate term, bias included, as in
MXNet (and cuDNN) and as reflib's GRUCell.  In training, ``p`` drops out the output of
every layer but the last before the next layer reads it, as MXNet's plain CPU kernel and
cuDNN do (its default CPU kernel, oneDNN's, ignores ``p``).

Two options MXNet 1.9.1 computes only with cuDNN are computed here as cuDNN defines them
(on CPU MXNet's oneDNN kernel accepts and silently ignores them, its plain CPU kernel
refuses them): ``lstm_state_clip_min/max`` clip every new cell state (a clipped state
passes no gradient back; with ``lstm_state_clip_nan`` a NaN becomes the lower bound, else
it stays NaN); ``use_sequence_length`` reads one length per sample from ``sequence_length``,
and past it the output is 0 and the states stop changing (the backward direction starts at
the sample's last real step).

``projection_size`` P (LSTM only) projects each new hidden state down, ``r = W_r h'`` (P, H),
no bias: ``r`` is what the step outputs, what the next step's hidden side reads (W_h is then
(4H, P)) and what the layer above reads; the state is (L*D, N, P), the cell state stays
(L*D, N, H).  Each layer and direction's W_r follows its h2h weight in ``parameters``.
MXNet 1.9.1 computes the projection forward on CPU but trains it only with cuDNN ("no
training support for LSTM with projection on CPU"); reflib computes its backward too, as
cuDNN defines it.

Each step is one matrix product for all gates of the whole batch; the input side of every
step is one product for the whole sequence before the loop.  What backward needs (every
layer's outputs, gate activations, cell states, dropout masks) forward keeps in a hidden
output, ``reserve`` (MXNet's reserve space), so backward does not run forward again.
"""

from ..base import ParamError, ShapeError
from .common import shape_str, any_true, to_host, rounded_once
from .registry import Operator, Param, register
from ..shapes import merge_shape

GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def param_blocks(mode, num_layers, directions, input_size, state_size, projection_size=None):
    """Where each weight and bias lives in the flat vector: ``(blocks, total size)``.

    ``blocks[l*D + d]`` is ``[i2h_weight, h2h_weight, i2h_bias, h2h_bias]`` of layer ``l``,
    direction ``d``, each a ``(start, shape)``, and with a projection ``h2r_weight`` last.
    """
    rows, h = GATES[mode] * state_size, state_size
    width = projection_size or h                # what a step outputs and the hidden side reads
    blocks, pos = [], 0
    for layer in range(num_layers):
        cols = input_size if layer == 0 else directions * width
        for _ in range(directions):
            blocks.append([(pos, (rows, cols)), (pos + rows * cols, (rows, width))])
            pos += rows * (cols + width)
            if projection_size:
                blocks[-1].append((pos, (projection_size, h)))
                pos += projection_size * h
    for block in blocks:
        block[2:2] = [(pos, (rows,)), (pos + rows, (rows,))]
        pos += 2 * rows
    return blocks, pos


def param_size(mode, num_layers, directions, input_size, state_size, projection_size=None):
    """The length of the flat parameter vector (MXNet's formula, projection included)."""
    return param_blocks(mode, num_layers, directions, input_size, state_size, projection_size)[1]


def _view(flat, block):
    start, shape = block
    size = 1
    for d in shape:
        size *= d
    return flat[start:start + size].reshape(shape)


class _Reserve:
    """The pieces of the ``reserve`` vector, as views, for one (T, N) and the node's params:
    per layer its output ``y`` (T, N, D*H, or D*P with a projection) and, below the top with
    dropout, its ``mask``; per layer and direction the gate activations ``gates`` (T, N, G*H),
    for LSTM the cell states ``c`` and for GRU the hidden side of the candidate ``hn`` (both
    (T, N, H)), and with a projection the hidden states before it, ``h`` (T, N, H)."""

    def __init__(self, p, steps, batch, flat=None):
        D, H, G = 1 + p.bidirectional, p.state_size, GATES[p.mode]
        width = p.projection_size or H
        specs = []
        for layer in range(p.num_layers):
            specs.append(('y', layer, D * width))
            if p.p > 0 and layer < p.num_layers - 1:
                specs.append(('mask', layer, D * width))
            for d in range(D):
                specs.append(('gates', layer * D + d, G * H))
                if p.mode in ('lstm', 'gru'):
                    specs.append(('c' if p.mode == 'lstm' else 'hn', layer * D + d, H))
                if p.projection_size:
                    specs.append(('h', layer * D + d, H))
        self.size = sum(steps * batch * width for _, _, width in specs)
        self.parts = {}
        if flat is not None:
            pos = 0
            for kind, key, width in specs:
                n = steps * batch * width
                self.parts[kind, key] = flat[pos:pos + n].reshape(steps, batch, width)
                pos += n

    def __getitem__(self, key):
        return self.parts[key]


def _sigmoid(xp, x):
    """``1 / (1 + exp(-x))`` in place."""
    xp.negative(x, out=x)
    rounded_once(xp, xp.exp, x, out=x)
    x += 1
    xp.reciprocal(x, out=x)
    return x


@register
class RNN(Operator):
    """Stacked, optionally bidirectional RNN / LSTM / GRU over a time-major sequence."""
    eliminable = False
    name = 'RNN'
    params = {
        'state_size': Param('int', doc='hidden units per layer and direction', low=1),
        'num_layers': Param('int', doc='stacked layers', low=1),
        'bidirectional': Param('bool', False, doc='also run each layer backwards in time'),
        'mode': Param('enum', choices=('gru', 'lstm', 'rnn_relu', 'rnn_tanh'), doc='the cell'),
        'p': Param('float', 0.0, doc='dropout between layers (training only)', low=0, high=1),
        'state_outputs': Param('bool', False, doc='also output the final states'),
        'projection_size': Param('int_or_none', None, doc='LSTM only: project each hidden state down to this size', low=1),
        'lstm_state_clip_min': Param('float_or_none', None, doc='lowest LSTM cell state'),
        'lstm_state_clip_max': Param('float_or_none', None, doc='highest LSTM cell state'),
        'lstm_state_clip_nan': Param('bool', False, doc='clipping also turns NaN cell states into a bound'),
        'use_sequence_length': Param('bool', False, doc='read per-sample lengths from sequence_length'),
    }

    # ------------------------------------------------------------- structure
    def inputs(self, p):
        names = ['data', 'parameters', 'state']
        if p.mode == 'lstm':
            names.append('state_cell')
        if p.use_sequence_length:
            names.append('sequence_length')
        return names

    def outputs(self, p):
        names = ['output']
        if p.state_outputs:
            names += ['state_output', 'statecell_output'] if p.mode == 'lstm' else ['state_output']
        return names + ['reserve']

    def visible_outputs(self, p):
        return len(self.outputs(p)) - 1

    def backward_reads(self, p):
        return list(range(len(self.inputs(p)))), [self.visible_outputs(p)]

    # ------------------------------------------------------------- inference
    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data = ins[0]
        if data is None:
            return ins, outs, aux_shapes
        if len(data) != 3:
            raise ShapeError("RNN: input 'data' must be 3-d (sequence, batch, features), got shape %s"
                             % shape_str(data))
        steps, batch, features = data
        D, H = 1 + p.bidirectional, p.state_size
        out_h = p.projection_size or H
        if features:
            ins[1] = self._merge(ins[1], (param_size(p.mode, p.num_layers, D, features, H,
                                                     p.projection_size),), 'parameters')
        ins[2] = self._merge(ins[2], (p.num_layers * D, batch, out_h), 'state')
        if p.mode == 'lstm':
            ins[3] = self._merge(ins[3], (p.num_layers * D, batch, H), 'state_cell')
        if p.use_sequence_length:
            ins[-1] = self._merge(ins[-1], (batch,), 'sequence_length')
        outs[0] = merge_shape(outs[0], (steps, batch, D * out_h), 'RNN output')
        if p.state_outputs:
            outs[1] = merge_shape(outs[1], ins[2], 'RNN state_output')
            if p.mode == 'lstm':
                outs[2] = merge_shape(outs[2], ins[3], 'RNN statecell_output')
        if steps and batch:
            outs[-1] = (max(_Reserve(p, steps, batch).size, 1),)
        return ins, outs, aux_shapes

    @staticmethod
    def _merge(old, new, arg):
        if old is not None and (len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new))):
            raise ShapeError("RNN: input %r must have shape %s, got %s" % (arg, shape_str(new), shape_str(old)))
        return merge_shape(old, new, "RNN input %r" % arg)

    def infer_type(self, p, in_types, out_types, aux_types):
        known = next((t for t in list(in_types) + list(out_types) if t is not None), None)
        return [known] * len(in_types), [known] * len(out_types), aux_types

    # ------------------------------------------------------------- checks
    def _check(self, p, inputs):
        if p.projection_size is not None and p.mode != 'lstm':
            raise ParamError("RNN: projection_size=%d is for mode='lstm' only, got mode=%r"
                             % (p.projection_size, p.mode))
        if (p.lstm_state_clip_min is None) != (p.lstm_state_clip_max is None):
            raise ParamError('RNN: lstm_state_clip_min and lstm_state_clip_max go together, got min=%r, max=%r'
                             % (p.lstm_state_clip_min, p.lstm_state_clip_max))
        if p.lstm_state_clip_min is not None and p.lstm_state_clip_min > p.lstm_state_clip_max:
            raise ParamError('RNN: lstm_state_clip_min must not exceed lstm_state_clip_max, got min=%r, max=%r'
                             % (p.lstm_state_clip_min, p.lstm_state_clip_max))
        data = inputs[0]
        if data.ndim != 3:
            raise ShapeError("RNN: input 'data' must be 3-d (sequence, batch, features), got shape %s"
                             % shape_str(data.shape))
        ins, _, _ = self.infer_shape(p, [data.shape] + [None] * (len(inputs) - 1),
                                     [None] * len(self.outputs(p)), [])
        for name, want, x in zip(self.inputs(p)[1:], ins[1:], inputs[1:]):
            if tuple(x.shape) != tuple(want):
                raise ShapeError('RNN: input %r must have shape %s for data of shape %s, got %s'
                                 % (name, shape_str(want), shape_str(data.shape), shape_str(x.shape)))

    def _clip(self, p):
        if p.mode != 'lstm' or p.lstm_state_clip_min is None:
            return None
        return p.lstm_state_clip_min, p.lstm_state_clip_max, p.lstm_state_clip_nan

    def _step_mask(self, p, xp, inputs, steps, dtype):
        """(T, N, 1): 1 where step t is within sample n's length, else 0; None without lengths."""
        if not p.use_sequence_length:
            return None
        lengths = inputs[-1]
        bad = (lengths < 1) | (lengths > steps) | (lengths != xp.floor(lengths))
        if any_true(bad):
            raise ShapeError("RNN: input 'sequence_length' must hold whole numbers in [1, %d] (the "
                             "sequence's length), got %s" % (steps, to_host(lengths).tolist()))
        return (xp.arange(steps)[:, None, None] < lengths[None, :, None]).astype(dtype)

    # ------------------------------------------------------------- forward
    def forward(self, p, env, inputs, aux):
        self._check(p, inputs)
        xp, data, flat = env.xp, inputs[0], inputs[1]
        steps, batch, features = data.shape
        D, H, L = 1 + p.bidirectional, p.state_size, p.num_layers
        W = p.projection_size or H          # the width of a step's output and hidden state
        blocks, _ = param_blocks(p.mode, L, D, features, H, p.projection_size)
        mask = self._step_mask(p, xp, inputs, steps, data.dtype)
        reserve_flat = env.target(len(self.outputs(p)) - 1)
        if reserve_flat is None:
            reserve_flat = xp.zeros((max(_Reserve(p, steps, batch).size, 1),), dtype=data.dtype)
        res = _Reserve(p, steps, batch, reserve_flat)
        h_last = xp.empty((L * D, batch, W), dtype=data.dtype)
        c_last = xp.empty((L * D, batch, H), dtype=data.dtype) if p.mode == 'lstm' else None
        x = data
        for layer in range(L):
            y = res['y', layer]
            for d in range(D):
                k = layer * D + d
                weights = [_view(flat, b) for b in blocks[k]]
                c0 = inputs[3][k] if p.mode == 'lstm' else None
                h_last[k], c_end = self._run(p, xp, x, weights, inputs[2][k], c0, d == 1, mask,
                                             res, k, y[:, :, d * W:(d + 1) * W])
                if c_last is not None:
                    c_last[k] = c_end
            x = y
            if p.p > 0 and layer < L - 1:
                drop = res['mask', layer]
                if env.is_train:
                    keep = env.rng.random(y.shape) >= p.p
                    drop[...] = xp.asarray(keep).astype(y.dtype) * y.dtype.type(1 / (1 - p.p))
                else:
                    drop[...] = 1
                x = y * drop
        out = env.target(0)
        if out is None:
            out = x.copy()
        else:
            out[...] = x
        outs = [out]
        if p.state_outputs:
            outs += [h_last, c_last] if p.mode == 'lstm' else [h_last]
        return outs + [reserve_flat]

    def _run(self, p, xp, x, weights, h, c, reverse, mask, res, k, y):
        """One layer in one direction over the sequence ``x``; fills ``y`` (T, N, H) and the
        reserve's gates (and c or hn); returns the final ``(h, c)``.  Past a sample's length
        (``mask`` 0) the states stay as they are and the output is 0."""
        wi, wh, bi, bh = weights[:4]
        whr = weights[4] if p.projection_size else None
        steps, batch = x.shape[:2]
        H, mode, clip = p.state_size, p.mode, self._clip(p)
        # the input side of every step at once: one product for the whole sequence
        xw = (x.reshape(steps * batch, -1) @ wi.T).reshape(steps, batch, -1)
        xw += bi if mode == 'gru' else bi + bh
        gates = res['gates', k]
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            hw = h @ wh.T
            g = gates[t]
            c_new = None
            if mode == 'gru':
                hw += bh
                xp.add(xw[t, :, :2 * H], hw[:, :2 * H], out=g[:, :2 * H])
                _sigmoid(xp, g[:, :2 * H])
                r, z, n = g[:, :H], g[:, H:2 * H], g[:, 2 * H:]
                res['hn', k][t] = hw[:, 2 * H:]
                xp.multiply(r, hw[:, 2 * H:], out=n)
                n += xw[t, :, 2 * H:]
                xp.tanh(n, out=n)
                h_new = (1 - z) * n + z * h
            elif mode == 'lstm':
                xp.add(xw[t], hw, out=g)
                _sigmoid(xp, g[:, :2 * H])
                xp.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
                _sigmoid(xp, g[:, 3 * H:])
                i, f, cand, o = g[:, :H], g[:, H:2 * H], g[:, 2 * H:3 * H], g[:, 3 * H:]
                c_new = f * c + i * cand
                if clip is not None:
                    c_new = self._clip_cell(xp, c_new, clip)
                res['c', k][t] = c_new
                h_new = o * xp.tanh(c_new)
                if whr is not None:         # the projection: what the step hands on
                    res['h', k][t] = h_new
                    h_new = h_new @ whr.T
            else:
                xp.add(xw[t], hw, out=g)
                if mode == 'rnn_tanh':
                    xp.tanh(g, out=g)
                else:
                    xp.maximum(g, 0, out=g)
                h_new = g.copy()
            if mask is None:
                h, c, y[t] = h_new, c_new, h_new
            else:
                m = mask[t]
                y[t] = h_new * m
                h = xp.where(m > 0, h_new, h)
                c = None if c_new is None else xp.where(m > 0, c_new, c)
        return h, c

    @staticmethod
    def _clip_cell(xp, c, clip):
        """``c`` clipped into [low, high]; NaN stays NaN, or with ``lstm_state_clip_nan`` becomes
        ``low`` (fmax and fmin pass over a NaN)."""
        low, high, nan_to_bound = clip
        low, high = c.dtype.type(low), c.dtype.type(high)
        if nan_to_bound:
            return xp.fmin(xp.fmax(c, low), high)
        return xp.clip(c, low, high)

    # ------------------------------------------------------------- backward
    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, flat = env.xp, inputs[0], inputs[1]
        steps, batch, features = data.shape
        D, H, L = 1 + p.bidirectional, p.state_size, p.num_layers
        W = p.projection_size or H
        blocks, _ = param_blocks(p.mode, L, D, features, H, p.projection_size)
        mask = self._step_mask(p, xp, inputs, steps, data.dtype)
        res = _Reserve(p, steps, batch, outputs[-1])
        d_flat = xp.zeros_like(flat)
        d_state = xp.zeros_like(inputs[2])
        d_cell = xp.zeros_like(inputs[3]) if p.mode == 'lstm' else None
        d_h_end = out_grads[1] if p.state_outputs else None
        d_c_end = out_grads[2] if p.state_outputs and p.mode == 'lstm' else None
        dy = out_grads[0]
        dy = xp.zeros(res['y', L - 1].shape, dtype=data.dtype) if dy is None else dy
        for layer in range(L - 1, -1, -1):
            if layer > 0:
                x = res['y', layer - 1]
                if p.p > 0:
                    x = x * res['mask', layer - 1]
            else:
                x = data
            dx = xp.zeros(x.shape, dtype=data.dtype)
            for d in range(D):
                k = layer * D + d
                wi, wh, bi, bh = (_view(flat, b) for b in blocks[k][:4])
                whr = _view(flat, blocks[k][4]) if p.projection_size else None
                dwi, dwh, dbi, dbh = (_view(d_flat, b) for b in blocks[k][:4])
                ends = (None if d_h_end is None else d_h_end[k], None if d_c_end is None else d_c_end[k])
                starts = (inputs[2][k], inputs[3][k] if p.mode == 'lstm' else None)
                h_prev = self._before(xp, res['y', layer][:, :, d * W:(d + 1) * W], starts[0], d == 1, mask)
                d_in, d_hid, d_state[k], dc0, d_r = self._back(p, xp, dy[:, :, d * W:(d + 1) * W], h_prev,
                                                               starts, ends, (wh, whr), res, k, d == 1, mask)
                if d_cell is not None:
                    d_cell[k] = dc0
                rows = d_in.reshape(steps * batch, -1)
                dwi[...] = rows.T @ x.reshape(steps * batch, -1)
                dbi[...] = rows.sum(axis=0)
                d_hid = d_hid.reshape(steps * batch, -1)
                dwh[...] = d_hid.T @ h_prev.reshape(steps * batch, W)
                dbh[...] = d_hid.sum(axis=0)
                if whr is not None:         # r = W_r h: its gradient over every step at once
                    _view(d_flat, blocks[k][4])[...] = (d_r.reshape(steps * batch, W).T
                                                        @ res['h', k].reshape(steps * batch, H))
                dx += (rows @ wi).reshape(x.shape)
            dy = dx * res['mask', layer - 1] if layer > 0 and p.p > 0 else dx
        grads = [dy, d_flat, d_state]
        if p.mode == 'lstm':
            grads.append(d_cell)
        if p.use_sequence_length:
            grads.append(xp.zeros_like(inputs[-1]))
        return grads

    @staticmethod
    def _before(xp, seq, first, reverse, mask):
        """The state each step started from: ``first``, then ``seq`` one step behind in the
        direction run (``first`` again where the step before lay past the sample's length)."""
        if reverse:
            shifted = xp.concatenate([seq[1:], first[None]], axis=0)
        else:
            shifted = xp.concatenate([first[None], seq[:-1]], axis=0)
        if mask is None:
            return shifted
        ones = xp.ones_like(mask[:1])
        valid = xp.concatenate([mask[1:], ones], axis=0) if reverse else xp.concatenate([ones, mask[:-1]], axis=0)
        return xp.where(valid > 0, shifted, first[None])

    def _back(self, p, xp, dy, h_prev, starts, ends, hidden_weights, res, k, reverse, mask):
        """Backpropagation through time for one layer and direction.  Returns the gradients of
        the input-side pre-activations and of the hidden-side ones (T, N, G*H) (the same
        array but for GRU, whose reset gate sits between the hidden side and the candidate),
        of the initial ``h`` and ``c``, and with a projection those of every step's projected
        state (T, N, P), else None.  A step past the sample's length passes the state
        gradients through untouched."""
        wh, whr = hidden_weights
        steps = dy.shape[0]
        H, mode, clip = p.state_size, p.mode, self._clip(p)
        gates = res['gates', k]
        d_in = xp.empty(gates.shape, dtype=dy.dtype)
        d_hid = xp.empty(gates.shape, dtype=dy.dtype) if mode == 'gru' else d_in
        d_r = None if whr is None else xp.empty(dy.shape, dtype=dy.dtype)
        dh = xp.zeros_like(starts[0]) if ends[0] is None else ends[0].copy()
        dc = None
        if mode == 'lstm':
            dc = xp.zeros_like(starts[1]) if ends[1] is None else ends[1].copy()
            c_prev_seq = self._before(xp, res['c', k], starts[1], reverse, mask)
        for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
            m = None if mask is None else mask[t]
            dh_carry = dh + dy[t] if m is None else dh + dy[t] * m
            dh = dh_carry if m is None else dh_carry * m          # through this step's cell
            g, dg = gates[t], d_in[t]
            if mode == 'rnn_tanh':
                xp.multiply(dh, 1 - g * g, out=dg)
            elif mode == 'rnn_relu':
                xp.multiply(dh, g > 0, out=dg)
            elif mode == 'lstm':
                i, f, cand, o = g[:, :H], g[:, H:2 * H], g[:, 2 * H:3 * H], g[:, 3 * H:]
                c = res['c', k][t]
                tanh_c = xp.tanh(c)
                dc_carry = dc
                if whr is not None:         # back through the projection to h (N, H)
                    d_r[t] = dh
                    dh = dh @ whr
                dc = dc + dh * o * (1 - tanh_c * tanh_c)
                if m is not None:
                    dc = dc * m
                if clip is not None:     # a clipped cell state passes no gradient back
                    dc = dc * ((c > clip[0]) & (c < clip[1]))
                dg[:, :H] = dc * cand * i * (1 - i)
                dg[:, H:2 * H] = dc * c_prev_seq[t] * f * (1 - f)
                dg[:, 2 * H:3 * H] = dc * i * (1 - cand * cand)
                dg[:, 3 * H:] = dh * tanh_c * o * (1 - o)
                dc = dc * f if m is None else dc * f + dc_carry * (1 - m)
            else:                                       # gru
                r, z, n = g[:, :H], g[:, H:2 * H], g[:, 2 * H:]
                hn = res['hn', k][t]
                dn = dh * (1 - z) * (1 - n * n)
                dg[:, :H] = dn * hn * r * (1 - r)
                dg[:, H:2 * H] = dh * (h_prev[t] - n) * z * (1 - z)
                dg[:, 2 * H:] = dn
                d_hid[t, :, :2 * H] = dg[:, :2 * H]
                d_hid[t, :, 2 * H:] = dn * r
                through = dh * z + d_hid[t] @ wh
                dh = through if m is None else through + dh_carry * (1 - m)
                continue
            dh = dg @ wh if m is None else dg @ wh + dh_carry * (1 - m)
        return d_in, d_hid, dh, dc, d_r
