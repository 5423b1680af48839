"""Calls that show MXNet's call conventions, run alike by MXNet 1.9.1 (gen_conventions.py
records the answers in conventions.json) and by reflib (tests/test_conventions.py).

Each case is a function of the ``mx`` module giving plain JSON values: names, attribute
dicts, shapes, numbers, or whether the call raised.  Only facts both front ends must agree
on are returned (never an error's class or wording, which differ on purpose).
"""

import numpy as np


def raises(call):
    try:
        call()
    except Exception:   # noqa: BLE001 -- the fact recorded is only *whether* it raised
        return True
    return False


def graph(sym):
    """The facts about a symbol that are compared: its name, arguments, outputs, attributes."""
    return {'name': sym.name, 'arguments': sym.list_arguments(), 'outputs': sym.list_outputs(),
            'attrs': sym.attr_dict()}


def values(arr):
    return np.asarray(arr.asnumpy(), dtype=np.float64).tolist()


def shapes(triple):
    return [[list(s) if s is not None else None for s in part] if part is not None else None
            for part in triple]


# ----------------------------------------------------------------------- 1. positional parameters
def positional_symbols(mx):
    x, w = mx.sym.var('x'), mx.sym.var('w')
    out = {}
    with mx.name.NameManager():
        out['clip'] = graph(mx.sym.clip(x, 0, 6))
        out['activation_name'] = graph(mx.sym.Activation(x, 'relu', 'myact'))
        out['dropout'] = graph(mx.sym.Dropout(x, 0.5))
        out['conv_skip_bias'] = graph(mx.sym.Convolution(x, w, None, (3, 3), num_filter=4))
        out['fc_no_bias'] = graph(mx.sym.FullyConnected(x, w, None, 10, True))
        out['fc_auto_inputs'] = graph(mx.sym.FullyConnected(x, None, None, 10))
        out['sum'] = graph(mx.sym.sum(x, 1, True))
        out['leaky'] = graph(mx.sym.LeakyReLU(x, None, 'leaky', 0.1))
        out['softmax_output'] = graph(mx.sym.SoftmaxOutput(x, None, 2.0, -1.0, name='sm'))
        out['pooling'] = graph(mx.sym.Pooling(x, (2, 2), 'avg'))
        out['reshape'] = graph(mx.sym.Reshape(x, (0, -1)))
    out['errors'] = [raises(lambda: mx.sym.FullyConnected(x, 10)),           # 10 in the weight slot
                     raises(lambda: mx.sym.FullyConnected(x, w, 10, True)),   # 10 in the bias slot
                     raises(lambda: mx.sym.clip(x, 0, 6, a_min=1)),           # a_min twice
                     raises(lambda: mx.sym.clip(x, 0, 6, 'n', None, None, 7)),  # one too many
                     raises(lambda: mx.sym.Concat(x, w, 1))]                  # variadic: inputs only
    return out


def positional_arrays(mx):
    a = mx.nd.array([[-1, 2, 8], [3, -4, 5]])
    w = mx.nd.array([[1, 0, 1], [0, 2, 0]])
    o = mx.nd.zeros((2, 3))
    returned = mx.nd.clip(a, 0, 6, o)
    return {'clip': values(mx.nd.clip(a, 0, 6)),
            'sum': values(mx.nd.sum(a, 1, True)),
            'clip_out_positional': [returned is o, values(o)],
            'fc_no_bias': values(mx.nd.FullyConnected(a, w, None, 2, True)),
            'transpose': values(mx.nd.transpose(a, (1, 0))),
            'errors': [raises(lambda: mx.nd.FullyConnected(a, 2)),
                       raises(lambda: mx.nd.FullyConnected(a, w, None, 2)),
                       raises(lambda: mx.nd.clip(a, 0, 6, a_min=1))]}


