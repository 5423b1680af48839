"""What dist_async promises, checked from every worker: ``python async_check.py STEPS``.

Each worker pushes a gradient of ones ``STEPS`` times to one key whose servers run
plain SGD (lr 1, so every push subtracts exactly 1 from every element of the weight,
which starts at 0).  Async guarantees only that a worker's pull sees its own pushes
applied (and perhaps some of the others'), so after push number ``s`` a worker
checks ``-s - others <= w <= -s``, with ``others`` what the other workers can have
pushed at most.  After a barrier, every push has been applied exactly once:
``w == -(STEPS * num_workers)`` on every worker.
"""

import sys

import numpy as np

import reflib as mx

steps = int(sys.argv[1])
kv = mx.kv.create('dist_async')
kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))
kv.init(7, mx.nd.zeros((4,)))
out = mx.nd.zeros((4,))
others = steps * (kv.num_workers - 1)
seen_others = 0
for s in range(1, steps + 1):
    kv.push(7, mx.nd.ones((4,)))
    kv.pull(7, out=out)
    w = out.asnumpy()
    assert np.all(w == w[0]), w
    assert -s - others <= w[0] <= -s, (s, w[0])
    seen_others = max(seen_others, int(-w[0]) - s)
kv.barrier()
kv.pull(7, out=out)
assert np.all(out.asnumpy() == -steps * kv.num_workers), out.asnumpy()
print('worker %d: all %d pushes applied once; saw up to %d of the others\' pushes early'
      % (kv.rank, steps * kv.num_workers, seen_others), flush=True)
