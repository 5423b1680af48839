"""mx.mod against MXNet 1.9.1: Module, DataParallelExecutorGroup, fit/score/predict, checkpoints.

The scenarios live in tests/golden/gen_module.py and run unchanged on both libraries;
module.npz holds MXNet 1.9.1's results (run with MXNET_SUBGRAPH_BACKEND=NONE).  Every
run starts from the same fixed parameters and data, so the trained parameters, the
per-batch training metric, the validation scores and the predictions must agree at
float32 tolerance (rtol 1e-5, atol 1e-6; the largest difference measured is ~5e-7,
from the order of float32 sums inside matrix products).

Then what MXNet does not check, or checks with an assertion or a KeyError: every misuse
raises a reflib.base.MXNetError naming the culprit, and checkpoints are written
atomically and read back with clear errors.
"""
import importlib.util
import json
import os
import subprocess
import sys
import shutil

import numpy as np
import pytest

import reflib as mx
import reflib.checkpoint
from reflib.base import MXNetError
from reflib.module import ModuleStateError

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, 'golden')
_spec = importlib.util.spec_from_file_location('gen_module', os.path.join(GOLDEN_DIR, 'gen_module.py'))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
GOLDEN = np.load(os.path.join(GOLDEN_DIR, 'module.npz'))
SCENARIOS = gen.scenarios()
RTOL, ATOL = 1e-5, 1e-6


def golden(name, label):
    return GOLDEN['%s/%s' % (name, label)]


def golden_json(name, label):
    return json.loads(str(golden(name, label)))


_RUNS = {}


def run(name, tmp_path_factory):
    """Each scenario once per session (they are deterministic)."""
    if name not in _RUNS:
        _RUNS[name] = SCENARIOS[name](mx, str(tmp_path_factory.mktemp(name)))
    return _RUNS[name]


def assert_same(label, got, want):
    got = np.asarray(got)
    if want.dtype.kind == 'U':
        assert json.loads(str(got)) == json.loads(str(want)), label
    else:
        assert got.shape == want.shape, (label, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=label)


# ---------------------------------------------------------------- against MXNet 1.9.1
# (the 'reshape' scenario predicts on an unlabelled iterator: MXNet warns there too)
@pytest.mark.filterwarnings('ignore:the label given')
@pytest.mark.parametrize('name', [n for n in SCENARIOS if not n.startswith('reshape_unlabelled')])
def test_scenario_matches_mxnet(name, tmp_path_factory):
    rec = run(name, tmp_path_factory)
    labels = sorted(k[len(name) + 1:] for k in GOLDEN.files if k.startswith(name + '/'))
    assert sorted(rec) == labels
    for label in labels:
        assert_same('%s/%s' % (name, label), rec[label], golden(name, label))


@pytest.mark.parametrize('nctx', [1, 2])
def test_predict_other_batch_size_without_labels_fails_as_in_mxnet(nctx, tmp_path_factory):
    # MXNet cannot re-bind a module bound with labels for an unlabelled batch of another
    # size (softmax_label's shape would change); reflib refuses too, naming the label.
    name = 'reshape_unlabelled_%dctx' % nctx
    assert golden_json(name, 'raises') is True
    rec = run(name, tmp_path_factory)
    assert json.loads(str(rec['raises'])) is True
    assert 'softmax_label' in json.loads(str(rec['error']))


def test_fit_records_what_mxnet_records():
    # a few of the numbers above, spelled out (MXNet's values)
    metric = golden('mlp_1ctx', 'batch_metric')          # rows: epoch, nbatch, accuracy
    assert metric.shape == (18, 3)                        # 3 epochs x 6 batches (22 samples, batch 4)
    assert metric[-1, 2] == pytest.approx(11 / 12)        # the padded last batch counts its 2 repeats
    np.testing.assert_allclose(golden('mlp_1ctx', 'val_metric')[:, 2], [5 / 12, 7 / 12, 9 / 12])
    assert golden('mlp_1ctx', 'score')[0] == pytest.approx(0.75)
    np.testing.assert_allclose(golden('linreg_mse', 'val_metric')[:, 2], [0.403544, 0.380956, 0.329787],
                               rtol=1e-5)
    assert golden_json('workload_2_1', 'slices') == [[0, 6], [6, 9]]
    assert golden_json('workload_2_1', 'outputs_unmerged_shapes') == [[[6, 3], [3, 3]]]
    assert golden_json('reshape', 'b5/shapes')['slices'] == [[0, 2], [2, 5]]   # round(2.5) == 2


@pytest.mark.parametrize('name', ['mlp_1ctx', 'workload_2_1', 'linreg_mse'])
def test_predict_drops_the_padding(name, tmp_path_factory):
    rec = run(name, tmp_path_factory)
    assert rec['predict'].shape[0] == gen.N_VAL
    meta = json.loads(str(rec['iter_predict_meta']))
    assert sum(shapes[0][0] for _, _, shapes in meta) == gen.N_VAL
    assert meta[-1][1] > 0                                # the last batch was padded
    np.testing.assert_array_equal(rec['iter_predict'], rec['predict'])


