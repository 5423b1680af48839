"""``mx.profiler``: where the time of a training step goes, as MXNet 1.x's profiler reports it.

    mx.profiler.set_config(profile_all=True, filename='trace.json', aggregate_stats=True)
    mx.profiler.set_state('run')
    ...                                  # train a few batches
    mx.profiler.set_state('stop')
    mx.profiler.dump()                   # trace.json: open it in chrome://tracing or Perfetto
    print(mx.profiler.dumps())           # one table per category: count, total/min/max/avg ms

While it runs, the places that do the work report what they did:

* every operator, under its operator name, in category ``operator``: the executor's steps
  (``profile_symbolic``; a backward step as ``_backward_<op>``), ``mx.nd`` calls and
  autograd's backward (``profile_imperative``).  Inside a Python operator (CustomOp) the
  operators it calls are ``<op_type>::<op>`` in category ``Custom Operator``, and its own
  forward and backward ``<op_type>::pure_python`` and ``_backward_<op_type>::pure_python``;
* the entry points (``profile_api``), under the names of the MXNet C API calls they stand
  for -- ``MXExecutorForward``, ``MXImperativeInvokeEx``, ``MXKVStorePush``, ... -- so that
  the trace of a script reads the same under both libraries;
* the memory operators allocate (``profile_memory``): a counter ``Memory: cpu/0`` of the
  bytes held, category ``Device Storage``;
* your own ``Domain``, ``Task``, ``Frame``, ``Event``, ``Counter`` and ``Marker`` objects.

The trace is Chrome's trace-event JSON: ``{"traceEvents": [...], "displayTimeUnit": "ms"}``,
begin/end pairs (``B``/``E``) with microsecond timestamps, counters (``C``), instants (``i``),
and one process per device.  When the profiler is not running every reporting site costs one
test of ``ACTIVE`` (bench/profiler_overhead.py measures it).
"""

import atexit
import json
import os
import threading
import time
import weakref

__all__ = ['set_config', 'set_state', 'state', 'dump', 'dumps', 'pause', 'resume', 'Domain', 'Task', 'Frame',
           'Event', 'Counter', 'Marker', 'profiler_set_config', 'profiler_set_state', 'dump_profile']


class ProfilerError(ValueError):
    """A profiler call with a value it cannot take (an unknown setting, state or format)."""


# ------------------------------------------------------------------------------ settings
_KINDS = ('profile_symbolic', 'profile_imperative', 'profile_memory', 'profile_api')
# every kind is recorded unless a setting turns it off, as in MXNet
_DEFAULTS = {'filename': 'profile.json', 'profile_all': False, 'profile_symbolic': True,
             'profile_imperative': True, 'profile_memory': True, 'profile_api': True,
             'continuous_dump': False, 'dump_period': 1.0, 'aggregate_stats': False,
             'profile_process': 'worker'}
_config = dict(_DEFAULTS)
_state = 'stop'
_paused = False
# the one flag the reporting sites read: running and not paused
ACTIVE = False

_lock = threading.Lock()
_events = []                    # trace events since the last finished dump
_pids = {}                      # device name -> the trace's process id
_time_stats = {}                # category -> name -> [count, total, min, max] in ms
_memory_stats = {}              # category -> name -> [count, min, max, sum] in kB
_counter_stats = {}             # domain -> name -> [count, min, max, sum, last]
_memory_held = {}               # device name -> bytes operators' outputs hold now
_custom = threading.local()     # the op_type of the Python operator running on this thread

# timestamps: microseconds since the epoch (as MXNet's), from a monotonic clock
_EPOCH_US = time.time_ns() // 1000 - time.perf_counter_ns() // 1000


def now_us():
    """The trace's clock, in microseconds."""
    return time.perf_counter_ns() // 1000 + _EPOCH_US


