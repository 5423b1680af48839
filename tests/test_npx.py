"""mx.npx's operators (reflib/numpy_extension) and mx.np's elementwise functions against MXNet
1.9.1 (golden/npx.json, from golden/gen_npx.py over golden/npx_cases.py): kinds, shapes,
dtypes and values of every result, and a gradient through them."""

import json
import os
import sys

import numpy as onp
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import npx_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'npx.json')) as _f:
    GOLDEN = json.load(_f)
FOUND = json.loads(json.dumps(npx_cases.run(mx)))


# where reflib differs from MXNet 1.9.1 on purpose (tested below)
DIFFERS = {'mxnet_gradient_of_std_and_var'}


@pytest.mark.parametrize('name', sorted(set(GOLDEN) - DIFFERS))
def test_results_as_mxnet_gives_them(name):
    assert len(FOUND[name]) == len(GOLDEN[name])
    for got, want in zip(FOUND[name], GOLDEN[name]):
        assert (got['np'], got['shape'], got['dtype']) == (want['np'], want['shape'], want['dtype'])
        assert got['np']                       # every result is an mx.np.ndarray
        onp.testing.assert_allclose(got['values'], want['values'], rtol=1e-4, atol=2e-5, err_msg=name)


def test_every_npx_operator_is_a_registry_operator_with_its_name_and_doc():
    for name, op_name in mx.npx.OPERATORS.items():
        function = getattr(mx.npx, name)
        assert function.__name__ == name and op_name in function.__doc__
        assert mx.operator.get(op_name).name   # raises for an unknown operator


def test_std_and_var_have_the_gradient_mxnet_leaves_out():
    # MXNet 1.9.1 computes np.std and np.var but gives their input a zero gradient; reflib
    # gives the same values and the true gradient (checked against finite differences)
    (value, mxnet_grad), (got_value, got_grad) = GOLDEN['mxnet_gradient_of_std_and_var'], \
        FOUND['mxnet_gradient_of_std_and_var']
    onp.testing.assert_allclose(got_value['values'], value['values'], rtol=1e-5)
    assert not any(mxnet_grad['values'])
    u = onp.array(got_grad['values']).reshape(got_grad['shape'])      # reflib's gradient
    x = mx.np.array(onp.random.RandomState(4).normal(size=(3, 4)), dtype='float64')

    def spread(a):
        return mx.np.std(a, axis=0).sum() + mx.np.var(a)

    mx.npx.set_np()              # two 0-d arrays are added: NumPy shapes, as in MXNet
    try:
        x.attach_grad()
        with mx.autograd.record():
            total = spread(x)
        total.backward()
        base, step, numeric = x.asnumpy(), 1e-6, onp.zeros((3, 4))
        for i in onp.ndindex(3, 4):
            up, down = base.copy(), base.copy()
            up[i] += step
            down[i] -= step
            numeric[i] = (spread(mx.np.array(up, dtype='float64')).item()
                          - spread(mx.np.array(down, dtype='float64')).item()) / (2 * step)
    finally:
        mx.npx.reset_np()
    onp.testing.assert_allclose(x.grad.asnumpy(), numeric, rtol=1e-6, atol=1e-8)
    assert onp.abs(u).max() > 0.1


def test_numpy_arrays_refuse_the_legacy_methods_mxnet_refuses():
    x = mx.np.ones((2, 3))
    for name in ('tile', 'flip', 'split', 'topk', 'sin'):
        with pytest.raises(AttributeError, match="no attribute '%s'.*mx.np.%s" % (name, name)):
            getattr(x, name)
    with pytest.raises(AttributeError, match='no attribute'):
        x.no_such_method
    assert not hasattr(x, 'tile') and hasattr(x, 'repeat') and hasattr(x, 'swapaxes')
    assert isinstance(x.repeat(2), mx.np.ndarray) and x.swapaxes(0, 1).shape == (3, 2)
    assert x.as_in_ctx(mx.cpu()) is x          # MXNet hands back the array itself


GOLDEN_DIR = os.path.join(HERE, 'golden')


