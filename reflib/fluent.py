"""Fluent methods: ``x.sort()``, ``x.clip(0, 6)``, ``sym.topk(k=2)`` call the operator of that name.

MXNet's NDArray and Symbol have one method per operator in the list below, each calling
the operator with the array (or symbol) as its first input and passing everything else
on: positional parameters, keywords, ``out=`` for arrays.  reflib looks the operator up
when the method is used, so a method works as soon as its operator is registered (and
says so clearly until then); methods NDArray and Symbol define themselves (``reshape``,
``sum``, ...) come first.
"""

from .base import MXNetError
from .operator import registry

__all__ = ['FLUENT_METHODS', 'fluent_method']

# MXNet 1.9.1's NDArray and Symbol methods that call the operator of the same name
FLUENT_METHODS = frozenset('''
    abs arccos arccosh arcsin arcsinh arctan arctanh argmax argmax_channel argmin argsort
    broadcast_axes broadcast_like broadcast_to cbrt ceil clip cos cosh degrees depth_to_space diag
    exp expand_dims expm1 fix flatten flip floor log log10 log1p log2 log_softmax max mean min
    nanprod nansum norm one_hot ones_like pad pick prod radians rcbrt reciprocal relu repeat
    reshape reshape_like rint round rsqrt shape_array sigmoid sign sin sinh size_array slice slice_axis
    slice_like softmax softmin sort space_to_depth split sqrt square squeeze sum swapaxes take
    tan tanh tile topk transpose trunc zeros_like
'''.split())


def fluent_method(owner, name, invoke, kind):
    """The method ``owner.<name>``: ``invoke(name, owner, *args, **kwargs)``.

    Raises AttributeError for a name that is no fluent method (so ``hasattr`` and copying
    work as usual) and for one whose operator is not registered yet.
    """
    if name not in FLUENT_METHODS:
        raise AttributeError('%r object has no attribute %r' % (kind, name))
    try:
        registry.get(name)
    except MXNetError:
        raise AttributeError('%s.%s calls the operator %r, which reflib does not have (yet)'
                             % (kind, name, name)) from None

    def method(*args, **kwargs):
        return invoke(name, owner, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = 'Calls the operator %r with this %s as its first input.' % (name, kind)
    return method
