"""Distributed KVStore: the server's rules, key placement, and real MPI jobs started with reflib.launch.

The MPI tests start ``python -m reflib.launch`` (mpiexec from the mpich wheel) as a
subprocess with a timeout, so a hang fails the test instead of stalling the suite.
Their numbers are compared with tests/golden/dist.npz, recorded from MXNet 1.9.1's own
parameter server running the very same script (tests/golden/gen_dist.py).
"""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.kvstore.base import KVStoreError
from reflib.kvstore.dist import LocalLink, DistKVStore, placement
from reflib.kvstore.server import KVServer

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, 'dist_scripts')
GOLDEN = np.load(os.path.join(HERE, 'golden', 'dist.npz'))
JOB_TIMEOUT = 60


# ---------------------------------------------------------------- which server holds which key
def test_small_keys_go_whole_to_one_server_as_in_mxnet():
    assert [placement(k, 100, 3) for k in range(4)] == [
        [(0, 0, 100)], [(9973 % 3, 0, 100)], [(2 * 9973 % 3, 0, 100)], [(3 * 9973 % 3, 0, 100)]]


def test_big_keys_are_cut_into_one_part_per_server_with_c_rounding():
    assert placement(0, 160, 2, bound=20) == [(0, 0, 80), (1, 80, 160)]
    assert placement(5, 10, 3, bound=5) == [(0, 0, 3), (1, 3, 7), (2, 7, 10)]
    # 5 / 2 * 1 = 2.5 rounds away from zero, as C's round() does (Python's round() gives 2)
    assert placement(0, 5, 2, bound=1) == [(0, 0, 3), (1, 3, 5)]
    assert placement(0, 2, 3, bound=1) == [(0, 0, 1), (2, 1, 2)]      # an empty middle part is skipped


def test_placement_of_the_golden_mlp_matches_what_mxnet_sent():
    # MXNet with PS_VERBOSE=2 (gen_dist.py scenario *_s2): fc1_weight and fc2_weight halved,
    # fc1_bias (str key number 1) whole on server 1
    sizes = {'fc1_weight': 160, 'fc1_bias': 16, 'fc2_weight': 48, 'fc2_bias': 3}
    parts = {name: placement(i, n, 2, bound=20) for i, (name, n) in enumerate(sizes.items())}
    assert parts['fc1_weight'] == [(0, 0, 80), (1, 80, 160)]
    assert parts['fc2_weight'] == [(0, 0, 24), (1, 24, 48)]
    assert parts['fc1_bias'] == [(1, 0, 16)]


# ---------------------------------------------------------------- the server's rules, driven directly
def _server(num_workers, sync=True, updater=None):
    server = KVServer(0, num_workers)
    server.handle(0, ('create', 0, 's', None, ('dist_sync' if sync else 'dist_async', sync)))
    server.handle(0, ('init', 1, 's', 3, ('w', np.zeros(2, np.float32))))
    server.stores['s'].updater = updater
    return server


def _push(server, worker, value):
    return server.handle(worker, ('push', None, 's', 3, np.array(value, np.float32)))


def _pull(server, worker, request_id):
    return server.handle(worker, ('pull', request_id, 's', 3, None))


def test_sync_round_waits_for_every_worker_then_updates_once():
    calls = []

    def updater(key, grad, weight):
        calls.append((key, grad.asnumpy().tolist()))
        weight[:] = weight - grad

    server = _server(2, updater=updater)
    assert _push(server, 0, [1, 2]) == []
    assert _pull(server, 0, 'a') == []                 # worker 0 waits: its push is not applied yet
    assert _pull(server, 1, 'b')[0][1][2].tolist() == [0, 0]   # worker 1 pushed nothing: answered now
    replies = _push(server, 1, [10, 20])               # the round is full: one update with the sum
    assert calls == [(3, [11, 22])]
    assert [(w, r[0], r[2].tolist()) for w, r in replies] == [(0, 'a', [-11, -22])]


