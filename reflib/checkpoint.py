"""A checkpoint: MXNet's files, saved as one set (a crash leaves the whole old set or the whole new one).

A checkpoint of ``prefix`` at epoch 3 is, as MXNet names it,

* ``prefix-symbol.json``   the graph (MXNet's JSON schema),
* ``prefix-0003.params``   ``arg:NAME`` and ``aux:NAME`` arrays (MXNet's binary format),
* ``prefix-0003.states``   optimizer state, when asked for (Module.save_checkpoint).

``save_checkpoint``, ``load_checkpoint`` and ``load_params`` (``mx.model``'s names, see
reflib/model.py) read and write them; the rest of this file keeps them one set.

MXNet writes ``prefix-symbol.json``, ``prefix-0003.params`` and ``prefix-0003.states``
one after the other, so a crash between two of them leaves a new ``.params`` beside an
old ``.states``, and nothing notices.  reflib keeps MXNet's file names and formats (MXNet
reads them as they are) and adds two small files of its own:

``prefix-0003.checkpoint``          the manifest: the SHA-256 of every file the save wrote;
``prefix-0003.checkpoint-pending``  the journal, present only while a save is committing.

A save goes in three steps:

1. every file is written in full to a temporary file beside its target and flushed;
2. the journal, which lists each temporary file, its target and its digest, is written
   atomically.  This is the commit point: before it, a crash leaves the old set, whole;
3. each temporary file is renamed over its target, the new manifest is written, and the
   journal is removed.

A crash during step 3 leaves the journal, and the next *save* of that checkpoint finishes
the renames first (*rolls forward*), so the set is the new one, whole.  A *load* never moves
a file: with a journal present (a save that crashed after its commit point, or one that
another process is finishing right now) it reads the new set where the journal says it is,
each file under its own name or still under its temporary one.  Loading checks each file
against the manifest (or the journal) and refuses a set whose files come from different
saves (a ``.states`` from an older save, say), naming the file.  A checkpoint without a
manifest (written by MXNet) is loaded without that check.

Nothing read from a journal or a manifest is trusted: each entry must name a plain file in
the checkpoint's own folder that starts with the checkpoint's prefix (``net-0003.params``,
never ``../train.py`` or ``/etc/passwd``), and a temporary file must be one of that file's;
anything else is refused, naming the entry, before a single file is touched.
"""

import contextlib
import hashlib
import json
import logging
import os
import re

from .base import MXNetError
from . import ndarray as nd
from . import symbol as sym
from .context import cpu
from .util import atomic_write_bytes, fsync_directory, sweep_temps, write_temp

try:
    import fcntl
except ImportError:         # not on Windows: saves of one folder are then not serialised
    fcntl = None

__all__ = ['CheckpointError', 'save_files', 'recover', 'verify', 'files_to_read', 'exists', 'manifest_path',
           'journal_path', 'save_checkpoint', 'load_checkpoint', 'load_params', 'split_params', 'params_bytes']

_FORMAT = 'reflib-checkpoint-1'


class CheckpointError(MXNetError):
    """The files of a checkpoint do not belong together, or an interrupted save cannot finish."""


def manifest_path(prefix, epoch):
    """The path of the manifest of checkpoint ``prefix`` at ``epoch``: the digests of the files
    its last save wrote.

    >>> mx.checkpoint.manifest_path('net', 3)
    'net-0003.checkpoint'
    """
    return '%s-%04d.checkpoint' % (prefix, epoch)


def journal_path(prefix, epoch):
    """The path of the journal of checkpoint ``prefix`` at ``epoch``, a file present only while
    a save is committing (or after one crashed while committing).

    >>> mx.checkpoint.journal_path('net', 3)
    'net-0003.checkpoint-pending'
    """
    return '%s-%04d.checkpoint-pending' % (prefix, epoch)


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def _file_digest(path):
    sha = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            sha.update(block)
    return sha.hexdigest()


_DIGEST = re.compile(r'[0-9a-f]{64}\Z')
_LARGEST_RECORD = 1 << 20      # a journal or manifest lists a handful of files: a few hundred bytes


