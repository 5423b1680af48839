"""mx.recordio against MXNet 1.9.1: files MXNet wrote (tests/golden/recordio/, made by
gen_recordio.py) read back record for record, files reflib writes byte-identical to MXNet's,
image records packed and unpacked in OpenCV's BGR order, and clear errors for bad files."""
import json
import os
import pickle
import sys

import numpy as np
import pytest

import reflib as mx
from reflib import recordio
from reflib.base import MXNetError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden', 'recordio')
sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'golden'))
import image_record_cases as cases  # noqa: E402

NPZ = np.load(os.path.join(GOLDEN, 'recordio.npz'))


def golden(name):
    return os.path.join(GOLDEN, name)


def test_reads_records_mxnet_wrote():
    rec = mx.recordio.MXRecordIO(golden('raw.rec'), 'r')
    assert [rec.read() for _ in cases.RAW_RECORDS] == cases.RAW_RECORDS
    assert rec.read() is None and rec.read() is None
    rec.reset()
    assert rec.read() == cases.RAW_RECORDS[0]
    rec.close()


def test_reads_records_by_key_mxnet_wrote():
    rec = mx.recordio.MXIndexedRecordIO(golden('raw.idx'), golden('raw.rec'), 'r')
    assert rec.keys == cases.RAW_KEYS
    assert [rec.idx[k] for k in rec.keys] == NPZ['raw_tells'].tolist()
    for key, want in reversed(list(zip(cases.RAW_KEYS, cases.RAW_RECORDS))):
        assert rec.read_idx(key) == want
    with pytest.raises(KeyError, match='no key 7'):
        rec.read_idx(7)
    rec.close()
    as_text = mx.recordio.MXIndexedRecordIO(golden('raw.idx'), golden('raw.rec'), 'r', key_type=str)
    assert as_text.keys == [str(k) for k in cases.RAW_KEYS] and as_text.read_idx('15') == b'abcde'


def test_writes_the_bytes_mxnet_writes(tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'raw.idx'), str(tmp_path / 'raw.rec'), 'w')
    tells = []
    for key, buf in zip(cases.RAW_KEYS, cases.RAW_RECORDS):
        tells.append(rec.tell())
        rec.write_idx(key, buf)
    rec.close()
    assert tells == NPZ['raw_tells'].tolist()
    for name in ('raw.rec', 'raw.idx'):
        assert (tmp_path / name).read_bytes() == open(golden(name), 'rb').read(), name


def test_a_record_is_magic_length_data_padding(tmp_path):
    rec = mx.recordio.MXRecordIO(str(tmp_path / 'one.rec'), 'w')
    rec.write(b'hello')
    rec.close()
    assert (tmp_path / 'one.rec').read_bytes() == bytes.fromhex('0a23d7ce' '05000000') + b'hello\0\0\0'


def image_records():
    rec = mx.recordio.MXRecordIO(golden('images.rec'), 'r')
    items = []
    while True:
        s = rec.read()
        if s is None:
            return items
        items.append(s)


def test_unpack_gives_mxnets_headers():
    want = json.loads(str(NPZ['image_headers']))
    for s, (flag, label, id_, id2) in zip(image_records(), want):
        header, _ = mx.recordio.unpack(s)
        assert (header.flag, np.ravel(header.label).tolist(), header.id, header.id2) == (flag, label, id_, id2)
    assert len(want) == 4
    header, _ = mx.recordio.unpack(image_records()[1])
    assert header.label.dtype == np.float32 and header.flag == 3


@pytest.mark.parametrize('flag', [-1, 0, 1])
@pytest.mark.parametrize('i', [0, 1, 2])
def test_unpack_img_png_is_opencvs_bgr_exactly(i, flag):
    _, img = mx.recordio.unpack_img(image_records()[i], flag)
    want = NPZ['unpack_img_%d_%d' % (i, flag)]
    assert img.dtype == np.uint8 and img.shape == want.shape
    np.testing.assert_array_equal(img, want)


def test_unpack_img_jpeg_within_decoder_tolerance():
    # Pillow's libjpeg-turbo decodes this file exactly as OpenCV 4.10 does (measured: 0); other
    # libjpeg builds may differ by a grey level or two in their IDCT and chroma upsampling
    for flag in (-1, 0, 1):
        _, img = mx.recordio.unpack_img(image_records()[3], flag)
        want = NPZ['unpack_img_3_%d' % flag]
        assert img.shape == want.shape
        assert np.abs(img.astype(int) - want).max() <= 2


@pytest.mark.parametrize('i,quality,fmt', [(0, 3, '.png'), (1, 9, '.png'), (2, 1, '.png'), (3, 90, '.jpg')])
def test_pack_img_reads_back_as_mxnet_packed(i, quality, fmt):
    header = mx.recordio.IRHeader(0, [1, 2], 5, 0)
    s = mx.recordio.pack_img(header, NPZ['packed_input_%d' % i], quality=quality, img_fmt=fmt)
    back_header, img = mx.recordio.unpack_img(s)
    assert back_header.flag == 2 and back_header.label.tolist() == [1, 2] and back_header.id == 5
    want = NPZ['unpack_img_%d_-1' % i]
    tolerance = 0 if fmt == '.png' else 6
    assert img.shape == want.shape and np.abs(img.astype(int) - want).max() <= tolerance


