"""The data set of chapters 9 and 10: scikit-learn's handwritten digits, split once.

scikit-learn ships the 1797 images (8x8 pixels, values 0 to 16) inside the package, so
nothing is downloaded.  Both chapters train on the same 1500 images and validate on the
same 297, picked by one seeded permutation.
"""
import numpy as np

__all__ = ['load']


def load(seed=0, train_size=1500):
    """``(images, labels, train_idx, val_idx)``: the images as float32 in [0, 1], shape
    (1797, 8, 8); the labels as float32 class indices (what MXNet's losses expect); and
    the indices of the training and validation images, from a permutation seeded with
    ``seed``."""
    from sklearn.datasets import load_digits   # (scikit-learn is for the book, not reflib)
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.float32)
    order = np.random.RandomState(seed).permutation(len(images))
    return images, labels, order[:train_size], order[train_size:]
