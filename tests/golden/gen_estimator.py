"""Regenerate estimator.json: MXNet 1.9.1 on the programs of estimator_cases.py.

    /tmp/mxv/bin/python tests/golden/gen_estimator.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from estimator_cases import run  # noqa: E402

if __name__ == '__main__':
    with open(os.path.join(HERE, 'estimator.json'), 'w') as f:
        json.dump(run(mx), f, sort_keys=True)
        f.write('\n')
    print('wrote estimator.json')
