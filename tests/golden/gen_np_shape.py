"""Regenerate np_shape.json: MXNet 1.9.1 on the calls of np_shape_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_np_shape.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from np_shape_cases import run  # noqa: E402

if __name__ == '__main__':
    record = run(mx)
    with open(os.path.join(HERE, 'np_shape.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote np_shape.json: %d cases' % len(record))
