"""``gluon.data``: datasets, samplers and the DataLoader that turns them into mini-batches.

dataset      Dataset and its derived datasets (transform, filter, shard, take, sample),
             SimpleDataset, ArrayDataset, RecordFileDataset
sampler      Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler
dataloader   DataLoader and the default batchify functions (worker threads, pinned memory)
vision       MNIST, FashionMNIST, CIFAR10/100 read from local files, image folders and record files
"""

from . import dataset
from . import sampler
from . import dataloader
from . import vision
from .dataset import Dataset, SimpleDataset, ArrayDataset, RecordFileDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler
from .dataloader import DataLoader

__all__ = ['dataset', 'sampler', 'dataloader', 'vision',
           'Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset', 'Sampler', 'SequentialSampler',
           'RandomSampler', 'FilterSampler', 'BatchSampler', 'DataLoader']
