"""Row_sparse keys across real processes: ``python sparse_check.py`` on every rank.

Started by tests/test_kvstore_sparse.py with two workers and two servers, and
MXNET_KVSTORE_BIGARRAY_BOUND=20 so that the (8, 3) key is cut between rows 3 and 4,
one half per server.  Checked on every worker (an AssertionError aborts the job, and
the test sees it): ``init`` keeps worker 0's rows; a row_sparse push from both
workers (two devices each) is summed over the union of the rows, zero elsewhere;
``row_sparse_pull`` hands out exactly the rows asked for; SGD on the servers updates
only the rows of the gradient.
"""

import numpy as np

import reflib as mx

SHAPE = (8, 3)
kv = mx.kv.create('dist_sync')
rank, workers = kv.rank, kv.num_workers
devices = [mx.cpu(0), mx.cpu(1)]


def rows_of(rows, values, ctx=mx.cpu(0)):
    data = np.array(values, dtype=np.float32).reshape(len(rows), SHAPE[1])
    return mx.nd.sparse.row_sparse_array((data, np.array(rows, dtype=np.int64)), shape=SHAPE, ctx=ctx)


def pull_rows(row_ids):
    out = [mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=d) for d in devices]
    kv.row_sparse_pull('emb', out=out, row_ids=mx.nd.array(row_ids))
    for o in out[1:]:
        assert np.array_equal(o.indices.asnumpy(), out[0].indices.asnumpy())
        assert np.array_equal(o.data.asnumpy(), out[0].data.asnumpy())
    return out[0].indices.asnumpy().tolist(), out[0].data.asnumpy()


def pull_dense():
    out = mx.nd.zeros(SHAPE)
    kv.pull('emb', out=out)
    return out.asnumpy()


# init: every worker offers its own rows; worker 0's are the ones kept (rows 1 and 6: both servers)
kv.init('emb', rows_of([1, 6], np.arange(6) + 10.0 * (rank + 1)))
indices, data = pull_rows([6, 0, 6, 1])
assert indices == [0, 1, 6], indices
assert np.array_equal(data, [[0, 0, 0], [10, 11, 12], [13, 14, 15]]), data

# push without an optimizer: the sum over both workers and both devices becomes the value
pushes = {r: [rows_of([r, 5], np.ones(6) * (r + 1), ctx=devices[0]), rows_of([5], np.ones(3), ctx=devices[1])]
          for r in range(workers)}
kv.push('emb', pushes[rank])
expected = np.zeros(SHAPE, np.float32)
for r in range(workers):
    expected[r] += r + 1
    expected[5] += r + 2
assert np.array_equal(pull_dense(), expected), (pull_dense(), expected)
indices, data = pull_rows([7, 5, 0])
assert indices == [0, 5, 7] and np.array_equal(data, expected[[0, 5, 7]]), (indices, data)

# SGD on the servers: only the rows of the gradient move
kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, momentum=0, rescale_grad=1.0))
kv.push('emb', rows_of([2 + rank], np.full(3, 2.0 * (rank + 1))))
step = expected.copy()
for r in range(workers):
    step[2 + r] -= 0.5 * 2.0 * (r + 1)
assert np.array_equal(pull_dense(), step), (pull_dense(), step)
indices, data = pull_rows(list(range(SHAPE[0])))
assert indices == list(range(SHAPE[0])) and np.array_equal(data, step)
print('worker %d of %d: row_sparse holds' % (rank, workers), flush=True)
