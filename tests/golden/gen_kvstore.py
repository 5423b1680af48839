"""Regenerate kvstore.npz: MXNet 1.9.1's numbers for reflib/kvstore (local and device stores).

Run with a Python that has the real MXNet 1.9.1 (the tests only read the .npz):

    python tests/golden/gen_kvstore.py

The scenarios below are plain functions of the ``mx`` module, so the very same code
runs on MXNet here and on reflib in tests/test_kvstore.py (which imports this file;
mxnet is imported only when it runs as a script).  Each scenario returns a dict of
label -> numpy array (or JSON string); kvstore.npz holds MXNet's, under
``<scenario>/<label>``.

* ``sum/<type>/<keys>``: init, pushes of 1, 2 and 3 arrays on cpu(0..2), pulls into lists of
  outputs, a float64 output, sums of 4, 5, 6 and 9 arrays, several keys at once, a key
  repeated in one push.
  The values span seven orders of magnitude, so the float32 sums show the summation order.
* ``sgd/<type>/<keys>``: ``set_optimizer(SGD(momentum, wd, rescale_grad))``, three steps
  of push (1 to 3 devices) and pull.
* ``updater/<keys>``: a Python updater set with ``_set_updater`` records the key it gets
  (its repr and type), the merged gradient and the stored weight, in call order.
* ``states/<type>``: two SGD steps, ``save_optimizer_states`` (the bytes are kept), two more
  steps; then a fresh store that loads the file continues for the same two steps (with and
  without ``dump_optimizer``).
* ``compression``: 2-bit gradient compression on a ``device`` store.
* ``pushpull``: ``pushpull`` with and without ``out``, ``broadcast``.
* ``errors``: for every misuse, whether MXNet raises (at the call or at the next waitall).
"""

import json
import os
import tempfile
import warnings

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kvstore.npz')

TYPES = ['local', 'device', 'local_update_cpu', 'local_allreduce_cpu', 'local_allreduce_device']
KEYSETS = {'str': ['fc1_weight', 'fc1_bias', 'fc2_weight'], 'int': [3, 7, 11]}
SHAPES = [(3, 4), (5,), (2, 2)]


def _rand(rng, shape):
    """float32 values of wildly different magnitudes (so float32 sums depend on their order)."""
    mag = 10.0 ** rng.integers(-3, 4, size=shape)
    return (rng.normal(size=shape) * mag).astype(np.float32)


def _arrays(mx, rng, shape, n):
    return [mx.nd.array(_rand(rng, shape), ctx=mx.cpu(i)) for i in range(n)]


def _outs(mx, shape, n, dtype='float32'):
    return [mx.nd.zeros(shape, ctx=mx.cpu(i), dtype=dtype) for i in range(n)]


def _record(rec, label, outs):
    rec[label] = np.stack([o.asnumpy() for o in outs])


def scenario_sum(mx, kvtype, keykind):
    """No updater: every push stores the sum, every pull broadcasts it."""
    rng = np.random.default_rng(7)
    keys = KEYSETS[keykind]
    kv = mx.kv.create(kvtype)
    rec = {'meta': json.dumps([kv.type, kv.rank, kv.num_workers])}
    kv.init(keys, [mx.nd.array(_rand(rng, s)) for s in SHAPES])
    out = _outs(mx, SHAPES[0], 1)
    kv.pull(keys[0], out=out)
    _record(rec, 'init0', out)
    # each key always gets the same number of values: MXNet 1.9.1's 'local' store sizes its
    # merge buffers at the first multi-value push of a key and crashes if a later push has more
    for step, (k, n) in enumerate([(0, 1), (1, 2), (2, 3), (0, 1), (1, 2), (2, 3)]):
        vals = _arrays(mx, rng, SHAPES[k], n)
        kv.push(keys[k], vals if n > 1 else vals[0])
        out = _outs(mx, SHAPES[k], max(n, 2))
        kv.pull(keys[k], out=out)
        _record(rec, 'step%d' % step, out)
    out64 = _outs(mx, SHAPES[2], 1, dtype='float64')
    kv.pull(keys[2], out=out64)
    _record(rec, 'float64', out64)
    # the grouping of long sums: one fresh key per length
    for n in (4, 5, 6, 9):
        kv2 = mx.kv.create(kvtype)
        kv2.init(keys[0], mx.nd.zeros(SHAPES[0]))
        kv2.push(keys[0], _arrays(mx, rng, SHAPES[0], n))
        out = _outs(mx, SHAPES[0], 1)
        kv2.pull(keys[0], out=out)
        _record(rec, 'sum%d' % n, out)
    # several keys in one push/pull, one of them twice (2 + 3 values for keys[0])
    kv3 = mx.kv.create(kvtype)
    kv3.init(keys, [mx.nd.array(_rand(rng, s)) for s in SHAPES])
    kv3.push([keys[0], keys[1], keys[0]],
             [_arrays(mx, rng, SHAPES[0], 2), _arrays(mx, rng, SHAPES[1], 3)[0], _arrays(mx, rng, SHAPES[0], 3)])
    outs = [_outs(mx, SHAPES[0], 2), _outs(mx, SHAPES[1], 1)[0], _outs(mx, SHAPES[2], 3)]
    kv3.pull(keys, out=outs)
    _record(rec, 'multi0', outs[0])
    _record(rec, 'multi1', [outs[1]])
    _record(rec, 'multi2', outs[2])
    return rec