# ----------------------------------------------------------------------- 2. graph attributes on calls
def attribute_keywords(mx):
    x = mx.sym.var('x')
    out = {'lr_mult': graph(mx.sym.FullyConnected(x, num_hidden=3, lr_mult=2.0, name='fc')),
           'several': graph(mx.sym.FullyConnected(x, num_hidden=3, wd_mult=0, ctx_group='dev1',
                                                  force_mirroring='True', name='fc')),
           'dunder': graph(mx.sym.FullyConnected(x, num_hidden=3, __lr_mult__='2', __foo__='bar', name='fc')),
           'attr_dict': graph(mx.sym.FullyConnected(x, num_hidden=3, lr_mult=2, attr={'lr_mult': '7'},
                                                    name='fc')),
           'mirror_stage': graph(mx.sym.Activation(x, act_type='relu', mirror_stage='True', name='a'))}
    with mx.AttrScope(lr_mult='5'):
        out['scope_wins'] = graph(mx.sym.FullyConnected(x, num_hidden=2, lr_mult=2, name='fc'))
    act = mx.sym.Activation(x, act_type='relu', lr_mult=2, name='a')
    import json
    out['json_node'] = json.loads(act.tojson())['nodes'][-1]['attrs']
    out['lookup'] = [act.attr('lr_mult'), act.attr('__lr_mult__')]
    out['nd_ignores'] = values(mx.nd.relu(mx.nd.array([-1, 1]), lr_mult=2, ctx_group='a', __foo__='b'))
    return out


# ----------------------------------------------------------------------- 3. out=
def out_arguments(mx):
    a = mx.nd.array([[1, -2, 3]])
    res = {}
    o = mx.nd.zeros((1, 3))
    res['zeros_like'] = [mx.nd.zeros_like(a, out=o) is o, values(o)]
    o = mx.nd.zeros((1, 3)) + 5
    res['ones_like'] = [mx.nd.ones_like(a, out=o) is o, values(o)]
    o = mx.nd.zeros((2, 2))
    res['ones'] = [mx.nd.ones((2, 2), out=o) is o, values(o)]
    o = mx.nd.ones((2, 2))
    res['zeros'] = [mx.nd.zeros((2, 2), out=o) is o, values(o)]
    o = mx.nd.zeros((2, 2))
    res['full_any_shape'] = [mx.nd.full((2, 3), 7, out=o) is o, values(o)]
    o = mx.nd.zeros((1,))
    res['norm'] = [mx.nd.norm(a, out=o) is o, values(o)]
    o = mx.nd.zeros((1, 3))
    res['relu'] = [mx.nd.relu(a, out=o) is o, values(o)]
    outs = [mx.nd.zeros((1, 1)) for _ in range(3)]
    got = mx.nd.split(a, num_outputs=3, axis=1, out=outs)
    res['split'] = [got is outs, [values(t) for t in outs]]
    res['errors'] = [raises(lambda: mx.nd.relu(a, out=mx.nd.zeros((3,)))),
                     raises(lambda: mx.nd.relu(a, out=mx.nd.zeros((1, 3), dtype='float64'))),
                     raises(lambda: mx.nd.sum(a, out=mx.nd.zeros((3,)))),
                     raises(lambda: mx.nd.ones((2, 3), out=mx.nd.zeros((2, 2)))),
                     raises(lambda: mx.nd.ones((2, 2), out=mx.nd.zeros((2, 2), dtype='int32'))),
                     raises(lambda: mx.nd.zeros_like(a, out=mx.nd.zeros((2, 2))))]
    return res


# ----------------------------------------------------------------------- 6. behaviour
def shape_inference(mx):
    x = mx.sym.var('x')
    fc = mx.sym.FullyConnected(mx.sym.zeros((0, 3)), num_hidden=4, name='f2')
    begin = mx.sym.elemwise_add(mx.sym.FullyConnected(mx.sym.zeros((0, 5)), num_hidden=5, no_bias=True,
                                                      name='h'), mx.sym.var('data', shape=(2, 5)))
    sl = mx.sym.SliceChannel(x, num_outputs=2, axis=1, name='sl')
    conv = mx.sym.elemwise_add(mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, pad=(1, 1), name='c'),
                               mx.sym.var('y'))
    return {'fc_partial': shapes(fc.infer_shape_partial()),
            'fc_begin_state': shapes(begin.infer_shape()),
            'slice_from_output': shapes(mx.sym.elemwise_add(sl[0], mx.sym.var('y')).infer_shape_partial(y=(2, 3))),
            'conv_batch_from_output': shapes(conv.infer_shape_partial(y=(1, 2, 5, 5), x=(0, 3, 5, 5)))}


