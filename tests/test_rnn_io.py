"""encode_sentences and BucketSentenceIter against MXNet 1.9.1 (tests/golden/gen_rnn_io.py):
the same vocabulary, the same buckets, and, seeded alike, the same batches in the same order;
and the RNN checkpoint helpers, which save per-gate weights."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN)
import rnn_io_cases as case  # noqa: E402


@pytest.mark.filterwarnings('ignore:BucketSentenceIter. discarded')     # the automatic buckets drop a few
def test_vocabulary_buckets_and_seeded_batches_match_mxnet():
    golden = np.load(os.path.join(GOLDEN, 'rnn_io.npz'))
    meta = json.loads(str(golden['meta']))
    result = case.run(mx, 1, 2)
    epochs = result.pop('epochs')
    result['tn_shapes'] = [list(s) for s in result['tn_shapes']]
    assert json.loads(json.dumps(result, sort_keys=True)) == meta
    for e, batches in enumerate(epochs):
        assert len(batches) == len([k for k in golden.files if k.startswith('e%d/' % e) and k.endswith('/key')])
        for k, (key, data, label, shape) in enumerate(batches):
            assert key == int(golden['e%d/b%d/key' % (e, k)])
            np.testing.assert_array_equal(data, golden['e%d/b%d/data' % (e, k)])
            np.testing.assert_array_equal(label, golden['e%d/b%d/label' % (e, k)])
            assert shape == data.shape


def test_a_label_is_the_next_word_and_the_padding_is_the_invalid_label():
    it = mx.rnn.BucketSentenceIter([[1, 2, 3], [4, 5, 6], [7, 8], [9, 1]], batch_size=2, buckets=[3],
                                   invalid_label=0)
    rows = {tuple(d): tuple(l) for b in it for d, l in zip(b.data[0].asnumpy(), b.label[0].asnumpy())}
    assert rows == {(1, 2, 3): (2, 3, 0), (4, 5, 6): (5, 6, 0), (7, 8, 0): (8, 0, 0), (9, 1, 0): (1, 0, 0)}


def test_misuse_is_refused():
    with pytest.raises(MXNetError, match="unknown word 'zebra'"):
        mx.rnn.encode_sentences([['zebra']], vocab={'a': 1})
    coded, vocab = mx.rnn.encode_sentences([['zebra']], vocab={'a': 1}, unknown_token='<unk>')
    assert coded == [[vocab['<unk>']]]
    with pytest.raises(MXNetError, match='layout must be NT'):
        mx.rnn.BucketSentenceIter([[1, 2]], batch_size=1, layout='NCT')
    with pytest.warns(UserWarning, match='discarded 1 sentences longer than the largest bucket'):
        mx.rnn.BucketSentenceIter([[1, 2], [1, 2, 3, 4]], batch_size=1, buckets=[2])


def test_rnn_checkpoints_hold_per_gate_weights_and_load_packed(tmp_path):
    cell = mx.rnn.LSTMCell(3, prefix='lstm_')
    outputs, _ = cell.unroll(2, mx.sym.Variable('data'), merge_outputs=True)
    shapes = dict(zip(outputs.list_arguments(), outputs.infer_shape(data=(1, 2, 4))[0]))
    args = {n: mx.nd.array(np.random.RandomState(0).uniform(size=s)) for n, s in shapes.items() if n != 'data'}
    prefix = str(tmp_path / 'lm')
    mx.rnn.do_rnn_checkpoint(cell, prefix)(0, outputs, args, {})
    saved, _ = mx.model.load_params(prefix, 1)
    assert 'lstm_i2h_f_weight' in saved and 'lstm_i2h_weight' not in saved
    _, loaded, _ = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    assert sorted(loaded) == sorted(args)
    for name, value in args.items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), value.asnumpy())
