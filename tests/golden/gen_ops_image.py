"""Record what MXNet 1.9.1's image operators (``mx.nd.image.*``, ``_cvimresize``) compute.

    /tmp/mxv/bin/python tests/golden/gen_ops_image.py   ->  tests/golden/ops_image.json

Each case in CASES is a function of the module ``mx`` (mxnet or reflib) returning a
JSON-ready answer; tests/test_op_image.py imports this file and runs the same cases under
reflib.  The input images are made by ``image`` below from their shape, type and a seed
(no random generator), so the JSON holds answers only: small arrays in full, larger ones
(the resize sweep) by the SHA-1 of their bytes with their first values.  A call MXNet
refuses records ``{'error': <class name>}``.

The random operators are recorded where they draw nothing that matters: a factor range of
one value (``random_brightness(x, 1.5, 1.5)``) makes them deterministic.
"""
import hashlib
import json
import os

import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ops_image.json')


def image(shape, dtype='uint8', seed=0):
    """A deterministic image: integers 0..255 in a scrambled order; float types get a
    fraction in [-0.5, 0.5) on top (so that rounding inside the operators shows)."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    values = (i * 7919 + seed * 104729 + (i * i) % 251) % 256
    if np.dtype(dtype).kind == 'f':
        values = values + ((i * 31 + seed * 17) % 97) / 97.0 - 0.5
    return values.reshape(shape).astype(dtype)


def encode(value, mx, digest=False):
    """An NDArray as dtype, shape and values (or, with ``digest``, its bytes' SHA-1 and first
    values); lists and tuples element by element."""
    if isinstance(value, mx.nd.NDArray):
        array = value.asnumpy()
        out = {'dtype': array.dtype.name, 'shape': list(array.shape)}
        if digest:
            out['sha1'] = hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()
            out['head'] = array.ravel()[:8].tolist()
        else:
            out['values'] = array.ravel().tolist()
        return out
    if isinstance(value, (list, tuple)):
        return [encode(v, mx, digest) for v in value]
    return value


def attempt(mx, fn, digest=False):
    """``fn()``'s answer encoded, or the class of what it raised."""
    try:
        out = fn()
        if isinstance(out, mx.nd.NDArray):
            out.wait_to_read()
        return encode(out, mx, digest)
    except Exception as err:   # noqa: BLE001  (recording what MXNet raises)
        return {'error': type(err).__name__}


def nd(mx, shape, dtype='uint8', seed=0):
    return mx.nd.array(image(shape, dtype, seed), dtype=dtype)


def gradient(mx, fn, x, seed=5):
    """(output, gradient of x) of ``fn`` for a deterministic head gradient, by autograd."""
    x = x.astype('float32') if x.dtype != np.float64 else x
    x.attach_grad()
    with mx.autograd.record():
        y = fn(x)
    head = mx.nd.array(image(y.shape, 'float32', seed) / 100.0, dtype=y.dtype)
    y.backward(head)
    return [y, x.grad]


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ------------------------------------------------------------------ to_tensor, normalize
@case
def to_tensor(mx):
    return [attempt(mx, lambda: mx.nd.image.to_tensor(nd(mx, shape, dtype)))
            for shape, dtype in [((4, 5, 3), 'uint8'), ((2, 3, 4, 1), 'float32'), ((3, 2, 2), 'float64'),
                                 ((2, 2, 4), 'uint8'), ((4, 3), 'uint8'), ((1, 2, 3, 4, 3), 'uint8')]]


@case
def to_tensor_gradient(mx):
    # MXNet's gradient copies the head gradient unchanged: its shape does not fit
    return attempt(mx, lambda: gradient(mx, mx.nd.image.to_tensor, nd(mx, (2, 3, 3), 'float32')))


