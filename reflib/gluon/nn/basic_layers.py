"""Containers and the dense layer: Sequential, HybridSequential, Dense."""

import warnings

from ..block import Block, HybridBlock, _indent
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense']


class _Stack:
    """What both sequential containers share: ``add``, indexing (a slice is a new container
    over the same layers), ``len`` and the printed form."""

    def add(self, *blocks):
        """Append layers; they run in the order added."""
        for block in blocks:
            self.register_child(block)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)

    def __repr__(self):
        lines = ['  (%s): %s' % (key, _indent(repr(block), 2)) for key, block in self._children.items()]
        return '%s(\n%s\n)' % (type(self).__name__, '\n'.join(lines))


class Sequential(_Stack, Block):
    """Layers run one after the other, in Python."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider using "
                          "HybridSequential for the best performance." % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_Stack, HybridBlock):
    """Layers run one after the other; hybridized, the whole stack is one Symbol."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """A fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    ``units``: outputs; ``in_units``: inputs (0: taken from the first input, deferred
    initialisation); ``flatten``: treat all axes but the first as one (True) or apply the
    layer to the last axis only (False).  ``weight_initializer`` None means the one given
    to ``initialize``; the bias starts at zero.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype='float32',
                 weight_initializer=None, bias_initializer='zeros', in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = self.params.get('bias', shape=(units,), init=bias_initializer, dtype=dtype,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + '_') if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name='fwd')
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        rows, cols = self.weight.shape
        return '%s(%s -> %s, %s)' % (type(self).__name__, cols if cols else None, rows,
                                     self.act if self.act is not None else 'linear')


