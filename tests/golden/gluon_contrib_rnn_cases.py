"""Programs for gluon.contrib.rnn (LSTMPCell, VariationalDropoutCell, the convolutional cells,
dynamic_unroll) and gluon.contrib.data's IntervalSampler, run on MXNet 1.9.1 by
gen_gluon_contrib_rnn.py and on reflib by tests/test_gluon_contrib_rnn.py; ``run(mx)``
returns plain JSON-able results.  Every parameter is set from a seeded RandomState, so the
numbers depend only on the arithmetic.  Random dropout masks are never compared: for
VariationalDropoutCell only what holds for any mask is recorded."""

import numpy as np

BATCH, IN, HIDDEN, PROJ, STEPS = 2, 4, 5, 3, 3


def _fill(mx, block, seed):
    rng = np.random.RandomState(seed)
    for name in sorted(block.collect_params().keys()):
        param = block.collect_params()[name]
        param.set_data(mx.nd.array(rng.uniform(-0.6, 0.6, param.shape)))


def _data(seed, shape):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def _lstmp(mx, hybrid):
    cell = mx.gluon.contrib.rnn.LSTMPCell(HIDDEN, PROJ, input_size=IN, prefix='p_')
    cell.initialize()
    _fill(mx, cell, 1)
    if hybrid:
        cell.hybridize()
    x = mx.nd.array(_data(2, (BATCH, STEPS, IN)))
    x.attach_grad()
    with mx.autograd.record():
        out, states = cell.unroll(STEPS, x, layout='NTC', merge_outputs=True)
        loss = (out * out).sum() + states[1].sum()
    loss.backward()
    res = {'out': out.asnumpy().tolist(), 'states': [s.asnumpy().tolist() for s in states],
           'x_grad': x.grad.asnumpy().tolist()}
    for name, param in sorted(cell.collect_params().items()):
        res['grad_' + name] = param.grad().asnumpy().tolist()
    # stepping by hand from given states, TNC list input
    begin = [mx.nd.array(_data(3, (BATCH, PROJ))), mx.nd.array(_data(4, (BATCH, HIDDEN)))]
    steps = [mx.nd.array(_data(5 + t, (BATCH, IN))) for t in range(STEPS)]
    outs, st = cell.unroll(STEPS, steps, begin_state=begin, merge_outputs=False)
    res['list_out'] = [o.asnumpy().tolist() for o in outs]
    res['list_states'] = [s.asnumpy().tolist() for s in st]
    return res


def _lstmp_static(mx):
    cell = mx.gluon.contrib.rnn.LSTMPCell(HIDDEN, PROJ, prefix='q_')
    deferred = repr(cell)
    cell.initialize()
    cell(mx.nd.ones((BATCH, IN)), cell.begin_state(batch_size=BATCH))
    auto = mx.gluon.contrib.rnn.LSTMPCell(HIDDEN, PROJ)
    return {'repr_deferred': deferred, 'repr': repr(cell),
            'state_info': [dict(i) for i in cell.state_info(7)],
            'params': [[n, list(p.shape)] for n, p in cell.collect_params().items()],
            'auto_prefix': auto.prefix[:5],
            'sym_outputs': _lstmp_symbol(mx)}


def _lstmp_symbol(mx):
    cell = mx.gluon.contrib.rnn.LSTMPCell(HIDDEN, PROJ, prefix='s_')
    out, states = cell.unroll(2, mx.sym.var('x'), layout='NTC', merge_outputs=False)
    return ([o.list_outputs() for o in out], [s.list_outputs() for s in states],
            sorted(mx.sym.Group(list(out) + list(states)).list_arguments()))