def test_update_on_kvstore_follows_the_environment(tmp_path_factory):
    assert golden_json('mlp_2ctx_local', 'setup')['update_on_kvstore'] is True
    assert golden_json('mlp_2ctx_noupdkv', 'setup')['update_on_kvstore'] is False
    setup = json.loads(str(run('mlp_2ctx_noupdkv', tmp_path_factory)['setup']))
    assert setup['update_on_kvstore'] is False and setup['kvstore'] == 'local'
    assert len(setup['idx2name']) == 8                    # index i * num_device + k
    assert 'MXNET_UPDATE_ON_KVSTORE' not in os.environ or os.environ['MXNET_UPDATE_ON_KVSTORE'] != '0'


def test_fixed_params_stay_fixed(tmp_path_factory):
    rec = run('fixed_params', tmp_path_factory)
    for name in ('fc1_weight', 'fc1_bias'):
        np.testing.assert_array_equal(rec['final/arg/%s' % name], rec['initial/arg/%s' % name])
        np.testing.assert_array_equal(golden('fixed_params', 'final/arg/%s' % name),
                                      golden('fixed_params', 'initial/arg/%s' % name))
    assert not np.allclose(rec['final/arg/fc2_weight'], rec['initial/arg/fc2_weight'])


def test_batchnorm_statistics_are_averaged_over_devices_at_epoch_end(tmp_path_factory):
    rec = run('conv_bn_2ctx_adam', tmp_path_factory)
    for name in ('bn1_moving_mean', 'bn1_moving_var', 'bn2_moving_mean', 'bn2_moving_var'):
        per_device = rec['device_aux/%s' % name]
        np.testing.assert_array_equal(per_device[0], per_device[1])
        np.testing.assert_array_equal(per_device[0], rec['final/aux/%s' % name])


def test_resuming_a_checkpoint(tmp_path_factory):
    # SGD: momentum is all the state there is, so stop + resume == uninterrupted, exactly
    for rec in (run('checkpoint_sgd', tmp_path_factory), {k[len('checkpoint_sgd/'):]: GOLDEN[k]
                                                             for k in GOLDEN.files
                                                             if k.startswith('checkpoint_sgd/')}):
        for p in ('fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'):
            np.testing.assert_array_equal(rec['resumed/arg/%s' % p], rec['uninterrupted/arg/%s' % p])
            assert not np.allclose(rec['resumed_no_states/arg/%s' % p], rec['uninterrupted/arg/%s' % p])
    # Adam: the .states file holds the moments but not the step count, so MXNet restarts the
    # bias correction at t=1 after a resume; reflib does the same (checked against MXNet above)
    diff = np.abs(golden('checkpoint_adam', 'resumed/arg/fc1_weight')
                  - golden('checkpoint_adam', 'uninterrupted/arg/fc1_weight')).max()
    assert diff > 1e-3
    assert golden_json('checkpoint_sgd', 'files') == [
        'ckpt-0001.params', 'ckpt-0001.states', 'ckpt-0002.params', 'ckpt-0002.states', 'ckpt-symbol.json',
        'dc-0001.params', 'dc-0002.params', 'dc-symbol.json']


@pytest.mark.parametrize('name', sorted(gen.CHECKPOINTS))
def test_resume_from_mxnets_own_checkpoint_files(name, tmp_path):
    """Module.load of the .json/.params/.states MXNet wrote, then one epoch: MXNet's numbers."""
    for suffix in ('symbol.json', '0002.params', '0002.states'):
        shutil.copy(os.path.join(GOLDEN_DIR, 'module_%s-%s' % (name, suffix)), str(tmp_path / ('ck-' + suffix)))
    arg, aux = gen.resume_from(mx, str(tmp_path / 'ck'), **gen.CHECKPOINTS[name])
    assert not aux
    for p, value in arg.items():
        assert_same(p, value.asnumpy(), golden(name, 'resumed/arg/%s' % p))


@pytest.mark.parametrize('kvstore,update_on_kvstore', [('local', None), ('device', None), ('local', False)])
def test_three_devices_train_like_one(kvstore, update_on_kvstore, tmp_path_factory):
    """Data parallelism changes nothing but float32 rounding (batch 4 as slices 1 + 1 + 2)."""
    one = run('mlp_1ctx', tmp_path_factory)
    three = gen.scenario_mlp(mx, 3, kvstore, update_on_kvstore=update_on_kvstore)
    assert json.loads(str(three['slices'])) == [[0, 1], [1, 2], [2, 4]]
    for key in one:
        if key.startswith(('final/', 'epoch')) or key in ('predict', 'score', 'batch_metric', 'val_metric'):
            np.testing.assert_allclose(three[key], one[key], rtol=0, atol=1e-6, err_msg=key)


# ---------------------------------------------------------------- helpers for misuse
def _mlp_module(**kwargs):
    return mx.mod.Module(gen.mlp(mx), **kwargs)


