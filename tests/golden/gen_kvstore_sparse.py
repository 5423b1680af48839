"""Regenerate kvstore_sparse.npz: MXNet 1.9.1's KVStore with row_sparse values.

Run with a Python that has the real MXNet 1.9.1 (the tests only read the .npz):

    /tmp/mxv/bin/python tests/golden/gen_kvstore_sparse.py

As in gen_kvstore.py, every scenario is a plain function of the ``mx`` module, so the
same code runs on MXNet here and on reflib in tests/test_kvstore_sparse.py (which
imports this file).  A scenario returns label -> numpy array (or JSON string); a
row_sparse result is kept as ``<label>.indices`` and ``<label>.data``, a dense one
as ``<label>``.  kvstore_sparse.npz holds MXNet's, packed per scenario (``pack``;
``unpack`` gives the labels back).

* ``merge/<type>``: row_sparse pushes of 1 to 4 values (on cpu(0..3), rows that overlap,
  one value with no rows, magnitudes far apart so that the float32 sums show their
  order), each followed by ``pull`` (dense outputs; row_sparse outputs with
  ``ignore_sparse`` True and False) and ``row_sparse_pull`` of every row.  Also a
  row_sparse push onto a dense key, a dense push onto a row_sparse key, a push that mixes
  both (row_sparse first), one key twice in one push, and ``pushpull``/``broadcast``
  with row_sparse arrays.
* ``rowpull/<type>``: ``row_sparse_pull`` with unsorted and repeated row ids, 2-D, float
  and int64 ids, no ids, one ids for several outputs, one ids per output, several keys,
  and a value that stores no rows.  (Not a float64 output: MXNet's ``device`` store
  fails on one, its ``local`` store casts.)
* ``updater/<type>/<keys>``: an updater set with ``_set_updater`` records what it gets
  (key, the merged gradient, the stored weight, each with its storage type) and adds
  the gradient to the weight, on a row_sparse key with every row, one with some rows,
  and a dense key.
* ``sgd/<type>/<stype>``: ``set_optimizer(SGD(learning_rate=0.1, momentum=0))``, three
  steps of row_sparse pushes (1 to 3 devices) on dense keys, or on row_sparse keys that
  store every row.
* ``errors``: for every misuse, whether MXNet raises.
"""

import json
import os
import warnings

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kvstore_sparse.npz')

TYPES = ['local', 'device']
SHAPE = (6, 3)


def _rand(rng, shape):
    """float32 values of wildly different magnitudes (so float32 sums depend on their order)."""
    mag = 10.0 ** rng.integers(-3, 5, size=shape)
    return (rng.normal(size=shape) * mag).astype(np.float32)


def _rsp(mx, rng, rows, ctx=None, shape=SHAPE):
    assert list(rows) == sorted(set(rows)), 'a row_sparse array lists its rows sorted, each once'
    data = _rand(rng, (len(rows),) + shape[1:])
    return mx.nd.sparse.row_sparse_array((data, np.array(rows, dtype=np.int64)), shape=shape,
                                         ctx=ctx or mx.cpu(0))


def _rsp_zeros(mx, ctx=None, dtype='float32'):
    return mx.nd.sparse.zeros('row_sparse', SHAPE, ctx=ctx or mx.cpu(0), dtype=dtype)


def _keep(rec, label, arr):
    """Record ``arr``: row_sparse as its indices and data, dense as it is."""
    if arr.stype == 'row_sparse':
        rec[label + '.indices'] = arr.indices.asnumpy().astype(np.int64)
        rec[label + '.data'] = arr.data.asnumpy()
    else:
        rec[label] = arr.asnumpy()


def _all_rows(mx):
    return mx.nd.array(np.arange(SHAPE[0]))


def _look(mx, kv, key, rec, label):
    """Record key's value three ways: a dense pull, a row_sparse pull of every row, a whole copy."""
    dense = mx.nd.zeros(SHAPE)
    kv.pull(key, out=dense)
    _keep(rec, label + '/pull', dense)
    whole = _rsp_zeros(mx)
    kv.pull(key, out=whole, ignore_sparse=False)
    _keep(rec, label + '/whole', whole)
    try:
        rows = _rsp_zeros(mx)
        kv.row_sparse_pull(key, out=rows, row_ids=_all_rows(mx))
        mx.nd.waitall()
        _keep(rec, label + '/rows', rows)
    except Exception:  # noqa: BLE001 -- MXNet: the stored value is dense
        rec[label + '/rows_refused'] = np.array(True)


