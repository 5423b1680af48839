"""Automatic mixed precision (AMP): float16 where it is safe, float32 where it is not.

``from mxnet.contrib import amp`` and ``from mxnet.contrib.amp import amp`` both work, as in
MXNet: the package holds the module ``amp`` and re-exports its functions.  One more than
MXNet 1.9.1 re-exports: ``convert_bucketing_module``, which MXNet has only as
``amp.amp.convert_bucketing_module`` (it is missing from its ``__all__``).
"""

from . import amp, lists, loss_scaler
from .amp import (init, init_trainer, scale_loss, unscale, convert_model, convert_hybrid_block,
                  convert_symbol, convert_bucketing_module,
                  list_lp16_ops, list_fp32_ops, list_lp16_fp32_ops, list_conditional_fp32_ops,
                  list_widest_type_cast, list_loss_output_functions, list_lp16_use_fp32_params)

__all__ = ['amp', 'lists', 'loss_scaler',
           'init', 'init_trainer', 'scale_loss', 'unscale', 'convert_model', 'convert_hybrid_block',
           'convert_symbol', 'convert_bucketing_module', 'list_lp16_ops', 'list_fp32_ops',
           'list_lp16_fp32_ops', 'list_conditional_fp32_ops', 'list_widest_type_cast',
           'list_loss_output_functions', 'list_lp16_use_fp32_params']
