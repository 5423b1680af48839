"""mx.io.ImageRecordIter against MXNet 1.9.1 and by hand.

golden/recordio/recordio.npz (gen_recordio.py) holds MXNet's batches for the settings of
golden/image_record_cases.py's CASES over imgrec.rec / imgrec_multi.rec: labels and pads of
4 epochs, the first epoch's pixels for DATA_CASES.  image_record_iter.npz
(gen_image_record_iter.py) holds RANDOM_CASES (shuffled and randomly augmented batches, and a
few fixed settings) and RGBA_CASES (over imgrec_rgba.rec, written by reflib): 4 epochs with
their pixels.  The same settings run here with reflib.
"""
import json
import logging
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
RECORDS = os.path.join(GOLDEN_DIR, 'recordio')
sys.path.insert(0, GOLDEN_DIR)
import image_record_cases as cases  # noqa: E402

GOLDEN = np.load(os.path.join(RECORDS, 'recordio.npz'))
BATCHES = json.loads(str(GOLDEN['iter_batches']))
RANDOM = np.load(os.path.join(RECORDS, 'image_record_iter.npz'))
RANDOM_BATCHES = json.loads(str(RANDOM['batches']))
REC = os.path.join(RECORDS, 'imgrec.rec')
IDX = os.path.join(RECORDS, 'imgrec.idx')
N = len(cases.SIZES)


def run(case, epochs=4):
    """(DataDescs, [[pad, labels] per batch] per epoch, every batch's data) of a case in reflib."""
    it = mx.io.ImageRecordIter(**cases.iter_kwargs(case, RECORDS))
    provide = [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data + it.provide_label]
    summary, data = [], []
    for _ in range(epochs):
        batches = list(it)
        summary.append([[b.pad, b.label[0].asnumpy().tolist()] for b in batches])
        data.append([b.data[0].asnumpy() for b in batches])
        it.reset()
    return provide, summary, data


def real_part(epochs, batch_size):
    """Batches with the filler of round_batch=False's last batch dropped (MXNet's is uninitialised)."""
    keep = N % batch_size or batch_size
    return [[[pad, labels[:keep] if i == len(epoch) - 1 else labels] for i, (pad, labels) in enumerate(epoch)]
            for epoch in epochs]


def assert_batches_match(got, want):
    """Labels equal, pads equal except MXNet's stale ones: its prefetcher recycles batch buffers
    and sets ``pad`` only on a wrapped batch, so a full batch after one may report the pad of an
    earlier batch (timing-dependent with the default ctx, always with ctx='cpu'); reflib gives 0."""
    assert [[labels for _, labels in epoch] for epoch in got] == [[labels for _, labels in epoch] for epoch in want]
    seen = set()
    for epoch_got, epoch_want in zip(got, want):
        for (pad, _), (pad_want, _) in zip(epoch_got, epoch_want):
            assert pad == pad_want or (pad == 0 and pad_want in seen), (pad, pad_want)
            seen.add(pad_want)


def assert_data_equal(got, want):
    if want.dtype == np.uint8 and got.dtype != np.uint8:       # whole numbers kept as uint8
        assert np.array_equal(got, np.round(got)) and got.dtype == np.float32
    if got.dtype == np.float32 and want.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    else:
        assert np.array_equal(got.astype(np.float64), want.astype(np.float64))


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_batches_match_mxnet(name):
    case = cases.CASES[name]
    provide, epochs, data = run(case)
    want = BATCHES[name]
    assert provide == want['provide']
    assert np.dtype(data[0][0].dtype).name == want['dtype']
    if case.get('round_batch', True):
        assert_batches_match(epochs, want['epochs'])
    else:
        assert real_part(epochs, case['batch_size']) == real_part(want['epochs'], case['batch_size'])
    if name in cases.DATA_CASES:
        first = np.stack(data[0])
        golden = GOLDEN['iter_%s_data' % name]
        if not case.get('round_batch', True):
            first[-1, N % case['batch_size']:] = 0      # the generator zeroed MXNet's filler rows
        assert_data_equal(first[:len(golden)], golden)


@pytest.mark.parametrize('name', sorted(cases.RANDOM_CASES))
def test_shuffled_and_augmented_batches_match_mxnet(name):
    _, epochs, data = run(cases.RANDOM_CASES[name])
    assert_batches_match(epochs, RANDOM_BATCHES[name])
    if name in cases.RANDOM_DATA_CASES:
        assert_data_equal(np.stack([b for epoch in data for b in epoch]), RANDOM['data_' + name])