def scenario_merge(mx, kvtype):
    rng = np.random.default_rng(11)
    kv = mx.kv.create(kvtype)
    rec = {}
    # one key per number of values: MXNet 1.9.1's 'local' store sizes a key's merge buffers
    # at its first multi-value push and fails if a later push has more values
    rows_per_device = [[0, 2, 3], [2, 5], [], [0, 1, 2, 3, 4, 5]]
    for n in (1, 2, 3, 4):
        key = 'w%d' % n
        kv.init(key, _rsp(mx, rng, [1, 4]))
        _look(mx, kv, key, rec, '%s/init' % key)
        for step in range(2):
            vals = [_rsp(mx, rng, rows_per_device[(i + step) % 4], ctx=mx.cpu(i)) for i in range(n)]
            kv.push(key, vals if n > 1 else vals[0])
            _look(mx, kv, key, rec, '%s/step%d' % (key, step))
        # pull with ignore_sparse left at True: row_sparse outputs stay as they were
        kept = _rsp(mx, rng, [3])
        kv.pull(key, out=kept)
        _keep(rec, '%s/ignored' % key, kept)
    # row_sparse pushes onto a dense key: the key becomes row_sparse
    kv.init('d', mx.nd.array(_rand(rng, SHAPE)))
    _look(mx, kv, 'd', rec, 'd/init')
    kv.push('d', [_rsp(mx, rng, [1, 3], ctx=mx.cpu(0)), _rsp(mx, rng, [3, 4], ctx=mx.cpu(1))])
    _look(mx, kv, 'd', rec, 'd/after_rows')
    # a dense push onto a row_sparse key: the key becomes dense
    kv.init('r', _rsp(mx, rng, [0, 5]))
    kv.push('r', mx.nd.array(_rand(rng, SHAPE)))
    _look(mx, kv, 'r', rec, 'r/after_dense')
    # a row_sparse value first, then a dense one (with two zero rows): summed as row_sparse
    kv.init('m', _rsp(mx, rng, [2]))
    dense = _rand(rng, SHAPE)
    dense[[1, 4]] = 0
    kv.push('m', [_rsp(mx, rng, [0, 1], ctx=mx.cpu(0)), mx.nd.array(dense, ctx=mx.cpu(1))])
    _look(mx, kv, 'm', rec, 'm/mixed')
    # one key twice in one push: all its values are summed
    kv.init('t', _rsp(mx, rng, [0]))
    kv.push(['t', 't'], [_rsp(mx, rng, [1, 2]), _rsp(mx, rng, [2, 3])])
    _look(mx, kv, 't', rec, 't/twice')
    # pushpull and broadcast pull with ignore_sparse: row_sparse outputs are skipped
    value = _rsp(mx, rng, [4])
    out = [_rsp_zeros(mx), mx.nd.zeros(SHAPE)]
    kv.pushpull('t', value, out=out)
    _keep(rec, 'pushpull/value', value)
    _keep(rec, 'pushpull/out0', out[0])
    _keep(rec, 'pushpull/out1', out[1])
    out = [_rsp_zeros(mx), mx.nd.zeros(SHAPE)]
    kv.broadcast('b', _rsp(mx, rng, [1, 5]), out=out)
    _keep(rec, 'broadcast/out0', out[0])
    _keep(rec, 'broadcast/out1', out[1])
    return rec


def scenario_rowpull(mx, kvtype):
    rng = np.random.default_rng(5)
    nd = mx.nd
    kv = mx.kv.create(kvtype)
    kv.init('w', _rsp(mx, rng, [0, 2, 3]))
    kv.init('v', _rsp(mx, rng, [1, 5]))
    kv.init('empty', _rsp_zeros(mx))
    rec = {}

    def pull(label, key, row_ids, n=None, dtype='float32', keys=None):
        outs = [_rsp_zeros(mx, ctx=mx.cpu(i), dtype=dtype) for i in range(n or 1)]
        kv.row_sparse_pull(key, out=outs if n else outs[0], row_ids=row_ids)
        for i, o in enumerate(outs):
            _keep(rec, '%s/%d' % (label, i), o)
            rec['%s/%d.dtype' % (label, i)] = json.dumps(np.dtype(o.dtype).name)

    pull('unsorted_repeated', 'w', nd.array([5, 3, 3, 0, 2, 5]))
    pull('two_d', 'w', nd.array([[4, 2], [2, 0]]))
    pull('float_ids', 'w', nd.array([2.7, 0.2, 3.9]))
    pull('int64_ids', 'w', nd.array([3, 1], dtype='int64'))
    pull('no_ids', 'w', nd.array([]))
    pull('one_ids_three_outputs', 'w', nd.array([3, 1]), n=3)
    pull('ids_per_output', 'w', [nd.array([3]), nd.array([1, 0]), nd.array([5, 2, 2])], n=3)
    pull('ids_elsewhere', 'w', nd.array([2, 4], ctx=mx.cpu(2)))
    pull('nothing_stored', 'empty', nd.array([1, 2]))
    outs = [[_rsp_zeros(mx) for _ in range(2)], [_rsp_zeros(mx) for _ in range(2)]]
    kv.row_sparse_pull(['w', 'v'], out=outs, row_ids=[[nd.array([0, 1])] * 2, [nd.array([5]), nd.array([0, 5])]])
    for k, group in zip('wv', outs):
        for i, o in enumerate(group):
            _keep(rec, 'keys/%s%d' % (k, i), o)
    # an output that already holds rows is replaced, not added to
    full = _rsp(mx, rng, [0, 1, 2, 3, 4, 5])
    kv.row_sparse_pull('v', out=full, row_ids=nd.array([1]))
    _keep(rec, 'replaces', full)
    return rec


