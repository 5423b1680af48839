"""mx.kv with row_sparse values against MXNet 1.9.1: merges, pulls, row_sparse_pull, updates.

The scenarios live in tests/golden/gen_kvstore_sparse.py and run unchanged on both
libraries; kvstore_sparse.npz holds MXNet's results, compared bit for bit (row
indices, stored rows and dtypes).  The distributed store has no MXNet numbers here:
it is checked against the local store (which the golden numbers pin down), in one
process and in a real two-worker MPI job.
"""
import importlib.util
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import device
import reflib as mx
from reflib.base import MXNetError
from reflib.kvstore import KVStoreError
from reflib.kvstore.dist import row_placement
from reflib.kvstore.server import KVServer

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('gen_kvstore_sparse',
                                               os.path.join(HERE, 'golden', 'gen_kvstore_sparse.py'))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
GOLDEN = np.load(os.path.join(HERE, 'golden', 'kvstore_sparse.npz'))
SCENARIOS = gen.scenarios()
SHAPE = gen.SHAPE
JOB_TIMEOUT = 60


def _same(label, got, want):
    got = np.asarray(got)
    if want.dtype.kind == 'U':
        assert json.loads(str(got)) == json.loads(str(want)), label
    else:
        assert got.dtype == want.dtype and got.shape == want.shape, (label, got.dtype, got.shape, want.shape)
        np.testing.assert_array_equal(got, want, err_msg=label)