@pytest.mark.parametrize('name', sorted(cases.RGBA_CASES))
def test_rgba_batches_match_mxnet(name):
    # data_shape (4, h, w): RGBA, padded with fill_value in R, G, B and 0 in alpha; mean_a/std_a
    _, epochs, data = run(cases.RGBA_CASES[name])
    assert_batches_match(epochs, RANDOM_BATCHES[name])
    assert_data_equal(np.stack([b for epoch in data for b in epoch]), RANDOM['data_' + name])


def test_no_round_batch_keeps_the_previous_batch_in_the_filler_rows():
    # MXNet: pad 0 and whatever its buffer held; reflib: pad 0 and the previous batch's rows
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 8, 8), batch_size=5, round_batch=False)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 0]
    last, before = batches[2], batches[1]
    assert last.label[0].asnumpy().tolist() == [10, 11, 7, 8, 9]
    assert np.array_equal(last.data[0].asnumpy()[2:], before.data[0].asnumpy()[2:])
    # a batch larger than the file: the filler of a fresh buffer is zeros
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 8, 8), batch_size=13, round_batch=False)
    (batch,) = list(it)
    assert batch.label[0].asnumpy()[12] == 0 and not batch.data[0].asnumpy()[12].any() and batch.pad == 0


def test_index_is_zeros_and_uint8_iter():
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=REC, data_shape=(3, 8, 8), batch_size=4, mean_r=50, scale=2,
                                    dtype='float32')
    batch = it.next()
    assert it.getindex().dtype == np.uint64 and not it.getindex().any() and it.getpad() == 0
    assert batch.data[0].dtype == np.uint8                                              # dtype ignored
    assert np.array_equal(batch.data[0].asnumpy(), GOLDEN['iter_plain_data'][0, :4])   # mean, scale ignored
    kw = dict(path_imgrec=REC, data_shape=(3, 8, 8), batch_size=4, mean_r=2.5, mean_g=-300)
    int8 = mx.io.ImageRecordInt8Iter(**kw).next().data[0]
    assert int8.dtype == np.int8
    assert np.array_equal(int8.asnumpy(), mx.io.ImageRecordIter(dtype='int8', **kw).next().data[0].asnumpy())


def test_seeded_randomness_is_reproducible():
    def labels_and_data(**kw):
        it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 7, 7), batch_size=6, **kw)
        out = []
        for _ in range(2):
            out.extend((b.label[0].asnumpy().tolist(), b.data[0].asnumpy()) for b in it)
            it.reset()
        return out
    first, again = labels_and_data(shuffle=True, seed=4), labels_and_data(shuffle=True, seed=4)
    assert [l for l, _ in first] == [l for l, _ in again]
    other = labels_and_data(shuffle=True, seed=5)
    assert [l for l, _ in first] != [l for l, _ in other]
    aug = labels_and_data(rand_crop=True, rand_mirror=True)
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(aug, labels_and_data(rand_crop=True, rand_mirror=True)))
    plain = labels_and_data()
    assert not all(np.array_equal(a, b) for (_, a), (_, b) in zip(aug, plain))
    # as in MXNet, seed orders the images but does not seed the augmentations (seed_aug would)
    assert all(np.array_equal(a, b) for (_, a), (_, b) in
               zip(aug, labels_and_data(rand_crop=True, rand_mirror=True, seed=9)))


# ------------------------------------------------------------------ reflib's own records
def test_gray_png_records_from_pack_img_give_pixels_times_scale(tmp_path):
    # chapter 9's use: 8 x 8 gray images, the same batches as NDArrayIter(images / 8) in the first epoch
    rng = np.random.RandomState(3)
    images = rng.randint(0, 17, (11, 8, 8)).astype(np.uint8)
    labels = np.arange(11) % 10
    rec, idx = str(tmp_path / 'digits.rec'), str(tmp_path / 'digits.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for i, (img, label) in enumerate(zip(images, labels)):
        writer.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, float(label), i, 0), img, img_fmt='.png'))
    writer.close()
    it = mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=idx, data_shape=(1, 8, 8), batch_size=4,
                               scale=1 / 8, label_width=1)
    ref = mx.io.NDArrayIter(images[:, None] / 8, labels.astype(np.float32), batch_size=4)
    for got, want in zip(it, ref):
        assert got.pad == want.pad
        assert np.array_equal(got.data[0].asnumpy(), want.data[0].asnumpy().astype(np.float32))
        assert np.array_equal(got.label[0].asnumpy(), want.label[0].asnumpy())


