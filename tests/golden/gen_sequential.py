"""Regenerate sequential.npz: MXNet 1.9.1's SequentialModule and PythonLossModule on
sequential_cases.py.

    python tests/golden/gen_sequential.py      # with the real MXNet 1.9.1
"""

import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sequential_cases import run, run_python_loss  # noqa: E402

warnings.simplefilter('ignore')

if __name__ == '__main__':
    record = run(mx)
    record.update(run_python_loss(mx))
    np.savez_compressed(os.path.join(HERE, 'sequential.npz'), **record)
    print('wrote sequential.npz:', sorted(record), record['names'])
