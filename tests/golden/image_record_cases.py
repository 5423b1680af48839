"""The images, records and ImageRecordIter settings shared by gen_recordio.py (MXNet side)
and tests/test_image_record_iter.py (reflib side)."""

import numpy as np

# (height, width) of the images packed into imgrec.rec; some smaller than 8 x 8 or 10 x 10
SIZES = [(10, 12), (8, 8), (12, 9), (9, 14), (11, 11), (16, 10), (8, 13), (13, 8), (9, 9), (14, 15), (8, 10),
         (12, 12)]


def images():
    """The RGB images (uint8, H x W x 3): smooth gradients plus noise, so that resizing shows."""
    rng = np.random.RandomState(12)
    out = []
    for h, w in SIZES:
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([yy * 255 // h, xx * 255 // w, (yy + xx) * 127 // (h + w)], axis=-1)
        out.append(np.clip(base + rng.randint(-10, 11, (h, w, 3)), 0, 255).astype(np.uint8))
    return out


def labels(i):
    """The label(s) of image i: one label in imgrec.rec, two in imgrec_multi.rec."""
    return float(i), [float(i), float(i) / 2]


# ImageRecordIter settings whose batches MXNet 1.9.1 recorded (labels and pads of 4 epochs,
# the data of the first)
CASES = {
    'plain': dict(data_shape=(3, 8, 8), batch_size=5),
    'batch4': dict(data_shape=(3, 8, 8), batch_size=4),
    'batch13': dict(data_shape=(3, 8, 8), batch_size=13),
    'batch24': dict(data_shape=(3, 8, 8), batch_size=24),
    'resize': dict(data_shape=(3, 8, 8), batch_size=5, resize=9),
    'resize_up': dict(data_shape=(3, 8, 8), batch_size=5, resize=17),
    'small': dict(data_shape=(3, 10, 10), batch_size=5),
    'norm': dict(data_shape=(3, 8, 8), batch_size=5, mean_r=100, mean_g=110, mean_b=120, std_r=50, std_g=60,
                 std_b=70, scale=0.5),
    'gray': dict(data_shape=(1, 8, 8), batch_size=5),
    'mirror': dict(data_shape=(3, 8, 8), batch_size=5, mirror=True),
    'uint8': dict(data_shape=(3, 8, 8), batch_size=5, dtype='uint8'),
    'names': dict(data_shape=(3, 8, 8), batch_size=5, data_name='img', label_name='lbl'),
    'multi': dict(data_shape=(3, 8, 8), batch_size=5, label_width=2, multi=True),
    'part0of3': dict(data_shape=(3, 8, 8), batch_size=3, num_parts=3, part_index=0),
    'part1of3': dict(data_shape=(3, 8, 8), batch_size=3, num_parts=3, part_index=1),
    'part2of3': dict(data_shape=(3, 8, 8), batch_size=3, num_parts=3, part_index=2),
    'part1of5': dict(data_shape=(3, 8, 8), batch_size=2, num_parts=5, part_index=1),
    'idx_part1of3': dict(data_shape=(3, 8, 8), batch_size=3, num_parts=3, part_index=1, idx=True),
    'idx_part2of5': dict(data_shape=(3, 8, 8), batch_size=2, num_parts=5, part_index=2, idx=True),
    'no_round': dict(data_shape=(3, 8, 8), batch_size=5, round_batch=False),
}

# the cases whose pixels are recorded (the others differ from these only in which images come
# when, which the labels, unique per image, show); 'norm' only its first batch
DATA_CASES = ('plain', 'resize', 'resize_up', 'small', 'norm', 'gray', 'mirror', 'uint8', 'no_round')


def iter_kwargs(case, folder):
    """ImageRecordIter keyword arguments of a case, its files in ``folder``."""
    import os
    kwargs = {k: v for k, v in case.items() if k not in ('multi', 'idx', 'rgba')}
    name = 'imgrec_multi' if case.get('multi') else 'imgrec_rgba' if case.get('rgba') else 'imgrec'
    kwargs['path_imgrec'] = os.path.join(folder, name + '.rec')
    if case.get('idx'):
        kwargs['path_imgidx'] = os.path.join(folder, name + '.idx')
    kwargs.setdefault('preprocess_threads', 1)
    return kwargs


# raw records (the byte-level format): empty, unaligned lengths, the magic number inside
MAGIC = b'\x0a\x23\xd7\xce'
RAW_RECORDS = [b'', b'a', b'abcd', b'abcde', MAGIC, b'xy' + MAGIC, b'abcd' + MAGIC + b'efgh',
               b'abcd' + MAGIC + MAGIC + b'ef', b'abcd' + MAGIC, MAGIC + b'12' + MAGIC,
               bytes(range(256)) * 3]
RAW_KEYS = [3, 1, 4, 15, 9, 2, 6, 5, 35, 8, 97]


# settings with shuffle or random augmentation (gen_image_record_iter.py): the labels and pads
# of 4 epochs, and for those in RANDOM_DATA_CASES the data of all 4 as uint8 (whole numbers: float32
# without normalisation draws two more random numbers per image than uint8)
RANDOM_CASES = {
    'shuffle': dict(data_shape=(3, 8, 8), batch_size=4, shuffle=True),
    'shuffle_seed1_batch5': dict(data_shape=(3, 8, 8), batch_size=5, shuffle=True, seed=1),
    'shuffle_idx_part1of2': dict(data_shape=(3, 8, 8), batch_size=4, shuffle=True, num_parts=2, part_index=1,
                                 idx=True),
    'shuffle_part1of3': dict(data_shape=(3, 8, 8), batch_size=2, shuffle=True, seed=7, num_parts=3, part_index=1),
    'rand_mirror': dict(data_shape=(3, 8, 8), batch_size=4, rand_mirror=True, dtype='uint8'),
    'rand_crop': dict(data_shape=(3, 8, 8), batch_size=4, rand_crop=True, dtype='uint8'),
    'rand_crop_mirror_shuffle': dict(data_shape=(3, 7, 9), batch_size=5, rand_crop=True, rand_mirror=True,
                                     shuffle=True, seed=3, resize=10, dtype='uint8'),
    'rand_mirror_float': dict(data_shape=(3, 8, 8), batch_size=4, rand_mirror=True, rand_crop=True),
    'rand_mirror_4threads': dict(data_shape=(3, 8, 8), batch_size=4, rand_mirror=True, dtype='uint8',
                                 preprocess_threads=4),
}
RANDOM_CASES.update({
    # and a few more fixed settings: pad, growth to a larger data_shape, int8, gray normalised
    'pad_fill': dict(data_shape=(3, 10, 10), batch_size=4, pad=1, fill_value=7, dtype='uint8'),
    'resize7_grow': dict(data_shape=(3, 10, 10), batch_size=4, resize=7, dtype='uint8'),
    'grow_9x13': dict(data_shape=(3, 9, 13), batch_size=4, dtype='uint8'),
    'int8_mean': dict(data_shape=(3, 8, 8), batch_size=4, dtype='int8', mean_r=2.5, mean_g=-300, mean_b=-0.5,
                      std_r=3, scale=0.5, mirror=True),
    'gray_norm': dict(data_shape=(1, 8, 8), batch_size=6, mean_r=10, mean_g=20, std_r=3, std_b=5, scale=0.25),
})
RANDOM_DATA_CASES = ('rand_mirror', 'rand_crop', 'rand_crop_mirror_shuffle', 'rand_mirror_float',
                     'rand_mirror_4threads', 'pad_fill', 'resize7_grow', 'grow_9x13', 'int8_mean', 'gray_norm')


def rgba_images():
    """The images with a random alpha channel (uint8, H x W x 4, RGBA), for imgrec_rgba.rec."""
    rng = np.random.RandomState(1)
    return [np.concatenate([img, rng.randint(0, 256, img.shape[:2] + (1,)).astype(np.uint8)], axis=-1)
            for img in images()]


def write_rgba_rec(mx, path):
    """imgrec_rgba.rec: PNG with alpha, label i.  Written with reflib (MXNet's pack_img needs
    OpenCV): ``.venv/bin/python -c "import reflib, image_record_cases as c; c.write_rgba_rec(reflib,
    'tests/golden/recordio/imgrec_rgba.rec')"`` from tests/golden."""
    writer = mx.recordio.MXRecordIO(path, 'w')
    for i, img in enumerate(rgba_images()):
        bgra = np.ascontiguousarray(img[..., [2, 1, 0, 3]])
        writer.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i), i, 0), bgra, img_fmt='.png'))
    writer.close()


# RGBA settings, over imgrec_rgba.rec (gen_image_record_iter.py records them too)
RGBA_CASES = {
    'rgba_pad': dict(data_shape=(4, 8, 8), batch_size=4, pad=2, fill_value=7, dtype='uint8', rgba=True),
    'rgba_norm': dict(data_shape=(4, 8, 8), batch_size=4, mean_a=20, std_a=3, mean_r=5, scale=2.0, rgba=True),
}
