"""python -m reflib.tools.im2rec against MXNet 1.9.1's tools/im2rec.py: the same .lst files
(walking order, labels, shuffle, splits) and the same records (headers, pixels) for a small
generated image folder (gen_recordio.py ran MXNet's tool on the same images)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import reflib as mx
from reflib.tools import im2rec

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden', 'recordio')
sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'golden'))
import image_record_cases as cases  # noqa: E402

NPZ = np.load(os.path.join(GOLDEN, 'recordio.npz'))
NAMES = [('cat', 'b.png'), ('cat', 'a.png'), ('dog', 'c.png'), ('dog', 'sub/d.png'), ('', 'top.png')]


@pytest.fixture
def folder(tmp_path):
    """The image folder gen_recordio.py gave MXNet's im2rec (PNG is lossless: same pixels)."""
    root = tmp_path / 'images'
    for (sub, name), img in zip(NAMES, cases.images()):
        path = root / sub / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(img).save(path)
    (root / 'notes.txt').write_text('not an image')
    return tmp_path


@pytest.mark.parametrize('name,args,want', [
    ('flat', ['--list'], ['flat.lst']),
    ('recursive', ['--list', '--recursive'], ['recursive.lst']),
    ('recursive_noshuffle', ['--list', '--recursive', '--no-shuffle'], ['recursive_noshuffle.lst']),
    ('split', ['--list', '--recursive', '--train-ratio', '0.6', '--test-ratio', '0.2'],
     ['split_test.lst', 'split_train.lst', 'split_val.lst']),
])
def test_lists_are_mxnets(folder, name, args, want, capsys):
    assert im2rec.main([str(folder / name), str(folder / 'images')] + args) == 0
    made = sorted(f for f in os.listdir(folder) if f.endswith('.lst'))
    assert made == want
    for fname in made:
        assert (folder / fname).read_text() == open(os.path.join(GOLDEN, 'im2rec_' + fname)).read(), fname
    if 'recursive' in name:   # the folder -> label mapping is printed, as MXNet prints it
        assert capsys.readouterr().out.splitlines()[:4] == ['. 0', 'cat 1', 'dog 2', 'dog/sub 3']


def records(prefix):
    rec = mx.recordio.MXIndexedRecordIO(prefix + '.idx', prefix + '.rec', 'r')
    out = [(key,) + mx.recordio.unpack(rec.read_idx(key)) for key in rec.keys]
    rec.close()
    return out


def test_png_resize_center_crop_records_are_mxnets(folder):
    prefix = str(folder / 'recursive_noshuffle')
    shutil_copy(os.path.join(GOLDEN, 'im2rec_recursive_noshuffle.lst'), prefix + '.lst')
    im2rec.main([prefix, str(folder / 'images'), '--encoding', '.png', '--resize', '6', '--center-crop'])
    got = records(prefix)
    want = json.loads(str(NPZ['im2rec_png_resize_headers']))
    assert [[key, h.flag, np.ravel(h.label).tolist(), h.id, h.id2] for key, h, _ in got] == want
    for i, (_, _, payload) in enumerate(got):
        img = mx.recordio.unpack_img(mx.recordio.pack((0, 0, 0, 0), payload))[1]
        np.testing.assert_array_equal(img, NPZ['im2rec_png_resize_%d' % i])


def test_pass_through_packs_the_files_bytes(folder):
    prefix = str(folder / 'recursive_noshuffle')
    shutil_copy(os.path.join(GOLDEN, 'im2rec_recursive_noshuffle.lst'), prefix + '.lst')
    im2rec.main([prefix, str(folder / 'images'), '--pass-through'])
    got = records(prefix)
    assert [[key, h.flag, np.ravel(h.label).tolist(), h.id, h.id2] for key, h, _ in got] == \
        json.loads(str(NPZ['im2rec_pass_headers']))
    lines = [line.split('\t') for line in open(prefix + '.lst').read().splitlines()]
    for (_, _, payload), line in zip(got, lines):
        assert payload == (folder / 'images' / line[-1]).read_bytes()


def test_pack_label_jpeg_gray_and_bad_lines(folder, capsys):
    prefix = str(folder / 'multi')
    (folder / 'multi.lst').write_text('0\t1.5\t2.0\tcat/a.png\nnot a line\nx\t1\tcat/b.png\n'
                                      '7\t3\t4\tmissing.png\n9\t0.5\t1\tdog/c.png\n')
    im2rec.main([prefix, str(folder / 'images'), '--pack-label', '--color', '0', '--quality', '80'])
    got = records(prefix)
    assert [key for key, _, _ in got] == [0, 9]
    assert got[0][1].label.tolist() == [1.5, 2.0] and got[1][1].label.tolist() == [0.5, 1.0]
    img = mx.recordio.unpack_img(mx.recordio.pack((0, 0, 0, 0), got[0][2]))[1]
    assert img.shape == cases.SIZES[1] and got[0][2][:2] == b'\xff\xd8'    # gray JPEG
    err = capsys.readouterr().err
    assert 'multi.lst line 2' in err and 'multi.lst line 3' in err and 'missing.png' in err


def test_runs_as_a_module(folder):
    out = subprocess.run([sys.executable, '-m', 'reflib.tools.im2rec', str(folder / 'x'), str(folder / 'images'),
                          '--list', '--no-shuffle'], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert (folder / 'x.lst').read_text().splitlines()[0] == '0\t0.000000\ttop.png'


def shutil_copy(src, dst):
    with open(src, 'rb') as a, open(dst, 'wb') as b:
        b.write(a.read())
