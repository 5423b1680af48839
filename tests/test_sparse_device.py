"""Sparse storage on the test device (tests/device.py): the same training on ``CTX`` and on
the CPU gives the same weights.  Under ``strict`` the stand-in proves that the embedding's
sparse gradient, the KVStore's row_sparse sums and the lazy updates move no byte between
host and device beyond the batch; on a GPU (bench/gpu_check.py) the numbers are compared
too.  The CSR cases need cupyx's sparse matrices, which the stand-in does not have: they
run on the CPU and on a real GPU."""

import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from device import CTX, MODE

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from sparse_training_cases import embedding, linear  # noqa: E402


def _on(ctx, run):
    """``run(mx)`` with its ``mx.cpu(k)`` contexts replaced by ``ctx`` (one device)."""
    real_cpu = mx.cpu

    class OnDevice:
        def __getattr__(self, name):
            return getattr(mx, name)

        @staticmethod
        def cpu(device_id=0):
            return ctx if device_id == 0 else real_cpu(device_id)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return run(OnDevice())


@pytest.mark.parametrize('optimizer', ['sgd lazy', 'sgd dense', 'adam', 'adagrad'])
def test_sparse_embedding_training_on_the_device(optimizer):
    want = _on(mx.cpu(0), lambda m: embedding(m, '1 device', optimizer))
    got = _on(CTX, lambda m: embedding(m, '1 device', optimizer))
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize('weight_stype', ['default', 'row_sparse'])
def test_csr_linear_training_on_the_device(weight_stype):
    if MODE == 'strict':
        pytest.skip('the strict stand-in has no cupyx.scipy.sparse (this runs on a real GPU and the CPU)')
    want = _on(mx.cpu(0), lambda m: linear(m, '1 device', weight_stype))
    got = _on(CTX, lambda m: linear(m, '1 device', weight_stype))
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=name)
