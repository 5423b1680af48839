"""Record what MXNet 1.9.1's gluon.data.vision.transforms give.

    /tmp/mxv/bin/python tests/golden/gen_gluon_transforms.py   ->  tests/golden/gluon_transforms.json

Each case in CASES is a function of the module ``mx`` (mxnet or reflib) returning a
JSON-ready answer; tests/test_gluon_transforms.py imports this file and runs the same cases
under reflib.  Images come from gen_ops_image's ``image`` (made from shape, type and seed),
so the JSON holds answers only: arrays by dtype, shape, the SHA-1 of their bytes and their
first values (``digest``), or in full where they are small.

Deterministic transforms are recorded as they are.  Of the random ones, those MXNet draws
from Python's ``random`` or numpy's global generator (RandomResizedCrop, RandomApply,
RandomRotation) are recorded after seeding those generators, which reflib uses too; those
drawn inside operators (the flips and colour jitters) only by their shapes and types.
"""
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_ops_image import image, encode as _encode  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gluon_transforms.json')


def encode(value, mx):
    """Small arrays in full, larger ones by digest."""
    if isinstance(value, mx.nd.NDArray):
        return _encode(value, mx, digest=int(np.prod(value.shape)) > 64)
    if isinstance(value, (list, tuple)):
        return [encode(v, mx) for v in value]
    return value


def attempt(mx, fn):
    try:
        return encode(fn(), mx)
    except Exception as err:   # noqa: BLE001  (recording what MXNet raises)
        return {'error': type(err).__name__}


def nd(mx, shape, dtype='uint8', seed=0):
    return mx.nd.array(image(shape, dtype, seed), dtype=dtype)


def T(mx):
    return mx.gluon.data.vision.transforms


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ------------------------------------------------------------------ deterministic
@case
def to_tensor_normalize(mx):
    t = T(mx)
    out = [attempt(mx, lambda: t.ToTensor()(nd(mx, (5, 6, 3)))),
           attempt(mx, lambda: t.ToTensor()(nd(mx, (2, 5, 6, 1)))),
           attempt(mx, lambda: t.ToTensor()(nd(mx, (2, 2, 5, 6, 3)))),
           attempt(mx, lambda: t.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))(
               nd(mx, (3, 5, 6), 'float32') / 255)),
           attempt(mx, lambda: t.Normalize(0.5, 0.25)(nd(mx, (2, 1, 4, 4), 'float32') / 255)),
           attempt(mx, lambda: t.Normalize()(nd(mx, (3, 4, 4), 'float32'))),
           attempt(mx, lambda: t.Normalize(mean=(0, 1, 2), std=(3, 2, 1))(nd(mx, (5, 4, 3, 3), 'float32'))),
           attempt(mx, lambda: t.Cast('float16')(nd(mx, (2, 3, 3)))),
           attempt(mx, lambda: t.Cast()(nd(mx, (2, 3, 3))))]
    return out


@case
def resize(mx):
    t = T(mx)
    calls = [(dict(size=4), (7, 5, 3), 'uint8'), (dict(size=(6, 3)), (7, 5, 3), 'float32'),
             (dict(size=4, keep_ratio=True), (7, 5, 3), 'uint8'), (dict(size=4, keep_ratio=True), (5, 9, 1), 'uint8'),
             (dict(size=(6, 3), keep_ratio=True), (7, 5, 3), 'uint8'), (dict(size=9, interpolation=0), (7, 5, 3), 'uint8'),
             (dict(size=9, interpolation=2), (7, 5, 3), 'float32'), (dict(size=3, interpolation=3), (7, 5, 3), 'uint8'),
             (dict(size=8, interpolation=4), (7, 5, 3), 'float64'), (dict(size=(4, 3)), (2, 7, 5, 3), 'uint8'),
             (dict(size=150, keep_ratio=True), (30, 20, 3), 'uint8'),
             (dict(size=-150, keep_ratio=True), (30, 20, 3), 'uint8'), (dict(size=(10, 10, 10)), (30, 20, 3), 'uint8')]
    return [attempt(mx, lambda: t.Resize(**kw)(nd(mx, shape, dtype))) for kw, shape, dtype in calls]


