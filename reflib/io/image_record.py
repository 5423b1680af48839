"""``ImageRecordIter``: batches of images from a RecordIO file (``.rec``), as MXNet 1.9.1 makes them.

Each record is an image record (``mx.recordio.pack_img``: a header with the label(s), then
a PNG or JPEG).  What happens to one image (resize, pad, crop, mirror, normalisation) is in
image_augment.py.  Facts checked against MXNet 1.9.1 (tests/test_image_record_iter.py):

* data is ``(batch,) + data_shape`` in RGB order (``data_shape[0]`` 3; 1 decodes to gray,
  4 needs images with alpha, given as RGBA), float32 by default, or ``dtype`` uint8/int8;
  the label is float32 ``(batch,)``, or ``(batch, label_width)``; ``getindex()`` is zeros;
* records come in file order; ``num_parts``/``part_index`` without ``path_imgidx`` split the
  file's *bytes* into equal parts (rounded up to 4) and keep the records that start in part
  ``i``; with ``path_imgidx`` they keep records ``[i * step, (i + 1) * step)``,
  ``step = ceil(n / num_parts)``;
* ``shuffle`` draws a new permutation of the part every time the file is rewound (when made,
  on ``reset()``, and when ``round_batch`` wraps), all from one ``std::mt19937(seed + 111)``:
  reflib's order is MXNet's exactly (std_shuffle.py);
* ``round_batch=True`` (the default) completes the last batch from the file's start (from a
  fresh permutation with ``shuffle``), ``pad`` counts the borrowed images, and the next epoch
  goes on after them instead of rewinding (so it is shorter); MXNet sets ``pad`` only on
  such a batch, and a full batch after one may report a stale pad (timing-dependent; always
  with ``ctx='cpu'``): reflib's full batches have pad 0;
* ``round_batch=False``: MXNet reports ``pad`` 0 for the short last batch (not the number of
  filler rows) and leaves whatever its buffer held in the filler rows; reflib reports 0 too
  and fills them with the previous batch's rows (zeros in the first);
* random augmentations (``rand_crop``, ``rand_mirror``) draw from MXNet's engine for its
  first preprocessing thread (``mt19937(111)``, whatever ``seed`` is: MXNet seeds them with
  ``seed_aug``, which reflib refuses), image after image in file order (the part is decoded
  whole before it is shuffled), so they are MXNet's exactly; MXNet 1.9.1 with
  ``preprocess_threads=4`` gave the same images as with 1 (tested on 12 records).  reflib's
  threads decode, but the random draws stay in the calling thread, in file order;
* PNG decodes as MXNet's OpenCV does, bit for bit (gray from color with libpng's weights);
  JPEG was identical on the records tested (Pillow and OpenCV both use libjpeg), but other
  JPEG decoders can differ by a grey level or two.

Not implemented, and refused with an error naming the parameter: the other random
augmentations (rotation, shear, aspect ratio, scale, colour jitter, ...), ``seed_aug``,
``mean_img``, ``path_imglist``, ``aug_seq``, ``inter_method`` other than 1 (bilinear).
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..base import MXNetError
from ..image_codec import decode
from ..recordio import MXRecordIO, unpack
from .image_augment import AugmentParams, CppRandom, check_channels, draw, finish, prepare
from .loader import FileIter, check_dtype, parse_bool, parse_int, parse_shape
from .std_shuffle import Words, shuffle_in_place

__all__ = ['ImageRecordIter', 'ImageRecordUInt8Iter', 'ImageRecordInt8Iter', 'read_records']

_RAND_MAGIC = 111      # MXNet adds it to seeds

# parameters reflib does not implement, with the value that means "off" in MXNet
_REFUSED = {'random_resized_crop': False, 'max_rotate_angle': 0, 'max_aspect_ratio': 0.0,
            'min_aspect_ratio': None, 'max_shear_ratio': 0.0, 'max_crop_size': -1, 'min_crop_size': -1,
            'max_random_scale': 1.0, 'min_random_scale': 1.0, 'max_random_area': 1.0, 'min_random_area': 1.0,
            'max_img_size': 1e10, 'min_img_size': 0.0, 'brightness': 0.0, 'contrast': 0.0, 'saturation': 0.0,
            'pca_noise': 0.0, 'random_h': 0, 'random_s': 0, 'random_l': 0, 'rotate': -1,
            'max_random_contrast': 0.0, 'max_random_illumination': 0.0, 'seed_aug': None, 'mean_img': '',
            'path_imglist': '', 'aug_seq': 'aug_default', 'shuffle_chunk_size': 0}
# accepted and without effect here
_IGNORED = ('verbose', 'prefetch_buffer', 'ctx', 'device_id', 'shuffle_chunk_seed')


def _is_off(name, value):
    off = _REFUSED[name]
    if off is None or isinstance(off, str):
        return value is None or str(value) in ('', 'None', str(off))
    try:
        return float(value) == float(off)
    except (TypeError, ValueError):
        return parse_bool('ImageRecordIter', name, value) == bool(off)


def read_records(path, owner='ImageRecordIter'):
    """``[(byte offset, record bytes)]`` of every record of the RecordIO file ``path``."""
    if not path:
        raise MXNetError('%s: path_imgrec is required (the .rec file to read)' % owner)
    if os.path.isdir(path):
        raise MXNetError('%s: path_imgrec %r is a directory; reflib reads one .rec file' % (owner, path))
    if not os.path.isfile(path):
        raise MXNetError('%s: path_imgrec %r: no such file' % (owner, path))
    reader = MXRecordIO(path, 'r')
    try:
        out = []
        while True:
            offset = reader._file.tell()      # where the record starts: num_parts splits by it
            record = reader.read()
            if record is None:
                return out
            out.append((offset, record))
    finally:
        reader.close()


def _split_bytes(records, size, part, parts, owner='ImageRecordIter'):
    """dmlc's byte split: the records starting in ``[part * step, (part + 1) * step)``."""
    step = (size + parts - 1) // parts
    step = (step + 3) // 4 * 4
    begin, end = min(step * part, size), min(step * (part + 1), size)
    kept = [r for r in records if begin <= r[0] < end]
    if records and not kept:
        raise MXNetError('%s: part_index %d of num_parts %d holds no image: no record starts in '
                         'its bytes %d..%d of the %d-byte file' % (owner, part, parts, begin, end, size))
    return kept