def _run_scenario(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')         # the ignored row_sparse pulls say so
        return SCENARIOS[name](mx)


@pytest.mark.parametrize('name', [n for n in SCENARIOS if n != 'errors' and not n.endswith('/row_sparse')])
def test_scenario_matches_mxnet(name):
    rec = _run_scenario(name)
    want = gen.unpack(GOLDEN, name)
    assert sorted(rec) == sorted(want)
    for label, value in rec.items():
        _same(label, value, want[label])


@pytest.mark.parametrize('kvtype', gen.TYPES)
def test_sgd_on_row_sparse_weights_matches_mxnet(kvtype):
    name = 'sgd/%s/row_sparse' % kvtype
    rec = _run_scenario(name)        # the store hands SGD its row_sparse weight, as MXNet's does
    want = gen.unpack(GOLDEN, name)
    assert sorted(rec) == sorted(want)
    for label, value in rec.items():
        _same(label, value, want[label])


def _rsp(rows, values, ctx=None, shape=SHAPE, dtype=np.float32):
    data = np.asarray(values, dtype=dtype).reshape((len(rows),) + tuple(shape[1:]))
    return mx.nd.sparse.row_sparse_array((data, np.array(rows, dtype=np.int64)), shape=shape,
                                         ctx=ctx or mx.cpu(0))


def _rows_and_data(arr):
    return arr.indices.asnumpy().tolist(), arr.data.asnumpy()


# ------------------------------------------------------------------- errors
MESSAGES = {
    'rows_into_dense_output': r"outputs for key 'w' hold no row_sparse arrays \(output 0 of 1 is a default",
    'rows_of_dense_value': r"key 'd' holds a dense array.*PullRowSparse expects row_sparse src",
    'rows_without_row_ids': r"row_sparse_pull\('w'\): row_ids is required",
    'rows_without_out': r"row_sparse_pull\('w'\): out is required",
    'rows_numpy_row_ids': r"row_sparse_pull\('w'\): row_ids must be an NDArray or a list of NDArrays, got ndarray",
    'rows_count_mismatch': r"row_sparse_pull\('w'\): 3 output\(s\) but 2 row_ids",
    'rows_uninit': r"row_sparse_pull: key 'nope' has not been initialised",
    'rows_shape_mismatch': r"key 'w' holds an array of shape \(6, 3\), but output 0 of 1 has shape \(5, 3\)",
    'rows_out_of_range': r"row_ids for key 'w' hold \[6\], outside its 6 rows \[0, 6\)",
    'rows_negative': r"row_ids for key 'w' hold \[-1\], outside its 6 rows",
    'push_rows_shape_mismatch': r"push: key 'w' holds an array of shape \(6, 3\), but value 0 of 1 .* \(7, 3\)",
    'push_csr': r"push: value 0 of 1 for key 'd' is a csr array; a KVStore holds dense and row_sparse",
    'init_csr': r"init: value 0 of 1 for key 'c' is a csr array",
    'push_rows_compressed': r"value 0 of 2 for key 'w' is row_sparse, but this store has gradient compression",
}
# where reflib is stricter than MXNet 1.9.1, which goes on silently: row ids outside the array
# give an invalid array there, a row_sparse push is quantised as if its rows were the first ones,
# and a CSR value is accepted at init (its push fails)
STRICTER = {'rows_out_of_range', 'rows_negative', 'push_rows_compressed', 'init_csr'}


@pytest.mark.parametrize('case', sorted(MESSAGES))
def test_misuse_raises_a_clear_error(case):
    mxnet_raised = json.loads(str(gen.unpack(GOLDEN, 'errors')['raised']))
    assert set(mxnet_raised) == set(MESSAGES)
    assert mxnet_raised[case] == (case not in STRICTER)
    with pytest.raises(MXNetError, match=MESSAGES[case]):
        gen.error_cases(mx)[case]()


def test_a_failed_row_sparse_pull_writes_nothing():
    kv = mx.kv.create('local')
    kv.init('w', _rsp([1], np.ones(3)))
    outs = [_rsp([0], np.full(3, 7.0)), mx.nd.sparse.zeros('row_sparse', SHAPE)]
    with pytest.raises(KVStoreError, match='outside its 6 rows'):
        kv.row_sparse_pull('w', out=outs, row_ids=[mx.nd.array([1]), mx.nd.array([9])])
    assert _rows_and_data(outs[0])[0] == [0] and outs[0].data.asnumpy().tolist() == [[7, 7, 7]]


# ------------------------------------------------------------------- semantics beyond the golden numbers
def test_an_ignored_row_sparse_pull_warns_once_per_key():
    kv = mx.kv.create('local')
    kv.init(['a', 'b'], [_rsp([1], np.ones(3)), _rsp([2], np.ones(3))])
    out = mx.nd.sparse.zeros('row_sparse', SHAPE)
    with pytest.warns(UserWarning, match=r"pull\('a'\): row_sparse outputs are left unchanged.*row_sparse_pull"):
        kv.pull('a', out=out)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        kv.pull('a', out=out)                  # said once for 'a'
    with pytest.warns(UserWarning, match=r"pull\('b'\)"):
        kv.pull('b', out=out)
    assert _rows_and_data(out)[0] == []


def test_outputs_keep_their_dtype_and_device():
    kv = mx.kv.create('local')
    kv.init('w', _rsp([1, 4], np.arange(6) + 0.5))
    outs = [mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=mx.cpu(2), dtype='float64'),
            mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=mx.cpu(3), dtype='float16')]
    kv.row_sparse_pull('w', out=outs, row_ids=mx.nd.array([4, 0]))
    assert [(o.dtype, o.context) for o in outs] == [(np.float64, mx.cpu(2)), (np.float16, mx.cpu(3))]
    for o in outs:
        rows, data = _rows_and_data(o)
        assert rows == [0, 4] and data.tolist() == [[0, 0, 0], [3.5, 4.5, 5.5]]
    dense = mx.nd.zeros(SHAPE, dtype='float16')
    kv.pull('w', out=dense)
    assert dense.dtype == np.float16 and dense.asnumpy()[4].tolist() == [3.5, 4.5, 5.5]


def test_the_store_keeps_copies_not_the_callers_arrays():
    kv = mx.kv.create('device')
    value = _rsp([2], np.ones(3))
    kv.init('w', value)
    pushed = _rsp([3], np.full(3, 2.0))
    kv.push('w', pushed)
    pushed._data[...] = 100                    # reflib copies; MXNet's device store would keep `pushed`
    out = mx.nd.sparse.zeros('row_sparse', SHAPE)
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.array([2, 3]))
    assert out.data.asnumpy().tolist() == [[0, 0, 0], [2, 2, 2]]
    out._data[...] = 50                        # writing into an output changes nothing stored
    again = mx.nd.zeros(SHAPE)
    kv.pull('w', out=again)
    assert again.asnumpy()[3].tolist() == [2, 2, 2]


