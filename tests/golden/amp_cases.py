"""mx.contrib.amp: the same programs under MXNet 1.9.1 (gen_amp.py records amp.json) and under
reflib (test_amp.py).  Each case gives a JSON-able value, 'error' where the library refuses.

``run(mx, amp)`` holds the conversions, which change nothing global.  ``run_init(mx, amp)``
calls ``amp.init()``, which replaces operator functions for the rest of the process, so it
is run in a fresh interpreter of its own (``python amp_cases.py <mxnet|reflib>``).
"""

import inspect
import json
import sys

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _graph(sym):
    """The converted graph as JSON: nodes (op, name, attrs, inputs), arg_nodes, heads.

    MXNet's tojson() leaves the amp_cast nodes out unless told not to; reflib's keeps them."""
    if 'remove_amp_cast' in inspect.signature(sym.tojson).parameters:
        text = sym.tojson(remove_amp_cast=False)
    else:
        text = sym.tojson()
    graph = json.loads(text)
    return {'nodes': [{'op': n['op'], 'name': n['name'], 'attrs': n.get('attrs', {}), 'inputs': n['inputs']}
                      for n in graph['nodes']],
            'arg_nodes': graph['arg_nodes'], 'heads': graph['heads']}


def _v(arr, digits=3):
    return np.round(arr.asnumpy().astype(np.float64), digits).tolist()


# ------------------------------------------------------------------ models
def mlp(mx):
    data = mx.sym.var('data')
    h = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    h = mx.sym.Activation(h, act_type='relu', name='relu1')
    h = mx.sym.FullyConnected(h, num_hidden=4, name='fc2')
    return mx.sym.SoftmaxOutput(h, name='softmax')


def cnn(mx, act='softrelu'):
    data = mx.sym.var('data')
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name='conv')
    b = mx.sym.BatchNorm(c, name='bn')
    a = mx.sym.Activation(b, act_type=act, name='act')
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool')
    e = mx.sym.elemwise_add(p, p, name='add')
    f = mx.sym.FullyConnected(mx.sym.flatten(e, name='flat'), num_hidden=3, name='fc')
    return mx.sym.Group([f, mx.sym.exp(f, name='ex')])


def mixed(mx):
    """Widest-dtype operators over known and unknown inputs, several outputs, a variable head."""
    a, b = mx.sym.var('a'), mx.sym.var('b')
    s = mx.sym.elemwise_add(a, b, name='sum_vars')                     # both unknown: amp_multicast
    fa = mx.sym.FullyConnected(a, num_hidden=6, name='fa')
    fb = mx.sym.FullyConnected(b, num_hidden=6, name='fb')
    low = mx.sym.broadcast_mul(fa, fb, name='prod_low')                 # both float16
    mix = mx.sym.concat(low, mx.sym.exp(fb, name='efb'), name='cat')   # float16 and float32
    parts = mx.sym.SliceChannel(mix, num_outputs=2, name='sl')
    drop = mx.sym.Dropout(parts[1], p=0.5, name='drop')
    bn = mx.sym.BatchNorm(parts[0], output_mean_var=True, name='bn2')
    lrelu = mx.sym.LeakyReLU(drop, act_type='elu', name='elu')
    last = mx.sym.FullyConnected(mx.sym.flatten(bn[0]) + lrelu, num_hidden=2, name='last')
    return mx.sym.Group([last, bn[1], s, a, mx.sym.sum(fa, name='total')])


def lstm(mx):
    """An LSTM unrolled over an embedding (many elementwise and slice nodes), and the fused RNN."""
    data = mx.sym.var('data')
    emb = mx.sym.Embedding(data, input_dim=10, output_dim=4, name='emb')
    outs, _ = mx.rnn.LSTMCell(num_hidden=5, prefix='lstm_').unroll(3, emb, merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.reshape(outs, shape=(-1, 5)), num_hidden=10, name='pred')
    rnn = mx.sym.RNN(emb, state_size=5, num_layers=1, mode='lstm', name='rnn', state_outputs=True)
    return mx.sym.Group([mx.sym.SoftmaxOutput(pred, name='sm'), rnn[0], rnn[1]])