@case
def crop_resize(mx):
    t = T(mx)
    calls = [((0, 0, 3, 2), {}, (5, 4, 3), 'float32'), ((1, 2, 3, 4), {}, (2, 6, 5, 3), 'uint8'),
             ((0, 0, 10, 5), dict(size=(4, 4), interpolation=1), (30, 20, 3), 'uint8'),
             ((2, 3, 10, 5), dict(size=(4, 6)), (3, 30, 20, 3), 'float64'),
             ((0, 0, 10, 5), dict(size=(-4, 4), interpolation=1), (30, 20, 3), 'uint8'),
             ((0, 0, -10, -5), {}, (30, 20, 3), 'uint8'), ((15, 20, 20, 50), {}, (30, 20, 3), 'uint8')]
    return [attempt(mx, lambda: t.CropResize(*box, **kw)(nd(mx, shape, dtype))) for box, kw, shape, dtype in calls]


@case
def center_crop(mx):
    t = T(mx)
    calls = [((4, 3), 1, (9, 8, 3), 'uint8'), (5, 1, (9, 8, 3), 'float32'), ((12, 4), 2, (9, 8, 3), 'uint8'),
             (10, 1, (6, 7, 3), 'uint8'), ((3, 3), 9, (9, 8, 1), 'uint8'), ((20, 20), 9, (9, 8, 3), 'uint8')]
    return [attempt(mx, lambda: t.CenterCrop(size, interp)(nd(mx, shape, dtype))) for size, interp, shape, dtype in calls]


@case
def rotate(mx):
    t = T(mx)
    x = nd(mx, (3, 5, 7), 'float32') / 255
    spot = mx.nd.array([[[0., 0., 0.], [0., 0., 1.], [0., 0., 0.]]])
    out = [attempt(mx, lambda: t.Rotate(angle)(spot)) for angle in (90., 180., 270., 360.)]
    out += [attempt(mx, lambda: t.Rotate(30.)(x)), attempt(mx, lambda: t.Rotate(-45., zoom_in=True)(x)),
            attempt(mx, lambda: t.Rotate(20., zoom_out=True)(x)),
            attempt(mx, lambda: t.Rotate(15.)(nd(mx, (2, 1, 4, 6), 'float32'))),
            attempt(mx, lambda: t.Rotate(15.)(nd(mx, (3, 4, 6), 'uint8'))),
            attempt(mx, lambda: t.Rotate(15., zoom_in=True, zoom_out=True)(x))]
    return out


@case
def compose(mx):
    """A deterministic pipeline, run twice (the hybridized part's second call reuses its
    graph), and its structure."""
    t = T(mx)
    pipeline = t.Compose([t.Resize(12), t.CenterCrop(8), t.ToTensor(),
                          t.Normalize(mean=(0.5, 0.4, 0.3), std=(0.2, 0.25, 0.3)), t.Cast('float64')])
    x = nd(mx, (10, 14, 3))
    return [attempt(mx, lambda: pipeline(x)), attempt(mx, lambda: pipeline(x)), repr(pipeline),
            [type(b).__name__ for b in pipeline._children.values()]]


# ------------------------------------------------------------------ seeded by Python's and numpy's generators
@case
def random_resized_crop(mx):
    t = T(mx)
    out = []
    for seed, kw in [(0, {}), (1, dict(scale=(0.3, 0.6))), (2, dict(ratio=(0.5, 2.0), interpolation=2)),
                     (3, dict(scale=(0.9, 1.0), ratio=(3.0, 4.0)))]:
        random.seed(seed)
        out.append(attempt(mx, lambda: [t.RandomResizedCrop((6, 5), **kw)(nd(mx, (12, 10, 3), seed=seed))
                                        for _ in range(3)]))
    return out


@case
def random_apply(mx):
    t = T(mx)
    random.seed(4)
    apply = t.RandomApply(t.Compose([t.Resize(3)]), 0.5)
    x = nd(mx, (5, 4, 3))
    return [list(apply(x).shape) for _ in range(20)]


@case
def random_rotation(mx):
    t = T(mx)
    out = []
    np.random.seed(5)
    x = nd(mx, (2, 5, 6), 'float32') / 255
    out.append(attempt(mx, lambda: [t.RandomRotation((-30., 30.))(x) for _ in range(2)]))
    out.append(attempt(mx, lambda: t.RandomRotation((-30., 30.), zoom_out=True)(nd(mx, (2, 2, 5, 6), 'float32'))))
    out.append(attempt(mx, lambda: t.RandomRotation((-100., 100.), rotate_with_proba=0.0)(x)))
    out.append(attempt(mx, lambda: t.RandomRotation((10., -10.))))
    out.append(attempt(mx, lambda: t.RandomRotation((-10., 10.), rotate_with_proba=1.5)))
    return out


