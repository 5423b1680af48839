"""Which device the tests run on: ``REFLIB_TEST_DEVICE=cpu`` (default), ``strict`` or ``gpu``.

* ``cpu``: numpy, as always.
* ``strict``: ``gpu(0)`` arrays come from the strict cupy stand-in (tests/strict_cupy.py),
  which refuses every implicit device-to-host copy and every name real cupy lacks.  CI runs
  the operator, executor, module, kvstore and optimizer tests a second time this way.
* ``gpu``: ``gpu(0)`` on real cupy and a real device (bench/gpu_check.py sets it).

Under ``strict`` and ``gpu`` the conftest makes ``gpu(0)`` the default context (as MXNet's own
GPU test files do with ``set_default_context``), and ``get(name)`` below hands the operator
tests a ``DeviceOperator``: the same operator, whose ``forward``/``backward`` take the tests'
numpy arrays, copy them to the device, run the operator there with **no** transfer allowed
while it runs, and bring the results back (aux states and in-place inputs copied back into
the caller's arrays, as the operator wrote them).  So every operator test, unchanged, also
proves that the operator computes on the device without touching the host.
"""

import contextlib
import os

import numpy as np

MODE = os.environ.get('REFLIB_TEST_DEVICE', 'cpu')
if MODE not in ('cpu', 'strict', 'gpu'):
    raise ValueError('REFLIB_TEST_DEVICE must be cpu, strict or gpu, got %r' % MODE)
ON_DEVICE = MODE != 'cpu'

if MODE == 'strict':
    import strict_cupy
    strict_cupy.install()

import reflib as mx                      # noqa: E402  (after the stand-in is in sys.modules)
from reflib.operator import OpEnv, get as _get_operator   # noqa: E402

CTX = mx.gpu(0) if ON_DEVICE else mx.cpu(0)


def xp():
    return CTX.xp


def to_device(x):
    """A host (numpy) array copied to the test device; None and device arrays pass."""
    if x is None or not ON_DEVICE or not isinstance(x, np.ndarray):
        return x
    with CTX.device_scope():
        return CTX.xp.asarray(x)


def to_host(x):
    """A device array copied back to numpy (host arrays and None pass)."""
    if x is None or isinstance(x, (np.ndarray, np.generic)):
        return x
    return CTX.xp.asnumpy(x)


def transfer_counts():
    """(device-to-host, host-to-device) copies so far, under ``strict``; None elsewhere."""
    if MODE != 'strict':
        return None
    import strict_cupy
    return strict_cupy.TRANSFERS.d2h, strict_cupy.TRANSFERS.h2d


@contextlib.contextmanager
def no_transfers():
    """A block in which nothing may move between host and device.

    ``strict``: the stand-in raises on any copy; ``gpu``: cupy's own guard raises on any
    synchronising copy (cupyx.allow_synchronize); ``cpu``: nothing to check.
    """
    if MODE == 'strict':
        import strict_cupy
        with strict_cupy.TRANSFERS.forbidden():
            yield
    elif MODE == 'gpu':
        import cupyx
        with cupyx.allow_synchronize(False):
            yield
    else:
        yield


# Operators that check their input *values* (an index in range, a label in the alphabet) and
# so must read one answer back from the device: an explicit, counted synchronisation, as
# MXNet's GPU kernels make for the same checks.  Everything else may not move a byte.
CHECKS_VALUES = {
    'take': lambda p: p.mode == 'raise',
    'gather_nd': lambda p: True,
    'scatter_nd': lambda p: True,
    'softmax_cross_entropy': lambda p: True,
    'CTCLoss': lambda p: True,
    'RNN': lambda p: p.use_sequence_length,
    # the ROIs are read on the host, where each one's bins are worked out
    'ROIPooling': lambda p: True,
    '_contrib_ROIAlign': lambda p: True,
    '_contrib_RROIAlign': lambda p: True,
    '_contrib_PSROIPooling': lambda p: True,
    # the proposals' greedy suppression decides box by box, on the host; so do box_nms,
    # bipartite matching, and MultiBox's negative mining and suppression
    '_contrib_Proposal': lambda p: True,
    '_contrib_MultiProposal': lambda p: True,
    '_contrib_box_nms': lambda p: True,
    '_contrib_bipartite_matching': lambda p: True,
    '_contrib_MultiBoxTarget': lambda p: True,
    '_contrib_MultiBoxDetection': lambda p: True,
    # a Cholesky factorisation that fails is reported through the solver's status word
    '_linalg_potrf': lambda p: True,
    # a row_sparse weight gradient holds the rows the data looked up: how many (unique
    # indices) is known only on the device
    'Embedding': lambda p: p.sparse_grad,
    '_contrib_SparseEmbedding': lambda p: True,
}




