"""mx.metric: every metric replayed against MXNet 1.9.1's numbers, plus the API around them.

The golden file (tests/golden/metric_init.json, written by gen_metric_init.py under the
real MXNet) holds scripted cases: a way to build a metric and a list of steps (update,
update_dict, reset_local, reset, get).  Each ``get`` recorded get(), get_global() and the
(name, value) lists; a step that raised recorded the exception's class.  The test runs
the same steps on reflib and compares.
"""

import json
import math
import os
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reflib as mx
from reflib.base import MXNetError

GOLDEN = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden',
                                     'metric_init.json')))
RTOL = 2e-6   # float32 sums may be added in another order than MXNet's


def nd(spec):
    return mx.nd.array(np.array(spec['data'], np.float32).reshape(spec['shape']))


# the same functions as in gen_metric_init.py
def mean_abs(label, pred):
    return float(np.abs(label.ravel() - pred.ravel()[:label.size]).mean())


def sum_count(label, pred):
    return float((pred.argmax(axis=1) == label.ravel()).sum()), int(label.size)


FEVALS = {'mean_abs': mean_abs, 'sum_count': sum_count,
          'lambda': lambda label, pred: float(pred.sum() - label.sum())}


def make_metric(create):
    kind = create[0]
    if kind == 'create':
        return mx.metric.create(create[1], **create[2])
    if kind == 'class':
        return getattr(mx.metric, create[1])(**create[2])
    if kind == 'custom':
        return mx.metric.create(FEVALS[create[1]], **create[2])
    if kind == 'np':
        return mx.metric.np(FEVALS[create[1]], **create[2])
    if kind == 'list':
        return mx.metric.create(create[1])
    raise ValueError(kind)


def assert_value(actual, expected, where):
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for a, e in zip(actual, expected):
            assert_value(a, e, where)
        return
    assert isinstance(actual, (float, int)), '%s: %r is not a Python number' % (where, actual)
    if math.isnan(expected):
        assert math.isnan(actual), '%s: %r, MXNet gives NaN' % (where, actual)
    else:
        assert actual == pytest.approx(expected, rel=RTOL, abs=1e-12), where


def assert_pairs(actual, expected, where):
    assert [n for n, _ in actual] == [n for n, _ in expected], where
    assert_value([v for _, v in actual], [v for _, v in expected], where)


def expect_error(mxnet_error):
    """reflib raises its own MXNetError subclasses where MXNet asserts or raises ValueError."""
    return {'ValueError': ValueError, 'AssertionError': MXNetError, 'TypeError': TypeError,
            'JSONDecodeError': ValueError}[mxnet_error]


METRIC_CASES = GOLDEN['metrics']


@pytest.mark.parametrize('case', METRIC_CASES, ids=[c['key'] for c in METRIC_CASES])
def test_metric_matches_mxnet(case):
    if 'create_error' in case:
        with pytest.raises(expect_error(case['create_error'])):
            make_metric(case['create'])
        return
    metric = make_metric(case['create'])
    assert metric.name == case['name']
    for k, (step, result) in enumerate(zip(case['steps'], case['results'])):
        where = '%s step %d %s' % (case['key'], k, step[0])

        def run():
            op = step[0]
            if op == 'update':
                metric.update([nd(a) for a in step[1]], [nd(a) for a in step[2]])
            elif op == 'update_single':
                metric.update(nd(step[1]), nd(step[2]))
            elif op == 'update_dict':
                metric.update_dict(OrderedDict((n, nd(v)) for n, v in step[1]),
                                   OrderedDict((n, nd(v)) for n, v in step[2]))
            elif op == 'reset_local':
                metric.reset_local()
            elif op == 'reset':
                metric.reset()

        if result is not None and 'error' in result:
            with pytest.raises(expect_error(result['error'])):
                run()
            continue
        if step[0] != 'get':
            run()
            continue
        name, value = metric.get()
        assert name == result['get'][0], where
        assert_value(value, result['get'][1], where + ' get')
        name, value = metric.get_global()
        assert name == result['get_global'][0], where
        assert_value(value, result['get_global'][1], where + ' get_global')
        assert_pairs(metric.get_name_value(), result['nv'], where + ' get_name_value')
        assert_pairs(metric.get_global_name_value(), result['gnv'], where + ' get_global_name_value')


