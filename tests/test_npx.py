"""mx.npx's operators (reflib/numpy_extension) and mx.np's elementwise functions against MXNet
1.9.1 (golden/npx.json, from golden/gen_npx.py over golden/npx_cases.py): kinds, shapes,
dtypes and values of every result, and a gradient through them."""

import json
import os
import sys

import numpy as onp
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import npx_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'npx.json')) as _f:
    GOLDEN = json.load(_f)
FOUND = json.loads(json.dumps(npx_cases.run(mx)))


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_results_as_mxnet_gives_them(name):
    assert len(FOUND[name]) == len(GOLDEN[name])
    for got, want in zip(FOUND[name], GOLDEN[name]):
        assert (got['np'], got['shape'], got['dtype']) == (want['np'], want['shape'], want['dtype'])
        assert got['np']                       # every result is an mx.np.ndarray
        onp.testing.assert_allclose(got['values'], want['values'], rtol=1e-4, atol=2e-5, err_msg=name)


def test_every_npx_operator_is_a_registry_operator_with_its_name_and_doc():
    for name, op_name in mx.npx.OPERATORS.items():
        function = getattr(mx.npx, name)
        assert function.__name__ == name and op_name in function.__doc__
        assert mx.operator.get(op_name).name   # raises for an unknown operator