def backward_heads(mx):
    x = mx.sym.var('x')
    res = {}
    e = (x * 2).bind(mx.cpu(), {'x': mx.nd.ones((2,))}, args_grad={'x': mx.nd.zeros((2,))})
    e.forward(is_train=True)
    e.backward([mx.nd.ones((2,)), mx.nd.ones((2,))])          # one head gradient too many
    res['extra_out_grads'] = values(e.grad_dict['x'])
    e = mx.sym.BlockGrad(x * 3).bind(mx.cpu(), {'x': mx.nd.ones((2,))}, args_grad={'x': mx.nd.ones((2,)) * 5})
    e.forward(is_train=True)
    e.backward()
    res['blockgrad_head'] = values(e.grad_dict['x'])
    g = mx.sym.Group([x * 2, mx.sym.BlockGrad(x * 3)])
    e = g.bind(mx.cpu(), {'x': mx.nd.ones((2,))}, args_grad={'x': mx.nd.zeros((2,))})
    e.forward(is_train=True)
    e.backward([mx.nd.ones((2,))])
    res['group_with_blockgrad'] = values(e.grad_dict['x'])
    e = (x * 2).bind(mx.cpu(), {'x': mx.nd.ones((2,))}, args_grad={'x': mx.nd.zeros((2,))})
    e.forward(is_train=True)
    res['missing_head_raises'] = raises(lambda: e.backward())
    return res


def children(mx):
    x, w = mx.sym.var('x'), mx.sym.var('w')
    sl = mx.sym.SliceChannel(x, num_outputs=3, name='sl')

    def names(sym):
        kids = sym.get_children()
        return None if kids is None else kids.list_outputs()
    return {'slice_all': names(sl), 'slice_one': names(sl[1]), 'slice_two': names(mx.sym.Group([sl[0], sl[2]])),
            'group': names(mx.sym.Group([x + w, x * w])), 'variable': names(x),
            'fc': names(mx.sym.FullyConnected(x, num_hidden=2, name='fc'))}


def prelu_gamma(mx):
    x = mx.sym.var('data')
    res = {'own_gamma': graph(mx.sym.LeakyReLU(x, act_type='prelu', name='pr')),
           'given_gamma': graph(mx.sym.LeakyReLU(x, gamma=mx.sym.var('g'), act_type='prelu', name='pr'))}
    net = mx.sym.LeakyReLU(mx.sym.FullyConnected(x, num_hidden=3, name='fc'), act_type='prelu', name='pr')
    for init in ('Xavier', 'Uniform', 'One', 'Zero', 'MSRAPrelu'):
        mod = mx.mod.Module(net, label_names=None)
        mod.bind(data_shapes=[('data', (2, 4))])
        mod.init_params(getattr(mx.init, init)())
        res[init] = values(mod.get_params()[0]['pr_gamma'])
    arr = mx.nd.zeros((3,))
    mx.init.Xavier()(mx.init.InitDesc('pr_gamma'), arr)        # by name alone: a gamma is 1
    res['by_name'] = values(arr)
    return res


def random_seed(mx):
    return {'negative': not raises(lambda: mx.random.seed(-1)),
            'negative_ctx': not raises(lambda: mx.random.seed(-5, ctx=mx.cpu()))}


# ----------------------------------------------------------------------- 5. executors and modules
def numpy_integer_parameters(mx):
    x = mx.sym.var('x')
    return {'axes': graph(mx.sym.transpose(x, axes=(np.int64(1), np.int64(0)), name='t')),
            'one_axis': graph(mx.sym.transpose(x, axes=(np.int64(0),), name='t')),
            'shape_list': graph(mx.sym.Reshape(x, shape=[np.int32(2), -1], name='r')),
            'axis': graph(mx.sym.sum(x, axis=np.int64(1), name='s')),
            'nd': list(mx.nd.transpose(mx.nd.ones((2, 3)), axes=(np.int64(1), np.int64(0))).shape)}


def group2ctxs(mx):
    x = mx.sym.var('x')
    with mx.AttrScope(ctx_group='dev1'):
        hidden = mx.sym.FullyConnected(x, num_hidden=2, name='fc')
    with mx.AttrScope(ctx_group='dev2'):
        net = mx.sym.FullyConnected(hidden, num_hidden=2, name='fc2')
    res = {}
    for key, mapping in (('dict', {'dev1': [mx.cpu(3), mx.cpu(4)], 'dev2': mx.cpu(5)}),
                         ('list', [{'dev1': mx.cpu(3), 'dev2': mx.cpu(5)}, {'dev1': mx.cpu(4), 'dev2': mx.cpu(6)}])):
        mod = mx.mod.Module(net, data_names=['x'], label_names=None, context=[mx.cpu(0), mx.cpu(1)],
                            group2ctxs=mapping)
        mod.bind(data_shapes=[('x', (4, 3))])
        mod.init_params()
        res[key] = [[str(e.arg_dict[name].context) for e in mod._exec_group.execs]
                    for name in ('fc_weight', 'fc2_weight')]
    for key, dev1 in (('one_in_a_list', [mx.cpu(3)]), ('wrong_length', [mx.cpu(3), mx.cpu(4), mx.cpu(5)])):
        res[key] = raises(lambda: mx.mod.Module(net, data_names=['x'], label_names=None,
                                                context=[mx.cpu(0), mx.cpu(1)],
                                                group2ctxs={'dev1': dev1, 'dev2': mx.cpu(5)}
                                                ).bind(data_shapes=[('x', (4, 3))]))
    return res


