"""Record golden values for the normalisation layers and losses from real MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (not needed by the tests):

    cd tests/golden && python gen_ops_norm.py

It writes tests/golden/ops_norm.npz with, for every case in CASES, the inputs,
MXNet's forward outputs (is_train=True), fixed head gradients and the input
gradients MXNet's backward gives, plus ``meta`` (see op_cases.py).  The
operators: LRN, LayerNorm, InstanceNorm, GroupNorm, L2Normalization (in
reflib/operator/norm.py and normalize.py), SVMOutput and softmax_cross_entropy
(loss.py), CTCLoss (ctc.py), SoftmaxActivation (softmax_activation.py),
IdentityAttachKLSparseReg (kl_sparse_reg.py).

IdentityAttachKLSparseReg, whose moving average changes in backward, gets two
training steps of its own (keys ``kl_*``, ``meta['kl_sparse_reg']``).

CTCLoss cases with a label too long for its steps record the forward only:
MXNet leaves their gradient unwritten (whatever memory held).
"""

import json
import os

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_norm.npz')


def values(rows):
    return np.array(rows, dtype=np.float32)


NO_LABEL_GRAD = {'no_grad': (1,)}
CTC_DATA = (6, 3, 5)            # T steps, N samples, C symbols

CASES = [
    # LRN: odd, even (a window one channel narrower), 1, wider than the channels
    ('LRN', {'nsize': 3}, [(2, 5, 3, 2)]),
    ('LRN', {'nsize': 5, 'alpha': 0.3, 'beta': 0.6, 'knorm': 1.5}, [(2, 7, 2, 2)]),
    ('LRN', {'nsize': 4, 'alpha': 0.2, 'beta': 1.2, 'knorm': 1.0}, [(1, 6, 2, 3)]),
    ('LRN', {'nsize': 1, 'alpha': 0.5}, [(1, 3, 2, 2)]),
    ('LRN', {'nsize': 7, 'alpha': 0.5, 'knorm': 0.5}, [(2, 3, 2, 2)]),
    # LayerNorm: last axis, another axis, mean and std shown, 1-d data
    ('LayerNorm', {}, [(2, 3, 4), (4,), (4,)]),
    ('LayerNorm', {'axis': 1, 'eps': 0.01}, [(2, 3, 4), (3,), (3,)]),
    ('LayerNorm', {'output_mean_var': True}, [(3, 5), (5,), (5,)]),
    ('LayerNorm', {'axis': 0, 'output_mean_var': True}, [(4, 2, 3), (4,), (4,)]),
    ('LayerNorm', {'axis': -2}, [(2, 3, 1), (3,), (3,)]),
    ('LayerNorm', {}, [(6,), (6,), (6,)]),
    # InstanceNorm: 3-, 4- and 5-d data
    ('InstanceNorm', {}, [(2, 3, 4, 2), (3,), (3,)]),
    ('InstanceNorm', {'eps': 0.1}, [(2, 3, 5), (3,), (3,)]),
    ('InstanceNorm', {}, [(1, 2, 2, 3, 2), (2,), (2,)]),
    # GroupNorm: gamma and beta have one value per group
    ('GroupNorm', {}, [(2, 4, 3), (1,), (1,)]),
    ('GroupNorm', {'num_groups': 2, 'eps': 0.01}, [(2, 6, 2, 2), (2,), (2,)]),
    ('GroupNorm', {'num_groups': 3, 'output_mean_var': True}, [(2, 6, 4), (3,), (3,)]),
    ('GroupNorm', {'num_groups': 4}, [(1, 4, 3, 2), (4,), (4,)]),
    # L2Normalization: each mode, 2-d and 1-d data in instance mode
    ('L2Normalization', {}, [(2, 3, 4)]),
    ('L2Normalization', {'mode': 'channel'}, [(2, 3, 2, 2)]),
    ('L2Normalization', {'mode': 'spatial', 'eps': 0.5}, [(2, 3, 2, 2)]),
    ('L2Normalization', {'mode': 'channel', 'eps': 0.1}, [(2, 4, 3)]),
    ('L2Normalization', {'eps': 0.01}, [(3, 4)]),
    ('L2Normalization', {}, [(5,)]),
    # SVMOutput: L2 and L1, margin and coefficient, scores on the margin, 3-d data, bad labels
    ('SVMOutput', {}, [(4, 5), ((4,), 'index5')]),
    ('SVMOutput', {'use_linear': True}, [(4, 5), ((4,), 'index5')]),
    ('SVMOutput', {'margin': 0.5, 'regularization_coefficient': 2.0}, [(4, 5), ((4,), 'index5')]),
    ('SVMOutput', {'use_linear': True, 'margin': 1.5, 'regularization_coefficient': 0.3},
     [(4, 5), ((4,), 'index5')]),
    ('SVMOutput', {'use_linear': True}, [((3, 4), 'ties'), ((3,), 'index4')]),
    ('SVMOutput', {}, [((3, 4), 'ties'), ((3,), 'index4')]),
    ('SVMOutput', {'margin': 0.8}, [(2, 3, 4), ((2, 3), 'index4')]),
    ('SVMOutput', {}, [(4, 5), values([-1, 0, 7, 2.6])]),
    # softmax_cross_entropy: class labels truncated from floats
    ('softmax_cross_entropy', {}, [(4, 5), ((4,), 'index5')], NO_LABEL_GRAD),
    ('softmax_cross_entropy', {}, [(1, 3), ((1,), 'index3')], NO_LABEL_GRAD),
    ('softmax_cross_entropy', {}, [(3, 5), values([0.7, 2.9, 4.0])], NO_LABEL_GRAD),
    # CTCLoss: padding 0 (blank first) or -1 (blank last); repeats; an empty label; the label
    # ending at the first padding value; per-sample data and label lengths
    ('CTCLoss', {}, [CTC_DATA, values([[1, 2, 0, 0], [3, 3, 0, 0], [1, 2, 3, 4]])], NO_LABEL_GRAD),
    ('ctc_loss', {'blank_label': 'last'}, [CTC_DATA, values([[0, 1, -1, -1], [2, 2, -1, -1], [0, 1, 2, 3]])],
     NO_LABEL_GRAD),
    ('CTCLoss', {}, [CTC_DATA, values([[1, 0, 2, 0], [2, 2, 2, 0], [4, 4, 1, 1]])], NO_LABEL_GRAD),
    ('ctc_loss', {}, [CTC_DATA, values([[0, 0, 0], [1, 0, 0], [2, 3, 0]])], NO_LABEL_GRAD),
    ('CTCLoss', {'blank_label': 'last'}, [CTC_DATA, values([[0, 0, -1, -1], [4, -1, 4, 4], [1, 1, -1, 2]])],
     NO_LABEL_GRAD),
    ('CTCLoss', {'use_data_lengths': True},
     [CTC_DATA, values([[1, 2, 0], [3, 3, 0], [1, 2, 3]]), values([4, 6, 5])], {'no_grad': (1, 2)}),
    ('CTCLoss', {'use_label_lengths': True},
     [CTC_DATA, values([[1, 2, 0, 3], [3, 3, 1, 0], [1, 2, 3, 4]]), values([4, 2, 3])],
     {'no_grad': (1, 2), 'keywords': True}),
    ('CTCLoss', {'use_data_lengths': True, 'use_label_lengths': True, 'blank_label': 'last'},
     [CTC_DATA, values([[0, 1, 3], [2, 2, 2], [1, 0, 1]]), values([5, 6, 3]), values([2, 3, 1])],
     {'no_grad': (1, 2, 3)}),
    ('CTCLoss', {}, [(2, 2, 3), values([[1, 2], [0, 0]])], NO_LABEL_GRAD),
    # forward only: labels needing more steps than given (MXNet: loss 0, gradient unwritten)
    ('CTCLoss', {}, [(5, 2, 4), values([[1, 1, 1, 1], [1, 0, 0, 0]])], {'grad': False}),
    ('CTCLoss', {'use_data_lengths': True}, [(5, 2, 4), values([[1, 2, 3], [1, 0, 0]]), values([2, 5])],
     {'grad': False}),
    # SoftmaxActivation: instance mode is a softmax over the last axis whose backward runs along
    # axis 1 (the true gradient for 2-d data only); channel mode over axis 1
    ('SoftmaxActivation', {}, [(3, 5)]),
    ('SoftmaxActivation', {}, [(2, 3, 4)]),
    ('SoftmaxActivation', {'mode': 'channel'}, [(2, 3, 4)]),
    ('SoftmaxActivation', {'mode': 'channel'}, [(2, 3, 2, 2)]),
]


