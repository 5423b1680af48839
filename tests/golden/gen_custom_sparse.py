"""Regenerate custom_sparse.json: MXNet 1.9.1 on the programs of custom_sparse_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_custom_sparse.py
"""

import json
import os
import sys

os.environ.setdefault('MXNET_SUBGRAPH_BACKEND', 'NONE')
os.environ.setdefault('MXNET_STORAGE_FALLBACK_LOG_VERBOSE', '0')
import mxnet as mx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from custom_sparse_cases import run  # noqa: E402

if __name__ == '__main__':
    record = run(mx)
    with open(os.path.join(HERE, 'custom_sparse.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote custom_sparse.json: %d cases' % len(record))
