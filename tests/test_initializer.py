"""mx.init: MXNet 1.9.1's dispatch rules, JSON form and scales; distributions checked statistically.

Deterministic results (Constant/Zero/One/Mixed/Load/Bilinear/LSTMBias, which rule a name
picks, ``__init__`` attributes, dumps strings) are compared with values recorded from the
real MXNet by tests/golden/gen_metric_init.py.  Random initializers draw from reflib's own
generator, so their numbers differ from MXNet's; what must agree is what they ask the
generator for -- the exact (low, high) or (loc, scale), checked by intercepting the call --
and the resulting distribution, checked statistically.
"""

import json
import logging
import math
import os

import numpy as np
import pytest

import reflib as mx
import reflib.random
from reflib.base import MXNetError
from reflib.initializer import InitDesc, InitializerError, xavier_scale

GOLDEN = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden',
                                     'metric_init.json')))['init']


def golden_array(spec):
    return np.array(spec['data'], np.float32).reshape(spec['shape'])


def run_init(initializer, name, shape, legacy=False):
    arr = mx.nd.full(shape, -7.0)
    if legacy:
        with pytest.warns(DeprecationWarning, match='InitDesc'):
            initializer(name, arr)
    else:
        initializer(InitDesc(name), arr)
    return arr.asnumpy()


def check(result, run):
    """``result`` is MXNet's recorded outcome: {'value': array} or {'error': class name}."""
    if 'error' in result:
        with pytest.raises(ValueError if result['error'] == 'ValueError' else MXNetError):
            run()
    else:
        np.testing.assert_allclose(run(), golden_array(result['value']), rtol=1e-6)


# ------------------------------------------------------------------ JSON form
@pytest.mark.parametrize('key', sorted(GOLDEN['dumps']))
def test_dumps_matches_mxnet(key):
    made = {
        'uniform': mx.init.Uniform(), 'uniform_0.1': mx.init.Uniform(0.1), 'normal': mx.init.Normal(),
        'normal_0.5': mx.init.Normal(0.5), 'xavier': mx.init.Xavier(),
        'xavier_in': mx.init.Xavier(factor_type='in', magnitude=2.34),
        'xavier_gauss_out': mx.init.Xavier('gaussian', 'out', 2), 'msra': mx.init.MSRAPrelu(),
        'msra_in': mx.init.MSRAPrelu('in', 0.1), 'constant': mx.init.Constant(0.25),
        'constant_int': mx.init.Constant(3), 'constant_nd': mx.init.Constant(mx.nd.array([[1, 2], [3, 4]])),
        'constant_np': mx.init.Constant(np.array([0.5, 1.5])), 'zero': mx.init.Zero(), 'one': mx.init.One(),
        'orthogonal': mx.init.Orthogonal(), 'orthogonal_normal': mx.init.Orthogonal(2.0, 'normal'),
        'bilinear': mx.init.Bilinear(), 'lstmbias': mx.init.LSTMBias(1.5)}[key]
    assert made.dumps() == GOLDEN['dumps'][key]
    again = mx.init.create(made.dumps())           # the JSON round-trips
    assert type(again) is type(made) and again.dumps() == made.dumps()


@pytest.mark.parametrize('spec', sorted(GOLDEN['create']))
def test_create_matches_mxnet(spec):
    result = GOLDEN['create'][spec]
    kwargs = {'value': 1.0} if spec == 'constant' else {}
    if 'error' in result:
        with pytest.raises(MXNetError) as err:
            mx.init.create(spec, **kwargs)
        assert repr(spec) in str(err.value) and 'xavier' in str(err.value)   # names the culprit and the choices
        return
    made = mx.init.create(spec, **kwargs)
    assert type(made).__name__ == result['class']
    assert made.dumps() == result['dumps']


def test_initdesc_is_a_string_with_attributes():
    g = GOLDEN['initdesc']
    desc = InitDesc('fc1_weight', {'__init__': '["zero", {}]', 'lr_mult': '2'})
    assert isinstance(desc, str) is g['isstr']
    assert str(desc) == g['str'] and repr(desc) == g['repr']
    assert desc.attrs == g['attrs'] and desc.global_init is None
    assert InitDesc('x').attrs == g['plain_attrs']
    init = mx.init.Constant(0.5)
    init(desc, mx.nd.zeros((2,)))
    assert desc.global_init is init        # the first initializer that sees it becomes the global one


def test_variable_init_attribute_is_what_dumps_writes():
    w = mx.sym.Variable('w', init=mx.init.Xavier(factor_type='in', magnitude=2.34))
    assert w.attr_dict()['w']['__init__'] == GOLDEN['dumps']['xavier_in']