def executor_reshape(mx):
    x = mx.sym.var('x')
    net = mx.sym.FullyConnected(x, num_hidden=2, name='fc')
    exe = net.simple_bind(mx.cpu(), x=(4, 3))
    exe.arg_dict['x'][:] = 1
    exe.arg_dict['fc_weight'][:] = 2
    small = exe.reshape(x=(2, 3))
    small.arg_dict['fc_weight'][:] = 3
    small.arg_dict['x'][:] = 5
    small.grad_dict['fc_weight'][:] = 7
    res = {'weight_shared': values(exe.arg_dict['fc_weight']),
           'data_shares_the_start': values(exe.arg_dict['x']),
           'grad_shared': values(exe.grad_dict['fc_weight']),
           'small_output': list(small.forward()[0].shape),
           'grow_refused': raises(lambda: exe.reshape(x=(8, 3))),
           'other_shape_refused': raises(lambda: exe.reshape(x=(4, 5), allow_up_sizing=True))}
    big = exe.reshape(x=(8, 3), allow_up_sizing=True)
    big.arg_dict['x'][:] = 9
    res['grown_is_new_memory'] = values(exe.arg_dict['x'])
    wide = exe.reshape(x=(4, 5), partial_shaping=True, allow_up_sizing=True)
    res['partial_shaping'] = [list(wide.arg_dict['fc_weight'].shape), list(wide.forward()[0].shape)]
    return res


def monitor_after_reshape(mx):
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[('data', (4, 3))])
    mod.init_params()
    mon = mx.mon.Monitor(1, pattern='.*')
    mod.install_monitor(mon)
    mod.reshape(data_shapes=[('data', (2, 3))])
    mon.tic()
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 3))]), is_train=False)
    return [row[1] for row in mon.toc()]


def debug_str_total(mx):
    x = mx.sym.var('x')
    net = mx.sym.FullyConnected(x, num_hidden=2000, name='fc')
    net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type='relu', name='r'), num_hidden=1000, name='fc2')
    lines = []
    for req in ('null', 'write'):
        text = net.simple_bind(mx.cpu(), x=(256, 1000), grad_req=req).debug_str()
        lines.append([line for line in text.splitlines() if line.endswith('MB allocated')])
    return lines


# ----------------------------------------------------------------------- 4. fluent methods
def fluent_methods(mx):
    a = mx.nd.array([[3, -1, 2], [0, 5, -4]])
    out = mx.nd.zeros((2, 3))
    returned = a.tanh(out=out)
    x = mx.sym.var('x')
    with mx.name.NameManager():
        syms = {'relu': graph(x.relu()), 'clip': graph(x.clip(0, 6)), 'swapaxes': graph(x.swapaxes(dim1=0, dim2=1)),
                'split': graph(x.split(num_outputs=2, axis=1)), 'slice_axis': graph(x.slice_axis(axis=1, begin=0, end=2)),
                'log_softmax': graph(x.log_softmax(axis=0))}
    return {'nd': {'relu': values(a.relu()), 'clip': values(a.clip(0, 2)), 'flip': values(a.flip(axis=1)),
                   'split': [values(p) for p in a.split(num_outputs=3, axis=1)],
                   'slice_axis': values(a.slice_axis(axis=1, begin=1, end=3)),
                   'pick': values(a.pick(mx.nd.array([0, 2]), axis=1)),
                   'one_hot': values(mx.nd.array([1, 0]).one_hot(3)),
                   'broadcast_to': values(mx.nd.array([[1], [2]]).broadcast_to((2, 3))),
                   'tanh_out': [returned is out, values(out)],
                   'tostype': values(a.tostype('default'))},
            'sym': syms}


CASES = {f.__name__: f for f in (positional_symbols, positional_arrays, attribute_keywords, out_arguments,
                                  shape_inference, backward_heads, children, prelu_gamma, random_seed,
                                  numpy_integer_parameters, group2ctxs, executor_reshape, monitor_after_reshape,
                                  debug_str_total, fluent_methods)}
