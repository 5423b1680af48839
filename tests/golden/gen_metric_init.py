"""Regenerate metric_init.json: MXNet 1.9.1's numbers for reflib/metric.py,
reflib/initializer.py and reflib/callback.py.

Run with a Python that has the real MXNet 1.9.1 (the tests only read the .json):

    python tests/golden/gen_metric_init.py

What is stored:

* ``metrics``: scripted cases.  Each case names how to build a metric (``create``) and a
  list of steps (``update``, ``update_dict``, ``reset_local``, ``reset``, ``get``).  Every
  ``get`` step records get(), get_global(), get_name_value() and get_global_name_value();
  a step that raises records the exception's class name instead.  The test replays the
  same steps on reflib.
* ``create``: what ``mx.metric.create(name, **kwargs)`` builds for the registered names
  and aliases (class name and metric name), plus str() and get_config() of a few.
* ``init``: ``dumps()`` strings, InitDesc, the by-name dispatch of ``Initializer.__call__``
  (InitDesc and legacy plain-string names), ``__init__`` attributes, Mixed, Load,
  Bilinear, LSTMBias, a BatchNorm network through Module.init_params, and the exact
  (low, high) / (loc, scale) that Uniform/Normal/Xavier/MSRAPrelu hand to the random
  generator for several shapes.
* ``callbacks``: the log lines of Speedometer, log_train_metric and
  LogValidationMetricsCallback under a fake clock.
"""

import json
import logging
import math
import os
import types
import warnings
from collections import OrderedDict

import numpy as np
import mxnet as mx
from mxnet.model import BatchEndParam

warnings.simplefilter('ignore')

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'metric_init.json')
rng = np.random.RandomState(42)


def arr(a):
    """An array as stored in the JSON: {"shape", "data"} (float32)."""
    a = np.asarray(a, dtype=np.float32)
    return {'shape': list(a.shape), 'data': a.ravel().tolist()}


def nd(spec):
    return mx.nd.array(np.array(spec['data'], np.float32).reshape(spec['shape']))


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def probs(n, k):
    return softmax_rows(rng.randn(n, k)).astype(np.float32)


# ------------------------------------------------------------------ custom evals
# (the test defines the same functions under the same keys)
def mean_abs(label, pred):
    return float(np.abs(label.ravel() - pred.ravel()[:label.size]).mean())


def sum_count(label, pred):
    return float((pred.argmax(axis=1) == label.ravel()).sum()), int(label.size)


FEVALS = {'mean_abs': mean_abs, 'sum_count': sum_count,
          'lambda': lambda label, pred: float(pred.sum() - label.sum())}


def make_metric(create):
    kind = create[0]
    if kind == 'create':
        return mx.metric.create(create[1], **create[2])
    if kind == 'class':
        return getattr(mx.metric, create[1])(**create[2])
    if kind == 'custom':
        return mx.metric.create(FEVALS[create[1]], **create[2])
    if kind == 'np':
        return mx.metric.np(FEVALS[create[1]], **create[2])
    if kind == 'list':
        return mx.metric.create(create[1])
    raise ValueError(kind)


def values(pair):
    name, value = pair
    if isinstance(value, list):
        return [name, [float(v) for v in value]]
    return [name, float(value)]


def pairs(nv):
    return [[n, float(v)] for n, v in nv]


def run_metric_case(case):
    results = []
    try:
        m = make_metric(case['create'])
    except Exception as err:  # noqa: BLE001
        return {'create_error': type(err).__name__}
    for step in case['steps']:
        op = step[0]
        try:
            if op == 'update':
                labels = [nd(a) for a in step[1]]
                preds = [nd(a) for a in step[2]]
                m.update(labels, preds)
                results.append(None)
            elif op == 'update_single':  # bare NDArrays, not lists
                m.update(nd(step[1]), nd(step[2]))
                results.append(None)
            elif op == 'update_dict':
                m.update_dict(OrderedDict((k, nd(v)) for k, v in step[1]),
                              OrderedDict((k, nd(v)) for k, v in step[2]))
                results.append(None)
            elif op == 'reset_local':
                m.reset_local()
                results.append(None)
            elif op == 'reset':
                m.reset()
                results.append(None)
            elif op == 'get':
                results.append({'get': values(m.get()), 'get_global': values(m.get_global()),
                                'nv': pairs(m.get_name_value()),
                                'gnv': pairs(m.get_global_name_value())})
            else:
                raise ValueError(op)
        except Exception as err:  # noqa: BLE001
            results.append({'error': type(err).__name__})
    return {'name': m.name, 'results': results}


