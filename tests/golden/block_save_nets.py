"""The networks of gen_block_save.py and tests/test_block_save.py, for either library."""
import numpy as np

NETS = ('custom', 'sequential')


def batch():
    return np.random.RandomState(0).uniform(-1, 1, (3, 10)).astype(np.float32)


def build(mx, kind):
    """A fresh network of ``kind`` (global name counters move on with every call)."""
    if kind == 'custom':
        class KeyedBlock(mx.gluon.nn.Block):
            def add(self, block):
                self._children[block.name + str(len(self._children))] = block

            def forward(self, x):
                for block in self._children.values():
                    x = block(x)
                return x
        inside = KeyedBlock()
        inside.add(mx.gluon.nn.Dense(10))
        net = KeyedBlock()
        net.add(inside)
        net.add(mx.gluon.nn.Dense(4))
        return net
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, activation='tanh'), mx.gluon.nn.Dense(4))
    return net


def fill(mx, net):
    """Every parameter, by its path in the network, from a seeded RandomState."""
    rng = np.random.RandomState(1)
    for _, param in sorted(net._collect_params_with_prefix().items()):
        param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))
