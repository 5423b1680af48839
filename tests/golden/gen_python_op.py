"""Regenerate python_op.json: MXNet 1.9.1 on the calls of python_op_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_python_op.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from python_op_cases import run  # noqa: E402

if __name__ == '__main__':
    record = run(mx)
    with open(os.path.join(HERE, 'python_op.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote python_op.json: %d cases' % len(record))
