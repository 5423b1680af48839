"""``gluon.data.vision``: image data sets (MNIST, Fashion-MNIST, CIFAR-10/100, RecordIO files
of images, folders of image files).

datasets     the data sets, read from files already on disk (reflib does not download)

MXNet's image ``transforms`` (ToTensor, Normalize, Resize...) are Gluon Blocks; they will
join this package as its ``transforms`` submodule once Blocks are in reflib.
"""

# importing from the submodule binds it too: vision.datasets, as in MXNet
from .datasets import MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageRecordDataset, ImageFolderDataset

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageRecordDataset', 'ImageFolderDataset']