# ------------------------------------------------------------------ dispatch by name
@pytest.mark.parametrize('name', sorted(GOLDEN['dispatch']))
def test_dispatch_by_name_matches_mxnet(name):
    shape = (6,) if name == 'stn_loc_bias' else (1, 1, 4, 4) if name.startswith('upsampling') else (2, 3)
    check(GOLDEN['dispatch'][name], lambda: run_init(mx.init.Constant(0.5), name, shape))


@pytest.mark.parametrize('name', sorted(GOLDEN['dispatch_legacy']))
def test_legacy_string_dispatch_matches_mxnet(name):
    shape = (6,) if name == 'stn_loc_bias' else (1, 1, 4, 4) if name.startswith('upsampling') else (2, 3)
    check(GOLDEN['dispatch_legacy'][name], lambda: run_init(mx.init.Constant(0.5), name, shape, legacy=True))


def test_unknown_pattern_error_names_the_parameter():
    with pytest.raises(InitializerError) as err:
        mx.init.Uniform()(InitDesc('bn_moving_mean'), mx.nd.zeros((3,)))
    assert "'bn_moving_mean'" in str(err.value) and 'init=' in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize('k', range(len(GOLDEN['attr_cases'])))
def test_init_attribute_overrides_global_initializer(k):
    name, attr = GOLDEN['attr_cases'][k]
    shape = (8,) if name == 'lstm_bias' else (2, 3)

    def run():
        arr = mx.nd.full(shape, -7.0)
        mx.init.Uniform(0.1)(InitDesc(name, {'__init__': attr}), arr)
        return arr.asnumpy()
    check(GOLDEN['attr_results'][k], run)


def test_batchnorm_net_parameters_match_mxnet_module_init_params():
    """BatchNorm's moving stats carry __init__ attributes; Variables carry their own."""
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=3, name='fc1')
    bn = mx.sym.BatchNorm(fc1, name='bn1')
    w2 = mx.sym.Variable('fc2_weight', init=mx.init.Constant(0.25))
    b2 = mx.sym.Variable('fc2_bias', init='["one", {}]')
    fc2 = mx.sym.FullyConnected(bn, weight=w2, bias=b2, num_hidden=2, name='fc2')
    net = mx.sym.SoftmaxOutput(fc2, name='softmax')
    attrs = net.attr_dict()
    for name in ('bn1_moving_mean', 'bn1_moving_var', 'fc2_weight', 'fc2_bias'):
        assert attrs[name] == GOLDEN['bn_net_attrs'][name]

    arg_shapes, _, aux_shapes = net.infer_shape(data=(4, 5), softmax_label=(4,))
    shapes = dict(zip(net.list_arguments(), arg_shapes))
    shapes.update(zip(net.list_auxiliary_states(), aux_shapes))
    init = mx.init.Constant(0.5)
    for name, spec in GOLDEN['bn_net_params'].items():
        arr = mx.nd.full(shapes[name], -7.0)
        init(InitDesc(name, attrs.get(name)), arr)
        np.testing.assert_array_equal(arr.asnumpy(), golden_array(spec), err_msg=name)


def test_module_init_params_uses_the_rules():
    from reflib.module import Module
    data = mx.sym.Variable('data')
    bn = mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=3, name='fc1'), name='bn1')
    fc2 = mx.sym.FullyConnected(bn, weight=mx.sym.Variable('fc2_weight', init=mx.init.Constant(0.25)),
                                bias=mx.sym.Variable('fc2_bias', init='["one", {}]'), num_hidden=2, name='fc2')
    mod = Module(mx.sym.SoftmaxOutput(fc2, name='softmax'))
    mod.bind(data_shapes=[('data', (4, 5))], label_shapes=[('softmax_label', (4,))])
    mod.init_params(mx.init.Constant(0.5))
    arg, aux = mod.get_params()
    got = {k: v.asnumpy() for k, v in list(arg.items()) + list(aux.items())}
    assert sorted(got) == sorted(GOLDEN['bn_net_params'])
    for name, spec in GOLDEN['bn_net_params'].items():
        np.testing.assert_array_equal(got[name], golden_array(spec), err_msg=name)

    odd = mx.sym.FullyConnected(data, weight=mx.sym.Variable('odd_thing'), no_bias=True, num_hidden=2, name='fc')
    mod2 = Module(odd, label_names=None)
    mod2.bind(data_shapes=[('data', (4, 5))])
    assert GOLDEN['odd_param'] == 'ValueError'
    with pytest.raises(ValueError, match='odd_thing'):
        mod2.init_params(mx.init.Uniform())


