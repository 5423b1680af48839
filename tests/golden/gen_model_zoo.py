"""Regenerate model_zoo.json: MXNet 1.9.1 on the programs of model_zoo_cases.py (the
networks of gluon.model_zoo.vision: parameter names and shapes, outputs on fixed weights).

Run with a Python that has the real MXNet 1.9.1 (the tests only read the file):

    /tmp/mxv/bin/python tests/golden/gen_model_zoo.py
"""

import json
import os
import sys
import warnings

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from model_zoo_cases import run  # noqa: E402

if __name__ == '__main__':
    warnings.simplefilter('ignore')
    record = run(mx)
    with open(os.path.join(HERE, 'model_zoo.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote model_zoo.json: %d cases' % len(record))