def assorted(mx):
    """Operators of every list: LayerNorm, softmax, dot, batch_dot, stack, where, LeakyReLU
    (selu: conditional float32; leaky: not), Cast to an integer, add_n."""
    x = mx.sym.var('x')
    sm = mx.sym.softmax(mx.sym.LayerNorm(x, name='ln'), name='smx')
    d = mx.sym.dot(sm, x, name='dt')
    bd = mx.sym.batch_dot(mx.sym.expand_dims(d, 0), mx.sym.expand_dims(x, 0), transpose_b=True, name='bd')
    w = mx.sym.where(x > 0, x, -x, name='wh')
    return mx.sym.Group([mx.sym.stack(bd, bd, name='stk'), mx.sym.LeakyReLU(w, act_type='selu', name='selu'),
                         mx.sym.LeakyReLU(w, act_type='leaky', name='lk'), mx.sym.Cast(x, dtype='int32', name='ci'),
                         mx.sym.add_n(x, x, w, name='an')])


CONVERSIONS = {
    'mlp': (mlp, {}),
    'mlp_data_names': (mlp, {'data_names': ['data', 'softmax_label']}),
    'mlp_cast_optional': (mlp, {'data_names': ['data', 'softmax_label'], 'cast_optional_params': True}),
    'mlp_excluded': (mlp, {'excluded_sym_names': ['fc2']}),
    'mlp_excluded_variable': (mlp, {'excluded_sym_names': ['data', 'relu1']}),
    'cnn': (cnn, {}),
    'cnn_fp32_ops': (cnn, {'fp32_ops': ['Pooling']}),
    'cnn_target_ops': (cnn, {'target_dtype_ops': ['FullyConnected', 'Pooling']}),
    'cnn_conditional_relu': (lambda mx: cnn(mx, 'relu'),
                             {'conditional_fp32_ops': [('Activation', 'act_type', ['relu'])]}),
    'cnn_relu_default': (lambda mx: cnn(mx, 'relu'), {}),
    'cnn_cast_optional': (cnn, {'data_names': ['data'], 'cast_optional_params': True}),
    'mixed': (mixed, {}),
    'mixed_cast_optional': (mixed, {'data_names': ['a', 'b'], 'cast_optional_params': True}),
    'mixed_data_names': (mixed, {'data_names': ['a']}),
    'lstm': (lstm, {}),
    'lstm_cast_optional': (lstm, {'data_names': ['data', 'sm_label'], 'cast_optional_params': True}),
    'assorted': (assorted, {}),
    'assorted_cast_optional': (assorted, {'data_names': ['x'], 'cast_optional_params': True}),
    # refusals: an operator in two lists, an operator in no list, a bad list
    'error_two_lists': (mlp, {'target_dtype_ops': ['FullyConnected'], 'fp32_ops': ['FullyConnected']}),
    'error_unknown_op': (mlp, {'fp32_ops': ['no_such_op']}),
    'error_excluded_not_list': (mlp, {'excluded_sym_names': 'fc1'}),
}


def _params(mx, sym, shapes, seed):
    """Random float32 parameters for ``sym`` given the data shapes, from numpy."""
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(sym.list_arguments(), arg_shapes)
            if n not in shapes}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.5, s)) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, aux


def _convert_model(mx, amp, build, shapes, **kwargs):
    """convert_model's parameter dtypes, and the converted model's outputs on fixed data."""
    sym = build(mx)
    args, aux = _params(mx, sym, shapes, 0)
    new_sym, new_args, new_aux = amp.convert_model(sym, dict(args), dict(aux), **kwargs)
    rng = np.random.RandomState(1)
    data = {n: mx.nd.array(rng.uniform(-1, 1, s)) for n, s in shapes.items()}
    bound = dict(new_args)
    bound.update(data)

    def forward():
        # MXNet 1.9.1 refuses float16 FullyConnected/Convolution on the CPU ("only supported by
        # CuDNN"): there this is 'error', and reflib's numbers are held to the float32 ones
        exe = new_sym.bind(mx.current_context(), args=bound, aux_states=dict(new_aux), grad_req='null')
        outs = exe.forward(is_train=False)
        return {'dtypes': [np.dtype(o.dtype).name for o in outs], 'values': [_v(o) for o in outs]}
    ref = sym.bind(mx.current_context(), args=dict(args, **data), aux_states=dict(aux), grad_req='null').forward(is_train=False)
    return {'arg_dtypes': {k: np.dtype(v.dtype).name for k, v in sorted(new_args.items())},
            'aux_dtypes': {k: np.dtype(v.dtype).name for k, v in sorted(new_aux.items())},
            'outputs': _try(forward),
            'float32_outputs': [_v(o) for o in ref]}


