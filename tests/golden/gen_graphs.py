"""Record golden values for tests/test_golden_graphs.py from real MXNet 1.9.1.

Run with the oracle interpreter (MXNet is NOT a dependency of reflib or its tests):

    /tmp/mxv/bin/python tests/golden/gen_graphs.py

Writes, next to this file:
  graphs.npz            every array (parameters, data, outputs, gradients, aux states)
  graphs.json           names, shapes, dtypes, JSON texts, and the npz key of each array
  mlp-symbol.json       MXNet's sym.save() of graph (a)
  convnet-symbol.json   MXNet's sym.save() of graph (e)

The graphs themselves are defined in graph_defs.py and shared with the tests.
npz keys are '<case>/<what>/<name>', e.g. 'mlp/write/grad/fc1_weight'.
"""

import json
import os
import sys
import warnings

import numpy as np

# MXNet 1.9.1's default CPU build rewrites inference-only graphs with its MKLDNN
# subgraph pass (e.g. conv+BatchNorm fused).  A grad_req='null' executor so
# rewritten ignores forward(is_train=True) for BatchNorm and cannot bind a Group
# of internal heads, so the golden values are recorded without that pass.
# Everything else is bit-identical either way (checked when this was written).
os.environ.setdefault('MXNET_SUBGRAPH_BACKEND', 'NONE')

import mxnet as mx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import graph_defs as G  # noqa: E402

arrays = {}
facts = {'mxnet_version': mx.__version__,
         'MXNET_SUBGRAPH_BACKEND': os.environ['MXNET_SUBGRAPH_BACKEND']}


def put(key, value):
    """Store an array (NDArray or numpy) under an npz key; return the key."""
    if isinstance(value, mx.nd.NDArray):
        value = value.asnumpy()
    value = np.asarray(value)
    assert key not in arrays, key
    arrays[key] = value
    return key


def shapes(lst):
    return None if lst is None else [list(s) for s in lst]


def dtype_names(lst):
    return None if lst is None else [np.dtype(t).name for t in lst]


def describe(sym, **shape_kwargs):
    """Names, inferred shapes and the JSON text of a symbol."""
    info = {
        'arguments': sym.list_arguments(),
        'outputs': sym.list_outputs(),
        'auxiliary_states': sym.list_auxiliary_states(),
        'inputs': sym.list_inputs(),
        'internals': sym.get_internals().list_outputs(),
        'json': sym.tojson(),
    }
    if shape_kwargs:
        arg, out, aux = sym.infer_shape(**shape_kwargs)
        info['infer_shape'] = {'kwargs': {k: list(v) for k, v in shape_kwargs.items()},
                               'arg_shapes': shapes(arg), 'out_shapes': shapes(out),
                               'aux_shapes': shapes(aux)}
    return info


def set_values(exe, args=None, aux=None, only_present=False):
    for name, value in (args or {}).items():
        if name in exe.arg_dict or not only_present:
            exe.arg_dict[name][:] = value
    for name, value in (aux or {}).items():
        if name in exe.aux_dict or not only_present:
            exe.aux_dict[name][:] = value


# ----------------------------------------------------------------------- (a) MLP
def gen_mlp():
    sym = G.mlp(mx)
    info = describe(sym, data=G.MLP_DATA_SHAPE)
    params, batches = G.mlp_values()
    info['param_keys'] = {k: put('mlp/param/' + k, v) for k, v in params.items()}
    info['batches'] = []
    for i, (data, label) in enumerate(batches):
        info['batches'].append({'data': put('mlp/batch%d/data' % i, data),
                                'softmax_label': put('mlp/batch%d/softmax_label' % i, label)})

    # grad_req='write': one forward/backward per batch, from a fresh executor each time.
    write = []
    for i, (data, label) in enumerate(batches):
        exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.MLP_DATA_SHAPE)
        set_values(exe, params)
        outs = exe.forward(is_train=True, data=data, softmax_label=label)
        exe.backward()
        rec = {'output': put('mlp/write%d/output' % i, outs[0]),
               'grads': {k: put('mlp/write%d/grad/%s' % (i, k), v)
                         for k, v in exe.grad_dict.items()}}
        write.append(rec)
    info['write'] = write

    # grad_req='add': batch 0 then batch 1 on ONE executor; grads accumulate.
    exe = sym.simple_bind(mx.cpu(), grad_req='add', data=G.MLP_DATA_SHAPE)
    set_values(exe, params)
    add = {'grads_after_1': {}, 'grads_after_2': {}}
    for i, (data, label) in enumerate(batches):
        outs = exe.forward(is_train=True, data=data, softmax_label=label)
        exe.backward()
        add['output%d' % i] = put('mlp/add/output%d' % i, outs[0])
        add['grads_after_%d' % (i + 1)] = {
            k: put('mlp/add/after%d/grad/%s' % (i + 1, k), v) for k, v in exe.grad_dict.items()}
    info['add'] = add
    # Sanity: 'add' from zero-initialised grads == sum of the two 'write' runs.
    for k in params:
        np.testing.assert_allclose(arrays[add['grads_after_2'][k]],
                                   arrays[write[0]['grads'][k]] + arrays[write[1]['grads'][k]],
                                   rtol=1e-5, atol=1e-6)
    # Sanity: SoftmaxOutput's gradient is softmax - onehot(label), not divided by the batch.
    p = arrays[write[0]['output']]
    onehot = np.eye(G.MLP_CLASSES, dtype=np.float32)[batches[0][1].astype(int)]
    g_fc3_bias = (p - onehot).sum(axis=0)
    np.testing.assert_allclose(arrays[write[0]['grads']['fc3_bias']], g_fc3_bias, rtol=1e-5, atol=1e-6)

    # Symbol file as MXNet writes it.
    path = os.path.join(HERE, 'mlp-symbol.json')
    sym.save(path)
    info['symbol_file'] = 'mlp-symbol.json'
    with open(path) as f:
        info['save_equals_tojson'] = f.read() == sym.tojson()
    facts['mlp'] = info


