"""mx.callback: log lines identical to MXNet 1.9.1's (under a fake clock), checkpoints, progress bars."""

import json
import logging
import os
from collections import namedtuple

import numpy as np
import pytest

import reflib as mx
import reflib.callback
from reflib.model import BatchEndParam

GOLDEN = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden',
                                     'metric_init.json')))
CB = GOLDEN['callbacks']


def nd(spec):
    return mx.nd.array(np.array(spec['data'], np.float32).reshape(spec['shape']))


BATCHES = [(nd(GOLDEN['inputs']['l%d' % i]), nd(GOLDEN['inputs']['p%d' % i])) for i in (1, 2, 3)]


class Clock:
    """time.time() stand-in: every call advances 0.25 s (as in gen_metric_init.py)."""

    def __init__(self):
        self.t = 100.0

    def time(self):
        self.t += 0.25
        return self.t


def run_batches(callback, metric, schedule, caplog):
    """One BatchEndParam per (epoch, nbatch), the metric updated with the next batch first."""
    caplog.clear()
    with caplog.at_level(logging.INFO):
        for k, (epoch, nbatch) in enumerate(schedule):
            if metric is not None:
                label, pred = BATCHES[k % 3]
                metric.update([label], [pred])
            callback(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric, locals=None))
    return [r.getMessage() for r in caplog.records if r.name == 'root']


@pytest.mark.parametrize('key, kwargs, metric', [
    ('speedometer_reset', {'batch_size': 4, 'frequent': 2}, 'acc'),
    ('speedometer_noreset', {'batch_size': 8, 'frequent': 3, 'auto_reset': False}, 'acc'),
    ('speedometer_composite', {'batch_size': 2, 'frequent': 2}, ['acc', 'ce']),
    ('speedometer_nometric', {'batch_size': 5, 'frequent': 2}, None)])
def test_speedometer_lines_match_mxnet(key, kwargs, metric, caplog, monkeypatch):
    monkeypatch.setattr(reflib.callback, 'time', Clock())
    callback = mx.callback.Speedometer(**kwargs)
    lines = run_batches(callback, mx.metric.create(metric) if metric else None,
                        [tuple(s) for s in CB['schedule']], caplog)
    assert lines == CB[key]


def test_speedometer_format_spelled_out():
    assert CB['speedometer_reset'][0] == 'Epoch[0] Batch [0-2]\tSpeed: 32.00 samples/sec\taccuracy=0.400000'
    assert CB['speedometer_noreset'][1].startswith('Epoch[0] Batch [0-6]\tSpeed: 96.00 samples/sec')


def test_log_train_metric_and_validation_lines_match_mxnet(caplog):
    schedule = [tuple(s) for s in CB['schedule']][:7]
    assert run_batches(mx.callback.log_train_metric(3), mx.metric.create('acc'), schedule,
                       caplog) == CB['log_train_metric']
    assert run_batches(mx.callback.log_train_metric(2, auto_reset=True), mx.metric.create(['acc', 'ce']),
                       schedule, caplog) == CB['log_train_metric_reset']
    assert run_batches(mx.callback.LogValidationMetricsCallback(), mx.metric.create('acc'),
                       [(3, 0), (3, 1)], caplog) == CB['log_validation']


def small_net():
    data = mx.sym.Variable('data')
    fc = mx.sym.FullyConnected(data, num_hidden=2, name='fc1')
    bn = mx.sym.BatchNorm(fc, name='bn1')
    return mx.sym.SoftmaxOutput(bn, name='softmax')


def test_do_checkpoint_writes_epoch_plus_one(tmp_path):
    net = small_net()
    arg = {'fc1_weight': mx.nd.array([[1, 2, 3], [4, 5, 6]]), 'fc1_bias': mx.nd.array([0.5, -0.5]),
           'bn1_gamma': mx.nd.ones((2,)), 'bn1_beta': mx.nd.zeros((2,))}
    aux = {'bn1_moving_mean': mx.nd.array([0.1, 0.2]), 'bn1_moving_var': mx.nd.array([1.5, 2.5])}
    prefix = str(tmp_path / 'net')
    every_other = mx.callback.do_checkpoint(prefix, period=2)
    every_other(0, net, arg, aux)
    assert not os.path.exists(prefix + '-0001.params')
    every_other(1, net, arg, aux)
    assert os.path.exists(prefix + '-0002.params')

    mx.callback.do_checkpoint(prefix)(0, net, arg, aux)
    sym, arg2, aux2 = mx.model.load_checkpoint(prefix, 1)
    assert sym.tojson() == net.tojson()
    assert sorted(arg2) == sorted(arg) and sorted(aux2) == sorted(aux)
    for d, d2 in ((arg, arg2), (aux, aux2)):
        for k in d:
            np.testing.assert_array_equal(d2[k].asnumpy(), d[k].asnumpy())


