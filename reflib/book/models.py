"""The benchmark's three models (chapter 14, bench/): an MLP, LeNet and a small ResNet.

Each function takes the library as ``mx`` and imports nothing, so the same file builds the
same graph in reflib and in MXNet 1.9.1: bench/fit_throughput.py loads it by its path in
MXNet's interpreter, where reflib is not installed.
"""

__all__ = ['build_symbol', 'conv_bn', 'residual_block']


def build_symbol(mx, model):
    data = mx.sym.Variable('data')
    if model == 'mlp':
        net = mx.sym.FullyConnected(data, num_hidden=256, name='fc1')
        net = mx.sym.Activation(net, act_type='relu', name='relu1')
        net = mx.sym.FullyConnected(net, num_hidden=128, name='fc2')
        net = mx.sym.Activation(net, act_type='relu', name='relu2')
        net = mx.sym.FullyConnected(net, num_hidden=10, name='fc3')
    elif model == 'resnet':
        net = conv_bn(mx, data, 16, 'stem', relu=True)
        net = residual_block(mx, net, 16, stride=1, name='block1')
        net = residual_block(mx, net, 32, stride=2, name='block2')
        net = mx.sym.Pooling(net, pool_type='avg', global_pool=True, kernel=(1, 1), name='pool')
        net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=10, name='fc')
    elif model == 'cnn':
        net = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name='conv1')
        net = mx.sym.Activation(net, act_type='tanh', name='tanh1')
        net = mx.sym.Pooling(net, pool_type='max', kernel=(2, 2), stride=(2, 2), name='pool1')
        net = mx.sym.Convolution(net, kernel=(5, 5), num_filter=50, name='conv2')
        net = mx.sym.Activation(net, act_type='tanh', name='tanh2')
        net = mx.sym.Pooling(net, pool_type='max', kernel=(2, 2), stride=(2, 2), name='pool2')
        net = mx.sym.Flatten(net, name='flatten')
        net = mx.sym.FullyConnected(net, num_hidden=500, name='fc1')
        net = mx.sym.Activation(net, act_type='tanh', name='tanh3')
        net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
    else:
        raise ValueError('unknown model %r' % model)
    return mx.sym.SoftmaxOutput(net, name='softmax')


def conv_bn(mx, x, filters, name, stride=1, kernel=3, relu=False):
    pad = (kernel // 2, kernel // 2)
    x = mx.sym.Convolution(x, kernel=(kernel, kernel), stride=(stride, stride), pad=pad, num_filter=filters,
                           no_bias=True, name=name + '_conv')
    x = mx.sym.BatchNorm(x, name=name + '_bn')
    return mx.sym.Activation(x, act_type='relu', name=name + '_relu') if relu else x


def residual_block(mx, x, filters, stride, name):
    """relu(bn(conv(relu(bn(conv(x))))) + shortcut), the shortcut a 1x1 projection when the shape changes."""
    body = conv_bn(mx, x, filters, name + 'a', stride=stride, relu=True)
    body = conv_bn(mx, body, filters, name + 'b')
    shortcut = conv_bn(mx, x, filters, name + 'proj', stride=stride, kernel=1) if stride != 1 else x
    return mx.sym.Activation(body + shortcut, act_type='relu', name=name + '_relu')
