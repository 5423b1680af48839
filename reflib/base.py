"""Errors and small helpers shared by every layer of reflib.

MXNet raises ``mxnet.base.MXNetError`` for almost everything that goes wrong
inside the engine.  reflib keeps that name (so ``except mx.base.MXNetError``
keeps working) and adds subclasses that say *which* layer complained.  Every
message names the culprit: the argument, the node, the expected and the
actual value.
"""

import os

import numpy as np

__all__ = ['py_str', 'data_dir', 'MXNetError', 'NotImplementedForSymbol', 'ShapeError', 'TypeInferError', 'BindError',
           'ParamError', 'ContextError', 'GraphFormatError', 'mx_real_t', 'string_types',
           'numeric_types', 'integer_types', 'classproperty', 'ClassPropertyType',
           'thread_current']

mx_real_t = np.float32
string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)


def py_str(raw):
    """A str from the UTF-8 bytes a C function returned (MXNet's helper; kept for scripts)."""
    return raw.decode('utf-8')


def _as_list(obj):
    """``obj`` itself when it is a list or a tuple, else ``[obj]``."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


def data_dir():
    """Where downloaded models and data sets go: ``$MXNET_HOME``, else ``~/.mxnet``."""
    return os.getenv('MXNET_HOME', os.path.join(os.path.expanduser('~'), '.mxnet'))


class MXNetError(RuntimeError):
    """Base class of every error reflib raises on purpose (a RuntimeError, as MXNet's is)."""


class NotImplementedForSymbol(MXNetError):
    """An NDArray operation asked of a Symbol, which has no values to compute it on."""

    def __init__(self, function, alias=None, *args):
        super().__init__(function, alias, *args)
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias

    def __str__(self):
        name = self.function if self.alias is None else '%s (namely operator "%s")' % (self.function, self.alias)
        return ('%s is not implemented for Symbol and only available in NDArray: a symbol has no values '
                'until it is bound and run' % name)


class ComputeError(MXNetError, ValueError):
    """An operator refused the values it computes on (an index out of range under
    ``mode='raise'``, a negative scale for a normal draw).  As MXNet's engine does, reflib
    raises it where the result is next waited for, not where the operator was called:
    see reflib/engine.py."""


class ParamError(MXNetError, ValueError):
    """An operator (or an API call) got a parameter it does not know, or a value it cannot parse."""


class ShapeError(MXNetError, ValueError):
    """Shapes do not fit: during inference, in bind, or in forward."""


class TypeInferError(MXNetError, TypeError):
    """Data types do not fit during type inference."""


class BindError(MXNetError, ValueError):
    """bind/simple_bind/forward/backward got arguments that do not match the symbol."""


class ContextError(MXNetError, RuntimeError):
    """A device was asked for that this machine cannot provide (e.g. gpu without cupy)."""


class GraphFormatError(MXNetError, ValueError):
    """A symbol JSON document is malformed; the message names the node and what is wrong."""


# MXNet's integer type flags, as stored in a Variable's ``__dtype__`` attribute
# and in .params files.
DTYPE_TO_FLAG = {np.dtype('float32'): 0, np.dtype('float64'): 1, np.dtype('float16'): 2,
                 np.dtype('uint8'): 3, np.dtype('int32'): 4, np.dtype('int8'): 5,
                 np.dtype('int64'): 6, np.dtype('bool'): 7}
FLAG_TO_DTYPE = {v: k for k, v in DTYPE_TO_FLAG.items()}


# ------------------------------------------------------------------ class-level properties
class classproperty:
    """A property of the class itself (``NameManager.current``), with an optional setter that
    an assignment on the class calls (``NameManager.current = NameManager()``), as MXNet's
    scope classes have them.  The class needs the ``ClassPropertyType`` metaclass for the
    setter: without it, an assignment would replace the property."""

    def __init__(self, getter, setter=None):
        self.getter, self.setter = getter, setter
        self.__doc__ = getter.__doc__

    def __get__(self, instance, owner):
        return self.getter(owner)

    def setter_of(self, setter):
        """Decorator: ``setter(cls, value)`` runs on assignment to the class attribute."""
        return classproperty(self.getter, setter)


class ClassPropertyType(type):
    """Metaclass: assigning to a ``classproperty`` with a setter calls the setter."""

    def __setattr__(cls, name, value):
        for klass in cls.__mro__:
            found = klass.__dict__.get(name)
            if isinstance(found, classproperty) and found.setter is not None:
                found.setter(cls, value)
                return
        super().__setattr__(name, value)


def thread_current(local, make_default, doc):
    """A ``classproperty`` over ``local.value`` (``local`` a ``threading.local``): this thread's
    current object, ``make_default()`` made on the first read; assigning to it on the class
    sets it for this thread alone (MXNet's ``NameManager.current``, ``AttrScope.current``)."""
    def get(cls):
        if not hasattr(local, 'value'):
            local.value = make_default()
        return local.value

    def put(cls, value):
        local.value = value
    prop = classproperty(get, put)
    prop.__doc__ = doc
    return prop
