"""Regenerate custom_op.json: MXNet 1.9.1 on the programs of custom_op_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    /tmp/mxv/bin/python tests/golden/gen_custom_op.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from custom_op_cases import run  # noqa: E402

if __name__ == '__main__':
    record = json.loads(json.dumps(run(mx)))       # tuples as lists, as the test reads them back
    with open(os.path.join(HERE, 'custom_op.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote custom_op.json: %d cases' % len(record))
