"""Checkpoint files, named as MXNet names them.

A checkpoint of ``prefix`` at epoch 3 is

* ``prefix-symbol.json``   the graph (MXNet's JSON schema),
* ``prefix-0003.params``   ``arg:NAME`` and ``aux:NAME`` arrays (MXNet's binary format),
* ``prefix-0003.states``   optimizer state, when asked for (Module.save_checkpoint).

The files are saved as one set (see reflib/checkpoint.py): a crash at any moment
leaves the previous checkpoint or the new one, whole, and loading refuses a set whose
files come from different saves.

``mx.model.FeedForward``, MXNet's legacy training API, lives in reflib/feedforward.py and is
exported here, as MXNet has it.
"""

import logging
import os
from collections import namedtuple

from .base import MXNetError
from . import checkpoint
from . import ndarray as nd
from . import symbol as sym
from .context import cpu

__all__ = ['BatchEndParam', 'save_checkpoint', 'load_checkpoint', 'load_params', 'split_params', 'FeedForward']

BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def params_bytes(arg_params, aux_params):
    """The ``.params`` file's bytes: ``arg:NAME`` and ``aux:NAME`` arrays, on the cpu."""
    save_dict = {('arg:%s' % k): v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({('aux:%s' % k): v.as_in_context(cpu()) for k, v in aux_params.items()})
    return nd.serialize.save_to_bytes(save_dict)


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True, states=None):
    """Write ``prefix-symbol.json`` (if symbol is given), ``prefix-%04d.params`` and, given
    ``states`` (the optimizer's state bytes), ``prefix-%04d.states``, as one set."""
    contents = {}
    if symbol is not None:
        contents['%s-symbol.json' % prefix] = symbol.tojson().encode('utf-8')
    param_name = '%s-%04d.params' % (prefix, epoch)
    contents[param_name] = params_bytes(arg_params, aux_params)
    if states is not None:
        contents['%s-%04d.states' % (prefix, epoch)] = states
    checkpoint.save_files(prefix, epoch, contents)
    logging.info('Saved checkpoint to "%s"', param_name)


def _params_file(prefix, epoch, caller):
    fname = '%s-%04d.params' % (prefix, epoch)
    if not checkpoint.exists(prefix, epoch, fname):
        raise MXNetError('%s: no parameter file %s (prefix %r, epoch %d)' % (caller, fname, prefix, epoch))
    return fname


def load_params(prefix, epoch):
    """(arg_params, aux_params) from ``prefix-%04d.params``."""
    fname = _params_file(prefix, epoch, 'load_params')
    source = checkpoint.files_to_read(prefix, epoch, [fname])[fname]
    return split_params(nd.load(source), fname)


def split_params(loaded, fname):
    """``{'arg:w': a, 'aux:m': b}`` -> ``({'w': a}, {'m': b})``; anything else is not a checkpoint."""
    if not isinstance(loaded, dict):
        raise MXNetError('%s holds a list of arrays, a checkpoint holds a dict' % fname)
    arg_params, aux_params = {}, {}
    for key, value in loaded.items():
        kind, _, name = key.partition(':')
        if kind == 'arg':
            arg_params[name] = value
        elif kind == 'aux':
            aux_params[name] = value
        else:
            raise MXNetError('%s is not a checkpoint: key %r has no arg:/aux: prefix' % (fname, key))
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) saved by save_checkpoint / Module.save_checkpoint."""
    fname = '%s-symbol.json' % prefix
    if not checkpoint.exists(prefix, epoch, fname):
        raise MXNetError('load_checkpoint: no symbol file %s' % fname)
    params = _params_file(prefix, epoch, 'load_params')
    sources = checkpoint.files_to_read(prefix, epoch, [params], shared=[fname])
    arg_params, aux_params = split_params(nd.load(sources[params]), params)
    return sym.load(sources[fname]), arg_params, aux_params


# last: feedforward.py uses the helpers above (mx.model.FeedForward, MXNet's legacy training API)
from .feedforward import FeedForward  # noqa: E402
