"""Per-thread state, as in MXNet 1.9.1: the current NameManager, AttrScope, context and
NumPy-array scope are each a class-level property (``NameManager.current``,
``AttrScope.current``, ``Context.default_ctx``) backed by thread-local storage, so an
assignment on the class changes the current thread alone (reflib/base.py's classproperty)."""

import threading
import warnings

import reflib as mx
from reflib.attribute import AttrScope
from reflib.context import Context
from reflib.name import NameManager
from reflib.util import _NumpyArrayScope


def _in_thread(fn):
    found = []
    thread = threading.Thread(target=lambda: found.append(fn()))
    thread.start()
    thread.join()
    return found[0]


def test_an_assigned_name_manager_counts_for_its_thread_alone():
    mine = NameManager()
    NameManager.current = mine
    try:
        assert NameManager.current is mine
        assert NameManager.current.get(None, 'fc') == 'fc0'
        assert _in_thread(lambda: NameManager.current is mine) is False
        assert _in_thread(lambda: mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2).name) == 'fullyconnected0'
        with mx.name.Prefix('p_'):
            assert NameManager.current.get(None, 'fc') == 'p_fc0'
        assert NameManager.current is mine and mine.get(None, 'fc') == 'fc1'
    finally:
        NameManager.current = NameManager()


def test_an_assigned_attr_scope_holds_in_its_thread_alone():
    AttrScope.current = AttrScope(ctx_group='dev1')
    try:
        assert mx.sym.var('w').attr('__ctx_group__') == 'dev1'
        assert _in_thread(lambda: mx.sym.var('w').attr('__ctx_group__')) is None
        assert _in_thread(lambda: AttrScope.current._attr) == {}
    finally:
        AttrScope.current = AttrScope()
    assert mx.sym.var('w').attr('__ctx_group__') is None


def test_default_ctx_sets_this_threads_context_until_its_with_block_ends():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert Context.default_ctx == mx.cpu(0)
        with mx.cpu(3):
            Context.default_ctx = mx.cpu(4)
            assert mx.current_context() == mx.cpu(4)
            assert _in_thread(mx.current_context) == mx.cpu(0)
        assert mx.current_context() == mx.cpu(0)          # the block's end restores the context before it
        assert isinstance(Context.__dict__['default_ctx'], mx.base.classproperty)


def test_the_numpy_array_scope_is_per_thread():
    with mx.np_array(True):
        assert mx.is_np_array()
        assert isinstance(_NumpyArrayScope._current.value, _NumpyArrayScope)
        assert _in_thread(mx.is_np_array) is False
        with mx.np_array(False):
            assert not mx.is_np_array()
        assert mx.is_np_array()
    assert not mx.is_np_array()


def test_a_class_property_setter_changes_one_threads_value_and_plain_attributes_stay_plain():
    class Holder(metaclass=mx.base.ClassPropertyType):
        store = threading.local()
        value = mx.base.classproperty(lambda cls: getattr(cls.store, 'v', 0)).setter_of(
            lambda cls, v: setattr(cls.store, 'v', v))
        plain = 1
    Holder.value = 5
    assert Holder.value == 5 and _in_thread(lambda: Holder.value) == 0
    Holder.plain = 2                                       # an ordinary attribute is simply replaced
    assert Holder.plain == 2
