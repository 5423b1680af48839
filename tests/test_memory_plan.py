"""The executor's memory plan (reflib/executor/memory.py): sharing memory changes no number.

Every graph is run three ways, with the plan as it is, with in-place turned off
(``MXNET_EXEC_ENABLE_INPLACE=0``) and with no sharing at all (``REFLIB_SHARE_MEMORY=0``,
a block per value), and the outputs, gradients and auxiliary states must be the same
bits.  The graphs: every golden graph of test_golden_graphs.py, every operator case
recorded from MXNet (one-operator graphs), and random graphs drawn by hypothesis, on
which the plan itself is also checked: no two values alive at the same time share a
block, except a reshape's output with its input (the same numbers).
"""

import json
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reflib as mx
from reflib.base import MXNetError
from reflib.operator import OpEnv

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
sys.path.insert(0, GOLDEN)
import graph_defs  # noqa: E402

MODES = {'planned': {}, 'no in-place': {'MXNET_EXEC_ENABLE_INPLACE': '0'},
         'no sharing': {'REFLIB_SHARE_MEMORY': '0'}}


def run_graph(sym, shapes, env, values=None, heads=None, is_train=True, train=True, seed=0):
    """Bind ``sym`` under the environment ``env``, run forward (+ backward), return every array."""
    saved = {k: os.environ.get(k) for k in ('MXNET_EXEC_ENABLE_INPLACE', 'REFLIB_SHARE_MEMORY')}
    os.environ.update(env)
    try:
        req = 'write' if train else 'null'
        ex = sym.simple_bind(mx.cpu(), grad_req=req, **shapes)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    rng = np.random.RandomState(seed)
    for name, arr in list(ex.arg_dict.items()) + list(ex.aux_dict.items()):
        if values is not None and name in values:
            arr[:] = values[name]
        elif name.endswith('label'):
            arr[:] = rng.randint(0, max(arr.shape[-1] if arr.ndim > 1 else 2, 2), arr.shape)
        elif name.endswith('moving_var'):
            arr[:] = rng.uniform(0.5, 1.5, arr.shape)
        else:
            arr[:] = rng.uniform(-1, 1, arr.shape)
    given = {k: v.asnumpy().copy() for k, v in ex.arg_dict.items()}
    ex.given = dict(given, **{k: v.asnumpy().copy() for k, v in ex.aux_dict.items()})
    mx.random.seed(seed)
    with np.errstate(all='ignore'):          # log and sqrt of the negative inputs: NaN is fine
        outs = [o.asnumpy().copy() for o in ex.forward(is_train=is_train)]
    result = {'out%d' % i: o for i, o in enumerate(outs)}
    if train:
        if heads is None:
            heads = [None if _is_loss(sym, i) else mx.nd.array(rng.uniform(-1, 1, o.shape))
                     for i, o in enumerate(outs)]
        ex.heads = heads
        with np.errstate(all='ignore'):
            ex.backward([h for h in heads] if any(h is not None for h in heads) else None)
        result.update({'grad ' + k: v.asnumpy().copy() for k, v in ex.grad_dict.items() if v is not None})
    result.update({'aux ' + k: v.asnumpy().copy() for k, v in ex.aux_dict.items()})
    # the bound inputs are never overwritten by an in-place step
    for k, v in ex.arg_dict.items():
        if not k.endswith('gamma'):           # BatchNorm(fix_gamma=True) writes 1 into gamma, as MXNet
            assert np.array_equal(v.asnumpy(), given[k], equal_nan=True), k
    return ex, result


def _is_loss(sym, i):
    node, _ = sym._outputs[i]
    return node.op is not None and node.op.is_loss


def assert_same_everywhere(sym, shapes, **kw):
    results = {mode: run_graph(sym, shapes, env, **kw) for mode, env in MODES.items()}
    base = results['planned'][1]
    for mode, (_, got) in results.items():
        assert sorted(got) == sorted(base)
        for key in base:
            assert np.array_equal(got[key], base[key], equal_nan=True), '%s: %s differs' % (mode, key)
    ex = results['planned'][0]
    assert ex._mem.overlapping_pairs() == []
    return results


