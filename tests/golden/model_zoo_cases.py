"""gluon.model_zoo.vision: the same programs under MXNet 1.9.1 (gen_model_zoo.py records
model_zoo.json) and under reflib (test_model_zoo.py).

A network case builds a zoo model with an explicit prefix (the name MXNet's first instance
gets, so the names read as MXNet's real ones while not depending on what ran before),
initializes it, runs a tiny input once so that deferred shapes become known, then sets
every parameter from a seeded numpy RandomState, in the order of the sorted names (a
draw of at most 4099 values, repeated to fill the tensor), at a
scale that keeps activations near 1 through the depth (weights ~ 1/sqrt(fan-in), BatchNorm
statistics and affine terms near identity).  It records the parameter names and shapes in
collect_params order, and the output in inference mode (BatchNorm on running statistics),
imperative and hybridized; some cases also record the output in training mode (BatchNorm
on batch statistics, under autograd.record) and the export()/SymbolBlock.imports round
trip.  A names case records, for every get_model name, the count and a SHA-1 of the
parameter names and declared shapes (before initialisation), which is small yet exact.
"""

import hashlib
import os
import shutil
import tempfile

import numpy as np

ALL_NAMES = ['resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
             'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2',
             'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn',
             'alexnet', 'squeezenet1.0', 'squeezenet1.1',
             'mobilenet1.0', 'mobilenet0.75', 'mobilenet0.5', 'mobilenet0.25',
             'mobilenetv2_1.0', 'mobilenetv2_0.75', 'mobilenetv2_0.5', 'mobilenetv2_0.25',
             'densenet121', 'densenet161', 'densenet169', 'densenet201', 'inceptionv3']

# case -> (get_model name, keyword arguments, input shape, also train mode and export?)
# (Train mode needs a last stage of more than 1x1 pixels: BatchNorm over two values per channel
# divides by a variance that rounding decides, and the outputs stop being comparable.)
NETWORKS = {
    'resnet18_v1 thumbnail': ('resnet18_v1', dict(classes=10, thumbnail=True, prefix='resnetv10_'),
                              (2, 3, 16, 16), True),
    'resnet18_v2 thumbnail': ('resnet18_v2', dict(classes=10, thumbnail=True, prefix='resnetv20_'),
                              (2, 3, 16, 16), True),
    'resnet50_v1 thumbnail': ('resnet50_v1', dict(classes=10, thumbnail=True, prefix='resnetv10_'),
                              (1, 3, 8, 8), False),
    'resnet18_v1 imagenet stem': ('resnet18_v1', dict(classes=10, prefix='resnetv10_'),
                                  (1, 3, 32, 32), False),
    'alexnet': ('alexnet', dict(classes=10, prefix='alexnet0_'), (1, 3, 64, 64), False),
    'vgg11_bn': ('vgg11_bn', dict(classes=10, prefix='vgg0_'), (1, 3, 32, 32), False),
    'squeezenet1.1': ('squeezenet1.1', dict(classes=10, prefix='squeezenet0_'), (1, 3, 224, 224), False),
    'mobilenet0.25': ('mobilenet0.25', dict(classes=10, prefix='mobilenet0_'), (1, 3, 32, 32), True),
    'mobilenetv2_0.25': ('mobilenetv2_0.25', dict(classes=10, prefix='mobilenetv20_'), (1, 3, 32, 32), True),
    # the smallest inputs their fixed head poolings (7x7 and 8x8) accept: about 3 s each
    'densenet121': ('densenet121', dict(classes=10, prefix='densenet0_'), (1, 3, 224, 224), False),
    'inceptionv3': ('inceptionv3', dict(classes=10, prefix='inception30_'), (1, 3, 299, 299), False),
}


def _v(arr):
    return arr.asnumpy().astype(np.float64).tolist()


def fill(mx, net, seed):
    """Every parameter of ``net`` from RandomState(seed), drawn in sorted-name order."""
    rs = np.random.RandomState(seed)
    params = net.collect_params()
    for name in sorted(params.keys()):
        shape = params[name].shape
        # a prime-length draw repeated over the tensor: as deterministic as a full draw, and
        # cheap for the 4096x4096 Dense layers of AlexNet and VGG
        u = np.resize(rs.uniform(-1, 1, min(int(np.prod(shape)), 4099)), shape)
        if name.endswith('_weight'):
            fan_in = int(np.prod(shape[1:]))
            value = u * np.sqrt(3.0 / fan_in)           # unit variance out for unit variance in
        elif name.endswith('_running_var'):
            value = 1 + 0.5 * np.abs(u)
        elif name.endswith('_gamma'):
            value = 1 + 0.2 * u
        else:                                            # bias, beta, running_mean
            value = 0.1 * u
        params[name].set_data(mx.nd.array(value))


def network_case(mx, case):
    """The record of one NETWORKS case."""
    model, kwargs, shape, extra = NETWORKS[case]
    net = mx.gluon.model_zoo.vision.get_model(model, **kwargs)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(7).uniform(-1, 1, shape))
    net(x)
    fill(mx, net, 1)
    record = {'params': [[name, list(p.shape)] for name, p in net.collect_params().items()],
              'out': _v(net(x))}
    if extra:
        with mx.autograd.record():
            record['out_train'] = _v(net(x))
    net.hybridize()
    record['out_hybrid'] = _v(net(x))
    if extra:
        folder = tempfile.mkdtemp()
        try:
            path = os.path.join(folder, 'net')
            net.export(path)
            record['export_keys'] = sorted(mx.nd.load(path + '-0000.params').keys())
            imported = mx.gluon.SymbolBlock.imports(path + '-symbol.json', ['data'], path + '-0000.params')
            record['out_imported'] = _v(imported(x))
        finally:
            shutil.rmtree(folder)
    return record


def names_case(mx, model):
    """Count and SHA-1 of the names and of the declared shapes, before initialisation."""
    net = mx.gluon.model_zoo.vision.get_model(model, prefix='net_')
    params = net.collect_params()
    names = ' '.join(params.keys())
    shapes = ' '.join(str(tuple(p.shape)) for p in params.values())
    digest = lambda text: hashlib.sha1(text.encode()).hexdigest()  # noqa: E731
    return [len(list(params.keys())), digest(names), digest(shapes)]


def cases_of(mx):
    """Every case, by name, as a function that computes it."""
    cases = {case: (lambda case=case: network_case(mx, case)) for case in NETWORKS}
    cases['names'] = lambda: {model: names_case(mx, model) for model in ALL_NAMES}
    return cases


def run(mx):
    """Every case's record, by name."""
    return {name: fn() for name, fn in cases_of(mx).items()}
