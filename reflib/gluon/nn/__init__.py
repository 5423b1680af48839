"""``gluon.nn``: the layers, each a HybridBlock over operators of reflib/operator/ (or a
plain Block: Sequential, Lambda) -- the layer names its operator and parameters, the
operator does the arithmetic, so hybridized or not the numbers are the same."""

from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