def _vardrop(mx, rates, hybrid, train, cell_kind='lstm'):
    """The wrapped cell's merged unroll outputs and states, and the same cell's unwrapped
    outputs, in predict or train mode."""
    make = {'lstm': mx.gluon.rnn.LSTMCell, 'rnn': mx.gluon.rnn.RNNCell}[cell_kind]
    plain = make(HIDDEN, input_size=IN, prefix='b_')
    plain.initialize()
    _fill(mx, plain, 9)
    base = make(HIDDEN, input_size=IN, prefix='b_')
    base.initialize()
    _fill(mx, base, 9)
    cell = mx.gluon.contrib.rnn.VariationalDropoutCell(base, **rates)
    if hybrid:
        cell.hybridize()
    x = mx.nd.array(_data(10, (BATCH, STEPS, IN)) + 2.0)
    want, want_states = plain.unroll(STEPS, x, layout='NTC', merge_outputs=True)
    if train:
        with mx.autograd.train_mode():
            got, states = cell.unroll(STEPS, x, layout='NTC', merge_outputs=True)
    else:
        got, states = cell.unroll(STEPS, x, layout='NTC', merge_outputs=True)
    return cell, want, want_states, got, states


def _vardrop_predict(mx, rates, hybrid):
    cell, want, want_states, got, states = _vardrop(mx, rates, hybrid, False)
    return {'out': got.asnumpy().tolist(), 'states': [s.asnumpy().tolist() for s in states],
            'same_as_base': bool(np.array_equal(got.asnumpy(), want.asnumpy())
                                 and all(np.array_equal(a.asnumpy(), b.asnumpy())
                                         for a, b in zip(states, want_states))),
            'repr': repr(cell), 'prefix': cell.prefix, 'state_info': [dict(i) for i in cell.state_info(2)]}


def _vardrop_train(mx, rates):
    """Train mode, imperative, RNNCell base (relu-free tanh: an output is zero only where
    dropped).  The zero pattern at step 0 must repeat at every step."""
    cell, _, _, got, _ = _vardrop(mx, rates, False, True, 'rnn')
    out = got.asnumpy()
    zero = out == 0
    masks_before = [m is not None for m in (cell.drop_inputs_mask, cell.drop_states_mask,
                                            cell.drop_outputs_mask)]
    cell.reset()
    masks_after = [m is not None for m in (cell.drop_inputs_mask, cell.drop_states_mask,
                                           cell.drop_outputs_mask)]
    kept = out[~zero]
    return {'shape': list(out.shape), 'some_zero': bool(zero.any()), 'some_kept': bool((~zero).any()),
            'same_zeros_every_step': bool(all((zero[:, t] == zero[:, 0]).all() for t in range(STEPS))),
            'masks_before_reset': masks_before, 'masks_after_reset': masks_after,
            'finite': bool(np.isfinite(kept).all())}


def _vardrop_step_mask(mx):
    """Stepped by hand in train mode: the mask kept after the first step is reused."""
    base = mx.gluon.rnn.RNNCell(HIDDEN, input_size=IN, prefix='r_')
    base.initialize()
    _fill(mx, base, 11)
    cell = mx.gluon.contrib.rnn.VariationalDropoutCell(base, drop_outputs=0.5)
    states = cell.begin_state(batch_size=BATCH, func=mx.nd.zeros)
    zeros = []
    with mx.autograd.train_mode():
        for t in range(4):
            out, states = cell(mx.nd.array(_data(20 + t, (BATCH, IN)) + 2.0), states)
            zeros.append((out.asnumpy() == 0).tolist())
    return {'same_zeros': all(z == zeros[0] for z in zeros), 'shape': [BATCH, HIDDEN]}