METRIC_CASES = []


def mcase(key, create, steps):
    METRIC_CASES.append({'key': key, 'create': create, 'steps': steps})


G = ['get']
RL = ['reset_local']

# classification batches
p1 = probs(6, 3)
p1[2] = [0.4, 0.4, 0.2]          # a tie: argmax takes the first
l1 = np.array([0, 1, 2, 1, 0, 2], np.float32)
p2 = probs(5, 3)
l2 = np.array([2, 2, 0, 1, 1], np.float32)
p3 = probs(4, 3)
l3 = np.array([1, 0, 0, 2], np.float32)
cls_steps = [['update', [arr(l1)], [arr(p1)]], G, ['update', [arr(l2)], [arr(p2)]], G, RL, G,
             ['update', [arr(l3)], [arr(p3)]], G, ['reset'], G]

mcase('acc', ['create', 'acc', {}], cls_steps)
mcase('acc_label_col', ['create', 'accuracy', {}],
      [['update', [arr(l1.reshape(6, 1))], [arr(p1)]], G])
mcase('acc_class_indices', ['class', 'Accuracy', {}],
      [['update', [arr(l1)], [arr([0, 1, 1, 2.7, 0, 1.9])]], G,
       ['update', [arr([[1.2, 0], [2, 1]])], [arr([[1, 0], [2, 2]])]], G])
mcase('acc_axis0', ['class', 'Accuracy', {'axis': 0}],
      [['update', [arr(l1)], [arr(p1.T)]], G])
mcase('acc_two_outputs', ['create', 'acc', {}],
      [['update', [arr(l1), arr(l2)], [arr(p1), arr(p2)]], G])
mcase('acc_len_mismatch', ['create', 'acc', {}],
      [['update', [arr(l1), arr(l2)], [arr(p1)]], G])
mcase('acc_size_mismatch', ['create', 'acc', {}],
      [['update', [arr(l2)], [arr(p1)]], G])
mcase('acc_single_ndarray', ['create', 'acc', {}],
      [['update_single', arr(l1), arr(p1)], G])
mcase('acc_update_dict_names', ['class', 'Accuracy',
                                {'output_names': ['b_output'], 'label_names': ['b_label']}],
      [['update_dict', [['a_label', arr(l1)], ['b_label', arr(l2)]],
        [['a_output', arr(p1)], ['b_output', arr(p2)]]], G])
mcase('acc_update_dict_all', ['class', 'Accuracy', {}],
      [['update_dict', [['a_label', arr(l1)], ['b_label', arr(l2)]],
        [['a_output', arr(p1)], ['b_output', arr(p2)]]], G])
mcase('acc_empty', ['create', 'acc', {}], [G])

q1 = rng.rand(6, 5).astype(np.float32)
q2 = rng.rand(4, 5).astype(np.float32)
ql1 = np.array([0, 4, 2, 3, 1, 1], np.float32)
ql2 = np.array([3, 3, 0, 2], np.float32)
topk_steps = [['update', [arr(ql1)], [arr(q1)]], G, ['update', [arr(ql2)], [arr(q2)]], G, RL, G]
mcase('topk2', ['create', 'top_k_accuracy', {'top_k': 2}], topk_steps)
mcase('topk3', ['class', 'TopKAccuracy', {'top_k': 3}], topk_steps)
mcase('topk9', ['create', 'top_k_acc', {'top_k': 9}], topk_steps)
mcase('topk1', ['class', 'TopKAccuracy', {'top_k': 1}], topk_steps)