def _npx_golden():
    import gen_ndarray_files          # the arrays MXNet saved (golden/, on sys.path above)
    return gen_ndarray_files.npx_arrays()


def test_npx_save_writes_mxnets_bytes_and_load_reads_them(tmp_path):
    listed, named = _npx_golden()
    mx.npx.set_np()
    try:
        mx.npx.save(str(tmp_path / 'list.nd'), [mx.np.array(x, dtype=x.dtype) for x in listed])
        mx.npx.save(str(tmp_path / 'dict.nd'), {k: mx.np.array(x, dtype=x.dtype) for k, x in named.items()})
        mx.npx.save(str(tmp_path / 'one.nd'), mx.np.array(listed[0]))
        back_list = mx.npx.load(os.path.join(GOLDEN_DIR, 'mx_npx_list.nd'))
        back_dict = mx.npx.load(os.path.join(GOLDEN_DIR, 'mx_npx_dict.nd'))
        (one,) = mx.npx.load(str(tmp_path / 'one.nd'))      # one array comes back as a list, as in MXNet
    finally:
        mx.npx.reset_np()
    for mine, theirs in (('list.nd', 'mx_npx_list.nd'), ('dict.nd', 'mx_npx_dict.nd')):
        with open(os.path.join(GOLDEN_DIR, theirs), 'rb') as f:
            assert (tmp_path / mine).read_bytes() == f.read(), mine
    assert all(type(a) is mx.np.ndarray for a in back_list + list(back_dict.values()) + [one])
    assert back_list[1].shape == () and back_list[1].item() == 2.5
    assert [a.asnumpy().tolist() for a in back_list] == [x.tolist() for x in listed]
    assert sorted(back_dict) == ['x', 'y'] and back_dict['y'].dtype == onp.int32
    assert one.asnumpy().tolist() == listed[0].tolist()


def test_npx_save_and_load_refuse_what_mxnet_refuses(tmp_path):
    x = mx.np.ones(2)
    with pytest.raises(ValueError, match='set_np'):
        mx.npx.save(str(tmp_path / 'a.nd'), x)            # outside NumPy semantics
    mx.npx.set_np()
    try:
        with pytest.raises(TypeError, match='legacy NDArray'):
            mx.npx.save(str(tmp_path / 'a.nd'), [x.as_nd_ndarray()])
        with pytest.raises(ValueError, match='int'):
            mx.npx.save(str(tmp_path / 'a.nd'), 3)
        mx.npx.save(str(tmp_path / 'a.nd'), [x])
    finally:
        mx.npx.reset_np()
    with pytest.raises(ValueError, match='set_np'):
        mx.npx.load(str(tmp_path / 'a.nd'))


def test_random_randn_and_multinomial_draw_what_numpy_describes():
    mx.random.seed(3)
    assert mx.np.random.randn(2, 3).shape == (2, 3) and mx.np.random.randn().shape == ()
    draws = mx.np.random.randn(20000).asnumpy()
    assert draws.dtype == onp.float32 and abs(draws.mean()) < 0.03 and abs(draws.std() - 1) < 0.03
    counts = mx.np.random.multinomial(10, [1 / 6.0] * 6, size=(500,))
    assert counts.shape == (500, 6) and counts.dtype == onp.int64
    assert (counts.asnumpy().sum(axis=1) == 10).all()
    share = counts.asnumpy().sum(axis=0) / 5000.0
    assert onp.abs(share - 1 / 6.0).max() < 0.02            # d2l's die: every face near 1/6
    assert mx.np.random.multinomial(1, mx.np.array([0.0, 1.0])).tolist() == [0, 1]
    assert mx.np.random.multinomial(0, [0.5, 0.5]).tolist() == [0, 0]
    with pytest.raises(ValueError, match='sum to more than 1'):
        mx.np.random.multinomial(3, [0.7, 0.7, 0.1])
    with pytest.raises(NotImplementedError, match='ord=3'):
        mx.np.linalg.norm(mx.np.ones((2, 2)), ord=3)