# ------------------------------------------------------------------ combinators
@pytest.mark.parametrize('name', sorted(GOLDEN['mixed']))
def test_mixed_matches_mxnet(name):
    mixed = mx.init.Mixed(['.*bias', 'fc2_.*', '.*'], [mx.init.Zero(), mx.init.Constant(0.3), mx.init.One()])
    check(GOLDEN['mixed'][name], lambda: run_init(mixed, name, (2, 2)))


def test_mixed_patterns_are_anchored_and_errors_are_clear():
    mixed = mx.init.Mixed(['bias'], [mx.init.Zero()])
    for key, name in (('mixed_nomatch', 'fc1_weight'), ('mixed_match_anchor', 'fc_bias')):
        assert GOLDEN[key] == {'error': 'ValueError'}
        with pytest.raises(ValueError, match=name):
            run_init(mixed, name, (2,))
    with pytest.raises(MXNetError, match='2 patterns but 1'):
        mx.init.Mixed(['a', 'b'], [mx.init.Zero()])


def load_source():
    return {'arg:fc1_weight': mx.nd.array([[1, 2], [3, 4]]), 'aux:bn_moving_mean': mx.nd.array([5, 6]),
            'plain': mx.nd.array([7, 8])}


@pytest.mark.parametrize('name', sorted(GOLDEN['load']))
def test_load_matches_mxnet(name):
    shapes = {'fc1_weight': (2, 2), 'bn_moving_mean': (2,), 'plain': (2,), 'fc2_weight': (3,), 'fc1_bias': (3,)}
    load = mx.init.Load(load_source(), default_init=mx.init.Constant(0.7))
    check(GOLDEN['load'][name], lambda: run_init(load, name, shapes[name]))


def test_load_errors_and_files(tmp_path):
    load = mx.init.Load(load_source(), default_init=mx.init.Constant(0.7))
    assert GOLDEN['load_mismatch'] == {'error': 'AssertionError'}
    with pytest.raises(InitializerError, match=r'fc1_weight has shape \(2, 2\).*\(4,\)'):
        run_init(load, 'fc1_weight', (4,))
    with pytest.raises(InitializerError, match='other_weight is not among'):
        run_init(mx.init.Load(load_source()), 'other_weight', (2,))
    fname = str(tmp_path / 'p.params')
    mx.nd.save(fname, load_source())
    from_file = mx.init.Load(fname)
    np.testing.assert_array_equal(run_init(from_file, 'bn_moving_mean', (2,)), [5, 6])


def test_load_logs_when_verbose(caplog):
    load = mx.init.Load(load_source(), default_init=mx.init.Zero(), verbose=True)
    with caplog.at_level(logging.INFO):
        run_init(load, 'plain', (2,))
        run_init(load, 'fc9_bias', (2,))
    assert 'Initialized plain by loading' in caplog.messages
    assert 'Initialized fc9_bias by default' in caplog.messages


# ------------------------------------------------------------------ deterministic fills
@pytest.mark.parametrize('shape', sorted(GOLDEN['bilinear']))
def test_bilinear_matches_mxnet(shape):
    check(GOLDEN['bilinear'][shape], lambda: run_init(mx.init.Bilinear(), 'up_weight', eval(shape)))


def test_lstmbias_and_constant_array_match_mxnet():
    check(GOLDEN['lstmbias'], lambda: run_init(mx.init.LSTMBias(1.5), 'lstm_weight', (8,)))
    check(GOLDEN['constant_array'],
          lambda: run_init(mx.init.Constant(mx.nd.array([1, 2, 3])), 'c_weight', (2, 3)))


def test_dtype_is_kept():
    for init in (mx.init.Constant(0.5), mx.init.Xavier(), mx.init.Normal(0.1), mx.init.One()):
        arr = mx.nd.zeros((4, 5), dtype='float64')
        init(InitDesc('w_weight'), arr)
        assert arr.dtype == np.float64


