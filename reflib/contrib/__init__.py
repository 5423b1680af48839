"""``mx.contrib``: MXNet's experimental packages.  reflib has automatic mixed precision (amp),
the first form of autograd (``mx.contrib.autograd``), text vocabularies and embeddings
(``mx.contrib.text``), a Gluon DataLoader as a DataIter (``mx.contrib.io``), SVRG training (``mx.contrib.svrg_optimization``, imported by name as in
MXNet: its optimizers join the registry then) and the older addresses of the contrib
operators (``mx.contrib.ndarray``/``nd``, ``mx.contrib.symbol``/``sym``)."""

from . import amp
from . import autograd
from . import io
from . import ndarray
from . import symbol
from . import text

nd = ndarray
sym = symbol

__all__ = ['amp', 'autograd', 'io', 'ndarray', 'nd', 'symbol', 'sym', 'text']
