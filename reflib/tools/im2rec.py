"""``python -m reflib.tools.im2rec PREFIX ROOT``: pack a folder of images into RecordIO files,
with the options and outputs of MXNet 1.9.1's ``tools/im2rec.py``.

Two steps, as there:

1. ``--list`` walks ROOT and writes ``PREFIX.lst``, one image a line:
   ``index<TAB>label<TAB>...<TAB>path relative to ROOT``, labels printed with ``%f``.
   Without ``--recursive`` every image gets label 0; with it, each folder holding images
   gets the next label, in walking order (sorted names; the mapping is printed).  The
   lines are shuffled (Python's ``random`` seeded with 100, so the same order as MXNet's)
   unless ``--no-shuffle``; ``--chunks``, ``--train-ratio`` and ``--test-ratio`` split them
   into ``PREFIX[_i][_train|_val|_test].lst``.
2. Without ``--list``, every ``PREFIX*.lst`` beside PREFIX becomes a ``.rec`` + ``.idx`` of
   the same name: each image is read (``--color``), optionally center-cropped to a square
   and resized (shorter side to ``--resize``, OpenCV's bilinear), and encoded
   (``--encoding``, ``--quality``) into a record whose header holds the line's first label
   (all of them with ``--pack-label``) and its index as id; or, with ``--pass-through``,
   the file's bytes are packed as they are.  Images that cannot be read are reported and
   skipped.

>>> # python -m reflib.tools.im2rec data/train images/ --list --recursive
>>> # python -m reflib.tools.im2rec data/train images/ --encoding .png --resize 32
"""

import argparse
import os
import random
import sys

from .. import recordio
from ..base import MXNetError
from ..image_codec import decode
from ..io.image_resize import resize_bilinear
from ..util import atomic_write_text

__all__ = ['list_images', 'make_lists', 'read_list', 'encode_image', 'write_record_file', 'main']


def list_images(root, recursive, exts):
    """(index, relative path, label) of the images under ``root``, in MXNet's order."""
    exts = [e.lower() for e in exts]
    found = []
    if not recursive:
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if os.path.isfile(path) and os.path.splitext(name)[1].lower() in exts:
                found.append((len(found), os.path.relpath(path, root), 0))
        return found
    labels = {}
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()                               # os.walk visits sub-folders in this list's order
        for name in sorted(files):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and os.path.splitext(name)[1].lower() in exts:
                label = labels.setdefault(folder, len(labels))
                found.append((len(found), os.path.relpath(path, root), label))
    for folder, label in labels.items():
        print(os.path.relpath(folder, root), label)
    return found


def _list_text(items):
    return ''.join('%d\t%s%s\n' % (item[0], ''.join('%f\t' % label for label in item[2:]), item[1])
                   for item in items)


def make_lists(prefix, root, recursive=False, exts=('.jpeg', '.jpg', '.png'), chunks=1, train_ratio=1.0,
               test_ratio=0.0, shuffle=True):
    """Write the ``.lst`` file(s) for the images under ``root``; return their paths."""
    items = list_images(root, recursive, exts)
    if shuffle:
        random.Random(100).shuffle(items)         # the generator MXNet seeds globally with 100
    chunk_size = (len(items) + chunks - 1) // chunks
    written = []

    def write(name, part):
        atomic_write_text(name, _list_text(part))
        written.append(name)

    for i in range(chunks):
        chunk = items[i * chunk_size:(i + 1) * chunk_size]
        base = prefix + ('_%d' % i if chunks > 1 else '')
        n_train, n_test = int(chunk_size * train_ratio), int(chunk_size * test_ratio)
        if train_ratio == 1.0:
            write(base + '.lst', chunk)
            continue
        if test_ratio:
            write(base + '_test.lst', chunk[:n_test])
        if train_ratio + test_ratio < 1.0:
            write(base + '_val.lst', chunk[n_test + n_train:])
        write(base + '_train.lst', chunk[n_test:n_test + n_train])
    return written


def read_list(path):
    """``[index, relative path, label, ...]`` for each well-formed line of a ``.lst`` file;
    a bad line is reported (file, line number) and skipped, as MXNet's im2rec does."""
    items = []
    with open(path) as lst:
        for number, line in enumerate(lst, 1):
            fields = [f.strip() for f in line.strip().split('\t')]
            if len(fields) < 3:
                print('%s line %d: expected index, label(s) and path separated by tabs, got %r'
                      % (path, number, line.rstrip('\n')), file=sys.stderr)
                continue
            try:
                items.append([int(fields[0]), fields[-1]] + [float(f) for f in fields[1:-1]])
            except ValueError as err:
                print('%s line %d: %s' % (path, number, err), file=sys.stderr)
    return items


def _center_square(img):
    h, w = img.shape[:2]
    if h > w:
        top = (h - w) // 2
        return img[top:top + w]
    left = (w - h) // 2
    return img[:, left:left + h]