b1 = probs(8, 2)
bl1 = np.array([1, 0, 1, 1, 0, 0, 1, 0], np.float32)
b2 = probs(6, 2)
bl2 = np.array([0, 1, 1, 0, 1, 1], np.float32)
b_none = np.tile(np.array([[0.9, 0.1]], np.float32), (4, 1))   # never predicts the positive class
bl_none = np.array([1, 0, 1, 0], np.float32)
bin_steps = [['update', [arr(bl1)], [arr(b1)]], G, ['update', [arr(bl2)], [arr(b2)]], G,
             ['update', [arr(bl_none)], [arr(b_none)]], G, RL, G,
             ['update', [arr(bl1), arr(bl2)], [arr(b1), arr(b2)]], G]
mcase('f1_macro', ['create', 'f1', {}], bin_steps)
mcase('f1_micro', ['class', 'F1', {'average': 'micro'}], bin_steps)
mcase('f1_multiclass_error', ['create', 'f1', {}], [['update', [arr(l1)], [arr(p1)]], G])
mcase('mcc_macro', ['create', 'mcc', {}], bin_steps)
mcase('mcc_micro', ['class', 'MCC', {'average': 'micro'}], bin_steps)

pl1 = np.array([0, 1, 2, 1, -1, 2], np.float32)
perp_steps = [['update', [arr(pl1)], [arr(p1)]], G, ['update', [arr(l2.reshape(5, 1))], [arr(p2)]], G, RL, G]
mcase('perplexity_none', ['create', 'perplexity', {'ignore_label': None}], perp_steps)
mcase('perplexity_ignore_m1', ['class', 'Perplexity', {'ignore_label': -1}], perp_steps)
mcase('perplexity_ignore_1', ['class', 'Perplexity', {'ignore_label': 1}], perp_steps)
mcase('perplexity_axis0', ['class', 'Perplexity', {'ignore_label': None, 'axis': 0}],
      [['update', [arr([0, 2, 1])], [arr(probs(3, 3).T)]], G])
mcase('perplexity_zero_prob', ['class', 'Perplexity', {'ignore_label': None}],
      [['update', [arr([0, 1])], [arr([[0.0, 1.0], [0.5, 0.5]])]], G])
mcase('perplexity_shape_error', ['class', 'Perplexity', {'ignore_label': None}],
      [['update', [arr(l2)], [arr(p1)]], G])

y1 = rng.randn(4).astype(np.float32)
yp1 = rng.randn(4, 1).astype(np.float32)
y2 = rng.randn(3, 2).astype(np.float32)
yp2 = rng.randn(3, 2).astype(np.float32)
y3 = rng.randn(5).astype(np.float32)
yp3 = rng.randn(5).astype(np.float32)
yq = rng.randn(4, 2).astype(np.float32)         # label (4,) vs pred (4, 2): broadcasts
reg_steps = [['update', [arr(y1)], [arr(yp1)]], G, ['update', [arr(y2)], [arr(yp2)]], G,
             ['update', [arr(y3), arr(y1)], [arr(yp3), arr(yq)]], G, RL, G,
             ['update', [arr(y3)], [arr(yp3)]], G]
for name in ('mae', 'mse', 'rmse'):
    mcase(name, ['create', name, {}], reg_steps)
mcase('rmse_upper', ['create', 'RMSE', {}], reg_steps[:4])

ce_steps = [['update', [arr(l1)], [arr(p1)]], G, ['update', [arr(l2.reshape(5, 1))], [arr(p2)]], G, RL, G,
            ['update', [arr([0, 1])], [arr([[0.0, 1.0], [1.0, 0.0]])]], G]
mcase('ce', ['create', 'ce', {}], ce_steps)
mcase('ce_eps', ['class', 'CrossEntropy', {'eps': 1e-3}], ce_steps)
mcase('nll', ['create', 'nll_loss', {}], ce_steps)
mcase('ce_mismatch', ['create', 'ce', {}], [['update', [arr(l2)], [arr(p1)]], G])

pc1 = rng.randn(6).astype(np.float32)
pcp1 = (pc1 + 0.5 * rng.randn(6)).astype(np.float32)
pc2 = rng.randn(5).astype(np.float32)
pcp2 = (-pc2 + rng.randn(5)).astype(np.float32)
pear_steps = [['update', [arr(pc1)], [arr(pcp1)]], G, ['update', [arr(pc2)], [arr(pcp2)]], G]
mcase('pearsonr_macro', ['create', 'pearsonr', {}], pear_steps)
mcase('pearsonr_micro', ['class', 'PearsonCorrelation', {'average': 'micro'}], pear_steps)
mcase('pearsonr_shape_error', ['create', 'pearsonr', {}], [['update', [arr(pc1)], [arr(pc2)]], G])