def test_a_second_push_before_the_round_is_full_waits_for_the_next_round():
    server = _server(2)                                # no updater: a round stores its sum
    _push(server, 0, [1, 1])
    _push(server, 0, [5, 5])                           # worker 0 again: next round (backlog)
    assert _pull(server, 0, 'a') == []
    _push(server, 1, [2, 2])                           # round 1 = 1 + 2; worker 0's 5 opens round 2
    assert _pull(server, 1, 'b')[0][1][2].tolist() == [3, 3]
    replies = _push(server, 1, [7, 7])                 # round 2 = 5 + 7: now worker 0's pull is answered
    assert [(r[0], r[2].tolist()) for _, r in replies] == [('a', [12, 12])]


def test_async_applies_each_push_alone_at_once():
    seen = []

    def updater(key, grad, weight):
        seen.append(grad.asnumpy().tolist())
        weight[:] = weight - grad

    server = _server(2, sync=False, updater=updater)
    _push(server, 1, [1, 1])
    assert _pull(server, 1, 'a')[0][1][2].tolist() == [-1, -1]
    _push(server, 0, [2, 2])
    assert seen == [[1, 1], [2, 2]]


def test_a_worker_that_leaves_turns_a_waiting_pull_into_a_clear_error():
    server = _server(2)
    _push(server, 0, [1, 1])
    assert _pull(server, 0, 'a') == []
    [(worker, (request_id, ok, message))] = server.handle(1, ('leave', None, None, None, None))
    assert (worker, request_id, ok) == (0, 'a', False)
    assert "key 'w' can never be updated: worker 1 (rank 1) left the job early (its script ended) without pushing it" in message
    assert '1 of 2 arrived' in message and 'num_parts=kv.num_workers' in message


def test_a_failing_update_is_reported_to_the_workers_that_pull():
    def broken(key, grad, weight):
        raise ZeroDivisionError('on purpose')

    server = _server(1, updater=broken)
    _push(server, 0, [1, 1])
    [(_, (_, ok, message))] = _pull(server, 0, 'a')
    assert not ok and "server 0: the update of key 'w' failed: ZeroDivisionError: on purpose" in message


def test_a_server_finishes_when_every_worker_has_left():
    server = _server(2)
    server.handle(0, ('leave', None, None, None, None))
    assert not server.finished
    server.handle(1, ('leave', None, None, None, None))
    assert server.finished


# ---------------------------------------------------------------- a dist store in one process
def test_mxnet_launcher_roles_outside_mpi_are_a_clear_error(monkeypatch):
    monkeypatch.setenv('DMLC_ROLE', 'server')
    with pytest.raises(KVStoreError, match="DMLC_ROLE=server.*MXNet's launcher.*python -m reflib.launch"):
        mx.kv.create('dist_sync')


def test_dist_store_names_and_errors():
    for name in ('dist_sync', 'dist_async', 'dist_device_sync', 'dist_sync_device', 'dist'):
        assert mx.kv.create(name).type == name
    with pytest.raises(KVStoreError, match="'dist_foo'.*not a distributed store type"):
        mx.kv.create('dist_foo')
    kv = mx.kv.create('dist_async')
    kv.init(0, mx.nd.ones((2,)))
    with pytest.raises(KVStoreError, match='dist_async store applies every push.*set_optimizer'):
        kv.push(0, mx.nd.ones((2,)))
    kv = mx.kv.create('dist_sync')
    kv.init('w', mx.nd.ones((2, 3)))
    with pytest.raises(KVStoreError, match=r"key 'w' holds an array of shape \(2, 3\).*shape \(3, 2\)"):
        kv.push('w', mx.nd.ones((3, 2)))
    with pytest.raises(KVStoreError, match="key 'nobody' has not been initialised"):
        kv.pull('nobody', out=mx.nd.ones((2, 3)))
    with pytest.raises(KVStoreError, match='pickled to them.*lambda'):
        kv._set_updater(lambda key, grad, weight: None)