def _hybrid_block(mx, amp, **kwargs):
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(6, in_units=5, prefix='d1_'))
        net.add(nn.BatchNorm(in_channels=6, prefix='bn_'))
        net.add(nn.Activation('relu', prefix='relu_'))
        net.add(nn.Dense(3, in_units=6, prefix='d2_'))
    net.initialize(mx.init.Uniform(0.5))
    rng = np.random.RandomState(2)
    for name, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rng.uniform(0.2, 1.0, p.shape)))
    net.hybridize()
    x = mx.nd.array(rng.uniform(-1, 1, (4, 5)))
    y32 = net(x)
    conv = amp.convert_hybrid_block(net, ctx=mx.current_context(), **kwargs)

    def forward():      # float16 Dense on the CPU: 'error' in MXNet 1.9.1 (see _convert_model)
        y = conv(x)
        return {'dtype': np.dtype(y.dtype).name, 'values': _v(y)}
    return {'param_dtypes': {k: np.dtype(p.dtype).name for k, p in sorted(conv.collect_params().items())},
            'output': _try(forward), 'float32_output': _v(y32), 'graph': _graph(conv._cached_graph[1])}


def _loss_scaler(mx, amp):
    """The scale after each step of a synthetic run: overflow where the gradient holds inf."""
    scaler = amp.loss_scaler.LossScaler()
    scaler._scale_seq_len = 3                       # MXNet's 2000 clean steps, shortened
    p = mx.gluon.Parameter('w', shape=(3,))
    p.initialize(ctx=mx.current_context())
    q = mx.gluon.Parameter('v', shape=(2,), grad_req='null')
    q.initialize(ctx=mx.current_context())
    pattern = [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0]   # 1: inf in the gradient, 2: NaN
    out = []
    for kind in pattern:
        p.grad()[:] = [1.0, float('inf') if kind == 1 else 2.0, float('nan') if kind == 2 else 3.0]
        over = scaler.has_overflow([p, q])
        out.append([bool(over), scaler.loss_scale, scaler._next_loss_scale])
    fresh = amp.loss_scaler.LossScaler()
    return {'steps': out, 'initial': fresh.loss_scale}


# ------------------------------------------------------------------ convert_bucketing_module
def bucket_sym_gen(mx):
    """A sym_gen of buckets that share their parameters: the first 6 of seq_len * 3 inputs
    through two FullyConnected layers, plus the bucket's length (a node of its own per bucket)."""
    def sym_gen(seq_len):
        data, label = mx.sym.var('data'), mx.sym.var('softmax_label')
        x = mx.sym.slice_axis(mx.sym.reshape(data, shape=(-1, seq_len * 3)), axis=1, begin=0, end=6)
        h = mx.sym.FullyConnected(x, num_hidden=4, name='fc1')
        h = mx.sym.Activation(h, act_type='softrelu', name='act')
        h = mx.sym.FullyConnected(h, num_hidden=3, name='fc2') + seq_len
        return mx.sym.SoftmaxOutput(h, label, name='sm'), ('data',), ('softmax_label',)
    return sym_gen


def _bucket_batch(mx, key, seed):
    rng = np.random.RandomState(seed)
    return mx.io.DataBatch([mx.nd.array(rng.uniform(-1, 1, (2, key, 3)))], [mx.nd.array([0, 2])],
                           bucket_key=key, provide_data=[('data', (2, key, 3))],
                           provide_label=[('softmax_label', (2,))])