def set_config(**kwargs):
    """Choose what is recorded and where ``dump`` writes: ``filename``, ``profile_all`` (the
    four kinds below at once), ``profile_symbolic``, ``profile_imperative``, ``profile_memory``,
    ``profile_api``, ``aggregate_stats`` (keep the tables of ``dumps``), ``continuous_dump``
    and ``dump_period`` (accepted; ``dump`` writes what was recorded so far each time it is
    called), ``profile_process`` ('worker'; a dist server keeps no profile of its own here).
    A kind left out keeps its setting: all four are on until a setting turns one off.  What
    was recorded and not dumped is written to ``filename`` when the process ends, as MXNet
    does."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise ProfilerError('set_config: unknown setting(s) %s; the settings are %s'
                            % (', '.join(unknown), ', '.join(sorted(_DEFAULTS))))
    if kwargs.get('profile_process', 'worker') != 'worker':
        raise ProfilerError("set_config: profile_process=%r: reflib's dist servers keep no profile; "
                            "use 'worker'" % kwargs['profile_process'])
    with _lock:
        given = dict(kwargs)
        if given.pop('profile_all', False):
            given.update({k: True for k in _KINDS})
        # a kind not named keeps its setting (all four are on unless turned off), as in MXNet
        _config.update(given)
        _config['filename'] = str(_config['filename'])


def set_state(state='stop', profile_process='worker'):
    """``'run'`` starts recording (not paused, whatever an earlier run left), ``'stop'`` ends it."""
    global _state, _paused
    if state not in ('run', 'stop'):
        raise ProfilerError("set_state: state must be 'run' or 'stop', got %r" % (state,))
    _state = state
    _paused = False
    _update_active()


def state(profile_process='worker'):
    """``'run'`` or ``'stop'``."""
    return _state


def pause(profile_process='worker'):
    """Stop recording for a while without ending the run (``resume`` goes on)."""
    global _paused
    _paused = True
    _update_active()


def resume(profile_process='worker'):
    """Record again after ``pause``."""
    global _paused
    _paused = False
    _update_active()


def _update_active():
    global ACTIVE
    ACTIVE = _state == 'run' and not _paused


def records(kind):
    """Whether ``kind`` ('symbolic', 'imperative', 'api', 'memory') is recorded now."""
    return ACTIVE and _config['profile_' + kind]


# ------------------------------------------------------------------------------ recording
def _pid(device):
    pid = _pids.get(device)
    if pid is None:
        pid = _pids[device] = len(_pids)
        _events.append({'ph': 'M', 'name': 'process_name', 'pid': pid, 'args': {'name': device}})
    return pid


def _add_time(category, name, ms):
    row = _time_stats.setdefault(category, {}).get(name)
    if row is None:
        _time_stats[category][name] = [1, ms, ms, ms]
    else:
        row[0] += 1
        row[1] += ms
        row[2] = min(row[2], ms)
        row[3] = max(row[3], ms)


def span(category, name, begin_us, device='cpu/0'):
    """Record that ``name`` ran from ``begin_us`` (a ``now_us()``) until now."""
    end_us = now_us()
    with _lock:
        pid = _pid(device)
        tid = threading.get_ident()
        _events.append({'name': name, 'cat': category, 'ph': 'B', 'ts': begin_us, 'pid': pid, 'tid': tid})
        _events.append({'name': name, 'cat': category, 'ph': 'E', 'ts': end_us, 'pid': pid, 'tid': tid})
        if _config['aggregate_stats']:
            _add_time(category, name, (end_us - begin_us) / 1000.0)


def operator(name, begin_us, ctx=None, backward=False):
    """An operator ran: category ``operator``, or ``Custom Operator`` with ``<op_type>::``
    before its name while a Python operator's code runs."""
    if backward:        # MXNet's backward operators: _backward_FullyConnected, _backward_mul_scalar
        name = '_backward_' + (name[1:] if name.startswith('_') else name)
    outer = getattr(_custom, 'op_type', None)
    if outer is not None:
        span('Custom Operator', '%s::%s' % (outer, name), begin_us, _device(ctx))
    else:
        span('operator', name, begin_us, _device(ctx))


def ran(op_name, begin_us, ctx, outputs):
    """An imperative operator call ran from ``begin_us`` until now and made ``outputs`` (device
    buffers): its time, and the memory they hold, as far as each is being recorded."""
    if records('imperative'):
        operator(op_name, begin_us, ctx)
    if records('memory'):
        allocated(outputs, ctx)


def _device(ctx):
    return 'cpu/0' if ctx is None else '%s/%d' % (ctx.device_type, ctx.device_id)


class custom_code:
    """``with custom_code(op_type, backward):`` a Python operator's own forward or backward:
    recorded as ``<op_type>::pure_python``, and the operators it calls inside as
    ``<op_type>::<op>``."""
    __slots__ = ('op_type', 'backward', 'begin', 'outer')

    def __init__(self, op_type, backward=False):
        self.op_type, self.backward = op_type, backward

    def __enter__(self):
        self.outer = getattr(_custom, 'op_type', None)
        _custom.op_type = self.op_type
        self.begin = now_us()
        return self

    def __exit__(self, *exc):
        _custom.op_type = self.outer
        prefix = '_backward_' if self.backward else ''
        span('Custom Operator', '%s%s::pure_python' % (prefix, self.op_type), self.begin)
        return False