# ------------------------------------------------------------------ golden graphs
GRAPHS = {
    'mlp': (graph_defs.mlp, {'data': graph_defs.MLP_DATA_SHAPE}),
    'convnet': (graph_defs.convnet, {'data': graph_defs.CONV_DATA_SHAPE}),
    'fc6': (graph_defs.fc6, {'data': graph_defs.MLP_DATA_SHAPE}),
    'two_a_plus_b': (graph_defs.two_a_plus_b, {'a': (3,), 'b': (3,)}),
    'two_fc': (graph_defs.two_fc, {'data': graph_defs.MLP_DATA_SHAPE}),
    'scaled_fc': (graph_defs.scaled_fc, {'data': graph_defs.MLP_DATA_SHAPE}),
}


@pytest.mark.parametrize('name', sorted(GRAPHS))
@pytest.mark.parametrize('train', [True, False], ids=['train', 'inference'])
def test_golden_graphs_give_the_same_bits_with_and_without_sharing(name, train):
    build, shapes = GRAPHS[name]
    sym = build(mx)
    shapes = {k: v for k, v in shapes.items() if k in sym.list_arguments()}
    assert_same_everywhere(sym, shapes, train=train, is_train=train)


# ------------------------------------------------------- every recorded operator case
def _op_cases():
    cases = []
    z = np.load(os.path.join(GOLDEN, 'ops_nn.npz'))
    for case in sorted({k.split('/')[0] for k in z.files if not k.startswith('_')}):
        meta = json.loads(str(z[case + '/meta']))
        shapes = {n: z['%s/in/%s' % (case, n)].shape for n in meta['inputs']}
        cases.append(('nn:' + case, meta['op'], meta['params'], meta['inputs'], shapes, meta['is_train']))
    z = np.load(os.path.join(GOLDEN, 'ops_tensor.npz'))
    for i, case in enumerate(json.loads(str(z['meta']))['cases']):
        names = ['in%d' % j for j in range(case['n_in'])]
        shapes = {n: z['c%d_in%d' % (i, j)].shape for j, n in enumerate(names)}
        cases.append(('tensor:%d-%s' % (i, case['alias']), case['alias'], case['attrs'], names, shapes, True))
    rows = [('FullyConnected', {'num_hidden': 5}, ['data'], {'data': (4, 3, 2)}),
            ('FullyConnected', {'num_hidden': 5, 'flatten': False, 'no_bias': True}, ['data'], {'data': (4, 3, 2)})]
    for act in ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'):
        rows.append(('Activation', {'act_type': act}, ['data'], {'data': (3, 4)}))
    for op in ('elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div'):
        rows.append((op, {}, ['lhs', 'rhs'], {'lhs': (3, 4), 'rhs': (3, 4)}))
    rows += [('dot', {}, ['lhs', 'rhs'], {'lhs': (3, 4), 'rhs': (4, 2)}),
             ('batch_dot', {}, ['lhs', 'rhs'], {'lhs': (2, 3, 4), 'rhs': (2, 4, 2)}),
             ('softmax', {}, ['data'], {'data': (3, 4)}),
             ('log_softmax', {}, ['data'], {'data': (3, 4)}),
             ('SoftmaxOutput', {}, ['data'], {'data': (3, 4)}),
             ('LinearRegressionOutput', {}, ['data'], {'data': (3, 4)}),
             ('MakeLoss', {}, ['data'], {'data': (3, 4)})]
    for op, params, names, shapes in rows:
        cases.append(('hand:%s%s' % (op, sorted(params.items())), op, params, names, shapes, True))
    return cases


OP_CASES = _op_cases()


@pytest.mark.parametrize('case', OP_CASES, ids=[c[0] for c in OP_CASES])
def test_every_operator_case_gives_the_same_bits_with_and_without_sharing(case):
    _, op_name, params, names, shapes, is_train = case
    inputs = [mx.sym.Variable(n) for n in names]
    sym = getattr(mx.sym, op_name)(*inputs, name='op', **params)
    results = assert_same_everywhere(sym, shapes, is_train=is_train)
    # ... and the same bits as the operator called on its own, allocating its own results
    # (as the golden tests call it): computing into planned memory changes nothing either
    ex, got = results['planned']
    node = sym._outputs[0][0]
    args = [ex.given[n].copy() for n in ex._arg_names]
    aux = [ex.given[n].copy() for n in ex._aux_names]
    env = OpEnv(mx.cpu(), is_train)
    mx.random.seed(0)
    with np.errstate(all='ignore'):
        outs = node.op.forward(node.params, env, [a.copy() for a in args], aux)
        heads = [None if h is None else h.asnumpy() for h in ex.heads]
        heads += [None] * (len(outs) - len(heads))
        # the executor's backward runs in training mode whatever the forward was (backward's own
        # is_train=True), as test_executor.py's test_backward_after_inference_forward_is_allowed says
        grads = node.op.backward(node.params, OpEnv(mx.cpu(), True), heads, args, outs, aux)
    for i in range(len(ex.outputs)):
        assert np.array_equal(outs[i], got['out%d' % i], equal_nan=True), 'output %d' % i
    for name, g in zip(ex._arg_names, grads):
        if g is not None and 'grad ' + name in got:
            assert np.array_equal(g, got['grad ' + name], equal_nan=True), 'gradient of %s' % name
    for name, a in zip(ex._aux_names, aux):
        assert np.array_equal(a, got['aux ' + name], equal_nan=True), name


