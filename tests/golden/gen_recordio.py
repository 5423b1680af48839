"""Record MXNet 1.9.1's RecordIO files, image records, im2rec lists and ImageRecordIter
batches (run with the MXNet venv; MXNet's recordio.pack_img and tools/im2rec.py need
OpenCV's Python module, which that venv lacks: put opencv-python-headless on the path).

    pip install --no-deps --target /tmp/cv2pkg opencv-python-headless==4.10.0.84
    PYTHONPATH=/tmp/cv2pkg /tmp/mxv/bin/python tests/golden/gen_recordio.py
        ->  tests/golden/recordio/  (*.rec, *.idx, *.lst, recordio.npz; about 60 KB)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import mxnet as mx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import image_record_cases as cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'recordio')
EPOCHS = 4
IM2REC = os.path.join(os.path.dirname(mx.__file__), 'tools', 'im2rec.py')


def write_raw(npz):
    """Byte records under integer keys; the writer's tell() before each."""
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(OUT, 'raw.idx'), os.path.join(OUT, 'raw.rec'), 'w')
    tells = []
    for key, buf in zip(cases.RAW_KEYS, cases.RAW_RECORDS):
        tells.append(rec.tell())
        rec.write_idx(key, buf)
    rec.close()
    npz['raw_tells'] = np.array(tells)


def write_images(npz):
    """pack_img records (PNG color, PNG gray, PNG with alpha, JPEG) and what unpack_img gives back."""
    imgs = cases.images()
    bgr = imgs[0][..., ::-1]
    gray = imgs[1][..., 0]
    bgra = np.concatenate([imgs[2][..., ::-1], imgs[2][..., :1]], axis=-1)
    items = [(mx.recordio.IRHeader(0, 3.5, 7, 0), bgr, 3, '.png'),
             (mx.recordio.IRHeader(0, [1, 2, 3], 8, 1), gray, 9, '.png'),
             (mx.recordio.IRHeader(0, 0.0, 9, 0), bgra, 1, '.png'),
             (mx.recordio.IRHeader(0, [4.25], 10, 0), bgr, 90, '.jpg')]
    rec = mx.recordio.MXRecordIO(os.path.join(OUT, 'images.rec'), 'w')
    headers = []
    for i, (header, img, quality, fmt) in enumerate(items):
        s = mx.recordio.pack_img(header, img, quality=quality, img_fmt=fmt)
        rec.write(s)
        h, _ = mx.recordio.unpack(s)
        headers.append([h.flag, np.ravel(h.label).tolist(), h.id, h.id2])
        for flag in (-1, 0, 1):
            npz['unpack_img_%d_%d' % (i, flag)] = mx.recordio.unpack_img(s, flag)[1]
        npz['packed_input_%d' % i] = img
    rec.close()
    npz['image_headers'] = np.array(json.dumps(headers))


def write_iter_records():
    """imgrec.rec (one label) and imgrec_multi.rec (two labels): PNG, lossless, with .idx."""
    for name, which in (('imgrec', 0), ('imgrec_multi', 1)):
        rec = mx.recordio.MXIndexedRecordIO(os.path.join(OUT, name + '.idx'), os.path.join(OUT, name + '.rec'), 'w')
        for i, img in enumerate(cases.images()):
            header = mx.recordio.IRHeader(0, cases.labels(i)[which], i, 0)
            rec.write_idx(i, mx.recordio.pack_img(header, img[..., ::-1], quality=9, img_fmt='.png'))
        rec.close()


