"""gluon.data (datasets, samplers, DataLoader) against MXNet 1.9.1, and on bad input.

golden/gluon_data.json holds MXNet's answers to the cases of golden/gen_gluon_data.py
(batches with their dtypes and contexts, lengths, the orders numpy's seeded generator
gives, the errors); this file imports that script to run the same cases with reflib and
compares them exactly.  An error must be of the built-in class MXNet's is, except where
reflib refuses a batch MXNet's dtype table fails on (KeyError there, BatchifyError here).
The rest checks what the golden cases cannot: worker threads (order, timeouts, errors,
prefetching, shutdown) and reflib's own refusals.
"""
import builtins
import json
import multiprocessing
import os
import sys
import threading
import time

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ShapeError
from reflib.gluon import data as gd
from reflib.gluon.data.dataloader import BatchifyError, WorkerTimeout

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import gen_gluon_data as cases  # noqa: E402

with open(os.path.join(GOLDEN_DIR, 'gluon_data.json')) as f:
    GOLDEN = json.load(f)

# error cases where reflib raises another class than MXNet, on purpose
DIFFERENT_ERRORS = {
    'strings': BatchifyError,            # MXNet: KeyError (no dtype for numpy.str_)
    'nones': BatchifyError,              # MXNet: KeyError (numpy.object_)
    'ndarrays_in_a_list': BatchifyError,  # MXNet: KeyError (numpy.object_)
    'ragged_numpy': ShapeError,          # MXNet: KeyError (numpy 1.x made an object array)
    'ndarray_then_numpy': BatchifyError,  # MXNet: AssertionError from nd.stack's argument check
}


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.CASES)


@pytest.mark.parametrize('name', sorted(n for n in cases.CASES if n != 'errors'))
def test_same_as_mxnet(name):
    assert cases.run_case(mx, name) == GOLDEN[name]


def test_errors_are_mxnets():
    got = cases.run_case(mx, 'errors')
    assert set(got) == set(GOLDEN['errors'])
    for name, want in GOLDEN['errors'].items():
        if name in DIFFERENT_ERRORS:
            assert got[name] != 'no error' and got[name]['error'] == DIFFERENT_ERRORS[name].__name__, name
        elif want == 'no error':
            assert got[name] == 'no error', name
        else:
            assert got[name] != 'no error', name
            # every built-in class MXNet's error derives from, reflib's derives from too
            assert set(want['builtin']) <= set(got[name]['builtin']), (name, got[name], want)
            assert want['error'] == 'MXNetError' or hasattr(builtins, want['error']), name


# ------------------------------------------------------------------ error messages
def test_argument_errors_say_what_to_do():
    X = np.zeros((6, 2))
    with pytest.raises(ValueError, match='batch_size'):
        gd.DataLoader(X)
    with pytest.raises(ValueError, match='not both'):
        gd.DataLoader(X, 2, shuffle=True, sampler=gd.SequentialSampler(6))
    with pytest.raises(ValueError, match='batch_sampler'):
        gd.DataLoader(X, 2, batch_sampler=gd.BatchSampler(gd.SequentialSampler(6), 2))
    with pytest.raises(AssertionError, match='timeout'):
        gd.DataLoader(X, 2, timeout=-1)
    with pytest.raises(ValueError, match="'keep', 'discard' or 'rollover', got 'bogus'"):
        len(gd.DataLoader(X, 4, last_batch='bogus'))


def test_array_dataset_names_the_arrays_of_different_lengths():
    with pytest.raises(AssertionError, match='array 0 has length 3 and array 2 has length 2'):
        gd.ArrayDataset(np.zeros(3), [1, 2, 3], [1, 2])
    with pytest.raises(AssertionError, match='at least one'):
        gd.ArrayDataset()


@pytest.mark.parametrize('size', [0, -1, 1.5, True, '2'])
def test_batch_size_must_be_a_positive_whole_number(size):
    # MXNet loops or divides by zero later; reflib refuses at once
    with pytest.raises(ValueError, match='batch_size'):
        gd.DataLoader(list(range(5)), size)