# ------------------------------------------------------------------ random graphs
def _random_graph(data):
    nodes = [mx.sym.Variable('x0'), mx.sym.Variable('x1')]
    for i in range(data.draw(st.integers(1, 10), label='size')):
        kind = data.draw(st.sampled_from(['act', 'add', 'view', 'flatten', 'bn', 'fc', 'scalar', 'mul',
                                          'split']))
        # inputs from the last three nodes, so that chains (where in-place applies) are common
        recent = st.integers(max(0, len(nodes) - 3), len(nodes) - 1)
        a, b = nodes[data.draw(recent)], nodes[data.draw(recent)]
        if kind == 'act':
            node = mx.sym.Activation(a, act_type=data.draw(st.sampled_from(
                ['relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'])))
        elif kind == 'add':
            node = a + b                                          # a may be b: x + x
        elif kind == 'mul':
            node = a * b
        elif kind == 'view':
            node = mx.sym.Reshape(a, shape=(4, 6))
        elif kind == 'flatten':
            node = mx.sym.Reshape(mx.sym.Flatten(a), shape=(4, 6))
        elif kind == 'bn':
            node = mx.sym.BatchNorm(a, fix_gamma=False, name='bn%d' % i)
        elif kind == 'fc':
            node = mx.sym.FullyConnected(a, num_hidden=6, name='fc%d' % i)
        elif kind == 'split':
            parts = mx.sym.SliceChannel(a, num_outputs=2, axis=1)
            node = mx.sym.Concat(parts[1], parts[0], dim=1)
        else:
            node = a * 2
        nodes.append(node)
    picks = sorted({len(nodes) - 1} | set(data.draw(st.lists(st.integers(2, len(nodes) - 1), max_size=2))))
    return mx.sym.Group([nodes[k] for k in picks])


RANDOM_GRAPHS_SHARED = []


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_graphs_never_share_a_live_block_and_give_the_same_bits(data):
    sym = _random_graph(data)
    seed = data.draw(st.integers(0, 2 ** 16), label='seed')
    train = data.draw(st.booleans(), label='train')
    shapes = {k: (4, 6) for k in ('x0', 'x1') if k in sym.list_arguments()}
    results = assert_same_everywhere(sym, shapes, train=train, is_train=train, seed=seed)
    report = results['planned'][0].memory_report()
    RANDOM_GRAPHS_SHARED.append((report['inplace'] + report['identity'], report['planned'] < report['unshared']))


def test_the_random_graphs_did_share_memory():
    # runs after the property test (same file, in order): it must not have passed vacuously
    if not RANDOM_GRAPHS_SHARED:
        pytest.skip('the random-graph test did not run in this process')
    assert sum(1 for inplace, _ in RANDOM_GRAPHS_SHARED if inplace) >= 5, RANDOM_GRAPHS_SHARED
    assert sum(1 for _, saved in RANDOM_GRAPHS_SHARED if saved) >= 10, RANDOM_GRAPHS_SHARED


# ------------------------------------------------------------------ what the plan decides
def lenet():
    data = mx.sym.Variable('data')
    net = data
    for i, filters in enumerate((20, 50)):
        net = mx.sym.Convolution(net, kernel=(5, 5), num_filter=filters, name='conv%d' % i)
        net = mx.sym.Activation(net, act_type='tanh')
        net = mx.sym.Pooling(net, pool_type='max', kernel=(2, 2), stride=(2, 2))
    net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=500, name='fc1'), act_type='tanh')
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10, name='fc2'), name='softmax')


