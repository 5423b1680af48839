"""Record what MXNet 1.9.1's gluon.data gives: batches, lengths, orders, errors.

    /tmp/mxv/bin/python tests/golden/gen_gluon_data.py   ->  tests/golden/gluon_data.json

Each case in CASES is a function of the module ``mx`` (mxnet or reflib) and a scratch
folder, returning a JSON-ready answer: NDArrays with their dtype, shape, context and
values, numpy values with their dtype, and lists, tuples and dicts tagged as such, so that
tests/test_gluon_data.py (which imports this file and runs the same cases under reflib)
compares them exactly.  A case that raises records the exception's class and the built-in
exception classes it derives from.

The functions given to worker processes live at module level, so that MXNet can pickle
them for its process pool.
"""
import json
import os
import sys
import tempfile

import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gluon_data.json')


# ------------------------------------------------------------------ encoding
def encode(value, mx):
    """A JSON value that tells the kind, dtype, context and contents of ``value`` apart."""
    if isinstance(value, mx.nd.NDArray):
        return {'nd': np.dtype(value.dtype).name, 'shape': list(value.shape), 'ctx': str(value.context),
                'values': value.asnumpy().tolist()}
    if isinstance(value, np.ndarray):
        return {'np': value.dtype.name, 'values': value.tolist()}
    if isinstance(value, np.generic):
        return {'npscalar': value.dtype.name, 'value': value.item()}
    if isinstance(value, bytes):
        return {'bytes': value.hex()}
    if isinstance(value, list):
        return {'list': [encode(v, mx) for v in value]}
    if isinstance(value, tuple):
        return {'tuple': [encode(v, mx) for v in value]}
    if isinstance(value, dict):
        return {'dict': {str(k): encode(v, mx) for k, v in sorted(value.items())}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return {'object': type(value).__name__}


def batches(loader, mx, passes=1):
    """Every batch of ``passes`` passes, with ``len(loader)`` before each pass and after."""
    out = []
    for _ in range(passes):
        out.append({'len': len(loader), 'batches': [encode(b, mx) for b in loader]})
    out.append({'len': len(loader)})
    return out


def error(err):
    return {'error': type(err).__name__,
            'builtin': sorted({c.__name__ for c in type(err).__mro__ if c.__module__ == 'builtins'})}


# ------------------------------------------------------------------ module-level helpers
class _ModuleRef:
    mx = None


def custom_batchify(samples):
    mx = _ModuleRef.mx
    return (mx.nd.array(samples), {'k': mx.nd.array([1.5])}, [np.array([1.0, 2.0])], 'text')


def identity_batchify(samples):
    return samples


def nd_array_batchify(samples):
    return _ModuleRef.mx.nd.array(samples)


def _gd(mx):
    _ModuleRef.mx = mx
    return mx.gluon.data


# ------------------------------------------------------------------ cases
X64 = np.arange(14, dtype=np.float64).reshape(7, 2) / 4
LABELS = [3, 1, 4, 1, 5, 9, 2]


def case_array_dataset_numpy(mx, folder):
    gd = _gd(mx)
    ds = gd.ArrayDataset(X64, LABELS)
    return {'len': len(ds), 'item': encode(ds[2], mx), 'batches': batches(gd.DataLoader(ds, 3), mx)}


def case_array_dataset_one_array(mx, folder):
    gd = _gd(mx)
    ds = gd.ArrayDataset(X64)
    return {'item': encode(ds[1], mx), 'batches': batches(gd.DataLoader(ds, 4), mx)}


def case_array_dataset_ndarrays(mx, folder):
    gd = _gd(mx)
    ds = gd.ArrayDataset(mx.nd.array(X64), mx.nd.array(LABELS), mx.nd.array(LABELS, dtype='int32'))
    return {'item': encode(ds[0], mx), 'batches': batches(gd.DataLoader(ds, 4), mx)}


def case_ndarray_as_dataset(mx, folder):
    gd = _gd(mx)
    return {'1d': batches(gd.DataLoader(mx.nd.arange(5), 2), mx),
            '2d': batches(gd.DataLoader(mx.nd.arange(10, dtype='float16').reshape((5, 2)), 2), mx)}


def case_numpy_as_dataset(mx, folder):
    gd = _gd(mx)
    return {'f64': batches(gd.DataLoader(X64, 5), mx),
            'int32': batches(gd.DataLoader(np.arange(6, dtype=np.int32).reshape(3, 2), 2), mx),
            'uint8': batches(gd.DataLoader(np.arange(4, dtype=np.uint8), 4), mx)}


def case_python_samples(mx, folder):
    gd = _gd(mx)
    return {'list_int_pairs': batches(gd.DataLoader([([1, 2], 0), ([3, 4], 1), ([5, 6], 0)], 2), mx),
            'list_of_lists': batches(gd.DataLoader([[1, 2], [3, 4]], 2), mx),
            'floats': batches(gd.DataLoader([1.5, 2.5, -3.0], 3), mx),
            'bools': batches(gd.DataLoader([True, False], 2), mx),
            'nested': batches(gd.DataLoader([((1, 2.5), 3), ((4, 5.5), 6)], 2), mx),
            'numpy_scalars': batches(gd.DataLoader([(np.float32(1), np.int32(2)), (np.float32(3), np.int32(4))],
                                                   2), mx),
            'nd_and_int': batches(gd.DataLoader([(mx.nd.ones(2), 1), (mx.nd.zeros(2), 2)], 2), mx)}


def case_last_batch(mx, folder):
    gd = _gd(mx)
    data = list(range(10))
    return {mode: batches(gd.DataLoader(data, 3, last_batch=mode), mx, passes=3)
            for mode in ('keep', 'discard', 'rollover')}


def case_batch_sampler(mx, folder):
    gd = _gd(mx)
    out = {}
    for mode in ('keep', 'discard', 'rollover'):
        bs = gd.BatchSampler(gd.SequentialSampler(8), 3, mode)
        out[mode] = [len(bs), list(bs), len(bs), list(bs), len(bs), list(bs), len(bs)]
    out['given_to_loader'] = batches(gd.DataLoader(list(range(5)), batch_sampler=gd.BatchSampler(
        gd.SequentialSampler(4, start=1), 2)), mx)
    return out


def case_sequential_sampler(mx, folder):
    gd = _gd(mx)
    return [list(gd.SequentialSampler(5)), list(gd.SequentialSampler(3, start=4)), len(gd.SequentialSampler(3, 4)),
            list(gd.SequentialSampler(0))]


def case_random_sampler(mx, folder):
    gd = _gd(mx)
    np.random.seed(7)
    sampler = gd.RandomSampler(10)
    first, second = list(sampler), list(sampler)
    return {'len': len(sampler), 'passes': [[int(i) for i in first], [int(i) for i in second]],
            'kind': encode(first[0], mx)}


def case_shuffle(mx, folder):
    gd = _gd(mx)
    np.random.seed(11)
    out = {'plain': batches(gd.DataLoader(list(range(9)), 4, shuffle=True), mx, passes=2)}
    np.random.seed(11)
    out['rollover'] = batches(gd.DataLoader(list(range(9)), 4, shuffle=True, last_batch='rollover'), mx, passes=2)
    np.random.seed(5)
    out['workers'] = batches(gd.DataLoader(gd.ArrayDataset(X64, LABELS), 2, shuffle=True, num_workers=3,
                                           thread_pool=True), mx, passes=2)
    return out


def case_filter_sampler(mx, folder):
    gd = _gd(mx)
    fs = gd.FilterSampler(lambda x: x % 3 == 1, gd.SimpleDataset(list(range(11))))
    return [len(fs), list(fs)]


def case_dataset_methods(mx, folder):
    gd = _gd(mx)
    nums = gd.SimpleDataset(list(range(11)))
    pairs = gd.SimpleDataset([(i, 10 * i) for i in range(5)])
    out = {
        'transform': [s for s in nums.transform(lambda x: x * x)],
        'transform_eager': [type(nums.transform(lambda x: -x, lazy=False)).__name__,
                            list(nums.transform(lambda x: -x, lazy=False))],
        'transform_tuple': [s for s in pairs.transform(lambda a, b: a + b)],
        'transform_first': [list(s) for s in pairs.transform_first(lambda a: a - 100)],
        'transform_first_single': [s for s in nums.transform_first(lambda a: a + 0.5)],
        'transform_first_eager': [list(s) for s in pairs.transform_first(lambda a: a * 2, lazy=False)],
        'filter': [s for s in nums.filter(lambda x: x % 4 == 0)],
        'filter_after_transform': [s for s in nums.transform(lambda x: x + 1).filter(lambda x: x % 5 == 0)],
        'shard': [[len(nums.shard(4, i)), [s for s in nums.shard(4, i)]] for i in range(4)],
        'shard_more_than_samples': [len(gd.SimpleDataset([1, 2]).shard(3, i)) for i in range(3)],
        'take': [len(nums.take(3)), [s for s in nums.take(3)], len(nums.take(100)), len(nums.take(None)),
                 len(nums.take(0))],
        'negative_index': [nums.shard(4, 1)[-1], nums.take(5)[-2]],
    }
    np.random.seed(3)
    sampled = nums.sample(gd.RandomSampler(11))
    out['sample_random'] = [len(sampled), [int(s) for s in sampled], [int(s) for s in sampled]]
    return out


def case_contexts(mx, folder):
    gd = _gd(mx)
    ds = gd.ArrayDataset(X64, LABELS)
    out = {}
    for name, kw in [('plain', {}), ('pinned', {'pin_memory': True}), ('pinned_3', {'pin_memory': True,
                                                                                      'pin_device_id': 3}),
                     ('workers', {'num_workers': 2}), ('thread_pool', {'num_workers': 2, 'thread_pool': True}),
                     ('workers_pinned', {'num_workers': 2, 'pin_memory': True})]:
        out[name] = [str(x.context) for x in next(iter(gd.DataLoader(ds, 4, **kw)))]
    with mx.cpu(1):
        out['current_context'] = str(next(iter(gd.DataLoader(X64, 4))).context)
        out['stacked_keep_theirs'] = str(next(iter(gd.DataLoader(mx.nd.ones((4, 2), ctx=mx.cpu(2)), 2))).context)
    return out


def case_workers_same_batches(mx, folder):
    gd = _gd(mx)
    ds = gd.ArrayDataset(X64, LABELS)
    out = {}
    for name, kw in [('processes', {'num_workers': 3}), ('threads', {'num_workers': 2, 'thread_pool': True}),
                     ('no_prefetch', {'num_workers': 2, 'prefetch': 0}),
                     ('negative_workers', {'num_workers': -2})]:
        out[name] = batches(gd.DataLoader(ds, 2, last_batch='rollover', **kw), mx, passes=2)
    f16 = gd.SimpleDataset([mx.nd.ones((2,), dtype='float16') * i for i in range(5)])
    out['float16_workers'] = batches(gd.DataLoader(f16, 2, num_workers=2), mx)
    return out


def case_custom_batchify(mx, folder):
    gd = _gd(mx)
    out = {}
    for name, kw in [('plain', {}), ('pinned', {'pin_memory': True}), ('processes', {'num_workers': 2}),
                     ('threads', {'num_workers': 2, 'thread_pool': True}),
                     ('processes_pinned', {'num_workers': 2, 'pin_memory': True})]:
        out[name] = encode(next(iter(gd.DataLoader(list(range(6)), 4, batchify_fn=custom_batchify, **kw))), mx)
    out['identity_processes'] = encode(next(iter(gd.DataLoader(mx.nd.ones(5), 2, num_workers=1,
                                                                batchify_fn=identity_batchify))), mx)
    out['identity_threads'] = encode(next(iter(gd.DataLoader(mx.nd.ones(5), 2, num_workers=1, thread_pool=True,
                                                              batchify_fn=identity_batchify))), mx)
    out['nd_array_threads_pinned'] = encode(next(iter(gd.DataLoader(
        list(range(4)), 4, num_workers=1, thread_pool=True, pin_memory=True, batchify_fn=nd_array_batchify))), mx)
    return out


def case_record_file_dataset(mx, folder):
    gd = _gd(mx)
    rec, idx = os.path.join(folder, 'data.rec'), os.path.join(folder, 'data.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for key in (5, 2, 9):
        writer.write_idx(key, mx.recordio.pack((0, float(key), key, 0), b'payload-%d' % key))
    writer.close()
    ds = gd.RecordFileDataset(rec)
    loaded = [mx.recordio.unpack(ds[i]) for i in range(len(ds))]
    return {'len': len(ds), 'idx_file': os.path.basename(ds.idx_file),
            'records': [[h.label, h.id, encode(s, mx)] for h, s in loaded],
            'loader': encode(list(gd.DataLoader(ds, 2, batchify_fn=identity_batchify, num_workers=2,
                                                thread_pool=True)), mx),
            'transformed': encode(next(iter(gd.DataLoader(ds.transform(lambda r: mx.recordio.unpack(r)[0].id),
                                                          3))), mx)}


def case_len(mx, folder):
    gd = _gd(mx)
    return [len(gd.DataLoader(list(range(n)), b, last_batch=m))
            for n in (0, 1, 9, 10) for b in (1, 3, 10) for m in ('keep', 'discard', 'rollover')]


# ---------------------------------------------------------- errors
def _raises(fn):
    try:
        fn()
    except Exception as err:   # noqa: BLE001  (recording what MXNet raises)
        return error(err)
    return 'no error'


def case_errors(mx, folder):
    gd = _gd(mx)
    seq = gd.SequentialSampler(6)
    return {
        'no_batch_size': _raises(lambda: gd.DataLoader(X64)),
        'shuffle_and_sampler': _raises(lambda: gd.DataLoader(X64, 2, shuffle=True, sampler=seq)),
        'batch_sampler_and_batch_size': _raises(lambda: gd.DataLoader(X64, 2, batch_sampler=gd.BatchSampler(seq, 2))),
        'batch_sampler_and_last_batch': _raises(lambda: gd.DataLoader(X64, last_batch='keep',
                                                                      batch_sampler=gd.BatchSampler(seq, 2))),
        'batch_sampler_and_shuffle': _raises(lambda: gd.DataLoader(X64, shuffle=True,
                                                                   batch_sampler=gd.BatchSampler(seq, 2))),
        'batch_sampler_and_sampler': _raises(lambda: gd.DataLoader(X64, sampler=seq,
                                                                   batch_sampler=gd.BatchSampler(seq, 2))),
        'timeout_zero': _raises(lambda: gd.DataLoader(X64, 2, timeout=0)),
        'bad_last_batch_made': _raises(lambda: gd.DataLoader(X64, 2, last_batch='bogus')),
        'bad_last_batch_len': _raises(lambda: len(gd.DataLoader(X64, 2, last_batch='bogus'))),
        'bad_last_batch_iter_uneven': _raises(lambda: list(gd.DataLoader(X64, 2, last_batch='bogus'))),
        'bad_last_batch_iter_even': _raises(lambda: len(list(gd.DataLoader(X64[:6], 2, last_batch='bogus')))),
        'array_lengths': _raises(lambda: gd.ArrayDataset(X64, [1, 2])),
        'array_none': _raises(lambda: gd.ArrayDataset()),
        'sample_not_sampler': _raises(lambda: gd.SimpleDataset([1]).sample([0])),
        'shard_index_too_big': _raises(lambda: gd.SimpleDataset([1]).shard(4, 4)),
        'shard_zero_shards': _raises(lambda: gd.SimpleDataset([1]).shard(0, 0)),
        'shard_negative_index': _raises(lambda: gd.SimpleDataset([1]).shard(4, -1)),
        'index_past_end': _raises(lambda: gd.SimpleDataset(list(range(8))).shard(3, 2)[5]),
        'base_getitem': _raises(lambda: gd.Dataset()[0]),
        'base_len': _raises(lambda: len(gd.Dataset())),
        'base_sampler': _raises(lambda: iter(gd.Sampler())),
        'strings': _raises(lambda: list(gd.DataLoader(['a', 'b'], 2))),
        'nones': _raises(lambda: list(gd.DataLoader([None, None], 2))),
        'ndarrays_in_a_list': _raises(lambda: list(gd.DataLoader([[mx.nd.ones(2), mx.nd.ones(2)]], 1))),
        'ragged_numpy': _raises(lambda: list(gd.DataLoader([np.ones(2), np.ones(3)], 2))),
        # MXNet's engine reports the failed stack when the batch is read
        'ragged_ndarrays': _raises(lambda: [b.asnumpy() for b in gd.DataLoader([mx.nd.ones(2), mx.nd.ones(3)], 2)]),
        'ndarray_then_numpy': _raises(lambda: list(gd.DataLoader([mx.nd.ones(2), np.ones(2)], 2))),
        'worker_raises': _raises(lambda: list(gd.DataLoader(_Broken(), 1, num_workers=2, thread_pool=True))),
    }


class _Broken:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise ZeroDivisionError('sample %d' % i)
        return i


CASES = {name[len('case_'):]: fn for name, fn in sorted(globals().items()) if name.startswith('case_')}


def run_case(mx, name):
    with tempfile.TemporaryDirectory() as folder:
        return json.loads(json.dumps(CASES[name](mx, folder)))


def main():
    import warnings
    warnings.simplefilter('ignore')
    import mxnet as mx
    assert mx.__version__ == '1.9.1', mx.__version__
    golden = {name: run_case(mx, name) for name in CASES}
    with open(GOLDEN, 'w') as f:
        json.dump(golden, f, indent=None, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d cases, %d bytes)' % (GOLDEN, len(golden), os.path.getsize(GOLDEN)))


if __name__ == '__main__':
    sys.exit(main())
