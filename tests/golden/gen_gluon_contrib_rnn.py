"""Regenerate gluon_contrib_rnn.json: MXNet 1.9.1 on the programs of gluon_contrib_rnn_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    /tmp/mxv/bin/python tests/golden/gen_gluon_contrib_rnn.py
"""

import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gluon_contrib_rnn_cases import run  # noqa: E402

def _short(value):
    """Floats to 8 significant digits (float32 needs no more), to keep the file small."""
    if isinstance(value, float):
        return float('%.8g' % value)
    if isinstance(value, list):
        return [_short(v) for v in value]
    if isinstance(value, dict):
        return {k: _short(v) for k, v in value.items()}
    return value


if __name__ == '__main__':
    record = _short(run(mx))
    with open(os.path.join(HERE, 'gluon_contrib_rnn.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k], sort_keys=True))
                                          for k in sorted(record)))
    print('wrote gluon_contrib_rnn.json: %d cases' % len(record))
