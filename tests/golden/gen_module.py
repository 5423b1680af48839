"""Regenerate module.npz: MXNet 1.9.1's numbers for reflib/module (Module, fit, score, predict, checkpoints).

Run with a Python that has the real MXNet 1.9.1 (the tests only read what it writes):

    MXNET_SUBGRAPH_BACKEND=NONE /tmp/mxv/bin/python tests/golden/gen_module.py

As in gen_kvstore.py, every scenario is a plain function of the ``mx`` module, so the
very same code runs on MXNet here and on reflib in tests/test_module.py (which imports
this file; mxnet is imported only when it runs as a script).  Each scenario returns a
dict label -> numpy array; names, shapes and flags are JSON strings (0-d str arrays).
module.npz holds MXNet's results under ``<scenario>/<label>``.

Every run starts from fixed parameters (``initial_params``, from a seeded numpy
RandomState, passed to fit as ``arg_params``/``aux_params``) on fixed data with no
shuffling, so no random number generator of either library is involved.

Scenarios (the letters are the cases of the task that asked for them):

* ``mlp_1ctx`` (a): MLP, SGD momentum + wd, one context.
* ``mlp_2ctx_local`` / ``mlp_2ctx_device`` (b): the same on [cpu(0), cpu(1)]; kvstore
  'local' and 'device' (the update runs on the store).
* ``mlp_2ctx_noupdkv`` (c): MXNET_UPDATE_ON_KVSTORE=0: the store only sums gradients, the
  updater runs per device (index ``i * num_device + k``).
* ``conv_bn_2ctx_adam`` (d): conv + BatchNorm + pooling, Adam, two contexts; the
  BatchNorm moving statistics are averaged over the devices at every epoch end.
* ``workload_2_1`` (e): work_load_list [2, 1], batch 9 (slices 6 + 3; last batch padded).
* ``fixed_params`` (f): fixed_param_names=['fc1_weight', 'fc1_bias'] on two contexts.
* ``input_grads`` (g): inputs_need_grad=True -> get_input_grads, for a loss head and for a
  plain head with out_grads.
* ``checkpoint_sgd`` / ``checkpoint_adam`` (h): save_checkpoint with optimizer states at
  every epoch end, Module.load(load_optimizer_states=True) and one more epoch, against an
  uninterrupted run; the file names MXNet writes (do_checkpoint and save_checkpoint).
  The checkpoint files MXNet writes are also copied next to this file
  (module_ckpt_sgd-*, module_ckpt_adam-*) so that reflib can resume MXNet's own files.
* ``linreg_mse`` (i): LinearRegressionOutput with the 'mse' metric, two contexts.
* ``reshape`` (j): forward batches of other sizes (5 on two devices: slices 2 + 3), then
  predict on an unlabelled iterator of batch 3 whose last batch is padded.

Each fit scenario records: every batch-end metric value, the parameters at every epoch
end, the validation score at every epoch end, the final parameters, score() on a padded
validation iterator, predict() (padding dropped), iter_predict, output_shapes,
get_outputs(merge_multi_context=False) shapes and the optimizer/kvstore set-up.
"""

import json
import os
import shutil
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'module.npz')

N_TRAIN, N_VAL, N_FEAT, N_CLASS = 22, 10, 5, 3


# ------------------------------------------------------------------ data and networks
def _js(obj):
    return np.array(json.dumps(obj, sort_keys=True))


def _shape(s):
    return [int(d) for d in s]


def classification_data(seed=0, n=N_TRAIN, feat=N_FEAT, image=False):
    """``n`` samples (seeded by ``seed``) labelled by one fixed linear rule (whatever the seed)."""
    x = np.random.RandomState(seed).normal(size=(n, 2, 8, 8) if image else (n, feat)).astype(np.float32)
    w = np.random.RandomState(100).normal(size=(int(np.prod(x.shape[1:])), N_CLASS))
    y = np.argmax(x.reshape(n, -1) @ w, axis=1).astype(np.float32)
    return x, y


