"""``mx.contrib.io.DataLoaderIter``: a Gluon DataLoader seen as a DataIter, so that batches
made for Gluon (``gluon.data``, chapter 16) can feed ``Module.fit`` (chapters 8-9).

Each ``(data, label)`` batch of the loader becomes a DataBatch of one data and one label
array, cast to ``dtype``.  The shapes in ``provide_data``/``provide_label`` are those of the
loader's first batch, read when the iterator is made (so the loader is iterated once more
than the epochs ask for, as in MXNet).  A last batch smaller than that (``last_batch='keep'``)
is padded up to the batch size -- with zeros here (MXNet leaves whatever memory held) -- and
``pad`` says how many rows are padding, as the DataIters of chapter 10 do.  A padded batch is
float32 whatever ``dtype`` says, as MXNet 1.9.1 makes it.
"""

from ..io import DataIter, DataDesc
from .. import ndarray as nd

__all__ = ['DataLoaderIter']


class DataLoaderIter(DataIter):
    """The batches of ``loader`` (a ``gluon.data.DataLoader`` of ``(data, label)`` pairs) as a
    DataIter, under the names ``data_name`` and ``label_name``."""

    def __init__(self, loader, data_name='data', label_name='softmax_label', dtype='float32'):
        super().__init__()
        self._loader = loader
        data, label = next(iter(loader))            # the shapes every batch is given
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        """Start the loader's batches again."""
        self._iter = iter(self._loader)

    def iter_next(self):
        """Move to the loader's next batch; False at the end of the epoch."""
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, array):
        array = array.astype(self.dtype)
        if not self.getpad():
            return array
        # (float32: MXNet's padded batch takes the default dtype, not ``dtype``)
        full = nd.zeros((self.batch_size,) + tuple(array.shape[1:]), ctx=array.context)
        full[:array.shape[0]] = array
        return full

    def getdata(self):
        """The current batch's data, padded to the batch size."""
        return [self._padded(self._current_batch[0])]

    def getlabel(self):
        """The current batch's labels, padded to the batch size."""
        return [self._padded(self._current_batch[1])]

    def getpad(self):
        """How many rows at the end of the current batch are padding."""
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        """None: a DataLoader does not say which samples it read."""
        return None
