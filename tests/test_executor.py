"""Executor against MXNet 1.9.1: bind/simple_bind, arrays by reference, grad_req, backward,
copy_params_from, reshape, monitor, debug_str, group2ctx, shared_exec, and misuse errors.

Every expected value and behaviour below was first observed under real MXNet 1.9.1 (the
oracle) running the same snippet; comments point out where MXNet may surprise.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reflib as mx
from reflib.base import MXNetError, ShapeError, BindError, ParamError, ContextError


def has_ops(*names):
    return all(n in mx.operator.list_operators() for n in names)


def needs(*names):
    return pytest.mark.skipif(not has_ops(*names), reason='operators %s not in reflib yet' % (names,))


def two_a_plus_b():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    return 2 * a + b


def ab():
    return [mx.nd.array([1, 2]), mx.nd.array([2, 3])]


def fc_softmax(num_hidden=3):
    x = mx.sym.Variable('x')
    fc1 = mx.sym.FullyConnected(x, num_hidden=num_hidden, name='fc1')
    return fc1, mx.sym.SoftmaxOutput(fc1, name='sm')


def fill_arange(exe, scale=0.1):
    for v in exe.arg_dict.values():
        v[:] = np.arange(v.size).reshape(v.shape) * scale


# ------------------------------------------------------------------- binding
def test_bind_list_uses_arrays_by_reference():
    c = two_a_plus_b()
    A, B = ab()
    ga, gb = mx.nd.zeros(2), mx.nd.zeros(2)
    exe = c.bind(mx.cpu(), [A, B], args_grad=[ga, gb])
    assert exe.arg_arrays[0] is A and exe.arg_dict['a'] is A and exe.grad_arrays[0] is ga
    out = exe.forward(is_train=True)
    assert out is exe.outputs
    np.testing.assert_array_equal(out[0].asnumpy(), [4, 7])
    exe.backward(out)
    np.testing.assert_array_equal(ga.asnumpy(), [8, 14])
    np.testing.assert_array_equal(gb.asnumpy(), [4, 7])
    A[:] = 10  # writing into the bound array changes the next forward
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [22, 23])
    A = mx.nd.array([100, 100])  # rebinding the Python name does not
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [22, 23])


def test_bind_dict_ignores_extra_names_and_grad_arrays_none_without_args_grad():
    c = two_a_plus_b()
    # extra names are ignored, as MXNet does (one checkpoint dict can feed a smaller graph)
    exe = c.bind(mx.cpu(), {'b': mx.nd.array([2, 3]), 'a': mx.nd.array([1, 2]), 'zz': mx.nd.ones(5)})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [4, 7])
    assert exe.grad_arrays is None  # MXNet: no args_grad -> grad_arrays is None
    exe = c.bind(mx.cpu(), ab(), aux_states={'zz': mx.nd.zeros(1)})
    assert exe.aux_arrays == []


def test_outputs_share_memory_across_forwards():
    c = two_a_plus_b()
    A, B = ab()
    exe = c.bind(mx.cpu(), [A, B])
    first = exe.forward()[0]
    A[:] = 10
    second = exe.forward()[0]
    # MXNet hands out new handles each forward, over the same memory: the old one sees new values
    np.testing.assert_array_equal(first.asnumpy(), [22, 23])
    np.testing.assert_array_equal(second.asnumpy(), [22, 23])
    assert exe.outputs[0] is exe.outputs[0]
    assert exe.output_dict[c.list_outputs()[0]] is exe.outputs[0]


def test_forward_kwargs_copy_into_bound_arrays():
    c = two_a_plus_b()
    A, B = ab()
    exe = c.bind(mx.cpu(), [A, B])
    exe.forward(a=mx.nd.array([5, 5]))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [12, 13])
    assert exe.arg_dict['a'] is A
    np.testing.assert_array_equal(A.asnumpy(), [5, 5])
    exe.forward(a=np.array([6, 6]))  # numpy arrays are accepted too
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [14, 15])
    with pytest.raises(BindError, match="'z'"):
        exe.forward(z=mx.nd.array([5, 5]))
    with pytest.raises(ShapeError, match=r"'a'.*\(2,\).*\(3,\)"):
        exe.forward(a=mx.nd.array([5, 5, 5]))


# ------------------------------------------------------------------ grad_req
def test_grad_req_add_accumulates():
    # MXNet 1.9.1 accumulates correctly through FullyConnected and elemwise_mul (its 'add' for
    # a+b and scalar ops is buggy: triangular numbers), so these two graphs are the reference.
    a = mx.sym.Variable('a')
    f = mx.sym.FullyConnected(a, num_hidden=2, no_bias=True, name='f')
    ga, gw = mx.nd.zeros((1, 2)), mx.nd.zeros((2, 2))
    exe = f.bind(mx.cpu(), [mx.nd.array([[1, 2]]), mx.nd.array([[1, 2], [3, 4]])],
                 args_grad=[ga, gw], grad_req='add')
    for k in range(1, 3):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((1, 2)))
        np.testing.assert_array_equal(ga.asnumpy(), [[4 * k, 6 * k]])
        np.testing.assert_array_equal(gw.asnumpy(), [[k, 2 * k], [k, 2 * k]])
    b = mx.sym.Variable('b')
    gx, gy = mx.nd.zeros(2), mx.nd.ones(2)
    exe = (a * b).bind(mx.cpu(), [mx.nd.array([1, 2]), mx.nd.array([3, 4])], args_grad=[gx, gy],
                       grad_req=['add', 'add'])
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones(2))
    np.testing.assert_array_equal(gx.asnumpy(), [6, 8])
    np.testing.assert_array_equal(gy.asnumpy(), [3, 5])


def test_grad_req_null_as_dict_and_list():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    c = a * b
    ga, gb = mx.nd.zeros(2), mx.nd.ones(2)
    # a name missing from the dict means 'null'; names the symbol lacks are ignored
    exe = c.bind(mx.cpu(), ab(), args_grad=[ga, gb], grad_req={'a': 'write', 'q': 'add'})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(2))
    np.testing.assert_array_equal(ga.asnumpy(), [2, 3])
    np.testing.assert_array_equal(gb.asnumpy(), [1, 1])  # untouched
    assert exe.grad_arrays[1] is gb and exe.grad_dict['b'] is gb  # bind keeps it all the same
    ga, gb = mx.nd.zeros(2), mx.nd.ones(2)
    exe = c.bind(mx.cpu(), ab(), args_grad=[ga, gb], grad_req=['null', 'add'])
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(2))
    np.testing.assert_array_equal(ga.asnumpy(), [0, 0])
    np.testing.assert_array_equal(gb.asnumpy(), [2, 3])
    # simple_bind allocates no gradient under 'null'
    assert c.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req='null').grad_arrays == [None, None]
    exe = c.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req={'a': 'write'})
    assert exe.grad_arrays[0].shape == (2,) and exe.grad_arrays[1] is None
    exe = c.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req=['null', 'add'])
    assert exe.grad_arrays[0] is None and exe.grad_arrays[1].shape == (2,)


def test_args_grad_dict_subset():
    c = two_a_plus_b()
    ga = mx.nd.zeros(2)
    exe = c.bind(mx.cpu(), ab(), args_grad={'a': ga, 'zz': mx.nd.zeros(2)})
    assert exe.grad_arrays[0] is ga and exe.grad_arrays[1] is None
    assert exe.grad_dict == {'a': ga, 'b': None}
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(2) * 3)
    np.testing.assert_array_equal(ga.asnumpy(), [6, 6])


def test_invalid_grad_req_names_argument_and_value():
    c = two_a_plus_b()
    grads = [mx.nd.zeros(2), mx.nd.zeros(2)]
    with pytest.raises(BindError, match=r"'a'.*'bogus'"):
        c.bind(mx.cpu(), ab(), args_grad=grads, grad_req='bogus')
    with pytest.raises(BindError, match=r"'b'.*'sometimes'"):
        c.bind(mx.cpu(), ab(), args_grad=grads, grad_req={'a': 'write', 'b': 'sometimes'})
    with pytest.raises(BindError, match=r"'a'.*'bogus'"):
        c.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req='bogus')
    with pytest.raises(BindError):
        c.bind(mx.cpu(), ab(), args_grad=grads, grad_req=['write'])
    with pytest.raises(BindError):
        c.bind(mx.cpu(), ab(), args_grad=[mx.nd.zeros(2)])
    with pytest.raises(ShapeError, match="'a'"):
        c.bind(mx.cpu(), ab(), args_grad=[mx.nd.zeros(3), mx.nd.zeros(2)])


# ------------------------------------------------------------------ backward
def test_backward_out_grads_forms():
    c = two_a_plus_b()
    ga, gb = mx.nd.zeros(2), mx.nd.zeros(2)
    exe = c.bind(mx.cpu(), ab(), args_grad=[ga, gb])
    exe.forward(is_train=True)
    for head in (mx.nd.ones(2), [mx.nd.ones(2)], {c.list_outputs()[0]: mx.nd.ones(2)}):
        ga[:] = 0
        exe.backward(head)
        np.testing.assert_array_equal(ga.asnumpy(), [2, 2])
    with pytest.raises(BindError, match=c.list_outputs()[0]):  # not a loss head
        exe.backward()
    with pytest.raises(ShapeError):
        exe.backward(mx.nd.ones(3))
    with pytest.raises(BindError, match=c.list_outputs()[0]):  # a dict must name every output
        exe.backward({'zz': mx.nd.ones(2)})
    with pytest.raises(BindError):
        exe.backward(np.ones(2))


def test_backward_after_inference_forward_is_allowed():
    # MXNet runs backward on whatever the last forward computed, is_train or not
    c = two_a_plus_b()
    exe = c.bind(mx.cpu(), ab(), args_grad=[mx.nd.zeros(2), mx.nd.zeros(2)])
    exe.forward(is_train=False)
    exe.backward(mx.nd.ones(2) * 2)
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [4, 4])
    fresh = c.bind(mx.cpu(), ab(), args_grad=[mx.nd.zeros(2), mx.nd.zeros(2)])
    with pytest.raises(MXNetError, match='forward'):
        fresh.backward(mx.nd.ones(2))


def test_loss_heads_need_no_out_grads_other_heads_do():
    fc1, sm = fc_softmax()
    g = mx.sym.Group([sm, fc1])
    exe = g.simple_bind(mx.cpu(), x=(2, 4))
    fill_arange(exe)
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [
        [0.2283717542886734, 0.32085034251213074, 0.45077788829803467],
        [0.09290412813425064, 0.2475389838218689, 0.6595568656921387]], rtol=1e-6)
    with pytest.raises(BindError, match='fc1_output'):
        exe.backward()
    # the loss head ignores its head gradient; fc1_output's flows back
    exe.backward([mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])
    np.testing.assert_allclose(exe.grad_dict['fc1_weight'].asnumpy(), [
        [0.03716165944933891, 0.06928925216197968, 0.10141684114933014, 0.1335444301366806],
        [0.4990156292915344, 0.7558545470237732, 1.0126935243606567, 1.2695324420928955],
        [0.6638227701187134, 0.9748562574386597, 1.285889744758606, 1.5969231128692627]], rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), [
        [1.688962459564209, 1.9889624118804932, 2.2889623641967773, 2.5889625549316406],
        [1.8266611099243164, 2.1266610622406006, 2.4266610145568848, 2.726661205291748]], rtol=1e-5)
    exe.arg_dict['sm_label'][:] = np.array([2, 0])
    exe.forward(is_train=True)
    exe.backward({'fc1_output': mx.nd.zeros((2, 3)), 'sm_output': mx.nd.ones((2, 3))})
    np.testing.assert_allclose(exe.grad_dict['fc1_weight'].asnumpy(), [
        [-0.36283835768699646, -0.4307107627391815, -0.4985831677913666, -0.5664555430412292],
        [0.09901559352874756, 0.15585452318191528, 0.2126934677362442, 0.26953238248825073],
        [0.2638227641582489, 0.27485620975494385, 0.28588971495628357, 0.2969231605529785]],
        rtol=1e-5, atol=1e-7)
    only = sm.simple_bind(mx.cpu(), x=(2, 4))
    fill_arange(only)
    only.forward(is_train=True)
    only.backward()  # a loss head alone: no out_grads needed
    assert abs(float(only.grad_dict['fc1_weight'].asnumpy().sum())) < 1e-5


# ------------------------------------------------------------- conveniences
def test_copy_params_from():
    _, net = fc_softmax()
    exe = net.simple_bind(mx.cpu(), x=(2, 4))
    w = exe.arg_dict['fc1_weight']
    exe.copy_params_from({'fc1_weight': mx.nd.ones((3, 4)) * 7}, {})
    assert exe.arg_dict['fc1_weight'] is w
    np.testing.assert_array_equal(w.asnumpy()[0], [7, 7, 7, 7])
    with pytest.raises(BindError, match="'zz'"):
        exe.copy_params_from({'fc1_weight': mx.nd.ones((3, 4)), 'zz': mx.nd.ones(2)})
    exe.copy_params_from({'fc1_weight': mx.nd.ones((3, 4)) * 8, 'zz': mx.nd.ones(2)}, allow_extra_params=True)
    np.testing.assert_array_equal(w.asnumpy()[0], [8, 8, 8, 8])
    with pytest.raises(BindError, match="'zz'"):
        exe.copy_params_from({}, {'zz': mx.nd.ones(2)})
    exe.copy_params_from({}, {'zz': mx.nd.ones(2)}, allow_extra_params=True)
    with pytest.raises(ShapeError, match='fc1_weight'):
        exe.copy_params_from({'fc1_weight': mx.nd.ones((3, 5))})
    exe.copy_params_from({'fc1_weight': mx.nd.ones((3, 4), dtype='float64') * 3})  # cast to the bound dtype
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w.asnumpy()[0], [3, 3, 3, 3])


def test_reshape_shares_weights_and_reuses_memory():
    _, net = fc_softmax()
    exe = net.simple_bind(mx.cpu(), x=(4, 4))
    exe.arg_dict['fc1_weight'][:] = 1
    small = exe.reshape(x=(2, 4), sm_label=(2,))
    assert small.arg_dict['fc1_weight'] is exe.arg_dict['fc1_weight']
    assert small.grad_dict['fc1_weight'] is exe.grad_dict['fc1_weight']
    assert small.arg_dict['x'].shape == (2, 4) and small.outputs[0].shape == (2, 3)
    small.arg_dict['fc1_weight'][:] = 2
    assert exe.arg_dict['fc1_weight'].asnumpy().sum() == 24
    # a smaller array is a view on the start of the old memory, as in MXNet
    small.arg_dict['x'][:] = 5
    np.testing.assert_array_equal(exe.arg_dict['x'].asnumpy(), [[5] * 4, [5] * 4, [0] * 4, [0] * 4])
    small.forward(is_train=True)
    small.backward()
    assert exe.grad_dict['fc1_weight'].asnumpy().sum() == pytest.approx(
        small.grad_dict['fc1_weight'].asnumpy().sum())
    # so is a smaller output: small's forward wrote exe's first two rows (MXNet's test_reshape)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[:2], small.outputs[0].asnumpy())
    with pytest.raises(ShapeError, match=r"'x'.*allow_up_sizing"):
        exe.reshape(x=(5, 4), sm_label=(5,))
    big = exe.reshape(x=(5, 4), sm_label=(5,), allow_up_sizing=True)
    assert big.arg_dict['x'].shape == (5, 4) and big.arg_dict['fc1_weight'] is exe.arg_dict['fc1_weight']
    big.outputs[0][:] = 7      # a bigger output has memory of its own
    assert not (exe.outputs[0].asnumpy() == 7).any()
    with pytest.raises(ShapeError, match="sm_label.*partial_shaping"):
        exe.reshape(x=(2, 4))  # the label's shape would change without being given
    assert exe.reshape(x=(2, 4), partial_shaping=True).arg_dict['sm_label'].shape == (2,)


def test_monitor_callback_names_and_order():
    _, net = fc_softmax()
    exe = net.simple_bind(mx.cpu(), x=(2, 4))
    seen = []
    # the name comes as bytes, as MXNet's C API passes it
    exe.set_monitor_callback(lambda name, arr: seen.append((name.decode(), arr.shape)))
    exe.forward(is_train=False)
    assert seen == [('fc1_output', (2, 3)), ('sm_output', (2, 3))]
    del seen[:]
    exe.forward(is_train=True)
    exe.backward()
    assert [n for n, _ in seen] == ['fc1_output', 'sm_output', 'sm_backward_output0', 'sm_backward_output1',
                                    'fc1_backward_output0', 'fc1_backward_output1', 'fc1_backward_output2']
    del seen[:]
    exe.set_monitor_callback(lambda name, arr: seen.append(mx.base.py_str(name)), monitor_all=True)
    exe.forward(is_train=True)
    # inputs come first: a variable under its own name, then as <node>_<input>
    assert seen == ['x', 'fc1_data', 'fc1_weight', 'fc1_weight', 'fc1_bias', 'fc1_bias', 'fc1_output',
                    'sm_data', 'sm_label', 'sm_label', 'sm_output']


def test_monitor_reports_every_input_of_a_backward_step_even_without_a_gradient():
    # MXNet 1.9.1's Module monitor lists fc1_backward_output0 though the data has no gradient
    _, net = fc_softmax()
    exe = net.simple_bind(mx.cpu(), x=(2, 4), grad_req={'x': 'null', 'fc1_weight': 'write',
                                                         'fc1_bias': 'write', 'sm_label': 'null'})
    seen = {}
    exe.set_monitor_callback(lambda name, arr: seen.__setitem__(mx.base.py_str(name), arr.asnumpy()))
    exe.forward(is_train=True)
    exe.backward()
    assert [n for n in seen if 'backward' in n] == ['sm_backward_output0', 'sm_backward_output1',
                                                    'fc1_backward_output0', 'fc1_backward_output1',
                                                    'fc1_backward_output2']
    assert not seen['fc1_backward_output0'].any() and not seen['sm_backward_output1'].any()


def test_debug_str_mentions_every_step_and_bytes():
    fc1, sm = fc_softmax()
    net = mx.sym.Activation(fc1, act_type='relu', name='relu1')
    exe = mx.sym.SoftmaxOutput(net, name='sm').simple_bind(mx.cpu(), x=(2, 4))
    text = exe.debug_str()
    for name in ('fc1', 'relu1', 'sm', 'FullyConnected', 'Activation', 'SoftmaxOutput'):
        assert name in text
    assert 'bytes' in text


# ------------------------------------------------------------------ devices
def two_stage_net():
    with mx.AttrScope(ctx_group='dev1'):
        x = mx.sym.Variable('x')
        fc1 = mx.sym.FullyConnected(x, num_hidden=3, name='fc1')
        a1 = mx.sym.Activation(fc1, act_type='tanh', name='a1')
    with mx.AttrScope(ctx_group='dev2'):
        fc2 = mx.sym.FullyConnected(a1, num_hidden=2, name='fc2')
        return mx.sym.SoftmaxOutput(fc2, name='sm')


def test_group2ctx_places_arrays_and_matches_single_device():
    net = two_stage_net()
    g2c = {'dev1': mx.cpu(1), 'dev2': mx.cpu(2)}
    exe = net.simple_bind(mx.cpu(), x=(4, 5), group2ctx=g2c)
    where = {'x': 'cpu(1)', 'fc1_weight': 'cpu(1)', 'fc1_bias': 'cpu(1)',
             'fc2_weight': 'cpu(2)', 'fc2_bias': 'cpu(2)', 'sm_label': 'cpu(2)'}
    assert {k: str(v.context) for k, v in exe.arg_dict.items()} == where
    assert {k: str(v.context) for k, v in exe.grad_dict.items()} == where
    assert [str(o.context) for o in exe.outputs] == ['cpu(2)']
    rng = np.random.RandomState(0)
    vals = {k: rng.randn(*v.shape).astype('float32') for k, v in exe.arg_dict.items()}
    vals['sm_label'] = np.array([0, 1, 1, 0], dtype='float32')
    single = net.simple_bind(mx.cpu(), x=(4, 5))
    for e in (exe, single):
        for k, v in vals.items():
            e.arg_dict[k][:] = v
        e.forward(is_train=True)
        e.backward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), single.outputs[0].asnumpy())
    for k in vals:
        np.testing.assert_array_equal(exe.grad_dict[k].asnumpy(), single.grad_dict[k].asnumpy())
    # MXNet's numbers for the same data (rounded to 5 places)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [[0.97658, 0.02342], [0.39949, 0.60051],
                                                          [0.61028, 0.38972], [0.02272, 0.97728]], atol=2e-5)
    np.testing.assert_allclose(exe.grad_dict['fc1_weight'].asnumpy()[0],
                               [-0.04608, -0.06444, 0.01549, -0.05261, 0.03445], atol=2e-5)
    # bind with arrays all on cpu(0): ops still run per group, outputs land on dev2's context
    bound = net.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in vals.items()}, group2ctx=g2c)
    assert [str(o.context) for o in bound.forward()] == ['cpu(2)']
    np.testing.assert_array_equal(bound.outputs[0].asnumpy(), single.outputs[0].asnumpy())


def test_group2ctx_missing_group_is_an_error():
    net = two_stage_net()
    with pytest.raises(BindError, match='dev2'):
        net.simple_bind(mx.cpu(), x=(4, 5), group2ctx={'dev1': mx.cpu(1)})
    # without group2ctx (or with an empty one) every group runs on ctx
    exe = net.simple_bind(mx.cpu(), x=(4, 5), group2ctx={})
    assert {str(a.context) for a in exe.arg_arrays} == {'cpu(0)'}


def test_simple_bind_on_other_context():
    x = mx.sym.Variable('x')
    exe = (x * 2).simple_bind(mx.cpu(3), x=(2,))
    assert exe.arg_arrays[0].context == mx.cpu(3) and exe.outputs[0].context == mx.cpu(3)


# ------------------------------------------------------------- simple_bind
def test_simple_bind_types_and_shapes():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    c = a * b
    # names the symbol does not have are ignored, as MXNet does
    exe = c.simple_bind(mx.cpu(), a=(2,), q=(3,))
    assert [x.shape for x in exe.arg_arrays] == [(2,), (2,)]
    exe = c.simple_bind(mx.cpu(), a=(2,), type_dict={'a': 'float64'})
    assert [x.dtype for x in exe.arg_arrays] == [np.float64, np.float64]
    assert [x.dtype for x in exe.grad_arrays] == [np.float64, np.float64]
    assert exe.outputs[0].dtype == np.float64
    h = mx.sym.Variable('h', dtype='float16', shape=(3,))
    exe = (h * 2).simple_bind(mx.cpu())
    assert (exe.arg_arrays[0].dtype, exe.arg_arrays[0].shape, exe.outputs[0].dtype) == \
        (np.float16, (3,), np.float16)
    # with a type_dict, the others must follow by inference
    with pytest.raises(MXNetError, match="'b'"):
        mx.sym.Group([a * 2, b * 3]).simple_bind(mx.cpu(), a=(2,), b=(2,), type_dict={'a': 'float64'})
    with pytest.raises(ShapeError, match="'b'"):
        mx.sym.Group([a * 2, b * 3]).simple_bind(mx.cpu(), a=(2,))


def test_simple_bind_shared_exec_needs_shared_buffer():
    _, net = fc_softmax()
    base = net.simple_bind(mx.cpu(), x=(4, 4))
    base.arg_dict['fc1_weight'][:] = 3
    # MXNet shares nothing unless a shared_buffer dict is passed too
    alone = net.simple_bind(mx.cpu(), x=(2, 4), shared_exec=base, shared_arg_names=['fc1_weight'])
    assert alone.arg_dict['fc1_weight'].asnumpy().sum() == 0
    buf = {}
    s3 = net.simple_bind(mx.cpu(), x=(4, 4), shared_exec=base, shared_arg_names=['fc1_weight'],
                         shared_buffer=buf)
    assert s3.arg_dict['fc1_weight'] is base.arg_dict['fc1_weight']
    assert s3.grad_dict['fc1_weight'] is base.grad_dict['fc1_weight']
    assert sorted(buf) == ['fc1_bias', 'grad of fc1_bias', 'grad of sm_label', 'grad of x', 'sm_label', 'x']
    s3.arg_dict['x'][:] = 1
    s4 = net.simple_bind(mx.cpu(), x=(2, 4), shared_exec=base, shared_arg_names=['fc1_weight'],
                         shared_buffer=buf)
    # data arrays are views on the buffer's (larger) arrays
    assert s4.arg_dict['x'].asnumpy().sum() == 8
    s4.arg_dict['x'][:] = 2
    assert s3.arg_dict['x'].asnumpy().sum() == 24
    assert buf['x'].shape == (4, 4)
    net.simple_bind(mx.cpu(), x=(8, 4), shared_exec=base, shared_arg_names=['fc1_weight'], shared_buffer=buf)
    assert buf['x'].shape == (8, 4)  # outgrown: replaced by new memory


@needs('BatchNorm')
def test_simple_bind_shares_aux_states_with_shared_buffer():
    x = mx.sym.Variable('x')
    net = mx.sym.SoftmaxOutput(mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=3, name='fc1'),
                                                name='bn'), name='sm')
    base = net.simple_bind(mx.cpu(), x=(4, 4))
    base.aux_dict['bn_moving_mean'][:] = 3
    assert net.simple_bind(mx.cpu(), x=(4, 4), shared_exec=base).aux_dict['bn_moving_mean'].asnumpy().sum() == 0
    shared = net.simple_bind(mx.cpu(), x=(4, 4), shared_exec=base, shared_buffer={})
    assert shared.aux_dict['bn_moving_mean'] is base.aux_dict['bn_moving_mean']


@needs('BatchNorm')
def test_batchnorm_moving_stats_update_only_in_training():
    # MXNet 1.9.1 on CPU folds the batch statistics into the moving ones during backward of a
    # training pass: an inference forward, or a training forward alone, leaves them untouched
    x = mx.sym.Variable('x')
    bn = mx.sym.BatchNorm(x, name='bn', fix_gamma=False, momentum=0.9)
    exe = bn.simple_bind(mx.cpu(), x=(4, 2))
    exe.arg_dict['x'][:] = np.array([[1, 2], [3, 4], [5, 7], [0, -1]], dtype='float32')
    exe.arg_dict['bn_gamma'][:] = 1
    mean, var = exe.aux_dict['bn_moving_mean'], exe.aux_dict['bn_moving_var']
    exe.forward(is_train=False)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [[31.622774, 63.245548], [94.868324, 126.491096],
                                                          [158.11388, 221.35942], [0.0, -31.622774]], rtol=1e-6)
    exe.forward(is_train=True)
    np.testing.assert_array_equal(mean.asnumpy(), [0, 0])
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [[-0.65085638, -0.34297699], [0.39051381, 0.34297699],
                                                          [1.43188393, 1.37190795], [-1.17154145, -1.37190795]],
                               rtol=1e-5)
    exe.backward(mx.nd.ones((4, 2)))
    np.testing.assert_allclose(mean.asnumpy(), [0.225, 0.3], rtol=1e-6)
    exe.forward(is_train=True)
    np.testing.assert_allclose(var.asnumpy(), [0.36875, 0.85], rtol=1e-6)
    assert exe.aux_dict['bn_moving_mean'] is mean


# -------------------------------------------------------------------- errors
def test_bind_errors_name_the_culprit():
    c = two_a_plus_b()
    with pytest.raises(BindError, match="'b'"):
        c.bind(mx.cpu(), {'a': mx.nd.array([1, 2])})
    with pytest.raises(BindError, match='2'):
        c.bind(mx.cpu(), [mx.nd.array([1, 2])])
    with pytest.raises(BindError, match="'b'"):
        c.bind(mx.cpu(), [mx.nd.array([1, 2]), np.array([1, 2])])
    with pytest.raises(ShapeError, match=r"_plus0|elemwise_add"):
        c.bind(mx.cpu(), {'a': mx.nd.array([1, 2]), 'b': mx.nd.array([1, 2, 3])})
    with pytest.raises(BindError, match='Module'):
        c.simple_bind([mx.cpu(), mx.cpu(1)], a=(2,))
    with pytest.raises(BindError):
        c.bind([mx.cpu()], ab())
    _, net = fc_softmax()
    with pytest.raises(ShapeError, match=r"fc1.*weight"):
        net.bind(mx.cpu(), {'x': mx.nd.ones((2, 4)), 'fc1_weight': mx.nd.ones((3, 5)),
                            'fc1_bias': mx.nd.ones(3), 'sm_label': mx.nd.ones(2)})
    with pytest.raises(ShapeError, match='fc1_weight'):
        net.simple_bind(mx.cpu())


def test_errors_are_mxnet_errors():
    for cls in (ShapeError, BindError, ParamError, ContextError):
        assert issubclass(cls, MXNetError)


def test_gpu_without_cupy_is_a_context_error():
    if mx.num_gpus() > 0:
        pytest.skip('cupy and a CUDA device are available here')
    c = two_a_plus_b()
    with pytest.raises(ContextError, match='cupy'):
        c.simple_bind(mx.gpu(), a=(2,), b=(2,))
    with pytest.raises(ContextError, match='cupy'):
        c.bind(mx.gpu(), ab())
    with pytest.raises(ContextError):
        mx.nd.zeros(2, ctx=mx.gpu())


def test_eval():
    a = mx.sym.Variable('a')
    out = (a * 2).eval(ctx=mx.cpu(), a=mx.nd.array([1, 2]))
    np.testing.assert_array_equal(out[0].asnumpy(), [2, 4])


def test_untagged_operators_run_where_their_first_input_lives():
    # MXNet 1.9.1 (checked): with group2ctx, an operator outside every ctx_group inherits the
    # device of its first input; outputs [b, c, d, b+d] land on cpu(1), cpu(0), cpu(2), cpu(1)
    x = mx.sym.Variable('x')
    with mx.AttrScope(ctx_group='g1'):
        a = mx.sym.tanh(x, name='a')
    b, c = mx.sym.relu(a, name='b'), mx.sym.exp(x, name='c')
    with mx.AttrScope(ctx_group='g2'):
        d = mx.sym.sqrt(c, name='d')
    exe = mx.sym.Group([b, c, d, b + d]).simple_bind(
        mx.cpu(0), group2ctx={'g1': mx.cpu(1), 'g2': mx.cpu(2)}, x=(2,))
    assert [o.context for o in exe.outputs] == [mx.cpu(1), mx.cpu(0), mx.cpu(2), mx.cpu(1)]


def test_a_group_mapped_to_a_list_of_contexts_is_a_clear_error():
    with mx.AttrScope(ctx_group='g1'):
        y = mx.sym.tanh(mx.sym.Variable('x'))
    with pytest.raises(BindError, match="exactly one Context"):
        y.simple_bind(mx.cpu(0), group2ctx={'g1': [mx.cpu(1), mx.cpu(2)]}, x=(2,))


# ------------------------------------------------------------------ only the wanted input gradients
@pytest.mark.parametrize('op_name, kwargs, shapes', [
    ('FullyConnected', {'num_hidden': 5}, [(4, 3), (5, 3), (5,)]),
    ('Convolution', {'num_filter': 4, 'kernel': (3, 3), 'pad': (1, 1)}, [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    ('dot', {}, [(4, 3), (3, 5)]),
])
def test_backward_skips_unwanted_input_gradients_and_keeps_the_rest_bit_identical(op_name, kwargs, shapes):
    from reflib.operator.registry import OpEnv, get
    op = get(op_name)
    p = op.parse_params(kwargs)
    rng = np.random.RandomState(0)
    ins = [rng.randn(*s).astype(np.float32) for s in shapes]
    outs = op.forward(p, OpEnv(mx.cpu(), True), ins, [])
    head = [rng.randn(*o.shape).astype(np.float32) for o in outs]
    full = op.backward(p, OpEnv(mx.cpu(), True), head, ins, outs, [])
    wants = (False,) + (True,) * (len(ins) - 1)
    some = op.backward(p, OpEnv(mx.cpu(), True, wants=wants), head, ins, outs, [])
    assert some[0] is None
    for a, b in zip(full[1:], some[1:]):
        assert np.array_equal(a, b)


def test_executor_computes_no_data_gradient_nobody_asked_for():
    data = mx.sym.Variable('data')
    net = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name='conv')
    net = mx.sym.FullyConnected(net, num_hidden=3, name='fc')
    net = mx.sym.SoftmaxOutput(net, name='softmax')
    grads = {}
    for req in ('write', 'null'):
        ex = net.simple_bind(mx.cpu(), data=(2, 1, 5, 5), grad_req={'data': req, 'conv_weight': 'write',
                                                                   'conv_bias': 'write', 'fc_weight': 'write',
                                                                   'fc_bias': 'write', 'softmax_label': 'null'})
        rng = np.random.RandomState(1)
        for name, arr in ex.arg_dict.items():
            arr[:] = rng.uniform(-1, 1, arr.shape) if name != 'softmax_label' else np.array([0, 2])
        ex.forward(is_train=True)
        ex.backward()
        grads[req] = {k: v.asnumpy() for k, v in ex.grad_dict.items() if v is not None and k != 'data'}
        conv_step = next(s for s in ex._plan.steps if s.node.name == 'conv')
        assert conv_step.wants == (req == 'write', True, True)
    for name in grads['write']:
        assert np.array_equal(grads['write'][name], grads['null'][name]), name


def test_a_plan_does_not_change_once_built():
    """Bind builds the plan once; the arrays an executor gives each step are its own
    (Executor._step_arrays), so two executors of one symbol never write into one plan."""
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    exe = net.simple_bind(mx.cpu(), grad_req={'data': 'null', 'fc_weight': 'write', 'fc_bias': 'write'},
                          data=(2, 4))
    step = exe._plan.steps[0]
    with pytest.raises(AttributeError, match="does not change.*'wants' of fc"):
        step.wants = (True, True, True)
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))
    assert step.wants == (False, True, True)        # the data needs no gradient


def test_the_public_views_of_a_bound_executor():
    """plan, memory_plan and memory_pool: what chapters and book helpers read."""
    net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc'),
                            act_type='relu', name='relu')
    exe = net.simple_bind(mx.cpu(), data=(2, 4))
    assert [s.node.name for s in exe.plan.steps] == ['fc', 'relu']
    assert exe.memory_plan.total_bytes == exe.memory_report()['planned']
    assert sum(n for _, n in exe.memory_pool) == exe.memory_report()['planned']
    assert all(ctx == mx.cpu() for ctx, _ in exe.memory_pool)


def test_backward_before_forward_where_no_backward_reads_forward_values():
    """MXNet 1.9.1 runs backward on whatever its memory holds: for a + b that is the right
    gradient (oracle: [1, 2, 3] for both), so reflib gives it too; where a backward reads
    forward values (tanh), MXNet's answer would be garbage and reflib refuses, naming the node."""
    a, b = mx.sym.var('a'), mx.sym.var('b')
    exe = (a + b).bind(mx.cpu(), {'a': mx.nd.ones(3), 'b': mx.nd.ones(3)},
                       args_grad={'a': mx.nd.zeros(3), 'b': mx.nd.zeros(3)})
    exe.backward(mx.nd.array([1, 2, 3]))
    assert exe.grad_dict['a'].asnumpy().tolist() == [1, 2, 3] == exe.grad_dict['b'].asnumpy().tolist()
    exe = mx.sym.tanh(a, name='t').bind(mx.cpu(), {'a': mx.nd.ones(3)}, args_grad={'a': mx.nd.zeros(3)})
    with pytest.raises(mx.MXNetError, match=r"call forward\(\) first; the backward of \['t'\] reads"):
        exe.backward(mx.nd.ones(3))


