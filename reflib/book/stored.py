"""What the chapters read besides reflib itself, kept inside the package (reflib/book/data/ and
the scripts beside this file), so that a chapter runs from a folder that holds only its
notebook:

* ``perf_results.json`` and ``gpu_results.json``: the measurements of chapter 14, written by
  bench/book_results.py and bench/gpu_results.py;
* ``mlp-symbol.json``: a graph saved by MXNet 1.9.1 itself (chapter 2), and ``lm_fit.npz``:
  MXNet 1.9.1's perplexities for chapter 15's model (copies of files in tests/golden/,
  which tests/test_book.py keeps equal);
* ``scripts/dist_digits.py``: the distributed training script chapter 12 launches (a
  script, run in processes of its own, so not a module of the package).
"""

import json
import os

import numpy as np

__all__ = ['data_path', 'load_json', 'load_npz', 'script_path']

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data')


def data_path(name):
    """The path of ``name`` in reflib/book/data/."""
    path = os.path.join(DATA, name)
    if os.path.dirname(os.path.normpath(path)) != DATA or not os.path.isfile(path):
        raise FileNotFoundError('reflib/book/data has no file %r (it has %s)' % (name, sorted(os.listdir(DATA))))
    return path


def load_json(name):
    with open(data_path(name)) as f:
        return json.load(f)


def load_npz(name):
    with np.load(data_path(name)) as stored:
        return dict(stored)


def script_path(name):
    """The path of the script reflib/book/scripts/<name>.py (to run it in a process of its own)."""
    path = os.path.join(HERE, 'scripts', name + '.py')
    if not os.path.isfile(path):
        raise FileNotFoundError('reflib/book/scripts has no script %s.py' % name)
    return path