def _sgd(mx, keys, **kwargs):
    """SGD as Module would set it up: idx2name from the parameter list (int keys: key -> name)."""
    if isinstance(keys[0], str):
        idx2name = dict(enumerate(keys))      # Module: index -> name, while the store's keys are names
    else:
        idx2name = {k: 'p%d_%s' % (i, 'bias' if i == 1 else 'weight') for i, k in enumerate(keys)}
    params = dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.25, param_idx2name=idx2name)
    params.update(kwargs)
    return mx.optimizer.create('sgd', **params)


def scenario_sgd(mx, kvtype, keykind):
    """set_optimizer: every push runs SGD on the stored weight."""
    rng = np.random.default_rng(11)
    keys = KEYSETS[keykind]
    kv = mx.kv.create(kvtype)
    kv.set_optimizer(_sgd(mx, keys))
    kv.init(keys, [mx.nd.array(rng.normal(size=s).astype(np.float32)) for s in SHAPES])
    rec = {}
    for step in range(3):
        for k, key in enumerate(keys):
            n = 1 + k      # a fixed number of devices per key (see scenario_sum)
            grads = [mx.nd.array(rng.normal(size=SHAPES[k]).astype(np.float32), ctx=mx.cpu(i)) for i in range(n)]
            kv.push(key, grads if n > 1 else grads[0])
            out = _outs(mx, SHAPES[k], 2)
            kv.pull(key, out=out)
            _record(rec, 'step%d_key%d' % (step, k), out)
    return rec


def scenario_updater(mx, keykind):
    """What a Python updater receives: the key (type and value), the merged gradient, the stored weight."""
    keys = KEYSETS[keykind][:2]
    log = []

    def updater(key, grad, weight):
        log.append([repr(key), type(key).__name__, grad.asnumpy().tolist(), weight.asnumpy().tolist()])
        weight[:] = weight - grad * 0.5

    kv = mx.kv.create('local')
    kv._set_updater(updater)
    kv.init(keys, [mx.nd.ones((2,)), mx.nd.ones((3,)) * 2])
    kv.push(keys[1], [mx.nd.ones((3,), ctx=mx.cpu(i)) * (i + 1) for i in range(2)])
    kv.push(keys[0], mx.nd.array([1.0, 3.0]))
    # the keys of one push in reverse init order: in which order does the updater run?
    kv.push([keys[1], keys[0]], [mx.nd.ones((3,)) * 4, [mx.nd.ones((2,)), mx.nd.ones((2,), ctx=mx.cpu(1))]])
    out = _outs(mx, (2,), 1)
    kv.pull(keys[0], out=out)
    rec = {'log': json.dumps(log)}
    _record(rec, 'pull', out)
    return rec


def _states_steps(mx, kv, keys, rng, steps):
    rec = []
    for _ in range(steps):
        for k, key in enumerate(keys[:2]):
            kv.push(key, [mx.nd.array(rng.normal(size=SHAPES[k]).astype(np.float32), ctx=mx.cpu(i))
                          for i in range(2)])
        outs = [_outs(mx, SHAPES[k], 1)[0] for k in range(2)]
        kv.pull(keys[:2], out=outs)
        rec.append([o.asnumpy() for o in outs])
    return rec


