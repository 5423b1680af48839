"""Activation layers: each one operator call (``Activation``, ``LeakyReLU``, ``sigmoid``)
with its settings; PReLU also owns the learned slope.

The layers that MXNet 1.9.1 gives no printed form of their own (PReLU, ELU, SELU, GELU,
Swish) print as an empty Block, ``PReLU(\\n\\n)``, as MXNet's do."""

from ... import initializer
from ..block import HybridBlock
from ..parameter import GluonAssertionError

__all__ = ['Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'Swish', 'GELU']


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


class LeakyReLU(HybridBlock):
    """``x`` where positive, ``alpha * x`` elsewhere; ``alpha`` is fixed (see PReLU for a
    learned one) and may not be negative."""

    def __init__(self, alpha, **kwargs):
        if not alpha >= 0:
            raise GluonAssertionError('LeakyReLU: the slope alpha must be >= 0, got %r' % (alpha,))
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='leaky', slope=self._alpha, name='fwd')

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._alpha)


class PReLU(HybridBlock):
    """A leaky ReLU whose negative-side slope ``alpha`` is a parameter.

    ``in_channels``: 1 (one slope for everything) or the size of the input's axis 1 (one
    slope per channel).  The shape is fixed at construction: MXNet does not defer it.
    ``alpha_initializer``: 0.25 everywhere by default."""

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get('alpha', shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type='prelu', name='fwd')


class ELU(HybridBlock):
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        # no name='fwd': MXNet names this node by its counter (``elu0_leakyrelu0``)
        return F.LeakyReLU(x, act_type='elu', slope=self._alpha)


class SELU(HybridBlock):
    """Scaled exponential linear unit, with the fixed constants of self-normalising networks."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='selu', name='fwd')


class GELU(HybridBlock):
    """Gaussian error linear unit, ``x * Phi(x)`` (the exact erf form)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='gelu', name='fwd')


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)``: three operator calls (scale, sigmoid, product), as in MXNet's
    graph."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name='fwd')
