"""FeedForward.fit's training loop, on a Module (a BucketingModule for a symbol function).

The loop is MXNet 1.9.1's ``_train_multi_device``: per batch forward, backward, update,
then the metric and ``batch_end_callback``; ``epoch_size`` batches make an epoch when
given (the iterator is reset only when it runs dry, so an epoch may go on where the last
one stopped); at each epoch end the parameters are copied into ``model.arg_params`` /
``aux_params`` (in place, when there is an ``epoch_end_callback`` or it is the last
epoch), ``epoch_end_callback(epoch, symbol, arg_params, aux_params)`` runs, and
``eval_data`` is scored with the training metric object (reset first).  The optimizer is
Module's, created as FeedForward creates it: from the name and the model's extra keyword
arguments, ``rescale_grad = 1/batch_size`` (times the workers of a synchronous
distributed store), or the given Optimizer object unchanged.
"""

import time
import warnings

from .callback import BatchEndParam
from .module import BucketingModule, Module


def _module(model, data, work_load_list, logger):
    """A Module bound for the training iterator's shapes, holding the model's parameters."""
    data_names = [d[0] for d in data.provide_data]
    label_names = [d[0] for d in data.provide_label]
    if model.sym_gen is None:
        mod = Module(model.symbol, data_names=data_names, label_names=label_names, logger=logger,
                     context=model.ctx, work_load_list=work_load_list)
    else:
        def sym_gen(key):
            return model.sym_gen(key), data_names, label_names
        mod = BucketingModule(sym_gen, default_bucket_key=data.default_bucket_key, logger=logger,
                              context=model.ctx, work_load_list=work_load_list)
    mod.bind(data_shapes=data.provide_data, label_shapes=data.provide_label or None, for_training=True)
    mod.init_params(initializer=None, arg_params=model.arg_params, aux_params=model.aux_params,
                    allow_missing=False, force_init=True)
    return mod


def _init_optimizer(mod, model, kvstore):
    if isinstance(model.optimizer, str):
        mod.init_optimizer(kvstore=kvstore, optimizer=model.optimizer, optimizer_params=model.kwargs)
        return
    with warnings.catch_warnings():
        # Module warns about an Optimizer's rescale_grad; FeedForward takes it as it is
        warnings.filterwarnings('ignore', message='Optimizer created manually outside Module')
        mod.init_optimizer(kvstore=kvstore, optimizer=model.optimizer)


def _copy_params_out(mod, model):
    """The trained values into the model's own arrays, in place, in their dtypes."""
    arg_params, aux_params = mod.get_params()
    for source, target in ((arg_params, model.arg_params), (aux_params, model.aux_params)):
        for name, arr in target.items():
            source[name].astype(arr.dtype).copyto(arr)


def _one_epoch(mod, data, epoch, eval_metric, epoch_size, monitor, batch_end_callback, logger):
    """Batches until the iterator runs dry, or until ``epoch_size`` of them (resetting as needed)."""
    nbatch = 0
    while True:
        do_reset = True
        for batch in data:
            if monitor is not None:
                monitor.tic()
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
            if monitor is not None:
                monitor.toc_print()
            mod.update_metric(eval_metric, batch.label)
            nbatch += 1
            _call_each(batch_end_callback, BatchEndParam(epoch=epoch, nbatch=nbatch,
                                                         eval_metric=eval_metric, locals=locals()))
            if epoch_size is not None and nbatch >= epoch_size:
                do_reset = False
                break
        if do_reset:
            logger.info('Epoch[%d] Resetting Data Iterator', epoch)
            data.reset()
        if epoch_size is None or nbatch >= epoch_size:
            return


def _evaluate(mod, eval_data, epoch, eval_metric, eval_batch_end_callback, eval_end_callback):
    eval_metric.reset()
    eval_data.reset()
    total = 0
    for i, batch in enumerate(eval_data):
        mod.forward(batch, is_train=False)
        mod.update_metric(eval_metric, batch.label)
        _call_each(eval_batch_end_callback, BatchEndParam(epoch=epoch, nbatch=i, eval_metric=eval_metric,
                                                          locals=locals()))
        total += 1
    _call_each(eval_end_callback, BatchEndParam(epoch=epoch, nbatch=total, eval_metric=eval_metric,
                                                locals=locals()))
    eval_data.reset()


def train(model, data, eval_data, eval_metric, kvstore, logger, work_load_list, monitor,
          epoch_end_callback, batch_end_callback, eval_end_callback, eval_batch_end_callback):
    """Train ``model`` (a FeedForward whose parameters are initialized) from begin_epoch to num_epoch."""
    logger.info('Start training with %s', str(model.ctx))
    if work_load_list is not None and (not isinstance(work_load_list, list)
                                       or len(work_load_list) != len(model.ctx)):
        raise ValueError('FeedForward.fit: work_load_list must be a list of one number per context '
                         '(%d), got %r' % (len(model.ctx), work_load_list))
    if monitor is not None and model.sym_gen is not None:
        raise NotImplementedError('FeedForward.fit: a monitor cannot watch a bucketing model')
    mod = _module(model, data, work_load_list, logger)
    if monitor is not None:
        mod.install_monitor(monitor)
    _init_optimizer(mod, model, kvstore)
    data.reset()
    for epoch in range(model.begin_epoch, model.num_epoch):
        tic = time.time()
        eval_metric.reset()
        _one_epoch(mod, data, epoch, eval_metric, model.epoch_size, monitor, batch_end_callback, logger)
        logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
        if epoch_end_callback or epoch + 1 == model.num_epoch:
            _copy_params_out(mod, model)
        _call_each(epoch_end_callback, epoch, model.symbol, model.arg_params, model.aux_params)
        if eval_data is not None:
            _evaluate(mod, eval_data, epoch, eval_metric, eval_batch_end_callback, eval_end_callback)


def _call_each(callbacks, *args):
    """A callback may be None, one callable or a list of them."""
    if isinstance(callbacks, list):
        for callback in callbacks:
            callback(*args)
    elif callbacks:
        callbacks(*args)