pcc_l2 = np.array([0, 3, 3, 1, 2], np.float32)   # class 3 appears: the confusion matrix grows
mcase('pcc', ['create', 'pcc', {}],
      [['update', [arr(l1)], [arr(p1)]], G, ['update', [arr(pcc_l2)], [arr(probs(5, 4))]], G, RL, G,
       ['update', [arr(l3)], [arr([1, 0, 2, 2])]], G])

lo1 = rng.rand(4).astype(np.float32)
lo2 = rng.rand(2, 3).astype(np.float32)
mcase('loss', ['create', 'loss', {}],
      [['update', [], [arr(lo1)]], G, ['update', [], [arr(lo2), arr(lo1)]], G, RL, G,
       ['update_single', arr(lo1), arr(lo2)], G])
mcase('loss_torch', ['create', 'torch', {}], [['update', [], [arr(lo1)]], G])
mcase('loss_caffe', ['create', 'caffe', {}], [['update', [], [arr(lo2)]], G])

mcase('custom_mean_abs', ['custom', 'mean_abs', {}],
      [['update', [arr(y3)], [arr(yp3)]], G, ['update', [arr(y1), arr(y3)], [arr(yp1), arr(yp3)]], G, RL, G])
mcase('custom_sum_count', ['custom', 'sum_count', {'name': 'my_acc'}], cls_steps)
mcase('custom_lambda', ['custom', 'lambda', {}], [['update', [arr(y3)], [arr(yp3)]], G])
mcase('custom_extra_outputs', ['np', 'mean_abs', {'allow_extra_outputs': True}],
      [['update', [arr(y3)], [arr(yp3), arr(yp1)]], G])
mcase('custom_extra_outputs_refused', ['np', 'mean_abs', {}],
      [['update', [arr(y3)], [arr(yp3), arr(yp1)]], G])
mcase('np_decorator', ['np', 'sum_count', {'name': 'npacc'}], cls_steps[:4])

mcase('composite_list', ['list', ['acc', 'ce', 'f1']],
      [['update', [arr(bl1)], [arr(b1)]], G, ['update', [arr(bl2)], [arr(b2)]], G, RL, G])
mcase('composite_names', ['class', 'CompositeEvalMetric',
                          {'metrics': ['acc', 'ce'], 'output_names': ['sm_output'],
                           'label_names': ['sm_label']}],
      [['update_dict', [['sm_label', arr(l1)], ['other_label', arr(l2)]],
        [['other_output', arr(p2)], ['sm_output', arr(p1)]]], G,
       ['update_dict', [['sm_label', arr(l3)]], [['sm_output', arr(p3)]]], G, RL, G])
mcase('composite_of_name_kwargs_pairs', ['list', [['top_k_accuracy', {'top_k': 2}]]], [G])  # not a valid spec

# ------------------------------------------------------------------ create
CREATE_NAMES = [['acc', {}], ['ACC', {}], ['accuracy', {}], ['Accuracy', {}],
                ['top_k_accuracy', {'top_k': 3}], ['top_k_acc', {'top_k': 2}], ['TopKAccuracy', {'top_k': 4}],
                ['top_k_accuracy', {}], ['f1', {}], ['F1', {'average': 'micro'}], ['mcc', {}],
                ['perplexity', {'ignore_label': None}], ['perplexity', {}], ['mae', {}], ['mse', {}],
                ['rmse', {}], ['ce', {}], ['crossentropy', {}], ['CrossEntropy', {'eps': 1e-5}],
                ['nll_loss', {}], ['negativeloglikelihood', {}], ['pearsonr', {}],
                ['pearsoncorrelation', {}], ['pcc', {}], ['loss', {}], ['torch', {}], ['caffe', {}],
                ['composite', {}], ['compositeevalmetric', {}], ['acc', {'name': 'my_acc'}]]
