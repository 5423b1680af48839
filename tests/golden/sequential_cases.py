"""The SequentialModule scenario gen_sequential.py records in MXNet 1.9.1 and
tests/test_sequential_module.py replays in reflib: MXNet's example/module/sequential_module.py
in small, a ReLU layer module chained to a softmax module that takes the labels, trained with
fit; and a chain trained step by step whose input gradient is read."""

import logging

import numpy as np

BATCH, FEATURES, HIDDEN, CLASSES = 6, 5, 8, 3


def data(mx):
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (30, FEATURES)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32) + (x[:, 1] > 0.5)
    return x, y


def build(mx):
    net1 = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=HIDDEN, name='fc1'),
                             act_type='relu', name='relu1')
    net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=CLASSES, name='fc2'),
                                name='softmax')
    mod1 = mx.mod.Module(net1, label_names=None, context=mx.cpu())
    mod2 = mx.mod.Module(net2, context=mx.cpu())
    seq = mx.mod.SequentialModule()
    seq.add(mod1).add(mod2, take_labels=True, auto_wiring=True)
    return seq


def start_params(mx):
    rng = np.random.RandomState(5)
    shapes = {'fc1_weight': (HIDDEN, FEATURES), 'fc1_bias': (HIDDEN,), 'fc2_weight': (CLASSES, HIDDEN),
              'fc2_bias': (CLASSES,)}
    return {k: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for k, s in sorted(shapes.items())}


def run(mx):
    x, y = data(mx)
    logging.getLogger().setLevel(logging.ERROR)
    record = {}
    train = mx.io.NDArrayIter(x, y, batch_size=BATCH, label_name='softmax_label')
    seq = build(mx)
    metric = mx.metric.Accuracy()
    seq.fit(train, eval_metric=metric, optimizer='sgd', arg_params=start_params(mx),
            optimizer_params={'learning_rate': 0.3, 'momentum': 0.9}, num_epoch=4)
    arg, _ = seq.get_params()
    for k, v in arg.items():
        record['fit/%s' % k] = v.asnumpy()
    record['fit/accuracy'] = np.array(metric.get()[1])
    # step by step, reading the gradient of the input
    seq = build(mx)
    seq.bind([('data', (BATCH, FEATURES))], [('softmax_label', (BATCH,))], inputs_need_grad=True)
    seq.init_params(arg_params=start_params(mx))
    seq.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1})
    batch = mx.io.DataBatch([mx.nd.array(x[:BATCH])], [mx.nd.array(y[:BATCH])])
    seq.forward(batch, is_train=True)
    seq.backward()
    record['step/output'] = seq.get_outputs()[0].asnumpy()
    # (MXNet 1.9.1's SequentialModule.bind never sets inputs_need_grad, so its own
    # get_input_grads always refuses; the first module's is the same array)
    record['step/input_grad'] = seq._modules[0].get_input_grads()[0].asnumpy()
    seq.update()
    for k, v in seq.get_params()[0].items():
        record['step/%s' % k] = v.asnumpy()
    record['names'] = np.array([','.join(seq.data_names), ','.join(seq.output_names),
                                repr([tuple(d) for d in seq.output_shapes])])
    return record


def hinge_grad(scores, labels):
    """The multi-class hinge loss's gradient, in numpy (MXNet's example/module/python_loss.py)."""
    scores, labels = scores.asnumpy(), labels.asnumpy().astype(int)
    n = scores.shape[0]
    margins = scores - scores[np.arange(n), labels][:, None] + 1
    margins[np.arange(n), labels] = 0
    grad = (margins > 0).astype(np.float32)
    grad[np.arange(n), labels] = -grad.sum(axis=1)
    return grad / n


def run_python_loss(mx):
    """A two-layer network chained to a PythonLossModule, trained with fit."""
    x, y = data(mx)
    logging.getLogger().setLevel(logging.ERROR)
    net = mx.sym.FullyConnected(mx.sym.Activation(
        mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=HIDDEN, name='fc1'), act_type='relu'),
        num_hidden=CLASSES, name='fc2')
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(net, label_names=None, context=mx.cpu()))
    seq.add(mx.mod.PythonLossModule(grad_func=hinge_grad), take_labels=True, auto_wiring=True)
    train = mx.io.NDArrayIter(x, y, batch_size=BATCH, label_name='softmax_label')
    metric = mx.metric.Accuracy()
    seq.fit(train, eval_metric=metric, optimizer='sgd', arg_params=start_params(mx),
            optimizer_params={'learning_rate': 0.5, 'momentum': 0.9}, num_epoch=4)
    record = {'pyloss/%s' % k: v.asnumpy() for k, v in seq.get_params()[0].items()}
    record['pyloss/accuracy'] = np.array(metric.get()[1])
    return record