# ------------------------------------------------------------------ random initializers
@pytest.mark.parametrize('k', range(len(GOLDEN['scale_inits'])))
def test_random_draw_parameters_match_mxnet(k, monkeypatch):
    """The (low, high) / (loc, scale) handed to the generator equal MXNet's, for every shape."""
    name, kwargs = GOLDEN['scale_inits'][k]
    calls = []
    orig_uniform, orig_normal = reflib.random.uniform, reflib.random.normal

    def rec_uniform(low, high, shape=(1,), *args, **kw):
        calls.append(['uniform', float(low), float(high), list(shape)])
        return orig_uniform(low, high, shape, *args, **kw)

    def rec_normal(loc, scale, shape=(1,), *args, **kw):
        calls.append(['normal', float(loc), float(scale), list(shape)])
        return orig_normal(loc, scale, shape, *args, **kw)

    monkeypatch.setattr(reflib.random, 'uniform', rec_uniform)
    monkeypatch.setattr(reflib.random, 'normal', rec_normal)
    n = len(GOLDEN['scale_shapes'])
    for shape, result in zip(GOLDEN['scale_shapes'], GOLDEN['scale_results'][k * n:(k + 1) * n]):
        del calls[:]
        init = mx.init.create(name, **kwargs)
        arr = mx.nd.zeros(tuple(shape))
        if 'error' in result:
            with pytest.raises(ValueError):
                init(InitDesc('conv_weight'), arr)
            continue
        init(InitDesc('conv_weight'), arr)
        kind, a, b, drawn_shape = result['call']
        assert calls[0][0] == kind and calls[0][3] == drawn_shape
        assert calls[0][1] == pytest.approx(a, rel=1e-12, abs=0)
        assert calls[0][2] == pytest.approx(b, rel=1e-12, abs=0)


def test_xavier_fans():
    # (64, 3, 3, 3): fan_in = 3*9 = 27, fan_out = 64*9 = 576
    assert xavier_scale((64, 3, 3, 3), 'in', 3) == pytest.approx(math.sqrt(3 / 27))
    assert xavier_scale((64, 3, 3, 3), 'out', 3) == pytest.approx(math.sqrt(3 / 576))
    assert xavier_scale((64, 3, 3, 3), 'avg', 3) == pytest.approx(math.sqrt(3 / ((27 + 576) / 2)))
    # (10, 20): fan_in = 20, fan_out = 10
    assert xavier_scale((10, 20), 'avg', 3) == pytest.approx(math.sqrt(3 / 15))
    with pytest.raises(InitializerError, match='at least 2 dimensions'):
        mx.init.Xavier()(InitDesc('v_weight'), mx.nd.zeros((5,)))
    with pytest.raises(InitializerError, match='factor_type'):
        mx.init.Xavier(factor_type='bogus')(InitDesc('v_weight'), mx.nd.zeros((5, 5)))
    with pytest.raises(InitializerError, match='rnd_type'):
        mx.init.Xavier(rnd_type='bogus')(InitDesc('v_weight'), mx.nd.zeros((5, 5)))


def draw(init, shape, name='w_weight'):
    arr = mx.nd.zeros(shape)
    init(InitDesc(name), arr)
    return arr.asnumpy().astype(np.float64)


@pytest.fixture(autouse=True)
def seeded():
    mx.random.seed(1234)
    yield


def test_uniform_distributions():
    for init, bound in ((mx.init.Uniform(), 0.07), (mx.init.Uniform(0.5), 0.5),
                        (mx.init.Xavier(), math.sqrt(3 / ((27 + 576) / 2))),
                        (mx.init.Xavier(factor_type='in', magnitude=2), math.sqrt(2 / 27))):
        x = draw(init, (64, 3, 3, 3)) if isinstance(init, mx.init.Xavier) else draw(init, (200, 100))
        assert np.abs(x).max() <= bound * (1 + 1e-6)
        assert np.abs(x).max() > 0.98 * bound
        assert abs(x.mean()) < 0.05 * bound
        assert x.std() == pytest.approx(bound / math.sqrt(3), rel=0.05)   # uniform: std = bound / sqrt(3)


def test_gaussian_distributions():
    shape = (256, 32, 3, 3)     # fan_in 288, fan_out 2304
    for init, std in ((mx.init.Normal(0.3), 0.3),
                      (mx.init.Xavier('gaussian', 'out', 2), math.sqrt(2 / 2304)),
                      (mx.init.MSRAPrelu(), math.sqrt(2 / (1 + 0.25 ** 2) / ((288 + 2304) / 2))),
                      (mx.init.MSRAPrelu('in', 0.0), math.sqrt(2 / 288))):
        x = draw(init, shape)
        assert x.std() == pytest.approx(std, rel=0.02)
        assert abs(x.mean()) < 0.02 * std
        assert np.mean(np.abs(x) < std) == pytest.approx(0.6827, abs=0.01)   # one-sigma mass


def test_random_initializers_are_repeatable_after_seed():
    mx.random.seed(7)
    a = draw(mx.init.Xavier(), (10, 20))
    mx.random.seed(7)
    b = draw(mx.init.Xavier(), (10, 20))
    c = draw(mx.init.Xavier(), (10, 20))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


