"""Regenerate optimizer.npz: MXNet 1.9.1's numbers for reflib/optimizer.py and reflib/lr_scheduler.py.

Run with a Python that has the real MXNet 1.9.1 (the tests only read the .npz):

    python tests/golden/gen_optimizer.py

What is stored (keys are ``<case>/...``; ``<case>/meta`` is a JSON string):

* optimizer cases: two parameters (``fc_weight`` (3, 4), ``fc_bias`` (4,)), five steps
  of fixed gradients, driven through ``get_updater`` (one call per index, or one call
  with the list of indices, as Module does) or through
  ``create_state_multi_precision`` + ``update_multi_precision`` directly.  Stacked over
  the steps (first axis = step): both weights (``w0``, ``w1``), every array of every
  state (``s<param>_<j>``, flattened; the meta records the state's structure as a
  string such as ``T[N,A]``), the gradients after the update (``g0``, ``g1``: AdaDelta
  scales them in place) and ``optimizer.learning_rate`` (``lr``).
* restore cases: ``Updater.get_states()`` bytes written by MXNet after five steps (with
  and without ``dump_optimizer``), and the weights of two more steps after restoring.
* multiplier cases: ``_get_lr``/``_get_wd`` of every argument of a small network whose
  variables carry ``lr_mult``/``wd_mult`` attributes, before and after
  ``set_lr_mult``/``set_wd_mult``.
* scheduler cases: the learning rate a scheduler returns for a sequence of
  ``num_update`` values (schedulers keep state, so the order of the calls matters).
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

warnings.simplefilter('ignore')

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'optimizer.npz')
STEPS = 5
PARAMS = [('fc_weight', (3, 4)), ('fc_bias', (4,))]
rng = np.random.default_rng(20240611)
INIT = [rng.normal(size=shape).astype(np.float32) for _, shape in PARAMS]
GRADS = [[(rng.normal(size=shape) * 2.0).astype(np.float32) for _, shape in PARAMS]
         for _ in range(STEPS + 2)]

rec = {'init/0': INIT[0], 'init/1': INIT[1]}
for k, gs in enumerate(GRADS):
    for p, g in enumerate(gs):
        rec['grads/%d/%d' % (k, p)] = g

OPT_CASES = []


def opt_case(name, opt, kwargs, mode='updater', dtype='float32', idx2name=True, sched=None,
             params=(0, 1), no_noise=False):
    """``params``: the parameters updated (GroupAdaGrad takes 2-D weights only); ``no_noise``:
    SGLD's Gaussian noise replaced by zeros, so its deterministic part is recorded."""
    OPT_CASES.append(dict(name=name, opt=opt, kwargs=kwargs, mode=mode, dtype=dtype,
                          idx2name=idx2name, sched=sched, params=list(params), no_noise=no_noise))


# --- SGD
opt_case('sgd_plain', 'sgd', dict(learning_rate=0.1))
opt_case('sgd_mom', 'sgd', dict(learning_rate=0.1, momentum=0.9))
opt_case('sgd_mom_wd_clip_rescale', 'SGD',
         dict(learning_rate=0.1, momentum=0.9, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
opt_case('sgd_wd_clip_noidx2name', 'sgd', dict(learning_rate=0.2, wd=0.1, clip_gradient=0.7),
         idx2name=False)
opt_case('sgd_mom_list_call', 'sgd', dict(learning_rate=0.1, momentum=0.8, wd=0.01),
         mode='updater_list')
opt_case('sgd_mom_direct', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.02),
         mode='direct')
opt_case('sgd_factor_sched', 'sgd', dict(learning_rate=0.1, momentum=0.9),
         sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=1.0)])
opt_case('sgd_poly_sched_lr_ignored', 'sgd', dict(learning_rate=0.5),
         sched=['PolyScheduler', dict(max_update=4, base_lr=0.1, pwr=2)])
opt_case('sgd_begin_num_update', 'sgd', dict(learning_rate=0.1, begin_num_update=3),
         sched=['MultiFactorScheduler', dict(step=[4, 6], factor=0.1, base_lr=0.1)])
opt_case('sgd_fp16_mp_mom', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.01,
                                        multi_precision=True), dtype='float16')