def test_lenet_inference_plan_computes_the_activations_in_place(monkeypatch):
    reports = {}
    for flag in ('0', '1'):
        monkeypatch.setenv('MXNET_EXEC_ENABLE_INPLACE', flag)
        reports[flag] = lenet().simple_bind(mx.cpu(), grad_req='null', data=(64, 1, 28, 28)).memory_report()
    assert (reports['0']['inplace'], reports['1']['inplace']) == (0, 3)          # the three tanh
    assert (reports['0']['identity'], reports['1']['identity']) == (0, 1)        # the Flatten
    conv0, pool0 = 64 * 20 * 24 * 24 * 4, 64 * 20 * 12 * 12 * 4
    fc1, fc2 = 64 * 500 * 4, 64 * 10 * 4
    # each tanh lives in its convolution's block, the pools and the Flatten take turns in a
    # second one; fc1 cannot use the first: it is more than 16 times fc1's size (MXNet's
    # match range), so a block is spent on it (its tanh in place), and one on fc2
    assert reports['1']['planned'] == conv0 + pool0 + fc1 + fc2
    # without in-place, a convolution and its tanh are alive together: two big blocks
    assert reports['0']['planned'] == 2 * conv0 + 2 * fc1 + fc2
    assert reports['1']['outputs'] == fc2


def test_training_plan_keeps_what_backward_reads_and_reuses_the_rest():
    data = mx.sym.Variable('data')
    net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name='fc1'), act_type='relu', name='relu')
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=2, name='fc2'), name='softmax')
    ex = net.simple_bind(mx.cpu(), data=(4, 3), grad_req={'fc1_weight': 'write', 'fc1_bias': 'write',
                                                          'fc2_weight': 'write', 'fc2_bias': 'write'})
    entry = {e.name: e for e in ex._mem.entries.values()}
    # relu's backward reads its output only, and fc1's backward never reads fc1's output, so
    # relu is computed in place into fc1's output; the same holds for their gradients
    assert entry['relu_output'].shares == 'inplace'
    assert entry['relu_output'].block is entry['fc1_output'].block
    assert entry['grad of fc1_output'].shares == 'inplace'
    assert entry['grad of fc1_output'].block is entry['grad of relu_output'].block
    # fc2's output is read by the softmax's forward and by nothing after it, so its gradient
    # (which SoftmaxOutput's backward writes) takes its block
    assert entry['grad of fc2_output'].block is entry['fc2_output'].block
    report = ex.memory_report()
    assert report['planned'] == (20 + 8 + 20) * 4 and report['outputs'] == 8 * 4
    assert report['unshared'] == (20 + 20 + 8 + 8 + 20 + 20) * 4
    # the weights' gradients are written straight into the gradient arrays: no planned copy
    assert not any(e.key[1] in ex._plan.var_slot.values() for e in ex._mem.entries.values())


def test_a_view_of_a_live_value_is_never_overwritten():
    a = mx.sym.Variable('a')
    doubled = a * 2                                   # an intermediate...
    view = mx.sym.Reshape(doubled, shape=(-1,))       # ...a view of it, read only by the activation
    sym = mx.sym.Group([mx.sym.Activation(view, act_type='relu'), doubled * 3])
    inputs = {'a': np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)}
    results = assert_same_everywhere(sym, {'a': (2, 3)}, values=inputs, train=False, is_train=False)
    assert results['planned'][1]['out1'].tolist() == [[-6, 12, -18], [24, -30, 36]]


def test_a_second_backward_after_one_forward():
    # nothing backward reads was reused: the second backward gives the same gradients
    c = graph_defs.two_a_plus_b(mx)
    ga, gb = mx.nd.zeros(3), mx.nd.zeros(3)
    exe = c.bind(mx.cpu(), {'a': mx.nd.ones(3), 'b': mx.nd.ones(3)}, args_grad=[ga, gb])
    exe.forward(is_train=True)
    for _ in range(2):
        exe.backward(mx.nd.ones(3))
        assert ga.asnumpy().tolist() == [2, 2, 2]
    # LeNet's plan reuses a forward value's memory for a gradient: the second backward would be
    # wrong (MXNet 1.9.1 computes it silently), so it is an error naming the cure
    ex = lenet().simple_bind(mx.cpu(), data=(2, 1, 28, 28))
    assert not ex._mem.backward_repeatable
    ex.forward(is_train=True)
    ex.backward()
    with pytest.raises(MXNetError, match='forward'):
        ex.backward()
    ex.forward(is_train=True)
    ex.backward()


