"""mx.model.FeedForward against MXNet 1.9.1.

The scenarios live in tests/golden/gen_feedforward.py and run unchanged on both libraries;
feedforward.npz holds MXNet's results, feedforward_mlp-* a checkpoint MXNet's
FeedForward.save wrote.  check_feedforward_in_mxnet.py is the manual check of the other
direction (MXNet loading reflib's checkpoint).
"""

import importlib.util
import os
import pickle
import warnings

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, 'golden')
_spec = importlib.util.spec_from_file_location('gen_feedforward', os.path.join(GOLDEN_DIR, 'gen_feedforward.py'))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
GOLDEN = np.load(os.path.join(GOLDEN_DIR, 'feedforward.npz'))
RTOL, ATOL = 1e-5, 2e-6


def model(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return mx.model.FeedForward(*args, **kwargs)


def mlp_model(**kwargs):
    return model(gen.mlp(mx), arg_params=gen.initial_params(mx, gen.MLP_SHAPES), **kwargs)


@pytest.mark.parametrize('name', sorted(gen.SCENARIOS))
def test_scenario_matches_mxnet(name):
    got = gen.SCENARIOS[name](mx)
    want = {key.split('/', 1)[1]: GOLDEN[key] for key in GOLDEN.files if key.startswith(name + '/')}
    assert sorted(got) == sorted(want)
    for label, value in got.items():
        if want[label].dtype.kind in 'US':
            assert str(value) == str(want[label]), label
        else:
            np.testing.assert_allclose(value, want[label], rtol=RTOL, atol=ATOL, err_msg=label)


def test_golden_facts():
    """What the numbers above pin down, spelled out."""
    # numpy eval_data is shuffled and rolled over: 11 samples, batch 8 -> one batch an epoch
    assert GOLDEN['numpy_fit/evals'][:, 1].tolist() == [1, 1, 1]
    # epoch_size 4 over 6 batches: the second epoch goes on from batch 5, resets, ends at batch 2
    assert GOLDEN['iter_epoch_size/batches'][:, :2].tolist() == [[1, n] for n in (1, 2, 3, 4)] + \
        [[2, n] for n in (1, 2, 3, 4)]
    # a begin state given in arg_params is trained like a weight; the given array is not touched
    assert not np.allclose(GOLDEN['begin_state/final/init_h'], GOLDEN['begin_state/given_init_h'])
    # predict drops padding: 11 rows from batches of 8 or 4; num_batch=2 keeps 8
    assert GOLDEN['numpy_fit/predict'].shape == (11, 3)
    assert GOLDEN['numpy_fit/predict_2_batches'].shape == (8, 3)


def test_load_mxnet_checkpoint():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        ff = mx.model.FeedForward.load(os.path.join(GOLDEN_DIR, 'feedforward_mlp'), 3)
    assert ff.begin_epoch == 3
    xv, _ = gen.data(1, gen.N_VAL)
    np.testing.assert_allclose(ff.predict(xv), GOLDEN['numpy_fit/predict'], rtol=RTOL, atol=ATOL)
    for name in gen.MLP_SHAPES:
        np.testing.assert_allclose(ff.arg_params[name].asnumpy(), GOLDEN['numpy_fit/final/' + name],
                                   rtol=RTOL, atol=ATOL)


def test_save_load_round_trip(tmp_path):
    prefix = str(tmp_path / 'net')
    ff = mlp_model(num_epoch=2, numpy_batch_size=5, learning_rate=0.1)
    x, y = gen.data(0, gen.N_TRAIN)
    ff.fit(x, y)
    ff.save(prefix)
    ff.save(prefix, epoch=7)
    names = sorted(os.listdir(str(tmp_path)))
    assert {'net-symbol.json', 'net-0002.params', 'net-0007.params'} <= set(names)
    sym, args, auxs = mx.model.load_checkpoint(prefix, 2)
    assert sym.tojson() == ff.symbol.tojson() and auxs == {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        again = mx.model.FeedForward.load(prefix, 2)
    np.testing.assert_array_equal(again.predict(x), ff.predict(x))


def test_deprecation_warning():
    with pytest.warns(DeprecationWarning, match='mxnet.model.FeedForward has been deprecated. Please use '
                                                'mxnet.mod.Module instead.'):
        mx.model.FeedForward(gen.mlp(mx))


def test_load_and_create_warn_at_their_caller():
    x, y = gen.data(0, 8)
    with pytest.warns(DeprecationWarning, match='FeedForward has been deprecated') as record:
        mx.model.FeedForward.load(os.path.join(GOLDEN_DIR, 'feedforward_mlp'), 3)
        mx.model.FeedForward.create(gen.mlp(mx), x, y, num_epoch=1,
                                    arg_params=gen.initial_params(mx, gen.MLP_SHAPES))
    assert [w.filename for w in record] == [__file__, __file__]


def test_predict_after_fit_uses_the_trained_parameters():
    """MXNet keeps the first prediction executor with the parameters it had then; reflib does not."""
    x, y = gen.data(0, gen.N_TRAIN)
    ff = mlp_model(num_epoch=1, numpy_batch_size=8, learning_rate=0.5)
    before = ff.predict(x)
    np.random.seed(0)
    ff.fit(x, y)
    after = ff.predict(x)
    fresh = model(gen.mlp(mx), arg_params=ff.arg_params).predict(x)
    assert not np.allclose(before, after)
    np.testing.assert_array_equal(after, fresh)


def test_create_is_construct_and_fit():
    x, y = gen.data(0, gen.N_TRAIN)
    np.random.seed(3)     # as numpy_fit: its eval_data is shuffled by the same generator
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        created = mx.model.FeedForward.create(gen.mlp(mx), x, y, num_epoch=3, numpy_batch_size=8,
                                              learning_rate=0.1, momentum=0.9, wd=0.001,
                                              eval_data=gen.data(1, gen.N_VAL),
                                              arg_params=gen.initial_params(mx, gen.MLP_SHAPES))
    for name in gen.MLP_SHAPES:
        np.testing.assert_allclose(created.arg_params[name].asnumpy(), GOLDEN['numpy_fit/final/' + name],
                                   rtol=RTOL, atol=ATOL)


def test_epoch_end_checkpoints_and_begin_epoch(tmp_path):
    prefix = str(tmp_path / 'ck')
    x, y = gen.data(0, 12)
    ff = mlp_model(num_epoch=3, begin_epoch=1, numpy_batch_size=4)
    ff.fit(x, y, epoch_end_callback=mx.callback.do_checkpoint(prefix))
    params = sorted(n for n in os.listdir(str(tmp_path)) if n.endswith('.params'))
    assert params == ['ck-0002.params', 'ck-0003.params']


def test_begin_state_from_the_iterator_is_not_a_parameter():
    x, y = gen.data(4, 12)
    it = mx.io.NDArrayIter({'data': x, 'init_h': np.zeros((12, gen.N_CLASS), np.float32)}, y, 4)
    fc = gen.initial_params(mx, {'fc1_weight': (gen.N_CLASS, gen.N_FEAT), 'fc1_bias': (gen.N_CLASS,)})
    data = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=gen.N_CLASS, name='fc1')
    net = mx.sym.SoftmaxOutput(data + mx.sym.Variable('init_h'), name='softmax')
    ff = model(net, num_epoch=1, arg_params=fc, learning_rate=0.1)
    ff.fit(it)
    assert sorted(ff.arg_params) == ['fc1_bias', 'fc1_weight']


def test_two_buckets_train_on_reflib():
    """MXNet 1.9.1's FeedForward fails on a bucket smaller than the default; reflib trains it."""
    out = gen.bucketing(mx, buckets=(3, 5))
    assert out['batches'].shape == (14, 3)
    assert not np.allclose(out['final/embed_weight'],
                           gen.initial_params(mx, {'embed_weight': (gen.VOCAB, 4), 'pred_weight': (gen.VOCAB, 4),
                                                   'pred_bias': (gen.VOCAB,)}, seed=12)['embed_weight'].asnumpy())


def test_pickle_drops_the_executor():
    x, _ = gen.data(0, 6)
    ff = mlp_model()
    ff.predict(x)
    state = ff.__getstate__()
    assert state['_pred_module'] is None and ff._pred_module is not None
    copy = pickle.loads(pickle.dumps(ff))
    np.testing.assert_array_equal(copy.predict(x), ff.predict(x))


# ---------------------------------------------------------------------- refused input
def test_refused_inputs():
    x, y = gen.data(0, 8)
    ff = mlp_model(num_epoch=1)
    with pytest.raises(ValueError, match='y .the labels. must be given'):
        ff.fit(x)
    with pytest.raises(TypeError, match='y must be a numpy array or NDArray.*got list'):
        ff.fit(x, list(y))
    with pytest.raises(ValueError, match='X has 8 samples but y has 7'):
        ff.fit(x, y[:7])
    with pytest.raises(ValueError, match=r'y must be 1-d.*\(8, 2\)'):
        ff.fit(x, np.zeros((8, 2)))
    with pytest.raises(TypeError, match='X must be a DataIter.*got list'):
        ff.fit([1, 2], y)
    with pytest.raises(TypeError, match='eval_data must be a DataIter.*got str'):
        ff.fit(x, y, eval_data='val')
    with pytest.raises(ValueError, match='num_epoch is None'):
        mlp_model().fit(x, y)
    with pytest.raises(ValueError, match="iterator provides \\['softmax_label'\\].*label_name"):
        net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=1),
                                            name='lro')
        model(net, num_epoch=1).fit(x, y)