def test_outputs_no_gradient_passes_need_no_head_gradient():
    """MXNet 1.9.1: backward() after a comparison head (zero gradient everywhere) needs no
    out_grads and reads none; tile's backward reads no forward value, so it runs before any
    forward (MXNet's test_tile does so)."""
    x, y = mx.sym.var('x'), mx.sym.var('y')
    exe = (x == y).simple_bind(mx.cpu(), x=(2, 3), y=(2, 3))
    exe.forward(is_train=True)
    exe.backward()
    exe.backward([mx.nd.ones((7,))])       # never read, so never checked
    assert not exe.grad_dict['x'].asnumpy().any()
    tiled = mx.sym.tile(x, reps=(2,)).simple_bind(mx.cpu(), x=(3,))
    tiled.backward(mx.nd.array([1, 2, 3, 4, 5, 6]))
    assert tiled.grad_dict['x'].asnumpy().tolist() == [5, 7, 9]


def test_a_zero_gradient_is_written_and_a_labels_is_left_as_mxnet_does():
    """MXNet 1.9.1: an input an operator gives no gradient to (topk's under ret_typ='indices',
    take's indices) gets zeros under 'write'; a loss head's label keeps what it had."""
    x, idx = mx.sym.var('x'), mx.sym.var('idx')
    for net, wrt, head in ((mx.sym.topk(x, k=2, axis=1), 'x', mx.nd.ones((2, 2))),
                           (mx.sym.take(x, idx), 'idx', mx.nd.ones((2, 3)))):
        exe = net.simple_bind(mx.cpu(), x=(2, 3), idx=(2,)) if wrt == 'idx' else net.simple_bind(mx.cpu(), x=(2, 3))
        exe.grad_dict[wrt][:] = 7
        exe.forward(is_train=True, x=mx.nd.array([[1, 2, 3], [3, 2, 1]]))
        exe.backward(head)
        assert not exe.grad_dict[wrt].asnumpy().any()
    head = mx.sym.SoftmaxOutput(x, mx.sym.var('label')).simple_bind(mx.cpu(), x=(2, 3), label=(2,))
    head.grad_dict['label'][:] = 7
    head.forward(is_train=True, label=mx.nd.array([0, 1]))
    head.backward()
    assert head.grad_dict['label'].asnumpy().tolist() == [7, 7]


