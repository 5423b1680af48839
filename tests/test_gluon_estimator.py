"""gluon.contrib.estimator (reflib/gluon/contrib/estimator/): training programs against MXNet
1.9.1 (golden/estimator.json, from golden/gen_estimator.py over golden/estimator_cases.py),
the loop against one written by hand, and the handlers' rules and errors."""

import json
import logging
import os
import re
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.gluon.contrib import estimator as est_pkg
from reflib.gluon.contrib.estimator import event_handler as ev

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import estimator_cases as cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'estimator.json')) as _f:
    GOLDEN = json.load(_f)



@pytest.fixture(autouse=True)
def _logging_on():
    """These tests read the estimator's log: whatever another test file in this worker
    did with ``logging.disable``, log while they run."""
    was = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    yield
    logging.disable(was)


_NUMBER = re.compile(r'-?\d+\.\d+|-?inf')
# MXNet 1.9.1's verbose CheckpointHandler lines print the new best twice (it updates the best
# before printing "from ... to ...") and the batch count where the epoch belongs; reflib's
# print the previous best and the epoch (checked in test_checkpoint_log_says_what_improved)
_MXNET_MISPRINTS = ('improved from', 'did not improve')


def _close_lines(got, want):
    """Log lines equal as text, their numbers (printed to 4 or 5 places) equal to the last
    printed digit: the values are float32 sums in a different order."""
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        if any(m in w for m in _MXNET_MISPRINTS):
            continue
        assert _NUMBER.sub('#', g) == _NUMBER.sub('#', w), (g, w)
        np.testing.assert_allclose([float(n) for n in _NUMBER.findall(g)], [float(n) for n in _NUMBER.findall(w)],
                                   atol=1.5e-4, err_msg=g)


def _close(got, want, path=''):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for key in want:
            _close(got[key], want[key], '%s/%s' % (path, key))
    elif path.endswith('/log'):
        _close_lines(got, want)
    elif isinstance(want, list) and all(isinstance(w, str) for w in want):      # file names
        assert got == want, path
    elif isinstance(want, list) and len(want) == 2 and isinstance(want[0], str):      # [name, value]
        assert got[0] == want[0], path
        np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5, err_msg=path)
    elif isinstance(want, list) and want and isinstance(want[0], list) and want[0] and isinstance(want[0][0], str):
        for i, (g, w) in enumerate(zip(got, want)):                          # [name, value] pairs
            _close(g, w, '%s[%d]' % (path, i))
        assert len(got) == len(want), path
    else:
        np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float),
                                   rtol=1e-4, atol=3e-5, err_msg=path)


@pytest.mark.parametrize('case', cases.CASES, ids=lambda c: c.__name__)
def test_training_as_mxnet_trains(case):
    _close(json.loads(json.dumps(case(mx))), GOLDEN[case.__name__], case.__name__)


def test_checkpoint_log_says_what_improved():
    log = cases.fit_by_batches_with_checkpoints(mx)['log']
    said = [line for line in log if 'improve' in line]
    assert said == [
        '[Epoch 0] CheckpointHandler: training accuracy improved from -inf to 0.37500, updating best model at DIR '
        'with prefix: lin-best',
        '[Epoch 0] CheckpointHandler: training accuracy improved from 0.37500 to 0.42500, updating best model at '
        'DIR with prefix: lin-best',
        '[Epoch 1] CheckpointHandler: training accuracy improved from 0.42500 to 0.87500, updating best model at '
        'DIR with prefix: lin-best',
        '[Epoch 1] CheckpointHandler: training accuracy did not improve from 0.87500, skipping updating best model']


def _setup(hybridize=False):
    net = cases._net(mx, hybridize)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    return net, trainer


def test_the_estimator_is_the_loop_written_by_hand():
    """Same net, data and trainer: Estimator.fit and the four lines of a Gluon script give
    the same bits."""
    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer, context=mx.cpu())
    est.logger.handlers = []
    est.fit(cases._loader(mx, 0), epochs=2)

    net2, trainer2 = _setup()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(2):
        for x, y in cases._loader(mx, 0):
            with mx.autograd.record():
                loss = loss_fn(net2(x), y)
            loss.backward()
            trainer2.step(x.shape[0])
    for a, b in zip(net.collect_params().values(), net2.collect_params().values()):
        assert np.array_equal(a.data().asnumpy(), b.data().asnumpy())


def test_default_metrics_and_their_names():
    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    assert [m.name for m in est.train_metrics] == ['training accuracy', 'training softmaxcrossentropyloss']
    assert [m.name for m in est.val_metrics] == ['validation accuracy', 'validation softmaxcrossentropyloss']
    assert isinstance(est.train_metrics[0], mx.metric.Accuracy)
    assert est.val_metrics[0] is not est.train_metrics[0]
    est2 = est_pkg.Estimator(net, mx.gluon.loss.L2Loss(), trainer=trainer)
    assert [type(m) for m in est2.train_metrics] == [mx.metric.Loss]


def test_handlers_run_in_priority_order():
    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    est.max_epoch, est.max_batch = 1, None
    early = ev.EarlyStoppingHandler(monitor=est.val_metrics[0], mode='max')
    handlers = est._prepare_default_handlers(cases._loader(mx, 1), [early])
    assert [type(h).__name__ for h in handlers] == [
        'GradientUpdateHandler', 'MetricHandler', 'ValidationHandler', 'EarlyStoppingHandler', 'StoppingHandler',
        'LoggingHandler']


