"""``mx.sym.sparse``: the operators MXNet documents for sparse arrays, as symbol functions.

A graph does not change with storage: ``mx.sym.sparse.elemwise_add(a, b)`` is the node
``mx.sym.elemwise_add(a, b)`` makes, and how its arrays are stored is decided when the graph
is bound.  So each name here is the ordinary symbol function of that operator, the very
function ``mx.sym.<name>`` is: reflib/symbol/__init__.py, which makes those, puts them here
(this module imports nothing of the package's, so that the two import no circle).  MXNet's
list also has cast_storage, retain, adagrad_update, _contrib_round_ste and _contrib_sign_ste,
which reflib does not have as graph operators.
"""

from .. import operator as _ops

_OPERATORS = (
    'ElementWiseSum', 'Embedding', 'FullyConnected', 'LinearRegressionOutput', 'LogisticRegressionOutput',
    'MAERegressionOutput', 'abs', 'adam_update', 'add_n', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan',
    'arctanh', 'broadcast_add', 'broadcast_div', 'broadcast_minus', 'broadcast_mul', 'broadcast_plus',
    'broadcast_sub', 'cbrt', 'ceil', 'clip', 'concat', 'cos', 'cosh', 'degrees', 'dot', 'elemwise_add',
    'elemwise_div', 'elemwise_mul', 'elemwise_sub', 'exp', 'expm1', 'fix', 'floor', 'ftrl_update', 'gamma',
    'gammaln', 'log', 'log10', 'log1p', 'log2', 'make_loss', 'mean', 'negative', 'norm', 'radians', 'relu', 'rint',
    'round', 'rsqrt', 'sgd_mom_update', 'sgd_update', 'sigmoid', 'sign', 'sin', 'sinh', 'slice', 'sqrt', 'square',
    'stop_gradient', 'sum', 'tan', 'tanh', 'trunc', 'where', 'zeros_like')

__all__ = [name for name in _OPERATORS if name in _ops.list_operators()]
