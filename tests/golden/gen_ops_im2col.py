"""Record golden values for reflib's im2col and col2im (reflib/operator/im2col.py) from real MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_im2col.py

It writes tests/golden/ops_im2col.npz in the format of op_cases.py (read by
tests/op_golden.py): for every case its input, forward output, head gradient and input
gradient, and ``meta`` with the case descriptions, ``partial`` (shape inference from a
partly known shape) and ``errors`` (parameters and shapes MXNet refuses, with its message).

MXNet 1.9.1's CPU code runs im2col and col2im for 2-D kernels only (and for 3-D ones whose
last spatial size is 1): a 1-D kernel fails in forward, a 3-D one fails on a shape check.
Those cases (``via`` in their description) are recorded from MXNet by equivalent routes:

* ``2d``: a 1-D case is the 2-D case with a unit height axis (kernel (1, k), stride (1, s),
  ...; the data (N, C, 1, W)): the same columns, in the same order;
* ``convolution``: im2col(x) is a Convolution of x with C*K filters, filter c*K + k
  picking kernel tap k of channel c, its output flattened over the window grid; the data
  gradient of that Convolution for a head gradient g is col2im(g).  (For a 3-D case whose
  last size is 1, which MXNet does run, the script checks that both routes agree.)
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_im2col.npz')

# (operator, params, data shape, how): how is 'native', '2d' or 'convolution'
CASES = [
    # -------------------------------------------------------------------- im2col
    ('im2col', {'kernel': (2, 2)}, (2, 3, 4, 5), 'native'),
    ('im2col', {'kernel': (3, 2), 'stride': (2, 1), 'dilate': (1, 2), 'pad': (1, 1)}, (2, 2, 5, 6), 'native'),
    ('im2col', {'kernel': (3, 3), 'stride': (2, 3), 'dilate': (2, 1), 'pad': (2, 1)}, (1, 2, 5, 4), 'native'),
    ('im2col', {'kernel': (3,), 'stride': (2,), 'dilate': (2,), 'pad': (1,)}, (2, 3, 9), '2d'),
    ('im2col', {'kernel': (2,)}, (1, 2, 5), '2d'),
    ('im2col', {'kernel': (2, 3, 2), 'stride': (1, 2, 1), 'pad': (0, 1, 1)}, (2, 2, 3, 5, 1), 'native'),
    ('im2col', {'kernel': (2, 2, 3), 'stride': (1, 2, 1), 'dilate': (2, 1, 1), 'pad': (1, 0, 1)},
     (2, 2, 4, 3, 4), 'convolution'),
    # -------------------------------------------------------------------- col2im
    ('col2im', {'output_size': (4, 5), 'kernel': (2, 2)}, (2, 12, 12), 'native'),
    ('col2im', {'output_size': (5, 6), 'kernel': (3, 2), 'stride': (2, 1), 'dilate': (1, 2), 'pad': (1, 1)},
     (2, 12, 18), 'native'),
    # a stride that leaves the last row and column unread: zeros there
    ('col2im', {'output_size': (6, 7), 'kernel': (3, 3), 'stride': (2, 3)}, (1, 18, 4), 'native'),
    ('col2im', {'output_size': (9,), 'kernel': (3,), 'stride': (2,), 'dilate': (2,), 'pad': (1,)},
     (2, 9, 4), '2d'),
    # MXNet runs this one (last size 1) but its gradient is wrong there: see check_routes_agree
    ('col2im', {'output_size': (3, 5, 1), 'kernel': (2, 3, 2), 'stride': (1, 2, 1), 'pad': (0, 1, 1)},
     (2, 24, 12), 'convolution'),
    ('col2im', {'output_size': (4, 3, 4), 'kernel': (2, 2, 3), 'stride': (1, 2, 1), 'dilate': (2, 1, 1),
                'pad': (1, 0, 1)}, (2, 24, 16), 'convolution'),
]

# shape inference from a partly known data shape: (operator, params, data shape)
PARTIAL = [
    ('im2col', {'kernel': (3, 3)}, (2, 3, 4, 5)),
    ('im2col', {'kernel': (3, 3)}, (0, 3, 4, 5)),
    ('im2col', {'kernel': (3, 3)}, (2, 3, 0, 5)),
    ('col2im', {'output_size': (4, 5), 'kernel': (3, 3)}, (2, 27, 6)),
    ('col2im', {'output_size': (4, 5), 'kernel': (3, 3)}, (0, 27, 6)),
    ('col2im', {'output_size': (4, 5), 'kernel': (3, 3)}, (2, 0, 6)),
]

# (operator, params, data shape) that MXNet refuses, when the node is made or at shape inference
ERRORS = [
    ('im2col', {'kernel': (2, 2, 2, 2)}, (1, 2, 4, 5, 6, 7)),
    ('im2col', {'kernel': ()}, (1, 2)),
    ('im2col', {'kernel': (2, 2), 'stride': (1,)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (2, 2), 'dilate': (1, 1, 1)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (2, 2), 'pad': (1,)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (0, 2)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (-1, 2)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (2, 2), 'stride': (0, 1)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (2, 2), 'dilate': (0, 1)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (5, 2)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (3, 2), 'dilate': (2, 1)}, (1, 2, 4, 5)),
    ('im2col', {'kernel': (2, 2), 'pad': (1, 0), 'dilate': (5, 1)}, (1, 2, 3, 5)),
    ('im2col', {'kernel': (2, 2)}, (1, 2, 4)),
    ('col2im', {'output_size': (4,), 'kernel': (2, 2)}, (1, 8, 12)),
    ('col2im', {'output_size': (4, 5, 6), 'kernel': (2, 2)}, (1, 8, 12)),
    ('col2im', {'output_size': (0, 5), 'kernel': (2, 2)}, (1, 8, 12)),
    ('col2im', {'output_size': (4, 5), 'kernel': (5, 2)}, (1, 8, 12)),
    ('col2im', {'output_size': (4, 5), 'kernel': (2, 2), 'stride': (1,)}, (1, 8, 12)),
    ('col2im', {'output_size': (4, 5, 1, 1), 'kernel': (2, 2, 2, 2)}, (1, 32, 12)),
    ('col2im', {'output_size': (4, 5), 'kernel': (2, 2)}, (1, 8, 11)),
    ('col2im', {'output_size': (4, 5), 'kernel': (2, 2)}, (1, 7, 12)),
    ('col2im', {'output_size': (4, 5), 'kernel': (2, 2)}, (1, 8)),
]


def window_grid(sizes, params):
    nd = len(params['kernel'])
    stride, dilate, pad = (params.get(k, (d,) * nd) for k, d in (('stride', 1), ('dilate', 1), ('pad', 0)))
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, d, p in zip(sizes, params['kernel'], stride, dilate, pad))


def run(sym, x, head):
    """(output, data gradient) of a one-input symbol for input x and head gradient ``head``."""
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=x.shape)
    exe.arg_dict['data'][:] = x
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward([mx.nd.array(head)])
    return out, exe.grad_dict['data'].asnumpy()


def as_2d(params):
    """A 1-D case's parameters for the same call with a unit height axis in front."""
    two = {'kernel': (1,) + tuple(params['kernel'])}
    for key, fill in (('stride', 1), ('dilate', 1), ('pad', 0)):
        if key in params:
            two[key] = (fill,) + tuple(params[key])
    if 'output_size' in params:
        two['output_size'] = (1,) + tuple(params['output_size'])
    return two


