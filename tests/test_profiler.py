"""mx.profiler (reflib/profiler.py) against MXNet 1.9.1: the names a short training script
leaves in each category of the trace (golden/profiler.json, from golden/gen_profiler.py),
the trace's format, the aggregate tables, the user's objects, and the errors."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.profiler import ProfilerError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from profiler_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'profiler.json')) as _f:
    GOLDEN = json.load(_f)

# What only MXNet's trace can hold: its engine's own work (copies, variable bookkeeping, the
# random resource's seeding), C handles freed and queried, its count of C API calls, and a
# pinned-memory pool reflib does not have
MXNET_ONLY = {
    'operator': {'CopyCPU2CPU', 'DeleteOperator', 'DeleteVariable', 'ResourceParallelRandomSetSeed', 'SetValueOp',
                 'SetupExec', 'WaitForVar'},
    'MXNET_C_API': {'MXExecutorFree', 'MXExecutorOutputs', 'MXKVStoreFree', 'MXNDArrayFree', 'MXNDArrayGetDType',
                    'MXNDArrayGetShapeEx', 'MXNDArrayGetStorageType', 'MXNet C API Calls',
                    'MXNet C API Concurrency'},
    'Device Storage': {'Memory: cpu pinned/'},
}


@pytest.fixture(autouse=True)
def profiler_stopped(tmp_path):
    yield
    mx.profiler.set_state('stop')
    # what a test left undumped goes to its tmp folder, not to a profile.json at exit
    mx.profiler.set_config(profile_all=True, aggregate_stats=False, filename=str(tmp_path / 'left.json'))
    mx.profiler.dump()
    mx.profiler.set_config(filename='profile.json')
    mx.profiler.dumps(reset=True)


@pytest.fixture(scope='module')
def result(tmp_path_factory):
    return run(mx, str(tmp_path_factory.mktemp('trace')))


@pytest.mark.parametrize('category', sorted(GOLDEN['trace']))
def test_the_trace_names_what_mxnet_names(result, category):
    mine = set(result['trace'].get(category, []))
    theirs = set(GOLDEN['trace'][category]) - MXNET_ONLY.get(category, set())
    assert mine == theirs


def test_the_time_table_has_the_trace_categories_and_counters_have_their_own(result):
    # MXNet lists a Counter's values among the domain's times (in ms); reflib keeps them apart
    theirs = {cat: set(names) - MXNET_ONLY.get(cat, set()) for cat, names in GOLDEN['time table'].items()}
    theirs['Book'].discard('seen')
    mine = {cat: set(names) for cat, names in result['time table'].items()}
    assert {cat: names for cat, names in theirs.items() if names} == mine
    assert result['memory table'] == GOLDEN['memory table']


def _trace(tmp_path, body, **config):
    path = str(tmp_path / 'trace.json')
    mx.profiler.set_config(filename=path, **config)
    mx.profiler.set_state('run')
    body()
    mx.profiler.set_state('stop')
    mx.profiler.dump()
    with open(path) as f:
        return json.load(f)


def test_the_trace_is_chrome_trace_event_json(tmp_path):
    def body():
        x = mx.nd.ones((4, 4))
        mx.nd.dot(x, x).asnumpy()
    trace = _trace(tmp_path, body, profile_all=True)
    assert trace['displayTimeUnit'] == 'ms'
    events = trace['traceEvents']
    assert {'ph': 'M', 'name': 'process_name', 'pid': 0, 'args': {'name': 'cpu/0'}} in events
    open_spans = {}
    for e in events:
        if e['ph'] == 'B':
            open_spans.setdefault((e['name'], e['pid'], e['tid']), []).append(e['ts'])
        elif e['ph'] == 'E':
            began = open_spans[(e['name'], e['pid'], e['tid'])].pop()
            assert e['ts'] >= began
        elif e['ph'] == 'C':
            assert e['cat'] == 'Device Storage' and list(e['args']) == [e['name']]
    assert all(not spans for spans in open_spans.values())
    assert {'dot', '_ones'} <= {e['name'] for e in events if e.get('cat') == 'operator'}


def test_only_the_kinds_asked_for_are_recorded(tmp_path):
    def body():
        exe = mx.sym.relu(mx.sym.var('x'), name='r').simple_bind(mx.cpu(), x=(2,))
        exe.forward()
        mx.nd.sqrt(mx.nd.ones(2))
    only = dict(profile_symbolic=False, profile_imperative=False, profile_api=False, profile_memory=False)
    symbolic = {e['name'] for e in _trace(tmp_path, body, **dict(only, profile_symbolic=True))['traceEvents']
                if 'cat' in e}
    assert symbolic == {'relu'}
    imperative = {e['name'] for e in _trace(tmp_path, body, **dict(only, profile_imperative=True))['traceEvents']
                  if 'cat' in e}
    assert 'sqrt' in imperative and 'relu' not in imperative
    # a kind not named keeps its setting, as in MXNet: naming one turns no other off
    mx.profiler.set_config(profile_all=True)
    everything = {e['name'] for e in _trace(tmp_path, body, profile_symbolic=True)['traceEvents'] if 'cat' in e}
    assert {'relu', 'sqrt', 'MXExecutorForward'} <= everything


def test_what_was_not_dumped_is_written_when_the_process_ends(tmp_path):
    import subprocess
    import sys
    script = ("import reflib as mx; mx.profiler.set_config(filename=%r); mx.profiler.set_state('run'); "
              "mx.nd.ones(2) * 2" % str(tmp_path / 'exit.json'))
    subprocess.run([sys.executable, '-c', script], check=True, cwd=str(tmp_path))
    with open(tmp_path / 'exit.json') as f:
        names = {e['name'] for e in json.load(f)['traceEvents']}
    assert {'_ones', '_mul_scalar'} <= names


def test_nothing_is_recorded_while_stopped_or_paused(tmp_path):
    path = str(tmp_path / 'trace.json')
    mx.profiler.set_config(profile_all=True, filename=path, aggregate_stats=True)
    mx.nd.sqrt(mx.nd.ones(2))
    mx.profiler.set_state('run')
    mx.profiler.pause()
    mx.nd.sqrt(mx.nd.ones(2))
    mx.profiler.resume()
    mx.nd.exp(mx.nd.ones(2))
    mx.profiler.set_state('stop')
    table = json.loads(mx.profiler.dumps(format='json'))
    assert set(table['Time']['operator']) == {'exp', '_ones'} and table['Time']['operator']['_ones']['Count'] == 1


def test_the_aggregate_counts_calls_sorts_rows_and_resets():
    mx.profiler.set_config(profile_all=True, aggregate_stats=True)
    mx.profiler.dumps(reset=True)
    mx.profiler.set_state('run')
    x = mx.nd.zeros((10, 10))
    mx.nd.sqrt(x)
    x = x + 1
    x = x + 1
    mx.profiler.set_state('stop')
    table = json.loads(mx.profiler.dumps(format='json'))
    ops = table['Time']['operator']
    assert ops['sqrt']['Count'] == 1 and ops['_plus_scalar']['Count'] == 2     # as MXNet's test_aggregate_duplication
    assert table['Unit'] == {'Time': 'ms', 'Memory': 'kB'}
    for sort_by, key in [('count', 'Count'), ('min', 'Min'), ('max', 'Max'), ('avg', 'Avg'), ('total', 'Total')]:
        for ascending in (False, True):
            rows = json.loads(mx.profiler.dumps(format='json', sort_by=sort_by, ascending=ascending),
                              object_pairs_hook=lambda pairs: pairs)
            operator_rows = dict(dict(rows)['Time'])['operator']
            values = [dict(row)[key] for _, row in operator_rows]
            assert values == sorted(values, reverse=not ascending)
    text = mx.profiler.dumps(reset=True)
    assert 'operator\n=================\nName' in text and '_plus_scalar' in text
    assert json.loads(mx.profiler.dumps(format='json'))['Time'] == {}


def test_a_python_operator_and_what_it_calls_are_custom_operator_entries():
    class Double(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)

    @mx.operator.register('profiled_double')
    class DoubleProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Double()

    mx.profiler.set_config(profile_all=True, aggregate_stats=True)
    mx.profiler.dumps(reset=True)
    mx.profiler.set_state('run')
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type='profiled_double')
    y.backward()
    mx.profiler.set_state('stop')
    custom = json.loads(mx.profiler.dumps(format='json'))['Time']['Custom Operator']
    assert {'profiled_double::pure_python', '_backward_profiled_double::pure_python',
            'profiled_double::_mul_scalar'} <= set(custom)
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 2])


def test_counters_and_markers_of_your_own(tmp_path):
    def body():
        domain = mx.profiler.Domain('mine')
        counter = mx.profiler.Counter(domain, 'items', 3)
        counter += 2
        counter -= 1
        mx.profiler.Marker(domain, 'here').mark('thread')
    events = _trace(tmp_path, body, profile_all=True, aggregate_stats=True)['traceEvents']
    assert [e['args']['items'] for e in events if e.get('name') == 'items'] == [3, 5, 4]
    assert [(e['ph'], e['s']) for e in events if e.get('name') == 'here'] == [('i', 't')]
    counters = json.loads(mx.profiler.dumps(format='json'))['Counter']['mine']['items']
    assert counters == {'Count': 3, 'Min': 3, 'Max': 5, 'Avg': 4.0, 'Last': 4}


def test_bad_values_are_refused_by_name():
    with pytest.raises(ProfilerError, match='unknown setting.*profile_everything'):
        mx.profiler.set_config(profile_everything=True)
    with pytest.raises(ProfilerError, match="'run' or 'stop'"):
        mx.profiler.set_state('go')
    with pytest.raises(ProfilerError, match="format must be 'table' or 'json'"):
        mx.profiler.dumps(format='csv')
    with pytest.raises(ProfilerError, match='sort_by'):
        mx.profiler.dumps(sort_by='name')
    with pytest.raises(ProfilerError, match='stop\\(\\) without start\\(\\)'):
        mx.profiler.Event('e').stop()
    with pytest.raises(ProfilerError, match='folder'):
        mx.profiler.set_config(filename='/no/such/folder/trace.json')
        mx.profiler.dump()
