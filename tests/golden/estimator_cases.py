"""gluon.contrib.estimator: the same training programs under MXNet 1.9.1 (gen_estimator.py
records estimator.json) and under reflib (test_gluon_estimator.py).

Each case returns what a user sees: the parameters after training, the metrics' names and
values, the log lines (with their times masked), the checkpoint files left on disk and the
handlers' counters.  The nets start from fixed weights, so no random generator is involved.
"""

import io
import logging
import os
import re
import tempfile
import warnings

import numpy as np

FEATURES, CLASSES, SAMPLES = 5, 3, 40


def _data(seed, n=SAMPLES):
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, FEATURES)).astype(np.float32)
    y = (np.argmax(x[:, :CLASSES], axis=1)).astype(np.float32)
    return x, y


def _loader(mx, seed, batch_size=8, n=SAMPLES):
    x, y = _data(seed, n)
    return mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), batch_size, shuffle=False)


def _net(mx, hybridize=False, prefix='net_'):
    net = mx.gluon.nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, activation='tanh'), mx.gluon.nn.Dense(CLASSES))
    net.initialize(mx.init.Zero())
    net(mx.nd.zeros((1, FEATURES)))
    rs = np.random.RandomState(7)
    for name in sorted(net.collect_params()):
        param = net.collect_params()[name]
        param.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, size=param.shape).astype(np.float32)))
    if hybridize:
        net.hybridize()
    return net


def _params(net):
    return {name[len(net.prefix):]: p.data().asnumpy().round(6).tolist()
            for name, p in sorted(net.collect_params().items())}


def _metrics(metrics):
    return [[name, round(float(value), 6)] for name, value in (m.get() for m in metrics)]


def _capture(est):
    """Send the estimator's log to a buffer (and not to stdout)."""
    stream = io.StringIO()
    est.logger.handlers = [logging.StreamHandler(stream)]
    return stream


def _lines(stream, root=None):
    text = stream.getvalue() if root is None else stream.getvalue().replace(root, 'DIR')
    text = re.sub(r'\d+\.\d+s', 'Ts', text)
    return re.sub(r'total \d+s', 'total Ts', text).splitlines()


def _estimator(mx, net, **kwargs):
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return mx.gluon.contrib.estimator.Estimator(net, trainer=trainer, context=mx.cpu(), **kwargs)


def fit_with_validation(mx):
    """Default metrics (accuracy and the loss), validation after every epoch, a log line
    every second batch."""
    ev = mx.gluon.contrib.estimator.event_handler
    net = _net(mx)
    est = _estimator(mx, net, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss())
    stream = _capture(est)
    est.fit(_loader(mx, 0), val_data=_loader(mx, 1), epochs=3,
            event_handlers=[ev.LoggingHandler(log_interval=2, metrics=est.train_metrics)])
    return {'params': _params(net), 'train': _metrics(est.train_metrics), 'val': _metrics(est.val_metrics),
            'log': _lines(stream)}


def fit_by_batches_with_checkpoints(mx):
    """7 batches (the second epoch stops early), checkpoints every 3rd batch and every
    epoch, at most 2 kept, the best training accuracy saved too; a hybridized net, so the
    symbol file is written."""
    ev = mx.gluon.contrib.estimator.event_handler
    net = _net(mx, hybridize=True)
    est = _estimator(mx, net, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss())
    stream = _capture(est)
    with tempfile.TemporaryDirectory() as root:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            checkpoint = ev.CheckpointHandler(root, 'lin', monitor=est.train_metrics[0], save_best=True,
                                              mode='max', batch_period=3, max_checkpoints=2, verbose=1)
        est.fit(_loader(mx, 0), batches=7, event_handlers=[checkpoint])
        files = sorted(os.listdir(root))
        saved = mx.nd.load(os.path.join(root, 'lin-best.params'))
        best = {k: v.asnumpy().round(6).tolist() for k, v in sorted(saved.items())}
        log = _lines(stream, root)
    return {'params': _params(net), 'files': files, 'best': best, 'log': log,
            'counters': [checkpoint.current_epoch, checkpoint.current_batch, float(checkpoint.best)]}


def early_stopping(mx):
    """Stop when the validation loss has not fallen for two epochs (at most 30)."""
    ev = mx.gluon.contrib.estimator.event_handler
    net = _net(mx)
    est = _estimator(mx, net, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss())
    stream = _capture(est)
    stop = ev.EarlyStoppingHandler(monitor=est.val_metrics[1], patience=2, mode='min', min_delta=0.001)
    est.fit(_loader(mx, 0), val_data=_loader(mx, 1, n=16), epochs=30, event_handlers=[stop])
    return {'params': _params(net), 'stopped': [stop.stopped_epoch, stop.current_epoch, round(float(stop.best), 6)],
            'log': _lines(stream)[-2:]}


def resume(mx):
    """Two epochs with checkpoints, then a fresh net resumes from them for four epochs in all."""
    ev = mx.gluon.contrib.estimator.event_handler
    found = {}
    with tempfile.TemporaryDirectory() as root:
        net = _net(mx)
        est = _estimator(mx, net, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss())
        _capture(est)
        est.fit(_loader(mx, 0), epochs=2, event_handlers=[ev.CheckpointHandler(root, 'run', max_checkpoints=1)])
        found['first'] = sorted(os.listdir(root))
        net2 = _net(mx)
        est2 = _estimator(mx, net2, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss())
        stream = _capture(est2)
        est2.fit(_loader(mx, 0), epochs=4,
                 event_handlers=[ev.CheckpointHandler(root, 'run', max_checkpoints=1, resume_from_checkpoint=True)])
        found.update(files=sorted(os.listdir(root)), epochs_left=est2.max_epoch, params=_params(net2),
                     log=_lines(stream)[:3])
    return found


def two_devices_and_l2(mx):
    """An L2 loss with RMSE as the metric, each batch split over two CPU contexts; then
    ``evaluate`` alone."""
    net = _net(mx, prefix='reg_')
    net.collect_params().reset_ctx([mx.cpu(0), mx.cpu(1)])
    x, _ = _data(3)
    y = x[:, :CLASSES] * 2 - 1
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), 10, shuffle=False)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05})
    est = mx.gluon.contrib.estimator.Estimator(net, mx.gluon.loss.L2Loss(), train_metrics=mx.metric.RMSE(),
                                               trainer=trainer, context=[mx.cpu(0), mx.cpu(1)])
    stream = _capture(est)
    est.fit(loader, epochs=2)
    est.evaluate(loader)
    return {'params': _params(net), 'train': _metrics(est.train_metrics), 'val': _metrics(est.val_metrics),
            'log': _lines(stream)}


CASES = [fit_with_validation, fit_by_batches_with_checkpoints, early_stopping, resume, two_devices_and_l2]


def run(mx):
    return {case.__name__: case(mx) for case in CASES}