def scenario_updater(mx, kvtype, keykind):
    rng = np.random.default_rng(3)
    keys = {'str': ['full', 'part', 'dense'], 'int': [4, 9, 13]}[keykind]
    kv = mx.kv.create(kvtype)
    log = []
    rec = {}

    def updater(key, grad, weight):
        n = len(log)
        log.append([repr(key), type(key).__name__, grad.stype, weight.stype])
        _keep(rec, 'call%d/grad' % n, grad)
        _keep(rec, 'call%d/weight' % n, weight)
        if weight.stype == 'row_sparse':
            (weight + grad).copyto(weight)
        else:
            weight += grad.tostype('default')

    kv._set_updater(updater)
    kv.init(keys[0], mx.nd.array(_rand(rng, SHAPE)).tostype('row_sparse'))
    kv.init(keys[1], _rsp(mx, rng, [1, 4]))
    kv.init(keys[2], mx.nd.array(_rand(rng, SHAPE)))
    for step in range(2):
        for k in keys:
            kv.push(k, [_rsp(mx, rng, [0, 3 + step], ctx=mx.cpu(0)), _rsp(mx, rng, [3, 5], ctx=mx.cpu(1)),
                        _rsp(mx, rng, [step], ctx=mx.cpu(2))])
    for k in keys:
        kv.push(k, _rsp(mx, rng, [2], ctx=mx.cpu(3)))
    rec['log'] = json.dumps(log)
    for k in keys:
        out = mx.nd.zeros(SHAPE)
        kv.pull(k, out=out)
        _keep(rec, 'final/%s' % k, out)
    return rec


def scenario_sgd(mx, kvtype, stype):
    """SGD on keys that hold ``stype`` weights (a row_sparse one stores every row, which MXNet's
    SGD requires), with row_sparse gradients from 1, 2 and 3 devices."""
    rng = np.random.default_rng(17)
    kv = mx.kv.create(kvtype)
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0))
    rec = {}
    for n in (1, 2, 3):
        kv.init('w%d' % n, mx.nd.array(_rand(rng, SHAPE)).tostype(stype))
    for step in range(3):
        for n in (1, 2, 3):
            k = 'w%d' % n
            rows = [sorted({(step + i) % 6, (2 * step + i + 3) % 6}) for i in range(n)]
            vals = [_rsp(mx, rng, r, ctx=mx.cpu(i)) for i, r in enumerate(rows)]
            kv.push(k, vals if n > 1 else vals[0])
            out = mx.nd.zeros(SHAPE)
            kv.pull(k, out=out)
            _keep(rec, '%s/step%d' % (k, step), out)
            if stype == 'row_sparse':
                rows = _rsp_zeros(mx)
                kv.row_sparse_pull(k, out=rows, row_ids=mx.nd.array([step, 5, 1]))
                _keep(rec, '%s/step%d/rows' % (k, step), rows)
    return rec


def _raises(mx, fn):
    try:
        fn()
        mx.nd.waitall()
    except Exception:  # noqa: BLE001 -- MXNet raises MXNetError or AssertionError
        return True
    return False