def test_device_store_merges_rows_on_the_first_values_device():
    seen = []
    for kvtype in ('local', 'device'):
        kv = mx.kv.create(kvtype)
        kv.init(0, _rsp([0], np.ones(3)))
        kv._set_updater(lambda key, grad, weight: seen.append((kvtype, grad.stype, grad.context)))
        kv.push(0, [_rsp([1], np.ones(3), ctx=mx.cpu(2)), _rsp([2], np.ones(3), ctx=mx.cpu(3))])
        kv.push(0, _rsp([1], np.ones(3), ctx=mx.cpu(1)))
    assert seen == [('local', 'row_sparse', mx.cpu_pinned(0)), ('local', 'row_sparse', mx.cpu_pinned(0)),
                    ('device', 'row_sparse', mx.cpu(2)), ('device', 'row_sparse', mx.cpu(1))]


def test_row_sums_use_mxnets_order():
    # float32: (0 + 1e8) + 4 + 4 is not 1e8 + (4 + 4); each row is summed value by value
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.sparse.zeros('row_sparse', (2, 1)))
    kv.push(0, [_rsp([0], [1e8], shape=(2, 1)), _rsp([0, 1], [4.0, 1.0], shape=(2, 1)),
                _rsp([0], [4.0], shape=(2, 1))])
    out = mx.nd.zeros((2, 1))
    kv.pull(0, out=out)
    assert out.asnumpy().ravel().tolist() == [1e8, 1.0]


def test_optimizer_on_a_dense_key_with_row_sparse_gradients_moves_only_their_rows():
    kv = mx.kv.create('local')
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, momentum=0))
    kv.init('w', mx.nd.ones(SHAPE))
    kv.push('w', [_rsp([1], np.ones(3)), _rsp([1, 4], np.ones(6), ctx=mx.cpu(1))])
    out = mx.nd.zeros(SHAPE)
    kv.pull('w', out=out)
    expected = np.ones(SHAPE, np.float32)
    expected[1] -= 1.0
    expected[4] -= 0.5
    np.testing.assert_array_equal(out.asnumpy(), expected)


def _device_run(kvtype, ctx):
    """Every row_sparse path of a store, with all arrays on ``ctx``; the results on the host."""
    rng = np.random.default_rng(0)
    kv = mx.kv.create(kvtype)
    kv.init('w', _rsp([1, 4], np.arange(6.0) + 1, ctx=ctx))
    kv.init('d', mx.nd.ones(SHAPE, ctx=ctx))
    dense = rng.normal(size=SHAPE)
    dense[[2, 3]] = 0
    vals = [_rsp([0, 4], rng.normal(size=6), ctx=ctx), _rsp([4, 5], rng.normal(size=6), ctx=ctx),
            mx.nd.array(dense, ctx=ctx)]
    kv.push('w', vals)                         # row_sparse first: the dense value counts with its rows
    kv.push('d', vals[:2])                     # the dense key becomes row_sparse
    results = []
    for key in ('w', 'd'):
        rows = [mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=ctx) for _ in range(2)]
        kv.row_sparse_pull(key, out=rows, row_ids=mx.nd.array([5, 0, 0, 2], ctx=ctx))
        whole = mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=ctx)
        kv.pull(key, out=whole, ignore_sparse=False)
        out = mx.nd.zeros(SHAPE, ctx=ctx)
        kv.pull(key, out=out)
        results += [_rows_and_data(r) for r in rows + [whole]] + [out.asnumpy()]
    kv.init('sgd', mx.nd.ones(SHAPE, ctx=ctx))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, momentum=0))
    kv.push('sgd', vals[:2])
    out = mx.nd.zeros(SHAPE, ctx=ctx)
    kv.pull('sgd', out=out)
    return results + [out.asnumpy()]


@pytest.mark.parametrize('kvtype', ['local', 'device'])
def test_row_sparse_values_on_the_test_device_give_the_cpus_numbers(kvtype):
    # under REFLIB_TEST_DEVICE=strict (or gpu) the arrays live on gpu(0): every step must run there
    # without an implicit copy to the host
    on_device, on_cpu = _device_run(kvtype, device.CTX), _device_run(kvtype, mx.cpu(0))
    for got, want in zip(on_device, on_cpu):
        if isinstance(want, tuple):
            assert got[0] == want[0]
            got, want = got[1], want[1]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------- the distributed store, in one process