def _bucketing_module(mx, bind=True, params=True):
    """Buckets 4 (the default) and 2, bound for training, the current one being 2."""
    sym_gen = bucket_sym_gen(mx)
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=4, context=mx.current_context())
    if bind:
        mod.bind([('data', (2, 4, 3))], [('softmax_label', (2,))])
    if params:
        with mx.name.NameManager():
            sym = sym_gen(4)[0]
        args, aux = _params(mx, sym, {'data': (2, 4, 3), 'softmax_label': (2,)}, 5)
        mod.set_params(args, aux)
        mod.switch_bucket(2, [('data', (2, 2, 3))], [('softmax_label', (2,))])
    return mod


def _dtypes(params):
    return {k: np.dtype(v.dtype).name for k, v in sorted(params.items())}


def _amp_nodes(sym):
    return sum(n['op'] in ('amp_cast', 'amp_multicast') for n in _graph(sym)['nodes'])


def _convert_bucketing(mx, amp, **kwargs):
    """convert_bucketing_module on a bound module with parameters: what the new module holds,
    what happened to the old one's parameters, and the new one bound and run on each bucket."""
    mod = _bucketing_module(mx)
    float32 = {}
    for key in (4, 2):
        mod.forward(_bucket_batch(mx, key, key), is_train=False)
        float32[key] = _v(mod.get_outputs()[0])
    old_params = mod._curr_module._arg_params
    new = amp.amp.convert_bucketing_module(mod, **kwargs)
    out = {'is_bucketing_module': isinstance(new, mx.mod.BucketingModule),
           'binded': new.binded, 'params_initialized': new.params_initialized,
           'curr_bucket_key': new._curr_bucket_key, 'same_sym_gen': new._sym_gen is mod._sym_gen,
           'curr_is_default': new._curr_module is new._buckets[4],
           'same_params_dict': new._curr_module._arg_params is old_params,
           'new_arg_dtypes': _dtypes(new._curr_module._arg_params),
           'new_aux_dtypes': _dtypes(new._curr_module._aux_params),
           'old_arg_dtypes_after': _dtypes(old_params),
           'buckets': {}}
    for key, module in sorted(new._buckets.items()):
        with mx.name.NameManager():
            generated = new._sym_gen(key)[0]
        out['buckets'][str(key)] = {
            'graph': _graph(module._symbol), 'binded': module.binded,
            'params_initialized': module.params_initialized, 'data_names': list(module._data_names),
            'label_names': list(module._label_names), 'sym_gen_amp_nodes': _amp_nodes(generated)}

    def bind():
        new.bind([('data', (2, 4, 3))], [('softmax_label', (2,))], for_training=False)
        return {'amp_nodes': _amp_nodes(new.symbol), 'buckets': sorted(new._buckets),
                'arg_dtypes': _dtypes(new.get_params()[0])}
    out['bind'] = _try(bind)

    def forward():      # float16 FullyConnected on the CPU: 'error' in MXNet 1.9.1 (see _convert_model)
        values = {}
        for key in (4, 2):
            new.forward(_bucket_batch(mx, key, key), is_train=False)
            values[str(key)] = {'dtype': np.dtype(new.get_outputs()[0].dtype).name,
                                'values': _v(new.get_outputs()[0])}
        return values
    out['outputs'] = _try(forward)
    out['float32_outputs'] = {str(k): v for k, v in float32.items()}
    return out


def _convert_bucketing_after_training(mx, amp):
    """One SGD step, then the conversion: the parameters converted are the ones the module
    last synced to its host copies (MXNet reads _arg_params, not get_params())."""
    mod = _bucketing_module(mx)
    before = {k: _v(v, 4) for k, v in sorted(mod.get_params()[0].items())}
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 1.0})
    mod.forward(_bucket_batch(mx, 2, 7), is_train=True)
    mod.backward()
    mod.update()
    new = amp.amp.convert_bucketing_module(mod)
    converted = {k: _v(v, 4) for k, v in sorted(new._curr_module._arg_params.items())}
    trained = {k: _v(v, 4) for k, v in sorted(mod.get_params()[0].items())}
    return {'converted_are_initial': converted == before, 'trained_differ': trained != before,
            'converted': converted}


