"""Regenerate amp.json: MXNet 1.9.1 on the programs of amp_cases.py.

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_amp.py

amp.init() patches MXNet's operator functions for good, so its cases run in a fresh
interpreter (amp_cases.py run as a script) and land under the key 'init'.

MXNet's oneDNN graph fusion is switched off (MXNET_SUBGRAPH_BACKEND=NONE): with it on, MXNet
1.9.1 returns FullyConnected's output for both outputs of Group([fc, exp(fc)]).
"""

import json
import os
import subprocess
import sys

os.environ.setdefault('MXNET_SUBGRAPH_BACKEND', 'NONE')
import mxnet as mx  # noqa: E402
from mxnet.contrib import amp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from amp_cases import run  # noqa: E402

if __name__ == '__main__':
    record = run(mx, amp)
    init = subprocess.run([sys.executable, os.path.join(HERE, 'amp_cases.py'), 'mxnet'],
                          check=True, capture_output=True, text=True).stdout
    record['init'] = json.loads(init.strip().splitlines()[-1])
    with open(os.path.join(HERE, 'amp.json'), 'w') as f:     # one case a line
        f.write('{\n%s\n}\n' % ',\n'.join('%s: %s' % (json.dumps(k), json.dumps(record[k]))
                                          for k in sorted(record)))
    print('wrote amp.json: %d cases' % len(record))