def regression_data(seed=0, n=N_TRAIN):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    w = np.random.RandomState(100).normal(size=(N_FEAT, 1))
    y = (np.tanh(x @ w) + 0.1 * rng.normal(size=(n, 1))).astype(np.float32)
    return x, y


def mlp(mx):
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    act1 = mx.sym.Activation(fc1, act_type='relu', name='relu1')
    fc2 = mx.sym.FullyConnected(act1, num_hidden=N_CLASS, name='fc2')
    return mx.sym.SoftmaxOutput(fc2, name='softmax')


def convnet(mx):
    data = mx.sym.Variable('data')
    c1 = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True, name='conv1')
    b1 = mx.sym.BatchNorm(c1, fix_gamma=False, name='bn1')
    a1 = mx.sym.Activation(b1, act_type='relu', name='relu1')
    p1 = mx.sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
    c2 = mx.sym.Convolution(p1, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True, name='conv2')
    b2 = mx.sym.BatchNorm(c2, name='bn2')         # fix_gamma=True, the default
    a2 = mx.sym.Activation(b2, act_type='relu', name='relu2')
    p2 = mx.sym.Pooling(a2, kernel=(1, 1), global_pool=True, pool_type='avg', name='pool2')
    fc = mx.sym.FullyConnected(mx.sym.Flatten(p2, name='flat'), num_hidden=N_CLASS, name='fc')
    return mx.sym.SoftmaxOutput(fc, name='softmax')


def linreg(mx):
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    act1 = mx.sym.Activation(fc1, act_type='tanh', name='tanh1')
    fc2 = mx.sym.FullyConnected(act1, num_hidden=1, name='fc2')
    return mx.sym.LinearRegressionOutput(fc2, name='lro')


def initial_params(mx, sym, input_shapes, seed=1):
    """Fixed numpy parameters for ``sym`` (arg and aux dicts), in sorted-name order."""
    inputs = dict(input_shapes)
    arg_shapes, _, aux_shapes = sym.infer_shape(**inputs)
    rng = np.random.RandomState(seed)
    arg, aux = {}, {}
    for name, shape in sorted(zip(sym.list_arguments(), arg_shapes)):
        if name in inputs or name.endswith('_label'):
            continue
        noise = rng.normal(size=shape)
        if name.endswith('_gamma'):
            value = 1.0 + 0.1 * noise
        elif name.endswith(('_beta', '_bias')):
            value = 0.1 * noise
        else:
            value = noise * np.sqrt(2.0 / max(1, int(np.prod(shape[1:]))))
        arg[name] = value.astype(np.float32)
    for name, shape in sorted(zip(sym.list_auxiliary_states(), aux_shapes)):
        noise = rng.normal(size=shape)
        value = 0.1 * noise if name.endswith('_mean') else 1.0 + 0.1 * np.abs(noise)
        aux[name] = value.astype(np.float32)
    return arg, aux


def _nd(mx, params):
    return {k: mx.nd.array(v) for k, v in params.items()}


def contexts(mx, n):
    return [mx.cpu(i) for i in range(n)]


# ------------------------------------------------------------------ recording
def _record_params(rec, prefix, arg, aux):
    for name, value in arg.items():
        rec['%sarg/%s' % (prefix, name)] = value.asnumpy()
    for name, value in aux.items():
        rec['%saux/%s' % (prefix, name)] = value.asnumpy()