def _split_index(records, idx_path, part, parts, owner='ImageRecordIter'):
    """dmlc's indexed split: records ``[part * step, (part + 1) * step)`` in file order."""
    try:
        with open(idx_path) as f:
            lines = [line.split('\t') for line in f.read().splitlines() if line.strip()]
        offsets = sorted({int(fields[1]) for fields in lines})
    except OSError as err:
        raise MXNetError('%s: path_imgidx %r: %s' % (owner, idx_path, err.strerror or err)) from None
    except (ValueError, IndexError):
        raise MXNetError('%s: path_imgidx %r is not an index file ("key<TAB>offset" lines)'
                         % (owner, idx_path)) from None
    by_offset = dict(records)
    missing = [o for o in offsets if o not in by_offset]
    if missing:
        raise MXNetError('%s: path_imgidx %r names byte offset %d, where no record of the .rec file starts '
                         '(is the index for another file?)' % (owner, idx_path, missing[0]))
    step = (len(offsets) + parts - 1) // parts
    if part * step >= len(offsets):
        raise MXNetError('%s: part_index %d of num_parts %d holds no image: the index lists %d records, %d '
                         'per part (MXNet misbehaves here)' % (owner, part, parts, len(offsets), step))
    return [(o, by_offset[o]) for o in offsets[part * step:(part + 1) * step]]


# A record file's images are decoded by a pool of preprocess_threads threads (Pillow's
# decoder and numpy's resize release the GIL) when the records are big enough for that to
# pay: on small ones the per-image Python work holds the GIL and threads only add
# switching.  Images/s with a pool of 2 threads against none, JPEG records on the 2-vCPU
# machine (bench/README.md): 32x32 (1.1 kB) 0.78x, 64x64 (2.3 kB) 0.9-1.0x, 96x96 (4.2 kB)
# 1.15x, 128x128 (6.8 kB) 1.3x, 224x224 (19 kB) 1.4-1.5x.
_POOL_MIN_RECORD_BYTES = 3000
_POOL_CHUNK = 16            # images per task: fewer hand-offs between threads


