"""``LibSVMIter``: refused, with the reason and a way round it.

MXNet 1.9.1's LibSVMIter reads zero-based LibSVM text (``label idx:value ...``) and
returns its data as a ``CSRNDArray``: sparse storage, which reflib does not have
(it has dense NDArrays only).  MXNet offers no dense output for this iterator, and
handing back dense batches under its name would make a script behave differently
from MXNet (a CSR batch has other methods and other operators accept it), so
reflib refuses it by name rather than imitate it.

The way round: read the file into a dense array and batch it with ``NDArrayIter``,
e.g. ``sklearn.datasets.load_svmlight_file(path, zero_based=True)`` and
``X.toarray()``; MXNet's ``round_batch`` corresponds to ``last_batch_handle='pad'``.
"""

from ..base import MXNetError

__all__ = ['LibSVMIter']


def LibSVMIter(*args, **kwargs):   # noqa: N802  (MXNet's name)
    """Always raises: MXNet's LibSVMIter returns sparse CSR batches, which reflib lacks."""
    raise MXNetError('LibSVMIter: MXNet returns its data as a CSRNDArray (sparse storage), which reflib '
                     'does not have; read the file densely (e.g. sklearn.datasets.load_svmlight_file('
                     'path, zero_based=True), then .toarray()) and batch it with mx.io.NDArrayIter')
