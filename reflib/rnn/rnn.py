"""Checkpoints of networks built from RNN cells: the weights are saved unpacked, one array per
gate (``lstm_i2h_i_weight``, ...), and packed again on load, as MXNet does."""

from ..checkpoint import load_checkpoint, save_checkpoint
from .rnn_cell import BaseRNNCell

__all__ = ['save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']


def _as_cells(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """save_checkpoint, with the cells' weights unpacked per gate first."""
    for cell in _as_cells(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """load_checkpoint, with the cells' per-gate weights packed again: ``(symbol, args, auxs)``."""
    symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _as_cells(cells):
        arg_params = cell.pack_weights(arg_params)
    return symbol, arg_params, aux_params


def do_rnn_checkpoint(cells, prefix, period=1):
    """An ``epoch_end_callback`` for ``fit``: save_rnn_checkpoint every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