def test_color_records_come_out_rgb_and_multi_labels(tmp_path):
    bgr = np.zeros((6, 6, 3), np.uint8)
    bgr[..., 0], bgr[..., 1], bgr[..., 2] = 10, 20, 30          # blue, green, red as OpenCV holds them
    rec = str(tmp_path / 'color.rec')
    writer = mx.recordio.MXRecordIO(rec, 'w')
    for i in range(3):
        writer.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, [i, -i, 0.5], i, 0), bgr + i, img_fmt='.png'))
    writer.close()
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 4, 4), batch_size=3, label_width=3, dtype='uint8')
    batch = it.next()
    assert batch.data[0].asnumpy()[:, :, 0, 0].tolist() == [[30, 20, 10], [31, 21, 11], [32, 22, 12]]
    assert batch.label[0].asnumpy().tolist() == [[0, 0, 0.5], [1, -1, 0.5], [2, -2, 0.5]]


# ------------------------------------------------------------------ refusals
def _iter(**kw):
    args = dict(path_imgrec=REC, data_shape=(3, 8, 8), batch_size=4)
    args.update(kw)
    return mx.io.ImageRecordIter(**args)


@pytest.mark.parametrize('kw, words', [
    (dict(path_imgrec='/no/such.rec'), ['/no/such.rec', 'no such file']),
    (dict(path_imgrec=''), ['path_imgrec is required']),
    (dict(data_shape=(2, 8, 8)), ['2 channels', '1 (gray), 3 (RGB) or 4']),
    (dict(data_shape=(8, 8)), ['(channels, height, width)']),
    (dict(data_shape=(3, 0, 8)), ['data_shape', 'positive']),
    (dict(data_shape=(4, 8, 8)), ['id 0 has 3 channels', 'asks for 4']),
    (dict(label_width=2), ['id 0 has one label', 'label_width is 2']),
    (dict(path_imgrec=os.path.join(RECORDS, 'imgrec_multi.rec')), ['id 0 has 2 labels', 'label_width is 1']),
    (dict(batch_size=25), ['batch_size 25', 'more than twice the 12 images']),
    (dict(path_imgidx=IDX, num_parts=7, part_index=6), ['part_index 6', 'holds no image']),
    (dict(num_parts=40, part_index=1), ['part_index 1 of num_parts 40 holds no image', 'bytes 116..232']),
    (dict(path_imgrec=RECORDS), ['is a directory']),
    (dict(num_parts=2, part_index=2), ['part_index must be below num_parts']),
    (dict(max_rotate_angle=10), ['max_rotate_angle=10', 'not implemented']),
    (dict(random_resized_crop=True), ['random_resized_crop=True', 'not implemented']),
    (dict(seed_aug=1), ['seed_aug=1', 'not implemented']),
    (dict(mean_img='mean.bin'), ["mean_img='mean.bin'", 'not implemented']),
    (dict(brightness=0.2), ['brightness=0.2', 'not implemented']),
    (dict(inter_method=2), ['inter_method=2', 'only 1']),
    (dict(dtype='float64'), ["dtype 'float64'", 'float32 or uint8 or int8']),
    (dict(fill_value=300), ['fill_value', '0..255, got 300']),
])
def test_bad_input_is_refused_by_name(kw, words):
    with pytest.raises(MXNetError) as err:
        _iter(**kw)
    for word in words:
        assert word in str(err.value)


def test_damaged_files_are_refused_naming_the_record(tmp_path):
    rec = str(tmp_path / 'bad.rec')
    writer = mx.recordio.MXRecordIO(rec, 'w')
    writer.write(mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 5, 0), b'not an image'))
    writer.close()
    with pytest.raises(MXNetError, match='record with id 5 at byte 0: cannot decode image'):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=1)
    idx = str(tmp_path / 'wrong.idx')
    with open(idx, 'w') as f:
        f.write('0\t0\n1\t12\n')
    with pytest.raises(MXNetError, match='byte offset 12, where no record'):
        _iter(path_imgidx=idx)
    with pytest.raises(MXNetError, match='has no record at byte 0'):
        mx.io.ImageRecordIter(path_imgrec=idx, data_shape=(3, 8, 8), batch_size=1)


def test_switched_off_augmentations_and_ignored_settings_are_accepted(caplog):
    with caplog.at_level(logging.WARNING):
        it = _iter(max_rotate_angle=0, rotate=-1, max_random_scale=1.0, min_aspect_ratio=None, seed_aug=None,
                   mean_img='', aug_seq='aug_default', preprocess_threads=4, verbose=False, prefetch_buffer=2,
                   ctx='cpu', inter_method='1', shuffle_chunk_seed=3, colour='red')
    assert it.provide_data[0].shape == (4, 3, 8, 8)
    assert 'colour' in caplog.text and 'rotate' not in caplog.text


