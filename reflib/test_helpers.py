"""MXNet's smaller ``mx.test_utils`` helpers, which its own unit tests import by name.

``mx.test_utils`` re-exports every one.  Each does what MXNet's does, in reflib's words;
where MXNet's is plainly wrong the docstring says how reflib differs (``same_symbol_structure``).
"""

import json
import os

import numpy as np

from .context import num_gpus
from .ndarray import array
from .test_tolerances import assert_almost_equal, _numpy

__all__ = ['gen_buckets_probs_with_ppf', 'compare_ndarray_tuple', 'assert_almost_equal_ignore_nan',
           'same_array', 'DummyIter', 'rand_coord_2d', 'random_uniform_arrays', 'list_gpus',
           'effective_dtype', 'collapse_sum_like', 'create_vector', 'create_2d_tensor',
           'get_im2rec_path', 'same_symbol_structure', 'get_etol']


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` buckets of equal probability for a chi-square test, from the quantile
    function ``ppf``: bucket i is ``(ppf(i/n), ppf((i+1)/n))``, each with probability 1/n."""
    edges = [ppf(i / float(nbuckets)) for i in range(nbuckets + 1)]
    return list(zip(edges[:-1], edges[1:])), [1.0 / nbuckets] * nbuckets


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Assert two (nested) tuples of NDArrays are equal to tolerance; None matches None."""
    if t1 is None or t2 is None:
        assert t1 is None and t2 is None, 'one of the tuples is None: %r, %r' % (t1, t2)
        return
    if isinstance(t1, tuple):
        assert isinstance(t2, tuple) and len(t1) == len(t2), 'tuples of different lengths'
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
        return
    assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    """assert_almost_equal, where a NaN in either array makes that position not count."""
    a, b = np.array(_numpy(a), copy=True), np.array(_numpy(b), copy=True)
    nan = np.isnan(a) | np.isnan(b)
    a[nan], b[nan] = 0, 0
    assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names)


def same_array(array1, array2):
    """Whether two NDArrays are views of the same memory with the same shape (a write to one
    shows in the other everywhere)."""
    x, y = array1._data, array2._data
    if x.shape != y.shape or x.dtype != y.dtype or x.strides != y.strides:
        return False
    return _address(x) == _address(y)


def _address(raw):
    return raw.__array_interface__['data'][0] if isinstance(raw, np.ndarray) else raw.data.ptr


class DummyIter:
    """An endless iterator that gives the first batch of ``real_iter`` again and again (to time
    a model without reading data)."""

    def __init__(self, real_iter):
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def __next__(self):
        """Return the stored first batch, every time: the iterator never raises StopIteration."""
        return self.the_batch

    next = __next__


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point (x, y), numpy's generator, ``x_low <= x < x_high`` (y likewise)."""
    return np.random.randint(x_low, x_high), np.random.randint(y_low, y_high)


def random_uniform_arrays(*shapes, **kwargs):
    """numpy arrays uniform in [low, high) (keywords ``low=0``, ``high=1``, ``dtype=float32``):
    one for each shape, or the array itself for one shape."""
    low, high = kwargs.pop('low', 0.0), kwargs.pop('high', 1.0)
    dtype = kwargs.pop('dtype', np.float32)
    if kwargs:
        raise TypeError('random_uniform_arrays: unknown arguments %s' % sorted(kwargs))
    arrays = [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def list_gpus():
    """The GPU indices cupy sees (``range(0)`` without cupy or a GPU)."""
    return range(num_gpus())


def effective_dtype(dat):
    """The dtype whose tolerance a comparison of ``dat`` should use: its own (reflib computes in
    the array's dtype on CPU and GPU alike; MXNet widens it for TF32 GPU kernels)."""
    return np.dtype(dat.dtype)


def collapse_sum_like(a, shape):
    """``a`` summed over the axes that broadcasting ``shape`` would have stretched, so the
    result has ``shape`` (a broadcast gradient taken back to its input's shape)."""
    a = np.asarray(a)
    lead = a.ndim - len(shape)
    if lead < 0 or any(s not in (1, d) for s, d in zip(shape, a.shape[lead:])):
        raise ValueError('collapse_sum_like: shape %s does not broadcast to %s' % (tuple(shape), a.shape))
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and a.shape[lead + i] != 1)
    return a.sum(axis=axes).reshape(shape) if axes else a.reshape(shape)


def create_vector(size, dtype=np.int64):
    """An NDArray ``[0, 1, ..., size-1]`` (MXNet's large-tensor tests build them so)."""
    return array(np.arange(size, dtype=dtype), dtype=dtype)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """An NDArray of ``rows`` rows whose row i holds ``columns`` copies of i."""
    return array(np.repeat(np.arange(rows, dtype=dtype)[:, None], columns, axis=1), dtype=dtype)


def get_im2rec_path(home_env='MXNET_HOME'):
    """The path of the im2rec tool (reflib/tools/im2rec.py; ``home_env`` is MXNet's way to look
    elsewhere, not needed here)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tools', 'im2rec.py')
    if not os.path.isfile(path):
        raise IOError('im2rec.py is not at %s' % path)
    return path


def same_symbol_structure(sym1, sym2):
    """Whether two symbols have the same graph: as many nodes, the same operator at each
    position, wired to the same inputs (names and parameters may differ).

    MXNet 1.9.1's version compares the nodes pairwise up to the shorter list, so a graph and
    that graph with one more operator on top count as the same; reflib's compares them all.
    """
    nodes1, nodes2 = json.loads(sym1.tojson())['nodes'], json.loads(sym2.tojson())['nodes']
    if len(nodes1) != len(nodes2):
        return False
    for n1, n2 in zip(nodes1, nodes2):
        if n1['op'] != n2['op'] or [i[:2] for i in n1['inputs']] != [i[:2] for i in n2['inputs']]:
            return False
    return True


def get_etol(etol=None):
    """The share of elements allowed to be out of tolerance: ``etol``, or 0."""
    return 0 if etol is None else etol