def importable_updater(key, grad, weight):
    """A module-level updater: it can be pickled to the servers."""
    weight[:] = weight + 10 * grad


def test_set_updater_sends_an_importable_function_to_the_servers():
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((2,)))
    kv._set_updater(importable_updater)
    kv.push(0, [mx.nd.ones((2,)), mx.nd.ones((2,), ctx=mx.cpu(1))])
    out = mx.nd.zeros((2,))
    kv.pull(0, out=out)
    assert out.asnumpy().tolist() == [20, 20]


def _fit(kvstore, optimizer='adam', epochs=2, devices=1, begin_epoch=0, arg_params=None, states=None):
    rng = np.random.RandomState(0)
    x, y = rng.randn(64, 10).astype(np.float32), rng.randint(0, 3, 64).astype(np.float32)
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=16, name='fc1')
    net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type='relu'), num_hidden=3, name='fc2')
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(net, name='softmax'), context=[mx.cpu(i) for i in range(devices)])
    mod.bind([('data', (16, 10))], [('softmax_label', (16,))])
    mx.random.seed(1)
    mod.init_params(mx.init.Xavier(), arg_params=arg_params, force_init=True)
    params = {'learning_rate': 0.01, 'momentum': 0.9} if optimizer == 'sgd' else {'learning_rate': 0.01}
    mod.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=params)
    if states is not None:
        mod.load_optimizer_states(states)
    it = mx.io.NDArrayIter(x, y, batch_size=16)
    for epoch in range(begin_epoch, epochs):
        it.reset()
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
    return mod


@pytest.mark.parametrize('servers', [1, 3])
def test_in_process_dist_store_trains_like_a_local_store(monkeypatch, servers):
    monkeypatch.setenv('DMLC_NUM_SERVER', str(servers))
    monkeypatch.setenv('MXNET_KVSTORE_BIGARRAY_BOUND', '20')
    local, dist = _fit('local', devices=2), _fit('dist_sync', devices=2)
    assert dist._kvstore.num_servers == servers and dist._kvstore._parts['fc1_weight'] == placement(
        0, 160, servers, 20)
    for name, value in local.get_params()[0].items():
        np.testing.assert_allclose(dist.get_params()[0][name].asnumpy(), value.asnumpy(), rtol=0, atol=1e-6)


def test_optimizer_states_of_split_keys_save_load_and_resume(monkeypatch, tmp_path):
    # momentum SGD: its state is all there is (Adam's bias correction also counts updates, which
    # the optimizer keeps, not its states: resuming Adam is not exact in MXNet either)
    monkeypatch.setenv('DMLC_NUM_SERVER', '2')
    monkeypatch.setenv('MXNET_KVSTORE_BIGARRAY_BOUND', '20')
    straight = _fit('dist_sync', 'sgd', epochs=4)
    first = _fit('dist_sync', 'sgd', epochs=2)
    fname = str(tmp_path / 'sgd.states')
    first.save_optimizer_states(fname)
    # the file is the one a local store writes: whole arrays under the parameter names
    with open(fname, 'rb') as f:
        saved, _ = mx.optimizer.loads_states(f.read())
    assert sorted(saved) == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']
    assert saved['fc1_weight'].values.shape == (16, 10)                          # the momentum, whole
    resumed = _fit('dist_sync', 'sgd', epochs=4, begin_epoch=2, arg_params=first.get_params()[0], states=fname)
    for name, value in straight.get_params()[0].items():
        np.testing.assert_array_equal(resumed.get_params()[0][name].asnumpy(), value.asnumpy())
    # and a local store resumes from it the same way
    local = _fit('local', 'sgd', epochs=4, begin_epoch=2, devices=2, arg_params=first.get_params()[0],
                 states=fname)
    for name, value in straight.get_params()[0].items():
        np.testing.assert_allclose(local.get_params()[0][name].asnumpy(), value.asnumpy(), atol=1e-6)