# IdentityAttachKLSparseReg updates its auxiliary state in backward, which record_cases
# does not keep: two training steps recorded here, from a given moving average
KL_PARAMS = {'sparseness_target': 0.2, 'penalty': 0.01, 'momentum': 0.8}


def record_kl_sparse_reg(arrays, meta):
    rng = np.random.RandomState(5)
    sym = mx.sym.IdentityAttachKLSparseReg(mx.sym.Variable('data'), name='node', **KL_PARAMS)
    exe = sym.simple_bind(mx.cpu(), data=(4, 3))
    arrays['kl_aux0'] = np.array([0.3, 0.5, 0.6], np.float32)
    exe.aux_dict['node_moving_avg'][:] = arrays['kl_aux0']
    for step in (1, 2):
        x = rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
        head = rng.normal(size=(4, 3)).astype(np.float32)
        exe.arg_dict['data'][:] = x
        arrays['kl_out%d' % step] = exe.forward(is_train=True)[0].asnumpy()
        exe.backward([mx.nd.array(head)])
        arrays['kl_in%d' % step], arrays['kl_head%d' % step] = x, head
        arrays['kl_grad%d' % step] = exe.grad_dict['data'].asnumpy()
        arrays['kl_aux%d' % step] = exe.aux_dict['node_moving_avg'].asnumpy()
    meta['kl_sparse_reg'] = {'params': KL_PARAMS, 'aux_names': sym.list_auxiliary_states(),
                             'aux_init': json.loads(sym.tojson())['nodes'][1]['attrs']['__init__']}


def main():
    arrays, meta = {}, {}
    op_cases.record_cases(mx, CASES, arrays, meta)
    record_kl_sparse_reg(arrays, meta)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(CASES), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