create_res = []
for name, kwargs in CREATE_NAMES:
    try:
        m = mx.metric.create(name, **kwargs)
        create_res.append({'class': type(m).__name__, 'name': m.name})
    except Exception as err:  # noqa: BLE001
        create_res.append({'error': type(err).__name__})
configs = {}
for key, m in [('acc', mx.metric.Accuracy(axis=0, name='a', output_names=['x'])),
               ('topk', mx.metric.TopKAccuracy(top_k=3)), ('ce', mx.metric.CrossEntropy(eps=0.1)),
               ('perp', mx.metric.Perplexity(ignore_label=-1)), ('f1', mx.metric.F1(average='micro')),
               ('rmse', mx.metric.RMSE(label_names=['l']))]:
    configs[key] = m.get_config()
# every other form mx.metric.create accepts (MXNet's registry: JSON strings, config dicts, the
# metric= keyword); each built metric is described by class, name and get_config()
composite_cfg = mx.metric.CompositeEvalMetric(['acc', 'ce'], name='both').get_config()
CREATE_FORMS = [
    ['json_list', ['["acc", {"axis": 0}]'], {}],
    ['json_list_topk', ['["top_k_accuracy", {"top_k": 3, "name": "top3"}]'], {}],
    ['json_list_upper', ['["ACC", {}]'], {}],
    ['json_dict', ['{"metric": "f1", "average": "micro"}'], {}],
    ['json_dict_perplexity', ['{"metric": "perplexity", "ignore_label": -1, "name": "ppl"}'], {}],
    ['json_dict_class_name', ['{"metric": "CrossEntropy", "eps": 0.001}'], {}],
    ['json_composite_config', [json.dumps(composite_cfg)], {}],
    ['config_dict', [mx.metric.Accuracy(axis=0, name='a', output_names=['x']).get_config()], {}],
    ['config_dict_plus_kwargs', [{'metric': 'acc'}], {'name': 'renamed'}],
    ['keyword_metric', [], {'metric': 'mse'}],
    ['keyword_metric_kwargs', [], {'metric': 'top_k_accuracy', 'top_k': 2}],
    ['json_list_unknown', ['["nosuch", {}]'], {}],
    ['json_list_extra_kwargs', ['["acc", {}]'], {'axis': 0}],
    ['json_bad', ['[acc'], {}],
    ['list_with_json', [['acc', '["top_k_accuracy", {"top_k": 2}]']], {}],
]


def describe(m):
    out = {'class': type(m).__name__, 'name': m.name}
    if isinstance(m, mx.metric.CompositeEvalMetric):
        out['children'] = [describe(c) for c in m.metrics]
    out['config'] = m.get_config()
    return out


forms_res = []
for key, args, kwargs in CREATE_FORMS:
    try:
        forms_res.append(describe(mx.metric.create(*args, **kwargs)))
    except Exception as err:  # noqa: BLE001
        forms_res.append({'error': type(err).__name__})

acc_str = mx.metric.Accuracy()
acc_str.update([mx.nd.array(l1)], [mx.nd.array(p1)])
str_results = {'acc': str(acc_str), 'empty_mse': str(mx.metric.MSE())}

# ------------------------------------------------------------------ initializers
INIT = {}
INIT['dumps'] = {k: v.dumps() for k, v in [
    ('uniform', mx.init.Uniform()), ('uniform_0.1', mx.init.Uniform(0.1)), ('normal', mx.init.Normal()),
    ('normal_0.5', mx.init.Normal(0.5)), ('xavier', mx.init.Xavier()),
    ('xavier_in', mx.init.Xavier(factor_type='in', magnitude=2.34)),
    ('xavier_gauss_out', mx.init.Xavier('gaussian', 'out', 2)), ('msra', mx.init.MSRAPrelu()),
    ('msra_in', mx.init.MSRAPrelu('in', 0.1)), ('constant', mx.init.Constant(0.25)),
    ('constant_int', mx.init.Constant(3)), ('constant_nd', mx.init.Constant(mx.nd.array([[1, 2], [3, 4]]))),
    ('constant_np', mx.init.Constant(np.array([0.5, 1.5]))), ('zero', mx.init.Zero()), ('one', mx.init.One()),
    ('orthogonal', mx.init.Orthogonal()), ('orthogonal_normal', mx.init.Orthogonal(2.0, 'normal')),
    ('bilinear', mx.init.Bilinear()), ('lstmbias', mx.init.LSTMBias(1.5))]}

