"""AMP's operator lists, one module per target dtype (float16 only: numpy has no bfloat16)."""

from . import symbol_fp16

__all__ = ['symbol_fp16']
