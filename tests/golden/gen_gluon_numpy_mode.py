"""Regenerate gluon_numpy_mode.json: MXNet 1.9.1 on the programs of gluon_numpy_mode_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_gluon_numpy_mode.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gluon_numpy_mode_cases import run  # noqa: E402

if __name__ == '__main__':
    with open(os.path.join(HERE, 'gluon_numpy_mode.json'), 'w') as f:
        json.dump(run(mx), f, sort_keys=True)
        f.write('\n')
    print('wrote gluon_numpy_mode.json')