def _params():
    arg, aux = gen.initial_params(mx, gen.mlp(mx), [('data', (4, gen.N_FEAT))])
    return gen._nd(mx, arg), gen._nd(mx, aux)


def _batch(n=4, label=True, **kwargs):
    x, y = gen.classification_data(0)
    return mx.io.DataBatch([mx.nd.array(x[:n])], [mx.nd.array(y[:n])] if label else None, **kwargs)


def _bound(for_training=True, **kwargs):
    mod = _mlp_module(**kwargs)
    mod.bind(data_shapes=[('data', (4, gen.N_FEAT))], label_shapes=[('softmax_label', (4,))],
             for_training=for_training)
    return mod


def _ready(**kwargs):
    mod = _bound(**kwargs)
    mod.init_params(arg_params=_params()[0])
    return mod


def _trained(**kwargs):
    mod = _ready(**kwargs)
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    mod.forward_backward(_batch())
    mod.update()
    return mod


def _iter():
    x, y = gen.classification_data(0)
    return mx.io.NDArrayIter(x, y, batch_size=4)


# ---------------------------------------------------------------- the state machine
CALLS = {
    'forward': lambda m: m.forward(_batch()),
    'backward': lambda m: m.backward(),
    'update': lambda m: m.update(),
    'get_params': lambda m: m.get_params(),
    'get_outputs': lambda m: m.get_outputs(),
    'init_optimizer': lambda m: m.init_optimizer(),
    'score': lambda m: m.score(_iter(), 'acc'),
    'predict': lambda m: m.predict(_iter()),
    'iter_predict': lambda m: next(m.iter_predict(_iter())),
    'update_metric': lambda m: m.update_metric(mx.metric.create('acc'), _batch().label),
    'output_shapes': lambda m: m.output_shapes,
    'save_checkpoint': lambda m: m.save_checkpoint('/nonexistent/never-written', 1),
}


@pytest.mark.parametrize('call', sorted(set(CALLS) - {'get_params'}))
def test_calls_before_bind(call):
    with pytest.raises(ModuleStateError, match=r'%s: call bind\(\) first' % call):
        CALLS[call](_mlp_module())


def test_get_params_needs_parameters_not_binding(tmp_path):
    # as MXNet: a module made by Module.load has its parameters before it is bound
    with pytest.raises(ModuleStateError, match=r'get_params: call init_params\(\)'):
        _mlp_module().get_params()
    mod = _trained()
    mod.save_checkpoint(str(tmp_path / 'net'), 1)
    arg, _ = mx.mod.Module.load(str(tmp_path / 'net'), 1).get_params()
    assert sorted(arg) == sorted(mod.get_params()[0])


@pytest.mark.parametrize('call', sorted(set(CALLS) - {'update_metric', 'output_shapes'}))
def test_calls_before_init_params(call):
    with pytest.raises(ModuleStateError, match=r'%s: call init_params\(\)' % call):
        CALLS[call](_bound())


@pytest.mark.parametrize('call', ['update', 'save_optimizer_states', 'load_optimizer_states', 'save_checkpoint'])
def test_calls_before_init_optimizer(call, tmp_path):
    mod = _ready()
    mod.forward_backward(_batch())
    with pytest.raises(ModuleStateError, match=r'%s: call init_optimizer\(\) first' % call):
        if call == 'update':
            mod.update()
        elif call == 'save_checkpoint':
            mod.save_checkpoint(str(tmp_path / 'net'), 1, save_optimizer_states=True)
        else:
            getattr(mod, call)(str(tmp_path / 'x.states'))
    assert os.listdir(str(tmp_path)) == []         # nothing half-written


def test_state_errors_are_mxnet_errors():
    assert issubclass(ModuleStateError, MXNetError)


def test_update_on_a_module_bound_for_inference():
    mod = _ready(for_training=False)
    mod.init_optimizer()
    mod.forward(_batch(), is_train=False)
    with pytest.raises(ModuleStateError, match='for_training=False'):
        mod.update()
    with pytest.raises(MXNetError, match='for_training=False'):
        mod.backward()


def test_input_grads_need_inputs_need_grad():
    with pytest.raises(ModuleStateError, match='inputs_need_grad=True'):
        _ready().get_input_grads()
    with pytest.raises(MXNetError, match='inputs_need_grad=True needs for_training=True'):
        _mlp_module().bind([('data', (4, 5))], [('softmax_label', (4,))], for_training=False, inputs_need_grad=True)


def test_fit_needs_num_epoch():
    with pytest.raises(MXNetError, match='num_epoch'):
        _mlp_module().fit(_iter())


# ---------------------------------------------------------------- batches that do not fit
def test_batch_with_other_data_names():
    batch = _batch(provide_data=[mx.io.DataDesc('image', (4, gen.N_FEAT))])
    with pytest.raises(MXNetError, match=r"provides data \['image'\].*data_names are \['data'\]"):
        _ready().forward(batch)