@pytest.mark.parametrize('shape', [(4, 6), (6, 4), (3, 2, 2)])
@pytest.mark.parametrize('rand_type', ['uniform', 'normal'])
def test_orthogonal(shape, rand_type):
    x = draw(mx.init.Orthogonal(scale=2.0, rand_type=rand_type), shape).reshape(shape[0], -1)
    small = min(x.shape)
    gram = x @ x.T if x.shape[0] == small else x.T @ x
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-5)


# ------------------------------------------------------------------ extending
def test_register_custom_initializer_and_use_it_through_a_variable():
    @mx.init.register
    @mx.init.alias('one_tenth')
    class Tenth(mx.init.Initializer):
        def __init__(self, sign=1):
            super().__init__(sign=sign)
            self.sign = sign

        def _init_weight(self, _, arr):
            arr[:] = 0.1 * self.sign

    assert Tenth(-1).dumps() == '["tenth", {"sign": -1}]'
    v = mx.sym.Variable('v', init=Tenth(-1))
    arr = mx.nd.zeros((2,))
    mx.init.Zero()(InitDesc('v', v.attr_dict()['v']), arr)
    np.testing.assert_allclose(arr.asnumpy(), [-0.1, -0.1], rtol=1e-6)
    assert isinstance(mx.init.create('TENTH'), Tenth)
    assert isinstance(mx.init.create('one_tenth'), Tenth)
    with pytest.raises(MXNetError, match='not a subclass'):
        mx.init.register(dict)


def test_base_initializer_needs_init_weight_and_equality_is_by_value():
    with pytest.raises(NotImplementedError, match='_init_weight'):
        mx.init.Initializer()(InitDesc('fc_weight'), mx.nd.zeros((2,)))
    assert mx.init.Xavier(magnitude=2) == mx.init.Xavier(magnitude=2)
    assert mx.init.Xavier(magnitude=2) != mx.init.Xavier(magnitude=3)
    assert mx.init.create(mx.init.One()) == mx.init.One()


def test_set_verbosity_logs_each_array(caplog):
    init = mx.init.Constant(2.0).set_verbosity(True)
    with caplog.at_level(logging.INFO):
        init(InitDesc('fc_weight'), mx.nd.zeros((2, 2)))
        init(InitDesc('fc_bias'), mx.nd.zeros((2,)))
    assert caplog.messages == ['Initialized fc_weight as weight: 2.0', 'Initialized fc_bias as bias: 0.0']


# ------------------------------------------------------------------ GPU (skipped without cupy and a device)
def test_initializers_fill_gpu_arrays_in_place():
    pytest.importorskip('cupy')
    if mx.num_gpus() == 0:
        pytest.skip('no CUDA device')
    ctx = mx.gpu(0)
    for init, name, shape in ((mx.init.Xavier(), 'c_weight', (8, 3, 3, 3)), (mx.init.Constant(0.5), 'fc_bias', (4,)),
                              (mx.init.Bilinear(), 'up_weight', (1, 1, 4, 4)),
                              (mx.init.Orthogonal(), 'o_weight', (4, 6)),
                              (mx.init.Load({'l_weight': mx.nd.ones((2,))}), 'l_weight', (2,))):
        arr = mx.nd.zeros(shape, ctx=ctx)
        buf = arr._data
        init(InitDesc(name), arr)
        assert arr._data is buf and arr.context == ctx
    x = mx.nd.zeros((64, 3, 3, 3), ctx=ctx)
    mx.init.Xavier()(InitDesc('c_weight'), x)
    assert np.abs(x.asnumpy()).max() <= math.sqrt(3 / ((27 + 576) / 2)) * (1 + 1e-6)


def test_prelus_gamma_starts_at_a_quarter_unless_the_variable_says_otherwise():
    """MXNet 1.9.1 (oracle): PReLU gives an auto-made gamma ``Constant(0.25)``; a gamma variable
    with an init of its own keeps it (the operator sets only a missing one)."""
    auto = mx.sym.LeakyReLU(mx.sym.var('data'), act_type='prelu', name='pr')
    assert auto.attr_dict()['pr_gamma']['__init__'] == '["Constant", {"value": 0.25}]'
    own = mx.sym.LeakyReLU(mx.sym.var('data'), act_type='prelu', name='pr',
                           gamma=mx.sym.var('g', init=mx.init.One()))
    assert own.attr_dict()['g'] == {'__init__': '["one", {}]'}
    for net, name, value in ((auto, 'pr_gamma', 0.25), (own, 'g', 1.0)):
        mod = mx.mod.Module(net, data_names=['data'], label_names=None)
        mod.bind(data_shapes=[('data', (2, 3))])
        mod.init_params(mx.init.Uniform(0.1))
        assert mod.get_params()[0][name].asnumpy().tolist() == [value] * 3
