"""The KVStore calls across real processes: ``python basics.py STATES_FILE`` on every rank.

Checked on every worker (an AssertionError aborts the job, and the test sees it):
``init`` keeps worker 0's value; ``push`` sums over every worker and every local device;
``pushpull``; ``barrier``; optimizer states of a key split over the servers, saved by
worker 0 and loaded back by all.
"""

import sys

import numpy as np

import reflib as mx

kv = mx.kv.create('dist_sync')
rank, workers = kv.rank, kv.num_workers
devices = [mx.cpu(0), mx.cpu(1)]

# init: every worker offers its own value; worker 0's is the one kept
kv.init('w', mx.nd.full((2, 3), 10.0 * (rank + 1)))
out = mx.nd.zeros((2, 3))
kv.pull('w', out=out)
assert np.all(out.asnumpy() == 10.0), out.asnumpy()

# push: the sum over every worker and both local devices (no optimizer: the sum is stored)
kv.push('w', [mx.nd.full((2, 3), rank + 1.0, ctx=devices[0]), mx.nd.ones((2, 3), ctx=devices[1])])
outs = [mx.nd.zeros((2, 3), ctx=d) for d in devices]
kv.pull('w', out=outs)
expected = sum(r + 1.0 for r in range(workers)) + workers
assert all(np.all(o.asnumpy() == expected) for o in outs), (outs[0].asnumpy(), expected)

# pushpull without out: the result comes back into the pushed arrays
both = [mx.nd.ones((2, 3), ctx=d) for d in devices]
kv.pushpull('w', both)
assert all(np.all(b.asnumpy() == 2.0 * workers) for b in both)

# a key big enough to be split over the servers, with momentum SGD on the servers
kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, rescale_grad=1.0))
kv.init('big', mx.nd.zeros((40,)))               # MXNET_KVSTORE_BIGARRAY_BOUND=20: split
for step in range(3):
    kv.push('big', mx.nd.arange(40) * (rank + 1))
big = mx.nd.zeros((40,))
kv.pull('big', out=big)
kv.barrier()
if rank == 0:
    kv.save_optimizer_states(sys.argv[1])
kv.barrier()
kv.load_optimizer_states(sys.argv[1])
kv.push('big', mx.nd.arange(40) * (rank + 1))
kv.pull('big', out=big)
# three momentum steps, a reload of the same states, a fourth step: as if never reloaded
grad = np.arange(40, dtype=np.float32) * sum(r + 1 for r in range(workers))
w, m = np.zeros(40, np.float32), np.zeros(40, np.float32)
for step in range(4):
    m = np.float32(0.9) * m - np.float32(0.1) * grad
    w = w + m
np.testing.assert_allclose(big.asnumpy(), w, rtol=1e-6)
print('worker %d of %d: basics hold' % (rank, workers), flush=True)
