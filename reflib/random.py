"""``mx.random``: the random front ends of ``mx.nd.random`` (reflib/ndarray/random.py) and
``seed``, as MXNet's ``mx.random`` re-exports ``mx.nd.random``."""

from .ndarray.random import *  # noqa: F401,F403
from .ndarray.random import __all__  # noqa: F401