# ------------------------------------------------------------- (b) fc(6) on ones
def gen_fc6():
    sym = G.fc6(mx)
    info = describe(sym, data=G.FC6_DATA_SHAPE)
    args = {'data': mx.nd.ones(G.FC6_DATA_SHAPE), 'fc_weight': mx.nd.ones((6, 4)),
            'fc_bias': mx.nd.array((1, 4, 4, 4, 5, 6)), 'softmax_label': mx.nd.ones((1,))}
    args_grad = {'fc_weight': mx.nd.zeros((6, 4)), 'fc_bias': mx.nd.zeros((6,))}
    info['args'] = {k: put('fc6/arg/' + k, v) for k, v in args.items()}
    exe = sym.bind(ctx=mx.cpu(), args=args, args_grad=args_grad)
    out = exe.forward(is_train=True)[0].copy()
    expected = [0.00378404, 0.07600445, 0.07600445, 0.07600445, 0.20660152, 0.5616011]
    np.testing.assert_allclose(out.asnumpy()[0], expected, rtol=1e-6)
    exe.backward()
    info['output'] = put('fc6/output', out)
    # grad_arrays follows list_arguments(); arguments without args_grad get None.
    info['grad_arrays_is_none'] = [g is None for g in exe.grad_arrays]
    info['grads'] = {name: put('fc6/grad/' + name, g)
                     for name, g in zip(sym.list_arguments(), exe.grad_arrays) if g is not None}
    # The args_grad arrays themselves were written (bind keeps them by reference).
    info['args_grad_is_grad_array'] = exe.grad_arrays[1] is args_grad['fc_weight']
    facts['fc6'] = info


# ------------------------------------------------------------------ (c) 2a + b
def gen_two_a_plus_b():
    sym = G.two_a_plus_b(mx)
    info = describe(sym, a=(2,), b=(2,))
    args = {'a': mx.nd.array([1, 2]), 'b': mx.nd.array([2, 3])}
    args_grad = {'a': mx.nd.zeros((2,)), 'b': mx.nd.zeros((2,))}
    info['args'] = {k: put('c/arg/' + k, v) for k, v in args.items()}
    exe = sym.bind(ctx=mx.cpu(), args=args, args_grad=args_grad)
    out = exe.forward(is_train=True)[0].copy()
    info['output'] = put('c/output', out)
    exe.backward(out)             # the head gradient is the output itself: [4, 7]
    info['head_grad'] = put('c/head_grad', out)
    info['grads'] = {'a': put('c/grad/a', exe.grad_arrays[0]),
                     'b': put('c/grad/b', exe.grad_arrays[1])}
    assert arrays[info['grads']['a']].tolist() == [8, 14]
    assert arrays[info['grads']['b']].tolist() == [4, 7]
    # Backward with a list and with a dict keyed by output name give the same result.
    exe.backward([mx.nd.array([1, 1])])
    info['grads_ones_head'] = {'a': put('c/grad_ones_head/a', exe.grad_dict['a']),
                               'b': put('c/grad_ones_head/b', exe.grad_dict['b'])}
    info['node_names'] = [n['name'] for n in json.loads(sym.tojson())['nodes']]
    facts['c'] = info


