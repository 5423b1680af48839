"""Common-expression elimination at bind (symbol/common_expr.py): the same savings as MXNet
1.9.1's pass on the graphs of its test_eliminate_common_expr and on each operator kind,
the same numbers with it on or off, and MXNET_ELIMINATE_COMMON_EXPR=0 turning it off."""

import numpy as np
import pytest

import reflib as mx

a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
d = a + 1
VAR = mx.sym.var('v')
# (graph, nodes saved) as MXNet 1.9.1 counts them: get_internals() before and after
GRAPHS = [
    ('(a+1) + (a+2)', (a + 1) + (a + 2), 0),
    ('(a+b) + (a+b)', (a + b) + (a + b), 1),
    ('((a+b)+c) + ((a+b)+c)', ((a + b) + c) + ((a + b) + c), 2),
    ('Group([a*d, a*d])', mx.sym.Group([a * d, a * d]), 0),          # merged, then a copy
    ('Group([a*d+b, a*d+b])', mx.sym.Group([a * d + b, a * d + b]), 1),
    ('Dropout(a) + Dropout(a)', mx.sym.Dropout(a) + mx.sym.Dropout(a), 0),
]


def _bind(sym, monkeypatch, enabled, grad_req='write'):
    monkeypatch.setenv('MXNET_ELIMINATE_COMMON_EXPR', '1' if enabled else '0')
    shapes = {name: (3, 4) for name in sym.list_arguments()}
    return sym.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)


@pytest.mark.parametrize('label,sym,saved', GRAPHS, ids=[g[0] for g in GRAPHS])
def test_savings_and_numbers_as_mxnet(label, sym, saved, monkeypatch):
    plain, merged = _bind(sym, monkeypatch, False), _bind(sym, monkeypatch, True)
    assert len(plain.get_optimized_symbol().get_internals()) == len(sym.get_internals())
    assert len(merged.get_optimized_symbol().get_internals()) + saved == len(sym.get_internals())
    if 'Dropout' in label:
        return
    rng = np.random.RandomState(0)
    values = {name: mx.nd.array(rng.rand(3, 4)) for name in sym.list_arguments()}
    for exe in (plain, merged):
        exe.forward(is_train=True, **values)
        exe.backward([mx.nd.ones((3, 4))] * len(exe.outputs))
    for x, y in zip(plain.outputs + plain.grad_arrays, merged.outputs + merged.grad_arrays):
        assert np.array_equal(x.asnumpy(), y.asnumpy())


@pytest.mark.parametrize('name,make,shapes,saved', [
    # MXNet 1.9.1 merges these (nodes saved per duplicate pair) ...
    ('Convolution', lambda w: mx.sym.Convolution(a, w, num_filter=2, kernel=(3, 3), no_bias=True),
     {'a': (1, 1, 5, 5)}, 1),
    ('softmax', lambda w: mx.sym.softmax(a), {'a': (2, 3)}, 1),
    ('moments', lambda w: mx.sym.moments(a, axes=(1,))[0], {'a': (2, 3)}, 2),
    # ... and keeps these apart: scratch space, an auxiliary state, its stateful SliceChannel
    ('FullyConnected', lambda w: mx.sym.FullyConnected(a, w, num_hidden=3, no_bias=True), {'a': (2, 4)}, 0),
    ('BatchNorm', lambda w: mx.sym.BatchNorm(a, w, b, c, VAR), {'a': (2, 3)}, 0),
    ('SliceChannel', lambda w: mx.sym.SliceChannel(a, num_outputs=3)[0], {'a': (2, 3)}, 0),
])
def test_which_operators_merge(name, make, shapes, saved, monkeypatch):
    w = mx.sym.var('w')
    net = make(w) + make(w)
    monkeypatch.setenv('MXNET_ELIMINATE_COMMON_EXPR', '1')
    exe = net.simple_bind(mx.cpu(), grad_req='null', **shapes)
    assert len(net.get_internals()) - len(exe.get_optimized_symbol().get_internals()) == saved


def test_the_users_symbol_is_untouched_and_outputs_keep_their_names(monkeypatch):
    net = mx.sym.Group([a * d, a * d])
    before = net.tojson()
    exe = _bind(net, monkeypatch, True)
    assert net.tojson() == before and exe.symbol is net
    assert exe.get_optimized_symbol().list_outputs()[1].endswith('_0_copy_output')
    assert list(exe.output_dict) == net.list_outputs()
