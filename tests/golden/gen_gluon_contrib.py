"""Regenerate gluon_contrib.json: MXNet 1.9.1 on the programs of gluon_contrib_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    /tmp/mxv/bin/python tests/golden/gen_gluon_contrib.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gluon_contrib_cases import run  # noqa: E402

if __name__ == '__main__':
    record = run(mx)
    with open(os.path.join(HERE, 'gluon_contrib.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k], sort_keys=True))
                                          for k in sorted(record)))
    print('wrote gluon_contrib.json: %d cases' % len(record))