def fit_and_record(mx, mod, train, val, arg, aux, num_epoch, begin_epoch=0, eval_metric='acc',
                   optimizer='sgd', optimizer_params=(('learning_rate', 0.01),), kvstore='local',
                   extra_epoch_end=None):
    """Run mod.fit and record what the callbacks see, then everything fit leaves behind."""
    rec = {}
    batch_rows, metric_names, epoch_params, val_rows = [], [], [], []

    def on_batch(p):
        names_values = p.eval_metric.get_name_value()
        metric_names[:] = [n for n, _ in names_values]
        batch_rows.append([p.epoch, p.nbatch] + [float(v) for _, v in names_values])

    def on_epoch(epoch, sym, a, x):
        epoch_params.append((epoch, {k: v.asnumpy().copy() for k, v in sorted(a.items())},
                             {k: v.asnumpy().copy() for k, v in sorted(x.items())}))

    def on_eval_end(p):
        val_rows.append([p.epoch, p.nbatch] + [float(v) for _, v in p.eval_metric.get_name_value()])

    epoch_cbs = [on_epoch] + ([extra_epoch_end] if extra_epoch_end else [])
    mod.fit(train, eval_data=val, eval_metric=eval_metric, epoch_end_callback=epoch_cbs,
            batch_end_callback=on_batch, eval_end_callback=on_eval_end, kvstore=kvstore,
            optimizer=optimizer, optimizer_params=optimizer_params,
            arg_params=None if arg is None else _nd(mx, arg),
            aux_params=None if aux is None else _nd(mx, aux),
            begin_epoch=begin_epoch, num_epoch=num_epoch)
    rec['batch_metric'] = np.array(batch_rows, dtype=np.float64)
    rec['val_metric'] = np.array(val_rows, dtype=np.float64)
    rec['metric_names'] = _js(metric_names)
    for epoch, a, x in epoch_params:
        for name, value in list(a.items()) + list(x.items()):
            rec['epoch%d/%s' % (epoch, name)] = value
    rec['setup'] = _js({
        'update_on_kvstore': bool(mod._update_on_kvstore),
        'kvstore': None if mod._kvstore is None else mod._kvstore.type,
        'rescale_grad': float(mod._optimizer.rescale_grad),
        'optimizer': type(mod._optimizer).__name__,
        'idx2name': sorted([str(k), v] for k, v in mod._optimizer.idx2name.items()),
    })
    inspect_module(mx, mod, val, rec, eval_metric)
    return rec


def inspect_module(mx, mod, val, rec, eval_metric='acc'):
    """Final parameters, score, predict, iter_predict and shapes of a trained module."""
    arg, aux = mod.get_params()
    _record_params(rec, 'final/', arg, aux)
    score = mod.score(val, eval_metric)
    rec['score'] = np.array([float(v) for _, v in score], dtype=np.float64)
    rec['score_names'] = _js([n for n, _ in score])
    pred = mod.predict(val)
    rec['predict'] = pred.asnumpy()
    # the last forward of predict was the padded last batch
    rec['outputs_unmerged_shapes'] = _js([[_shape(o.shape) for o in per_output]
                                          for per_output in mod.get_outputs(merge_multi_context=False)])
    rec['outputs_merged_shapes'] = _js([_shape(o.shape) for o in mod.get_outputs()])
    rec['output_shapes'] = _js([[n, _shape(s)] for n, s in mod.output_shapes])
    rec['data_shapes'] = _js([[d.name, _shape(d.shape)] for d in mod.data_shapes])
    rec['label_shapes'] = _js(None if mod.label_shapes is None
                              else [[d.name, _shape(d.shape)] for d in mod.label_shapes])
    pieces, meta = [], []
    for outputs, nbatch, batch in mod.iter_predict(val):
        pieces.append(outputs[0].asnumpy())
        meta.append([nbatch, int(batch.pad or 0), [_shape(o.shape) for o in outputs]])
    rec['iter_predict'] = np.concatenate(pieces)
    rec['iter_predict_meta'] = _js(meta)
    rec['names'] = _js({'data': list(mod.data_names), 'label': list(mod.label_names),
                        'output': list(mod.output_names)})


def _iters(mx, x, y, xv, yv, batch_size):
    train = mx.io.NDArrayIter(x, y, batch_size=batch_size, shuffle=False, last_batch_handle='pad')
    val = mx.io.NDArrayIter(xv, yv, batch_size=batch_size, shuffle=False, last_batch_handle='pad')
    return train, val


SGD_PARAMS = (('learning_rate', 0.1), ('momentum', 0.9), ('wd', 1e-3))