def test_refused_parameters():
    x, y = gen.data(0, 8)
    with pytest.raises(ValueError, match='no parameters yet'):
        model(gen.mlp(mx)).predict(x)
    junk = dict(gen.initial_params(mx, gen.MLP_SHAPES), junk=mx.nd.ones((2,)))
    with pytest.raises(ValueError, match=r"arg_params has \['junk'\].*allow_extra_params=True"):
        model(gen.mlp(mx), arg_params=junk).predict(x)
    assert model(gen.mlp(mx), arg_params=junk, allow_extra_params=True).predict(x).shape == (8, 3)
    partial = gen.initial_params(mx, {'fc1_weight': (6, gen.N_FEAT)})
    with pytest.raises(ValueError, match=r"no value for \['fc1_bias', 'fc2_weight', 'fc2_bias'\]"):
        model(gen.mlp(mx), arg_params=partial).predict(x)
    wrong = dict(gen.initial_params(mx, gen.MLP_SHAPES), fc1_bias=mx.nd.zeros((5,)))
    with pytest.raises(ValueError, match=r"arg_params\['fc1_bias'\] has shape \(5,\), the network needs \(6,\)"):
        model(gen.mlp(mx), arg_params=wrong, num_epoch=1).fit(x, y)
    # a begin state nobody gives: the initializer has no rule for it (ValueError, as in MXNet)
    with pytest.raises(ValueError, match="cannot initialize 'init_h'"):
        model(gen.state_net(mx), num_epoch=1).fit(x, y)
    # a begin state of unknown shape
    unshaped = mx.sym.SoftmaxOutput(mx.sym.broadcast_add(
        mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3), mx.sym.Variable('h0')), name='softmax')
    with pytest.raises(ValueError, match=r"shapes of \['h0'\] cannot be inferred"):
        model(unshaped, num_epoch=1).fit(x, y)
    net = mx.sym.FullyConnected(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2, name='fc'),
                                num_hidden=2, name='fc')
    with pytest.raises(ValueError, match="two arguments named 'fc_weight'"):
        model(net)
    with pytest.raises(TypeError, match='optimizer must be a name or an Optimizer'):
        mlp_model(num_epoch=1, optimizer=3).fit(x, y)