def test_load_optimizer_states_rejects_junk_and_unknown_keys(tmp_path):
    kv = DistKVStore('dist_sync', LocalLink(1))
    kv.init('w', mx.nd.ones((2,)))
    kv.set_optimizer(mx.optimizer.create('sgd', momentum=0.9))
    junk = tmp_path / 'junk.states'
    junk.write_bytes(b'not a pickle')
    with pytest.raises(KVStoreError, match='junk.states: these bytes are not saved optimizer states'):
        kv.load_optimizer_states(str(junk))
    other = tmp_path / 'other.states'
    other.write_bytes(pickle.dumps({'v': np.zeros(2)}))
    with pytest.raises(KVStoreError, match="states for key 'v', which this store has not initialised"):
        kv.load_optimizer_states(str(other))


# ---------------------------------------------------------------- data parts and rank-aware callbacks
def test_ndarrayiter_parts_are_equal_and_contiguous():
    parts = [[b.data[0].asnumpy().tolist() for b in mx.io.NDArrayIter(np.arange(11.0), batch_size=3,
                                                                      num_parts=3, part_index=i)]
             for i in range(3)]
    assert parts == [[[0, 1, 2]], [[3, 4, 5]], [[6, 7, 8]]]          # 11 // 3 = 3 each; 9 and 10 dropped
    with pytest.raises(mx.MXNetError, match=r'part_index must be an int in \[0, 2\)'):
        mx.io.NDArrayIter(np.arange(4.0), num_parts=2, part_index=2)
    with pytest.raises(mx.MXNetError, match='3 samples cannot make 4 parts'):
        mx.io.NDArrayIter(np.arange(3.0), num_parts=4, part_index=0)


def test_only_worker_0_checkpoints_and_log_lines_carry_the_rank(monkeypatch, tmp_path):
    import reflib.callback as callback
    monkeypatch.setattr(callback, 'worker_rank', lambda: (1, 2))
    sym = mx.sym.Variable('x') * 2
    callback.do_checkpoint(str(tmp_path / 'w1'))(0, sym, {}, {})
    callback.do_checkpoint(str(tmp_path / 'all'), all_workers=True)(0, sym, {}, {})
    assert sorted(os.listdir(tmp_path)) == ['all-0001.checkpoint', 'all-0001.params', 'all-symbol.json']
    import reflib.kvstore.dist as dist
    monkeypatch.setattr(dist, 'worker_rank', lambda: (1, 2))
    assert dist.node_prefix() == 'Node[1] '


# ---------------------------------------------------------------- real MPI jobs
def _launch(args, env=None, timeout=JOB_TIMEOUT):
    """Run ``python -m reflib.launch ARGS``; returns (exit code, stdout + stderr)."""
    full_env = dict(os.environ, OMP_NUM_THREADS='1', **(env or {}))
    done = subprocess.run([sys.executable, '-m', 'reflib.launch', '--timeout', str(timeout - 10)] + args,
                          capture_output=True, text=True, timeout=timeout, env=full_env, cwd=HERE)
    return done.returncode, done.stdout + done.stderr


def _train(tmp_path, tag, workers, servers, optimizer, batch=8, devices=1, kvstore='dist_sync', bound=None):
    out = str(tmp_path / tag)
    code, log = _launch(['-n', str(workers), '-s', str(servers)]
                        + (['--env', 'MXNET_KVSTORE_BIGARRAY_BOUND=%d' % bound] if bound else [])
                        + [sys.executable, os.path.join(SCRIPTS, 'train_mlp.py'), '--kvstore', kvstore,
                           '--optimizer', optimizer, '--batch-size', str(batch), '--devices', str(devices),
                           '--out', out])
    assert code == 0, log
    return [dict(np.load('%s.rank%d.npz' % (out, r))) for r in range(workers)], log


