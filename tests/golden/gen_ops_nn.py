"""Regenerate ops_nn.npz: MXNet 1.9.1's numbers for the layers in reflib/operator (nn, conv, pooling, norm).

Run with a Python that has the real MXNet 1.9.1 (not needed by the tests,
which only read the .npz):

    MXNET_ENGINE_TYPE=NaiveEngine python tests/golden/gen_ops_nn.py

For every case it stores the inputs, the auxiliary states before, the head
gradients, and what MXNet returns: the visible outputs, the gradient of
every input, and the auxiliary states after forward + backward.  Keys are
``<case>/<kind>/<name>``; ``<case>/meta`` is a JSON string with the operator,
its parameters, the input and aux names, is_train and whether gradients
were taken.
"""

import json
import os
import sys

# the threaded engine lets reads of aux states race with BatchNorm's backward
os.environ.setdefault('MXNET_ENGINE_TYPE', 'NaiveEngine')

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ops_nn.npz')
rng = np.random.default_rng(20240601)


def normal(*shape, scale=1.0, shift=0.0):
    return (rng.normal(size=shape) * scale + shift).astype(np.float32)


CASES = []


def case(name, op, params, inputs, aux=None, is_train=True, grads=True, keep_outputs=None):
    """keep_outputs: how many outputs to store (MXNet leaves some unwritten, e.g. rrelu's eval mask)."""
    CASES.append(dict(name=name, op=op, params=params, inputs=inputs, aux=aux or {},
                      is_train=is_train, grads=grads, keep_outputs=keep_outputs))