opt_case('sgd_fp16_mp_nomom', 'sgd', dict(learning_rate=0.1, multi_precision=True, clip_gradient=1.5),
         dtype='float16')
opt_case('sgd_fp16_mp_list_call', 'sgd', dict(learning_rate=0.1, momentum=0.9, multi_precision=True),
         dtype='float16', mode='updater_list')
opt_case('sgd_fp16_no_mp', 'sgd', dict(learning_rate=0.1, momentum=0.9), dtype='float16')
opt_case('sgd_mom_rescale_noclip', 'sgd', dict(learning_rate=0.1, momentum=0.9, rescale_grad=0.3))
opt_case('sgd_clip_zero_is_off', 'sgd', dict(learning_rate=0.1, clip_gradient=0))
opt_case('sgd_fp64_mom_wd', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.03), dtype='float64')
opt_case('sgd_fp32_mp_noop', 'sgd', dict(learning_rate=0.1, momentum=0.9, multi_precision=True))
# --- NAG
opt_case('nag_mom', 'nag', dict(learning_rate=0.1, momentum=0.9))
opt_case('nag_mom_wd_clip_rescale', 'NAG',
         dict(learning_rate=0.1, momentum=0.9, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
opt_case('nag_mom_wd_rescale', 'nag', dict(learning_rate=0.1, momentum=0.9, wd=0.05, rescale_grad=0.3))
opt_case('nag_nomom', 'nag', dict(learning_rate=0.1, wd=0.05))
opt_case('nag_nomom_rescale_clip', 'nag', dict(learning_rate=0.1, wd=0.05, rescale_grad=0.3,
                                               clip_gradient=0.4))
opt_case('nag_fp16_mp_wd_clip', 'nag', dict(learning_rate=0.1, momentum=0.9, wd=0.05, clip_gradient=1.0,
                                            multi_precision=True), dtype='float16')
opt_case('nag_fp16_mp_nomom', 'nag', dict(learning_rate=0.1, wd=0.05, multi_precision=True),
         dtype='float16')
opt_case('nag_fp16_mp', 'nag', dict(learning_rate=0.1, momentum=0.9, multi_precision=True),
         dtype='float16')
# --- Adam
opt_case('adam_default', 'adam', dict())
opt_case('adam_wd_clip_rescale', 'Adam',
         dict(learning_rate=0.05, beta1=0.8, beta2=0.95, epsilon=1e-3, wd=0.05,
              clip_gradient=1.0, rescale_grad=0.5))
opt_case('adam_sched', 'adam', dict(learning_rate=0.01),
         sched=['MultiFactorScheduler', dict(step=[2, 4], factor=0.5, base_lr=0.01)])
opt_case('adam_fp16_mp', 'adam', dict(learning_rate=0.01, multi_precision=True), dtype='float16')
opt_case('adam_fp16_no_mp', 'adam', dict(learning_rate=0.01, wd=0.01), dtype='float16')
opt_case('adam_fp64', 'adam', dict(learning_rate=0.01, wd=0.01, clip_gradient=2.0), dtype='float64')
opt_case('adam_begin_num_update', 'adam', dict(learning_rate=0.01, begin_num_update=10))
# --- AdaGrad
opt_case('adagrad_default', 'adagrad', dict(learning_rate=0.1))
opt_case('adagrad_wd_clip_rescale', 'AdaGrad',
         dict(learning_rate=0.1, eps=1e-3, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
opt_case('adagrad_clip_zero_clips', 'adagrad', dict(learning_rate=0.1, clip_gradient=0))
# --- RMSProp
opt_case('rmsprop_default', 'rmsprop', dict())
opt_case('rmsprop_wd_clip_rescale', 'RMSProp',
         dict(learning_rate=0.01, gamma1=0.8, epsilon=1e-4, wd=0.05, clip_gradient=1.0,
              rescale_grad=0.5))
opt_case('rmsprop_centered', 'rmsprop', dict(learning_rate=0.01, centered=True))
opt_case('rmsprop_centered_all', 'rmsprop',
         dict(learning_rate=0.05, gamma1=0.7, gamma2=0.6, epsilon=1e-3, centered=True, wd=0.05,
              clip_gradient=1.0, rescale_grad=0.5, clip_weights=0.9))
opt_case('rmsprop_clip_weights', 'rmsprop', dict(learning_rate=0.2, clip_weights=0.5))
# --- AdaDelta
opt_case('adadelta_default', 'adadelta', dict())
opt_case('adadelta_wd_clip_rescale', 'AdaDelta',
         dict(rho=0.8, epsilon=1e-3, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
# --- ccSGD, Test
opt_case('ccsgd_mom', 'ccsgd', dict(learning_rate=0.1, momentum=0.9, wd=0.01))
opt_case('test_rescale', 'test', dict(rescale_grad=0.5))
# --- Signum / signSGD
opt_case('signum_default', 'signum', dict())
opt_case('signum_wd_wdlh_clip_rescale', 'Signum',
         dict(learning_rate=0.02, momentum=0.8, wd=0.05, wd_lh=0.02, clip_gradient=1.0, rescale_grad=0.5))
opt_case('signsgd_wd_rescale', 'signum', dict(learning_rate=0.02, momentum=0.0, wd=0.05, rescale_grad=0.5,
                                              clip_gradient=0.1))
opt_case('signum_sched', 'signum', dict(momentum=0.9),
         sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=0.05)])
opt_case('signum_fp16_mp', 'signum', dict(learning_rate=0.01, wd=0.01, multi_precision=True), dtype='float16')
# --- FTML
opt_case('ftml_default', 'ftml', dict())
opt_case('ftml_wd_clip_rescale', 'FTML', dict(learning_rate=0.05, beta1=0.7, beta2=0.99, epsilon=1e-6, wd=0.05,
                                              clip_gradient=1.0, rescale_grad=0.5))
opt_case('ftml_sched', 'ftml', dict(), sched=['MultiFactorScheduler', dict(step=[2, 4], factor=0.5, base_lr=0.02)])
opt_case('ftml_fp64', 'ftml', dict(learning_rate=0.02, wd=0.01), dtype='float64')
opt_case('ftml_fp16_mp', 'ftml', dict(learning_rate=0.02, multi_precision=True), dtype='float16')
# --- Ftrl
opt_case('ftrl_default', 'ftrl', dict())
opt_case('ftrl_all', 'Ftrl', dict(lamda1=0.05, learning_rate=0.2, beta=0.5, wd=0.05, clip_gradient=1.0,
                                  rescale_grad=0.5))
opt_case('ftrl_sched', 'ftrl', dict(lamda1=0.001), sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=0.3)])
# --- Adamax
opt_case('adamax_default', 'adamax', dict())
opt_case('adamax_wd_clip_rescale', 'Adamax', dict(learning_rate=0.01, beta1=0.8, beta2=0.95, wd=0.05,
                                                  clip_gradient=1.0, rescale_grad=0.5))
opt_case('adamax_fp16_mp', 'adamax', dict(learning_rate=0.01, multi_precision=True), dtype='float16')
opt_case('adamax_sched', 'adamax', dict(), sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=0.01)])
# --- Nadam (its momentum schedule is one product over all weights' updates)
opt_case('nadam_default', 'nadam', dict())
opt_case('nadam_wd_clip_rescale', 'Nadam', dict(learning_rate=0.01, beta1=0.8, beta2=0.95, epsilon=1e-4,
                                                schedule_decay=0.01, wd=0.05, clip_gradient=1.0,
                                                rescale_grad=0.5))