# ---------------------------------------------------------- (d) bind by reference
def gen_alias():
    sym = G.x_plus_one(mx)
    info = describe(sym, x=(2,))
    x_array = mx.nd.array([1., 2.])
    exe = sym.bind(ctx=mx.cpu(), args=[x_array])
    info['arg_arrays_is_given_array'] = exe.arg_arrays[0] is x_array
    info['arg_dict_is_given_array'] = exe.arg_dict['x'] is x_array
    info['grad_arrays_is_none'] = exe.grad_arrays is None
    steps = []
    exe.forward()
    steps.append(('initial', put('alias/out/initial', exe.outputs[0])))
    x_array[1] = 3.                       # mutate the bound array in place
    exe.forward()
    steps.append(('after_setitem', put('alias/out/after_setitem', exe.outputs[0])))
    x_array[:] = mx.nd.array([5., 7.])    # slice-assign the whole array
    exe.forward()
    steps.append(('after_slice_assign', put('alias/out/after_slice_assign', exe.outputs[0])))
    bound = x_array
    x_array = mx.nd.array([100., 200.])   # rebinding the Python name changes nothing
    exe.forward()
    steps.append(('after_rebind_name', put('alias/out/after_rebind_name', exe.outputs[0])))
    exe.forward(x=mx.nd.array([10., 20.]))  # forward kwargs are copied INTO the bound array
    steps.append(('after_forward_kwargs', put('alias/out/after_forward_kwargs', exe.outputs[0])))
    info['bound_after_forward_kwargs'] = put('alias/bound_after_forward_kwargs', bound)
    info['steps'] = steps
    facts['alias'] = info


# --------------------------------------------------------------- (e) conv net
def gen_convnet():
    sym = G.convnet(mx)
    info = describe(sym, data=G.CONV_DATA_SHAPE)
    params, aux, data, label = G.convnet_values()
    info['param_keys'] = {k: put('convnet/param/' + k, v) for k, v in params.items()}
    info['aux_keys'] = {k: put('convnet/aux_init/' + k, v) for k, v in aux.items()}
    info['data'] = put('convnet/data', data)
    info['softmax_label'] = put('convnet/softmax_label', label)

    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.CONV_DATA_SHAPE)
    info['simple_bind_aux_names'] = sorted(exe.aux_dict)
    set_values(exe, params, aux)
    feed = {'data': data, 'softmax_label': label}
    seq = []
    # 1. inference with the initial moving statistics
    out = exe.forward(is_train=False, **feed)[0]
    mx.nd.waitall()
    seq.append({'step': 'eval_before', 'output': put('convnet/eval_before/output', out),
                'aux': {k: put('convnet/eval_before/aux/' + k, v) for k, v in exe.aux_dict.items()}})
    # 2. training forward (batch statistics) ...
    out = exe.forward(is_train=True, **feed)[0]
    mx.nd.waitall()
    seq.append({'step': 'train_forward', 'output': put('convnet/train/output', out),
                'aux': {k: put('convnet/train_forward/aux/' + k, v) for k, v in exe.aux_dict.items()}})
    # ... then backward.  MXNet 1.9.1 updates the moving statistics HERE, in
    # BatchNorm's backward, not in the training forward.  The engine does not
    # see that write, so wait for everything before reading the aux arrays.
    exe.backward()
    mx.nd.waitall()
    seq.append({'step': 'train_backward',
                'aux': {k: put('convnet/train_backward/aux/' + k, v) for k, v in exe.aux_dict.items()},
                'grads': {k: put('convnet/train/grad/' + k, v) for k, v in exe.grad_dict.items()}})
    # 3. inference again, now with the updated moving statistics
    out = exe.forward(is_train=False, **feed)[0]
    mx.nd.waitall()
    seq.append({'step': 'eval_after', 'output': put('convnet/eval_after/output', out),
                'aux': {k: put('convnet/eval_after/aux/' + k, v) for k, v in exe.aux_dict.items()}})
    info['sequence'] = seq

    # Every internal output, for pinpointing which layer disagrees (fresh executors).
    internals = sym.get_internals()
    inputs = set(internals.list_inputs())
    layer_names = [n for n in internals.list_outputs() if n not in inputs]
    info['layer_names'] = layer_names
    for is_train in (True, False):
        tag = 'internals_train' if is_train else 'internals_eval'
        info[tag] = {}
        for name in layer_names:
            # One executor per layer output (grad_req='null', so is_train only
            # matters for BatchNorm).
            iexe = internals[name].simple_bind(mx.cpu(), grad_req='null', data=G.CONV_DATA_SHAPE)
            set_values(iexe, params, aux, only_present=True)
            feed_here = {k: v for k, v in feed.items() if k in iexe.arg_dict}
            out = iexe.forward(is_train=is_train, **feed_here)[0]
            mx.nd.waitall()
            info[tag][name] = put('convnet/%s/%s' % (tag, name), out)

    path = os.path.join(HERE, 'convnet-symbol.json')
    sym.save(path)
    info['symbol_file'] = 'convnet-symbol.json'
    with open(path) as f:
        info['save_equals_tojson'] = f.read() == sym.tojson()
    facts['convnet'] = info


