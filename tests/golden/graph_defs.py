"""The golden graphs, written once and built twice.

Every function here takes the framework module as ``mx`` and returns a Symbol.
``gen_graphs.py`` calls them with real MXNet 1.9.1 (the oracle) to record the
golden values; ``tests/test_golden_graphs.py`` calls them with ``reflib`` and
compares.  Keeping a single definition means the two sides cannot drift apart.

Automatic names (``activation0``, ``_plus0``, ...) come from a per-process
counter, so each builder runs inside a fresh ``mx.name.NameManager()`` scope:
the names then do not depend on what was built earlier in the process.

This module must not import MXNet or reflib itself.
"""

import contextlib

import numpy as np

# Shapes used by the golden runs.
MLP_BATCH = 4
MLP_FEATURES = 20
MLP_CLASSES = 10
MLP_DATA_SHAPE = (MLP_BATCH, MLP_FEATURES)

FC6_DATA_SHAPE = (1, 4)

CONV_DATA_SHAPE = (2, 3, 8, 8)
CONV_CLASSES = 5


def fresh_names(mx):
    """A fresh naming scope (``mx.name.NameManager()``) when the module has one."""
    name_mod = getattr(mx, 'name', None)
    manager = getattr(name_mod, 'NameManager', None)
    if manager is None:
        return contextlib.nullcontext()
    return manager()


def mlp(mx):
    """(a) the seed MLP: 20 -> fc1(128) -> relu -> fc2(64) -> relu -> fc3(10) -> softmax."""
    with fresh_names(mx):
        data = mx.sym.Variable('data')
        fc1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=128)
        act1 = mx.sym.Activation(fc1, name='relu1', act_type='relu')
        fc2 = mx.sym.FullyConnected(act1, name='fc2', num_hidden=64)
        act2 = mx.sym.Activation(fc2, name='relu2', act_type='relu')
        fc3 = mx.sym.FullyConnected(act2, name='fc3', num_hidden=MLP_CLASSES)
        return mx.sym.SoftmaxOutput(fc3, name='softmax')


def fc6(mx):
    """(b) the executor docstring example: fc(6) -> relu -> softmax on a ones input."""
    with fresh_names(mx):
        net = mx.sym.Variable('data')
        net = mx.sym.FullyConnected(net, name='fc', num_hidden=6)
        net = mx.sym.Activation(net, name='relu', act_type='relu')
        return mx.sym.SoftmaxOutput(net, name='softmax')


def two_a_plus_b(mx):
    """(c) c = 2 * a + b, a non-loss head (unnamed ops: _mulscalar0, _plus0)."""
    with fresh_names(mx):
        a = mx.sym.Variable('a')
        b = mx.sym.Variable('b')
        return 2 * a + b


def x_plus_one(mx):
    """(d) y = x + 1, used for the bind-by-reference example (_plusscalar0)."""
    with fresh_names(mx):
        x = mx.sym.Variable('x')
        return x + 1


def convnet(mx):
    """(e) conv(3x3, 4, pad 1) -> BatchNorm -> relu -> maxpool 2x2 -> flatten -> fc(5) -> softmax."""
    with fresh_names(mx):
        data = mx.sym.Variable('data')
        net = mx.sym.Convolution(data, name='conv1', kernel=(3, 3), num_filter=4, pad=(1, 1))
        net = mx.sym.BatchNorm(net, name='bn1', fix_gamma=False)
        net = mx.sym.Activation(net, act_type='relu')
        net = mx.sym.Pooling(net, name='pool1', pool_type='max', kernel=(2, 2), stride=(2, 2))
        net = mx.sym.Flatten(net)
        net = mx.sym.FullyConnected(net, name='fc', num_hidden=CONV_CLASSES)
        return mx.sym.SoftmaxOutput(net, name='softmax')


# ---------------------------------------------------------------- (f) inference
def typed_sum(mx):
    """a + b with nothing declared; types come from infer_type's arguments."""
    with fresh_names(mx):
        a = mx.sym.Variable('a')
        b = mx.sym.Variable('b')
        return a + b


def typed_variable(mx):
    """A variable that declares its own dtype and shape, then an op on it."""
    with fresh_names(mx):
        v = mx.sym.Variable('v', shape=(2, 3), dtype='float16')
        return v * 2


def two_fc(mx):
    """data -> fc1(10) -> fc2(3): used for float64 type inference and missing shapes."""
    with fresh_names(mx):
        data = mx.sym.Variable('data')
        fc1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=10)
        return mx.sym.FullyConnected(fc1, name='fc2', num_hidden=3)


def partial_group(mx):
    """Group of two heads; 'other' has no shape unless one is given."""
    with fresh_names(mx):
        data = mx.sym.Variable('data')
        other = mx.sym.Variable('other')
        head1 = mx.sym.FullyConnected(data, name='fc_a', num_hidden=5)
        head2 = mx.sym.FullyConnected(other, name='fc_b', num_hidden=2)
        return mx.sym.Group([head1, head2])


def scaled_fc(mx):
    """fc1(data) * scale: scale's shape can only come from backward propagation."""
    with fresh_names(mx):
        data = mx.sym.Variable('data')
        scale = mx.sym.Variable('scale')
        fc1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=6)
        return mx.sym.elemwise_mul(fc1, scale, name='scaled')


# ---------------------------------------------------------------- fixed values
def mlp_values():
    """Parameters and two batches for the MLP (float32, seeded)."""
    rng = np.random.RandomState(1234)
    f32 = np.float32
    params = {
        'fc1_weight': (rng.randn(128, MLP_FEATURES) * 0.3).astype(f32),
        'fc1_bias': (rng.randn(128) * 0.1).astype(f32),
        'fc2_weight': (rng.randn(64, 128) * 0.15).astype(f32),
        'fc2_bias': (rng.randn(64) * 0.1).astype(f32),
        'fc3_weight': (rng.randn(MLP_CLASSES, 64) * 0.2).astype(f32),
        'fc3_bias': (rng.randn(MLP_CLASSES) * 0.1).astype(f32),
    }
    batches = []
    for _ in range(2):
        data = rng.randn(*MLP_DATA_SHAPE).astype(f32)
        label = rng.randint(0, MLP_CLASSES, size=(MLP_BATCH,)).astype(f32)
        batches.append((data, label))
    return params, batches


def convnet_values():
    """Parameters, initial aux states, data and label for the conv net."""
    rng = np.random.RandomState(4321)
    f32 = np.float32
    params = {
        'conv1_weight': (rng.randn(4, 3, 3, 3) * 0.3).astype(f32),
        'conv1_bias': (rng.randn(4) * 0.1).astype(f32),
        'bn1_gamma': rng.uniform(0.5, 1.5, size=(4,)).astype(f32),
        'bn1_beta': (rng.randn(4) * 0.1).astype(f32),
        'fc_weight': (rng.randn(CONV_CLASSES, 64) * 0.2).astype(f32),
        'fc_bias': (rng.randn(CONV_CLASSES) * 0.1).astype(f32),
    }
    aux = {
        'bn1_moving_mean': (rng.randn(4) * 0.2).astype(f32),
        'bn1_moving_var': rng.uniform(0.5, 1.5, size=(4,)).astype(f32),
    }
    data = rng.randn(*CONV_DATA_SHAPE).astype(f32)
    label = np.array([1, 3], dtype=f32)
    return params, aux, data, label