def _single_process(tmp_path, optimizer):
    out = str(tmp_path / ('local-' + optimizer))
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'train_mlp.py'), '--kvstore', 'local',
                    '--optimizer', optimizer, '--batch-size', '16', '--out', out],
                   check=True, capture_output=True, timeout=JOB_TIMEOUT)
    return dict(np.load(out + '.rank0.npz'))


@pytest.mark.parametrize('optimizer', ['sgd', 'adam'])
@pytest.mark.parametrize('servers', [1, 2])
def test_two_workers_match_mxnet_and_one_worker_with_twice_the_batch(tmp_path, optimizer, servers):
    ranks, log = _train(tmp_path, 'job', 2, servers, optimizer, bound=20 if servers == 2 else None)
    assert 'rescale_grad 0.0625' in log                       # 1 / (batch 8 x 2 workers)
    single = _single_process(tmp_path, optimizer)
    for name in ranks[0]:
        np.testing.assert_array_equal(ranks[0][name], ranks[1][name])
        np.testing.assert_allclose(ranks[0][name], GOLDEN['%s_s%d/%s' % (optimizer, servers, name)], atol=1e-6)
        np.testing.assert_allclose(ranks[0][name], single[name], atol=1e-5)
        np.testing.assert_allclose(GOLDEN['%s_local16/%s' % (optimizer, name)], single[name], atol=1e-6)


def test_dist_device_sync_with_two_devices_equals_dist_sync(tmp_path):
    plain, _ = _train(tmp_path, 'plain', 2, 1, 'sgd')
    device, _ = _train(tmp_path, 'device', 2, 1, 'sgd', devices=2, kvstore='dist_device_sync')
    for name in plain[0]:
        np.testing.assert_allclose(device[0][name], plain[0][name], atol=1e-6)
        np.testing.assert_array_equal(device[0][name], device[1][name])


def test_init_push_pushpull_barrier_and_split_states_across_processes(tmp_path):
    code, log = _launch(['-n', '3', '-s', '2', '--env', 'MXNET_KVSTORE_BIGARRAY_BOUND=20', sys.executable,
                         os.path.join(SCRIPTS, 'basics.py'), str(tmp_path / 'big.states')])
    assert code == 0, log
    assert log.count('basics hold') == 3


def test_dist_async_keeps_its_promises(tmp_path):
    code, log = _launch(['-n', '3', '-s', '1', sys.executable, os.path.join(SCRIPTS, 'async_check.py'), '50'])
    assert code == 0, log
    assert log.count('all 150 pushes applied once') == 3


def test_plain_mpiexec_with_dmlc_num_server_works(tmp_path):
    from reflib.launch import find_mpiexec
    out = str(tmp_path / 'plain')
    done = subprocess.run([find_mpiexec(), '-n', '3', sys.executable, os.path.join(SCRIPTS, 'train_mlp.py'),
                           '--out', out], capture_output=True, text=True, timeout=JOB_TIMEOUT,
                          env=dict(os.environ, DMLC_NUM_SERVER='1', OMP_NUM_THREADS='1'))
    assert done.returncode == 0, done.stdout + done.stderr
    np.testing.assert_allclose(np.load(out + '.rank0.npz')['fc1_weight'], GOLDEN['sgd_s1/fc1_weight'], atol=1e-6)


def test_mpiexec_without_servers_is_a_clear_error():
    from reflib.launch import find_mpiexec
    env = {k: v for k, v in os.environ.items() if not k.startswith('DMLC_')}
    done = subprocess.run([find_mpiexec(), '-n', '2', sys.executable, '-c',
                           "import reflib as mx; mx.kv.create('dist_sync')"],
                          capture_output=True, text=True, timeout=JOB_TIMEOUT, env=env)
    assert done.returncode != 0
    assert 'DMLC_NUM_SERVER does not say how many of them are parameter servers' in done.stderr