class _Quiet:
    """The ``with`` block of a site while the profiler is off: nothing at all."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


QUIET = _Quiet()


class api_call:
    """``with api_call('MXExecutorForward'):`` an entry point, recorded when ``profile_api``
    is on (category ``MXNET_C_API``)."""
    __slots__ = ('name', 'begin')

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.begin = now_us() if records('api') else None
        return self

    def __exit__(self, *exc):
        if self.begin is not None:
            span('MXNET_C_API', self.name, self.begin)
        return False


def api_done(name, begin_us):
    """The entry point ``name`` ran from ``begin_us`` until now (recorded if ``profile_api``)."""
    if records('api'):
        span('MXNET_C_API', name, begin_us)


def _counter_event(category, name, value, device):
    with _lock:
        _events.append({'name': name, 'cat': category, 'ph': 'C', 'ts': now_us(), 'pid': _pid(device),
                        'args': {name: value}})


def allocated(arrays, ctx):
    """Operators' outputs ``arrays`` (device buffers) were allocated on ``ctx``: the device's
    ``Memory`` counter goes up by their bytes now and down when each is freed."""
    device = _device(ctx)
    for buf in arrays:
        nbytes = int(getattr(buf, 'nbytes', 0))
        if not nbytes:
            continue
        try:
            weakref.finalize(buf, _freed, device, nbytes)
        except TypeError:       # a buffer that cannot be watched (a view's base is): not counted
            continue
        _memory_changed(device, nbytes)


def _freed(device, nbytes):
    if ACTIVE and _config['profile_memory']:
        _memory_changed(device, -nbytes)
    else:
        _memory_held[device] = _memory_held.get(device, 0) - nbytes


def _memory_changed(device, delta):
    held = _memory_held[device] = _memory_held.get(device, 0) + delta
    name = 'Memory: %s' % device
    _counter_event('Device Storage', name, held, device)
    if _config['aggregate_stats']:
        with _lock:
            kb = held / 1000.0
            row = _memory_stats.setdefault('Device Storage', {}).get(name)
            if row is None:
                _memory_stats['Device Storage'][name] = [1, kb, kb, kb]
            else:
                row[0] += 1
                row[1] = min(row[1], kb)
                row[2] = max(row[2], kb)
                row[3] += kb


# ------------------------------------------------------------------------------ output
def _dump_at_exit():
    """What MXNet does when the process ends: the trace recorded since the last dump goes to
    the configured file (``profile.json`` in the working folder unless set)."""
    if any(e['ph'] != 'M' for e in _events):
        try:
            dump(True)
        except OSError:         # nowhere to write it any more: nothing else to do at exit
            pass


atexit.register(_dump_at_exit)


def dump(finished=True, profile_process='worker'):
    """Write the trace recorded so far to the configured file.  ``finished=False`` keeps
    recording into the same trace (the next dump writes it again, longer)."""
    with _lock:
        trace = {'traceEvents': list(_events), 'displayTimeUnit': 'ms'}
        if finished:
            del _events[:]
            _pids.clear()
    path = _config['filename']
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ProfilerError('dump: the folder of filename %r does not exist' % path)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(trace, f)
    os.replace(tmp, path)       # a reader never sees half a trace


_SORT_KEYS = {'total': 1, 'min': 2, 'max': 3, 'count': 0, 'avg': None}


def dumps(reset=False, format='table', sort_by='total', ascending=False):  # noqa: A002 (MXNet's name)
    """The aggregate statistics (``aggregate_stats=True``) as MXNet prints them: one table per
    category (``format='table'``) or the same as JSON (``format='json'``: ``Time`` in ms,
    ``Memory`` in kB, ``Unit``), rows sorted by ``sort_by`` ('total', 'avg', 'min', 'max',
    'count').  ``reset`` clears the statistics after reading them.  (Your ``Counter`` objects
    have a section of their own, ``Counter``: their values are not times.)"""
    if format not in ('table', 'json'):
        raise ProfilerError("dumps: format must be 'table' or 'json', got %r" % (format,))
    if sort_by not in _SORT_KEYS:
        raise ProfilerError('dumps: sort_by must be one of %s, got %r' % (', '.join(_SORT_KEYS), sort_by))
    with _lock:
        time_rows = {cat: _sorted_time(rows, sort_by, ascending) for cat, rows in sorted(_time_stats.items())}
        memory_rows = {cat: _sorted_memory(rows, sort_by, ascending) for cat, rows in sorted(_memory_stats.items())}
        counter_rows = {dom: dict(rows) for dom, rows in sorted(_counter_stats.items())}
        if reset:
            _time_stats.clear()
            _memory_stats.clear()
            _counter_stats.clear()
    if format == 'json':
        return json.dumps({
            'Time': {cat: {name: {'Count': r[0], 'Total': round(r[1], 4), 'Min': round(r[2], 4),
                                  'Max': round(r[3], 4), 'Avg': round(r[1] / r[0], 4)} for name, r in rows}
                     for cat, rows in time_rows.items()},
            'Memory': {cat: {name: {'Count': r[0], 'Min': round(r[1], 4), 'Max': round(r[2], 4),
                                    'Avg': round(r[3] / r[0], 4)} for name, r in rows}
                       for cat, rows in memory_rows.items()},
            'Counter': {dom: {name: {'Count': r[0], 'Min': r[1], 'Max': r[2], 'Avg': r[3] / r[0], 'Last': r[4]}
                              for name, r in rows.items()} for dom, rows in counter_rows.items()},
            'Unit': {'Time': 'ms', 'Memory': 'kB'}}, indent=4)
    lines = ['', 'Profile Statistics:', '\tNote the difference in units for different entries.']
    for cat, rows in memory_rows.items():
        lines += [cat, '=' * 17, '%-30s%11s%17s%17s%17s' % ('Name', 'Total Count', 'Min Use  (kB)',
                                                              'Max Use  (kB)', 'Avg Use  (kB)'),
                  '%-30s%11s%17s%17s%17s' % ('----', '-----------', '-------------', '-------------',
                                             '-------------')]
        lines += ['%-30s%11d%17.4f%17.4f%17.4f' % (name[:29], r[0], r[1], r[2], r[3] / r[0]) for name, r in rows]
        lines.append('')
    for cat, rows in time_rows.items():
        lines += [cat, '=' * 17, '%-30s%11s%17s%17s%17s%17s' % ('Name', 'Total Count', 'Time (ms)', 'Min Time (ms)',
                                                                 'Max Time (ms)', 'Avg Time (ms)'),
                  '%-30s%11s%17s%17s%17s%17s' % ('----', '-----------', '---------', '-------------',
                                                 '-------------', '-------------')]
        lines += ['%-30s%11d%17.4f%17.4f%17.4f%17.4f' % (name[:29], r[0], r[1], r[2], r[3], r[1] / r[0])
                  for name, r in rows]
        lines.append('')
    for dom, rows in counter_rows.items():
        lines += ['%s (counters)' % dom, '=' * 17, '%-30s%11s%17s%17s%17s' % ('Name', 'Total Count', 'Min', 'Max',
                                                                             'Last'),
                  '%-30s%11s%17s%17s%17s' % ('----', '-----------', '---', '---', '----')]
        lines += ['%-30s%11d%17g%17g%17g' % (name[:29], r[0], r[1], r[2], r[4]) for name, r in rows.items()]
        lines.append('')
    return '\n'.join(lines) + '\n'


def _sorted_time(rows, sort_by, ascending):
    def key(item):
        r = item[1]
        return r[1] / r[0] if sort_by == 'avg' else r[_SORT_KEYS[sort_by]]
    return sorted(rows.items(), key=key, reverse=not ascending)


def _sorted_memory(rows, sort_by, ascending):
    column = {'count': 0, 'min': 1, 'max': 2, 'total': 3}.get(sort_by)

    def key(item):
        r = item[1]
        return r[3] / r[0] if column is None else r[column]
    return sorted(rows.items(), key=key, reverse=not ascending)


# ------------------------------------------------------------------------------ your own objects
class Domain:
    """A named group for your own Tasks, Frames, Counters and Markers (their trace category)."""

    def __init__(self, name):
        self.name = str(name)

    def new_task(self, name):
        """A new Task named ``name`` in this domain (not started yet)."""
        return Task(self, name)

    def new_frame(self, name):
        """A new Frame named ``name`` in this domain (not started yet)."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A new Counter named ``name`` in this domain; ``value``, when given, is set (and
        recorded) at once, else the counter starts at 0 unrecorded.
        """
        return Counter(self, name, value)

    def new_marker(self, name):
        """A new Marker named ``name`` in this domain; ``mark()`` records it."""
        return Marker(self, name)

    def __str__(self):
        return self.name


class _Span:
    """Something with a ``start()`` and a ``stop()``, recorded as one span when it stops."""
    category = None

    def __init__(self, name):
        self.name = str(name)
        self._begin = None

    def start(self):
        self._begin = now_us()

    def stop(self):
        if self._begin is None:
            raise ProfilerError('%s %r: stop() without start()' % (type(self).__name__, self.name))
        if ACTIVE:
            span(self.category, self.name, self._begin)
        self._begin = None

    def __str__(self):
        return self.name


class Task(_Span):
    """A piece of your work in ``domain``: ``start()`` ... ``stop()``."""

    def __init__(self, domain, name):
        super().__init__(name)
        self.domain = domain
        self.category = domain.name


class Frame(_Span):
    """A repeated unit of your work (one iteration) in ``domain``: category ``<domain>,frame``."""

    def __init__(self, domain, name):
        super().__init__(name)
        self.domain = domain
        self.category = '%s,frame' % domain.name


class Event(_Span):
    """A span of your work outside any domain: category ``event``."""
    category = 'event'


class Counter:
    """A number you follow over time in ``domain``: ``set_value``, ``increment``,
    ``decrement``, ``+=`` and ``-=`` each record its new value."""

    def __init__(self, domain, name, value=None):
        self.domain, self.name = domain, str(name)
        self._value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        """Set the counter to ``value``; while the profiler runs, the value is recorded in the trace
        (and in the aggregate statistics when ``aggregate_stats`` is on).
        """
        self._value = value
        if ACTIVE:
            _counter_event(self.domain.name, self.name, value, 'cpu/0')
            if _config['aggregate_stats']:
                with _lock:
                    row = _counter_stats.setdefault(self.domain.name, {}).get(self.name)
                    if row is None:
                        _counter_stats[self.domain.name][self.name] = [1, value, value, value, value]
                    else:
                        row[0] += 1
                        row[1], row[2] = min(row[1], value), max(row[2], value)
                        row[3] += value
                        row[4] = value

    def increment(self, delta=1):
        """Add ``delta`` (1 by default) to the counter and record the new value (``set_value``)."""
        self.set_value(self._value + delta)

    def decrement(self, delta=1):
        """Subtract ``delta`` (1 by default) from the counter and record the new value."""
        self.set_value(self._value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """A moment in your work: ``mark(scope)`` records an instant event (scope 'global',
    'process', 'thread', 'task' or 'marker'), category ``<domain>,instant_marker``."""
    _SCOPES = {'global': 'g', 'process': 'p', 'thread': 't', 'task': 't', 'marker': 't'}

    def __init__(self, domain, name):
        self.domain, self.name = domain, str(name)

    def mark(self, scope='process'):
        """Record this moment as an instant event in the trace, while the profiler runs.

        Args:
            scope (str): how far the marker reaches in the trace viewer: ``'global'``,
                ``'process'`` (default), ``'thread'``, ``'task'`` or ``'marker'`` (the last three
                are thread-wide).

        Raises:
            ProfilerError: an unknown scope.
        """
        if scope not in self._SCOPES:
            raise ProfilerError('Marker.mark: scope must be one of %s, got %r' % (', '.join(self._SCOPES), scope))
        if ACTIVE:
            with _lock:
                _events.append({'name': self.name, 'cat': '%s,instant_marker' % self.domain.name, 'ph': 'i',
                                'ts': now_us(), 's': self._SCOPES[scope], 'pid': _pid('cpu/0'),
                                'tid': threading.get_ident()})


# ------------------------------------------------------------------------------ older names
def profiler_set_config(mode='symbolic', filename='profile.json'):
    """MXNet's first form of ``set_config``: ``mode`` 'symbolic' or 'all'."""
    if mode not in ('symbolic', 'all'):
        raise ProfilerError("profiler_set_config: mode must be 'symbolic' or 'all', got %r" % (mode,))
    set_config(profile_symbolic=True, profile_imperative=mode == 'all', profile_memory=mode == 'all',
               profile_api=mode == 'all', filename=filename)


def profiler_set_state(state='stop'):  # noqa: F811 (MXNet's argument name)
    """MXNet's first form of ``set_state``."""
    set_state(state)


def dump_profile():
    """MXNet's first form of ``dump``."""
    dump(True)
