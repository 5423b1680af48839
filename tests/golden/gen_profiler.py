"""Regenerate profiler.json: MXNet 1.9.1 on the script of profiler_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_profiler.py
"""

import json
import os
import sys
import tempfile

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from profiler_cases import run  # noqa: E402

if __name__ == '__main__':
    with tempfile.TemporaryDirectory() as folder:
        record = run(mx, folder)
    with open(os.path.join(HERE, 'profiler.json'), 'w') as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write('\n')
    print('wrote profiler.json')
