"""``mx.io``: data iterators, how batches reach a Module.

dataiter       DataDesc, DataBatch and the DataIter protocol every iterator follows
ndarray_iter   NDArrayIter: batches of in-memory arrays (pad, discard, roll_over)
wrappers       ResizeIter: iterators built on another iterator
"""

from .dataiter import DataDesc, DataBatch, DataIter
from .ndarray_iter import NDArrayIter
from .wrappers import ResizeIter

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'NDArrayIter', 'ResizeIter']