opt_case('nadam_list_call', 'nadam', dict(learning_rate=0.01), mode='updater_list')
opt_case('nadam_fp16_mp', 'nadam', dict(learning_rate=0.01, multi_precision=True), dtype='float16')
# --- SGLD (noise replaced by zeros)
opt_case('sgld_nonoise', 'sgld', dict(learning_rate=0.1), no_noise=True)
opt_case('sgld_nonoise_wd_clip_rescale', 'SGLD', dict(learning_rate=0.1, wd=0.05, clip_gradient=1.0,
                                                      rescale_grad=0.5), no_noise=True)
opt_case('sgld_nonoise_clip_zero', 'sgld', dict(learning_rate=0.1, wd=0.05, clip_gradient=0), no_noise=True)
# --- DCASGD (without momentum: MXNet 1.9.1 fails with it)
opt_case('dcasgd_default', 'dcasgd', dict(learning_rate=0.1))
opt_case('dcasgd_all', 'DCASGD', dict(learning_rate=0.1, lamda=0.5, wd=0.05, clip_gradient=1.0,
                                      rescale_grad=0.5))
opt_case('dcasgd_clip_zero', 'dcasgd', dict(learning_rate=0.1, wd=0.05, clip_gradient=0))
# --- LARS (through the Updater MXNet always takes its multi-tensor path)
opt_case('lars_default', 'lars', dict(learning_rate=0.1))
opt_case('lars_mom_wd', 'LARS', dict(learning_rate=0.1, momentum=0.9, eta=0.01, eps=1e-3, wd=0.01))
opt_case('lars_mom_sched_correction', 'lars', dict(momentum=0.9, eta=0.02, wd=0.01),
         sched=['FactorScheduler', dict(step=1, factor=0.5, base_lr=0.5)])
