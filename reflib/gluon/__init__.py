"""Gluon: MXNet's imperative interface, where a model is Python code run on NDArrays.

Instead of declaring a graph (Symbol) and binding it, a Gluon program calls its layers on
NDArrays directly, records the computation with ``autograd`` and steps the parameters with
a trainer.  reflib builds Gluon in steps; this first step is ``gluon.data`` (datasets,
samplers, the DataLoader).  Blocks and the layers of ``gluon.nn``, Parameters, the
Trainer and ``gluon.loss`` come next.
"""

from . import data
