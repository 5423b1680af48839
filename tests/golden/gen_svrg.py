"""Regenerate svrg.json: MXNet 1.9.1 on the calls of svrg_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_svrg.py
"""

import json
import logging
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from svrg_cases import run  # noqa: E402

if __name__ == '__main__':
    logging.disable(logging.INFO)       # fit logs every epoch
    record = run(mx)
    with open(os.path.join(HERE, 'svrg.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote svrg.json: %d cases' % len(record))
