"""``mx.npx``: the switches of MXNet's NumPy interface (``set_np``, ``reset_np``, ``is_np_array``,
``is_np_shape``), the device helpers MXNet's ``npx`` repeats, and MXNet's ``npx`` operators.

Each ``npx`` operator is a registry operator under another name (``npx.relu`` is ``relu``,
``npx.fully_connected`` is ``FullyConnected``, ...), with the same parameters, run through the
one imperative call path (so autograd records it) and its results handed back as
``mx.np.ndarray``.  Not here: ``npx.reshape`` (its shape codes differ from ``Reshape``'s),
``npx.nonzero``, ``npx.arange_like``, ``npx.image`` and ``npx.random``.
"""

from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from ..ndarray.ndarray import _call_operator
from ..numpy.multiarray import _np
from ..util import set_np, reset_np, is_np_array, is_np_shape  # noqa: F401

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


def _npx_function(name, op_name):
    def run(*args, **kwargs):
        return _np(_call_operator(op_name, *args, **kwargs))
    run.__name__ = run.__qualname__ = name
    run.__doc__ = ('``mx.npx.%s``: the ``%s`` operator (same inputs and parameters, see mx.nd.%s), '
                   'its results as mx.np.ndarray.' % (name, op_name, op_name))
    return run


for _name, _op_name in OPERATORS.items():
    globals()[_name] = _npx_function(_name, _op_name)

__all__ = ['set_np', 'reset_np', 'is_np_array', 'is_np_shape', 'waitall', 'Context', 'cpu', 'gpu',
           'cpu_pinned', 'current_context', 'num_gpus'] + sorted(OPERATORS)