def tap_convolution(data, params, channels):
    """A Convolution of ``data`` (N, C, *spatial) whose filter c*K + k reads kernel tap k of
    channel c alone: its output, flattened over the grid, is im2col's."""
    kernel = tuple(params['kernel'])
    size = int(np.prod(kernel))
    weight = np.zeros((channels * size, channels) + kernel, dtype=np.float32)
    for c in range(channels):
        for k in range(size):
            weight[(c * size + k, c) + np.unravel_index(k, kernel)] = 1
    conv = {key: params[key] for key in ('kernel', 'stride', 'dilate', 'pad') if key in params}
    sym = mx.sym.Convolution(data, mx.sym.Variable('tap_weight'), num_filter=channels * size, no_bias=True, **conv)
    return sym, weight


def run_convolution(params, image, head_cols):
    """(im2col(image), col2im(head_cols)) computed by the tap Convolution; head_cols (N, C*K, W)."""
    channels, spatial = image.shape[1], image.shape[2:]
    grid = window_grid(spatial, params)
    data = mx.sym.Variable('data')
    sym, weight = tap_convolution(data, params, channels)
    exe = sym.simple_bind(mx.cpu(), grad_req={'data': 'write', 'tap_weight': 'null'}, data=image.shape)
    exe.arg_dict['data'][:] = image
    exe.arg_dict['tap_weight'][:] = weight
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward([mx.nd.array(head_cols.reshape(head_cols.shape[:2] + grid))])
    return out.reshape(out.shape[:2] + (-1,)), exe.grad_dict['data'].asnumpy()


