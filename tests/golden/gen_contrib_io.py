"""Regenerate contrib_io.json: MXNet 1.9.1 on the program of contrib_io_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_contrib_io.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from contrib_io_cases import run  # noqa: E402

if __name__ == '__main__':
    with open(os.path.join(HERE, 'contrib_io.json'), 'w') as f:
        json.dump(run(mx), f, sort_keys=True)
        f.write('\n')
    print('wrote contrib_io.json')
