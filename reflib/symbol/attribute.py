"""AttrScope: attributes attached to every symbol created inside a ``with`` block.

``with mx.AttrScope(ctx_group='stage1'):`` tags each node built inside with
``__ctx_group__ = 'stage1'``; bind's ``group2ctx`` later maps that group to a
device (model parallelism, chapter 6).  A few well-known keys are stored in
the hidden ``__key__`` form, as MXNet does: ctx_group, lr_mult, wd_mult,
force_mirroring, mirror_stage, profiler_scope.
"""

import threading

from ..base import ParamError, ClassPropertyType, thread_current

__all__ = ['AttrScope', 'HIDDEN_KEYS', 'normalize_key']

HIDDEN_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring', 'mirror_stage', 'profiler_scope')


def normalize_key(key):
    """``ctx_group`` -> ``__ctx_group__``; other keys unchanged."""
    return '__%s__' % key if key in HIDDEN_KEYS else key


class AttrScope(metaclass=ClassPropertyType):
    """A set of string attributes applied to new symbols; scopes nest and merge
    (``AttrScope.current``, per thread)."""
    _current = threading.local()

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ParamError('AttrScope: attribute %r must be a string, got %r' % (key, value))
        self._attr = kwargs
        self._old = None

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (the user's wins)."""
        merged = dict(self._attr)
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self):
        self._old = AttrScope.current
        merged = dict(self._old._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old

    current = thread_current(_current, lambda: AttrScope(),
                             """The innermost AttrScope entered on this thread; an empty one (no
                             attributes) made on first use when no ``with`` block is active.""")
