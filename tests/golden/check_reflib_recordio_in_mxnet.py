"""Manual check: does real MXNet 1.9.1 read the RecordIO files reflib writes, and find in
them what reflib put there?

Two steps, two interpreters (reflib's tests never need MXNet):

  1. with reflib's interpreter, from the repository root, write the files:
       python tests/golden/check_reflib_recordio_in_mxnet.py --write /tmp/reflib-rec
  2. with the MXNet 1.9.1 interpreter (OpenCV's Python module on the path, for unpack_img):
       PYTHONPATH=/tmp/cv2pkg /tmp/mxv/bin/python tests/golden/check_reflib_recordio_in_mxnet.py /tmp/reflib-rec

Step 2 reads reflib's raw records sequentially and by key, compares reflib's .rec/.idx
bytes with the ones MXNet writes for the same records, unpacks reflib's image records
(headers and pixels), and runs ImageRecordIter over reflib's copy of the iterator's record
file, comparing its batches with those over MXNet's own (tests/golden/recordio/imgrec.rec).
It prints one line per check and 'ALL OK' at the end.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import image_record_cases as cases  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'recordio')


def image_items():
    imgs = cases.images()
    return [((0, 3.5, 7, 0), imgs[0][..., ::-1], 3, '.png'),
            ((0, [1, 2, 3], 8, 1), imgs[1][..., 0], 9, '.png'),
            ((0, [4.25], 10, 0), imgs[2][..., ::-1], 90, '.jpg')]


def write(folder):
    import reflib as mx
    os.makedirs(folder, exist_ok=True)
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(folder, 'raw.idx'), os.path.join(folder, 'raw.rec'), 'w')
    for key, buf in zip(cases.RAW_KEYS, cases.RAW_RECORDS):
        rec.write_idx(key, buf)
    rec.close()
    rec = mx.recordio.MXRecordIO(os.path.join(folder, 'images.rec'), 'w')
    decoded = {}
    for i, (header, img, quality, fmt) in enumerate(image_items()):
        s = mx.recordio.pack_img(mx.recordio.IRHeader(*header), img, quality=quality, img_fmt=fmt)
        rec.write(s)
        decoded['img%d' % i] = mx.recordio.unpack_img(s)[1]
    rec.close()
    np.savez(os.path.join(folder, 'reflib_decoded.npz'), **decoded)
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(folder, 'imgrec.idx'), os.path.join(folder, 'imgrec.rec'), 'w')
    for i, img in enumerate(cases.images()):
        rec.write_idx(i, mx.recordio.pack_img((0, cases.labels(i)[0], i, 0), img[..., ::-1], quality=9,
                                              img_fmt='.png'))
    rec.close()
    print('wrote', folder)


def check(folder):
    import mxnet as mx
    ok = True

    def report(name, good):
        nonlocal ok
        ok = ok and good
        print('%-55s %s' % (name, 'ok' if good else 'FAILED'))

    rec = mx.recordio.MXRecordIO(os.path.join(folder, 'raw.rec'), 'r')
    got = [rec.read() for _ in cases.RAW_RECORDS] + [rec.read()]
    report('raw records, read in order', got == cases.RAW_RECORDS + [None])
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(folder, 'raw.idx'), os.path.join(folder, 'raw.rec'), 'r')
    report('raw records, read by key',
           rec.keys == cases.RAW_KEYS and all(rec.read_idx(k) == b for k, b in zip(cases.RAW_KEYS, cases.RAW_RECORDS)))
    tmp = os.path.join(folder, 'mxnet')
    os.makedirs(tmp, exist_ok=True)
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(tmp, 'raw.idx'), os.path.join(tmp, 'raw.rec'), 'w')
    for key, buf in zip(cases.RAW_KEYS, cases.RAW_RECORDS):
        rec.write_idx(key, buf)
    rec.close()
    for name in ('raw.rec', 'raw.idx'):
        same = open(os.path.join(tmp, name), 'rb').read() == open(os.path.join(folder, name), 'rb').read()
        report('%s byte-identical to MXNet\'s' % name, same)
    rec = mx.recordio.MXRecordIO(os.path.join(folder, 'images.rec'), 'r')
    reflib_decoded = np.load(os.path.join(folder, 'reflib_decoded.npz'))
    for (header, img, _, fmt), i in zip(image_items(), range(3)):
        got_header, got = mx.recordio.unpack_img(rec.read())
        same_header = (got_header.flag, np.ravel(got_header.label).tolist(), got_header.id, got_header.id2) == \
            ((0 if np.isscalar(header[1]) else len(header[1])), np.ravel(header[1]).tolist(), header[2], header[3])
        # PNG: the pixels packed; JPEG (lossy): what reflib's unpack_img decoded from the same bytes
        want = img if fmt == '.png' else reflib_decoded['img%d' % i]
        diff = np.abs(got.astype(int) - want).max()
        report('image record %d (%s): header, pixels (max diff %d)' % (i, fmt, diff), same_header and diff == 0)
    for name, case in cases.CASES.items():
        if case.get('multi'):
            continue
        theirs = mx.io.ImageRecordIter(**cases.iter_kwargs(case, GOLDEN))
        ours = mx.io.ImageRecordIter(**cases.iter_kwargs(case, folder))
        same = True
        for _ in range(2):
            for a, b in zip(theirs, ours):
                n = case['batch_size'] - a.pad
                if not case.get('round_batch', True) and a.label[0].asnumpy()[0] + case['batch_size'] > len(cases.SIZES):
                    n = len(cases.SIZES) % case['batch_size']     # MXNet: pad 0, filler uninitialised
                    a.pad = b.pad
                same = same and a.pad == b.pad and np.array_equal(a.label[0].asnumpy()[:n], b.label[0].asnumpy()[:n]) \
                    and np.array_equal(a.data[0].asnumpy()[:n], b.data[0].asnumpy()[:n])
            theirs.reset()
            ours.reset()
        report('ImageRecordIter %-12s over reflib\'s .rec = over MXNet\'s' % name, same)
    print('ALL OK' if ok else 'SOME CHECKS FAILED')
    return ok


if __name__ == '__main__':
    if sys.argv[1] == '--write':
        write(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[1]) else 1)