def test_golden_covers_the_facts_the_book_states():
    """A few of the recorded MXNet numbers, spelled out."""
    by_key = {c['key']: c for c in METRIC_CASES}
    # RMSE averages per-batch RMSEs: batch 1 and batch 2 values, then their mean
    rmse = by_key['rmse']['results']
    mse = by_key['mse']['results']
    first, both = rmse[1]['get'][1], rmse[3]['get'][1]
    second = 2 * both - first
    assert first == pytest.approx(math.sqrt(mse[1]['get'][1]))
    assert both != pytest.approx(math.sqrt(mse[3]['get'][1]))          # not sqrt(overall MSE)
    assert second == pytest.approx(math.sqrt(2 * mse[3]['get'][1] - mse[1]['get'][1]))
    # after reset_local: local NaN, global unchanged
    acc = by_key['acc']['results']
    assert math.isnan(acc[5]['get'][1]) and acc[5]['get_global'][1] == acc[3]['get'][1]
    # F1 micro over batches 1+2 differs from the macro mean of the two per-batch F1s
    assert by_key['f1_macro']['results'][3]['get'][1] != by_key['f1_micro']['results'][3]['get'][1]


# ------------------------------------------------------------------ create
@pytest.mark.parametrize('spec, result', list(zip(GOLDEN['create']['names'], GOLDEN['create']['results'])),
                         ids=['%s-%s' % (n, sorted(k)) for n, k in GOLDEN['create']['names']])
def test_create_by_name(spec, result):
    name, kwargs = spec
    if 'error' in result:
        with pytest.raises(expect_error(result['error'])):
            mx.metric.create(name, **kwargs)
        return
    metric = mx.metric.create(name, **kwargs)
    assert type(metric).__name__ == result['class']
    assert metric.name == result['name']


FORMS = GOLDEN['create']['forms']


def describe(metric):
    out = {'class': type(metric).__name__, 'name': metric.name}
    if isinstance(metric, mx.metric.CompositeEvalMetric):
        out['children'] = [describe(c) for c in metric.metrics]
    out['config'] = metric.get_config()
    return out


@pytest.mark.parametrize('form, result', list(zip(FORMS, GOLDEN['create']['forms_results'])),
                         ids=[f[0] for f in FORMS])
def test_create_accepts_every_form_mxnet_does(form, result):
    """JSON strings (a [name, kwargs] list or a config object), config dicts, metric= keyword."""
    _, args, kwargs = form
    if 'error' in result:
        with pytest.raises(expect_error(result['error'])):
            mx.metric.create(*args, **kwargs)
        return
    assert describe(mx.metric.create(*args, **kwargs)) == result


def test_create_from_json_errors_are_clear():
    with pytest.raises(MXNetError, match='not valid JSON'):
        mx.metric.create('[acc')
    with pytest.raises(MXNetError, match=r'\["name", \{keyword arguments\}\]'):
        mx.metric.create('["acc"]')
    with pytest.raises(MXNetError, match="needs the key 'metric'"):
        mx.metric.create('{"name": "x"}')
    with pytest.raises(MXNetError, match='extra arguments'):
        mx.metric.create('["acc", {}]', axis=0)


def test_get_config_and_str():
    configs = GOLDEN['create']['configs']
    made = {'acc': mx.metric.Accuracy(axis=0, name='a', output_names=['x']),
            'topk': mx.metric.TopKAccuracy(top_k=3), 'ce': mx.metric.CrossEntropy(eps=0.1),
            'perp': mx.metric.Perplexity(ignore_label=-1), 'f1': mx.metric.F1(average='micro'),
            'rmse': mx.metric.RMSE(label_names=['l'])}
    for key, metric in made.items():
        assert metric.get_config() == configs[key], key
    rebuilt = mx.metric.create(made['acc'].get_config())
    assert isinstance(rebuilt, mx.metric.Accuracy) and rebuilt.axis == 0 and rebuilt.output_names == ['x']

    inputs = GOLDEN['inputs']
    acc = mx.metric.Accuracy()
    acc.update([nd(inputs['l1'])], [nd(inputs['p1'])])
    assert str(acc) == GOLDEN['create']['str']['acc']
    assert str(mx.metric.MSE()) == GOLDEN['create']['str']['empty_mse']
    with pytest.raises(NotImplementedError):
        mx.metric.create(mean_abs).get_config()