def record_iters(npz):
    """Per case: the DataDescs, (pads, labels) of every batch of EPOCHS epochs, the dtype, and for
    DATA_CASES the first epoch's pixels (uint8 where they are whole numbers in 0..255)."""
    summary = {}
    for name, case in cases.CASES.items():
        it = mx.io.ImageRecordIter(**cases.iter_kwargs(case, OUT))
        provide = [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data + it.provide_label]
        epochs = []
        for epoch in range(EPOCHS):
            batches = list(it)
            epochs.append([[b.pad, b.label[0].asnumpy().tolist()] for b in batches])
            if epoch == 0:
                dtype = np.dtype(batches[0].data[0].dtype).name
                data = np.stack([b.data[0].asnumpy() for b in batches])
                if not case.get('round_batch', True):    # MXNet leaves the last batch's filler uninitialised
                    data[-1, len(cases.SIZES) % case['batch_size']:] = 0
                if name in cases.DATA_CASES:
                    data = data[:1] if name == 'norm' else data     # float32: the first batch is enough
                    whole = np.array_equal(data, np.round(data)) and data.min() >= 0 and data.max() <= 255
                    npz['iter_%s_data' % name] = data.astype(np.uint8 if whole else np.float32)
            it.reset()
        summary[name] = dict(provide=provide, dtype=dtype, epochs=epochs)
    npz['iter_batches'] = np.array(json.dumps(summary))


def image_folder(root):
    """root/cat/*.png, root/dog/*.png, root/top.png, root/notes.txt (skipped: not an image)."""
    imgs = cases.images()
    names = [('cat', 'b.png'), ('cat', 'a.png'), ('dog', 'c.png'), ('dog', 'sub/d.png'), ('', 'top.png')]
    for (folder, fname), img in zip(names, imgs):
        path = os.path.join(root, folder, fname)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        cv2.imwrite(path, img[..., ::-1])
    with open(os.path.join(root, 'notes.txt'), 'w') as f:
        f.write('not an image')


def record_im2rec(npz):
    tmp = tempfile.mkdtemp()
    try:
        root = os.path.join(tmp, 'images')
        image_folder(root)
        runs = {'flat': ['--list'], 'recursive': ['--list', '--recursive'],
                'recursive_noshuffle': ['--list', '--recursive', '--no-shuffle'],
                'split': ['--list', '--recursive', '--train-ratio', '0.6', '--test-ratio', '0.2']}
        for name, args in runs.items():
            prefix = os.path.join(tmp, name)
            subprocess.run([sys.executable, IM2REC, prefix, root] + args, check=True, capture_output=True)
            for fname in sorted(os.listdir(tmp)):
                if fname.startswith(name + '.') or fname.startswith(name + '_'):
                    shutil.copy(os.path.join(tmp, fname), os.path.join(OUT, 'im2rec_' + fname))
        # .rec from the recursive list: PNG with resize and center crop
        prefix = os.path.join(tmp, 'recursive_noshuffle')
        for name, args in {'png_resize': ['--encoding', '.png', '--resize', '6', '--center-crop'],
                           'pass': ['--pass-through']}.items():
            subprocess.run([sys.executable, IM2REC, prefix, root] + args + ['--num-thread', '1'], check=True,
                           capture_output=True)
            rec = mx.recordio.MXIndexedRecordIO(prefix + '.idx', prefix + '.rec', 'r')
            headers, pixels = [], []
            for key in rec.keys:
                header, payload = mx.recordio.unpack(rec.read_idx(key))
                headers.append([key, header.flag, np.ravel(header.label).tolist(), header.id, header.id2])
                pixels.append(cv2.imdecode(np.frombuffer(payload, np.uint8), -1) if name != 'pass'
                              else np.frombuffer(payload[:8], np.uint8))
            rec.close()
            npz['im2rec_%s_headers' % name] = np.array(json.dumps(headers))
            for i, p in enumerate(pixels):
                npz['im2rec_%s_%d' % (name, i)] = p
    finally:
        shutil.rmtree(tmp)


def main():
    os.makedirs(OUT, exist_ok=True)
    npz = {}
    write_raw(npz)
    write_images(npz)
    write_iter_records()
    record_iters(npz)
    record_im2rec(npz)
    np.savez_compressed(os.path.join(OUT, 'recordio.npz'), **npz)


if __name__ == '__main__':
    main()
