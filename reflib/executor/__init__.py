"""Executors: bound symbols that run forward and backward."""

from .executor import Executor, simple_bind  # noqa: F401
from .cached_graph import CachedGraph, CachedOp  # noqa: F401
from .. import ndarray as _ndarray

# mx.nd.CachedOp, as MXNet names it: a Symbol made callable on NDArrays needs the executor, a
# layer above ndarray, so the executor package puts it into mx.nd's namespace
_ndarray.CachedOp = CachedOp