CONV = {  # name: (class, input_shape, hidden, i2h_kernel, h2h_kernel, extra arguments)
    'conv1d_rnn': ('Conv1DRNNCell', (2, 7), 3, 3, 3, dict(i2h_pad=1)),
    'conv1d_lstm': ('Conv1DLSTMCell', (2, 7), 2, 3, 5, dict(i2h_dilate=2, h2h_dilate=(1,))),
    'conv1d_gru': ('Conv1DGRUCell', (2, 7), 2, 2, 3, dict(activation='relu')),
    'conv2d_rnn': ('Conv2DRNNCell', (2, 5, 4), 2, (3, 2), (3, 1), dict(i2h_pad=(1, 0))),
    'conv2d_lstm': ('Conv2DLSTMCell', (2, 5, 4), 2, 3, 3, dict(i2h_pad=(1, 1), h2h_dilate=(2, 1))),
    'conv2d_gru': ('Conv2DGRUCell', (1, 4, 4), 2, 3, 3, {}),
    'conv3d_rnn': ('Conv3DRNNCell', (1, 3, 4, 3), 2, 2, 3, {}),
    'conv3d_lstm': ('Conv3DLSTMCell', (1, 3, 3, 3), 2, 3, 1, dict(i2h_pad=1)),
    'conv3d_gru': ('Conv3DGRUCell', (1, 3, 3, 3), 2, (1, 3, 3), 3, dict(i2h_pad=(0, 1, 1))),
}


def _conv(mx, name, hybrid):
    """A convolutional cell unrolled on seeded parameters: outputs, states, gradients."""
    cls, shape, hidden, i2h_k, h2h_k, extra = CONV[name]
    cell = getattr(mx.gluon.contrib.rnn, cls)(shape, hidden, i2h_k, h2h_k, prefix='c_', **extra)
    cell.initialize()
    _fill(mx, cell, 30)
    if hybrid:
        cell.hybridize()
    x = mx.nd.array(_data(31, (BATCH, STEPS) + shape))
    x.attach_grad()
    with mx.autograd.record():
        out, states = cell.unroll(STEPS, x, layout='NTC', merge_outputs=True)
        loss = (out * out).sum() + sum(s.sum() for s in states)
    loss.backward()
    res = {'out': out.asnumpy().tolist(), 'states': [s.asnumpy().tolist() for s in states],
           'x_grad': x.grad.asnumpy().tolist(), 'repr': repr(cell),
           'state_info': [dict(i) for i in cell.state_info(BATCH)],
           'params': [[n, list(p.shape)] for n, p in cell.collect_params().items()]}
    if not hybrid:      # (the hybridized run's parameter gradients: reflib's test checks they agree)
        for pname, param in sorted(cell.collect_params().items()):
            res['grad_' + pname] = param.grad().asnumpy().tolist()
    return res


def _conv_static(mx):
    """Channel-last shapes, default prefixes and the odd-kernel check (no forward: MXNet's
    CPU Convolution refuses NWC)."""
    rnn = mx.gluon.contrib.rnn
    res = {}
    for cls, shape, layout in [('Conv1DGRUCell', (6, 3), 'NWC'), ('Conv2DLSTMCell', (6, 5, 3), 'NHWC'),
                               ('Conv3DRNNCell', (4, 5, 6, 3), 'NDHWC')]:
        cell = getattr(rnn, cls)(shape, 4, 3, 3, conv_layout=layout)
        res[cls] = {'repr': repr(cell), 'prefix': cell.prefix[:5] + cell.prefix[5:].rstrip('0123456789_'),
                    'state_info': [dict(i) for i in cell.state_info(2)],
                    'params': [[n[len(cell.prefix):], list(p.shape)]
                               for n, p in cell.collect_params().items()]}
    try:
        rnn.Conv2DRNNCell((1, 4, 4), 2, 3, (3, 2))
        res['even_kernel'] = 'accepted'
    except AssertionError:
        res['even_kernel'] = 'AssertionError'
    return res


