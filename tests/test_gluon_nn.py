"""gluon.nn's layers (reflib/gluon/nn/) against MXNet 1.9.1 (golden/nn_layers.json, from
golden/gen_nn_layers.py over golden/nn_layers_cases.py): for every layer, imperative and
hybridized, the output, the input's and every parameter's gradient, BatchNorm's running
statistics, the parameters' names/shapes/grad_req after deferred initialisation, the printed
form and the hybridized graph's node names and operators; then that reflib's hybridized run
gives exactly the imperative run's numbers, and the checks MXNet's answers cannot make."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import nn_layers_cases  # noqa: E402
from golden_diff import differences  # noqa: E402

with open(os.path.join(HERE, 'golden', 'nn_layers.json')) as _f:
    GOLDEN = nn_layers_cases.expand(json.load(_f))
RAW = nn_layers_cases.collect(mx)
RESULTS = nn_layers_cases.encode(RAW)

# Where reflib knowingly answers otherwise, by (case, run, key): the reason.  These entries
# are left out of the comparison with MXNet and checked to still differ (so that the list is
# updated when the difference goes).
KNOWN = {
    ('batchnorm_relu', 'hybrid', 'graph'):
        "MXNet runs BatchNormReLU as one oneDNN operator (_contrib_BatchNormWithReLU); reflib has no fused "
        "operator, so the graph is BatchNorm ('batchnormrelu0_fwd') then relu, with the same numbers",
    ('selu', 'imperative', 'x_grad'):
        "reflib's LeakyReLU operator gives SELU's true derivative for x <= 0, where MXNet 1.9.1's backward is "
        "wrong (reflib/operator/nn.py, LeakyReLU.backward)",
    ('selu', 'hybrid', 'x_grad'): 'as for the imperative run',
}

# Cases reflib cannot run yet, by (case, run): the reason (an xfail, strict).
BROKEN = {}


def _diff(got, want, where):
    return differences(got, want, where)


def _runs(case):
    return ['imperative', 'hybrid'] if case in nn_layers_cases.LAYERS or case == 'dropout_train' else [None]


@pytest.mark.parametrize('case,run', [(c, r) for c in sorted(GOLDEN) for r in _runs(c)])
def test_same_as_mxnet(case, run):
    got, want = RESULTS[case], GOLDEN[case]
    if run is not None:
        if (case, run) in BROKEN:
            pytest.xfail(BROKEN[case, run])
        got, want = got[run], want[run]
        skipped = [key for (c, r, key) in KNOWN if (c, r) == (case, run)]
        for key in skipped:
            assert _diff(got[key], want[key], key), 'no longer differs from MXNet: drop %r from KNOWN' % (
                (case, run, key),)
        got = {k: v for k, v in got.items() if k not in skipped}
        want = {k: v for k, v in want.items() if k not in skipped}
    diff = _diff(got, want, case)
    assert not diff, '\n'.join(diff[:20])


def test_hybridized_embedding_with_sparse_grad():
    assert 'error' not in RESULTS['embedding_sparse_grad']['hybrid']


def _layer_runs():
    for case in sorted(nn_layers_cases.LAYERS):
        if (case, 'hybrid') not in BROKEN:
            yield case


@pytest.mark.parametrize('case', list(_layer_runs()))
def test_hybridized_gives_exactly_the_imperative_numbers(case):
    """The same operators run op by op or through the executor: the same bits."""
    eager, hybrid = RAW[case]['imperative'], RAW[case]['hybrid']
    for key in ('out', 'x_grad', 'predict'):
        if key in eager:
            assert np.array_equal(eager[key], hybrid[key]), key
    for key in ('grads', 'after'):
        assert sorted(eager[key]) == sorted(hybrid[key])
        for name in eager[key]:
            assert np.array_equal(eager[key][name], hybrid[key][name]), (key, name)
    for key in ('params', 'repr', 'repr_before', 'shapes_before', 'grad_stypes'):
        assert eager[key] == hybrid[key], key


def test_batchnorm_relu_runs_batchnorm_then_relu():
    graph = RESULTS['batchnorm_relu']['hybrid']['graph']
    assert [op for _, op in graph if op != 'null'] == ['BatchNorm', 'relu']
    assert graph[-2][0] == 'batchnormrelu0_fwd'


# MXNet 1.9.1's gluon.nn namespace (its star imports), checked here as MXNet cannot be asked
MXNET_NN = {
    'Activation', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D', 'BatchNorm', 'BatchNormReLU', 'Block', 'Conv1D',
    'Conv1DTranspose', 'Conv2D', 'Conv2DTranspose', 'Conv3D', 'Conv3DTranspose', 'Dense', 'Dropout', 'ELU',
    'Embedding', 'Flatten', 'GELU', 'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalAvgPool3D', 'GlobalMaxPool1D',
    'GlobalMaxPool2D', 'GlobalMaxPool3D', 'GroupNorm', 'HybridBlock', 'HybridLambda', 'HybridSequential',
    'InstanceNorm', 'Lambda', 'LayerNorm', 'LeakyReLU', 'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'PReLU',
    'ReflectionPad2D', 'SELU', 'Sequential', 'Swish', 'SymbolBlock'}


def test_nn_exports_mxnets_names():
    from reflib.gluon.nn import activations, basic_layers, conv_layers
    assert set(nn.__all__) == MXNET_NN
    for module in (activations, basic_layers, conv_layers):
        assert set(module.__all__) <= set(nn.__all__), module.__name__
        for name in module.__all__:
            assert getattr(nn, name) is getattr(module, name)
    assert nn.HybridBlock is mx.gluon.HybridBlock


@pytest.mark.parametrize('make,shape,layout', [
    (lambda: nn.Conv2D(2, 3, layout='NHWC', in_channels=3), (1, 4, 4, 3), 'NHWC'),
    (lambda: nn.Conv3DTranspose(2, 3, layout='NDHWC', in_channels=3), (1, 4, 4, 4, 3), 'NDHWC'),
])
def test_channel_last_convolutions_are_refused_naming_the_layout(make, shape, layout):
    """MXNet 1.9.1 on CPU builds these layers (weight shapes included) but cannot run them;
    reflib refuses at the first call too.  (Channel-last pooling runs: test_channel_last.py.)"""
    layer = make()
    layer.initialize()
    with pytest.raises(MXNetError, match=layout):
        layer(mx.nd.ones(shape))


def test_errors_name_the_culprit():
    with pytest.raises(AssertionError, match='alpha'):
        nn.LeakyReLU(-0.1)
    with pytest.raises(AssertionError, match='no_such_op'):
        nn.Lambda('no_such_op')
    with pytest.raises(ValueError, match='HybridLambda'):
        nn.HybridLambda(3)
    with pytest.raises(AssertionError, match='kernel_size'):
        nn.Conv2D(2, (1, 2, 3))
    with pytest.raises(AssertionError, match="'NCW'"):
        nn.MaxPool2D(layout='NCW')
    with pytest.raises(AssertionError, match='padding'):
        nn.ReflectionPad2D((1, 1))


def test_deferred_parameters_wait_for_the_first_forward():
    layer = nn.Conv2D(3, 2)
    layer.initialize()
    with pytest.raises(mx.gluon.DeferredInitializationError):
        layer.weight.data()
    layer(mx.nd.ones((1, 5, 4, 4)))
    assert layer.weight.shape == (3, 5, 2, 2)


def test_exported_cnn_runs_the_same_as_a_symbol_block(tmp_path):
    with mx.name.NameManager():
        net = nn_layers_cases._small_cnn(nn)
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).normal(size=(2, 2, 4, 4)))
    want = net(x).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / 'cnn'))
    loaded = mx.gluon.SymbolBlock.imports(sym_file, ['data'], params_file)
    np.testing.assert_array_equal(loaded(x).asnumpy(), want)