def test_a_batch_end_returning_true_ends_the_epoch():
    class StopAfterTwo(ev.BatchEnd, ev.EpochEnd):
        def __init__(self):
            self.batches, self.epochs = 0, 0

        def batch_end(self, estimator, *args, **kwargs):
            self.batches += 1
            return self.batches % 2 == 0

        def epoch_end(self, estimator, *args, **kwargs):
            self.epochs += 1

    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    est.logger.handlers = []
    counter = StopAfterTwo()
    est.fit(cases._loader(mx, 0), epochs=3, event_handlers=[counter])
    assert (counter.batches, counter.epochs) == (6, 3)          # two of five batches per epoch


def test_a_batch_processor_replaces_what_one_batch_does():
    class Doubled(est_pkg.BatchProcessor):
        def fit_batch(self, estimator, train_batch, batch_axis=0):
            return super().fit_batch(estimator, (train_batch[0] * 2, train_batch[1]), batch_axis)

    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                            batch_processor=Doubled())
    est.logger.handlers = []
    est.fit(cases._loader(mx, 0), batches=1)
    net2, trainer2 = _setup()
    x, y = next(iter(cases._loader(mx, 0)))
    with mx.autograd.record():
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(net2(x * 2), y)
    loss.backward()
    trainer2.step(x.shape[0])
    for a, b in zip(net.collect_params().values(), net2.collect_params().values()):
        assert np.array_equal(a.data().asnumpy(), b.data().asnumpy())
    with pytest.raises(ValueError, match='evaluate_batch'):
        est_pkg.Estimator(net, mx.gluon.loss.L2Loss(), trainer=trainer, batch_processor=object())


def test_checkpoints_remove_only_their_own_files(tmp_path):
    keep = tmp_path / 'lin-epoch0batch2.params.bak'          # shares a checkpoint's prefix
    keep.write_bytes(b'a user file')
    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    est.logger.handlers = []
    est.fit(cases._loader(mx, 0), batches=10,
            event_handlers=[ev.CheckpointHandler(str(tmp_path), 'lin', epoch_period=None, batch_period=3,
                                                 max_checkpoints=1)])
    assert sorted(os.listdir(tmp_path)) == ['lin-epoch0batch2.params.bak', 'lin-epoch1batch8.params',
                                            'lin-epoch1batch8.states']
    assert keep.read_bytes() == b'a user file'


def test_resume_reads_what_it_wrote_and_refuses_a_strange_name(tmp_path):
    net, trainer = _setup()
    est = est_pkg.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer)
    est.logger.handlers = []
    est.fit(cases._loader(mx, 0), epochs=1, event_handlers=[ev.CheckpointHandler(str(tmp_path), 'lin')])
    (tmp_path / 'lin-epochXbatch1.params').write_bytes(b'')
    resume = ev.CheckpointHandler(str(tmp_path), 'lin', resume_from_checkpoint=True)
    with pytest.raises(mx.base.MXNetError, match=r"lin-epochXbatch1.params"):
        est.fit(cases._loader(mx, 0), epochs=3, event_handlers=[resume])
    os.remove(tmp_path / 'lin-epochXbatch1.params')
    with pytest.raises(ValueError, match='already has all 1 epochs'):
        est.fit(cases._loader(mx, 0), epochs=1, event_handlers=[resume])
    by_batches = ev.CheckpointHandler(str(tmp_path), 'lin', resume_from_checkpoint=True)
    with pytest.raises(ValueError, match='batch_period'):
        est.fit(cases._loader(mx, 0), batches=3, event_handlers=[by_batches])


def test_bad_arguments_name_the_culprit():
    net, trainer = _setup()
    loss = mx.gluon.loss.L2Loss()
    with pytest.raises(ValueError, match='loss must be a gluon.loss.Loss'):
        est_pkg.Estimator(net, 'l2', trainer=trainer)
    with pytest.raises(ValueError, match='trainer must be a gluon.Trainer'):
        est_pkg.Estimator(net, loss, trainer='sgd')
    with pytest.raises(ValueError, match='context must be a Context'):
        est_pkg.Estimator(net, loss, trainer=trainer, context='cpu')
    with pytest.raises(AssertionError, match=r'gpu\(5\) is not available'):
        est_pkg.Estimator(net, loss, trainer=trainer, context=mx.gpu(5))
    assert est_pkg.Estimator(net, loss, trainer=trainer, context=mx.cpu_pinned(0)).context == [mx.cpu_pinned(0)]
    with pytest.raises(ValueError, match='metrics must be an EvalMetric'):
        est_pkg.Estimator(net, loss, trainer=trainer, train_metrics=['acc'])
    est = est_pkg.Estimator(net, loss, trainer=trainer)
    with pytest.raises(ValueError, match='exactly one of epochs and batches'):
        est.fit(cases._loader(mx, 0), epochs=1, batches=2)
    with pytest.raises(ValueError, match='train_data must be a gluon.data.DataLoader, got NDArray'):
        est.fit(mx.nd.ones((4, 5)), epochs=1)
    with pytest.raises(ValueError, match="LoggingHandler reads the metric .* none of the estimator's metrics"):
        est.fit(cases._loader(mx, 0), epochs=1, event_handlers=[ev.LoggingHandler(metrics=[mx.metric.RMSE()])])
    with pytest.raises(ValueError, match="log_interval must be a whole number or 'epoch'"):
        ev.LoggingHandler(log_interval='batch')
    with pytest.raises(ValueError, match='save_best needs a monitor'):
        ev.CheckpointHandler('unused', save_best=True)
    with pytest.raises(ValueError, match='not a CompositeEvalMetric'):
        ev.EarlyStoppingHandler(monitor=mx.metric.CompositeEvalMetric())


def test_auto_mode_is_mxnets_greater_and_says_so():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        stop = ev.EarlyStoppingHandler(monitor=mx.metric.Loss('training loss'))
    assert stop.monitor_op is np.greater
    assert any("mode='min'" in str(w.message) for w in caught)
