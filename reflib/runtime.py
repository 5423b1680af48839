"""``mx.runtime``: which features this reflib has, under MXNet's 32 feature names.

MXNet reports how its shared library was built (``Features()``, ``feature_list()``);
reflib has no build, so each feature is answered from what reflib really uses here:

* ``CUDA``: cupy imports and sees a device; ``CUDNN``: cupy also finds cuDNN;
  ``CUDA_RTC``: with CUDA, reflib compiles its few fused kernels at run time (NVRTC);
* the CPU instruction sets (``CPU_SSE`` ... ``CPU_AVX2``, ``SSE``, ``F16C``): the ones numpy,
  which runs every CPU operator, dispatches to on this machine;
* ``BLAS_OPEN``/``BLAS_MKL``/``BLAS_APPLE``/``BLAS_ATLAS`` and ``LAPACK``: numpy's own;
* ``DIST_KVSTORE``: mpi4py imports (reflib's distributed KVStore runs over MPI);
* ``INT64_TENSOR_SIZE``: numpy indexes with 64-bit integers, so arrays may exceed 2**31;
* the rest (NCCL, TensorRT, OpenMP, jemalloc, MKL-DNN, OpenCV, Caffe, the profiler, C++14,
  the signal handler, the debug build, TVM operators): reflib has none of them.
"""

import collections
import importlib.util

import numpy as np

from .context import num_gpus

try:
    from numpy._core._multiarray_umath import __cpu_features__ as _NUMPY_CPU_FEATURES   # numpy 2
except ImportError:                                                                   # numpy 1.x
    from numpy.core._multiarray_umath import __cpu_features__ as _NUMPY_CPU_FEATURES

__all__ = ['Feature', 'Features', 'feature_list']

# MXNet 1.9.1's features, in its order
NAMES = ('CUDA', 'CUDNN', 'NCCL', 'CUDA_RTC', 'TENSORRT', 'CPU_SSE', 'CPU_SSE2', 'CPU_SSE3', 'CPU_SSE4_1',
         'CPU_SSE4_2', 'CPU_SSE4A', 'CPU_AVX', 'CPU_AVX2', 'OPENMP', 'SSE', 'F16C', 'JEMALLOC', 'BLAS_OPEN',
         'BLAS_ATLAS', 'BLAS_MKL', 'BLAS_APPLE', 'LAPACK', 'MKLDNN', 'OPENCV', 'CAFFE', 'PROFILER',
         'DIST_KVSTORE', 'CXX14', 'INT64_TENSOR_SIZE', 'SIGNAL_HANDLER', 'DEBUG', 'TVM_OP')

# MXNet's CPU feature -> the name numpy's SIMD dispatch gives it
_NUMPY_CPU = {'CPU_SSE': 'SSE', 'CPU_SSE2': 'SSE2', 'CPU_SSE3': 'SSE3', 'CPU_SSE4_1': 'SSE41',
              'CPU_SSE4_2': 'SSE42', 'CPU_AVX': 'AVX', 'CPU_AVX2': 'AVX2', 'SSE': 'SSE', 'F16C': 'F16C'}


class Feature:
    """One feature: ``name`` and whether it is ``enabled``; shown as ``✔ NAME`` or ``✖ NAME``."""
    __slots__ = ('name', 'enabled')

    def __init__(self, name, enabled):
        self.name, self.enabled = name, bool(enabled)

    def __repr__(self):
        return ('✔ ' if self.enabled else '✖ ') + self.name


def _blas_and_lapack():
    """numpy's BLAS and LAPACK names, lower-cased ('' where numpy does not say)."""
    try:
        deps = np.show_config(mode='dicts')['Build Dependencies']
    except (TypeError, KeyError):          # numpy < 1.25 has no mode='dicts'
        return '', ''
    return (str(deps.get('blas', {}).get('name', '')).lower(),
            str(deps.get('lapack', {}).get('name', '')).lower())


def _gpu_facts():
    """(CUDA, cuDNN): cupy imports and sees a device; cupy finds cuDNN."""
    if importlib.util.find_spec('cupy') is None:
        return False, False
    if num_gpus() == 0:
        return False, False
    try:
        import cupy.cuda.cudnn  # noqa: F401  (an optional part of cupy)
        return True, True
    except ImportError:
        return True, False


def _detect():
    cuda, cudnn = _gpu_facts()
    cpu = _NUMPY_CPU_FEATURES
    blas, lapack = _blas_and_lapack()
    enabled = dict.fromkeys(NAMES, False)
    enabled.update(CUDA=cuda, CUDNN=cudnn, CUDA_RTC=cuda,
                   BLAS_OPEN='openblas' in blas, BLAS_MKL='mkl' in blas, BLAS_APPLE='accelerate' in blas,
                   BLAS_ATLAS='atlas' in blas, LAPACK=bool(lapack) or bool(blas),
                   DIST_KVSTORE=importlib.util.find_spec('mpi4py') is not None,
                   INT64_TENSOR_SIZE=np.dtype(np.intp).itemsize == 8)
    for name, numpy_name in _NUMPY_CPU.items():
        enabled[name] = bool(cpu.get(numpy_name, False))
    return enabled


class Features(collections.OrderedDict):
    """Every feature by name, in MXNet's order; one object per process (``Features() is Features()``)."""
    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super(Features, cls.instance).__init__(
                (name, Feature(name, on)) for name, on in _detect().items())
        return cls.instance

    def __init__(self):        # filled once, in __new__
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature (any case) is enabled; RuntimeError naming the known ones if unknown."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError("Feature '%s' is unknown, known features are: %s" % (name, list(self.keys())))
        return self[name].enabled


def feature_list():
    """The features as a list of Feature, in MXNet's order."""
    return list(Features().values())