def _decoding_pool(threads, samples):
    """A thread pool for the part's records, or None where one thread is as fast."""
    threads = min(threads, os.cpu_count() or 1)
    if threads < 2 or not samples:
        return None
    if sum(len(record) for _, record in samples) < _POOL_MIN_RECORD_BYTES * len(samples):
        return None
    return ThreadPoolExecutor(threads, thread_name_prefix='ImageRecordIter')


def _run(pool, work, items):
    """``[work(item) for item in items]``, in chunks on ``pool`` when there is one."""
    if pool is None or len(items) <= _POOL_CHUNK:
        return [work(item) for item in items]
    chunks = [items[i:i + _POOL_CHUNK] for i in range(0, len(items), _POOL_CHUNK)]
    done = pool.map(lambda chunk: [work(item) for item in chunk], chunks)
    return [result for chunk in done for result in chunk]


class _Part:
    """The part's images in the order MXNet hands them out.

    MXNet reads the part as one chunk (checked up to a 2.2 MB file of 6000 records) and
    decodes and augments all its images, in file order, before the first one is used; with
    ``shuffle`` it then permutes them (libstdc++'s ``std::shuffle``, one ``mt19937(seed +
    111)`` running across epochs).  ``rewind`` asks for a fresh chunk, which is read when
    the next image is needed.  Without random augmentation the order of decoding changes
    nothing, and reflib decodes the images a block at a time, just before they are used;
    with it, reflib holds the part's output arrays in memory, as MXNet does.
    ``load_many(samples)`` turns a list of records into their ``(output, label)`` pairs.
    """

    BLOCK = 64      # images decoded together when lazy: enough to keep a thread pool busy

    def __init__(self, samples, shuffle, seed, load_many, eager):
        self.samples, self.load_many, self.eager = samples, load_many, eager
        self.words = Words(seed + _RAND_MAGIC) if shuffle else None
        self.order, self.loaded, self.pos = None, None, None

    def rewind(self):
        self.pos, self.loaded = None, None

    def _read_chunk(self):
        self.order = list(range(len(self.samples)))
        self.loaded = dict(enumerate(self.load_many(self.samples))) if self.eager else {}
        if self.words is not None:
            shuffle_in_place(self.order, self.words)
        self.pos = 0

    def next(self):
        """(C x H x W output, label) of the next image, or None at the end of the part."""
        if self.pos is None:
            self._read_chunk()
        if self.pos >= len(self.samples):
            return None
        i = self.order[self.pos]
        if i not in self.loaded:      # lazy: the next block, in the order it will be used
            block = self.order[self.pos:self.pos + self.BLOCK]
            self.loaded = dict(zip(block, self.load_many([self.samples[k] for k in block])))
        self.pos += 1
        return self.loaded[i] if self.eager else self.loaded.pop(i)