def test_pack_label_rules():
    s = mx.recordio.pack(mx.recordio.IRHeader(9, 2, 1, 0), b'z')
    assert mx.recordio.unpack(s) == (mx.recordio.IRHeader(0, 2.0, 1, 0), b'z')   # a number: flag forced to 0
    s = mx.recordio.pack((5, [], 1, 0), b'z')                                     # empty array: flag 0, label 0
    assert mx.recordio.unpack(s) == (mx.recordio.IRHeader(0, 0.0, 1, 0), b'z')
    s = mx.recordio.pack(mx.recordio.IRHeader(3, [1, 2.5], 9, 1), b'img')
    assert s[:24] == bytes.fromhex('02000000' '00000000' '0900000000000000' '0100000000000000')
    assert s[24:32] == np.array([1, 2.5], np.float32).tobytes() and s[32:] == b'img'
    assert repr(mx.recordio.IRHeader(0, 1.0, 2, 0)) == 'HEADER(flag=0, label=1.0, id=2, id2=0)'


def test_pickling_closes_and_reopens_like_mxnet(tmp_path):
    rec = mx.recordio.MXRecordIO(golden('raw.rec'), 'r')
    rec.read()
    rec.read()
    copy = pickle.loads(pickle.dumps(rec))
    assert not rec.is_open and copy.is_open
    assert copy.read() == cases.RAW_RECORDS[0]          # the copy starts again at the first record
    indexed = mx.recordio.MXIndexedRecordIO(golden('raw.idx'), golden('raw.rec'), 'r')
    copy = pickle.loads(pickle.dumps(indexed))
    assert copy.read_idx(15) == b'abcde' and copy.keys == cases.RAW_KEYS


def test_another_process_must_reset_first():
    rec = mx.recordio.MXIndexedRecordIO(golden('raw.idx'), golden('raw.rec'), 'r')
    rec.pid = -1                                       # as if inherited through fork
    with pytest.raises(RuntimeError, match='multiple processes'):
        rec.read()
    assert rec.read_idx(4) == b'abcd'                  # seek reopens in the new process


def test_writer_is_atomic_and_reset_empties(tmp_path):
    path = tmp_path / 'a.rec'
    path.write_bytes(b'old')
    rec = mx.recordio.MXRecordIO(str(path), 'w')
    rec.write(b'first')
    assert path.read_bytes() == b'old'                # nothing replaced before close
    rec.reset()                                        # as MXNet: a writer's reset starts an empty file
    rec.write(b'second')
    rec.close()
    back = mx.recordio.MXRecordIO(str(path), 'r')
    assert back.read() == b'second' and back.read() is None
    assert sorted(os.listdir(tmp_path)) == ['a.rec']   # no temporary file left


@pytest.mark.parametrize('content,match', [
    (b'hello world12345', 'expected magic number 0xced7230a, got 0x6c6c6568'),
    (bytes.fromhex('0a23d7ce') + b'\x05\0', 'ends inside a record header at byte 0'),
    (bytes.fromhex('0a23d7ce' '09000000') + b'abc', 'says 9 bytes, 3 are left'),
    (bytes.fromhex('0a23d7ce' '00000060'), 'starts with a continuation part'),
    (bytes.fromhex('0a23d7ce' '00000020'), 'misses its last part'),
])
def test_damaged_files_are_refused_clearly(tmp_path, content, match):
    path = tmp_path / 'bad.rec'
    path.write_bytes(content)
    rec = mx.recordio.MXRecordIO(str(path), 'r')
    with pytest.raises(MXNetError, match=match) as err:
        rec.read()
    assert 'bad.rec' in str(err.value)


def test_bad_use_is_refused_clearly(tmp_path, monkeypatch):
    with pytest.raises(MXNetError, match="cannot open .*nope.rec"):
        mx.recordio.MXRecordIO(str(tmp_path / 'nope.rec'), 'r')
    with pytest.raises(ValueError, match='Invalid flag x'):
        mx.recordio.MXRecordIO(str(tmp_path / 'a.rec'), 'x')
    reader = mx.recordio.MXRecordIO(golden('raw.rec'), 'r')
    with pytest.raises(MXNetError, match="opened with flag 'r', cannot write"):
        reader.write(b'x')
    (tmp_path / 'bad.idx').write_text('1\t0\n2 16\n')
    with pytest.raises(MXNetError, match=r"bad.idx' line 2: expected"):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / 'bad.idx'), golden('raw.rec'), 'r')
    monkeypatch.setattr(recordio, '_MAX_LENGTH', 7)    # the 2**29 limit, cheaply
    writer = mx.recordio.MXRecordIO(str(tmp_path / 'big.rec'), 'w')
    with pytest.raises(MXNetError, match='shorter than 2\\*\\*29 bytes, got 8 bytes'):
        writer.write(b'12345678')
    with pytest.raises(MXNetError, match='header'):
        mx.recordio.unpack(b'short')
    with pytest.raises(MXNetError, match='img_fmt'):
        mx.recordio.pack_img((0, 1, 0, 0), np.zeros((2, 2, 3), np.uint8), img_fmt='.gif')
    with pytest.raises(MXNetError, match='not an image'):
        mx.recordio.unpack_img(mx.recordio.pack((0, 1, 0, 0), b'garbage'))