def scenario_mlp(mx, nctx=1, kvstore='local', update_on_kvstore=None, work_load_list=None,
                 batch_size=4, fixed_param_names=None, num_epoch=3):
    sym = mlp(mx)
    x, y = classification_data(0)
    xv, yv = classification_data(7, N_VAL)
    arg, aux = initial_params(mx, sym, [('data', (batch_size, N_FEAT))])
    train, val = _iters(mx, x, y, xv, yv, batch_size)
    mod = mx.mod.Module(sym, context=contexts(mx, nctx), work_load_list=work_load_list,
                        fixed_param_names=fixed_param_names)
    old = os.environ.get('MXNET_UPDATE_ON_KVSTORE')
    if update_on_kvstore is not None:
        os.environ['MXNET_UPDATE_ON_KVSTORE'] = '1' if update_on_kvstore else '0'
    try:
        rec = fit_and_record(mx, mod, train, val, arg, aux, num_epoch, optimizer='sgd',
                             optimizer_params=SGD_PARAMS, kvstore=kvstore)
    finally:
        if old is None:
            os.environ.pop('MXNET_UPDATE_ON_KVSTORE', None)
        else:
            os.environ['MXNET_UPDATE_ON_KVSTORE'] = old
    rec['slices'] = _js([[s.start, s.stop] for s in mod._exec_group.slices])
    for name, value in arg.items():
        rec['initial/arg/%s' % name] = value
    return rec


def scenario_conv_bn(mx, nctx=2):
    sym = convnet(mx)
    x, y = classification_data(3, image=True)
    xv, yv = classification_data(8, N_VAL, image=True)
    arg, aux = initial_params(mx, sym, [('data', (6,) + x.shape[1:])])
    train, val = _iters(mx, x, y, xv, yv, 6)
    mod = mx.mod.Module(sym, context=contexts(mx, nctx))
    rec = fit_and_record(mx, mod, train, val, arg, aux, 2, optimizer='adam',
                         optimizer_params=(('learning_rate', 0.01), ('wd', 1e-4)), kvstore='local')
    # per-device aux after the last epoch's get_params + set_params: all equal to the mean
    for name, block in zip(mod._exec_group.aux_names, mod._exec_group.aux_arrays):
        rec['device_aux/%s' % name] = np.stack([a.asnumpy() for a in block])
    return rec


def scenario_linreg(mx, nctx=2):
    sym = linreg(mx)
    x, y = regression_data(4)
    xv, yv = regression_data(9, N_VAL)
    arg, aux = initial_params(mx, sym, [('data', (4, N_FEAT))])
    train = mx.io.NDArrayIter(x, {'lro_label': y}, batch_size=4, shuffle=False)
    val = mx.io.NDArrayIter(xv, {'lro_label': yv}, batch_size=4, shuffle=False)
    mod = mx.mod.Module(sym, label_names=['lro_label'], context=contexts(mx, nctx))
    return fit_and_record(mx, mod, train, val, arg, aux, 3, eval_metric='mse', optimizer='sgd',
                          optimizer_params=(('learning_rate', 0.05), ('momentum', 0.5)), kvstore='local')