def _bucketing_errors(mx, amp):
    convert = amp.amp.convert_bucketing_module
    module = mx.mod.Module(bucket_sym_gen(mx)(4)[0], context=mx.current_context())
    return {'not_bucketing': _try(lambda: convert(module)),
            'not_bound': _try(lambda: convert(_bucketing_module(mx, bind=False, params=False))),
            'no_params': _try(lambda: convert(_bucketing_module(mx, params=False))),
            'excluded_not_list': _try(lambda: convert(_bucketing_module(mx), excluded_sym_names='fc1')),
            'bad_target': _try(lambda: convert(_bucketing_module(mx), target_dtype='float32'))}


def _fresh_names(mx, build):
    """``build`` under a NameManager of its own: automatic names (flatten0, _plus0) then do not
    depend on what the process built before."""
    def built(lib):
        with mx.name.NameManager():
            return build(lib)
    return built


def run(mx, amp):
    out = {}
    for name, (build, kwargs) in sorted(CONVERSIONS.items()):
        out['convert_symbol_' + name] = _try(lambda: _graph(amp.convert_symbol(_fresh_names(mx, build)(mx), **kwargs)))
    cnn_ = _fresh_names(mx, cnn)
    mlp_ = _fresh_names(mx, lambda m: mlp(m).get_internals()['fc2_output'])
    out['convert_model_mlp'] = _try(lambda: _convert_model(mx, amp, mlp_, {'data': (3, 5)}))
    out['convert_model_cnn'] = _try(lambda: _convert_model(mx, amp, cnn_, {'data': (2, 1, 6, 6)}))
    out['convert_model_cnn_cast_optional'] = _try(lambda: _convert_model(mx, amp, cnn_, {'data': (2, 1, 6, 6)},
                                                                         cast_optional_params=True))
    out['convert_model_cnn_excluded'] = _try(lambda: _convert_model(mx, amp, cnn_, {'data': (2, 1, 6, 6)},
                                                                    excluded_sym_names=['conv']))
    out['convert_hybrid_block'] = _try(lambda: _hybrid_block(mx, amp))
    out['convert_hybrid_block_cast_optional'] = _try(lambda: _hybrid_block(mx, amp, cast_optional_params=True))
    out['loss_scaler'] = _try(lambda: _loss_scaler(mx, amp))
    out['convert_bucketing'] = _try(lambda: _convert_bucketing(mx, amp))
    out['convert_bucketing_cast_optional'] = _try(lambda: _convert_bucketing(mx, amp,
                                                                           cast_optional_params=True))
    out['convert_bucketing_excluded'] = _try(lambda: _convert_bucketing(mx, amp, excluded_sym_names=['fc2'],
                                                                      target_dtype_ops=['FullyConnected']))
    out['convert_bucketing_after_training'] = _try(lambda: _convert_bucketing_after_training(mx, amp))
    out['convert_bucketing_errors'] = _bucketing_errors(mx, amp)
    out['lists'] = {'fp16': sorted(amp.list_lp16_ops('float16')), 'conditional': [list(c[:2]) + [list(c[2])]
                    for c in amp.list_conditional_fp32_ops('float16')]}
    # tojson()'s default leaves the casts out (a cast that is an output stays)
    for name in ('mlp', 'cnn', 'mixed'):
        converted = amp.convert_symbol(_fresh_names(mx, CONVERSIONS[name][0])(mx))
        nodes = json.loads(converted.tojson())
        out['tojson_without_casts_' + name] = {
            'nodes': [[n['op'], n['name'], n['inputs']] for n in nodes['nodes']], 'heads': nodes['heads']}
    return out