def test_batch_with_too_many_data_arrays():
    batch = _batch()
    batch.data = batch.data * 2
    with pytest.raises(MXNetError, match=r"2 data arrays, the module expects 1 \(\['data'\]\)"):
        _ready().forward(batch)


def test_batch_with_other_feature_shape():
    # forward re-binds for new shapes; with 7 features fc1_weight would have to change
    mod = _ready(context=[mx.cpu(0), mx.cpu(1)])
    bad = mx.io.DataBatch([mx.nd.zeros((4, 7))], _batch().label)
    with pytest.raises(mx.base.ShapeError, match=r"\(4, 7\).*fc1_weight"):
        mod.forward(bad)
    # the failed re-bind changed nothing: the module still works at its shapes
    assert mod.data_shapes[0].shape == (4, gen.N_FEAT)
    assert [(s.start, s.stop) for s in mod._exec_group.slices] == [(0, 2), (2, 4)]
    mod.forward(_batch())
    assert mod.get_outputs()[0].shape == (4, 3)


def test_batch_whose_arrays_contradict_provide_data():
    batch = mx.io.DataBatch([mx.nd.zeros((4, 7))], _batch().label,
                            provide_data=[mx.io.DataDesc('data', (4, gen.N_FEAT))])
    with pytest.raises(mx.base.ShapeError, match=r"data 'data'.*\(4, 7\).*bound for \(4, 5\)"):
        _ready().forward(batch)


def test_batch_whose_label_has_the_wrong_shape():
    x, y = gen.classification_data(0)
    batch = mx.io.DataBatch([mx.nd.array(x[:4])], [mx.nd.array(y[:3])])
    with pytest.raises(mx.base.ShapeError, match=r"label 'softmax_label'.*\(3,\)"):
        _ready().forward(batch)


@pytest.mark.parametrize('is_train', [True, None])
def test_unlabelled_batch_in_training_mode(is_train):
    # MXNet would silently train on whatever labels the executor held from the last batch
    with pytest.raises(MXNetError, match=r"bound for training with labels \['softmax_label'\].*is_train=False"):
        _ready().forward(_batch(label=False), is_train=is_train)


def test_unlabelled_batch_for_inference_is_fine():
    mod = _ready()
    mod.forward(_batch(label=False), is_train=False)
    assert mod.get_outputs()[0].shape == (4, 3)



@pytest.mark.filterwarnings('ignore:the label given')
def test_labels_come_back_after_an_unlabelled_predict():
    """A deliberate departure from MXNet 1.9.1, which silently trains on stale labels here.

    An unlabelled batch of another size re-binds without labels (label_shapes None); back at
    the bound size, MXNet skips the re-bind and never loads the labels again (or, with a
    batch lacking provide_label, fails on ``zip(None, ...)``).  reflib re-binds with them.
    """
    x, y = gen.classification_data(0)
    mod = _ready()
    mod.forward(_batch(n=3))                                       # re-bind for 3
    mod.predict(mx.io.NDArrayIter(x[:8], batch_size=4))           # back to 4, without labels
    assert mod.label_shapes is None
    with pytest.raises(MXNetError, match=r"labels \['softmax_label'\].*no label"):
        mod.forward(_batch(label=False), is_train=True)
    batch = mx.io.DataBatch([mx.nd.array(x[4:8])], [mx.nd.array(y[4:8])])
    mod.forward_backward(batch)
    assert [(d.name, d.shape) for d in mod.label_shapes] == [('softmax_label', (4,))]
    ref = _ready()
    ref.forward_backward(batch)
    for got, want in zip(mod._exec_group.grad_arrays, ref._exec_group.grad_arrays):
        np.testing.assert_array_equal(got[0].asnumpy(), want[0].asnumpy())

# ---------------------------------------------------------------- names
def test_label_names_not_in_the_symbol():
    with pytest.warns(UserWarning, match="'lbl' is not an argument of the symbol"):
        mod = _mlp_module(label_names=['lbl'])
    with pytest.raises(MXNetError, match=r"labels \['lbl'\] are not arguments of the symbol"):
        mod.bind([('data', (4, 5))], [('lbl', (4,))])


def test_label_shapes_that_do_not_match_label_names_warn():
    with pytest.warns(UserWarning, match=r"label.*\['softmax_label'\]"):
        _mlp_module().bind([('data', (4, 5))], None, for_training=False)


@pytest.mark.parametrize('kwarg,name', [('data_names', 'x'), ('fixed_param_names', 'fc9_weight'),
                                        ('state_names', 'h0')])
def test_other_names_not_in_the_symbol(kwarg, name):
    with pytest.raises(MXNetError, match=r"Module\(%s=.*'%s' is not an argument" % (kwarg, name)):
        _mlp_module(**{kwarg: [name]})


def test_bind_with_data_shapes_of_other_names():
    with pytest.raises(MXNetError, match=r"\['x'\].*data_names \['data'\]"):
        _mlp_module().bind([('x', (4, 5))], [('softmax_label', (4,))])


