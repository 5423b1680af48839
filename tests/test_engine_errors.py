"""Where a failed computation surfaces (reflib/engine.py): as in MXNet 1.9.1's engine, at
the next wait on the result, not at the call; once; passed on to every operator that reads
the failed result.  The scenarios are those MXNet's test_exc_handling checks."""

import numpy as np
import pytest

import reflib as mx
from reflib.base import ComputeError


@pytest.fixture(autouse=True)
def nothing_pending():
    mx.nd.waitall()
    yield
    try:
        mx.nd.waitall()
    except ComputeError:
        pass


def test_a_failed_draw_raises_at_the_read_not_at_the_call():
    a = mx.nd.random.normal(0, 1, (2, 2))
    b = mx.nd.random.normal(0, -1, (2, 2))          # no error here
    c = mx.nd.dot(a, b)                              # nor here: c fails unrun
    with pytest.raises(ComputeError, match='scale must be positive'):
        c.asnumpy()
    c.asnumpy()              # raised once, wherever first waited for: b reads too (MXNet 1.9.1)
    b.wait_to_read()
    mx.nd.waitall()


def test_waitall_raises_the_first_pending_failure_and_forgets_them():
    mx.nd.take(mx.nd.ones((2, 3)), mx.nd.array([5]), mode='raise')
    mx.nd.random.normal(0, -1, (2,))
    with pytest.raises(ComputeError):
        mx.nd.waitall()
    mx.nd.waitall()


def test_views_of_a_failed_result_share_its_failure():
    a, b = mx.nd.random.normal(0, -1, (2, 2)).copyto(mx.cpu())
    with pytest.raises(ComputeError):
        a.asnumpy()
    assert b.asnumpy().shape == (2,)                 # MXNet's test_exc_post_fail


def test_an_operator_reading_a_failed_array_fails_too():
    a, _ = mx.nd.random.normal(0, -1, (2, 2)).copyto(mx.cpu())
    a = mx.nd.dot(a, a)
    with pytest.raises(ComputeError):
        a.asnumpy()


def test_an_executor_fails_its_outputs_and_gradients():
    x, z = mx.sym.var('x'), mx.sym.var('z')
    net = mx.sym.make_loss(mx.sym.dot(mx.sym.dot(z, x), mx.sym.random.normal(0, -1, (2, 2))))
    exe = net.bind(mx.cpu(), args={'x': mx.nd.ones((2, 2)), 'z': mx.nd.ones((3, 2))},
                   args_grad={'x': mx.nd.zeros((2, 2)), 'z': mx.nd.zeros((3, 2))})
    outputs = exe.forward()
    with pytest.raises(ComputeError):
        outputs[0].asnumpy()
    exe.forward()
    exe.backward()
    with pytest.raises(ComputeError):
        exe.grad_arrays[0].asnumpy()
    outputs[0].asnumpy()        # the same failure, raised once already
    # a good forward afterwards runs normally
    good = mx.sym.dot(z, x).bind(mx.cpu(), args={'x': mx.nd.ones((2, 2)), 'z': mx.nd.ones((3, 2))})
    assert np.array_equal(good.forward()[0].asnumpy(), np.full((3, 2), 2.0))


def test_take_raise_inside_a_graph_raises_at_the_read():
    """MXNet's test_take with mode='raise': forward returns, reading the output raises."""
    net = mx.sym.take(mx.sym.var('a'), mx.sym.var('indices'), mode='raise')
    exe = net.simple_bind(mx.cpu(), a=(2, 3), indices=(1,))
    exe.arg_dict['indices'][:] = 7
    exe.forward()
    with pytest.raises(mx.operator.indexing.IndexRangeError):
        exe.outputs[0].asnumpy()


def test_errors_found_before_computing_are_raised_at_the_call():
    with pytest.raises(mx.base.ShapeError):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))


def test_bulk_size_is_kept_and_restored_and_changes_no_result():
    assert mx.engine.set_bulk_size(10) == 0
    with mx.engine.bulk(3):
        assert mx.engine.set_bulk_size(3) == 3
        x = mx.nd.ones((10,))
        for _ in range(5):
            x += 1
    assert mx.engine.set_bulk_size(0) == 10
    assert (x.asnumpy() == 6).all()


def test_a_failure_nobody_kept_is_raised_by_waitall_and_its_memory_is_freed():
    """MXNet 1.9.1 raises it at waitall though the result was dropped; the failed arrays
    themselves are not kept alive for it (the error keeps where it happened as text)."""
    import gc
    import weakref

    def drop():
        failed = mx.nd.take(mx.nd.ones((2, 3)), mx.nd.array([5]), mode='raise')
        return weakref.ref(failed._data)
    buffer = drop()
    gc.collect()
    assert buffer() is None
    with pytest.raises(ComputeError, match='computed at'):
        mx.nd.waitall()
    mx.nd.waitall()


# Sampling operators share their device's random state, and MXNet's engine marks the state
# an operator writes as failed too: every later draw on the device fails with the same
# error, unrun, until one wait raises it -- which then clears it everywhere.  (Each case's
# outcome was observed under MXNet 1.9.1.)
def _failed_product():
    a = mx.nd.random.normal(0, 1, (2, 2))
    b = mx.nd.random.normal(0, -1, (2, 2))
    return mx.nd.dot(a, b)


def _raises(wait):
    try:
        wait()
    except ComputeError:
        return True
    return False


def test_a_failed_draw_fails_the_later_draws_of_the_device_until_it_is_raised():
    bad = mx.nd.random.normal(0, -1, (2, 2))
    later = mx.nd.random.uniform(shape=2)
    plain = mx.nd.ones(2) * 2
    assert _raises(later.asnumpy)            # the same failure, through the random state
    assert not _raises(plain.asnumpy)        # no random state read: computed
    assert not _raises(bad.asnumpy)          # raised once already: cleared everywhere
    assert not _raises(mx.nd.random.uniform(shape=2).asnumpy)
    assert not _raises(mx.nd.waitall)


@pytest.mark.parametrize('keep_first, keep_second', [(True, False), (False, True), (True, True)])
def test_raising_one_failed_draw_clears_the_draws_that_followed_it(keep_first, keep_second):
    first = _failed_product()
    second = _failed_product()
    assert _raises((first if keep_first else second).asnumpy)
    # the second product's draws read the state the first one failed: one failure in all
    assert not _raises((second if keep_first else first).asnumpy)
    assert not _raises(mx.nd.waitall)


def test_an_unread_failed_draw_still_raises_at_waitall_after_a_good_wait():
    _failed_product()
    assert not _raises(mx.nd.ones(2).asnumpy)
    assert _raises(mx.nd.waitall)
