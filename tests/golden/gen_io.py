"""Record NDArrayIter's batches from real MXNet 1.9.1 (run with the MXNet venv).

    /tmp/mxv/bin/python tests/golden/gen_io.py   ->  tests/golden/io.json
"""
import json
import os

import numpy as np
import mxnet as mx

CASES = []
for handle in ['pad', 'discard', 'roll_over']:
    for shuffle in [False, True]:
        for batch_size, n in [(4, 10), (5, 10), (3, 7)]:
            CASES.append(dict(handle=handle, shuffle=shuffle, batch_size=batch_size, n=n))


def run(case):
    np.random.seed(3)
    n = case['n']
    it = mx.io.NDArrayIter({'x': np.arange(2 * n).reshape(n, 2), 'a': np.arange(n) * 10},
                           np.arange(n), batch_size=case['batch_size'], shuffle=case['shuffle'],
                           last_batch_handle=case['handle'])
    epochs = []
    for _ in range(3):
        batches = [dict(a=b.data[0].asnumpy().tolist(), x=b.data[1].asnumpy()[:, 0].tolist(),
                        label=b.label[0].asnumpy().tolist(), pad=b.pad) for b in it]
        epochs.append(batches)
        it.reset()
    return dict(case=case, epochs=epochs,
                provide_data=[[d.name, list(d.shape)] for d in it.provide_data],
                provide_label=[[d.name, list(d.shape)] for d in it.provide_label])


if __name__ == '__main__':
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'io.json')
    with open(out, 'w') as f:
        json.dump([run(c) for c in CASES], f)
    print('wrote', out)