def test_unknown_metric_names_the_culprit_and_the_choices():
    with pytest.raises(MXNetError) as err:
        mx.metric.create('accurasy')
    msg = str(err.value)
    assert "'accurasy'" in msg and 'acc' in msg and 'rmse' in msg and 'top_k_accuracy' in msg
    with pytest.raises(MXNetError, match='expected a metric name'):
        mx.metric.create(3.5)


def test_create_passes_metrics_through_and_builds_composites():
    acc = mx.metric.Accuracy()
    assert mx.metric.create(acc) is acc
    with pytest.raises(MXNetError, match='already a metric'):
        mx.metric.create(acc, axis=0)
    comp = mx.metric.create([acc, 'ce', mean_abs])
    assert isinstance(comp, mx.metric.CompositeEvalMetric)
    assert [type(m).__name__ for m in comp.metrics] == ['Accuracy', 'CrossEntropy', 'CustomMetric']
    assert comp.get_metric(0) is acc
    with pytest.raises(MXNetError, match='no index 7'):
        comp.get_metric(7)
    assert isinstance(mx.metric.create(mx.metric.MAE), mx.metric.MAE)   # a class is instantiated


def test_update_dict_missing_name_is_clear():
    metric = mx.metric.Accuracy(output_names=['softmax_output'], label_names=['softmax_label'])
    with pytest.raises(MXNetError) as err:
        metric.update_dict({'softmax_label': mx.nd.zeros((2,))}, {'fc_output': mx.nd.zeros((2, 3))})
    assert "'softmax_output'" in str(err.value) and 'fc_output' in str(err.value)


def test_user_subclass_without_global_stats_falls_back_to_local():
    """A user's EvalMetric subclass that only updates sum_metric/num_inst (MXNet's fallback)."""
    class Half(mx.metric.EvalMetric):
        def __init__(self):
            super().__init__('half')

        def update(self, labels, preds):
            self.sum_metric += 0.5 * len(labels)
            self.num_inst += len(labels)

    m = Half()
    m.update([1, 2], [3, 4])
    assert m.get() == ('half', 0.5) and m.get_global() == ('half', 0.5)
    m.reset_local()
    assert math.isnan(m.get_global()[1])
    m.update([1], [2])
    assert m.get_global_name_value() == m.get_name_value() == [('half', 0.5)]


def test_register_makes_a_metric_creatable_by_name():
    @mx.metric.register
    @mx.metric.alias('always_one')
    class AlwaysOne(mx.metric.EvalMetric):
        def __init__(self, name='one'):
            super().__init__(name, has_global_stats=True)

        def update(self, labels, preds):
            self._add(len(preds), len(preds))

    assert isinstance(mx.metric.create('ALWAYS_ONE'), AlwaysOne)
    assert isinstance(mx.metric.create('alwaysone'), AlwaysOne)
    with pytest.raises(MXNetError, match='not a subclass'):
        mx.metric.register(int)


def test_values_are_python_floats():
    """So that printed (name, value) lists read as in MXNet (no np.float64(...) wrappers)."""
    m = mx.metric.create(['acc', 'mse', 'ce'])
    m.update([mx.nd.array([0, 1])], [mx.nd.array([[0.8, 0.2], [0.3, 0.7]])])
    for _, value in m.get_name_value():
        assert type(value) is float
    assert repr(m.get_name_value()[0]) == "('accuracy', 1.0)"


def test_custom_metric_names():
    assert mx.metric.CustomMetric(lambda l, p: 0.0).name == 'custom(<lambda>)'
    assert mx.metric.CustomMetric(mean_abs).name == 'mean_abs'
    assert mx.metric.np(mean_abs, name='x').name == 'x'


def test_topk_needs_k_above_one_and_enough_classes():
    with pytest.raises(MXNetError, match='top_k > 1'):
        mx.metric.TopKAccuracy(top_k=1)
    m = mx.metric.TopKAccuracy(top_k=4)
    with pytest.raises(ValueError, match='only 3 classes'):
        m.update([mx.nd.array([0, 1])], [mx.nd.ones((2, 3))])