def scenario_input_grads(mx, nctx=2):
    rec = {}
    sym = mlp(mx)
    x, y = classification_data(0)
    arg, aux = initial_params(mx, sym, [('data', (6, N_FEAT))])
    mod = mx.mod.Module(sym, context=contexts(mx, nctx))
    mod.bind(data_shapes=[('data', (6, N_FEAT))], label_shapes=[('softmax_label', (6,))],
             inputs_need_grad=True)
    mod.init_params(arg_params=_nd(mx, arg), aux_params=_nd(mx, aux))
    batch = mx.io.DataBatch(data=[mx.nd.array(x[:6])], label=[mx.nd.array(y[:6])])
    mod.forward_backward(batch)
    rec['loss/input_grad'] = mod.get_input_grads()[0].asnumpy()
    rec['loss/input_grad_unmerged_shapes'] = _js(
        [[_shape(g.shape) for g in per_input] for per_input in mod.get_input_grads(merge_multi_context=False)])
    rec['loss/output'] = mod.get_outputs()[0].asnumpy()
    for name, block in zip(mod._exec_group.param_names, mod._exec_group.grad_arrays):
        rec['loss/grad/%s' % name] = np.stack([g.asnumpy() for g in block])

    # a plain head (no loss): backward needs out_grads, which are sliced per device
    data = mx.sym.Variable('data')
    head = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    arg2, _ = initial_params(mx, head, [('data', (6, N_FEAT))], seed=5)
    mod2 = mx.mod.Module(head, label_names=None, context=contexts(mx, nctx))
    mod2.bind(data_shapes=[('data', (6, N_FEAT))], inputs_need_grad=True)
    mod2.init_params(arg_params=_nd(mx, arg2))
    mod2.forward(mx.io.DataBatch(data=[mx.nd.array(x[:6])], label=None), is_train=True)
    head_grad = np.arange(24, dtype=np.float32).reshape(6, 4) / 10.0
    mod2.backward(out_grads=[mx.nd.array(head_grad)])
    rec['head/input_grad'] = mod2.get_input_grads()[0].asnumpy()
    rec['head/output'] = mod2.get_outputs()[0].asnumpy()
    for name, block in zip(mod2._exec_group.param_names, mod2._exec_group.grad_arrays):
        rec['head/grad/%s' % name] = np.stack([g.asnumpy() for g in block])
    rec['head/names'] = _js({'label': list(mod2.label_names), 'label_shapes': mod2.label_shapes})
    return rec


def scenario_reshape(mx, nctx=2):
    rec = {}
    sym = mlp(mx)
    x, y = classification_data(0)
    arg, aux = initial_params(mx, sym, [('data', (4, N_FEAT))])
    mod = mx.mod.Module(sym, context=contexts(mx, nctx))
    mod.bind(data_shapes=[('data', (4, N_FEAT))], label_shapes=[('softmax_label', (4,))])
    mod.init_params(arg_params=_nd(mx, arg), aux_params=_nd(mx, aux))
    mod.init_optimizer(optimizer='sgd', optimizer_params=SGD_PARAMS, kvstore='local')

    def step(tag, n, start, provide=False):
        kw = {}
        if provide:
            kw = dict(provide_data=[mx.io.DataDesc('data', (n, N_FEAT))],
                      provide_label=[mx.io.DataDesc('softmax_label', (n,))])
        batch = mx.io.DataBatch(data=[mx.nd.array(x[start:start + n])], label=[mx.nd.array(y[start:start + n])],
                                **kw)
        mod.forward(batch, is_train=True)
        mod.backward()
        mod.update()
        rec['%s/output' % tag] = mod.get_outputs()[0].asnumpy()
        shapes = _shapes_now(mod)
        shapes['slices'] = [[s.start, s.stop] for s in mod._exec_group.slices]
        rec['%s/shapes' % tag] = _js(shapes)

    step('b4', 4, 0)
    step('b5', 5, 4)          # 5 over 2 devices: round(2.5) = 2, the last device gets 3
    step('b4again', 4, 9)
    arg_now, aux_now = mod.get_params()
    _record_params(rec, 'after_steps/', arg_now, aux_now)
    # predict on a labelled iterator of another batch size; its last batch is padded
    xp, yp = classification_data(11, 7)
    it = mx.io.NDArrayIter(xp, yp, batch_size=3, shuffle=False, last_batch_handle='pad')
    rec['predict_b3'] = mod.predict(it).asnumpy()
    rec['predict_b3_shapes'] = _js(_shapes_now(mod))
    # an unlabelled iterator of the bound batch size (4; the last batch padded by 1)
    it = mx.io.NDArrayIter(xp, batch_size=4, shuffle=False, last_batch_handle='pad')
    rec['predict_b4_nolabel'] = mod.predict(it).asnumpy()
    rec['predict_b4_nolabel_shapes'] = _js(_shapes_now(mod))
    # train again on a batch of another size that says what it provides: the re-bind brings
    # the labels back.  (Not at the current size 4: MXNet then skips the re-bind, and since
    # the unlabelled predict left label_shapes None it would silently train on stale labels;
    # nor without provide_label: MXNet then fails zipping label_shapes None.)
    step('b5after', 5, 13, provide=True)
    return rec


