"""A checkpoint's journal and manifest are read as untrusted input (reflib/checkpoint.py).

* Every entry must name a plain file of the checkpoint's own folder that starts with its
  prefix, and a temporary file must be one of that file's: a journal that points a rename
  at ``../train.py`` is refused, naming the entry, and nothing moves.
* A load never rolls a pending save forward: it reads the committed set where the journal
  says it is (under the final names or still under the temporary ones) and leaves the
  disk as it found it; the next save finishes the renames.
* Fuzzed journals and manifests: a load gives the saved set or a CheckpointError, never
  touches a file, and never writes outside the folder.
"""

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import reflib as mx
import reflib.checkpoint as checkpoint
from reflib.base import MXNetError
from reflib.checkpoint import CheckpointError


def _net():
    data = mx.sym.Variable('data')
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name='fc'), name='softmax')


def _params(value):
    return {'fc_weight': mx.nd.full((3, 4), value), 'fc_bias': mx.nd.full((3,), value)}


def _snapshot(folder):
    found = {}
    for root, _, files in os.walk(str(folder)):
        for name in files:
            path = os.path.join(root, name)
            with open(path, 'rb') as f:
                found[os.path.relpath(path, str(folder))] = f.read()
    return found


def _pending_save(prefix, value):
    """A save of ``value`` committed (journal written) but not renamed: a crash after the commit point."""
    real_replace, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:                  # 1 is the journal itself, 2 the first file
            raise OSError('killed')
        return real_replace(src, dst)

    os.replace = replace
    try:
        with pytest.raises(MXNetError):
            mx.model.save_checkpoint(prefix, 1, _net(), _params(value), {})
    finally:
        os.replace = real_replace


@pytest.fixture
def saved(tmp_path):
    folder = tmp_path / 'ckpt'
    folder.mkdir()
    prefix = str(folder / 'net')
    mx.model.save_checkpoint(prefix, 1, _net(), _params(1.0), {})
    return tmp_path, prefix


def _journal(prefix, entries):
    with open(checkpoint.journal_path(prefix, 1), 'w') as f:
        json.dump({'format': 'reflib-checkpoint-1', 'files': entries}, f)


DIGEST = 'a' * 64


@pytest.mark.parametrize('target,temp', [
    ('../train.py', '.net-0001.params.1-ab.tmp'),                 # out of the folder
    ('/etc/hostname', '.net-0001.params.1-ab.tmp'),               # absolute
    ('sub/net-0001.params', '.net-0001.params.1-ab.tmp'),         # a subfolder
    ('other-0001.params', '.other-0001.params.1-ab.tmp'),         # another checkpoint's file
    ('net-0001.params', '../attacker.tmp'),                       # the temporary file elsewhere
    ('net-0001.params', '.net-0001.states.1-ab.tmp'),             # another file's temporary file
    ('net-0001.params', '.net-0001.params.1-ab'),                 # not a temporary file at all
])
def test_a_journal_naming_files_elsewhere_is_refused_and_nothing_moves(saved, target, temp):
    tmp_path, prefix = saved
    victim = tmp_path / 'train.py'
    victim.write_text('print("the user\'s script")\n')
    (tmp_path / 'attacker.tmp').write_text('import os  # the attacker\'s code\n')
    (tmp_path / 'ckpt' / '.net-0001.params.1-ab.tmp').write_text('attacker')
    _journal(prefix, [[target, temp, DIGEST]])
    before = _snapshot(tmp_path)
    for load in (lambda: mx.mod.Module.load(prefix, 1), lambda: mx.model.load_checkpoint(prefix, 1),
                 lambda: mx.model.save_checkpoint(prefix, 1, _net(), _params(2.0), {})):
        with pytest.raises(CheckpointError) as info:
            load()
        assert repr(target if target != 'net-0001.params' else temp) in str(info.value)
        assert 'nothing was moved' in str(info.value)
        assert _snapshot(tmp_path) == before


@pytest.mark.parametrize('entries', [
    'not a list', [['net-0001.params', DIGEST]], [['net-0001.params', '.net-0001.params.1-a.tmp', 'xyz']],
    [[1, 2, 3]], [['net-0001.params', '.net-0001.params.1-a.tmp', DIGEST, 'extra']],
])
def test_a_malformed_journal_is_refused(saved, entries):
    _, prefix = saved
    _journal(prefix, entries)
    with pytest.raises(CheckpointError):
        mx.model.load_checkpoint(prefix, 1)


def test_a_manifest_naming_a_file_elsewhere_is_refused(saved):
    tmp_path, prefix = saved
    manifest = checkpoint.manifest_path(prefix, 1)
    with open(manifest) as f:
        doc = json.load(f)
    doc['files'].append(['../train.py', DIGEST])
    with open(manifest, 'w') as f:
        json.dump(doc, f)
    with pytest.raises(CheckpointError, match=r"'\.\./train\.py'"):
        mx.model.load_params(prefix, 1)


def test_a_huge_journal_is_refused_without_reading_it_all(saved):
    _, prefix = saved
    with open(checkpoint.journal_path(prefix, 1), 'w') as f:
        f.write('{"format": "reflib-checkpoint-1", "files": [' + '[], ' * 400000 + '[]]}')
    with pytest.raises(CheckpointError, match='larger than'):
        mx.model.load_params(prefix, 1)


