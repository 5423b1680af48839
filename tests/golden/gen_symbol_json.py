"""Writes symbol_features-symbol.json: MXNet 1.9.1's JSON for the graph ``build`` makes.

tests/test_symbol.py builds the same graph with reflib and compares the parsed JSON.
Run with MXNet installed:  python tests/golden/gen_symbol_json.py
The graph exercises what the JSON records: Variable attributes (shape, lr_mult, dtype),
an AttrScope ctx_group, an op without bias, every arithmetic overload (names and scalar
strings), a loss head with a parameter, BatchNorm's aux states (input version fields) and
a Group with a variable head.
"""

import os


def build(mx):
    with mx.name.NameManager():
        x = mx.sym.Variable('x', shape=(2, 3), lr_mult=0.5)
        y = mx.sym.Variable('y', dtype='float64')
        with mx.AttrScope(ctx_group='g1'):
            fc1 = mx.sym.FullyConnected(x, num_hidden=4, name='fc1', no_bias=True)
        a = mx.sym.Activation(fc1, act_type='tanh', name='a')
        bn = mx.sym.BatchNorm(a, name='bn', fix_gamma=False)
        s = (bn * 2 + 1) / (a - 0.5) ** 2
        s2 = 3 - s
        s3 = 1 / s2 + (-a) + y + 2 ** a
        net = mx.sym.SoftmaxOutput(s3, name='sm', grad_scale=2)
        return mx.sym.Group([net, fc1, s, y])


if __name__ == '__main__':
    import mxnet
    here = os.path.dirname(os.path.abspath(__file__))
    build(mxnet).save(os.path.join(here, 'symbol_features-symbol.json'))
