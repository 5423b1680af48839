"""The order MXNet's C++ iterators shuffle samples into, reproduced exactly.

MXNet 1.9.1's ``MNISTIter`` shuffles with ``std::shuffle`` over a ``std::mt19937``
seeded with ``seed``, as compiled into the pip wheel (GNU libstdc++): for each
position ``i`` from 1 up, swap it with a position drawn uniformly from ``[0, i]``,
where a draw of ``[0, i]`` takes 32-bit words ``w`` from the generator until
``w < (i + 1) * s`` (with ``s = (2**32 - 1) // (i + 1)``) and returns ``w // s``.

numpy's ``RandomState(seed)`` with an integer seed initialises the same Mersenne
Twister as ``std::mt19937(seed)``, and its full-range 32-bit draws are the
generator's raw words, so the permutation comes out identical to MXNet's (checked
against MXNet 1.9.1 in tests/test_io_iters.py).

>>> std_shuffle_order(6, seed=0)
[0, 2, 3, 5, 4, 1]
"""

import numpy as np

__all__ = ['Words', 'uniform_int', 'shuffle_in_place', 'std_shuffle_order']

_WORD_MAX = 2 ** 32 - 1
_CHUNK = 4096


class Words:
    """The raw 32-bit outputs of mt19937(seed), drawn from numpy in chunks; call for the next."""

    def __init__(self, seed):
        self._rng = np.random.RandomState(int(seed) % 2 ** 32)
        self._buf = []
        self._at = 0

    def __call__(self):
        if self._at == len(self._buf):
            self._buf = self._rng.randint(0, 2 ** 32, size=_CHUNK, dtype=np.uint64).tolist()
            self._at = 0
        self._at += 1
        return self._buf[self._at - 1]


def uniform_int(word, n):
    """libstdc++'s ``uniform_int_distribution(0, n - 1)`` over the words ``word()`` gives:
    words at or above ``n * s`` (``s = (2**32 - 1) // n``) are drawn again, then ``w // s``."""
    scaling = _WORD_MAX // n
    limit = n * scaling
    w = word()
    while w >= limit:
        w = word()
    return w // scaling


def shuffle_in_place(order, word):
    """``std::shuffle(order, generator)``: position ``i`` from 1 up swaps with a uniform draw
    of ``[0, i]``.  ``word`` goes on from where it is (ImageRecordIter keeps one across epochs)."""
    for i in range(1, len(order)):
        j = uniform_int(word, i + 1)
        order[i], order[j] = order[j], order[i]


def std_shuffle_order(n, seed):
    """The permutation ``std::shuffle`` (libstdc++, mt19937(seed)) makes of ``range(n)``."""
    order = list(range(n))
    shuffle_in_place(order, Words(seed))
    return order