def test_work_load_list_and_batch_size():
    with pytest.raises(MXNetError, match='work_load_list has 1 entries for 2 contexts'):
        _mlp_module(context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1])
    with pytest.raises(mx.base.ShapeError, match='batch of 2 over workloads'):
        _mlp_module(context=[mx.cpu(i) for i in range(3)]).bind([('data', (2, 5))], [('softmax_label', (2,))])


def test_init_params_with_a_missing_or_misshapen_parameter():
    arg, _ = _params()
    with pytest.raises(MXNetError, match="'fc1_bias' is missing"):
        _bound().init_params(arg_params={k: v for k, v in arg.items() if k != 'fc1_bias'})
    bad = dict(arg, fc1_bias=mx.nd.zeros((9,)))
    with pytest.raises(MXNetError, match=r"'fc1_bias' has shape \(9,\).*needs \(8,\)"):
        _bound().init_params(arg_params=bad)


# ---------------------------------------------------------------- optimizer, metric, kvstore
def test_unknown_optimizer():
    with pytest.raises(MXNetError, match="unknown optimizer 'sgdd'"):
        _ready().init_optimizer(optimizer='sgdd')
    with pytest.raises(MXNetError, match="unknown optimizer 'nope'"):
        _mlp_module().fit(_iter(), optimizer='nope', num_epoch=1)


def test_optimizer_of_the_wrong_type():
    with pytest.raises(MXNetError, match='optimizer must be a name or an Optimizer, got int'):
        _ready().init_optimizer(optimizer=3)


def test_unknown_metric():
    with pytest.raises(MXNetError, match="unknown metric 'accuracyy'"):
        _ready().score(_iter(), 'accuracyy')
    with pytest.raises(MXNetError, match="unknown metric 'nope'"):
        _mlp_module().fit(_iter(), eval_metric='nope', num_epoch=1)


def test_kvstore_misuse():
    kv = mx.kv.create('local')
    with pytest.raises(MXNetError, match="pull: key 'w' has not been initialised"):
        kv.pull('w', out=mx.nd.zeros((2,)))
    kv.init('w', mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match=r"push: key 'w' holds an array of shape \(2,\).*\(3,\)"):
        kv.push('w', mx.nd.zeros((3,)))
    with pytest.raises(MXNetError, match='kvstore must be a KVStore, a str or None'):
        _ready(context=[mx.cpu(0), mx.cpu(1)]).init_optimizer(kvstore=3)


# ---------------------------------------------------------------- checkpoints
def _checkpoint(tmp_path, epoch=1, manifest=True):
    """A trained module's checkpoint (symbol, params, states) under tmp_path/net; without
    ``manifest`` it is as MXNet writes it, with no record of which save wrote which file."""
    mod = _trained()
    prefix = str(tmp_path / 'net')
    mod.save_checkpoint(prefix, epoch, save_optimizer_states=True)
    if not manifest:
        os.unlink('%s-%04d.checkpoint' % (prefix, epoch))
    return mod, prefix


def _snapshot(tmp_path):
    return {name: (tmp_path / name).read_bytes() for name in sorted(os.listdir(str(tmp_path)))}


def test_checkpoint_round_trip(tmp_path):
    mod, prefix = _checkpoint(tmp_path)
    assert sorted(os.listdir(str(tmp_path))) == ['net-0001.checkpoint', 'net-0001.params', 'net-0001.states',
                                                 'net-symbol.json']
    sym, arg, aux = mx.model.load_checkpoint(prefix, 1)
    assert sym.list_arguments() == mod.symbol.list_arguments()
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(arg[k].asnumpy(), v.asnumpy())
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    loaded.bind([('data', (4, 5))], [('softmax_label', (4,))])
    loaded.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    assert set(loaded._updater.states) == set(mod._updater.states)


@pytest.mark.parametrize('failing_call', [1, 2, 3, 4, 5])
@pytest.mark.parametrize('error', [OSError('disk full'), KeyboardInterrupt()])
def test_save_checkpoint_leaves_one_whole_set_when_a_rename_fails(tmp_path, monkeypatch, failing_call, error):
    """The renames of a save: 1 the journal (the commit point), 2-4 the symbol, params and
    states, 5 the manifest.  Failing at 1 leaves the old set; failing later leaves the
    journal: a load reads the new set where the journal says it is and moves nothing, and
    the next writer (here ``checkpoint.recover``, which every save calls first) finishes the
    save: the new set, whole, and no stray files."""
    _, prefix = _checkpoint(tmp_path)
    before = _snapshot(tmp_path)
    mod = _trained()
    mod.forward_backward(_batch())       # a second step: other parameters and optimizer states
    mod.update()
    arg, _ = mod.get_params()
    real_replace, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == failing_call:
            raise error
        return real_replace(src, dst)

    monkeypatch.setattr(os, 'replace', replace)
    with pytest.raises((MXNetError, KeyboardInterrupt)):
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    monkeypatch.undo()
    crashed = _snapshot(tmp_path)
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)     # the committed set, read as it lies
    assert _snapshot(tmp_path) == crashed                                   # a reader moves nothing
    if failing_call > 1:
        for name, value in arg.items():
            np.testing.assert_array_equal(loaded._arg_params[name].asnumpy(), value.asnumpy())
    reflib.checkpoint.recover(prefix, 1)
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    after = _snapshot(tmp_path)
    assert sorted(after) == sorted(before), 'files left behind: %s' % (set(after) ^ set(before))
    if failing_call == 1:
        assert after == before
    else:
        assert after['net-0001.params'] != before['net-0001.params']
        assert after['net-0001.states'] != before['net-0001.states']
        for name, value in arg.items():
            np.testing.assert_array_equal(loaded._arg_params[name].asnumpy(), value.asnumpy())