# the decoding pool -------------------------------------------------------------------------
@pytest.fixture
def pool_always(monkeypatch):
    """The pool for records of any size, and 4 threads even on a machine with fewer cores."""
    from reflib.io import image_record
    monkeypatch.setattr(image_record, '_POOL_MIN_RECORD_BYTES', 0)
    monkeypatch.setattr(image_record.os, 'cpu_count', lambda: 4)


@pytest.mark.parametrize('name', sorted(cases.RANDOM_DATA_CASES))
def test_pooled_decoding_gives_mxnets_random_batches(name, pool_always):
    case = dict(cases.RANDOM_CASES[name], preprocess_threads=4)
    it = mx.io.ImageRecordIter(**cases.iter_kwargs(case, RECORDS))
    assert it._pool is not None and it._pool._max_workers == 4
    _, epochs, data = run(case)
    assert_batches_match(epochs, RANDOM_BATCHES[name])
    assert_data_equal(np.stack([b for epoch in data for b in epoch]), RANDOM['data_' + name])


def _big_records(tmp_path, count=150, side=72):
    """Noisy RGB PNGs of about 15 kB, well above the pool's threshold."""
    rng = np.random.RandomState(3)
    rec = str(tmp_path / 'big.rec')
    writer = mx.recordio.MXRecordIO(rec, 'w')
    for i in range(count):
        img = rng.randint(0, 256, (side + i % 7, side, 3)).astype(np.uint8)
        writer.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i), i, 0), img, img_fmt='.png'))
    writer.close()
    return rec


@pytest.mark.parametrize('augment', [
    dict(),
    dict(shuffle=True, seed=5, rand_crop=True, rand_mirror=True, resize=70, mean_r=120, std_g=50),
])
def test_pool_changes_no_bit_of_any_epoch(tmp_path, monkeypatch, augment):
    # 150 images, batches of 32: every epoch wraps (round_batch), and the lazy path decodes
    # blocks of 64 in use order; the threads must change nothing, draws included
    from reflib.io import image_record
    monkeypatch.setattr(image_record.os, 'cpu_count', lambda: 4)
    rec = _big_records(tmp_path)
    epochs = {}
    for threads in (1, 4):
        it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 64, 64), batch_size=32,
                                   preprocess_threads=threads, **augment)
        assert (it._pool is None) == (threads == 1)
        epochs[threads] = []
        for _ in range(3):
            epochs[threads].append([(b.label[0].asnumpy(), b.data[0].asnumpy(), b.pad) for b in it])
            it.reset()
    for one, four in zip(epochs[1], epochs[4]):
        assert len(one) == len(four) == 5
        for (label1, data1, pad1), (label4, data4, pad4) in zip(one, four):
            assert pad1 == pad4 and np.array_equal(label1, label4) and np.array_equal(data1, data4)


def test_pool_is_used_only_where_it_pays(tmp_path, monkeypatch):
    from reflib.io import image_record
    monkeypatch.setattr(image_record.os, 'cpu_count', lambda: 2)
    big = mx.io.ImageRecordIter(path_imgrec=_big_records(tmp_path, count=4), data_shape=(3, 64, 64),
                                batch_size=2, preprocess_threads=4)
    assert big._pool._max_workers == 2           # no more threads than cores
    assert _iter(preprocess_threads=4)._pool is None     # the golden file's small images
    monkeypatch.setattr(image_record.os, 'cpu_count', lambda: 1)
    assert mx.io.ImageRecordIter(path_imgrec=_big_records(tmp_path, count=4), data_shape=(3, 64, 64),
                                 batch_size=2)._pool is None


def test_pooled_errors_name_the_record(tmp_path, pool_always):
    rec = str(tmp_path / 'bad.rec')
    writer = mx.recordio.MXRecordIO(rec, 'w')
    img = np.zeros((8, 8, 3), np.uint8)
    for i in range(40):
        payload = (mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, i, 0), b'not an image') if i == 33 else
                   mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, i, 0), img, img_fmt='.png'))
        writer.write(payload)
    writer.close()
    # raised when the block holding it is decoded (here the first: MXNet too decodes ahead)
    with pytest.raises(MXNetError, match='record with id 33 at byte [0-9]+: cannot decode image'):
        list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=8, preprocess_threads=4))
    with pytest.raises(MXNetError, match='preprocess_threads must be at least 1, got 0'):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=8, preprocess_threads=0)