def test_row_sparse_keys_are_cut_between_rows():
    assert row_placement(0, (8, 3), 2, bound=20) == [(0, 0, 12), (1, 12, 24)]
    assert row_placement(0, (5, 2), 2, bound=1) == [(0, 0, 6), (1, 6, 10)]     # 2.5 rows: C's round
    assert row_placement(3, (8, 3), 2) == [((3 * 9973) % 2, 0, 24)]            # small: whole on one server


def _stores(monkeypatch, servers, bound):
    monkeypatch.setenv('DMLC_NUM_SERVER', str(servers))
    monkeypatch.setenv('MXNET_KVSTORE_BIGARRAY_BOUND', str(bound))
    return mx.kv.create('dist_sync'), mx.kv.create('local')


def _everything(kv, key, shape):
    dense = mx.nd.zeros(shape)
    kv.pull(key, out=dense)
    rows = mx.nd.sparse.zeros('row_sparse', shape)
    kv.row_sparse_pull(key, out=rows, row_ids=mx.nd.array([shape[0] - 1, 0, 3, 3]))
    return dense.asnumpy(), rows.indices.asnumpy(), rows.data.asnumpy()


@pytest.mark.parametrize('servers, bound', [(1, 1000), (2, 20), (3, 1)])
def test_in_process_dist_store_holds_rows_as_the_local_store(monkeypatch, servers, bound):
    dist, local = _stores(monkeypatch, servers, bound)
    rng = np.random.default_rng(servers)
    shape = (8, 3)
    pushes = [[_rsp([0, 5], rng.normal(size=6), shape=shape, ctx=mx.cpu(0)),
               _rsp([5, 7], rng.normal(size=6), shape=shape, ctx=mx.cpu(1))],
              [_rsp([], [], shape=shape)],
              [mx.nd.array(rng.normal(size=shape))],                  # a dense push to a row_sparse key
              [_rsp([2, 3, 4], rng.normal(size=9), shape=shape)]]
    for kv in (dist, local):
        kv.init('e', _rsp([1, 4], np.arange(6) + 1.0, shape=shape))
    for vals in pushes:
        for kv in (dist, local):
            kv.push('e', vals)
        expected = mx.nd.zeros(shape)
        local.pull('e', out=expected)
        expected = expected.asnumpy()
        dense, rows, data = _everything(dist, 'e', shape)
        np.testing.assert_array_equal(dense, expected)
        # the servers hold every row, so every row asked for comes back (the local store gives
        # none when its value stores no row at all, as MXNet's), and the key stays row_sparse
        # after a dense push (the local store's becomes dense, as MXNet's)
        assert rows.tolist() == [0, 3, 7]
        np.testing.assert_array_equal(data, expected[rows])


def test_in_process_dist_sgd_on_rows_is_local_sgd(monkeypatch):
    dist, local = _stores(monkeypatch, 2, 20)
    shape = (8, 3)
    dist.init('e', _rsp(list(range(8)), np.arange(24.0), shape=shape))
    local.init('e', mx.nd.array(np.arange(24.0).reshape(shape)))        # a dense weight: the same numbers
    for kv in (dist, local):
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0))
    for rows in ([0, 6], [3], [2, 4, 7]):
        grad = _rsp(rows, np.arange(3.0 * len(rows)) + 1, shape=shape)
        for kv in (dist, local):
            kv.push('e', [grad, grad.copyto(mx.cpu(1))])
        expected = mx.nd.zeros(shape)
        local.pull('e', out=expected)
        dense, rows, data = _everything(dist, 'e', shape)
        np.testing.assert_array_equal(dense, expected.asnumpy())
        np.testing.assert_array_equal(data, expected.asnumpy()[rows])