def test_save_checkpoint_is_atomic_when_the_disk_fills_midway(tmp_path, monkeypatch):
    _, prefix = _checkpoint(tmp_path)
    before = _snapshot(tmp_path)
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:         # the second file of the set: the parameters
            raise OSError(28, 'No space left on device')
        return real_fsync(fd)

    monkeypatch.setattr(os, 'fsync', fsync)
    mod = _trained()
    with pytest.raises(MXNetError, match=r"cannot save .*net-0001.params.*No space left"):
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    monkeypatch.undo()
    assert _snapshot(tmp_path) == before
    mx.model.load_checkpoint(prefix, 1)


def test_a_states_file_from_another_save_is_refused(tmp_path):
    _, prefix = _checkpoint(tmp_path)
    old_states = open(prefix + '-0001.states', 'rb').read()
    mod = _trained()
    mod.forward_backward(_batch())
    mod.update()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    with open(prefix + '-0001.states', 'wb') as f:       # what a crash between two plain writes leaves
        f.write(old_states)
    with pytest.raises(MXNetError, match=r'mixed set: .*net-0001.states is not the file its save wrote'):
        mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    mx.mod.Module.load(prefix, 1)                          # the parameters alone are whole


def test_a_states_file_the_save_did_not_write_is_refused(tmp_path):
    _, prefix = _checkpoint(tmp_path)
    _trained().save_checkpoint(prefix, 1)                  # no states this time: the old file stays
    with pytest.raises(MXNetError, match=r'mixed set: .*net-0001.states was not written by the save'):
        mx.mod.Module.load(prefix, 1, load_optimizer_states=True)


def test_a_killed_save_leaves_no_temporary_file_after_the_next_save(tmp_path):
    _, prefix = _checkpoint(tmp_path)
    # what a save killed mid-write leaves: a hidden temporary file named after a dead process
    dead = subprocess.Popen([sys.executable, '-c', 'pass'])
    dead.wait()
    stray = tmp_path / ('.net-0001.params.%d-0badcafe.tmp' % dead.pid)
    stray.write_bytes(b'x' * 1000)
    _trained().save_checkpoint(prefix, 1, save_optimizer_states=True)
    assert not stray.exists()
    assert not [f for f in os.listdir(str(tmp_path)) if f.endswith('.tmp')]


def test_checkpoint_files_get_the_permissions_of_plain_files(tmp_path):
    _, prefix = _checkpoint(tmp_path)
    reference = tmp_path / 'plain'
    reference.write_bytes(b'')
    want = os.stat(str(reference)).st_mode & 0o777
    for name in ('net-symbol.json', 'net-0001.params', 'net-0001.states', 'net-0001.checkpoint'):
        assert os.stat(str(tmp_path / name)).st_mode & 0o777 == want, name


def test_saving_into_a_missing_directory_names_the_target(tmp_path):
    with pytest.raises(MXNetError, match=r"cannot save '.*nowhere/net-symbol.json': the directory .*does not exist"):
        _trained().save_checkpoint(str(tmp_path / 'nowhere' / 'net'), 1)
    assert os.listdir(str(tmp_path)) == []


def test_symbol_save_writes_through_a_symlink(tmp_path):
    real, link = tmp_path / 'real.json', tmp_path / 'link.json'
    real.write_text('{}')
    link.symlink_to(real)
    mx.sym.Variable('x').save(str(link))
    assert link.is_symlink() and mx.sym.load(str(real)).list_arguments() == ['x']


def test_save_optimizer_states_is_atomic(tmp_path, monkeypatch):
    _, prefix = _checkpoint(tmp_path)
    before = _snapshot(tmp_path)
    mod = _trained()

    def broken(*args, **kwargs):
        raise RuntimeError('pickling failed')

    monkeypatch.setattr(mod._updater, 'get_states', broken)
    with pytest.raises(RuntimeError, match='pickling failed'):
        mod.save_optimizer_states(prefix + '-0001.states')
    assert _snapshot(tmp_path) == before


