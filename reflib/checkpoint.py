"""A checkpoint's files saved as one set: a crash leaves the whole old set or the whole new one.

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

A crash during step 3 leaves the journal, and whoever next loads or saves that checkpoint
finishes the renames first (*rolls forward*), so the set is the new one, whole.  Loading
checks each file against the manifest and refuses a set whose files come from different
saves (a ``.states`` from an older save, say), naming the file.  A checkpoint without a
manifest (written by MXNet) is loaded without that check.
"""

import hashlib
import json
import os

from .base import MXNetError
from .util import atomic_write_bytes, fsync_directory, sweep_temps, write_temp

__all__ = ['CheckpointError', 'save_files', 'recover', 'verify', 'manifest_path', 'journal_path']

_FORMAT = 'reflib-checkpoint-1'


class CheckpointError(MXNetError):
    """The files of a checkpoint do not belong together, or an interrupted save cannot finish."""


def manifest_path(prefix, epoch):
    return '%s-%04d.checkpoint' % (prefix, epoch)


def journal_path(prefix, epoch):
    return '%s-%04d.checkpoint-pending' % (prefix, epoch)


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def _file_digest(path):
    sha = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            sha.update(block)
    return sha.hexdigest()


def _read_json(path, what):
    try:
        with open(path, 'rb') as f:
            doc = json.loads(f.read().decode('utf-8'))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as err:
        raise CheckpointError('%s %s cannot be read (%s)' % (what, path, err)) from None
    if not (isinstance(doc, dict) and doc.get('format') == _FORMAT and isinstance(doc.get('files'), list)):
        raise CheckpointError('%s %s is not one reflib wrote (format %r)' % (what, path, _FORMAT))
    return doc


def save_files(prefix, epoch, contents):
    """Save ``contents`` ({file path: bytes}) as one checkpoint set (see the module docstring)."""
    recover(prefix, epoch)
    directory = os.path.dirname(os.path.realpath(manifest_path(prefix, epoch)))
    # what killed saves left, for every file this checkpoint may have, written now or not
    for path in set(contents) | {'%s-symbol.json' % prefix, '%s-%04d.params' % (prefix, epoch),
                                 '%s-%04d.states' % (prefix, epoch), manifest_path(prefix, epoch),
                                 journal_path(prefix, epoch)}:
        sweep_temps(os.path.realpath(path))
    entries, temps = [], []
    try:
        for path, data in contents.items():
            tmp, target = write_temp(path, lambda stream, data=data: stream.write(data))
            temps.append(tmp)
            entries.append([os.path.relpath(target, directory), os.path.basename(tmp), _digest(data)])
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


def recover(prefix, epoch):
    """Finish a save of this checkpoint that a crash interrupted after its commit point."""
    journal = journal_path(prefix, epoch)
    if not os.path.exists(journal):
        return
    doc = _read_json(journal, 'the checkpoint journal')
    directory = os.path.dirname(os.path.realpath(journal))
    _roll_forward(prefix, epoch, [list(entry) for entry in doc['files']], directory)


def verify(prefix, epoch, paths, shared=()):
    """Check that the files ``paths`` of this checkpoint come from one save (call ``recover``
    first); a checkpoint without a manifest (MXNet's) is not checked.

    A ``shared`` file (the symbol file, which every epoch of a prefix shares) is checked
    only when the save wrote it: ``save_checkpoint(symbol=None)`` leaves it as it was."""
    manifest = manifest_path(prefix, epoch)
    if not os.path.exists(manifest):
        return
    directory = os.path.dirname(os.path.realpath(manifest))
    saved = {target: digest for target, digest in _read_json(manifest, 'the checkpoint manifest')['files']}
    for path in list(paths) + list(shared):
        name = os.path.relpath(os.path.realpath(path), directory)
        if name not in saved and path in shared:
            continue
        if name not in saved:
            raise CheckpointError('checkpoint %s epoch %d is a mixed set: %s was not written by the save '
                                  'that wrote this epoch (that save wrote %s)'
                                  % (prefix, epoch, path, ', '.join(sorted(saved))))
        if _file_digest(path) != saved[name]:
            raise CheckpointError('checkpoint %s epoch %d is a mixed set: %s is not the file its save wrote '
                                  '(another save, or something else, replaced it since)' % (prefix, epoch, path))
