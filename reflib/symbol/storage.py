"""Storage types in a graph: which arguments are sparse, and which gradients come out sparse.

MXNet 1.x runs the same graph on dense and sparse arrays.  A variable says how its array is
stored (``mx.sym.var('x', stype='csr')``, the hidden attribute ``__storage_type__``), and each
operator says how the gradient it sends to an input is stored, given its inputs' storage
(``Operator.grad_stype``).  An argument's gradient is row_sparse when *every* gradient that
reaches it is (``Embedding(sparse_grad=True)``'s weight, the rhs of ``dot(csr, w)``); one
dense contribution makes the sum dense, as MXNet's storage inference decides.  simple_bind
allocates the gradient arrays in these forms, and the executor keeps them so.
"""

from ..base import ParamError
from .symbol import STYPE_IDS, topo_order

__all__ = ['argument_stypes', 'gradient_stypes']

STYPE_NAMES = {v: k for k, v in STYPE_IDS.items()}


def checked_stype(stype, what):
    if stype not in STYPE_IDS:
        raise ParamError("%s: storage type must be one of 'default', 'row_sparse', 'csr', got %r" % (what, stype))
    return stype


def argument_stypes(symbol, stype_dict=None):
    """Each argument's storage type: ``stype_dict``'s, else its variable's, else 'default'."""
    attrs = symbol.attr_dict()
    given = dict(stype_dict or {})
    stypes = {}
    for name in symbol.list_arguments():
        if name in given:
            stypes[name] = checked_stype(given[name], 'stype_dict[%r]' % name)
        else:
            stypes[name] = STYPE_NAMES.get(int(attrs.get(name, {}).get('__storage_type__', 0)), 'default')
    return stypes


def gradient_stypes(symbol, arg_stypes):
    """Each argument's gradient storage type, from the operators that read it."""
    reaching = {}                  # argument name -> the storage of each gradient sent to it
    for node in topo_order(symbol._outputs):
        if node.op is None:
            continue
        in_stypes = [arg_stypes.get(child.name, 'default') if child.op is None else 'default'
                     for child, _ in node.inputs]
        for k, (child, _) in enumerate(node.inputs):
            if child.op is None:
                reaching.setdefault(child.name, []).append(node.op.grad_stype(node.params, k, in_stypes))
    return {name: 'row_sparse' if reaching.get(name) and all(s == 'row_sparse' for s in reaching[name])
            else 'default' for name in symbol.list_arguments()}