opt_case('lars_mom_sched_no_correction', 'lars', dict(momentum=0.9, eta=0.02, momentum_correction=False),
         sched=['FactorScheduler', dict(step=1, factor=0.5, base_lr=0.5)])
opt_case('lars_noidx2name_clip_rescale', 'lars', dict(learning_rate=0.1, momentum=0.9, eta=0.05, wd=0.05,
                                                      clip_gradient=0.3, rescale_grad=0.5), idx2name=False)
opt_case('lars_list_call', 'lars', dict(learning_rate=0.1, momentum=0.8, eta=0.02, wd=0.01),
         mode='updater_list', sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=0.1)])
opt_case('lars_fp16_mp', 'lars', dict(learning_rate=0.1, momentum=0.9, eta=0.02, multi_precision=True),
         dtype='float16')
opt_case('lars_fp16_mp_nomom', 'lars', dict(learning_rate=0.1, eta=0.02, multi_precision=True),
         dtype='float16')
# --- LBSGD
opt_case('lbsgd_default', 'lbsgd', dict(learning_rate=0.1))
opt_case('lbsgd_scale2_linear', 'LBSGD', dict(learning_rate=0.1, momentum=0.9, batch_scale=2, warmup_epochs=1,
                                              updates_per_epoch=4, wd=0.01))
opt_case('lbsgd_scale3_power2_rescale_clip', 'lbsgd',
         dict(learning_rate=0.1, momentum=0.5, batch_scale=3, warmup_epochs=2, updates_per_epoch=2,
              warmup_strategy='power2', rescale_grad=0.5, clip_gradient=0.4))
opt_case('lbsgd_scale2_sqrt_begin_epoch', 'lbsgd', dict(learning_rate=0.1, batch_scale=2, warmup_epochs=2,
                                                        updates_per_epoch=3, warmup_strategy='sqrt',
                                                        begin_epoch=1))
opt_case('lbsgd_lars', 'lbsgd', dict(learning_rate=0.1, momentum=0.9, warmup_strategy='lars', wd=0.01))
opt_case('lbsgd_sched_read_before_count', 'lbsgd', dict(momentum=0.9),
         sched=['FactorScheduler', dict(step=1, factor=0.5, base_lr=0.2)])
opt_case('lbsgd_fp16_mp', 'lbsgd', dict(learning_rate=0.1, momentum=0.9, multi_precision=True), dtype='float16')
# --- LAMB (Updater: multi-tensor kernel; direct: the two-phase kernels)
opt_case('lamb_default', 'lamb', dict())
opt_case('lamb_all', 'LAMB', dict(learning_rate=0.01, beta1=0.8, beta2=0.99, epsilon=1e-4, wd=0.05,
                                  clip_gradient=1.0, rescale_grad=0.5, lower_bound=0.5, upper_bound=2.0))
opt_case('lamb_upper_only_no_bias_correction', 'lamb', dict(learning_rate=0.01, upper_bound=1.0,
                                                            bias_correction=False))
opt_case('lamb_list_sched', 'lamb', dict(wd=0.01), mode='updater_list',
         sched=['FactorScheduler', dict(step=2, factor=0.5, base_lr=0.01)])