def test_debug_str_lists_the_blocks_and_ends_with_the_total():
    ex = lenet().simple_bind(mx.cpu(), grad_req='null', data=(8, 1, 28, 28))
    text = ex.debug_str()
    assert text.splitlines()[-1].startswith('Total ')
    assert '(in place)' in text
    total = ex.memory_report()['total']
    assert ex._total_exec_bytes == total
    assert text.splitlines()[-2] == 'total %.3f MB (%d bytes)' % (total / 2 ** 20, total)
    assert text.splitlines()[-1] == 'Total %d MB allocated' % (total >> 20)   # MXNet's whole MB


# ------------------------------------------------ executors sharing one memory pool (bucketing)
def _bucket_sym(length):
    data = mx.sym.Variable('data')
    outputs, _ = mx.rnn.LSTMCell(6, prefix='lstm_').unroll(length, data, merge_outputs=True)
    return mx.sym.MakeLoss(mx.sym.sum(outputs * outputs))


def _run(exe, data, params):
    for name, value in params.items():
        exe.arg_dict[name][:] = value
    exe.forward(is_train=True, data=data)
    exe.backward()
    return exe.outputs[0].asnumpy(), {n: g.asnumpy() for n, g in exe.grad_dict.items() if g is not None}


def test_a_smaller_bucket_borrows_all_its_memory_and_computes_the_same():
    """shared_exec + shared_buffer (what Module.bind(shared_module=...) passes): the short
    graph's intermediates live in the long graph's memory, and results are unchanged even
    when the two executors run in turns."""
    rng = np.random.default_rng(0)
    big = _bucket_sym(8).simple_bind(mx.cpu(), data=(3, 8, 4))
    params = {n: rng.normal(size=a.shape).astype(np.float32) * 0.3
              for n, a in big.arg_dict.items() if n != 'data'}
    small = _bucket_sym(3).simple_bind(mx.cpu(), data=(3, 3, 4), shared_exec=big, shared_buffer={},
                                       shared_arg_names=sorted(params))
    alone = _bucket_sym(3).simple_bind(mx.cpu(), data=(3, 3, 4))
    report = small.memory_report()
    assert report['planned'] > 0 and report['borrowed'] == report['planned']
    assert big.memory_report()['borrowed'] == 0 and alone.memory_report()['borrowed'] == 0
    assert small._memory_pool is big._memory_pool
    x_big, x_small = rng.normal(size=(3, 8, 4)), rng.normal(size=(3, 3, 4))
    want = _run(alone, x_small, params)
    want_big = _run(big, x_big, params)
    for _ in range(2):                       # in turns: each forward overwrites the other's values
        got = _run(small, x_small, params)
        np.testing.assert_array_equal(got[0], want[0])
        for name in want[1]:
            np.testing.assert_array_equal(got[1][name], want[1][name])
        got_big = _run(big, x_big, params)
        np.testing.assert_array_equal(got_big[0], want_big[0])


def test_a_larger_executor_takes_what_fits_and_adds_the_rest_to_the_pool():
    small = _bucket_sym(2).simple_bind(mx.cpu(), data=(2, 2, 4))
    pool_before = len(small._memory_pool)
    big = _bucket_sym(9).simple_bind(mx.cpu(), data=(2, 9, 4), shared_exec=small, shared_buffer={},
                                     shared_arg_names=[n for n in small.arg_dict if n != 'data'])
    report = big.memory_report()
    assert 0 < report['borrowed'] < report['planned']
    assert len(big._memory_pool) > pool_before


def test_nothing_is_planned_behind_a_blockgrad():
    """MXNet's zero propagation (its test_zero_prop): behind stop_gradient a gradient can only
    be zero, so no backward step runs and the plan is the inference plan's; the argument's
    gradient is written as zeros ('write') or left as it was ('add')."""
    data = mx.sym.var('data')
    for _ in range(10):
        data = data * data

    def total(net, **kwargs):
        return net.simple_bind(mx.cpu(), data=(10, 3, 16, 16), **kwargs).memory_report()['total']
    trained, inference = total(data), total(data, grad_req='null')
    stopped = total(mx.sym.stop_gradient(data))
    assert stopped == inference < trained
    for req, expected in (('write', 0.0), ('add', 5.0)):
        exe = mx.sym.stop_gradient(data).simple_bind(mx.cpu(), data=(2,), grad_req=req)
        exe.grad_dict['data'][:] = 5
        exe.forward(is_train=True, data=mx.nd.array([1, 0.5]))
        exe.backward()
        assert exe.grad_dict['data'].asnumpy().tolist() == [expected, expected]