def _read_json(path, what):
    try:
        with open(path, 'rb') as f:
            raw = f.read(_LARGEST_RECORD + 1)
        if len(raw) > _LARGEST_RECORD:
            raise ValueError('larger than %d bytes' % _LARGEST_RECORD)
        doc = json.loads(raw.decode('utf-8'))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as err:
        raise CheckpointError('%s %s cannot be read (%s)' % (what, path, err)) from None
    if not (isinstance(doc, dict) and doc.get('format') == _FORMAT and isinstance(doc.get('files'), list)):
        raise CheckpointError('%s %s is not one reflib wrote (format %r)' % (what, path, _FORMAT))
    return doc


def _own_name(prefix, name, record, entry):
    """``name`` from a journal or manifest, if it is a plain file name of this checkpoint."""
    stem = os.path.basename(prefix)
    plain = (isinstance(name, str) and name not in ('', '.', '..') and '/' not in name
             and '\\' not in name and '\0' not in name and os.path.basename(name) == name)
    if not (plain and (name.startswith(stem + '-') or name.startswith(stem + '.'))):
        raise CheckpointError('%s lists %r (entry %r): a checkpoint names only files of its own folder '
                              'that start with its prefix %r; nothing was moved or read'
                              % (record, name, entry, stem))
    return name


def _entries(prefix, doc, record, journal):
    """The checked entries of a journal ([target, temp, digest]) or a manifest ([target, digest])."""
    checked = []
    for entry in doc['files']:
        width = 3 if journal else 2
        if not (isinstance(entry, list) and len(entry) == width and all(isinstance(v, str) for v in entry)):
            raise CheckpointError('%s holds a malformed entry %r (expected %d strings)' % (record, entry, width))
        target = _own_name(prefix, entry[0], record, entry)
        if not _DIGEST.match(entry[-1]):
            raise CheckpointError('%s: entry %r has no SHA-256 digest' % (record, entry))
        if journal:
            temp = entry[1]
            if not (isinstance(temp, str) and '/' not in temp and '\\' not in temp
                    and temp.startswith('.%s.' % target) and temp.endswith('.tmp')):
                raise CheckpointError('%s lists %r as the temporary file of %s (entry %r): not one of its '
                                      'temporary files; nothing was moved or read' % (record, temp, target, entry))
        checked.append(list(entry))
    return checked


@contextlib.contextmanager
def _folder_lock(directory):
    """Saves into one folder take turns (an exclusive flock on the folder itself, no lock file):
    two processes saving one prefix would otherwise finish each other's renames."""
    try:
        fd = None if fcntl is None else os.open(directory, os.O_RDONLY)
    except OSError:               # no such folder: the save itself then fails, naming its target
        fd = None
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)                  # closing releases the lock


def save_files(prefix, epoch, contents):
    """Save ``contents`` ({file path: bytes}) as one checkpoint set (see the module docstring)."""
    directory = os.path.dirname(os.path.realpath(manifest_path(prefix, epoch)))
    with _folder_lock(directory):
        _save_files(prefix, epoch, contents, directory)


def _save_files(prefix, epoch, contents, directory):
    recover(prefix, epoch)
    # what killed saves left, for every file this checkpoint may have, written now or not
    for path in set(contents) | {'%s-symbol.json' % prefix, '%s-%04d.params' % (prefix, epoch),
                                 '%s-%04d.states' % (prefix, epoch), manifest_path(prefix, epoch),
                                 journal_path(prefix, epoch)}:
        sweep_temps(os.path.realpath(path))
    entries, temps = [], []
    try:
        for path, data in contents.items():
            if os.path.dirname(os.path.realpath(path)) != directory:
                raise CheckpointError('checkpoint %s: %s is not in the checkpoint\'s folder %s'
                                      % (prefix, path, directory))
            tmp, target = write_temp(path, lambda stream, data=data: stream.write(data))
            temps.append(tmp)
            entries.append([_own_name(prefix, os.path.basename(target), 'the save', path),
                            os.path.basename(tmp), _digest(data)])
        journal = json.dumps({'format': _FORMAT, 'files': entries}, indent=1)
        atomic_write_bytes(journal_path(prefix, epoch), journal.encode('utf-8'))      # the commit point
    except BaseException:
        for tmp in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    _roll_forward(prefix, epoch, entries, directory)