def test_in_process_dist_store_refuses_what_it_cannot_do(monkeypatch):
    dist, _ = _stores(monkeypatch, 2, 20)
    dist.init(['d', 'e'], [mx.nd.ones(SHAPE), _rsp([1], np.ones(3))])
    with pytest.raises(KVStoreError, match=r"value 0 of 1 for key 'd' is row_sparse, but the key was initialised "
                                           r"with a dense array"):
        dist.push('d', _rsp([1], np.ones(3)))
    with pytest.raises(KVStoreError, match=r"key 'e': a dist_sync store pulls into dense outputs only"):
        dist.pull('e', out=mx.nd.sparse.zeros('row_sparse', SHAPE), ignore_sparse=False)
    with pytest.raises(KVStoreError, match=r"key 'd' holds a dense array"):
        dist.row_sparse_pull('d', out=mx.nd.sparse.zeros('row_sparse', SHAPE), row_ids=mx.nd.array([1]))
    dist.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    with pytest.raises(KVStoreError, match=r"key 'e' is row_sparse, but this store has gradient compression"):
        dist.push('e', _rsp([1], np.ones(3)))


def _row_server(num_workers, updater=None):
    server = KVServer(0, num_workers)
    server.handle(0, ('create', 0, 's', None, ('dist_sync', True)))
    server.handle(0, ('init', 1, 's', 3, ('w', np.zeros(8, np.float32), (2,))))    # 4 rows of 2
    server.stores['s'].updater = updater
    return server


def _push_rows(server, worker, rows, values):
    return server.handle(worker, ('push_rows', None, 's', 3, (np.array(rows, np.int64),
                                                              np.array(values, np.float32).reshape(len(rows), 2))))


def test_server_sums_a_round_of_row_pushes_over_their_union():
    seen = []

    def updater(key, grad, weight):
        seen.append((grad.stype, grad.indices.asnumpy().tolist(), grad.data.asnumpy().tolist(), weight.shape))
        weight[:] = weight - grad.tostype('default')

    server = _row_server(2, updater)
    _push_rows(server, 1, [0, 3], [1, 2, 3, 4])
    assert server.handle(1, ('pull_rows', 'a', 's', 3, np.array([3, 0]))) == []    # waits for the round
    replies = _push_rows(server, 0, [3], [10, 20])
    assert seen == [('row_sparse', [0, 3], [[1, 2], [13, 24]], (4, 2))]
    [(worker, (request_id, ok, rows))] = replies
    assert (worker, request_id, ok) == (1, 'a', True) and rows.tolist() == [[-13, -24], [-1, -2]]


def test_server_without_updater_keeps_the_row_sum_and_zeros_elsewhere():
    server = _row_server(1)
    server.handle(0, ('push', None, 's', 3, np.arange(8, dtype=np.float32)))        # dense: every row
    _push_rows(server, 0, [2], [5, 6])
    [(_, (_, _, value))] = server.handle(0, ('pull', 'b', 's', 3, None))
    assert value.tolist() == [0, 0, 0, 0, 5, 6, 0, 0]


def test_server_sums_a_round_of_dense_and_row_pushes_densely():
    server = _row_server(2)
    _push_rows(server, 0, [1], [1, 1])
    server.handle(1, ('push', None, 's', 3, np.ones(8, dtype=np.float32)))
    [(_, (_, _, value))] = server.handle(0, ('pull', 'c', 's', 3, None))
    assert value.tolist() == [1, 1, 2, 2, 1, 1, 1, 1]


# ------------------------------------------------------------------- a real MPI job
@pytest.mark.skipif(device.ON_DEVICE, reason='an MPI job of CPU processes: the plain (CPU) pass runs it')
def test_two_workers_two_servers_push_and_pull_rows(tmp_path):
    done = subprocess.run([sys.executable, '-m', 'reflib.launch', '--timeout', str(JOB_TIMEOUT - 10), '-n', '2',
                           '-s', '2', '--env', 'MXNET_KVSTORE_BIGARRAY_BOUND=20', sys.executable,
                           os.path.join(HERE, 'dist_scripts', 'sparse_check.py')],
                          capture_output=True, text=True, timeout=JOB_TIMEOUT, cwd=str(tmp_path),
                          env=dict(os.environ, OMP_NUM_THREADS='1'))
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert log.count('row_sparse holds') == 2, log