@pytest.mark.parametrize('mode, culprit', [
    ('raise', 'worker 1 (rank 1) failed: RuntimeError: worker 1 fails on purpose'),
    ('kill', 'worker 1 (rank 1) killed by signal 9 (SIGKILL)'),
    ('exit', "worker 0 (rank 0) failed: KVStoreError: key 'w' can never be updated: worker 1 (rank 1) left the "
             'job early'),
    ('barrier', 'worker 0 (rank 0) failed: KVStoreError: barrier: worker 1 (rank 1) left the job early (its '
                'script ended) while worker 0 (rank 0) waited at a barrier'),
])
def test_a_failing_worker_stops_the_whole_job_and_is_named(mode, culprit):
    code, log = _launch(['-n', '2', '-s', '2', sys.executable, os.path.join(SCRIPTS, 'faults.py'), mode],
                        timeout=40)
    assert code != 0
    assert 'reflib.launch: ' + culprit in log, log
    assert 'finished: w' not in log                  # nobody ran to the end


@pytest.mark.parametrize('mode, message', [
    ('shape', "push: key 'w' holds an array of shape (2, 3), but value 0 of 1 pushed to it has shape (3, 2)"),
    ('unknown', "pull: key 'nobody' has not been initialised"),
])
def test_a_bad_push_or_pull_is_an_error_on_that_worker_only(mode, message):
    code, log = _launch(['-n', '2', '-s', '1', sys.executable, os.path.join(SCRIPTS, 'faults.py'), mode])
    assert code == 0, log
    assert 'worker 1 caught: ' + message in log
    assert 'worker 0 finished: w = 2.0' in log and 'worker 1 finished: w = 2.0' in log   # no optimizer: the sum


def test_launcher_builds_the_mpiexec_command():
    from reflib.launch import mpiexec_command, GUARD
    line = mpiexec_command(['python', 'train.py'], 2, 1, env={'A': '1'}, mpiexec='/x/mpiexec')
    assert line[:3] == ['/x/mpiexec', '-n', '3']
    assert ' '.join(line[3:12]) == '-genv A 1 -genv DMLC_NUM_WORKER 2 -genv DMLC_NUM_SERVER 1'
    assert line[12:] == [sys.executable, GUARD, 'python', 'train.py']


# ---------------------------------------------------------------- what the servers unpickle
class _RunsCode:
    """A pickle whose loading calls ``func(*args)``: what a hostile worker could send."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


@pytest.mark.parametrize('kind', ['optimizer', 'updater'])
@pytest.mark.parametrize('payload,named', [
    (_RunsCode(os.system, 'touch {marker}'), 'posix.system'),
    (_RunsCode(subprocess.call, ['touch', '{marker}']), 'subprocess.call'),     # imported here
    (_RunsCode(eval, 'open({marker!r}, "w")'), 'builtins.eval'),
    (_RunsCode(print, 'a function the server has, called by the pickle'), 'builtins.print'),
])
def test_the_servers_refuse_a_pickle_that_runs_code(tmp_path, kind, payload, named):
    marker = str(tmp_path / 'ran')
    payload.args = tuple(a.format(marker=marker) if isinstance(a, str) else
                         [b.format(marker=marker) for b in a] if isinstance(a, list) else a for a in payload.args)
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((2,)))
    with pytest.raises(KVStoreError, match=r'refused the %s.*%s' % (kind, named.replace('.', r'\.'))):
        kv._send_updater(kind, pickle.dumps(payload))
    assert not os.path.exists(marker)


def test_the_servers_import_nothing_a_pickle_names():
    blob = pickle.dumps(mx.optimizer.SGD()).replace(b'reflib.optimizer.sgd', b'reflib_xptimizer.sgd')
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((2,)))
    with pytest.raises(KVStoreError, match=r'reflib_xptimizer\.sgd\.SGD.*already imported'):
        kv._send_updater('optimizer', blob)
    assert 'reflib_xptimizer' not in sys.modules


class HalfStepSGD(mx.optimizer.SGD):
    """A user's optimizer, registered: the servers run it (its module is loaded there)."""

    def _get_lrs(self, indices):
        return [lr / 2 for lr in super()._get_lrs(indices)]