def _roll_forward(prefix, epoch, entries, directory):
    """Rename the journal's temporary files into place, write the manifest, drop the journal."""
    try:
        for target, tmp, _ in entries:
            tmp_path = os.path.join(os.path.dirname(os.path.join(directory, target)), tmp)
            if os.path.exists(tmp_path):
                os.replace(tmp_path, os.path.join(directory, target))
        fsync_directory(directory)
        for target, _, digest in entries:
            if _file_digest(os.path.join(directory, target)) != digest:
                raise CheckpointError('checkpoint %s epoch %d: %s changed while its save was being '
                                      'completed' % (prefix, epoch, target))
        manifest = {'format': _FORMAT, 'files': [[target, digest] for target, _, digest in entries]}
        atomic_write_bytes(manifest_path(prefix, epoch), json.dumps(manifest, indent=1).encode('utf-8'))
        os.unlink(journal_path(prefix, epoch))
        fsync_directory(directory)
    except OSError as err:
        raise CheckpointError('checkpoint %s epoch %d: the save was interrupted (%s); its files are '
                              'committed, and the next load or save of this checkpoint finishes it'
                              % (prefix, epoch, err)) from err


def _pending_entries(prefix, epoch):
    """The checked entries of this checkpoint's journal, or None when no save is pending."""
    journal = journal_path(prefix, epoch)
    if not os.path.exists(journal):
        return None
    record = 'the checkpoint journal %s' % journal
    return _entries(prefix, _read_json(journal, 'the checkpoint journal'), record, journal=True)


def recover(prefix, epoch):
    """Finish a save of this checkpoint that a crash interrupted after its commit point.

    A writer's step (``save_files`` calls it first); loading never does."""
    entries = _pending_entries(prefix, epoch)
    if entries is not None:
        directory = os.path.dirname(os.path.realpath(journal_path(prefix, epoch)))
        _roll_forward(prefix, epoch, entries, directory)


def exists(prefix, epoch, path):
    """Whether ``path`` is there to load: on disk, or written by a save still pending (its journal
    lists it, the file still under its temporary name)."""
    if os.path.exists(path):
        return True
    entries = _pending_entries(prefix, epoch)
    return entries is not None and os.path.basename(path) in {target for target, _, _ in entries}


def files_to_read(prefix, epoch, paths, shared=()):
    """For a reader: ``{path: the file to read}`` for ``paths`` and ``shared``, checked to come
    from one save.  Nothing on disk changes.

    Without a journal this is ``verify`` and every path is read as it is.  With one, the set
    is the journal's: a file the interrupted save has not renamed yet is read from its
    temporary file, and each is checked against the journal's digest.
    """
    entries = _pending_entries(prefix, epoch)
    if entries is None:
        for path in list(paths) + list(shared):
            sweep_temps(os.path.realpath(path))       # what killed saves left, once no save is pending
        verify(prefix, epoch, paths, shared)
        return {path: path for path in list(paths) + list(shared)}
    journal = journal_path(prefix, epoch)
    directory = os.path.dirname(os.path.realpath(journal))
    pending = {target: (temp, digest) for target, temp, digest in entries}
    chosen = {}
    for path in list(paths) + list(shared):
        name = os.path.basename(os.path.realpath(path))
        if name not in pending:
            if path in shared:
                chosen[path] = path              # the save did not write it (symbol=None)
                continue
            raise CheckpointError('checkpoint %s epoch %d is a mixed set: %s was not written by the save '
                                  'its journal %s lists (%s)' % (prefix, epoch, path, journal,
                                                                  ', '.join(sorted(pending))))
        temp, digest = pending[name]
        waiting = os.path.join(directory, temp)
        source = waiting if os.path.exists(waiting) else os.path.join(directory, name)
        if not os.path.exists(source) or _file_digest(source) != digest:
            raise CheckpointError('checkpoint %s epoch %d: %s is not the file its save wrote (journal %s)'
                                  % (prefix, epoch, path, journal))
        chosen[path] = source
    return chosen