opt_case('lamb_direct', 'lamb', dict(learning_rate=0.01, wd=0.01), mode='direct')
opt_case('lamb_direct_all', 'lamb', dict(learning_rate=0.01, beta1=0.8, beta2=0.99, epsilon=1e-4, wd=0.05,
                                         clip_gradient=1.0, rescale_grad=0.5, lower_bound=0.5,
                                         upper_bound=2.0, bias_correction=False), mode='direct')
opt_case('lamb_fp16_mp', 'lamb', dict(learning_rate=0.01, multi_precision=True), dtype='float16')
opt_case('lamb_fp16_mp_direct_master_never_written', 'lamb', dict(learning_rate=0.01, multi_precision=True),
         dtype='float16', mode='direct')
opt_case('lamb_fp64', 'lamb', dict(learning_rate=0.01, wd=0.01), dtype='float64')
# --- GroupAdaGrad (2-D weights only)
opt_case('groupadagrad_default', 'groupadagrad', dict(learning_rate=0.1), params=[0])
opt_case('groupadagrad_clip_rescale', 'GroupAdaGrad', dict(learning_rate=0.1, eps=1e-3, clip_gradient=0.5,
                                                           rescale_grad=0.5), params=[0])


def state_layout(state):
    """(structure string, list of numpy arrays): T[...] tuple, L[...] list, N None, A array."""
    if state is None:
        return 'N', []
    if isinstance(state, mx.nd.NDArray):
        return 'A', [state.asnumpy()]
    parts = [state_layout(s) for s in state]
    tag = 'T' if isinstance(state, tuple) else 'L'
    return tag + '[' + ','.join(p[0] for p in parts) + ']', [a for p in parts for a in p[1]]


def make_sched(spec):
    if spec is None:
        return None
    cls, kw = spec
    return getattr(mx.lr_scheduler, cls)(**kw)


def make_opt(c):
    kw = dict(c['kwargs'])
    if c['idx2name']:
        kw['param_idx2name'] = {i: n for i, (n, _) in enumerate(PARAMS)}
    if c['sched'] is not None:
        kw['lr_scheduler'] = make_sched(c['sched'])
    return mx.optimizer.create(c['opt'], **kw)


def arrays(values, dtype):
    return [mx.nd.array(v, dtype=dtype) for v in values]


def zero_noise(loc, scale, shape=None, dtype=None, ctx=None, **kwargs):
    return mx.nd.zeros(shape, ctx=ctx, dtype=dtype)


def run_case(c):
    real_normal = mx.optimizer.optimizer.normal
    if c['no_noise']:
        mx.optimizer.optimizer.normal = zero_noise
    try:
        record_case(c)
    finally:
        mx.optimizer.optimizer.normal = real_normal


def record_case(c):
    name, dtype = c['name'], c['dtype']
    ps = c['params']
    opt = make_opt(c)
    updater = mx.optimizer.get_updater(opt)
    weights = arrays(INIT, dtype)
    states = {}
    lrs = []
    hist = {}
    for k in range(STEPS):
        grads = arrays(GRADS[k], dtype)
        if c['mode'] == 'updater':
            for p in ps:
                updater(p, grads[p], weights[p])
            states = updater.states
        elif c['mode'] == 'updater_list':
            updater(list(ps), [grads[p] for p in ps], [weights[p] for p in ps])
            states = updater.states
        else:
            for p in ps:
                if p not in states:
                    states[p] = opt.create_state_multi_precision(p, weights[p])
                opt.update_multi_precision(p, weights[p], grads[p], states[p])
        lrs.append(opt.learning_rate)
        layout = []
        for p in ps:
            hist.setdefault('w%d' % p, []).append(weights[p].asnumpy())
            hist.setdefault('g%d' % p, []).append(grads[p].asnumpy())
            tag, arrs = state_layout(states[p])
            layout.append(tag)
            for j, a in enumerate(arrs):
                hist.setdefault('s%d_%d' % (p, j), []).append(a)
    # one array per quantity, stacked over the steps
    for key, values in hist.items():
        rec['%s/%s' % (name, key)] = np.stack(values)
    rec['%s/lr' % name] = np.array(lrs, dtype=np.float64)
    meta = dict(c, layout=layout)
    rec['%s/meta' % name] = np.array(json.dumps(meta))


