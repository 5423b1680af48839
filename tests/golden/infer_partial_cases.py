"""Partial shape inference as MXNet 1.9.1 reports it, operator by operator: the same graphs
under MXNet (gen_infer_partial.py records infer_partial.json) and under reflib
(test_infer_partial.py).  Shapes are lists; 'error' where the library raises.

Where MXNet 1.9.1 raises on a partly known shape that fits (a batch of 0, "not known yet",
against a known one), reflib infers instead: LENIENT names those cases.
"""

import warnings

LENIENT = {'SliceChannel: input (0, 0, 5), piece (2, 4, 5)', 'batch_dot: lhs (0, 3, 4), rhs (2, 4, 5)',
           'where: condition (2,), x (0, 3), y (0, 3)'}


def _shapes(result):
    return [[None if s is None else list(s) for s in group] for group in result]


def _try(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return _shapes(fn())
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def run(mx):
    x, w = mx.sym.var('x'), mx.sym.var('w')
    record = {}

    def case(name, sym, **shapes):
        record[name] = _try(lambda: sym.infer_shape_partial(**shapes))

    fc = mx.sym.FullyConnected(x, w, num_hidden=4, no_bias=True)
    case('FullyConnected: weight known', fc, w=(4, 5))
    case('FullyConnected: output known', fc + mx.sym.var('o', shape=(3, 4)), w=(4, 5))
    case('FullyConnected: output and data (0, 5)', fc + mx.sym.var('o', shape=(3, 4)), x=(0, 5))
    for k, s, d, pd in [(3, 2, 2, 1), (3, 1, 2, 1), (5, 1, 1, 2), (3, 1, 3, 0), (2, 1, 1, 0)]:
        conv = mx.sym.Convolution(x, num_filter=8, kernel=(k, k), stride=(s, s), pad=(pd, pd), dilate=(d, d),
                                  name='c')
        case('Convolution: kernel %d stride %d dilate %d pad %d, data (0, 3, 0, 0)' % (k, s, d, pd),
             conv + mx.sym.var('o', shape=(5, 8, 10, 12)), x=(0, 3, 0, 0))
    conv = mx.sym.Convolution(x, num_filter=8, kernel=(3, 3), name='c') + mx.sym.var('o', shape=(5, 8, 10, 12))
    case('Convolution: data unknown', conv)
    case('Convolution: data unknown, weight known', conv, c_weight=(8, 3, 3, 3))
    conv1d = mx.sym.Convolution(x, num_filter=8, kernel=(3,), name='c') + mx.sym.var('o', shape=(5, 8, 10))
    case('Convolution 1-D: data (0, 3, 0)', conv1d, x=(0, 3, 0))
    split = mx.sym.SliceChannel(x, num_outputs=3, axis=1)[1] + mx.sym.var('o', shape=(2, 4, 5))
    case('SliceChannel: input unknown, piece (2, 4, 5)', split)
    case('SliceChannel: input (0, 0, 5), piece (2, 4, 5)', split, x=(0, 0, 5))
    squeezed = mx.sym.SliceChannel(x, num_outputs=3, axis=1, squeeze_axis=True)[1] + mx.sym.var('o', shape=(2, 5))
    case('SliceChannel squeezed: input (0, 3, 0)', squeezed, x=(0, 3, 0))
    case('SliceChannel squeezed: input unknown', squeezed)
    a, b = mx.sym.var('a'), mx.sym.var('b')
    bd = mx.sym.batch_dot(a, b)
    for lhs, rhs in [((0, 3, 4), (0, 0, 5)), ((2, 3, 4), (0, 0, 5)), ((0, 3, 4), (2, 4, 5)), ((0, 3, 0), (0, 4, 5)),
                     ((0, 3, 4), None), ((0, 3, 4), (0, 4, 5))]:
        given = {'a': lhs} if rhs is None else {'a': lhs, 'b': rhs}
        case('batch_dot: lhs %s, rhs %s' % (lhs, rhs), bd, **given)
    case('batch_dot: output known', bd + mx.sym.var('o', shape=(2, 3, 5)), a=(0, 3, 4), b=(0, 4, 5))
    case('batch_dot transpose_b', mx.sym.batch_dot(a, b, transpose_b=True), a=(0, 3, 4), b=(0, 5, 4))
    where = mx.sym.where(mx.sym.var('c'), a, b)
    for c, xs, ys in [((0, 2), (0, 2), (0, 2)), ((0,), (2, 2), (2, 2)), ((2,), (2, 3), (0, 3)),
                      ((2, 3), (0, 3), (0, 3)), (None, (2, 3), (2, 3)), ((2,), (0, 3), (0, 3)),
                      ((2, 3), (2, 3), (2, 3)), ((2,), (2, 3), (2, 3)), ((3,), (2, 3), (2, 3)),
                      ((2, 3), None, (2, 3))]:
        given = {k: v for k, v in (('c', c), ('a', xs), ('b', ys)) if v is not None}
        case('where: condition %s, x %s, y %s' % (c, xs, ys), where, **given)
    case('ones: shape (-1, -1)', mx.sym.ones(shape=(-1, -1)))
    case('ones: shape (0, 3)', mx.sym.ones(shape=(0, 3)))
    case('ones: shape (0, 3) + (2, 3)', mx.sym.ones(shape=(0, 3)) + mx.sym.var('z', shape=(2, 3)))
    return record