def verify(prefix, epoch, paths, shared=()):
    """Check that the files ``paths`` of this checkpoint come from one save (call ``recover``
    first); a checkpoint without a manifest (MXNet's) is not checked.

    A ``shared`` file (the symbol file, which every epoch of a prefix shares) is checked
    only when the save wrote it: ``save_checkpoint(symbol=None)`` leaves it as it was."""
    manifest = manifest_path(prefix, epoch)
    if not os.path.exists(manifest):
        return
    record = 'the checkpoint manifest %s' % manifest
    saved = dict(_entries(prefix, _read_json(manifest, 'the checkpoint manifest'), record, journal=False))
    for path in list(paths) + list(shared):
        name = os.path.basename(os.path.realpath(path))
        if name not in saved and path in shared:
            continue
        if name not in saved:
            raise CheckpointError('checkpoint %s epoch %d is a mixed set: %s was not written by the save '
                                  'that wrote this epoch (that save wrote %s)'
                                  % (prefix, epoch, path, ', '.join(sorted(saved))))
        if _file_digest(path) != saved[name]:
            raise CheckpointError(
                'checkpoint %s epoch %d is a mixed set: %s is not the file its save wrote: it changed since '
                '(edited, say with nd.load/nd.save, or copied from another save). If you changed '
                'it on purpose, delete the manifest %s and these files load as they are, unchecked (as MXNet '
                'loads its own checkpoints)' % (prefix, epoch, path, manifest))


# ---------------------------------------------------------------- MXNet's checkpoint functions
def params_bytes(arg_params, aux_params):
    """The ``.params`` file's bytes: ``arg:NAME`` and ``aux:NAME`` arrays, on the cpu."""
    save_dict = {('arg:%s' % k): v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({('aux:%s' % k): v.as_in_context(cpu()) for k, v in aux_params.items()})
    return nd.serialize.save_to_bytes(save_dict)


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True, states=None):
    """Write ``prefix-symbol.json`` (if symbol is given), ``prefix-%04d.params`` and, given
    ``states`` (the optimizer's state bytes), ``prefix-%04d.states``, as one set."""
    contents = {}
    if symbol is not None:
        contents['%s-symbol.json' % prefix] = symbol.tojson().encode('utf-8')
    param_name = '%s-%04d.params' % (prefix, epoch)
    contents[param_name] = params_bytes(arg_params, aux_params)
    if states is not None:
        contents['%s-%04d.states' % (prefix, epoch)] = states
    save_files(prefix, epoch, contents)
    logging.info('Saved checkpoint to "%s"', param_name)


def _params_file(prefix, epoch, caller):
    fname = '%s-%04d.params' % (prefix, epoch)
    if not exists(prefix, epoch, fname):
        raise MXNetError('%s: no parameter file %s (prefix %r, epoch %d)' % (caller, fname, prefix, epoch))
    return fname


def load_params(prefix, epoch):
    """(arg_params, aux_params) from ``prefix-%04d.params``."""
    fname = _params_file(prefix, epoch, 'load_params')
    source = files_to_read(prefix, epoch, [fname])[fname]
    return split_params(nd.load(source), fname)


def split_params(loaded, fname):
    """``{'arg:w': a, 'aux:m': b}`` -> ``({'w': a}, {'m': b})``; anything else is not a checkpoint."""
    if not isinstance(loaded, dict):
        raise MXNetError('%s holds a list of arrays, a checkpoint holds a dict' % fname)
    arg_params, aux_params = {}, {}
    for key, value in loaded.items():
        kind, _, name = key.partition(':')
        if kind == 'arg':
            arg_params[name] = value
        elif kind == 'aux':
            aux_params[name] = value
        else:
            raise MXNetError('%s is not a checkpoint: key %r has no arg:/aux: prefix' % (fname, key))
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) saved by save_checkpoint / Module.save_checkpoint."""
    fname = '%s-symbol.json' % prefix
    if not exists(prefix, epoch, fname):
        raise MXNetError('load_checkpoint: no symbol file %s' % fname)
    params = _params_file(prefix, epoch, 'load_params')
    sources = files_to_read(prefix, epoch, [params], shared=[fname])
    arg_params, aux_params = split_params(nd.load(sources[params]), params)
    return sym.load(sources[fname]), arg_params, aux_params
