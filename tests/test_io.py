"""mx.io against MXNet 1.9.1: batches, padding, roll-over and shuffling, epoch after epoch."""
import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), 'golden', 'io.json')))


@pytest.mark.parametrize('rec', GOLDEN, ids=lambda r: '%(handle)s-shuffle%(shuffle)s-b%(batch_size)d-n%(n)d' % r['case'])
def test_ndarrayiter_matches_mxnet(rec):
    case = rec['case']
    np.random.seed(3)  # MXNet and reflib both shuffle with numpy's global generator
    n = case['n']
    it = mx.io.NDArrayIter({'x': np.arange(2 * n).reshape(n, 2), 'a': np.arange(n) * 10},
                           np.arange(n), batch_size=case['batch_size'], shuffle=case['shuffle'],
                           last_batch_handle=case['handle'])
    for want in rec['epochs']:
        got = [dict(a=b.data[0].asnumpy().tolist(), x=b.data[1].asnumpy()[:, 0].tolist(),
                    label=b.label[0].asnumpy().tolist(), pad=b.pad) for b in it]
        assert got == want
        it.reset()
    assert [[d.name, list(d.shape)] for d in it.provide_data] == rec['provide_data']
    assert [[d.name, list(d.shape)] for d in it.provide_label] == rec['provide_label']


def test_datadesc_is_a_name_shape_pair_with_extras():
    d = mx.io.DataDesc('data', (4, 3), np.float16, 'NC')
    assert d == ('data', (4, 3)) and d.dtype == np.float16 and d.layout == 'NC'
    assert mx.io.DataDesc.get_batch_axis('TNC') == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0


def test_databatch_rejects_non_lists():
    with pytest.raises(MXNetError, match='list of NDArrays'):
        mx.io.DataBatch(mx.nd.ones((2, 2)))


def test_bad_iterator_arguments_are_named():
    with pytest.raises(MXNetError, match='last_batch_handle'):
        mx.io.NDArrayIter(np.ones((4, 2)), batch_size=2, last_batch_handle='drop')
    with pytest.raises(MXNetError, match='data has 5 samples but softmax_label has only 4'):
        mx.io.NDArrayIter(np.ones((5, 2)), np.ones(4), batch_size=2)
    # more labels than samples: MXNet reads the first ones; reflib does too, and says so
    with pytest.warns(UserWarning, match='only the first 4 rows of softmax_label'):
        it = mx.io.NDArrayIter(np.ones((4, 2)), np.arange(5), batch_size=2)
    assert [b.label[0].asnumpy().tolist() for b in it] == [[0, 1], [2, 3]]


def test_resize_iter_repeats_to_the_requested_length():
    base = mx.io.NDArrayIter(np.arange(6).reshape(6, 1), batch_size=2)
    it = mx.io.ResizeIter(base, 5)
    firsts = [b.data[0].asnumpy()[0, 0] for b in it]
    assert firsts == [0, 2, 4, 0, 2]


@pytest.mark.parametrize('n,batch,want', [
    # MXNet 1.9.1's output: when the padding is longer than the data set, the data is tiled
    (4, 10, [([0, 2, 4, 6, 0, 2, 4, 6, 0, 2], [0, 1, 2, 3, 0, 1, 2, 3, 0, 1], 6)]),
    (3, 7, [([0, 2, 4, 0, 2, 4, 0], [0, 1, 2, 0, 1, 2, 0], 4)]),
    (5, 2, [([0, 2], [0, 1], 0), ([4, 6], [2, 3], 0), ([8, 0], [4, 0], 1)]),
])
def test_padding_longer_than_the_data_tiles_it(n, batch, want):
    it = mx.io.NDArrayIter(np.arange(n * 2, dtype=np.float32).reshape(n, 2), np.arange(n), batch_size=batch)
    got = [(b.data[0].asnumpy()[:, 0].tolist(), b.label[0].asnumpy().tolist(), b.pad) for b in it]
    assert got == want
