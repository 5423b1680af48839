"""Regenerate sparse_training.npz: MXNet 1.9.1 trains the models of sparse_training_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_sparse_training.py
"""

import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sparse_training_cases import cases  # noqa: E402

if __name__ == '__main__':
    warnings.simplefilter('ignore')
    arrays = {}
    for case, run in cases().items():
        for name, value in run(mx).items():
            arrays['%s | %s' % (case, name)] = value
    np.savez_compressed(os.path.join(HERE, 'sparse_training.npz'), **arrays)
    print('wrote sparse_training.npz: %d cases, %d arrays' % (len(cases()), len(arrays)))
