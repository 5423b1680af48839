"""Regenerate rnn_io.npz: MXNet 1.9.1's encode_sentences and BucketSentenceIter on the
sentences of rnn_io_cases.py (vocabulary, buckets, and every batch of two seeded epochs).

    python tests/golden/gen_rnn_io.py      # with the real MXNet 1.9.1
"""

import json
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rnn_io_cases import run  # noqa: E402

if __name__ == '__main__':
    result = run(mx, 1, 2)
    arrays = {}
    for e, batches in enumerate(result.pop('epochs')):
        for k, (key, data, label, shape) in enumerate(batches):
            arrays['e%d/b%d/key' % (e, k)] = np.array(key)
            arrays['e%d/b%d/data' % (e, k)] = data
            arrays['e%d/b%d/label' % (e, k)] = label
    arrays['meta'] = np.array(json.dumps(result, sort_keys=True))
    np.savez_compressed(os.path.join(HERE, 'rnn_io.npz'), **arrays)
    print('wrote rnn_io.npz: %d arrays' % len(arrays))
