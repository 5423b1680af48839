"""Regenerate bucketing.npz: MXNet 1.9.1's BucketingModule on the scenario of
bucketing_cases.py (each step's softmax output, the parameters after the last update).

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_bucketing.py
"""

import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bucketing_cases import run  # noqa: E402

warnings.simplefilter('ignore')

if __name__ == '__main__':
    record, keys = run(mx)
    record['buckets'] = np.array(keys)
    np.savez_compressed(os.path.join(HERE, 'bucketing.npz'), **record)
    print('wrote bucketing.npz: %d arrays, buckets %s' % (len(record), keys))