@pytest.fixture
def half_step_registered():
    mx.optimizer.register(HalfStepSGD)
    yield
    del mx.optimizer.Optimizer.opt_registry['halfstepsgd']


def test_a_registered_user_optimizer_still_reaches_the_servers(half_step_registered):
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((2,)))
    kv.set_optimizer(HalfStepSGD(learning_rate=1.0, rescale_grad=1.0))
    kv.push(0, mx.nd.ones((2,)))
    out = mx.nd.zeros((2,))
    kv.pull(0, out=out)
    assert out.asnumpy().tolist() == [-0.5, -0.5]


def test_a_callable_that_is_no_function_is_refused_as_an_updater():
    import functools
    kv = mx.kv.create('dist_sync')
    kv.init(0, mx.nd.zeros((2,)))
    with pytest.raises(KVStoreError, match=r'functools\.partial'):
        kv._set_updater(functools.partial(importable_updater))


@pytest.mark.parametrize('seed', range(max(40, int(os.environ.get('REFLIB_FUZZ_EXAMPLES', '0')))))
def test_damaged_optimizer_pickles_are_refused_or_load_never_anything_else(seed):
    from reflib.optimizer.updater import loads_sent
    from reflib.optimizer import OptimizerError
    blob = bytearray(pickle.dumps(mx.optimizer.create('adam', learning_rate=0.1,
                                                      lr_scheduler=mx.lr_scheduler.FactorScheduler(10, base_lr=0.1))))
    rng = np.random.RandomState(seed)
    for _ in range(1 + seed % 4):
        blob[rng.randint(len(blob))] = rng.randint(256)
    try:
        loaded = loads_sent(bytes(blob), 'optimizer')
    except OptimizerError:
        return
    assert isinstance(loaded, mx.optimizer.Optimizer)


def test_a_barrier_fails_when_a_worker_leaves_instead_of_arriving():
    server = KVServer(0, 3)
    assert server.handle(0, ('barrier', 7, None, None, None)) == []
    assert server.handle(2, ('barrier', 8, None, None, None)) == []
    replies = server.handle(1, ('leave', None, None, None, None))
    assert sorted(w for w, _ in replies) == [0, 2]
    for _, (request_id, ok, message) in replies:
        assert not ok and message.startswith('barrier: worker 1 (rank 1) left the job early')
    # a barrier all workers reach is released for every one of them, in one answer each
    server = KVServer(0, 2)
    assert server.handle(1, ('barrier', 3, None, None, None)) == []
    assert sorted(server.handle(0, ('barrier', 4, None, None, None))) == [(0, (4, True, None)), (1, (3, True, None))]


def test_the_launcher_stops_a_job_after_a_day_by_default_and_says_why():
    import inspect
    from reflib import launch
    assert launch.DEFAULT_TIMEOUT == 24 * 3600
    assert inspect.signature(launch.launch).parameters['timeout'].default == launch.DEFAULT_TIMEOUT
    note = launch._summary(124, None, launch.DEFAULT_TIMEOUT)
    assert 'longer than 86400 s (--timeout, the default)' in note and '0 for none' in note


def test_a_worker_that_ended_early_is_named_by_its_rank(tmp_path):
    from reflib import launch
    (tmp_path / '101').write_text('worker 0 (rank 0)\n')
    (tmp_path / '102').write_text('worker 1 (rank 1)\nfinished\n')
    (tmp_path / '103').write_text('server 0 (rank 2)\n')
    culprit = launch._culprit(str(tmp_path), ['102'])
    assert culprit == ('worker 1 (rank 1) left the job early: its script ended (exit code 0) while the others '
                       'still ran (pid 102)')