def test_metrics_accept_arrays_from_module_outputs():
    """Module.update_metric passes per-device OrderedDicts of label and output NDArrays."""
    comp = mx.metric.create(['acc', 'ce'])
    labels = OrderedDict([('softmax_label', mx.nd.array([1, 0, 1]))])
    preds = OrderedDict([('softmax_output', mx.nd.array([[0.1, 0.9], [0.6, 0.4], [0.8, 0.2]]))])
    comp.update_dict(labels, preds)
    names, values = comp.get()
    assert names == ['accuracy', 'cross-entropy']
    assert values[0] == pytest.approx(2 / 3)
    assert values[1] == pytest.approx(-(np.log(0.9) + np.log(0.6) + np.log(0.2)) / 3, rel=1e-6)


# ------------------------------------------------------------------ properties
batches = st.lists(st.tuples(st.integers(1, 6), st.integers(0, 2 ** 31 - 1)), min_size=1, max_size=4)


@settings(max_examples=30)
@given(batches)
def test_accuracy_and_ce_are_sample_averages(spec):
    acc, ce, rmse = mx.metric.Accuracy(), mx.metric.CrossEntropy(), mx.metric.RMSE()
    correct, total, nll, rmses = 0, 0, 0.0, []
    for n, seed in spec:
        rng = np.random.RandomState(seed)
        p = rng.dirichlet(np.ones(3), size=n).astype(np.float32)
        y = rng.randint(0, 3, n).astype(np.float32)
        for m in (acc, ce):
            m.update([mx.nd.array(y)], [mx.nd.array(p)])
        r = rng.randn(n).astype(np.float32)
        rmse.update([mx.nd.array(y)], [mx.nd.array(r)])
        correct += int((p.argmax(1) == y).sum())
        total += n
        nll += float(-np.log(p[np.arange(n), y.astype(int)] + 1e-12).sum())
        rmses.append(float(np.sqrt(((y - r) ** 2).mean())))
    assert acc.get()[1] == pytest.approx(correct / total)
    assert acc.get_global()[1] == pytest.approx(correct / total)
    assert ce.get()[1] == pytest.approx(nll / total, rel=1e-5)
    assert rmse.get()[1] == pytest.approx(np.mean(rmses), rel=1e-5)


def test_metrics_read_gpu_arrays():
    pytest.importorskip('cupy')
    if mx.num_gpus() == 0:
        pytest.skip('no CUDA device')
    ctx = mx.gpu(0)
    for name in ('acc', 'ce', 'perplexity', 'rmse', 'f1', 'loss'):
        kwargs = {'ignore_label': None} if name == 'perplexity' else {}
        cpu_m, gpu_m = mx.metric.create(name, **kwargs), mx.metric.create(name, **kwargs)
        label = mx.nd.array([0, 1, 1])
        pred = mx.nd.array([[0.7, 0.3], [0.4, 0.6], [0.2, 0.8]])
        cpu_m.update([label], [pred])
        gpu_m.update([label.as_in_context(ctx)], [pred.as_in_context(ctx)])
        assert gpu_m.get() == cpu_m.get()


# ---------------------------------------------------------------- a loss that goes non-finite
def test_fit_says_which_batch_first_made_the_loss_non_finite(caplog):
    import logging
    rng = np.random.RandomState(0)
    x = rng.standard_normal((64, 5)).astype(np.float32)
    y = rng.randint(0, 3, 64).astype(np.float32)
    x[40, 2] = np.nan                                  # in the third batch of 16
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(net, name='softmax'), context=mx.cpu())
    with caplog.at_level(logging.WARNING, logger='reflib.metric'):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=16), num_epoch=2, eval_metric='ce',
                optimizer_params={'learning_rate': 0.1})
    said = [r.getMessage() for r in caplog.records if r.name == 'reflib.metric']
    assert said[0].startswith("metric 'cross-entropy' became nan at batch 3 since its last reset")
    assert len(said) == 2                              # once an epoch, not once a batch


def test_a_finite_metric_says_nothing(caplog):
    import logging
    metric = mx.metric.create('mse')
    with caplog.at_level(logging.WARNING, logger='reflib.metric'):
        metric.update_dict({'l': mx.nd.ones((2,))}, {'p': mx.nd.zeros((2,))})
    assert not caplog.records