@case
def image_helpers(mx):
    """The mx.image functions the transforms use, and their neighbours."""
    x = nd(mx, (9, 12, 3))
    out = [attempt(mx, lambda: mx.image.imresize(x, 5, 4)), attempt(mx, lambda: mx.image.imresize(x, 5, 4, 3)),
           attempt(mx, lambda: mx.image.resize_short(x, 6)), attempt(mx, lambda: mx.image.resize_short(x, 15, 9)),
           list(mx.image.scale_down((640, 480), (720, 120))), list(mx.image.scale_down((10, 8), (4, 20))),
           attempt(mx, lambda: mx.image.fixed_crop(x, 2, 1, 6, 5)),
           attempt(mx, lambda: mx.image.fixed_crop(x, 2, 1, 6, 5, size=(3, 3), interp=9)),
           attempt(mx, lambda: mx.image.color_normalize(nd(mx, (2, 2, 3), 'float32'), mx.nd.array([1, 2, 3]),
                                                        mx.nd.array([2, 4, 8])))]
    random.seed(6)
    for size in [(4, 4), (20, 5)]:
        cropped, box = mx.image.random_crop(x, size)
        out.append([encode(cropped, mx), list(box)])
    random.seed(7)
    cropped, box = mx.image.random_size_crop(x, (5, 5), 0.3, (0.5, 2.0))
    out.append([encode(cropped, mx), list(box)])
    random.seed(8)            # interp 10: each resize picks its interpolation from Python's random
    out.append(attempt(mx, lambda: [mx.image.fixed_crop(x, 0, 0, 6, 5, size=(3, 4), interp=10) for _ in range(5)]))
    return out


# ------------------------------------------------------------------ drawn inside operators: shapes and types
@case
def random_shapes(mx):
    t = T(mx)
    blocks = [t.RandomFlipLeftRight(), t.RandomFlipTopBottom(), t.RandomBrightness(0.3), t.RandomContrast(0.3),
              t.RandomSaturation(0.3), t.RandomHue(0.3), t.RandomColorJitter(0.1, 0.2, 0.3, 0.1),
              t.RandomLighting(0.1)]
    out = []
    for dtype in ('uint8', 'float32'):
        x = nd(mx, (5, 4, 3), dtype)
        for block in blocks:
            y = block(x)
            out.append([type(block).__name__, np.dtype(y.dtype).name, list(y.shape)])
    return out


@case
def random_pipeline(mx):
    """MXNet's own test of every transform together: the shape and type that come out."""
    t = T(mx)
    pipeline = t.Compose([t.Resize(30), t.Resize(30, keep_ratio=True), t.CenterCrop(26), t.RandomResizedCrop(22),
                          t.RandomFlipLeftRight(), t.RandomColorJitter(0.1, 0.1, 0.1, 0.1), t.RandomBrightness(0.1),
                          t.RandomContrast(0.1), t.RandomSaturation(0.1), t.RandomHue(0.1), t.RandomLighting(0.1),
                          t.ToTensor(), t.RandomRotation([-10., 10.]), t.Normalize([0, 0, 0], [1, 1, 1])])
    y = pipeline(mx.nd.ones((25, 48, 3), dtype='uint8'))
    return [np.dtype(y.dtype).name, list(y.shape), [type(b).__name__ for b in pipeline._children.values()]]


# ------------------------------------------------------------------ a data loader
@case
def mnist_loader(mx):
    """MNIST-like samples (28 x 28 x 1 uint8, int labels) through transform_first and a
    DataLoader: every batch."""
    t = T(mx)
    images = image((10, 28, 28, 1), 'uint8', seed=9)
    labels = np.arange(10) % 10
    data = mx.gluon.data.ArrayDataset(mx.nd.array(images, dtype='uint8'), labels)
    transformed = data.transform_first(t.Compose([t.ToTensor(), t.Normalize(0.13, 0.31)]))
    loader = mx.gluon.data.DataLoader(transformed, batch_size=4, shuffle=False, last_batch='keep')
    return [encode(list(batch), mx) for batch in loader]


def main():
    import mxnet as mx
    answers = {name: fn(mx) for name, fn in CASES.items()}
    with open(GOLDEN, 'w') as f:
        json.dump({'mxnet': mx.__version__, 'cases': answers}, f, separators=(',', ':'))
    print('wrote %s (%d cases, %d bytes)' % (GOLDEN, len(answers), os.path.getsize(GOLDEN)))


if __name__ == '__main__':
    main()
