"""gluon.contrib.rnn (reflib/gluon/contrib/rnn/) against MXNet 1.9.1 (golden/gluon_contrib_rnn.json,
from golden/gen_gluon_contrib_rnn.py over golden/gluon_contrib_rnn_cases.py).

LSTMPCell: unrolled outputs, states, input and parameter gradients on seeded parameters,
imperative and hybridized; parameter names and shapes, state_info, printed form, the names of a
symbolic unroll's outputs.  The nine convolutional cells: the same for each, over 1, 2
and 3 spatial dimensions with pads, dilations and a relu activation; channel-last shapes and the
odd-kernel check without a forward (MXNet's CPU Convolution refuses NWC).
VariationalDropoutCell: its predict-mode outputs (equal to the base
cell's), and in train mode only what holds for any mask: shapes, one zero pattern at every
step, masks kept until reset()."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import gluon_contrib_rnn_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'gluon_contrib_rnn.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = json.loads(json.dumps(gluon_contrib_rnn_cases.run(mx)))


def _compare(got, want, where, tol=1e-5):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            _compare(got[key], want[key], '%s.%s' % (where, key), tol)
    elif (isinstance(want, list) and want and isinstance(want[0], (int, float))
          and not isinstance(want[0], bool)):
        np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(want, dtype=np.float64),
                                   rtol=tol, atol=tol, err_msg=where)
    elif isinstance(want, list) and want and isinstance(want[0], list) and _numeric(want) and _even(want):
        np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(want, dtype=np.float64),
                                   rtol=tol, atol=tol, err_msg=where)
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, '%s[%d]' % (where, i), tol)
    else:
        assert got == want, where


def _even(value):
    """Whether nested lists form one rectangular array."""
    try:
        np.array(value, dtype=np.float64)
    except ValueError:
        return False
    return True


def _numeric(value):
    while isinstance(value, list) and value:
        value = value[0]
    return isinstance(value, float)


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_against_mxnet(case):
    _compare(RESULTS[case], GOLDEN[case], case)


def test_hybrid_equals_imperative():
    _compare(RESULTS['lstmp_hybrid'], RESULTS['lstmp_imperative'], 'hybrid vs imperative', tol=1e-6)


@pytest.mark.parametrize('name', sorted(gluon_contrib_rnn_cases.CONV))
def test_conv_hybrid_gradients(name):
    """The hybridized convolutional cells' parameter gradients are the imperative ones."""
    runs = {}
    for hybrid in (False, True):
        cell, x = _conv_cell(name, hybrid)
        with mx.autograd.record():
            out, states = cell.unroll(gluon_contrib_rnn_cases.STEPS, x, layout='NTC', merge_outputs=True)
            loss = (out * out).sum() + sum(s.sum() for s in states)
        loss.backward()
        runs[hybrid] = {n[len(cell.prefix):]: p.grad().asnumpy() for n, p in cell.collect_params().items()}
    for key, grad in runs[False].items():
        np.testing.assert_allclose(runs[True][key], grad, rtol=1e-5, atol=1e-6, err_msg=key)


def _conv_cell(name, hybrid):
    cls, shape, hidden, i2h_k, h2h_k, extra = gluon_contrib_rnn_cases.CONV[name]
    cell = getattr(mx.gluon.contrib.rnn, cls)(shape, hidden, i2h_k, h2h_k, **extra)
    cell.initialize()
    gluon_contrib_rnn_cases._fill(mx, cell, 30)
    if hybrid:
        cell.hybridize()
    x = mx.nd.array(gluon_contrib_rnn_cases._data(31, (gluon_contrib_rnn_cases.BATCH,
                                                       gluon_contrib_rnn_cases.STEPS) + shape))
    return cell, x


def test_exports():
    assert mx.gluon.contrib.rnn.LSTMPCell is mx.gluon.contrib.rnn.rnn_cell.LSTMPCell
    rnn = mx.gluon.contrib.rnn
    # dynamic_unroll stays in rnn_cell, as in MXNet 1.9.1 (mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll)
    assert sorted(rnn.__all__ + ['dynamic_unroll']) == sorted(rnn.rnn_cell.__all__ + rnn.conv_rnn_cell.__all__)
    for name in rnn.__all__:
        assert getattr(rnn, name).__doc__
    assert rnn.rnn_cell.dynamic_unroll.__doc__ and not hasattr(rnn, 'dynamic_unroll')
    assert {'rnn', 'data'} <= set(mx.gluon.contrib.__all__)
    assert mx.gluon.contrib.data.IntervalSampler.__doc__


def test_vardrop_refuses_stepping_bidirectional():
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(3), mx.gluon.rnn.RNNCell(3))
    with pytest.raises(Exception):
        mx.gluon.contrib.rnn.VariationalDropoutCell(bi, drop_states=0.5)


def test_vardrop_bidirectional_unroll_predict():
    """Without drop_states a BidirectionalCell can be wrapped (the whole sequence is dropped)."""
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(3, prefix='l_'),
                                        mx.gluon.rnn.RNNCell(3, prefix='r_'))
    cell = mx.gluon.contrib.rnn.VariationalDropoutCell(bi, drop_inputs=0.5, drop_outputs=0.5)
    cell.initialize()
    out, states = cell.unroll(4, mx.nd.ones((2, 4, 5)), layout='NTC', merge_outputs=True)
    assert out.shape == (2, 4, 6) and len(states) == 2