desc = mx.init.InitDesc('fc1_weight', {'__init__': '["zero", {}]', 'lr_mult': '2'})
INIT['initdesc'] = {'str': str(desc), 'repr': repr(desc), 'attrs': desc.attrs,
                    'global_init': desc.global_init, 'isstr': isinstance(desc, str),
                    'plain_attrs': mx.init.InitDesc('x').attrs}

DISPATCH_NAMES = ['fc1_weight', 'fc1_bias', 'bn_gamma', 'bn_beta', 'bn_moving_mean', 'bn_moving_var',
                  'bn_moving_inv_var', 'x_moving_avg', 'q_min', 'q_max', 'weight', 'myweight', 'fcbias',
                  'running_mean', 'running_var', 'foo', 'upsampling0_weight', 'stn_loc_weight',
                  'stn_loc_bias', 'data']


def try_init(initializer, name, shape, legacy):
    a = mx.nd.full(shape, -7.0)
    try:
        if legacy:
            initializer(name, a)
        else:
            initializer(mx.init.InitDesc(name), a)
        return {'value': arr(a.asnumpy())}
    except Exception as err:  # noqa: BLE001
        return {'error': type(err).__name__}


def loc_shape(name):
    return (6,) if name == 'stn_loc_bias' else (1, 1, 4, 4) if name.startswith('upsampling') else (2, 3)


INIT['dispatch'] = {name: try_init(mx.init.Constant(0.5), name, loc_shape(name), False)
                    for name in DISPATCH_NAMES}
INIT['dispatch_legacy'] = {name: try_init(mx.init.Constant(0.5), name, loc_shape(name), True)
                           for name in DISPATCH_NAMES}

ATTR_CASES = [['w', '["zero", {}]'], ['w', '["one", {}]'], ['w', '["constant", {"value": 0.25}]'],
              ['bn_moving_var', '["one", {}]'], ['fc_bias', '["constant", {"value": 2.0}]'],
              ['w', '["Constant", {"value": [[1, 2, 3], [4, 5, 6]]}]'], ['w', '["zeros", {}]'],
              ['lstm_bias', '["lstmbias", {"forget_bias": 2.0}]'], ['odd', '["one", {}]'],
              ['w', '["nosuchinit", {}]']]
attr_res = []
for name, init in ATTR_CASES:
    a = mx.nd.full((2, 3) if name != 'lstm_bias' else (8,), -7.0)
    try:
        mx.init.Uniform(0.1)(mx.init.InitDesc(name, {'__init__': init}), a)
        attr_res.append({'value': arr(a.asnumpy())})
    except Exception as err:  # noqa: BLE001
        attr_res.append({'error': type(err).__name__})
INIT['attr_cases'] = ATTR_CASES
INIT['attr_results'] = attr_res

# Mixed
mixed = mx.init.Mixed(['.*bias', 'fc2_.*', '.*'], [mx.init.Zero(), mx.init.Constant(0.3), mx.init.One()])
INIT['mixed'] = {name: try_init(mixed, name, (2, 2), False)
                 for name in ['fc1_bias', 'fc2_weight', 'fc1_weight', 'bn_gamma', 'fc2_bias', 'xfc2_weight']}
mixed_nomatch = mx.init.Mixed(['bias'], [mx.init.Zero()])
INIT['mixed_nomatch'] = try_init(mixed_nomatch, 'fc1_weight', (2,), False)
INIT['mixed_match_anchor'] = try_init(mixed_nomatch, 'fc_bias', (2,), False)

# Load
load_src = {'arg:fc1_weight': mx.nd.array([[1, 2], [3, 4]]), 'aux:bn_moving_mean': mx.nd.array([5, 6]),
            'plain': mx.nd.array([7, 8])}
load = mx.init.Load(load_src, default_init=mx.init.Constant(0.7))
INIT['load'] = {name: try_init(load, name, shape, False) for name, shape in
                [('fc1_weight', (2, 2)), ('bn_moving_mean', (2,)), ('plain', (2,)), ('fc2_weight', (3,)),
                 ('fc1_bias', (3,))]}