def scenario_states(mx, kvtype):
    """save_optimizer_states after two steps; a fresh store that loads them continues identically."""
    keys = KEYSETS['str']
    rng = np.random.default_rng(5)
    init = [rng.normal(size=s).astype(np.float32) for s in SHAPES[:2]]
    kv = mx.kv.create(kvtype)
    kv.set_optimizer(_sgd(mx, keys))
    kv.init(keys[:2], [mx.nd.array(v) for v in init])
    first = _states_steps(mx, kv, keys, rng, 2)
    rec = {'saved_w0': first[-1][0], 'saved_w1': first[-1][1]}
    with tempfile.TemporaryDirectory() as tmp:
        fname = os.path.join(tmp, 'kv.states')
        fdump = os.path.join(tmp, 'kv-dump.states')
        kv.save_optimizer_states(fname)
        kv.save_optimizer_states(fdump, dump_optimizer=True)
        rec['states_bytes'] = np.frombuffer(open(fname, 'rb').read(), dtype=np.uint8)
        rec['states_dump_bytes'] = np.frombuffer(open(fdump, 'rb').read(), dtype=np.uint8)
        rec['continued'] = _flat(_states_steps(mx, kv, keys, np.random.default_rng(99), 2))
        rec['resumed'] = _flat(resume_states(mx, kvtype, fname, first[-1]))
        # lr=0.7 is replaced by the dumped optimizer (lr=0.1) along with the states
        rec['resumed_dump'] = _flat(resume_states(mx, kvtype, fdump, first[-1], lr=0.7))
    return rec


def _flat(steps):
    return np.concatenate([a.ravel() for step in steps for a in step])


def resume_states(mx, kvtype, fname, weights, lr=0.1):
    """A fresh store: init with ``weights``, set SGD (learning rate ``lr``), load ``fname``, two steps."""
    keys = KEYSETS['str']
    kv = mx.kv.create(kvtype)
    kv.set_optimizer(_sgd(mx, keys, learning_rate=lr))
    kv.init(keys[:2], [mx.nd.array(w) for w in weights])
    kv.load_optimizer_states(fname)
    return _states_steps(mx, kv, keys, np.random.default_rng(99), 2)


def scenario_compression(mx):
    """2-bit compression on a device store: values of -t, 0, +t; the rest waits in a residual."""
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.zeros((5,)))
    rec = {}
    grad = np.array([0.3, -0.7, 1.2, 0.1, -0.50001], dtype=np.float32)
    for step in range(3):
        kv.push(0, [mx.nd.array(grad, ctx=mx.cpu(i)) for i in range(2)])
        out = _outs(mx, (5,), 1)
        kv.pull(0, out=out)
        _record(rec, 'multi%d' % step, out)
    for step in range(2):
        kv.push(0, mx.nd.array(grad))
        out = _outs(mx, (5,), 1)
        kv.pull(0, out=out)
        _record(rec, 'single%d' % step, out)
    return rec


def scenario_pushpull(mx):
    kv = mx.kv.create('local')
    kv.init('a', mx.nd.ones((2,)))
    out = _outs(mx, (2,), 2)
    kv.pushpull('a', [mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0], ctx=mx.cpu(1))], out=out)
    rec = {}
    _record(rec, 'pushpull_out', out)
    val = mx.nd.array([7.0, 8.0])
    kv.pushpull('a', val)
    _record(rec, 'pushpull_inplace', [val])
    out = _outs(mx, (3,), 3)
    kv.broadcast('b', mx.nd.array([1.0, -2.0, 4.0]), out=out)
    _record(rec, 'broadcast', out)
    return rec


def _raises(mx, fn):
    try:
        fn()
        mx.nd.waitall()
    except Exception:  # noqa: BLE001 -- MXNet raises MXNetError, AssertionError, TypeError, Exception
        return True
    return False