# ------------------------------------------------------------------ amp.init (its own process)
def _train(mx, amp):
    """A few steps of ``sum((x * w)**2)`` trained with the dynamic loss scale (elementwise, so
    float32 throughout: MXNet has no float16 Dense on the CPU); step 2's loss is huge, so its
    scaled gradient overflows: that update is skipped and the scale halved."""
    w = mx.gluon.Parameter('w', shape=(1, 3))
    w.initialize(ctx=mx.current_context())
    w.set_data(mx.nd.array([[0.1, -0.2, 0.3]]))
    trainer = mx.gluon.Trainer([w], 'sgd', {'learning_rate': 0.01})
    amp.init_trainer(trainer)
    x = mx.nd.array([[1., 2., 3.], [-1., 0.5, 2.]])
    steps = []
    for factor in [1.0, 1.0, 1e36, 1.0]:
        with mx.autograd.record():
            y = mx.nd.broadcast_mul(x, w.data())
            loss = (y * y).sum() * factor
            with amp.scale_loss(loss, trainer) as scaled:
                scaled.backward()
        trainer.step(2)
        steps.append({'scale': trainer._amp_loss_scaler.loss_scale, 'trainer_scale': trainer._scale,
                      'weight': _v(w.data(), 5)})
    # unscale: the gradients divided by the loss scale, the trainer's scale back to 1
    with mx.autograd.record():
        loss = mx.nd.broadcast_mul(x, w.data()).sum()
        with amp.scale_loss([loss], trainer) as scaled:
            scaled[0].backward()
    amp.unscale(trainer)
    return {'steps': steps, 'unscaled_grad': _v(w.grad(), 4), 'scale_after_unscale': trainer._scale}


def _dtype_of(fn):
    return _try(lambda: np.dtype(fn().dtype).name)


def _nd_arithmetic(mx):
    """NDArray arithmetic after amp.init: which dtype each Python operator gives (MXNet's
    NDArray operators call the functions amp.init replaced: broadcast_add, _rdiv_scalar, ...)."""
    a32 = mx.nd.array([[1., 2.], [3., 4.]])
    a16 = a32.astype('float16')
    row32 = mx.nd.array([[0.5, -1.]])
    cases = {
        '16+32': lambda: a16 + a32, '32+16': lambda: a32 + a16, '16-32': lambda: a16 - a32,
        '16*32': lambda: a16 * a32, '16/32': lambda: a16 / a32, '16%32': lambda: a16 % a32,
        '16**32': lambda: a16 ** a32, '16**16': lambda: a16 ** a16, '16+row32': lambda: a16 + row32,
        '16>32': lambda: a16 > a32, '16==32': lambda: a16 == a32, '16!=32': lambda: a16 != a32,
        '16<=32': lambda: a16 <= a32, '32<16': lambda: a32 < a16,
        '16+16': lambda: a16 + a16, '32*32': lambda: a32 * a32, '16-2': lambda: a16 - 2,
        '2-16': lambda: 2 - a16, '2/16': lambda: 2 / a16, '16**2': lambda: a16 ** 2,
        '2**16': lambda: 2 ** a16,
        '16%3': lambda: a16 % 3, '-16': lambda: -a16, 'abs16': lambda: abs(a16), '16>1': lambda: a16 > 1,
        '32<=1': lambda: a32 <= 1, '16@32': lambda: a16 @ a32,
        'nd.add': lambda: mx.nd.add(a16, a32), 'nd.subtract': lambda: mx.nd.subtract(a32, a16),
        'nd.multiply': lambda: mx.nd.multiply(a16, a32), 'nd.maximum': lambda: mx.nd.maximum(a16, a32),
        'nd.greater': lambda: mx.nd.greater(a16, a32), 'nd.power': lambda: mx.nd.power(a16, a32),
        'nd.add_scalar': lambda: mx.nd.add(a16, 2),
    }
    out = {'dtypes': {k: _dtype_of(f) for k, f in sorted(cases.items())},
           'values': {'16+32': _try(lambda: _v(a16 + a32)), '16>32': _try(lambda: _v(a16 > a32 - 1)),
                      '32-16': _try(lambda: _v(a32 - a16 * 2))}}

    def inplace(lhs, rhs):
        """``lhs += rhs`` on a copy: the result's dtype, whether it is the copy itself, and the copy."""
        before = lhs.copy()
        result = before
        result += rhs
        return {'dtype': np.dtype(result.dtype).name, 'same_array': result is before,
                'left_dtype': np.dtype(before.dtype).name, 'left': _v(before), 'result': _v(result)}
    out['inplace'] = {'16+=32': _try(lambda: inplace(a16, a32)), '32+=16': _try(lambda: inplace(a32, a16)),
                      '16+=2': _try(lambda: inplace(a16, 2)), '32+=32': _try(lambda: inplace(a32, a32))}

    def imul():
        b = a16.copy()
        b *= a32
        return np.dtype(b.dtype).name
    out['inplace']['16*=32'] = _try(imul)
    return out