# ------------------------------------------------------------ (f) inference
def gen_inference():
    info = {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')

        s = G.typed_sum(mx)
        arg, out, aux = s.infer_type(a='float16')
        info['sum_float16'] = {'arguments': s.list_arguments(), 'kwargs': {'a': 'float16'},
                               'arg_types': dtype_names(arg), 'out_types': dtype_names(out),
                               'aux_types': dtype_names(aux)}
        arg, out, aux = s.infer_type(b=np.float64)
        info['sum_float64'] = {'arguments': s.list_arguments(), 'kwargs': {'b': 'float64'},
                               'arg_types': dtype_names(arg), 'out_types': dtype_names(out),
                               'aux_types': dtype_names(aux)}

        s = G.typed_variable(mx)
        arg, out, aux = s.infer_type()
        shp = s.infer_shape()
        info['declared_variable'] = {'arguments': s.list_arguments(), 'json': s.tojson(),
                                     'arg_types': dtype_names(arg), 'out_types': dtype_names(out),
                                     'arg_shapes': shapes(shp[0]), 'out_shapes': shapes(shp[1])}

        s = G.two_fc(mx)
        arg, out, aux = s.infer_type(data='float64')
        info['two_fc_float64'] = {'arguments': s.list_arguments(), 'kwargs': {'data': 'float64'},
                                  'arg_types': dtype_names(arg), 'out_types': dtype_names(out)}
        info['two_fc_no_type'] = {'result_is_none': [x is None for x in s.infer_type()]}
        info['two_fc_full'] = {'kwargs': {'data': [7, 5]}}
        arg, out, aux = s.infer_shape(data=(7, 5))
        info['two_fc_full'].update(arg_shapes=shapes(arg), out_shapes=shapes(out),
                                   aux_shapes=shapes(aux))
        arg, out, aux = s.infer_shape_partial()
        info['two_fc_partial_nothing'] = {'kwargs': {}, 'arg_shapes': shapes(arg),
                                          'out_shapes': shapes(out), 'aux_shapes': shapes(aux)}
        info['two_fc_incomplete_infer_shape_is_none'] = [
            x is None for x in s.infer_shape(fc1_weight=(10, 7))]

        s = G.partial_group(mx)
        arg, out, aux = s.infer_shape_partial(data=(4, 3))
        info['group_partial'] = {'arguments': s.list_arguments(), 'outputs': s.list_outputs(),
                                 'kwargs': {'data': [4, 3]}, 'arg_shapes': shapes(arg),
                                 'out_shapes': shapes(out), 'aux_shapes': shapes(aux)}
        arg, out, aux = s.infer_shape(data=(4, 3), other=(4, 8))
        info['group_full'] = {'kwargs': {'data': [4, 3], 'other': [4, 8]},
                              'arg_shapes': shapes(arg), 'out_shapes': shapes(out),
                              'aux_shapes': shapes(aux)}

        s = G.scaled_fc(mx)
        arg, out, aux = s.infer_shape(data=(3, 4))
        info['backward_shape'] = {'arguments': s.list_arguments(), 'kwargs': {'data': [3, 4]},
                                  'arg_shapes': shapes(arg), 'out_shapes': shapes(out)}

        s = G.convnet(mx)
        arg, out, aux = s.infer_shape_partial(data=(2, 3, 8, 8))
        info['convnet_partial_known'] = {'kwargs': {'data': [2, 3, 8, 8]},
                                         'arg_shapes': shapes(arg), 'out_shapes': shapes(out),
                                         'aux_shapes': shapes(aux)}
        arg, out, aux = s.infer_type(data='float32')
        info['convnet_types'] = {'arg_types': dtype_names(arg), 'out_types': dtype_names(out),
                                 'aux_types': dtype_names(aux)}
    facts['inference'] = info


def main():
    gen_mlp()
    gen_fc6()
    gen_two_a_plus_b()
    gen_alias()
    gen_convnet()
    gen_inference()
    facts['npz_keys'] = sorted(arrays)
    np.savez_compressed(os.path.join(HERE, 'graphs.npz'), **arrays)
    with open(os.path.join(HERE, 'graphs.json'), 'w') as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write('\n')
    total = sum(os.path.getsize(os.path.join(HERE, n)) for n in
                ('graphs.npz', 'graphs.json', 'mlp-symbol.json', 'convnet-symbol.json'))
    print('wrote %d arrays; golden files total %d bytes' % (len(arrays), total))


if __name__ == '__main__':
    main()
