"""mx.operator.get_operator_arguments and get_all_registered_operators against MXNet 1.9.1
(golden/operator_arguments.json, from golden/gen_operator_arguments.py)."""

import json
import os

import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, 'golden', 'operator_arguments.json')) as _f:
    GOLDEN = json.load(_f)

# Where reflib's registry cannot say what MXNet's C++ one says: the C++ integer types of some
# parameters ("int (non-negative)", "long"), a double printed to 17 digits, and an input
# that exists only for some parameter values.  Each known difference, by (operator, argument).
KNOWN = {('Convolution', 'num_filter'), ('Convolution', 'num_group'), ('Convolution', 'workspace'),
         ('BatchNorm', 'eps'), ('LeakyReLU', None)}


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_arguments_as_mxnet_lists_them(name):
    got, want = mx.operator.get_operator_arguments(name), GOLDEN[name]
    assert isinstance(got, mx.operator.OperatorArguments)
    if (name, None) in KNOWN:
        assert got.names == [n for n in want['names'] if n != 'gamma']
        return
    assert got.narg == want['narg'] and got.names == want['names']
    for arg, mine, theirs in zip(got.names, got.types, want['types']):
        if (name, arg) not in KNOWN:
            assert mine == theirs, arg


def test_every_operator_is_registered_with_its_aliases():
    names = mx.operator.get_all_registered_operators()
    assert {'Activation', 'relu', '_Plus', 'elemwise_add', 'stop_gradient'} <= set(names)