@case
def normalize(mx):
    calls = [((3, 4, 5), 'float32', dict(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))),
             ((2, 3, 2, 3), 'float32', dict(mean=(1, 2, 3), std=(3, 2, 1))),
             ((1, 3, 4), 'float32', dict(mean=0.5, std=0.25)),
             ((3, 2, 2), 'float64', dict(mean=(0.1, 0.2, 0.3), std=(0.7, 0.3, 0.9))),
             ((3, 2, 3), 'uint8', dict(mean=(100, 10, 0), std=(1, 0.5, 3))),
             ((3, 2, 2), 'float32', dict(mean=(0.5,), std=(0,))),
             # refused: MXNet's default mean has 4 entries, 2 or 4 channels, 2-d or 5-d data
             ((3, 2, 2), 'float32', dict()),
             ((3, 2, 2), 'float32', dict(mean=(1, 2), std=1)),
             ((2, 2, 2), 'float32', dict(mean=1, std=1)),
             ((4, 2, 2), 'float32', dict(mean=1, std=1)),
             ((3, 2), 'float32', dict(mean=1, std=1)),
             ((1, 1, 3, 2, 2), 'float32', dict(mean=1, std=1))]
    return [attempt(mx, lambda: mx.nd.image.normalize(nd(mx, shape, dtype), **kw)) for shape, dtype, kw in calls]


@case
def normalize_gradient(mx):
    def fn(kw):
        return lambda x: mx.nd.image.normalize(x, **kw)
    return [attempt(mx, lambda: gradient(mx, fn(kw), nd(mx, shape, dtype)))
            for shape, dtype, kw in [((3, 2, 3), 'float32', dict(mean=(0.1, 0.2, 0.3), std=(0.7, 0.3, 0.9))),
                                     ((2, 1, 2, 2), 'float64', dict(mean=2.0, std=3.0))]]


# ------------------------------------------------------------------ resize
RESIZE_SIZES = [((7, 5), (3, 4)), ((6, 8), (3, 4)), ((9, 6), (3, 2)), ((5, 7), (11, 9)),
                ((13, 10), (7, 4)), ((4, 4), (4, 4)), ((1, 6), (3, 2)), ((6, 6), (12, 3))]


@case
def resize_sweep(mx):
    """Every interpolation, type and a range of sizes: shrinking by whole and other factors,
    enlarging, one direction each way, an unchanged size; 1 to 4 channels."""
    out = []
    for interp in range(6):
        for dtype in ('uint8', 'float32', 'float64'):
            for k, ((h, w), (nw, nh)) in enumerate(RESIZE_SIZES):
                channels = 1 + (k + interp) % 4
                x = nd(mx, (h, w, channels), dtype, seed=k)
                out.append(attempt(mx, lambda: mx.nd.image.resize(x, (nw, nh), False, interp), digest=True))
    return out


@case
def resize_wide(mx):
    """Rows long enough for OpenCV's SIMD code (and its tail), 3 channels."""
    return [attempt(mx, lambda: mx.nd.image.resize(nd(mx, (23, 37, 3), dtype, seed=interp), (29, 17), False, interp),
                    digest=True)
            for interp in range(6) for dtype in ('uint8', 'float32')]


@case
def resize_shapes(mx):
    """The size rules: (w, h), one size, keep_ratio (the shorter side gets the size); a
    batch; and what MXNet refuses."""
    calls = [((7, 5, 3), dict(size=3)), ((7, 5, 3), dict(size=(4, 2))), ((7, 5, 3), dict(size=3, keep_ratio=True)),
             ((5, 7, 3), dict(size=4, keep_ratio=True)), ((6, 4, 1), dict(size=13, keep_ratio=True)),
             ((9, 5, 3), dict(size=6, keep_ratio=True)), ((7, 5, 3), dict(size=(4, 2), keep_ratio=True)),
             ((2, 7, 5, 3), dict(size=(3, 4), interp=0)),
             ((7, 5, 3), dict(size=0)), ((7, 5, 3), dict(size=-1)), ((7, 5, 3), dict(size=(0, 3))),
             ((7, 5, 3), dict(size=(1, 2, 3))), ((7, 15), dict(size=3))]
    return [attempt(mx, lambda: mx.nd.image.resize(nd(mx, shape), **kw)) for shape, kw in calls]


@case
def cvimresize(mx):
    return [attempt(mx, lambda: mx.nd._internal._cvimresize(nd(mx, (6, 9, 3), dtype), w=4, h=5, interp=interp))
            for dtype, interp in [('uint8', 1), ('float32', 2), ('uint8', 3)]]


