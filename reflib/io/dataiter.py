"""What every data iterator hands a Module: ``DataDesc``, ``DataBatch`` and the ``DataIter`` protocol.

* ``DataDesc``  name + shape (+ dtype, layout) of one input; ``provide_data``
  lists them so a Module can bind before seeing any data.
* ``DataBatch`` one batch: lists of data and label arrays, plus ``pad``, the
  number of samples at the end that are filler (they repeat the start of the
  data set) and must be dropped from predictions.
* ``DataIter``  ``reset``, ``next`` (or ``iter_next`` + ``getdata``/``getlabel``/
  ``getpad``/``getindex``), and Python iteration over batches.
"""

from collections import namedtuple

from ..base import MXNetError, mx_real_t

__all__ = ['DataDesc', 'DataBatch', 'DataIter']


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """``(name, shape)`` plus ``dtype`` and ``layout``; compares equal as the (name, shape) pair."""

    def __new__(cls, name, shape, dtype=mx_real_t, layout='NCHW'):
        desc = super().__new__(cls, name, tuple(shape))
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self):
        return 'DataDesc[%s,%s,%s,%s]' % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """Index of 'N' in ``layout`` (0 when there is no layout, -1 when there is no batch axis)."""
        return 0 if layout is None else layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """Turn a list of ``(name, shape)`` pairs into a list of DataDescs.

        ``types``, when given, is a list of ``(name, dtype)`` pairs; each desc takes the dtype
        listed under its name (a name missing there raises KeyError).  Without it every desc
        keeps the default dtype (float32).

        >>> mx.io.DataDesc.get_list([('data', (2, 3))], [('data', np.int32)])
        [DataDesc[data,(2, 3),<class 'numpy.int32'>,NCHW]]
        """
        if types is not None:
            type_of = dict(types)
            return [DataDesc(name, shape, type_of[name]) for name, shape in shapes]
        return [DataDesc(name, shape) for name, shape in shapes]


class DataDescError(MXNetError, TypeError):
    """A data/label shape list whose entry is not a (name, shape) pair or a DataDesc: a TypeError,
    as MXNet's DataDesc raises for a shape that is not a tuple."""


def data_descs(given, what='data_shapes'):
    """DataDescs from a list of DataDesc or ``(name, shape)`` pairs (None stays None): the one
    place every caller turns shapes into DataDescs, refusing anything else by name."""
    if given is None:
        return None
    example = "[('data', (32, 784))]"
    if isinstance(given, DataDesc):
        given = [given]
    if not isinstance(given, (list, tuple)) or (given and isinstance(given[0], str)):
        raise DataDescError('%s must be a list of (name, shape) pairs or DataDescs, e.g. %s; got %r (a single '
                            'pair needs the list around it)' % (what, example, given))
    descs = []
    for item in given:
        if isinstance(item, DataDesc):
            descs.append(item)
            continue
        if not (isinstance(item, (list, tuple)) and len(item) >= 2 and isinstance(item[0], str)
                and isinstance(item[1], (list, tuple))):
            raise DataDescError('%s must be a list of (name, shape) pairs or DataDescs, e.g. %s; the entry %r '
                                'is neither' % (what, example, item))
        descs.append(DataDesc(*item))
    return descs


class DataBatch:
    """One batch of data and labels (lists of NDArrays)."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise MXNetError('DataBatch: data must be a list of NDArrays, got %s' % type(data).__name__)
        if label is not None and not isinstance(label, (list, tuple)):
            raise MXNetError('DataBatch: label must be a list of NDArrays, got %s' % type(label).__name__)
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return '%s: data shapes: %s label shapes: %s' % (type(self).__name__, data_shapes, label_shapes)


class DataIter:
    """Base iterator: subclasses implement iter_next/getdata/getlabel/getpad (or next)."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the first batch, so that the next ``next()`` starts a new pass (epoch).

        The base class keeps no position and does nothing; every iterator that does overrides it.
        """
        pass

    def next(self):
        """Return the next batch as a DataBatch, or raise StopIteration at the end of the data.

        The default asks ``iter_next()`` to move on and builds the batch from ``getdata()``,
        ``getlabel()``, ``getpad()`` and ``getindex()``; an iterator may instead override
        ``next`` alone.  ``for batch in it`` calls it too.
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch; return True if there is one, False at the end of the data.

        The base class has no data and always returns False.
        """
        return False

    def getdata(self):
        """The data of the batch the iterator is at: a list of NDArrays, one per ``provide_data``
        entry (None in the base class).
        """
        return None

    def getlabel(self):
        """The labels of the batch the iterator is at: a list of NDArrays, one per ``provide_label``
        entry (None in the base class or for an iterator without labels).
        """
        return None

    def getindex(self):
        """The indices (positions in the data set) of the samples of the current batch, or None
        where the iterator does not track them.
        """
        return None

    def getpad(self):
        """The number of filler samples at the end of the current batch: 0 for a full batch, more
        when the last batch was padded up to ``batch_size`` (the filler predictions are dropped).
        """
        return 0


class BatchAtHand:
    """``next`` and ``getdata``/``getlabel``/``getindex``/``getpad`` of an iterator that keeps
    the whole batch it is at in ``current_batch`` (ResizeIter and PrefetchingIter, as in MXNet)."""

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
