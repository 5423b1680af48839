"""d2l's first chapters in its MXNet dialect (golden/d2l_np_cases.py): what a reader sees
printed, value, dtype, shape and format, equals what MXNet 1.9.1 prints (golden/d2l_np.json,
from golden/gen_d2l_np.py)."""

import json
import os
import sys

import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import d2l_np_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'd2l_np.json')) as _f:
    GOLDEN = json.load(_f)
FOUND = json.loads(json.dumps(d2l_np_cases.run(mx)))


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_prints_what_mxnet_prints(name):
    assert FOUND[name] == GOLDEN[name]


def test_the_cases_leave_numpy_semantics_off():
    assert not mx.npx.is_np_array() and not mx.npx.is_np_shape()