# ------------------------------------------------------------------ crop, flips
@case
def crop(mx):
    calls = [((5, 4, 3), (1, 2, 2, 3)), ((2, 6, 5, 1), (0, 1, 5, 4)), ((5, 4, 3), (0, 0, 4, 5)),
             ((5, 4, 3), (3, 0, 2, 2)), ((5, 4, 3), (0, 4, 1, 2)), ((5, 4, 3), (0, 0, 0, 2)),
             ((5, 4, 2), (0, 0, 1, 1)), ((5, 4), (0, 0, 1, 1))]
    return [attempt(mx, lambda: mx.nd.image.crop(nd(mx, shape, 'float32'), *box)) for shape, box in calls]


@case
def crop_gradient(mx):
    return [attempt(mx, lambda: gradient(mx, lambda x: mx.nd.image.crop(x, *box), nd(mx, shape, 'float32')))
            for shape, box in [((5, 4, 3), (1, 2, 2, 3)), ((2, 4, 3, 1), (1, 0, 2, 3))]]


@case
def flips(mx):
    out = []
    for name in ('flip_left_right', 'flip_top_bottom'):
        fn = getattr(mx.nd.image, name)
        out += [attempt(mx, lambda: fn(nd(mx, shape, dtype))) for shape, dtype in
                [((3, 4, 3), 'uint8'), ((2, 5, 1), 'float32'), ((1, 3, 4, 3), 'uint8'), ((3, 4, 2), 'uint8'),
                 ((3, 4), 'uint8')]]
    return out


@case
def flip_gradient(mx):
    # MXNet passes the head gradient through unchanged (reflib flips it back)
    return [attempt(mx, lambda: gradient(mx, getattr(mx.nd.image, name), nd(mx, (3, 4, 3), 'float32')))
            for name in ('flip_left_right', 'flip_top_bottom')]


# ------------------------------------------------------------------ colour
FACTORS = [0.0, 0.37, 1.0, 1.5, 0.6666666666666666]
COLOUR_IMAGES = [((4, 5, 3), 'uint8'), ((4, 4, 3), 'float32'), ((3, 4, 1), 'uint8'), ((3, 4, 1), 'float32'),
                 ((2, 3, 3), 'float64')]


@case
def colour(mx):
    """brightness, contrast and saturation with a fixed factor (min = max)."""
    out = []
    for name in ('random_brightness', 'random_contrast', 'random_saturation'):
        fn = getattr(mx.nd.image, name)
        for k, (shape, dtype) in enumerate(COLOUR_IMAGES):
            x = nd(mx, shape, dtype, seed=k)
            out += [attempt(mx, lambda: fn(x, a, a)) for a in FACTORS]
    return out


@case
def hue(mx):
    """random_hue with a fixed factor: RGB images (one channel gives uninitialised memory
    in MXNet, not recorded)."""
    out = []
    for k, (shape, dtype) in enumerate(COLOUR_IMAGES):
        if shape[-1] == 3:
            x = nd(mx, shape, dtype, seed=k)
            out += [attempt(mx, lambda: mx.nd.image.random_hue(x, a, a)) for a in FACTORS + [0.1, 0.93]]
    return out


@case
def hue_greys(mx):
    """Greys have no hue: unchanged whatever the factor."""
    grey = np.repeat(image((4, 4, 1), 'uint8'), 3, axis=2)
    x = mx.nd.array(grey, dtype='uint8')
    return [attempt(mx, lambda: mx.nd.image.random_hue(x, a, a)) for a in (0.3, 0.5)]


@case
def lighting(mx):
    out = []
    for k, (shape, dtype) in enumerate(COLOUR_IMAGES):
        if shape[-1] == 3:
            x = nd(mx, shape, dtype, seed=k)
            out += [attempt(mx, lambda: mx.nd.image.adjust_lighting(x, alpha=alpha))
                    for alpha in [(0.5, -1.2, 2.0), (0.01, 0.02, -0.03)]]
    return out