def test_truncated_params_file(tmp_path):
    # as MXNet writes it (no manifest): the file itself must say what is wrong
    _, prefix = _checkpoint(tmp_path, manifest=False)
    fname = prefix + '-0001.params'
    raw = open(fname, 'rb').read()
    with open(fname, 'wb') as f:
        f.write(raw[:len(raw) // 2])
    for load in (lambda: mx.model.load_checkpoint(prefix, 1), lambda: mx.mod.Module.load(prefix, 1)):
        with pytest.raises(MXNetError, match=r"net-0001.params.*truncated"):
            load()


@pytest.mark.parametrize('content', [b'', b'hello world, this is not a parameter file', b'\x12\x01' + b'\0' * 30])
def test_foreign_params_file(tmp_path, content):
    # as MXNet writes it (no manifest): the file itself must say what is wrong
    _, prefix = _checkpoint(tmp_path, manifest=False)
    with open(prefix + '-0001.params', 'wb') as f:
        f.write(content)
    with pytest.raises(MXNetError, match='net-0001.params'):
        mx.model.load_checkpoint(prefix, 1)
    with pytest.raises(MXNetError, match='net-0001.params'):
        mx.mod.Module.load(prefix, 1)


def test_ndarray_files_that_are_not_checkpoints(tmp_path):
    # as MXNet writes it (no manifest): the file itself must say what is wrong
    _, prefix = _checkpoint(tmp_path, manifest=False)
    mx.nd.save(prefix + '-0001.params', {'fc1_weight': mx.nd.ones((2,))})
    with pytest.raises(MXNetError, match="not a checkpoint: key 'fc1_weight' has no arg:/aux: prefix"):
        mx.model.load_checkpoint(prefix, 1)
    mx.nd.save(prefix + '-0001.params', [mx.nd.ones((2,))])
    with pytest.raises(MXNetError, match='holds a list of arrays'):
        mx.mod.Module.load(prefix, 1)


def test_missing_and_foreign_symbol_files(tmp_path):
    # as MXNet writes it (no manifest): the file itself must say what is wrong
    _, prefix = _checkpoint(tmp_path, manifest=False)
    with pytest.raises(MXNetError, match=r'net-0002.params'):
        mx.model.load_checkpoint(prefix, 2)
    with pytest.raises(MXNetError, match=r'other-symbol.json'):
        mx.mod.Module.load(str(tmp_path / 'other'), 1)
    (tmp_path / 'net-symbol.json').write_text('{"not": "a symbol"}')
    with pytest.raises(MXNetError, match='not a symbol JSON'):
        mx.model.load_checkpoint(prefix, 1)


def test_bad_optimizer_state_files(tmp_path):
    # as MXNet writes it (no manifest): the file itself must say what is wrong
    _, prefix = _checkpoint(tmp_path, manifest=False)
    fname = prefix + '-0001.states'
    for content in (open(fname, 'rb').read()[:20], b'garbage'):
        with open(fname, 'wb') as f:
            f.write(content)
        mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
        mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
        with pytest.raises(MXNetError, match=r"optimizer states from '.*net-0001.states'"):
            mod.init_optimizer(optimizer='sgd', optimizer_params={'momentum': 0.9})
    os.remove(fname)
    with pytest.raises(MXNetError, match=r'no optimizer state file .*net-0001.states'):
        mx.mod.Module.load(prefix, 1, load_optimizer_states=True)


def test_checkpoint_without_a_parameter_the_symbol_needs(tmp_path):
    arg, _ = _params()
    prefix = str(tmp_path / 'net')
    mx.model.save_checkpoint(prefix, 3, gen.mlp(mx), {k: v for k, v in arg.items() if k != 'fc2_bias'}, {})
    mod = mx.mod.Module.load(prefix, 3)
    with pytest.raises(MXNetError, match=r"no value for \['fc2_bias'\]"):
        mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
    assert not mod.binded
    arg = dict(arg, fc2_bias=mx.nd.ones((7,)))
    mx.model.save_checkpoint(prefix, 4, gen.mlp(mx), arg, {})
    with pytest.raises(MXNetError, match=r"'fc2_bias' has shape \(3,\), the given value has \(7,\)"):
        mx.mod.Module.load(prefix, 4).bind([('data', (4, 5))], [('softmax_label', (4,))])


def test_compression_params_reach_the_kvstore():
    # MXNet 1.9.1 hands Module(compression_params=...) to kvstore.set_gradient_compression
    mod = mx.mod.Module(gen.mlp(mx), context=[mx.cpu(0), mx.cpu(1)],
                        compression_params={'type': '2bit', 'threshold': 0.5})
    mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(kvstore='device')
    assert mod._kvstore._compression is not None


def test_a_kvstorebase_subclass_is_accepted_and_asked_about_its_capabilities():
    class NoOptimizerStore(mx.kv.KVStore):
        def is_capable(self, capability):
            return False
    store = NoOptimizerStore('local')
    mod = mx.mod.Module(gen.mlp(mx), context=[mx.cpu(0), mx.cpu(1)])
    mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(kvstore=store)
    assert mod._kvstore is store and mod._update_on_kvstore is False


def test_the_rebind_decision_is_a_pure_function_of_shapes_and_batch():
    from reflib.module.module import _shapes_to_rebind
    from reflib.io import DataBatch, DataDesc
    data, label = [DataDesc('data', (4, 3))], [DataDesc('softmax_label', (4,))]
    same = DataBatch([mx.nd.zeros((4, 3))], [mx.nd.zeros((4,))])
    assert _shapes_to_rebind(data, label, ['softmax_label'], same) is None
    bigger = DataBatch([mx.nd.zeros((6, 3))], [mx.nd.zeros((6,))])
    new_data, new_label = _shapes_to_rebind(data, label, ['softmax_label'], bigger)
    assert [(d.name, d.shape) for d in new_data] == [('data', (6, 3))]
    assert [(d.name, d.shape) for d in new_label] == [('softmax_label', (6,))]
    # bound without labels (an unlabelled batch came before), and now labels are back
    new_data, new_label = _shapes_to_rebind(data, None, ['softmax_label'], same)
    assert [(d.name, d.shape) for d in new_label] == [('softmax_label', (4,))]


def test_the_public_views_of_a_module():
    mod = mx.mod.Module(gen.mlp(mx), context=mx.cpu())
    assert mod.exec_group is None and mod.optimizer is None
    mod.bind(data_shapes=[('data', (4, 10))], label_shapes=[('softmax_label', (4,))])
    mod.init_params()
    mod.init_optimizer(optimizer='sgd')
    assert mod.exec_group is mod._exec_group and mod.exec_group.execs[0].arg_dict['fc1_weight'] is not None
    assert isinstance(mod.optimizer, mx.optimizer.SGD)


def test_bind_refuses_an_array_where_a_shape_belongs_with_a_type_error():
    mod = mx.mod.Module(mx.sym.relu(mx.sym.var('data')), ('data',), None, context=[mx.cpu(0), mx.cpu(1)])
    with pytest.raises(TypeError, match="the entry \\('data'"):
        mod.bind(data_shapes=[('data', mx.nd.array([10, 10]))])
    assert not mod.binded
    mod.bind(data_shapes=[('data', (10, 10))])
    assert mod.binded


def _two_layer_softmax():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1')
    net = mx.sym.FullyConnected(net, weight=mx.sym.var('w2'), num_hidden=4, name='fc2', no_bias=True)
    return mx.sym.SoftmaxOutput(net, name='softmax')


def test_executor_groups_share_a_buffer_of_inputs_only():
    """MXNet 1.9.1's names (printed by its own DataParallelExecutorGroup): parameters stay out of
    shared_data_arrays; an argument that is not a parameter of this group (w2) goes in, and a
    data gradient under 'grad of data'; a group built on another uses the same dicts."""
    from reflib.module.executor_group import DataParallelExecutorGroup
    sym, ctx = _two_layer_softmax(), [mx.cpu(0), mx.cpu(1)]
    first = DataParallelExecutorGroup(sym, ctx, [1, 1], [('data', (4, 3))], [('softmax_label', (4,))],
                                      ['fc1_weight', 'fc1_bias', 'w2'], True, False)
    assert sorted(first.shared_data_arrays[0]) == ['data', 'softmax_label']
    group = DataParallelExecutorGroup(sym, ctx, [1, 1], [('data', (4, 3))], [('softmax_label', (4,))],
                                      ['fc1_weight', 'fc1_bias'], True, True)
    assert sorted(group.shared_data_arrays[1]) == ['data', 'grad of data', 'softmax_label', 'w2']
    smaller = DataParallelExecutorGroup(sym, ctx, [1, 1], [('data', (2, 3))], [('softmax_label', (2,))],
                                        ['fc1_weight', 'fc1_bias'], True, False, shared_group=group)
    assert smaller.shared_data_arrays[0] is group.shared_data_arrays[0]
    assert smaller.execs[0].arg_dict['fc1_weight'] is group.execs[0].arg_dict['fc1_weight']


def test_a_row_sparse_parameter_is_shared_between_executor_groups_its_gradient_is_not():
    from reflib.module.executor_group import DataParallelExecutorGroup
    weight = mx.sym.var('embed_weight', stype='row_sparse')
    sym = mx.sym.MakeLoss(mx.sym.sum(mx.sym.contrib.SparseEmbedding(mx.sym.var('data'), weight, input_dim=10,
                                                                     output_dim=3, name='embed')))
    groups = []
    for batch in (4, 2):
        groups.append(DataParallelExecutorGroup(
            sym, [mx.cpu(0)], [1], [('data', (batch, 2))], None, ['embed_weight'], True, False,
            shared_group=groups[0] if groups else None))
    first, second = groups[0].execs[0], groups[1].execs[0]
    assert second.arg_dict['embed_weight'] is first.arg_dict['embed_weight']
    assert second.grad_dict['embed_weight'] is not first.grad_dict['embed_weight']
    assert first.grad_dict['embed_weight'].stype == 'row_sparse'
