"""Regenerate gluon_loss.json: MXNet 1.9.1 on the calls of gluon_loss_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    /tmp/mxv/bin/python tests/golden/gen_gluon_loss.py
"""

import json
import os
import sys
import warnings

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gluon_loss_cases import run  # noqa: E402

if __name__ == '__main__':
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        record = run(mx)
    with open(os.path.join(HERE, 'gluon_loss.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote gluon_loss.json: %d cases' % len(record))