def _shapes_now(mod):
    return {
        'output_shapes': [[nm, _shape(s)] for nm, s in mod.output_shapes],
        'unmerged': [[_shape(o.shape) for o in per] for per in mod.get_outputs(merge_multi_context=False)],
        'data_shapes': [[d.name, _shape(d.shape)] for d in mod.data_shapes],
        'label_shapes': (None if mod.label_shapes is None
                         else [[d.name, _shape(d.shape)] for d in mod.label_shapes])}


def scenario_reshape_unlabelled(mx, nctx):
    """predict on an unlabelled iterator whose batch size differs from the bound one.

    MXNet 1.9.1 cannot: the re-bind without a label shape changes softmax_label's shape,
    which its executor reshape refuses ("Shape of unspecifie arg: softmax_label changed").
    Recorded: whether it raises, and if not, the predictions.
    """
    sym = mlp(mx)
    arg, aux = initial_params(mx, sym, [('data', (4, N_FEAT))])
    mod = mx.mod.Module(sym, context=contexts(mx, nctx))
    mod.bind(data_shapes=[('data', (4, N_FEAT))], label_shapes=[('softmax_label', (4,))],
             for_training=False)
    mod.init_params(arg_params=_nd(mx, arg), aux_params=_nd(mx, aux))
    xp = classification_data(11, 7)[0]
    it = mx.io.NDArrayIter(xp, batch_size=3, shuffle=False, last_batch_handle='pad')
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            pred = mod.predict(it).asnumpy()
        return {'raises': _js(False), 'predict': pred}
    except Exception as err:    # noqa: BLE001 -- MXNet raises its own MXNetError
        return {'raises': _js(True), 'error': _js(str(err).splitlines()[-1][:200])}


def scenario_checkpoint(mx, workdir, optimizer, nctx, optimizer_params, kvstore='local'):
    """Uninterrupted 3 epochs vs 2 epochs + checkpoint + Module.load + 1 epoch."""
    rec = {}
    sym = mlp(mx)
    x, y = classification_data(0)
    xv, yv = classification_data(7, N_VAL)
    arg, aux = initial_params(mx, sym, [('data', (4, N_FEAT))])
    ctx = contexts(mx, nctx)

    train, val = _iters(mx, x, y, xv, yv, 4)
    full = mx.mod.Module(sym, context=ctx)
    full.fit(train, kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
             arg_params=_nd(mx, arg), aux_params=_nd(mx, aux), num_epoch=3)
    _record_params(rec, 'uninterrupted/', *full.get_params())

    prefix = os.path.join(workdir, 'ckpt')
    dc_prefix = os.path.join(workdir, 'dc')
    train, val = _iters(mx, x, y, xv, yv, 4)
    first = mx.mod.Module(sym, context=ctx)

    def save(epoch, s, a, x_):
        first.save_checkpoint(prefix, epoch + 1, save_optimizer_states=True)

    first.fit(train, kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
              arg_params=_nd(mx, arg), aux_params=_nd(mx, aux), num_epoch=2,
              epoch_end_callback=[mx.callback.do_checkpoint(dc_prefix), save])
    _record_params(rec, 'epoch2/', *first.get_params())
    # the files MXNet's names say a checkpoint has; reflib adds a manifest per epoch
    # (prefix-0001.checkpoint, see reflib/checkpoint.py), which MXNet does not write
    rec['files'] = _js(sorted(f for f in os.listdir(workdir) if not f.endswith('.checkpoint')))
    # what do_checkpoint wrote agrees with the module's own checkpoint
    s2, a2, x2 = mx.model.load_checkpoint(dc_prefix, 2)
    _record_params(rec, 'do_checkpoint2/', a2, x2)
    rec['loaded_names'] = _js({'args': s2.list_arguments(), 'outputs': s2.list_outputs(),
                               'arg_params': sorted(a2), 'aux_params': sorted(x2)})

    resumed = mx.mod.Module.load(prefix, 2, load_optimizer_states=True, context=ctx)
    train, val = _iters(mx, x, y, xv, yv, 4)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')     # "Parameters already initialized", as in any resume
        resumed.fit(train, kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                    begin_epoch=2, num_epoch=3)
    _record_params(rec, 'resumed/', *resumed.get_params())
    # without the optimizer states (momentum / Adam moments start from zero)
    fresh = mx.mod.Module.load(prefix, 2, load_optimizer_states=False, context=ctx)
    train, val = _iters(mx, x, y, xv, yv, 4)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        fresh.fit(train, kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                  begin_epoch=2, num_epoch=3)
    _record_params(rec, 'resumed_no_states/', *fresh.get_params())
    return rec


