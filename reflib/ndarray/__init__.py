"""``mx.nd``: arrays on devices."""

from .ndarray import *  # noqa: F401,F403
from .ndarray import NDArray  # noqa: F401