def test_whole_float_batch_size_works_as_in_mxnet():
    assert [b.asnumpy().tolist() for b in gd.DataLoader(list(range(5)), 2.0)] == [[0, 1], [2, 3], [4]]


def test_take_refuses_a_negative_count():
    with pytest.raises(ValueError, match='count'):
        gd.SimpleDataset([1, 2]).take(-1)


def test_batchify_refusals_name_the_problem():
    with pytest.raises(BatchifyError, match='dtype <U1'):
        gd.dataloader.default_batchify_fn(['a', 'b'])
    with pytest.raises(ShapeError, match='sample 1 of the batch has shape \\(3,\\) but sample 0 has \\(2,\\)'):
        gd.dataloader.default_batchify_fn([mx.nd.ones(2), mx.nd.ones(3)])
    with pytest.raises(ShapeError, match='equal shapes'):
        gd.dataloader.default_batchify_fn([np.ones(2), np.ones(3)])
    with pytest.raises(BatchifyError, match='sample 1 is ndarray'):
        gd.dataloader.default_batchify_fn([mx.nd.ones(2), np.ones(2)])
    with pytest.raises(BatchifyError, match='make it a tuple'):
        gd.dataloader.default_batchify_fn([[mx.nd.ones(2)]])
    assert issubclass(BatchifyError, TypeError) and issubclass(BatchifyError, MXNetError)


def test_sample_needs_a_sampler():
    with pytest.raises(TypeError, match='Sampler'):
        gd.SimpleDataset([1]).sample(range(1))


# ------------------------------------------------------------------ workers
def _settle(made, count, timeout=10.0):
    """Wait until the worker threads have read ``count`` samples (then a moment more, so
    that reading more than that would show)."""
    end = time.time() + timeout
    while len(made) < count and time.time() < end:
        time.sleep(0.005)
    time.sleep(0.05)


class _Slow(gd.Dataset):
    """Samples that take a random short while, so that threads finish out of order."""

    def __init__(self, n, seed=0):
        self._delays = np.random.RandomState(seed).uniform(0, 0.004, size=n)

    def __len__(self):
        return len(self._delays)

    def __getitem__(self, i):
        time.sleep(self._delays[i])
        return mx.nd.full((3,), i)


@pytest.mark.parametrize('thread_pool', [False, True])
@pytest.mark.parametrize('prefetch', [None, 0, 1, 7])
def test_workers_give_the_same_batches_in_order(thread_pool, prefetch):
    data = _Slow(40)
    want = [b.asnumpy() for b in gd.DataLoader(data, 3)]
    loader = gd.DataLoader(data, 3, num_workers=4, thread_pool=thread_pool, prefetch=prefetch)
    for _ in range(2):
        got = [b for b in loader]
        assert len(got) == len(want) == len(loader)
        for g, w in zip(got, want):
            assert g.context == mx.Context('cpu_shared', 0)
            np.testing.assert_array_equal(g.asnumpy(), w)


def test_mxnets_multi_worker_shape_case():
    batch_size, shape = 64, (64 + 1, 3, 4)
    loader = gd.DataLoader(gd.ArrayDataset(np.ones(shape)), batch_size=batch_size, num_workers=5)
    assert [b.shape for b in loader] == [(64, 3, 4), (1, 3, 4)]


def test_workers_take_lambdas():
    # MXNet's worker processes cannot pickle a lambda; threads need not
    loader = gd.DataLoader(gd.SimpleDataset(list(range(6))).transform(lambda x: x * 2), 4, num_workers=2,
                           batchify_fn=lambda samples: sum(samples))
    assert list(loader) == [12, 18]


