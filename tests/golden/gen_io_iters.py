"""Record MNISTIter, CSVIter, PrefetchingIter and ResizeIter batches from real MXNet 1.9.1.

    /tmp/mxv/bin/python tests/golden/gen_io_iters.py   ->  tests/golden/io_iters.json

The inputs and the cases are in io_iters_cases.py, which tests/test_io_iters.py runs
with reflib in the same way.
"""
import json
import os
import sys
import tempfile

import mxnet as mx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_iters_cases import run_all  # noqa: E402

if __name__ == '__main__':
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'io_iters.json')
    with tempfile.TemporaryDirectory() as folder:
        results = run_all(mx, folder)
    with open(out, 'w') as f:
        json.dump(results, f, separators=(',', ':'))
    print('wrote', out, os.path.getsize(out), 'bytes')