def error_cases(mx):
    """name -> fn(mx) performing one misuse on a fresh store."""
    nd = mx.nd

    def store(kvtype='local', keys=('w',), updater=False):
        kv = mx.kv.create(kvtype)
        if updater:
            kv._set_updater(lambda key, grad, weight: None)
        for k in keys:
            kv.init(k, nd.ones((2, 3)))
        return kv

    return {
        'create_unknown_name': lambda: mx.kv.create('no_such_store'),
        'create_not_a_str': lambda: mx.kv.create(3),
        'create_dist_sync': lambda: mx.kv.create('dist_sync'),
        'create_nccl': lambda: mx.kv.create('nccl'),
        'reinit_str': lambda: store().init('w', nd.ones((2, 3))),
        'reinit_int': lambda: store(keys=(3,)).init(3, nd.ones((2, 3))),
        'init_one_key_two_values': lambda: store().init('v', [nd.ones((2,)), nd.ones((2,))]),
        'init_count_mismatch': lambda: store().init(['a', 'b'], [nd.ones((2,))]),
        'init_numpy_value': lambda: store().init('v', np.ones((2,))),
        'init_float_key': lambda: store(keys=()).init(1.5, nd.ones((2,))),
        'mixed_key_types': lambda: store().init(3, nd.ones((2,))),
        'push_uninit_str': lambda: store().push('nope', nd.ones((2, 3))),
        'push_uninit_int': lambda: store(keys=(3,)).push(99, nd.ones((2, 3))),
        'pull_uninit_str': lambda: store().pull('nope', out=nd.ones((2, 3))),
        'pull_uninit_int': lambda: store(keys=(3,)).pull(98, out=nd.ones((2, 3))),
        'push_shape_mismatch': lambda: store().push('w', nd.ones((3, 3))),
        'push_list_shape_mismatch': lambda: store().push('w', [nd.ones((2, 3)), nd.ones((3, 3))]),
        'push_count_mismatch': lambda: store().push(['w', 'w'], [nd.ones((2, 3))]),
        'pull_shape_mismatch': lambda: store().pull('w', out=nd.ones((3, 2))),
        'pull_no_out': lambda: store().pull('w'),
        'broadcast_reinit': lambda: store().broadcast('w', nd.ones((2, 3)), out=nd.ones((2, 3))),
        'save_states_no_optimizer': lambda: store().save_optimizer_states(os.devnull),
        'load_states_no_optimizer': lambda: store().load_optimizer_states(os.devnull),
        'set_optimizer_str': lambda: store().set_optimizer('sgd'),
        'compression_on_local': lambda: store().set_gradient_compression({'type': '2bit'}),
        'compression_unknown_type': lambda: store('device').set_gradient_compression({'type': '1bit'}),
        'compression_bad_threshold': lambda: store('device').set_gradient_compression(
            {'type': '2bit', 'threshold': 0.0}),
        'compression_no_type': lambda: store('device').set_gradient_compression({'threshold': 1.0}),
        'is_capable_unknown': lambda: store().is_capable('telepathy'),
        'row_sparse_pull': lambda: store().row_sparse_pull('w', out=nd.ones((2, 3)), row_ids=nd.array([0])),
    }


def scenario_errors(mx):
    return {'raised': json.dumps({name: _raises(mx, fn) for name, fn in sorted(error_cases(mx).items())})}


def scenario_capabilities(mx):
    kv = mx.kv.create('local')
    return {'facts': json.dumps({
        'optimizer_capable': kv.is_capable(mx.kv.KVStoreBase.OPTIMIZER),
        'OPTIMIZER': mx.kv.KVStoreBase.OPTIMIZER,
        'types': [mx.kv.create(t).type for t in TYPES + ['Local', 'DEVICE']],
    })}


def scenarios():
    """name -> fn(mx) -> dict of label -> value."""
    out = {}
    for t in TYPES:
        for kk in KEYSETS:
            out['sum/%s/%s' % (t, kk)] = (lambda mx, t=t, kk=kk: scenario_sum(mx, t, kk))
            out['sgd/%s/%s' % (t, kk)] = (lambda mx, t=t, kk=kk: scenario_sgd(mx, t, kk))
    for kk in KEYSETS:
        out['updater/%s' % kk] = (lambda mx, kk=kk: scenario_updater(mx, kk))
    for t in ('local', 'device'):
        out['states/%s' % t] = (lambda mx, t=t: scenario_states(mx, t))
    out['compression'] = scenario_compression
    out['pushpull'] = scenario_pushpull
    out['errors'] = scenario_errors
    out['capabilities'] = scenario_capabilities
    return out


def main():
    import mxnet as mx
    warnings.simplefilter('ignore')
    assert mx.__version__ == '1.9.1', mx.__version__
    rec = {}
    for name, fn in scenarios().items():
        for label, value in fn(mx).items():
            rec['%s/%s' % (name, label)] = np.asarray(value)
    np.savez_compressed(OUT, **rec)
    print('wrote %s: %d entries, %d bytes' % (OUT, len(rec), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