def test_a_worker_error_reaches_the_caller_at_its_batch():
    got = []
    with pytest.raises(ZeroDivisionError, match='sample 2'):
        for b in gd.DataLoader(cases._Broken(), 1, num_workers=3):
            got.append(int(b.asscalar()))
    assert got == [0, 1]


def test_timeout_is_a_multiprocessing_timeout_error():
    class Stuck(gd.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(0.5)
            return i
    loader = gd.DataLoader(Stuck(), 1, num_workers=1, timeout=0.05)
    with pytest.raises(WorkerTimeout, match='timeout=0.05') as err:
        next(iter(loader))
    assert isinstance(err.value, multiprocessing.TimeoutError) and isinstance(err.value, MXNetError)


def test_prefetch_limits_the_batches_made_ahead():
    made = []

    class Counting(gd.Dataset):
        def __len__(self):
            return 20

        def __getitem__(self, i):
            made.append(i)
            return i
    loader = gd.DataLoader(Counting(), 1, num_workers=2, prefetch=3)
    it = iter(loader)
    next(it)
    _settle(made, 4)
    # the first batch asked for, plus `prefetch` ahead of it, and one pushed by that request
    assert sorted(made) == [0, 1, 2, 3]


def test_auto_reload_prepares_the_next_pass():
    made = []

    class Counting(gd.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            made.append(i)
            return i
    loader = gd.DataLoader(Counting(), 2, num_workers=1, auto_reload=True)
    _settle(made, 4)
    assert sorted(made) == [0, 1, 2, 3]       # the first pass was prefetched at construction
    del made[:]
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [2, 3]]
    _settle(made, 4)
    assert sorted(made) == [0, 1, 2, 3]       # that pass was read already; the next began as it ended
    loader.clean()                            # dropped: the next pass starts when iterated
    loader.auto_reload = False
    _settle(made, 4)
    del made[:]
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [2, 3]]
    _settle(made, 4)
    assert sorted(made) == [0, 1, 2, 3]

    lazy = gd.DataLoader(Counting(), 2, num_workers=1)
    del made[:]
    iterator = iter(lazy)          # a generator: nothing starts before the first batch is asked for
    time.sleep(0.05)
    assert made == []
    assert next(iterator).asnumpy().tolist() == [0, 1]


def test_workers_read_shapes_as_the_loader_maker():
    seen = []

    class Shape(gd.Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            seen.append(mx.is_np_shape())
            return i
    with mx.np_shape(True):
        loader = gd.DataLoader(Shape(), 1, num_workers=1)
    list(loader)
    with mx.np_shape(False):
        list(loader)
    assert seen == [True, True]


def test_loader_gives_its_threads_back():
    before = threading.active_count()
    for _ in range(5):
        loader = gd.DataLoader(np.random.rand(99, 20), batch_size=8, num_workers=4)
        it = iter(loader)
        next(it)
        del it, loader
    time.sleep(0.2)
    assert threading.active_count() <= before + 4


def test_record_file_dataset_under_many_threads(tmp_path):
    rec, idx = str(tmp_path / 'r.rec'), str(tmp_path / 'r.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    payloads = [os.urandom(int(n)) for n in np.random.RandomState(1).randint(1, 3000, size=200)]
    for i, p in enumerate(payloads):
        writer.write_idx(i, p)
    writer.close()
    loader = gd.DataLoader(gd.RecordFileDataset(rec), 3, num_workers=8, batchify_fn=list)
    assert [r for batch in loader for r in batch] == payloads


def test_pin_memory_and_device_id():
    for batch in gd.DataLoader(gd.ArrayDataset(np.ones((5, 2)), [1] * 5), 2, pin_memory=True, pin_device_id=2):
        assert [b.context for b in batch] == [mx.cpu_pinned(2)] * 2


def test_random_sampler_follows_numpys_global_seed():
    np.random.seed(42)
    first = list(gd.RandomSampler(20))
    np.random.seed(42)
    order = np.arange(20)
    np.random.shuffle(order)
    assert [int(i) for i in first] == order.tolist()