def test_a_load_reads_a_pending_save_and_moves_nothing(saved):
    tmp_path, prefix = saved
    _pending_save(prefix, 2.0)
    assert os.path.exists(checkpoint.journal_path(prefix, 1))
    before = _snapshot(tmp_path)
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    np.testing.assert_array_equal(args['fc_weight'].asnumpy(), np.full((3, 4), 2.0))   # the committed set
    assert _snapshot(tmp_path) == before                                               # nothing moved
    mx.model.save_checkpoint(prefix, 1, _net(), _params(3.0), {})                      # a writer finishes it
    assert not os.path.exists(checkpoint.journal_path(prefix, 1))
    assert not [n for n in os.listdir(str(tmp_path / 'ckpt')) if n.endswith('.tmp')]
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    np.testing.assert_array_equal(args['fc_weight'].asnumpy(), np.full((3, 4), 3.0))


def test_the_first_save_of_a_prefix_interrupted_after_its_commit_still_loads(tmp_path):
    prefix = str(tmp_path / 'fresh')
    _pending_save(prefix, 5.0)
    assert not os.path.exists(prefix + '-0001.params')          # never renamed into place
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    np.testing.assert_array_equal(args['fc_bias'].asnumpy(), np.full((3,), 5.0))


def test_a_load_sweeps_what_a_killed_save_left_when_no_save_is_pending(saved):
    tmp_path, prefix = saved
    stale = tmp_path / 'ckpt' / '.net-0001.params.999999999-dead.tmp'     # no such process
    stale.write_bytes(b'\0' * 1024)
    mx.model.load_params(prefix, 1)
    assert not stale.exists()


# ---------------------------------------------------------------- fuzzing the two records
_names = st.sampled_from(['net-0001.params', 'net-symbol.json', '../net-0001.params', '/tmp/net-0001.params',
                          'net-0001.params/..', '.', '', 'net-0002.params', 'x' * 300, 'net-0001.params\x00'])
_temps = st.one_of(_names, st.text(max_size=40), st.sampled_from(['.net-0001.params.1-ab.tmp', '../x.tmp']))
_digests = st.one_of(st.just(DIGEST), st.text(alphabet='0123456789abcdef', min_size=60, max_size=66))
_entry = st.one_of(st.tuples(_names, _temps, _digests).map(list), st.tuples(_names, _digests).map(list),
                   st.lists(st.one_of(st.integers(), st.none(), st.text(max_size=5)), max_size=4))


@settings(max_examples=int(os.environ.get('REFLIB_FUZZ_EXAMPLES', '60')), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(_entry, max_size=4), which=st.sampled_from(['journal', 'manifest']))
def test_fuzzed_journals_and_manifests_never_move_or_write_a_file(saved, entries, which):
    tmp_path, prefix = saved
    record = checkpoint.journal_path(prefix, 1) if which == 'journal' else checkpoint.manifest_path(prefix, 1)
    with open(record, 'w') as f:
        json.dump({'format': 'reflib-checkpoint-1', 'files': entries}, f)
    before = _snapshot(tmp_path)
    try:
        mx.model.load_checkpoint(prefix, 1)
    except MXNetError:
        pass
    assert _snapshot(tmp_path) == before
    os.unlink(record)
    if which == 'manifest':                      # put the saved set back for the next example
        mx.model.save_checkpoint(prefix, 1, _net(), _params(1.0), {})


# ---------------------------------------------------------------- edited files, concurrent saves
def test_an_edited_params_file_is_refused_with_what_to_do(saved):
    tmp_path, prefix = saved
    loaded = mx.nd.load(prefix + '-0001.params')
    loaded['arg:fc_bias'] = loaded['arg:fc_bias'] * 0          # a user's edit
    mx.nd.save(prefix + '-0001.params', loaded)
    with pytest.raises(CheckpointError) as info:
        mx.model.load_checkpoint(prefix, 1)
    message = str(info.value)
    assert 'net-0001.params is not the file its save wrote' in message
    assert 'edited, say with nd.load/nd.save' in message and 'delete the manifest' in message
    os.unlink(checkpoint.manifest_path(prefix, 1))                  # what the message says to do
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    assert args['fc_bias'].asnumpy().tolist() == [0.0, 0.0, 0.0]


SAVER = r'''
import sys
import reflib as mx
prefix, value = sys.argv[1], float(sys.argv[2])
data = mx.sym.Variable('data')
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name='fc'), name='softmax')
for _ in range(15):
    mx.model.save_checkpoint(prefix, 1, net, {'fc_weight': mx.nd.full((3, 4), value),
                                              'fc_bias': mx.nd.full((3,), value)}, {})
print('ok')
'''


def test_two_processes_saving_one_prefix_take_turns(tmp_path):
    import subprocess
    import sys
    prefix = str(tmp_path / 'net')
    procs = [subprocess.Popen([sys.executable, '-c', SAVER, prefix, str(v)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for v in (1.0, 2.0)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == 'ok', err[-3000:]
    _, args, _ = mx.model.load_checkpoint(prefix, 1)               # one whole save, one value
    values = set(np.unique(args['fc_weight'].asnumpy())) | set(np.unique(args['fc_bias'].asnumpy()))
    assert len(values) == 1
    assert not [n for n in os.listdir(str(tmp_path)) if n.endswith('.tmp') or n.endswith('-pending')]