def test_do_checkpoint_period_below_one_means_every_epoch(tmp_path):
    prefix = str(tmp_path / 'p')
    mx.callback.do_checkpoint(prefix, period=0)(0, small_net(), {}, {})
    assert os.path.exists(prefix + '-0001.params') and os.path.exists(prefix + '-symbol.json')


def test_module_checkpoint_calls_save_checkpoint():
    calls = []
    FakeModule = namedtuple('FakeModule', 'save_checkpoint')
    callback = mx.callback.module_checkpoint(FakeModule(lambda *a: calls.append(a)), 'pre', period=3,
                                             save_optimizer_states=True)
    for epoch in range(7):
        callback(epoch)
    assert calls == [('pre', 3, True), ('pre', 6, True)]


def test_progress_bar_text_is_deterministic(capsys):
    def run():
        bar = mx.callback.ProgressBar(total=4, length=8)
        for epoch in range(2):
            for nbatch in range(4):
                bar(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=None, locals=None))
        return capsys.readouterr().err

    first, second = run(), run()
    assert first == second
    final_lines = [chunk.split('\r')[-1] for chunk in first.split('\n') if chunk]
    assert final_lines == ['Epoch[0] [========] 100% 4/4', 'Epoch[1] [========] 100% 4/4']
    assert 'Epoch[0] [====----]  50% 2/4' in first
    assert 'it/s' not in first and '<' not in first       # no rate, no elapsed/remaining


def test_progress_bar_restarts_on_a_new_epoch_and_takes_tqdm_options(capsys):
    bar = mx.callback.ProgressBar(total=10, length=10)
    for nbatch in range(3):
        bar(BatchEndParam(epoch=0, nbatch=nbatch, eval_metric=None, locals=None))
    bar(BatchEndParam(epoch=1, nbatch=0, eval_metric=None, locals=None))
    bar.close()
    err = capsys.readouterr().err
    assert 'Epoch[0] [===-------]  30% 3/10' in err and 'Epoch[1] [=---------]  10% 1/10' in err
    quiet = mx.callback.ProgressBar(total=2, disable=True)
    quiet(BatchEndParam(epoch=0, nbatch=0, eval_metric=None, locals=None))
    assert capsys.readouterr().err == ''


def test_fit_drives_callbacks_and_metrics(tmp_path, caplog):
    """End to end: Module.fit with Speedometer, do_checkpoint and a composite metric."""
    from reflib.module import Module
    rng = np.random.RandomState(0)
    x = rng.randn(24, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    train = mx.io.NDArrayIter(x, y, batch_size=6)
    mod = Module(small_net())
    prefix = str(tmp_path / 'fit')
    with caplog.at_level(logging.INFO):
        mod.fit(train, num_epoch=2, eval_metric=['acc', 'ce'], initializer=mx.init.Xavier(),
                batch_end_callback=mx.callback.Speedometer(6, 2),
                epoch_end_callback=mx.callback.do_checkpoint(prefix),
                optimizer_params={'learning_rate': 0.1})
    speed_lines = [m for m in caplog.messages if 'samples/sec' in m]
    assert len(speed_lines) == 2 and speed_lines[0].startswith('Epoch[0] Batch [0-2]\tSpeed: ')
    assert 'accuracy=' in speed_lines[0] and 'cross-entropy=' in speed_lines[0]
    assert any(m.startswith('Epoch[1] Train-cross-entropy=') for m in caplog.messages)
    for epoch in (1, 2):
        assert os.path.exists('%s-%04d.params' % (prefix, epoch))
    _, arg, aux = mx.model.load_checkpoint(prefix, 2)
    assert set(aux) == {'bn1_moving_mean', 'bn1_moving_var'}
    score = mod.score(train, mx.metric.create('acc'))
    assert score[0][0] == 'accuracy' and 0.0 <= score[0][1] <= 1.0
