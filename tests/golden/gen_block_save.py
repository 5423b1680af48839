"""Record MXNet 1.9.1's Block.save files and outputs for tests/test_block_save.py.

    /tmp/mxv/bin/python tests/golden/gen_block_save.py

Two networks, built by ``block_save_nets.build`` (shared with the test, so both libraries
build the same thing): a custom Block holding a Block and hybridized Dense layers, with
children kept under keys made of their names (as MXNet's test_gluon_save does), and a
name-scoped HybridSequential of Dense layers with an activation.  Each is given the same
seeded parameters, hybridized, run on a fixed batch and saved; the files go to
golden/block_save/ and the outputs to golden/block_save.json.
"""
import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from block_save_nets import NETS, batch, build, fill  # noqa: E402

if __name__ == '__main__':
    folder = os.path.join(HERE, 'block_save')
    os.makedirs(folder, exist_ok=True)
    record = {}
    for kind in NETS:
        net = build(mx, kind)
        net.initialize()
        net.hybridize()
        x = mx.nd.array(batch())
        net(x)
        fill(mx, net)
        record[kind] = net(x).asnumpy().round(6).tolist()
        net.save(os.path.join(folder, kind))
    with open(os.path.join(HERE, 'block_save.json'), 'w') as f:
        json.dump(record, f)
    print('wrote', sorted(os.listdir(folder)))