INIT['load_mismatch'] = try_init(load, 'fc1_weight', (4,), False)
INIT['load_nodefault'] = try_init(mx.init.Load(load_src), 'other_weight', (2,), False)

# Bilinear / LSTMBias / Constant array values
INIT['bilinear'] = {str(s): try_init(mx.init.Bilinear(), 'up_weight', s, False)
                    for s in [(1, 1, 4, 4), (2, 1, 3, 3), (1, 2, 2, 5)]}
INIT['lstmbias'] = try_init(mx.init.LSTMBias(1.5), 'lstm_weight', (8,), False)
INIT['constant_array'] = try_init(mx.init.Constant(mx.nd.array([1, 2, 3])), 'c_weight', (2, 3), False)

# scales handed to the random generator
calls = []
orig_uniform, orig_normal = mx.random.uniform, mx.random.normal


def rec_uniform(low, high, shape=None, *args, **kwargs):
    calls.append(['uniform', float(low), float(high), list(shape)])
    return orig_uniform(low, high, shape, *args, **kwargs)


def rec_normal(loc, scale, shape=None, *args, **kwargs):
    calls.append(['normal', float(loc), float(scale), list(shape)])
    return orig_normal(loc, scale, shape, *args, **kwargs)


mx.random.uniform, mx.random.normal = rec_uniform, rec_normal
SCALE_INITS = [['uniform', {}], ['uniform', {'scale': 0.1}], ['normal', {}], ['normal', {'sigma': 0.5}],
               ['xavier', {}], ['xavier', {'factor_type': 'in'}], ['xavier', {'factor_type': 'out'}],
               ['xavier', {'rnd_type': 'gaussian', 'magnitude': 2.34}],
               ['xavier', {'rnd_type': 'gaussian', 'factor_type': 'in', 'magnitude': 2}],
               ['msraprelu', {}], ['msraprelu', {'factor_type': 'out', 'slope': 0.1}],
               ['xavier', {'factor_type': 'bogus'}], ['xavier', {'rnd_type': 'bogus'}]]
SCALE_SHAPES = [(64, 3, 3, 3), (10, 20), (7, 5, 2), (4, 6, 1, 1, 3), (5,)]
scale_res = []
for iname, kwargs in SCALE_INITS:
    for shape in SCALE_SHAPES:
        del calls[:]
        init = mx.init.create(iname, **kwargs)
        a = mx.nd.zeros(shape)
        try:
            init(mx.init.InitDesc('conv_weight'), a)
            scale_res.append({'call': calls[0]})
        except Exception as err:  # noqa: BLE001
            scale_res.append({'error': type(err).__name__})
mx.random.uniform, mx.random.normal = orig_uniform, orig_normal
INIT['scale_inits'] = SCALE_INITS
INIT['scale_shapes'] = [list(s) for s in SCALE_SHAPES]
INIT['scale_results'] = scale_res

# a BatchNorm network through Module.init_params with Variable init attributes
data = mx.sym.Variable('data')
fc1 = mx.sym.FullyConnected(data, num_hidden=3, name='fc1')
bn = mx.sym.BatchNorm(fc1, name='bn1')
w2 = mx.sym.Variable('fc2_weight', init=mx.init.Constant(0.25))
b2 = mx.sym.Variable('fc2_bias', init='["one", {}]')
fc2 = mx.sym.FullyConnected(bn, weight=w2, bias=b2, num_hidden=2, name='fc2')
net = mx.sym.SoftmaxOutput(fc2, name='softmax')
INIT['bn_net_json'] = net.tojson()
INIT['bn_net_attrs'] = net.attr_dict()
mod = mx.mod.Module(net, data_names=['data'], label_names=['softmax_label'])
mod.bind(data_shapes=[('data', (4, 5))], label_shapes=[('softmax_label', (4,))])
mod.init_params(mx.init.Constant(0.5))
argp, auxp = mod.get_params()
INIT['bn_net_params'] = {k: arr(v.asnumpy()) for k, v in sorted(list(argp.items()) + list(auxp.items()))}
# a parameter no rule knows
odd = mx.sym.FullyConnected(data, weight=mx.sym.Variable('odd_thing'), no_bias=True, num_hidden=2,
                            name='fc')
