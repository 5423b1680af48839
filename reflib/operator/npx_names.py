"""The names of MXNet's ``npx`` operators and the registry operator each one runs: ``mx.npx``
(imperative, reflib/numpy_extension) and ``mx.sym.npx`` (symbolic, reflib/symbol/npx.py) are
both made from this one table."""

# npx name -> the registry operator it runs
OPERATORS = {
    'relu': 'relu', 'sigmoid': 'sigmoid', 'softmax': 'softmax', 'log_softmax': 'log_softmax',
    'activation': 'Activation', 'leaky_relu': 'LeakyReLU', 'fully_connected': 'FullyConnected',
    'convolution': 'Convolution', 'deconvolution': 'Deconvolution', 'pooling': 'Pooling',
    'batch_norm': 'BatchNorm', 'layer_norm': 'LayerNorm', 'dropout': 'Dropout', 'embedding': 'Embedding',
    'rnn': 'RNN', 'sequence_mask': 'SequenceMask', 'pick': 'pick', 'one_hot': 'one_hot', 'topk': 'topk',
    'batch_dot': 'batch_dot', 'batch_flatten': 'Flatten', 'reshape_like': 'reshape_like',
    'gather_nd': 'gather_nd', 'smooth_l1': 'smooth_l1', 'erf': 'erf', 'erfinv': 'erfinv', 'gamma': 'gamma',
    'gammaln': 'gammaln', 'cast': 'Cast', 'slice': 'slice', 'shape_array': 'shape_array',
    'roi_pooling': 'ROIPooling', 'multibox_prior': '_contrib_MultiBoxPrior',
    'multibox_target': '_contrib_MultiBoxTarget', 'multibox_detection': '_contrib_MultiBoxDetection',
}
