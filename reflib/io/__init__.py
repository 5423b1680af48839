"""``mx.io``: data iterators, how batches reach a Module.

dataiter       DataDesc, DataBatch and the DataIter protocol every iterator follows
ndarray_iter   NDArrayIter: batches of in-memory arrays (pad, discard, roll_over)
wrappers       ResizeIter: iterators built on another iterator
prefetch       PrefetchingIter: the next batch read in a background thread
loader         FileIter: what the file iterators share (MXNet's MXDataIter conventions)
mnist          MNISTIter: MNIST's idx files
csv_iter       CSVIter: comma-separated numbers
libsvm         LibSVMIter: LibSVM text files, batches of CSR data
image_record   ImageRecordIter: images from RecordIO files (what happens to one image: image_augment)
"""

from .dataiter import DataDesc, DataBatch, DataIter
from .ndarray_iter import NDArrayIter
from .wrappers import ResizeIter
from .prefetch import PrefetchingIter
from .mnist import MNISTIter
from .csv_iter import CSVIter
from .libsvm import LibSVMIter
from .image_record import ImageRecordIter, ImageRecordUInt8Iter, ImageRecordInt8Iter

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'NDArrayIter', 'ResizeIter',
           'PrefetchingIter', 'MNISTIter', 'CSVIter', 'LibSVMIter', 'ImageRecordIter',
           'ImageRecordUInt8Iter', 'ImageRecordInt8Iter']