def conv_inputs(data_shape, num_filter, kernel, num_group=1, no_bias=False):
    c = data_shape[1]
    ins = {'data': normal(*data_shape),
           'weight': normal(num_filter, c // num_group, *kernel, scale=0.5)}
    if not no_bias:
        ins['bias'] = normal(num_filter)
    return ins


# ------------------------------------------------------------------ Convolution
case('conv2d_basic', 'Convolution', dict(kernel=(3, 3), num_filter=4),
     conv_inputs((2, 3, 6, 6), 4, (3, 3)))
case('conv2d_stride_pad_dilate_group', 'Convolution',
     dict(kernel=(3, 2), stride=(2, 1), pad=(1, 0), dilate=(1, 2), num_filter=6, num_group=2),
     conv_inputs((2, 4, 7, 8), 6, (3, 2), num_group=2))
case('conv2d_depthwise', 'Convolution', dict(kernel=(3, 3), pad=(1, 1), num_filter=4, num_group=4),
     conv_inputs((2, 4, 5, 5), 4, (3, 3), num_group=4))
case('conv1d_nobias', 'Convolution', dict(kernel=(3,), stride=(2,), pad=(1,), num_filter=5, no_bias=True),
     conv_inputs((2, 3, 10), 5, (3,), no_bias=True))
case('conv3d', 'Convolution', dict(kernel=(2, 3, 2), stride=(1, 2, 1), pad=(1, 0, 1), num_filter=3),
     conv_inputs((1, 2, 4, 5, 4), 3, (2, 3, 2)))

# ---------------------------------------------------------------------- Pooling
case('pool_max_2x2', 'Pooling', dict(kernel=(2, 2), stride=(2, 2)), {'data': normal(2, 3, 6, 6)})
case('pool_max_pad', 'Pooling', dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), {'data': normal(2, 2, 7, 7)})
case('pool_max_full', 'Pooling', dict(kernel=(3, 3), stride=(2, 2), pooling_convention='full'),
     {'data': normal(1, 2, 6, 6)})
case('pool_max_ties', 'Pooling', dict(kernel=(2, 2), stride=(1, 1)),
     {'data': rng.integers(0, 2, size=(1, 2, 4, 4)).astype(np.float32)})
case('pool_avg_pad', 'Pooling', dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg'),
     {'data': normal(2, 2, 7, 7)})
case('pool_avg_pad_nocount', 'Pooling',
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', count_include_pad=False),
     {'data': normal(2, 2, 7, 7)})
case('pool_avg_full', 'Pooling', dict(kernel=(2, 2), stride=(2, 2), pool_type='avg', pooling_convention='full'),
     {'data': normal(1, 2, 5, 5)})
case('pool_avg_full_pad', 'Pooling',
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', pooling_convention='full'),
     {'data': normal(1, 1, 6, 6)})
case('pool_sum', 'Pooling', dict(kernel=(2, 2), pool_type='sum'), {'data': normal(1, 2, 4, 4)})
case('pool_global_avg', 'Pooling', dict(global_pool=True, pool_type='avg', kernel=(2, 2)),
     {'data': normal(2, 3, 5, 5)})
case('pool_global_max', 'Pooling', dict(global_pool=True), {'data': normal(2, 3, 4, 4)})
case('pool1d_max', 'Pooling', dict(kernel=(3,), stride=(2,)), {'data': normal(2, 2, 9)})
case('pool1d_avg_pad', 'Pooling', dict(kernel=(3,), stride=(2,), pad=(1,), pool_type='avg'),
     {'data': normal(2, 2, 8)})
case('pool3d_max', 'Pooling', dict(kernel=(2, 2, 2), stride=(2, 2, 2)), {'data': normal(1, 2, 4, 4, 4)})
case('pool3d_avg_pad', 'Pooling', dict(kernel=(2, 2, 2), pad=(1, 1, 1), pool_type='avg'),
     {'data': normal(1, 1, 3, 3, 3)})
case('pool_lp1', 'Pooling', dict(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=1),
     {'data': normal(1, 2, 4, 4)})
case('pool_lp2', 'Pooling', dict(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=2),
     {'data': normal(1, 2, 4, 4)})
case('pool_lp3', 'Pooling', dict(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=3),
     {'data': normal(1, 2, 4, 4, scale=0.5, shift=1.0)})


# -------------------------------------------------------------------- BatchNorm
def bn_inputs(shape, axis=1):
    c = shape[axis]
    return ({'data': normal(*shape, scale=2.0, shift=1.0), 'gamma': normal(c, scale=0.5, shift=1.0),
             'beta': normal(c)},
            {'moving_mean': normal(c), 'moving_var': rng.uniform(0.5, 2.0, size=c).astype(np.float32)})


case('bn_train_fixgamma', 'BatchNorm', {}, *bn_inputs((4, 3, 2, 2)))
case('bn_train', 'BatchNorm', dict(fix_gamma=False), *bn_inputs((4, 3, 2, 2)))
case('bn_train_meanvar', 'BatchNorm', dict(fix_gamma=False, output_mean_var=True), *bn_inputs((4, 3, 2, 2)))
case('bn_global_stats', 'BatchNorm', dict(fix_gamma=False, use_global_stats=True), *bn_inputs((4, 3, 2, 2)))
case('bn_global_stats_fixgamma', 'BatchNorm', dict(use_global_stats=True, output_mean_var=True),
     *bn_inputs((4, 3, 2, 2)))
case('bn_eval', 'BatchNorm', dict(fix_gamma=False, output_mean_var=True), *bn_inputs((4, 3, 2, 2)),
     is_train=False, grads=False)
case('bn_2d_eps_momentum', 'BatchNorm', dict(fix_gamma=False, eps=1e-5, momentum=0.8), *bn_inputs((6, 3)))
case('bn_axis_last', 'BatchNorm', dict(fix_gamma=False, axis=-1), *bn_inputs((2, 4, 3), axis=2))
case('bn_5d', 'BatchNorm', dict(fix_gamma=False), *bn_inputs((2, 3, 2, 2, 2)))

# -------------------------------------------------------------------- LeakyReLU
case('leaky', 'LeakyReLU', dict(act_type='leaky', slope=0.1), {'data': normal(3, 4, scale=2)})
case('leaky_default', 'LeakyReLU', {}, {'data': normal(3, 4, scale=2)})
case('elu', 'LeakyReLU', dict(act_type='elu', slope=0.7), {'data': normal(3, 4, scale=2)})
case('selu', 'LeakyReLU', dict(act_type='selu'), {'data': normal(3, 4, scale=2)})
case('gelu', 'LeakyReLU', dict(act_type='gelu'), {'data': normal(3, 4, scale=2)})
case('prelu', 'LeakyReLU', dict(act_type='prelu'),
     {'data': normal(2, 3, 4, scale=2), 'gamma': np.array([0.1, 0.5, -0.3], np.float32)})
case('prelu_shared', 'LeakyReLU', dict(act_type='prelu'),
     {'data': normal(2, 3, 2, scale=2), 'gamma': np.array([0.2], np.float32)})
# rrelu: MXNet 1.9.1 crashes in training mode and leaves the mask unwritten in eval mode
case('rrelu_eval', 'LeakyReLU', dict(act_type='rrelu'), {'data': normal(3, 4, scale=2)},
     is_train=False, grads=False, keep_outputs=1)

# ---------------------------------------------------------------------- Dropout
case('dropout_eval', 'Dropout', dict(p=0.3), {'data': normal(3, 4)}, is_train=False, grads=False)
case('dropout_p0_train', 'Dropout', dict(p=0.0), {'data': normal(3, 4)})

# -------------------------------------------------------------------- Embedding
case('embedding', 'Embedding', dict(input_dim=5, output_dim=4),
     {'data': np.array([[0, 3.7, -1], [7, 1.2, 1], [4, 4, 2]], np.float32), 'weight': normal(5, 4)})


def run(c):
    op = c['op']
    kwargs = {'name': 'op'}
    kwargs.update(c['params'])
    sym = getattr(mx.sym, op)(mx.sym.var('data'), **kwargs)
    args, auxs = sym.list_arguments(), sym.list_auxiliary_states()
    feed = {('data' if k == 'data' else 'op_' + k): v for k, v in c['inputs'].items()}
    assert sorted(feed) == sorted(args), (c['name'], args, feed)
    aux_feed = {'op_' + k: v for k, v in c['aux'].items()}
    assert sorted(aux_feed) == sorted(auxs), (c['name'], auxs)
    grad_req = {a: 'write' for a in args}
    if op == 'Embedding':
        grad_req['data'] = 'null'  # MXNet refuses to compute a data gradient here
    ex = sym.simple_bind(mx.cpu(), grad_req=grad_req, **{k: v.shape for k, v in feed.items()})
    for k, v in feed.items():
        ex.arg_dict[k][:] = v
    for k, v in aux_feed.items():
        ex.aux_dict[k][:] = v
    outs = [o.asnumpy() for o in ex.forward(is_train=c['is_train'])]
    rec = {}
    for i, o in enumerate(outs[:c['keep_outputs']]):
        rec['out/%d' % i] = o
    if c['grads']:
        heads = [normal(*o.shape) for o in outs]
        ex.backward([mx.nd.array(h) for h in heads])
        mx.nd.waitall()
        for i, h in enumerate(heads):
            rec['head/%d' % i] = h
        for k in c['inputs']:
            key = 'data' if k == 'data' else 'op_' + k
            if grad_req[key] != 'null':
                rec['grad/' + k] = ex.grad_dict[key].asnumpy()
    for k in c['aux']:
        rec['aux_out/' + k] = ex.aux_dict['op_' + k].asnumpy()
    for k, v in c['inputs'].items():
        rec['in/' + k] = v
    for k, v in c['aux'].items():
        rec['aux_in/' + k] = v
    meta = dict(op=op, params=c['params'], inputs=list(c['inputs']), aux=list(c['aux']),
                arguments=args, aux_states=auxs,
                is_train=c['is_train'], grads=c['grads'], outputs=sym.list_outputs()[:c['keep_outputs']])
    rec['meta'] = np.array(json.dumps(meta))
    return rec


# Shape inference only: (operator, parameters, data shape).  MXNet's answer is
# stored as argument / output / aux shapes, or None where it raises.
SHAPE_CASES = [
    ('Convolution', dict(kernel=(3,), num_filter=4), (2, 3, 10)),
    ('Convolution', dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1), dilate=(2, 2)), (2, 3, 10, 9)),
    ('Convolution', dict(kernel=(3, 3), num_filter=4, num_group=2), (2, 4, 10, 9)),
    ('Convolution', dict(kernel=(3, 3), num_filter=4, num_group=2, no_bias=True), (2, 4, 10, 9)),
    ('Convolution', dict(kernel=(3, 3, 3), num_filter=4), (2, 3, 5, 6, 7)),
    ('Convolution', dict(kernel=(3, 3), num_filter=4), (2, 3, 10)),          # data not 4-d
    ('Convolution', dict(kernel=(3, 3), num_filter=4, num_group=2), (2, 3, 10, 9)),  # 3 % 2
    ('Convolution', dict(kernel=(3, 3), num_filter=3, num_group=2), (2, 4, 10, 9)),  # 3 % 2
    ('Convolution', dict(kernel=(3, 3), num_filter=4), (2, 3, 2, 9)),        # kernel > input
    ('Pooling', dict(kernel=(2, 2)), (1, 1, 5, 5)),
    ('Pooling', dict(kernel=(2, 2), stride=(2, 2)), (1, 1, 5, 5)),
    ('Pooling', dict(kernel=(2, 2), stride=(2, 2), pooling_convention='full'), (1, 1, 5, 5)),
    ('Pooling', dict(kernel=(3, 3), stride=(2, 2), pooling_convention='full'), (1, 1, 6, 6)),
    ('Pooling', dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pooling_convention='full'), (1, 1, 6, 6)),
    ('Pooling', dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), (1, 1, 6, 6)),
    ('Pooling', dict(kernel=(2, 2), pad=(3, 3), pooling_convention='full'), (1, 1, 2, 2)),
    ('Pooling', dict(kernel=(3,), stride=(2,)), (1, 1, 6)),
    ('Pooling', dict(kernel=(3, 3, 3), stride=(2, 2, 2)), (1, 1, 6, 6, 6)),
    ('Pooling', dict(global_pool=True), (1, 2, 6, 6)),
    ('Pooling', dict(global_pool=True, kernel=(3,)), (1, 2, 6, 6)),
    ('Pooling', dict(global_pool=True), (1, 2, 6)),
    ('Pooling', dict(kernel=(2, 2)), (1, 2, 6)),                             # data not 4-d
    ('Pooling', dict(kernel=(7, 7)), (1, 2, 6, 6)),                          # kernel > input
    ('BatchNorm', {}, (4, 3, 5, 5)),
    ('BatchNorm', dict(axis=-1), (4, 3, 5)),
    ('BatchNorm', dict(output_mean_var=True), (4, 3)),
    ('LeakyReLU', dict(act_type='prelu'), (2, 3, 4, 5)),
    ('LeakyReLU', dict(act_type='prelu'), (2, 3)),
    ('LeakyReLU', dict(act_type='rrelu'), (2, 3)),
    ('LeakyReLU', {}, (2, 3)),
    ('Dropout', dict(p=0.2, axes=(1,)), (2, 3)),
    ('Embedding', dict(input_dim=10, output_dim=3), (2, 4)),
]


def shape_case(op, params, data_shape):
    sym = getattr(mx.sym, op)(mx.sym.var('data'), name='op', **params)
    try:
        args, outs, auxs = sym.infer_shape(data=data_shape)
    except mx.base.MXNetError:
        return dict(op=op, params=params, data=data_shape, error=True)
    return dict(op=op, params=params, data=data_shape, error=False,
                args=dict(zip(sym.list_arguments(), args)), outputs=dict(zip(sym.list_outputs(), outs)),
                aux=dict(zip(sym.list_auxiliary_states(), auxs)))


def main():
    assert mx.__version__ == '1.9.1', mx.__version__
    store = {}
    for c in CASES:
        for k, v in run(c).items():
            store['%s/%s' % (c['name'], k)] = v
    store['_shapes'] = np.array(json.dumps([shape_case(*c) for c in SHAPE_CASES]))
    np.savez_compressed(OUT, **store)
    print('wrote %d cases, %d arrays, %d bytes to %s' % (len(CASES), len(store), os.path.getsize(OUT), OUT))


if __name__ == '__main__':
    sys.exit(main())