class _Unrolled:
    """A HybridBlock around dynamic_unroll, as one would write it (built lazily: the class
    needs the library's HybridBlock)."""

    @staticmethod
    def make(mx, cell_type, layout, with_lengths):
        class Layer(mx.gluon.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.cell = cell_type(HIDDEN, input_size=IN, prefix='cell_')

            def hybrid_forward(self, F, x, states, lengths):
                return mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll(
                    self.cell, x, states, layout=layout, valid_length=lengths if with_lengths else None)
        return Layer(prefix='u_')


def _dynamic_unroll(mx, cell_name, layout, with_lengths, hybrid):
    """dynamic_unroll of a core cell, trained one backward: outputs, final states, gradients;
    and cell.unroll's outputs on the same weights (the two must agree)."""
    cell_type = getattr(mx.gluon.rnn, cell_name)
    layer = _Unrolled.make(mx, cell_type, layout, with_lengths)
    layer.initialize()
    _fill(mx, layer, 21)
    if hybrid:
        layer.hybridize()
    shape = (STEPS, BATCH, IN) if layout == 'TNC' else (BATCH, STEPS, IN)
    x = mx.nd.array(_data(22, shape))
    x.attach_grad()
    n_states = 2 if cell_name == 'LSTMCell' else 1
    states = [mx.nd.array(_data(23 + k, (BATCH, HIDDEN))) for k in range(n_states)]
    lengths = mx.nd.array([2, 3][:BATCH])
    with mx.autograd.record():
        out, final = layer(x, states, lengths)
        loss = (out * out).sum() + sum(s.sum() for s in final)
    loss.backward()
    res = {'out': out.asnumpy().tolist(), 'states': [s.asnumpy().tolist() for s in final],
           'x_grad': x.grad.asnumpy().tolist()}
    for name, param in sorted(layer.collect_params().items()):
        res['grad_' + name] = param.grad().asnumpy().tolist()
    ref, ref_states = layer.cell.unroll(STEPS, x, states, layout=layout, merge_outputs=True,
                                        valid_length=lengths if with_lengths else None)
    res['unroll_out'] = ref.asnumpy().tolist()
    res['unroll_states'] = [s.asnumpy().tolist() for s in ref_states]
    return res


def _interval_sampler(mx):
    sampler = mx.gluon.contrib.data.IntervalSampler
    return {'rollover': list(sampler(13, 3)), 'no_rollover': list(sampler(13, 3, rollover=False)),
            'len_no_rollover': len(sampler(13, 3, rollover=False)), 'whole': list(sampler(4, 4)),
            'too_wide': _refused(lambda: sampler(3, 4))}


def _refused(fn):
    try:
        fn()
    except Exception:       # noqa: BLE001  (only whether the library refuses is recorded)
        return 'refused'
    return 'accepted'


def run(mx):
    """Every case's results, by case name."""
    np.random.seed(0)
    mx.random.seed(0)
    record = {'lstmp_imperative': _lstmp(mx, False), 'lstmp_hybrid': _lstmp(mx, True),
              'lstmp_static': _lstmp_static(mx)}
    for tag, rates in [('all', dict(drop_inputs=0.3, drop_states=0.4, drop_outputs=0.5)),
                       ('seq', dict(drop_inputs=0.3, drop_outputs=0.5))]:
        for hybrid in (False, True):
            record['vardrop_predict_%s_%s' % (tag, 'hybrid' if hybrid else 'imperative')] = \
                _vardrop_predict(mx, rates, hybrid)
        record['vardrop_train_%s' % tag] = _vardrop_train(mx, dict(rates, drop_inputs=0.0))
    record['vardrop_train_inputs'] = _vardrop_train(mx, dict(drop_inputs=0.5, drop_states=0.3))
    record['vardrop_step_mask'] = _vardrop_step_mask(mx)
    for name in CONV:
        record[name + '_imperative'] = _conv(mx, name, False)
        record[name + '_hybrid'] = _conv(mx, name, True)
    record['conv_static'] = _conv_static(mx)
    for cell_name in ('RNNCell', 'LSTMCell', 'GRUCell'):
        for layout in ('TNC', 'NTC'):
            for with_lengths in (False, True):
                for hybrid in (False, True):
                    record['dynamic_unroll_%s_%s_%s_%s' % (cell_name, layout, 'lengths' if with_lengths else 'full',
                                                           'hybrid' if hybrid else 'imperative')] = \
                        _dynamic_unroll(mx, cell_name, layout, with_lengths, hybrid)
    record['interval_sampler'] = _interval_sampler(mx)
    return record