# ------------------------------------------------------------ get_states / set_states
RESTORE_CASES = [
    ('restore_sgd_mom', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.01), False),
    ('restore_adam_states_only', 'adam', dict(learning_rate=0.01), False),
    ('restore_adam_dump_optimizer', 'adam', dict(learning_rate=0.01), True),
    ('restore_rmsprop_centered_dump', 'rmsprop',
     dict(learning_rate=0.01, centered=True,
          lr_scheduler=['FactorScheduler', dict(step=3, factor=0.5, base_lr=0.01)]), True),
    ('restore_lamb', 'lamb', dict(learning_rate=0.01, wd=0.01), False),
    ('restore_ftml_dump', 'ftml', dict(learning_rate=0.01), True),
    ('restore_nadam_dump', 'nadam', dict(learning_rate=0.01), True),   # m_schedule travels along
    ('restore_dcasgd', 'dcasgd', dict(learning_rate=0.1, lamda=0.5), False),
    ('restore_lars_dump', 'lars', dict(momentum=0.9, eta=0.02,
                                       lr_scheduler=['FactorScheduler', dict(step=1, factor=0.5,
                                                                             base_lr=0.5)]), True),
    ('restore_signum', 'signum', dict(learning_rate=0.01), False),
    ('restore_ftrl_dump', 'ftrl', dict(), True),
    ('restore_adamax', 'adamax', dict(), False),
]


def restore_opt(opt_name, kwargs):
    kwargs = dict(kwargs)
    if 'lr_scheduler' in kwargs:
        kwargs['lr_scheduler'] = make_sched(kwargs['lr_scheduler'])
    return mx.optimizer.create(opt_name, **kwargs)


def run_restore(name, opt_name, kwargs, dump):
    opt = restore_opt(opt_name, kwargs)
    updater = mx.optimizer.get_updater(opt)
    weights = arrays(INIT, 'float32')
    for k in range(STEPS):
        for p, g in enumerate(arrays(GRADS[k], 'float32')):
            updater(p, g, weights[p])
    blob = updater.get_states(dump_optimizer=dump)
    rec['%s/blob' % name] = np.frombuffer(blob, dtype=np.uint8)
    for p in range(len(PARAMS)):
        rec['%s/w_before/%d' % (name, p)] = weights[p].asnumpy()
    # what a fresh updater does after set_states, in MXNet
    fresh = mx.optimizer.get_updater(restore_opt(opt_name, kwargs))
    fresh.set_states(blob)
    for k in range(STEPS, STEPS + 2):
        for p, g in enumerate(arrays(GRADS[k], 'float32')):
            fresh(p, g, weights[p])
        for p in range(len(PARAMS)):
            rec['%s/after%d/w%d' % (name, k, p)] = weights[p].asnumpy()
    rec['%s/meta' % name] = np.array(json.dumps(dict(opt=opt_name, kwargs=kwargs, dump=dump)))


# ------------------------------------------------------------ lr_mult / wd_mult
def multiplier_net(sym):
    data = sym.Variable('data')
    w = sym.Variable('fc1_weight', lr_mult=2.0)
    b = sym.Variable('fc1_bias', wd_mult=0.5)
    net = sym.FullyConnected(data, weight=w, bias=b, num_hidden=3, name='fc1')
    net = sym.BatchNorm(net, name='bn1')
    with mx.AttrScope(lr_mult='0.1'):
        net = sym.FullyConnected(net, num_hidden=2, name='fc2')
    return net


def run_multipliers():
    net = multiplier_net(mx.sym)
    names = net.list_arguments()
    idx2name = dict(enumerate(names))
    out = {}
    for label, use_sym, use_idx in [('sym_idx2name', True, True), ('sym_only', True, False),
                                    ('idx2name_only', False, True)]:
        kw = dict(learning_rate=0.1, wd=0.01)
        if use_sym:
            kw['sym'] = net
        if use_idx:
            kw['param_idx2name'] = idx2name
        opt = mx.optimizer.create('sgd', **kw)
        before = [[opt._get_lr(i), opt._get_wd(i)] for i in idx2name]
        by_name = [[opt._get_lr(n), opt._get_wd(n)] for n in names]
        opt.set_lr_mult({'fc2_bias': 5.0, 0: 7.0})
        opt.set_wd_mult({'bn1_beta': 3.0, 'fc1_weight': 2.0})
        after = [[opt._get_lr(i), opt._get_wd(i)] for i in idx2name]
        out[label] = dict(before=before, by_name=by_name, after=after,
                          lr_mult=opt.lr_mult, wd_mult={str(k): v for k, v in opt.wd_mult.items()})
    rec['multipliers/names'] = np.array(json.dumps(names))
    rec['multipliers/result'] = np.array(json.dumps(out))


