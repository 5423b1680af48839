"""Regenerate npx.json: MXNet 1.9.1 on the calls of npx_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_npx.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from npx_cases import run  # noqa: E402

if __name__ == '__main__':
    with open(os.path.join(HERE, 'npx.json'), 'w') as f:
        json.dump(run(mx), f, sort_keys=True)
        f.write('\n')
    print('wrote npx.json')