mod2 = mx.mod.Module(odd, data_names=['data'], label_names=None)
mod2.bind(data_shapes=[('data', (4, 5))])
try:
    mod2.init_params(mx.init.Uniform())
    INIT['odd_param'] = 'ok'
except Exception as err:  # noqa: BLE001
    INIT['odd_param'] = type(err).__name__

INIT['create'] = {}
for spec in ['zeros', 'Zero', 'ones', 'one', 'constant', '["constant", {"value": 1.5}]', 'xavier',
             '["xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}]',
             'msraprelu', 'nosuch']:
    try:
        kwargs = {'value': 1.0} if spec == 'constant' else {}
        made = mx.init.create(spec, **kwargs)
        INIT['create'][spec] = {'class': type(made).__name__, 'dumps': made.dumps()}
    except Exception as err:  # noqa: BLE001
        INIT['create'][spec] = {'error': type(err).__name__}

# ------------------------------------------------------------------ callbacks
class Clock:
    def __init__(self):
        self.t = 100.0

    def time(self):
        self.t += 0.25
        return self.t


class Grab(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


root = logging.getLogger()
root.setLevel(logging.INFO)


def run_batches(callback, metric, schedule):
    """Feed ``callback`` one BatchEndParam per (epoch, nbatch), updating ``metric`` first."""
    grab = Grab()
    root.addHandler(grab)
    try:
        batches = [(l1, p1), (l2, p2), (l3, p3)]
        for k, (epoch, nbatch) in enumerate(schedule):
            if metric is not None:
                lab, pr = batches[k % 3]
                metric.update([mx.nd.array(lab)], [mx.nd.array(pr)])
            callback(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric, locals=None))
    finally:
        root.removeHandler(grab)
    return grab.lines


SCHEDULE = [(0, i) for i in range(7)] + [(1, i) for i in range(5)]
CALLBACKS = {}
orig_time = mx.callback.time
for key, cb_kwargs, metric in [
        ('speedometer_reset', {'batch_size': 4, 'frequent': 2}, 'acc'),
        ('speedometer_noreset', {'batch_size': 8, 'frequent': 3, 'auto_reset': False}, 'acc'),
        ('speedometer_composite', {'batch_size': 2, 'frequent': 2}, ['acc', 'ce']),
        ('speedometer_nometric', {'batch_size': 5, 'frequent': 2}, None)]:
    mx.callback.time = Clock()
    cb = mx.callback.Speedometer(**cb_kwargs)
    CALLBACKS[key] = run_batches(cb, mx.metric.create(metric) if metric else None, SCHEDULE)
mx.callback.time = orig_time
CALLBACKS['log_train_metric'] = run_batches(mx.callback.log_train_metric(3), mx.metric.create('acc'),
                                            SCHEDULE[:7])
CALLBACKS['log_train_metric_reset'] = run_batches(mx.callback.log_train_metric(2, auto_reset=True),
                                                  mx.metric.create(['acc', 'ce']), SCHEDULE[:7])
CALLBACKS['log_validation'] = run_batches(mx.callback.LogValidationMetricsCallback(),
                                          mx.metric.create('acc'), [(3, 0), (3, 1)])
CALLBACKS['schedule'] = SCHEDULE


golden = {'metrics': [dict(c, **run_metric_case(c)) for c in METRIC_CASES],
          'create': {'names': CREATE_NAMES, 'results': create_res, 'configs': configs,
                     'str': str_results, 'forms': CREATE_FORMS, 'forms_results': forms_res},
          'init': INIT, 'callbacks': CALLBACKS,
          'inputs': {'l1': arr(l1), 'p1': arr(p1), 'l2': arr(l2), 'p2': arr(p2), 'l3': arr(l3),
                     'p3': arr(p3)}}
with open(OUT, 'w') as f:
    # NaN (a metric before any update) is written as NaN, which Python's json reads back
    json.dump(golden, f, indent=None, separators=(',', ':'), sort_keys=False)
print('wrote', OUT, os.path.getsize(OUT), 'bytes')