CHECKPOINTS = {
    'checkpoint_sgd': dict(optimizer='sgd', nctx=1, optimizer_params=SGD_PARAMS),
    'checkpoint_adam': dict(optimizer='adam', nctx=2,
                            optimizer_params=(('learning_rate', 0.01), ('wd', 1e-4))),
}


def resume_from(mx, prefix, optimizer, nctx, optimizer_params, kvstore='local'):
    """Module.load(prefix, 2, states) + one epoch: used by the tests on MXNet's own files."""
    x, y = classification_data(0)
    xv, yv = classification_data(7, N_VAL)
    train, _ = _iters(mx, x, y, xv, yv, 4)
    mod = mx.mod.Module.load(prefix, 2, load_optimizer_states=True, context=contexts(mx, nctx))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        mod.fit(train, kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                begin_epoch=2, num_epoch=3)
    return mod.get_params()


def scenarios():
    """name -> function(mx, workdir) returning the record."""
    out = {
        'mlp_1ctx': lambda mx, wd: scenario_mlp(mx, 1),
        'mlp_2ctx_local': lambda mx, wd: scenario_mlp(mx, 2, 'local'),
        'mlp_2ctx_device': lambda mx, wd: scenario_mlp(mx, 2, 'device'),
        'mlp_2ctx_noupdkv': lambda mx, wd: scenario_mlp(mx, 2, 'local', update_on_kvstore=False),
        'conv_bn_2ctx_adam': lambda mx, wd: scenario_conv_bn(mx, 2),
        'workload_2_1': lambda mx, wd: scenario_mlp(mx, 2, 'local', work_load_list=[2, 1], batch_size=9),
        'fixed_params': lambda mx, wd: scenario_mlp(mx, 2, 'local', fixed_param_names=['fc1_weight', 'fc1_bias']),
        'input_grads': lambda mx, wd: scenario_input_grads(mx, 2),
        'linreg_mse': lambda mx, wd: scenario_linreg(mx, 2),
        'reshape': lambda mx, wd: scenario_reshape(mx, 2),
        'reshape_unlabelled_1ctx': lambda mx, wd: scenario_reshape_unlabelled(mx, 1),
        'reshape_unlabelled_2ctx': lambda mx, wd: scenario_reshape_unlabelled(mx, 2),
    }
    for name, kw in CHECKPOINTS.items():
        out[name] = (lambda kw: lambda mx, wd: scenario_checkpoint(mx, wd, **kw))(kw)
    return out


def main():
    import logging
    import mxnet as mx
    logging.getLogger().setLevel(logging.ERROR)
    rec = {}
    for name, fn in scenarios().items():
        workdir = tempfile.mkdtemp()
        try:
            for label, value in fn(mx, workdir).items():
                rec['%s/%s' % (name, label)] = value
            if name in CHECKPOINTS:
                for fname in ('ckpt-symbol.json', 'ckpt-0002.params', 'ckpt-0002.states'):
                    shutil.copy(os.path.join(workdir, fname),
                                os.path.join(HERE, 'module_%s' % fname.replace('ckpt', name)))
        finally:
            shutil.rmtree(workdir)
        print(name, 'ok')
    np.savez_compressed(OUT, **rec)
    print('wrote', OUT, os.path.getsize(OUT), 'bytes,', len(rec), 'entries')


if __name__ == '__main__':
    main()
