"""The random generators' state: one seed for the process, one generator per device.

MXNet keeps a random generator per device; so does reflib, each one a
``numpy.random.Generator`` (cupy's on a gpu) made from the global seed and the device, so
that runs repeat once seeded.  This module sits at the bottom of the stack (it needs only
Context): an operator asks ``generator(ctx)`` through ``OpEnv.rng``, and ``mx.random`` (the
front ends, reflib/ndarray/random.py) re-exports ``seed`` and ``generator``.
"""

import numpy as np

from .base import ParamError
from .context import Context, current_context

__all__ = ['seed', 'generator', 'random_state']

_SEED = [0]
_GENERATORS = {}
def seed(seed_state, ctx='all'):
    """Reset the generators: of every device (``ctx='all'``) or of one context."""
    if isinstance(seed_state, (bool, np.bool_)) or not isinstance(seed_state, (int, np.integer)):
        raise ParamError('random.seed: seed_state must be an int, got %r' % (seed_state,))
    # MXNet takes any int and keeps its low 32 bits, so a negative seed is a seed too
    seed_state = int(seed_state) % 2 ** 32 if seed_state < 0 else int(seed_state)
    if ctx == 'all':
        _SEED[0] = seed_state
        _GENERATORS.clear()
    else:
        _GENERATORS[Context(ctx)] = _make(Context(ctx), seed_state)


def _make(ctx, seed_state):
    # mixing in the device keeps cpu(0) and cpu(1) streams different, as in MXNet
    mixed = [seed_state, ctx.device_typeid, ctx.device_id]
    if ctx.device_type == 'gpu':
        cp = ctx.xp
        with ctx.device_scope():
            return cp.random.Generator(cp.random.XORWOW(np.random.SeedSequence(mixed).generate_state(1)[0]))
    return np.random.default_rng(mixed)


def generator(ctx=None):
    """The random generator of ``ctx`` (default: current context)."""
    ctx = Context(ctx) if ctx is not None else current_context()
    gen = _GENERATORS.get(ctx)
    if gen is None:
        gen = _GENERATORS[ctx] = _make(ctx, _SEED[0])
    return gen


class _RandomState:
    """Stands for one device's random state where reflib/engine.py marks failures: MXNet's
    engine marks every variable an operator writes, and a sampling operator writes its
    device's random state, so one that fails leaves the state failed."""
    __slots__ = ('ctx', '__weakref__')

    def __init__(self, ctx):
        self.ctx = ctx


_STATES = {}


def random_state(ctx=None):
    """The object that stands for ``ctx``'s random state in the engine's failure marks (the
    same object for the process's lifetime, whatever ``seed`` does to the generator)."""
    ctx = Context(ctx) if ctx is not None else current_context()
    state = _STATES.get(ctx)
    if state is None:
        state = _STATES[ctx] = _RandomState(ctx)
    return state