class DeviceOperator:
    """An operator whose forward/backward run on ``CTX`` for callers holding numpy arrays."""

    def __init__(self, op):
        self._op = op

    def __getattr__(self, name):
        return getattr(self._op, name)

    def __repr__(self):
        return 'DeviceOperator(%r on %s)' % (self._op, CTX)

    def _window(self, params):
        checks = CHECKS_VALUES.get(self._op.name)
        if checks is not None and checks(params):
            # explicit copies (.get()) allowed and counted; the stand-in refuses implicit ones anyway
            return contextlib.nullcontext()
        return no_transfers()

    def _env(self, env):
        device_env = OpEnv(CTX, env.is_train, env.wants)
        device_env.out = None if env.out is None else [to_device(a) for a in env.out]
        device_env.grad_out = None if env.grad_out is None else [to_device(a) for a in env.grad_out]
        return device_env

    def forward(self, params, env, inputs, aux):
        device_env = self._env(env)
        d_inputs = [to_device(x) for x in inputs]
        d_aux = [to_device(a) for a in aux]
        with CTX.device_scope(), self._window(params):
            outs = self._op.forward(params, device_env, d_inputs, d_aux)
        _copy_back(inputs, d_inputs)
        _copy_back(aux, d_aux)
        return _results(outs, device_env.out, env.out)

    def backward(self, params, env, out_grads, inputs, outputs, aux):
        device_env = self._env(env)
        d_heads = [to_device(g) for g in out_grads]
        d_inputs = [to_device(x) for x in inputs]
        d_outputs = [to_device(o) for o in outputs]
        d_aux = [to_device(a) for a in aux]
        with CTX.device_scope(), self._window(params):
            grads = self._op.backward(params, device_env, d_heads, d_inputs, d_outputs, d_aux)
        _copy_back(aux, d_aux)
        return _results(grads, device_env.grad_out, env.grad_out)


def _copy_back(host_arrays, device_arrays):
    """Write what the operator changed in place back into the caller's numpy arrays."""
    for host, dev in zip(host_arrays, device_arrays):
        if isinstance(host, np.ndarray) and dev is not host:
            now = to_host(dev)
            if not np.array_equal(now, host, equal_nan=now.dtype.kind in 'fc'):
                host[...] = now


def _results(arrays, device_targets, host_targets):
    """The results in numpy; a result written into a planned target is that host target."""
    out = []
    for k, a in enumerate(arrays):
        if (device_targets is not None and a is not None and k < len(device_targets)
                and a is device_targets[k] and host_targets[k] is not None):
            host_targets[k][...] = to_host(a)
            out.append(host_targets[k])
        else:
            out.append(to_host(a))
    return out


_PROXIES = {}


def get(name):
    """``reflib.operator.get``, on the test device: the same object for the same operator."""
    op = _get_operator(name)
    if not ON_DEVICE:
        return op
    proxy = _PROXIES.get(id(op))
    if proxy is None:
        proxy = _PROXIES[id(op)] = DeviceOperator(op)
    return proxy


def real_operator(op):
    """The registered operator behind ``get(name)``'s result (for tests that patch its class)."""
    return op._op if isinstance(op, DeviceOperator) else op