def error_cases(mx):
    """name -> fn() performing one misuse on a fresh store."""
    nd = mx.nd
    rng = np.random.default_rng(0)

    def store(kvtype='local'):
        kv = mx.kv.create(kvtype)
        kv.init('w', _rsp(mx, rng, [1, 3]))
        kv.init('d', nd.ones(SHAPE))
        return kv

    def compressed_push():
        kv = mx.kv.create('device')
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        kv.init('w', _rsp(mx, rng, [1, 3]))
        kv.push('w', [_rsp(mx, rng, [1]), _rsp(mx, rng, [2], ctx=mx.cpu(1))])

    csr = nd.sparse.csr_matrix(np.eye(SHAPE[0], SHAPE[1], dtype=np.float32))
    return {
        'rows_into_dense_output': lambda: store().row_sparse_pull('w', out=nd.zeros(SHAPE), row_ids=nd.array([1])),
        'rows_of_dense_value': lambda: store().row_sparse_pull('d', out=_rsp_zeros(mx), row_ids=nd.array([1])),
        'rows_without_row_ids': lambda: store().row_sparse_pull('w', out=_rsp_zeros(mx)),
        'rows_without_out': lambda: store().row_sparse_pull('w', row_ids=nd.array([1])),
        'rows_numpy_row_ids': lambda: store().row_sparse_pull('w', out=_rsp_zeros(mx), row_ids=np.array([1])),
        'rows_count_mismatch': lambda: store().row_sparse_pull(
            'w', out=[_rsp_zeros(mx) for _ in range(3)], row_ids=[nd.array([1])] * 2),
        'rows_uninit': lambda: store().row_sparse_pull('nope', out=_rsp_zeros(mx), row_ids=nd.array([1])),
        'rows_shape_mismatch': lambda: store().row_sparse_pull(
            'w', out=nd.sparse.zeros('row_sparse', (5, 3)), row_ids=nd.array([1])),
        'rows_out_of_range': lambda: store().row_sparse_pull('w', out=_rsp_zeros(mx), row_ids=nd.array([1, 6])),
        'rows_negative': lambda: store().row_sparse_pull('w', out=_rsp_zeros(mx), row_ids=nd.array([-1])),
        'push_rows_shape_mismatch': lambda: store().push('w', _rsp(mx, rng, [1], shape=(7, 3))),
        'push_csr': lambda: store().push('d', csr),
        'init_csr': lambda: store().init('c', csr),
        'push_rows_compressed': compressed_push,
    }


def scenario_errors(mx):
    return {'raised': json.dumps({name: _raises(mx, fn) for name, fn in sorted(error_cases(mx).items())})}


def scenarios():
    """name -> fn(mx) -> dict of label -> value."""
    out = {}
    for t in TYPES:
        out['merge/%s' % t] = (lambda mx, t=t: scenario_merge(mx, t))
        out['rowpull/%s' % t] = (lambda mx, t=t: scenario_rowpull(mx, t))
        for stype in ('default', 'row_sparse'):
            out['sgd/%s/%s' % (t, stype)] = (lambda mx, t=t, stype=stype: scenario_sgd(mx, t, stype))
        for kk in ('str', 'int'):
            out['updater/%s/%s' % (t, kk)] = (lambda mx, t=t, kk=kk: scenario_updater(mx, t, kk))
    out['errors'] = scenario_errors
    return out


def pack(rec):
    """One scenario's many small arrays as three npz entries (each entry costs a few hundred
    bytes): ``index`` (JSON: label, dtype, shape, or the JSON text itself), and every array
    of a dtype one after the other in ``<dtype>``."""
    index, parts = [], {}
    for label in sorted(rec):
        value = np.asarray(rec[label])
        if value.dtype.kind == 'U':
            index.append([label, 'json', str(value)])
        else:
            index.append([label, value.dtype.name, list(value.shape)])
            parts.setdefault(value.dtype.name, []).append(value.reshape(-1))
    packed = {name: np.concatenate(arrays) for name, arrays in parts.items()}
    packed['index'] = np.asarray(json.dumps(index))
    return packed


def unpack(golden, name):
    """The label -> value dict that ``pack`` stored for scenario ``name`` in npz ``golden``."""
    rec, offsets = {}, {}
    for label, kind, shape in json.loads(str(golden['%s/index' % name])):
        if kind == 'json':
            rec[label] = np.asarray(shape)
            continue
        start = offsets.get(kind, 0)
        size = int(np.prod(shape, dtype=np.int64))
        rec[label] = golden['%s/%s' % (name, kind)][start:start + size].reshape(shape)
        offsets[kind] = start + size
    return rec


def main():
    os.environ.setdefault('MXNET_STORAGE_FALLBACK_LOG_VERBOSE', '0')
    import mxnet as mx
    warnings.simplefilter('ignore')
    assert mx.__version__ == '1.9.1', mx.__version__
    rec = {}
    for name, fn in scenarios().items():
        for part, value in pack(fn(mx)).items():
            rec['%s/%s' % (name, part)] = value
    np.savez_compressed(OUT, **rec)
    print('wrote %s: %d entries, %d bytes' % (OUT, len(rec), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