def _resize_shorter(img, size):
    h, w = img.shape[:2]
    if h > w:
        return resize_bilinear(img, size, h * size // w)
    return resize_bilinear(img, w * size // h, size)


def encode_image(item, root, pass_through=False, color=1, center_crop=False, resize=0, quality=95,
                 encoding='.jpg', pack_label=False):
    """The record for one ``.lst`` item (``[index, path, label, ...]``)."""
    label = item[2:] if pack_label and len(item) > 3 else item[2]
    header = recordio.IRHeader(0, label, item[0], 0)
    with open(os.path.join(root, item[1]), 'rb') as f:
        payload = f.read()
    if pass_through:
        return recordio.pack(header, payload)
    img = decode(payload, color, bgr=True)
    if center_crop:
        img = _center_square(img)
    if resize:
        img = _resize_shorter(img, resize)
    return recordio.pack_img(header, img, quality=quality, img_fmt=encoding)


def write_record_file(lst_path, root, **options):
    """``name.lst`` -> ``name.rec`` + ``name.idx`` beside it; return the number of records."""
    base = os.path.splitext(lst_path)[0]
    record = recordio.MXIndexedRecordIO(base + '.idx', base + '.rec', 'w')
    count = 0
    try:
        for item in read_list(lst_path):
            try:
                s = encode_image(item, root, **options)
            except (OSError, MXNetError) as err:
                print('skipping %s: %s' % (item[1], err), file=sys.stderr)
                continue
            record.write_idx(item[0], s)
            count += 1
    finally:
        record.close()
    return count


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description='Make an image list (--list) or RecordIO files from one, as MXNet\'s im2rec.py')
    parser.add_argument('prefix', help='prefix of the .lst, .rec and .idx files')
    parser.add_argument('root', help='folder holding the images')
    lists = parser.add_argument_group('making image lists')
    lists.add_argument('--list', action='store_true', help='write PREFIX.lst instead of .rec files')
    lists.add_argument('--exts', nargs='+', default=['.jpeg', '.jpg', '.png'], help='image file extensions')
    lists.add_argument('--chunks', type=int, default=1, help='number of chunks')
    lists.add_argument('--train-ratio', type=float, default=1.0, help='share of images for training')
    lists.add_argument('--test-ratio', type=float, default=0, help='share of images for testing')
    lists.add_argument('--recursive', action='store_true', help='walk sub-folders, one label per folder')
    lists.add_argument('--no-shuffle', dest='shuffle', action='store_false', help='keep the walking order')
    recs = parser.add_argument_group('making record files')
    recs.add_argument('--pass-through', action='store_true', help='pack the files\' bytes, no re-encoding')
    recs.add_argument('--resize', type=int, default=0, help='resize the shorter side to this size (0: keep)')
    recs.add_argument('--center-crop', action='store_true', help='crop the centre square first')
    recs.add_argument('--quality', type=int, default=95, help='JPEG quality 1-100 or PNG compression 0-9')
    recs.add_argument('--num-thread', type=int, default=1,
                      help='accepted for MXNet\'s command lines; reflib encodes in one process')
    recs.add_argument('--color', type=int, default=1, choices=[-1, 0, 1],
                      help='1: color, 0: gray, -1: as stored (alpha kept)')
    recs.add_argument('--encoding', type=str, default='.jpg', choices=['.jpg', '.png'], help='image encoding')
    recs.add_argument('--pack-label', action='store_true', help='pack every label of a line, not the first')
    args = parser.parse_args(argv)
    args.prefix = os.path.abspath(args.prefix)
    args.root = os.path.abspath(args.root)
    return args


def main(argv=None):
    """The command line: parse ``argv`` (``sys.argv[1:]`` when None) and return an exit code.

    With ``--list`` it writes the ``.lst`` file(s) for the images under ``root``.  Otherwise
    it packs every ``.lst`` file whose path starts with ``prefix`` into a ``.rec`` and
    ``.idx`` file beside it, printing one line per list; it returns 1 (with a message on
    stderr) when there is no such list, else 0.
    """
    args = parse_args(argv)
    if args.list:
        make_lists(args.prefix, args.root, args.recursive, args.exts, args.chunks, args.train_ratio,
                   args.test_ratio, args.shuffle)
        return 0
    folder = args.prefix if os.path.isdir(args.prefix) else os.path.dirname(args.prefix)
    lists = sorted(os.path.join(folder, name) for name in os.listdir(folder)
                   if os.path.join(folder, name).startswith(args.prefix) and name.endswith('.lst')
                   and os.path.isfile(os.path.join(folder, name)))
    if not lists:
        print('no .lst file with prefix %s' % args.prefix, file=sys.stderr)
        return 1
    for lst in lists:
        count = write_record_file(lst, args.root, pass_through=args.pass_through, color=args.color,
                                  center_crop=args.center_crop, resize=args.resize, quality=args.quality,
                                  encoding=args.encoding, pack_label=args.pack_label)
        shown = os.path.relpath(lst)                # short when under the working folder
        shown = lst if shown.startswith(os.pardir) else shown
        print('%s: %d images -> %s.rec' % (shown, count, os.path.splitext(shown)[0]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