# ------------------------------------------------------------ schedulers
SEQ = list(range(0, 31))
JUMPY = [0, 1, 25, 3, 26, 60, 61, 200]
SCHED_CASES = [
    ('factor', 'FactorScheduler', dict(step=3, factor=0.5, base_lr=0.2), SEQ),
    ('factor_stop', 'FactorScheduler', dict(step=2, factor=0.1, stop_factor_lr=1e-4, base_lr=1.0), SEQ),
    ('factor_jumpy', 'FactorScheduler', dict(step=5, factor=0.9, base_lr=0.1), JUMPY),
    ('factor_warmup_linear', 'FactorScheduler',
     dict(step=4, factor=0.5, base_lr=0.1, warmup_steps=5, warmup_begin_lr=0.01), SEQ),
    ('factor_warmup_constant', 'FactorScheduler',
     dict(step=4, factor=0.5, base_lr=0.1, warmup_steps=5, warmup_begin_lr=0.01,
          warmup_mode='constant'), SEQ),
    ('multifactor', 'MultiFactorScheduler', dict(step=[3, 7, 20], factor=0.5, base_lr=0.1), SEQ),
    ('multifactor_jumpy', 'MultiFactorScheduler', dict(step=[3, 7, 20], factor=0.5, base_lr=0.1),
     JUMPY),
    ('multifactor_warmup', 'MultiFactorScheduler',
     dict(step=[8, 12], factor=0.1, base_lr=0.1, warmup_steps=6, warmup_begin_lr=0.0), SEQ),
    ('poly', 'PolyScheduler', dict(max_update=20, base_lr=0.1, pwr=2), SEQ),
    ('poly_final_pwr1', 'PolyScheduler', dict(max_update=20, base_lr=0.1, pwr=1, final_lr=0.01), SEQ),
    ('poly_warmup', 'PolyScheduler',
     dict(max_update=20, base_lr=0.1, pwr=3, final_lr=0.001, warmup_steps=4, warmup_begin_lr=0.02),
     SEQ),
    ('poly_jumpy', 'PolyScheduler', dict(max_update=20, base_lr=0.1, pwr=2), JUMPY),
    ('cosine', 'CosineScheduler', dict(max_update=20, base_lr=0.1), SEQ),
    ('cosine_final_warmup', 'CosineScheduler',
     dict(max_update=24, base_lr=0.1, final_lr=0.01, warmup_steps=4, warmup_begin_lr=0.05), SEQ),
    ('cosine_jumpy', 'CosineScheduler', dict(max_update=20, base_lr=0.1), JUMPY),
]


def run_scheduler(name, cls, kw, seq):
    sched = getattr(mx.lr_scheduler, cls)(**kw)
    lrs = [sched(n) for n in seq]
    rec['sched_%s/seq' % name] = np.array(seq, dtype=np.int64)
    rec['sched_%s/lr' % name] = np.array(lrs, dtype=np.float64)
    rec['sched_%s/meta' % name] = np.array(json.dumps(dict(cls=cls, kwargs=kw)))


def main():
    for c in OPT_CASES:
        run_case(c)
    for args in RESTORE_CASES:
        run_restore(*args)
    run_multipliers()
    for args in SCHED_CASES:
        run_scheduler(*args)
    rec['index/opt_cases'] = np.array(json.dumps([c['name'] for c in OPT_CASES]))
    rec['index/registry'] = np.array(json.dumps(sorted(mx.optimizer.Optimizer.opt_registry)))
    rec['index/restore_cases'] = np.array(json.dumps([r[0] for r in RESTORE_CASES]))
    rec['index/sched_cases'] = np.array(json.dumps(['sched_' + s[0] for s in SCHED_CASES]))
    np.savez_compressed(OUT, **rec)
    print('wrote %s: %d arrays, %d bytes' % (OUT, len(rec), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