@case
def colour_errors(mx):
    """What MXNet refuses: 4-d or 2-d images, 2 or 4 channels, negative factors, two
    lighting weights."""
    x4 = nd(mx, (1, 3, 3, 3), 'float32')
    x2c = nd(mx, (3, 3, 2), 'float32')
    x3 = nd(mx, (3, 3, 3), 'float32')
    calls = [lambda: mx.nd.image.random_brightness(x4, 1, 1), lambda: mx.nd.image.random_contrast(x2c, 1, 1),
             lambda: mx.nd.image.random_saturation(nd(mx, (3, 3), 'float32'), 1, 1),
             lambda: mx.nd.image.random_hue(x3, -1, 1), lambda: mx.nd.image.random_brightness(x3, 1, -1),
             lambda: mx.nd.image.adjust_lighting(x3, alpha=(1, 2)),
             lambda: mx.nd.image.random_lighting(x4), lambda: mx.nd.image.random_color_jitter(x2c, 1, 1, 1, 1),
             lambda: mx.nd.image.random_flip_left_right(x4), lambda: mx.nd.image.random_flip_top_bottom(x2c)]
    return [attempt(mx, fn) for fn in calls]


@case
def straight_through_gradients(mx):
    """MXNet's colour operators pass the head gradient through unchanged."""
    x = nd(mx, (3, 4, 3), 'float32')
    fns = [lambda x: mx.nd.image.random_brightness(x, 1.5, 1.5), lambda x: mx.nd.image.random_contrast(x, 0.5, 0.5),
           lambda x: mx.nd.image.random_saturation(x, 0.5, 0.5), lambda x: mx.nd.image.random_hue(x, 0.2, 0.2),
           lambda x: mx.nd.image.adjust_lighting(x, alpha=(0.1, 0.2, 0.3)),
           lambda x: mx.nd.image.random_lighting(x, 0.1),
           lambda x: mx.nd.image.random_color_jitter(x, 0.1, 0.1, 0.1, 0.1)]
    return [attempt(mx, lambda: gradient(mx, fn, x)[1]) for fn in fns]


# ------------------------------------------------------------------ symbols
@case
def symbols(mx):
    """mx.sym.image: node names, and the shapes and types inferred."""
    out = []
    data = mx.sym.var('data')
    calls = [('to_tensor', {}, (4, 5, 3), 'uint8'), ('to_tensor', {}, (2, 4, 5, 1), 'uint8'),
             ('normalize', dict(mean=(1, 2, 3), std=(1, 1, 1)), (3, 4, 5), 'float32'),
             ('resize', dict(size=3, keep_ratio=True), (7, 5, 3), 'uint8'),
             ('resize', dict(size=(4, 2)), (2, 7, 5, 3), 'float32'),
             ('crop', dict(x=1, y=0, width=2, height=3), (5, 4, 3), 'uint8'),
             ('flip_left_right', {}, (5, 4, 3), 'uint8'), ('random_flip_top_bottom', {}, (5, 4, 1), 'float32'),
             ('random_brightness', dict(min_factor=0.5, max_factor=1.5), (5, 4, 3), 'uint8'),
             ('random_color_jitter', dict(brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1), (5, 4, 3), 'uint8'),
             ('random_lighting', dict(alpha_std=0.1), (5, 4, 3), 'float32'),
             ('adjust_lighting', dict(alpha=(1, 2, 3)), (5, 4, 3), 'float32')]
    for name, kw, shape, dtype in calls:
        with mx.name.NameManager():
            sym = getattr(mx.sym.image, name)(data, **kw)
            arg, outs, _ = sym.infer_shape(data=shape)
            _, otypes, _ = sym.infer_type(data=dtype)
            out.append({'name': sym.name, 'outputs': sym.list_outputs(), 'shapes': [list(s) for s in outs],
                        'types': [np.dtype(t).name for t in otypes]})
    return out


@case
def symbol_forward(mx):
    """A small graph through the executor: to_tensor then normalize."""
    data = mx.sym.var('data')
    sym = mx.sym.image.normalize(mx.sym.image.to_tensor(data), mean=(0.5, 0.4, 0.3), std=(0.2, 0.25, 0.3))
    out = sym.eval(ctx=mx.cpu(), data=nd(mx, (4, 3, 3), 'uint8'))[0]
    return encode(out, mx)


def main():
    import mxnet as mx
    answers = {name: fn(mx) for name, fn in CASES.items()}
    with open(GOLDEN, 'w') as f:
        json.dump({'mxnet': mx.__version__, 'cases': answers}, f, separators=(',', ':'))
    print('wrote %s (%d cases, %d bytes)' % (GOLDEN, len(answers), os.path.getsize(GOLDEN)))


if __name__ == '__main__':
    main()
