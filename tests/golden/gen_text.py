"""Regenerate text.json: MXNet 1.9.1 on the calls of text_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    /tmp/mxv/bin/python tests/golden/gen_text.py
"""

import json
import os
import sys
import tempfile

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from text_cases import run  # noqa: E402

if __name__ == '__main__':
    with tempfile.TemporaryDirectory() as folder:      # the cases write their embedding files here
        record = run(mx, folder)
    with open(os.path.join(HERE, 'text.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote text.json: %d cases' % len(record))