@pytest.mark.parametrize('make', [lambda x: mx.sym.argmax(x, axis=1), lambda x: mx.sym.argsort(x),
                                  lambda x: mx.sym.round(x), lambda x: mx.sym.one_hot(x, depth=3),
                                  lambda x: mx.sym.topk(x, k=1, ret_typ='mask'), lambda x: x >= 1])
def test_no_gradient_passes_positions_or_steps(make):
    """MXNet 1.9.1 reads no head gradient of these (any shape is accepted) and writes zeros;
    sign and topk's values still read theirs."""
    exe = make(mx.sym.var('x')).simple_bind(mx.cpu(), x=(2, 3))
    exe.grad_dict['x'][:] = 7
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((7, 7)))
    assert not exe.grad_dict['x'].asnumpy().any()
    for reads in (mx.sym.sign(mx.sym.var('x')), mx.sym.topk(mx.sym.var('x'), k=1, ret_typ='value')):
        with pytest.raises(ShapeError, match='head gradient'):
            exe = reads.simple_bind(mx.cpu(), x=(2, 3))
            exe.forward(is_train=True)
            exe.backward(mx.nd.ones((7, 7)))


def test_argmax_channel_has_no_gradient_as_in_mxnet():
    with pytest.raises(mx.base.BindError, match='argmax_channel'):
        mx.sym.argmax_channel(mx.sym.var('x')).simple_bind(mx.cpu(), x=(2, 3))
    assert mx.sym.argmax_channel(mx.sym.var('x')).simple_bind(mx.cpu(), x=(2, 3), grad_req='null')
