"""Activation layers: each one operator call (``Activation``, ``LeakyReLU``) with its
parameters."""

from ..block import HybridBlock

__all__ = ['Activation']


class Activation(HybridBlock):
    """``activation``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign' (the Activation
    operator's act_type)."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name='fwd')

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._act_type)