class ImageRecordIter(FileIter):
    """Decodes, augments and batches the image records of a RecordIO file.

    Each record of ``path_imgrec`` holds a label header and a PNG or JPEG (as written by
    ``mx.recordio.pack_img`` or ``python -m reflib.tools.im2rec``).  Every image goes
    through the steps of image_augment.py (resize, pad, grow, crop, mirror, normalise) and
    comes out as one ``data_shape`` slice of the batch.  Keyword arguments only, as in
    MXNet; strings such as ``'(3,28,28)'`` or ``'1'`` are read as MXNet reads them.

    :param path_imgrec: the ``.rec`` file (required).
    :param data_shape: ``(channels, height, width)`` of one image in the batch; channels 3
        gives RGB, 1 gray, 4 RGBA (records stored with alpha).
    :param batch_size: images per batch.
    :param path_imgidx: the ``.idx`` file written beside the ``.rec``; with it, ``num_parts``
        splits by record count instead of by bytes.
    :param num_parts: into how many parts the file is split (one per distributed worker).
    :param part_index: which part this iterator reads, ``0 <= part_index < num_parts``.
    :param label_width: labels per record; above 1, records must carry that many labels and
        the label batch is ``(batch_size, label_width)``.
    :param shuffle: a new permutation of the part each time the file is rewound.
    :param seed: seeds the shuffle (``std::mt19937(seed + 111)``, as MXNet).
    :param round_batch: complete the last batch from the file's start and report the
        borrowed images in ``pad`` (the next epoch then begins after them); with False
        the last batch is short, its extra rows stale, and ``pad`` is 0, as MXNet reports.
    :param dtype: ``'float32'`` (the default), ``'uint8'`` (raw pixels) or ``'int8'``
        (``pixel - round(mean)``, saturated).
    :param resize: if positive, the shorter side is resized to this many pixels first.
    :param pad: pixels of ``fill_value`` added on every side after the resize.
    :param fill_value: the padding's grey level, 0..255.
    :param rand_crop: crop ``data_shape`` at a random position instead of the centre.
    :param rand_mirror: flip each image left-right with probability 1/2.
    :param mirror: flip every image left-right.
    :param inter_method: 1 (bilinear), the only interpolation implemented.
    :param mean_r: subtracted from the red (or gray) channel; ``mean_g``, ``mean_b`` and
        ``mean_a`` likewise for the others.
    :param std_r: the red channel is divided by it after the mean is subtracted; likewise
        ``std_g``, ``std_b``, ``std_a``.
    :param scale: every float32 value is multiplied by it last: ``(pixel - mean) * (scale
        / std)``; ``scale=1/255`` maps pixels to [0, 1].
    :param preprocess_threads: threads that decode images (4), at most one per core, and
        only for records of 3 kB or more: on smaller ones Python's per-image work dominates
        and threads only slow it down.  Random draws stay in order, so the batches are the
        same bit for bit whatever the count.
    :param data_name: the name in ``provide_data``, ``'data'``.
    :param label_name: the name in ``provide_label``, ``'softmax_label'``.
    :param kwargs: MXNet's other threading and device options (``prefetch_buffer``,
        ``ctx``, ``verbose``, ...) are accepted and change nothing; the augmentations reflib
        lacks (``max_rotate_angle``, ``brightness``, ...) raise MXNetError naming the
        parameter when set to anything but off; other names are ignored with a warning on
        the ``reflib.io`` logger.
    :raises MXNetError: on a missing file, a bad parameter, or a record that cannot be
        decoded, naming the file, the record's id and its byte offset.

    Three 4x4 gray images, two to a batch; ``scale=0.5`` halves the pixel values, and
    the last batch borrows the first image again (``pad`` 1):

    >>> img = np.arange(16, dtype=np.uint8).reshape(4, 4)
    >>> rec = mx.recordio.MXRecordIO('three.rec', 'w')
    >>> for i in range(3):
    ...     header = mx.recordio.IRHeader(0, 10 + i, i, 0)
    ...     rec.write(mx.recordio.pack_img(header, img + i, img_fmt='.png'))
    >>> rec.close()
    >>> it = mx.io.ImageRecordIter(path_imgrec='three.rec', batch_size=2,
    ...                            data_shape=(1, 4, 4), scale=0.5)
    >>> it.provide_data[0].shape, it.provide_label[0].shape
    ((2, 1, 4, 4), (2,))
    >>> for batch in it:
    ...     pixels = batch.data[0].asnumpy()[:, 0, 0, 1]
    ...     print(batch.label[0].asnumpy(), pixels, batch.pad)
    [10. 11.] [0.5 1. ] 0
    [12. 10.] [1.5 0.5] 1
    """
    _forced_dtype = None        # the deprecated fixed-type variants below ignore dtype, as MXNet's do

    def __init__(self, *, data_shape, batch_size, path_imgrec='', path_imgidx='', label_width=1,
                 shuffle=False, seed=0, num_parts=1, part_index=0, round_batch=True, dtype=None,
                 resize=-1, rand_crop=False, rand_mirror=False, mirror=False, pad=0, fill_value=255,
                 inter_method=1, mean_r=0.0, mean_g=0.0, mean_b=0.0, mean_a=0.0, std_r=1.0, std_g=1.0,
                 std_b=1.0, std_a=1.0, scale=1.0, preprocess_threads=4, data_name='data',
                 label_name='softmax_label', **kwargs):
        owner = self._name
        for name in _REFUSED:
            if name in kwargs and not _is_off(name, kwargs[name]):
                raise MXNetError('%s: %s=%r is not implemented in reflib (the random augmentations it has are '
                                 'rand_crop and rand_mirror; mean_img, path_imglist and aug_seq are not read)'
                                 % (owner, name, kwargs[name]))
        self.warn_unknown({k: v for k, v in kwargs.items() if k not in _REFUSED and k not in _IGNORED})
        shape = parse_shape(owner, 'data_shape', data_shape)
        if len(shape) != 3:
            raise MXNetError('%s: data_shape must be (channels, height, width), got %r' % (owner, data_shape))
        if shape[0] not in (1, 3, 4):
            raise MXNetError('%s: data_shape %r has %d channels; MXNet makes 1 (gray), 3 (RGB) or 4 (RGBA)'
                             % (owner, shape, shape[0]))
        batch_size = parse_int(owner, 'batch_size', batch_size, minimum=1)
        self._label_width = parse_int(owner, 'label_width', label_width, minimum=1)
        num_parts = parse_int(owner, 'num_parts', num_parts, minimum=1)
        part_index = parse_int(owner, 'part_index', part_index, minimum=0)
        if part_index >= num_parts:
            raise MXNetError('%s: part_index must be below num_parts (%d), got %d' % (owner, num_parts, part_index))
        if parse_int(owner, 'inter_method', inter_method) != 1:
            raise MXNetError('%s: inter_method=%r is not implemented in reflib; only 1 (bilinear, the default)'
                             % (owner, inter_method))
        fill_value = parse_int(owner, 'fill_value', fill_value)
        if not 0 <= fill_value <= 255:
            raise MXNetError('%s: fill_value must be a pixel value 0..255, got %d' % (owner, fill_value))
        floats = {}
        for name, value in (('mean_r', mean_r), ('mean_g', mean_g), ('mean_b', mean_b), ('mean_a', mean_a),
                            ('std_r', std_r), ('std_g', std_g), ('std_b', std_b), ('std_a', std_a),
                            ('scale', scale)):
            try:
                floats[name] = float(value)
            except (TypeError, ValueError):
                raise MXNetError('%s: %s must be a number, got %r' % (owner, name, value)) from None
        dtype = check_dtype(owner, self._forced_dtype or dtype, ('float32', 'uint8', 'int8'))
        self._params = AugmentParams(
            shape, resize=parse_int(owner, 'resize', resize), pad=parse_int(owner, 'pad', pad, minimum=0),
            fill_value=fill_value, rand_crop=parse_bool(owner, 'rand_crop', rand_crop),
            mirror=parse_bool(owner, 'mirror', mirror), rand_mirror=parse_bool(owner, 'rand_mirror', rand_mirror),
            mean=tuple(floats['mean_' + c] for c in 'rgba'), std=tuple(floats['std_' + c] for c in 'rgba'),
            scale=floats['scale'], dtype=dtype)
        self._round_batch = parse_bool(owner, 'round_batch', round_batch)
        self._batch = batch_size
        path_imgrec = os.fspath(path_imgrec)
        records = read_records(path_imgrec, owner)
        if path_imgidx:
            part = _split_index(records, os.fspath(path_imgidx), part_index, num_parts, owner)
        else:
            part = _split_bytes(records, os.path.getsize(path_imgrec), part_index, num_parts, owner)
        self._engine = CppRandom((0 + 1) * _RAND_MAGIC)     # the first preprocessing thread's
        self._randomised = self._params.rand_crop or self._params.rand_mirror
        self._pool = _decoding_pool(parse_int(owner, 'preprocess_threads', preprocess_threads, minimum=1), part)
        self._source = _Part(part, parse_bool(owner, 'shuffle', shuffle), parse_int(owner, 'seed', seed),
                             self._load_many, eager=self._randomised)
        self._path = path_imgrec
        self._overflow = False
        self._data = np.zeros((batch_size,) + shape, dtype)
        label_shape = (batch_size,) if self._label_width == 1 else (batch_size, self._label_width)
        self._label = np.zeros(label_shape, np.float32)
        super().__init__(data_name, label_name)

    # images ------------------------------------------------------------------------------
    def _decode(self, offset, record):
        """One record -> (H x W x C uint8 image, label(s)); touches no shared state."""
        try:
            header, payload = unpack(record)
        except MXNetError as err:
            raise MXNetError('%s: %r, record at byte %d: %s' % (self._name, self._path, offset, err)) from None
        if header.flag > 0:
            if header.flag != self._label_width:
                raise MXNetError('%s: %r: the record with id %d has %d labels, label_width is %d'
                                 % (self._name, self._path, header.id, header.flag, self._label_width))
            label = np.asarray(header.label, np.float32)
        else:
            if self._label_width != 1:
                raise MXNetError('%s: %r: the record with id %d has one label, label_width is %d (MXNet '
                                 'needs records packed with label_width labels)'
                                 % (self._name, self._path, header.id, self._label_width))
            label = np.float32(header.label)
        channels = self._params.channels
        try:
            img = decode(payload, {1: 0, 3: 1, 4: -1}[channels])
        except MXNetError as err:
            raise MXNetError('%s: %r: the record with id %d at byte %d: %s'
                             % (self._name, self._path, header.id, offset, err)) from None
        img = img[:, :, None] if img.ndim == 2 else img
        check_channels(img, channels, header.id)
        return img, label

    def _load_many(self, samples):
        """``[(output, label)]`` of ``samples`` (``(offset, record)`` pairs), in their order.

        The pool (if any) decodes and resizes, the draws are made here, image after image as
        MXNet makes them, and the pool crops and converts.  Without random augmentation the
        draws take nothing from the engine, and the order of decoding changes nothing."""
        params = self._params
        engine = self._engine if self._randomised else None

        def decode_and_prepare(sample):
            img, label = self._decode(*sample)
            return prepare(img, params), label

        def crop_and_convert(item):
            (img, label), crop_at = item
            return finish(img, crop_at, params), label

        prepared = _run(self._pool, decode_and_prepare, samples)
        crops = [draw(img.shape, params, engine) for img, _ in prepared]
        return _run(self._pool, crop_and_convert, list(zip(prepared, crops)))

    # the FileIter protocol ---------------------------------------------------------------
    def _before_first(self):
        if not self._round_batch or not self._overflow:
            self._source.rewind()
        else:
            self._overflow = False    # the images borrowed by the last batch are this epoch's first

    def _read_batch(self):
        if self._overflow:
            return None               # the epoch ended with borrowed images; reset() first
        top, pad = 0, 0
        while top < self._batch:
            image = self._source.next()
            if image is None:
                if top == 0:
                    return None
                if not self._round_batch:
                    break             # MXNet's pad stays 0; the rows after top keep old values
                if self._overflow:
                    raise MXNetError('%s: batch_size %d is more than twice the %d images of %r (of this part): '
                                     'round_batch=True cannot fill a batch' % (self._name, self._batch,
                                                                               len(self._source.samples), self._path))
                self._overflow = True
                pad = self._batch - top
                self._source.rewind()
                continue
            self._data[top], self._label[top] = image
            top += 1
        return self._data.copy(), self._label.copy(), pad, np.zeros(self._batch, np.uint64)


class ImageRecordUInt8Iter(ImageRecordIter):
    """:class:`ImageRecordIter` with uint8 data (the raw pixels) whatever ``dtype`` says.

    MXNet keeps this name for old scripts; new ones pass ``dtype='uint8'`` instead.
    """
    _forced_dtype = 'uint8'


class ImageRecordInt8Iter(ImageRecordIter):
    """:class:`ImageRecordIter` with int8 data (``pixel - round(mean)``) whatever ``dtype`` says.

    MXNet keeps this name for old scripts; new ones pass ``dtype='int8'`` instead.
    """
    _forced_dtype = 'int8'