def _sym_arithmetic(mx):
    """Symbol arithmetic after amp.init: the graphs (each built under a NameManager of its own)
    and the dtypes a float16 x and a float32 y give."""
    cases = {
        'x+y': lambda x, y: x + y, 'x-y': lambda x, y: x - y, 'x*y': lambda x, y: x * y,
        'x/y': lambda x, y: x / y, 'x%y': lambda x, y: x % y, 'x**y': lambda x, y: x ** y,
        'x>y': lambda x, y: x > y, 'x==y': lambda x, y: x == y, 'x<=y': lambda x, y: x <= y,
        'x-2': lambda x, y: x - 2, '2-x': lambda x, y: 2 - x, 'x*2': lambda x, y: x * 2,
        '2/x': lambda x, y: 2 / x, 'x**2': lambda x, y: x ** 2, '2**x': lambda x, y: 2 ** x,
        '-x': lambda x, y: -x, 'x==1': lambda x, y: x == 1, 'x+y+x': lambda x, y: x + y + x,
    }
    graphs = {}
    for name, build in sorted(cases.items()):
        with mx.name.NameManager():
            graphs[name] = _try(lambda: _graph(build(mx.sym.var('x'), mx.sym.var('y'))))

    def types(sym):
        args, outs, _ = sym.infer_type(x='float16', y='float32')
        return [np.dtype(t).name for t in args + outs]
    x, y = mx.sym.var('x'), mx.sym.var('y')
    return {'graphs': graphs,
            'types': {'x+y': _try(lambda: types(x + y)), 'x>y': _try(lambda: types(x > y)),
                      'x*y+y': _try(lambda: types(x * y + y))}}


def run_init(mx, amp):
    amp.init()
    out = {}
    x32 = mx.nd.array([[1., 2., 3.], [4., 5., 6.]])
    x16 = x32.astype('float16')
    w = mx.nd.array([[0.5, -0.5, 0.25]])
    b = mx.nd.array([0.1])
    fc = mx.nd.FullyConnected(x32, w, b, num_hidden=1)
    out['nd_fc'] = {'dtype': np.dtype(fc.dtype).name, 'value': _try(lambda: _v(fc))}   # MXNet: 'error' on the CPU
    out['nd_exp_fp16_stays'] = np.dtype(mx.nd.exp(x16).dtype).name           # the CPU keeps float16
    out['nd_exp_fp32'] = np.dtype(mx.nd.exp(x32).dtype).name
    out['nd_add_mixed'] = np.dtype(mx.nd.elemwise_add(x16, x32).dtype).name   # widest: float32
    out['nd_add_low'] = np.dtype(mx.nd.elemwise_add(x16, x16).dtype).name
    out['nd_softrelu'] = np.dtype(mx.nd.Activation(x32, act_type='softrelu').dtype).name
    out['nd_relu'] = np.dtype(mx.nd.Activation(x32, act_type='relu').dtype).name
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    net = mx.sym.Activation(net, act_type='softrelu', name='act')
    net = mx.sym.elemwise_add(net, mx.sym.FullyConnected(data, num_hidden=4, name='fc2'), name='add')
    net = mx.sym.SoftmaxOutput(mx.sym.exp(net, name='ex'), name='out')
    out['sym_graph'] = _graph(net)
    ex = net.simple_bind(mx.current_context(), data=(2, 3))
    arg_types, out_types, _ = net.infer_type_partial(data='float32')
    out['sym_types'] = [None if t is None else np.dtype(t).name for t in arg_types + out_types]
    out['sym_outputs'] = [list(o.shape) for o in ex.outputs]
    out['train'] = _try(lambda: _train(mx, amp))
    out['nd_arithmetic'] = _nd_arithmetic(mx)
    out['sym_arithmetic'] = _sym_arithmetic(mx)
    return out


if __name__ == '__main__':
    # python amp_cases.py mxnet|reflib: print run_init's record as JSON (a fresh process)
    if sys.argv[1] == 'mxnet':
        import mxnet as lib
        from mxnet.contrib import amp as lib_amp
    else:
        import reflib as lib
        from reflib.contrib import amp as lib_amp
    print(json.dumps(run_init(lib, lib_amp)))