def record_case(i, case, rng, arrays):
    """Record case ``i``'s input, output, head and gradient into ``arrays``; its description."""
    name, params, shape, how = case
    x = op_cases.make_input(rng, shape)
    data = mx.sym.Variable('data')
    sym = getattr(mx.sym, name)(data, name='node', **params)
    op, attrs = op_cases.node_attrs(sym)
    out_shape = sym.infer_shape(data=shape)[1][0]
    head = rng.normal(size=out_shape).astype(np.float32)
    if how == 'native':
        out, grad = run(sym, x, head)
    elif how == '2d':
        flat = getattr(mx.sym, name)(data, **as_2d(params))
        if name == 'im2col':
            out, grad = run(flat, x[:, :, None], head)
        else:
            out, grad = run(flat, x, head[:, :, None])
        out, grad = out.reshape(out_shape), grad.reshape(shape)
    elif name == 'im2col':
        out, grad = run_convolution(params, x, head)
    else:
        # col2im(x) is the tap Convolution's data gradient for head x; col2im's gradient for
        # head g is the tap Convolution of g
        grad, out = run_convolution(params, head, x)
    assert out.shape == tuple(out_shape) and grad.shape == tuple(shape), (case, out.shape, grad.shape)
    arrays.update({'c%d_in0' % i: x, 'c%d_out0' % i: out, 'c%d_head0' % i: head, 'c%d_grad0' % i: grad})
    return {'alias': name, 'op': op, 'attrs': attrs, 'n_in': 1, 'n_out': 1, 'grad': True, 'train': True,
            'input_names': ['data'], 'output_names': ['output'], 'via': how}


def check_routes_agree(rng):
    """The Convolution route gives what MXNet's own im2col/col2im give where they run: 3-D
    kernels with a last spatial size of 1.

    Except col2im's gradient: MXNet's 3-D code fills only the first C of its C*K rows (the
    window grid is sized with the image's channel count, not the columns'), and leaves the
    rest 0.  The 2-D code, and im2col's 3-D gradient, are right.  So the 3-D col2im cases
    are recorded by the Convolution route, and this checks that MXNet's rows are that route's
    first C rows and zeros after them.
    """
    cases = [('im2col', {'kernel': (2, 3, 2), 'stride': (1, 2, 1), 'pad': (0, 1, 1)}, (2, 2, 3, 5, 1)),
             ('col2im', {'output_size': (3, 5, 1), 'kernel': (2, 3, 2), 'stride': (1, 2, 1), 'pad': (0, 1, 1)},
              (2, 24, 12))]
    for name, params, shape in cases:
        x = op_cases.make_input(rng, shape)
        sym = getattr(mx.sym, name)(mx.sym.Variable('data'), **params)
        head = rng.normal(size=sym.infer_shape(data=shape)[1][0]).astype(np.float32)
        out, grad = run(sym, x, head)
        if name == 'im2col':
            out2, grad2 = run_convolution(params, x, head)
        else:
            grad2, out2 = run_convolution(params, head, x)
        np.testing.assert_allclose(out2, out, rtol=1e-6, atol=1e-6)
        if name == 'im2col':
            np.testing.assert_allclose(grad2, grad, rtol=1e-6, atol=1e-6)
        else:
            channels = head.shape[1]
            np.testing.assert_allclose(grad2[:, :channels], grad[:, :channels], rtol=1e-6, atol=1e-6)
            assert not grad[:, channels:].any() and grad2[:, channels:].any()


def record_partial(meta):
    table = []
    for name, params, shape in PARTIAL:
        sym = getattr(mx.sym, name)(mx.sym.Variable('data'), **params)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            ins, outs, _ = sym.infer_shape_partial(data=shape)
        table.append({'op': name, 'params': params, 'shape': list(shape),
                      'inputs': [list(s) if s else None for s in ins],
                      'outputs': [list(s) if s else None for s in outs]})
    meta['partial'] = table


def record_errors(meta):
    table = []
    for name, params, shape in ERRORS:
        when = 'creation'
        try:
            sym = getattr(mx.sym, name)(mx.sym.Variable('data'), **params)
            when = 'shape inference'
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                sym.infer_shape(data=shape)
        except mx.base.MXNetError as err:
            text = str(err)
            at = text.find('Check failed')
            table.append({'op': name, 'params': params, 'shape': list(shape),
                          'when': when,
                          'mxnet': (text[at:] if at >= 0 else text).split('\n')[0][:240]})
            continue
        raise AssertionError('MXNet accepts %s %s %s' % (name, params, shape))
    meta['errors'] = table


def main():
    rng = np.random.RandomState(42)
    arrays, cases = {}, []
    for i, case in enumerate(CASES):
        cases.append(record_case(i, case, rng, arrays))
    check_routes_agree(np.random.RandomState(7))
    meta = {'cases': cases}
    record_partial(meta)
    record_errors(meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d KB' % (OUT, len(CASES), os.path.getsize(OUT) // 1024))


if __name__ == '__main__':
    main()
