"""Seeded random numbers: ``mx.random.seed`` and the generators ops draw from.

MXNet keeps one random generator per device.  reflib does the same: each
Context gets a ``numpy.random.Generator`` (or cupy's on a gpu) created from
the global seed and the device, so runs are repeatable once seeded.  The
numbers differ from MXNet's (different generators); everything that tests
numbers against MXNet therefore feeds in explicit arrays instead.
"""

import numpy as np

from .base import ParamError
from .context import Context, current_context

__all__ = ['seed', 'generator', 'uniform', 'normal', 'randint', 'shuffle']

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


def _out(values, ctx, dtype, out):
    from .ndarray import NDArray
    values = values.astype(dtype, copy=False)
    if out is not None:
        out[:] = values
        return out
    return NDArray(values, ctx=ctx)


def uniform(low=0, high=1, shape=(1,), dtype='float32', ctx=None, out=None):
    ctx = Context(ctx) if ctx is not None else (out.context if out is not None else current_context())
    shape = out.shape if out is not None else _shape(shape)
    return _out(generator(ctx).uniform(low, high, size=shape), ctx, dtype, out)


def normal(loc=0, scale=1, shape=(1,), dtype='float32', ctx=None, out=None):
    ctx = Context(ctx) if ctx is not None else (out.context if out is not None else current_context())
    shape = out.shape if out is not None else _shape(shape)
    return _out(generator(ctx).normal(loc, scale, size=shape), ctx, dtype, out)


def randint(low, high, shape=(1,), dtype='int32', ctx=None, out=None):
    ctx = Context(ctx) if ctx is not None else current_context()
    return _out(generator(ctx).integers(low, high, size=_shape(shape)), ctx, dtype, out)


def shuffle(data):
    """A copy of ``data`` with its first axis shuffled."""
    from .ndarray import NDArray
    perm = generator(data.context).permutation(data.shape[0])
    return NDArray(data._data[perm], ctx=data.context)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
