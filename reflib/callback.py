"""Callbacks for ``Module.fit`` and ``Module.score``.

``fit`` calls two kinds of callbacks (see reflib/module/base_module.py):

* **batch-end** callbacks, after each batch's update and metric update, with one
  argument, a ``BatchEndParam(epoch, nbatch, eval_metric, locals)`` (``nbatch``
  counts from 0 within the epoch): :class:`Speedometer`, :class:`ProgressBar`,
  :func:`log_train_metric`; ``score`` calls them too (``eval_batch_end_callback``),
  and its ``score_end_callback`` gets the same tuple once at the end
  (:class:`LogValidationMetricsCallback`);
* **epoch-end** callbacks, with ``(epoch, symbol, arg_params, aux_params)``:
  :func:`do_checkpoint`, :func:`module_checkpoint`.  Both save under the number
  ``epoch + 1``, the number of epochs completed, so training for 2 epochs writes
  ``prefix-0001.params`` and ``prefix-0002.params``.  In a distributed job only
  worker 0 writes (every worker would write the same file); pass
  ``all_workers=True`` to have every worker write its own copy.

Everything is logged through the root ``logging`` logger at INFO level, with
MXNet's message formats; in a job with several workers each line starts with
``Node[rank]`` and a space, as in MXNet's distributed examples.
"""

import logging
import sys
import time
import warnings
from collections import namedtuple

from .checkpoint import save_checkpoint
from .kvstore.dist import node_prefix, worker_rank

__all__ = ['module_checkpoint', 'do_checkpoint', 'log_train_metric', 'Speedometer', 'ProgressBar',
           'LogValidationMetricsCallback', 'BatchEndParam']

# what a batch-end callback gets (MXNet keeps it in mx.model, which re-exports this one)
BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False, all_workers=False):
    """Epoch-end callback: ``mod.save_checkpoint(prefix, epoch + 1, ...)`` every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0 and (all_workers or worker_rank()[0] == 0):
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1, all_workers=False):
    """Epoch-end callback writing ``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch + 1).

    For example ``mod.fit(train_iter, num_epoch=2, epoch_end_callback=do_checkpoint('net'))``
    writes ``net-symbol.json``, ``net-0001.params`` and ``net-0002.params``.  In a
    distributed job only worker 0 writes, unless ``all_workers`` (then give each
    worker its own ``prefix``).
    """
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0 and (all_workers or worker_rank()[0] == 0):
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging ``Iter[epoch] Batch[n] Train-name=value`` every ``period`` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info('Iter[%d] Batch[%d] Train-%s=%f', param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging throughput and the metric every ``frequent`` batches.

    A line reads ``Epoch[0] Batch [20-40]\\tSpeed: 1234.56 samples/sec\\taccuracy=0.812500``.
    The speed is ``frequent * batch_size`` samples over the wall time since the previous
    line (or since the first batch of the epoch).  With ``auto_reset`` (the default) the
    metric's local sums are cleared after each line, so the value covers the batches of
    that line's range; the global value that ``fit`` logs at the end of the epoch is
    unaffected.  Without it the range reads ``[0-n]`` and the value is cumulative.
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:     # nbatch went back: a new epoch started
            self.init = False
        self.last_count = count

        if not self.init:               # the first batch only starts the clock
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float('inf')
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            values = [x for pair in name_value for x in pair]
            if self.auto_reset:
                param.eval_metric.reset_local()
                msg = (node_prefix() + 'Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec'
                       + '\t%s=%f' * len(name_value))
                logging.info(msg, param.epoch, count - self.frequent, count, speed, *values)
            else:
                msg = (node_prefix() + 'Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec'
                       + '\t%s=%f' * len(name_value))
                logging.info(msg, param.epoch, count, speed, *values)
        else:
            logging.info(node_prefix() + 'Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec',
                         param.epoch, count, speed)
        self.tic = time.time()


def _tqdm_class():
    """tqdm.auto's class: a widget in a notebook with ipywidgets, text elsewhere.

    Imported here, not at module level, so that reflib works without tqdm and so that
    tqdm's "ipywidgets not found" warning does not land in the output of ``import reflib``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        from tqdm.auto import tqdm
    return tqdm


class ProgressBar:
    """Batch-end callback drawing one progress bar per epoch (``total`` batches, ``length`` chars wide).

    MXNet logs ``[=====-----] 50%`` lines; reflib draws the same bar with tqdm
    (``tqdm.auto``: a widget in a notebook when ipywidgets is installed, a text bar on
    stderr otherwise)::

        Epoch[0] [========================================----------] 80% 4/5

    The bar is redrawn after every batch and shows no elapsed time, rate or ETA, so
    its text is the same on every run.  Extra keyword arguments go to tqdm
    (``file=sys.stdout``, ``disable=True``, ...).  A bar closes when it reaches
    ``total`` or when the next epoch begins.
    """

    def __init__(self, total, length=80, **tqdm_kwargs):
        self.total = total
        self.bar_len = length
        self._tqdm_kwargs = tqdm_kwargs
        self._bar = None
        self._epoch = None
        self._last = -1

    def _open(self, epoch):
        tqdm = _tqdm_class()
        widget = tqdm.__module__.startswith('tqdm.notebook')
        kwargs = dict(total=self.total, desc='Epoch[%d]' % epoch, leave=True,
                      # every update is drawn (no time-based throttling): deterministic text
                      mininterval=0, miniters=1, ascii='-=', file=sys.stderr,
                      bar_format=('{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}' if widget else
                                  '{desc} [{bar:%d}] {percentage:3.0f}%% {n_fmt}/{total_fmt}' % self.bar_len))
        kwargs.update(self._tqdm_kwargs)
        self._bar = tqdm(**kwargs)
        self._epoch = epoch

    def close(self):
        """Close the current bar (done automatically at ``total`` and at the next epoch)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __call__(self, param):
        if self._bar is None or param.epoch != self._epoch or param.nbatch <= self._last:
            self.close()
            self._open(param.epoch)
        self._last = param.nbatch
        done = param.nbatch + 1
        self._bar.update(done - self._bar.n)
        if done >= self.total:
            self.close()


class LogValidationMetricsCallback:
    """Score-end callback logging ``Epoch[epoch] Validation-name=value`` for each metric."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info('Epoch[%d] Validation-%s=%f', param.epoch, name, value)
