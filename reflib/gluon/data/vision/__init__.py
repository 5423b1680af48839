"""``gluon.data.vision``: image data sets (MNIST, Fashion-MNIST, CIFAR-10/100, RecordIO files
of images, folders of image files) and the image transforms.

datasets     the data sets, read from files already on disk (reflib does not download)
transforms   ToTensor, Normalize, Resize, the crops, flips and colour jitters: Gluon Blocks
             over the ``mx.nd.image`` operators
"""

# importing from the submodule binds it too: vision.datasets, as in MXNet
from .datasets import MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageRecordDataset, ImageFolderDataset
from . import transforms

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageRecordDataset', 'ImageFolderDataset', 'transforms']
