"""``gluon.utils``: helpers around a Gluon training loop.

split_data, split_and_load   cut a batch into one slice per device (data parallelism)
clip_global_norm             scale gradients so that their joint 2-norm is at most a bound
check_sha1, download         find a file on disk (reflib never goes to the network)
replace_file                 move a finished file into place in one step
shape_is_known, HookHandle   used by Blocks: is a shape complete; a removable hook

>>> import reflib as mx
>>> batch = mx.nd.arange(10).reshape((5, 2))
>>> [part.shape for part in split_data(batch, 2, even_split=False)]
[(3, 2), (2, 2)]

``download`` is offline by design: it returns the local file when it is already where
MXNet would have written it (with the right SHA-1 when one is given), and otherwise says
which URL to fetch by hand and where to put it.
"""

import collections
import hashlib
import os
import weakref
import warnings

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..ndarray import NDArray
from ..shapes import is_np_shape
from ..util import is_np_array
from .. import numpy as _mx_np

__all__ = ['split_data', 'split_and_load', 'clip_global_norm', 'check_sha1', 'download', 'replace_file',
           'DownloadError']


class DownloadError(MXNetError, OSError):
    """A file MXNet would have fetched from the web is not on disk (or is not the right
    one), and reflib does not download.  An OSError, as a failed download is in MXNet."""


# ------------------------------------------------------------------ data parallelism
def _section_bounds(size, num_slice):
    """Start and end of each of ``num_slice`` consecutive sections of ``size`` items; the
    first ``size % num_slice`` sections hold one item more than the others."""
    each, extra = divmod(size, num_slice)
    bounds, start = [], 0
    for i in range(num_slice):
        end = start + each + (1 if i < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """``data`` cut into a list of ``num_slice`` slices along ``batch_axis``.

    With ``even_split`` (the default) the axis must divide evenly, else ValueError;
    without it the first slices are one item longer, and a slice may be empty when there
    are more slices than items.  Slices along axis 0 share memory with ``data``; along
    another axis they are copies (``slice_axis``), as in MXNet.  An ``mx.np.ndarray`` batch
    gives ``mx.np.ndarray`` slices.
    """
    if isinstance(num_slice, bool) or not isinstance(num_slice, (int, np.integer)) or num_slice < 1:
        raise ValueError('split_data: num_slice must be a positive whole number, got %r' % (num_slice,))
    size = data.shape[batch_axis]
    if even_split and size % num_slice:
        raise ValueError('split_data: a batch of shape %s has %d items along axis %d, which do not split '
                         'evenly into %d slices; make the batch size a multiple of %d, or pass '
                         'even_split=False to allow slices of different sizes'
                         % (tuple(data.shape), size, batch_axis, num_slice, num_slice))
    bounds = _section_bounds(size, num_slice)
    if batch_axis == 0:
        # plain slicing along the first axis gives views, so no batch is copied here
        return [data[start:end] for start, end in bounds]
    slices = [nd.slice_axis(data, axis=batch_axis, begin=start, end=end) for start, end in bounds]
    if isinstance(data, _mx_np.ndarray):        # an mx.np batch gives mx.np slices
        slices = [part.as_np_ndarray() for part in slices]
    return slices


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """``data`` split into ``len(ctx_list)`` slices, slice ``i`` copied to ``ctx_list[i]``.

    ``data`` that is not an NDArray (a numpy array, a list) becomes one first, on the first
    context (float32 unless it says otherwise, as ``nd.array`` makes it).  With one
    context the whole batch goes there, without splitting.
    """
    ctx_list = list(ctx_list)
    if not ctx_list:
        raise ValueError('split_and_load: ctx_list is empty; give at least one context')
    if not isinstance(data, NDArray):
        # under NumPy array semantics the batch becomes an mx.np array, as in MXNet
        data = _mx_np.array(data, ctx=ctx_list[0]) if is_np_array() else nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [part.as_in_context(ctx) for part, ctx in zip(slices, ctx_list)]


# ------------------------------------------------------------------ gradient clipping
def _squared_norm(array):
    """The sum of the squares of ``array``'s elements, a float32 NDArray of shape (1,) on
    ``array``'s context."""
    if array.stype != 'default':
        # a sparse array's stored values are all of its non-zeros
        array = array.data
    if not np.issubdtype(np.dtype(array.dtype), np.floating):
        raise MXNetError('clip_global_norm: the arrays must hold floating-point values (they are scaled in '
                         'place), got %s' % np.dtype(array.dtype).name)
    flat = array.reshape((-1,))
    if flat.dtype == np.float16:
        # float16 squares overflow past 65504; add them up in float32
        flat = flat.astype(np.float32)
    squares = nd.dot(flat, flat)
    return squares if squares.dtype == np.float32 else squares.astype(np.float32)


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so that their joint 2-norm is at most ``max_norm``.

    The joint norm is ``sqrt(sum of every element squared)`` over all the arrays; each
    array is multiplied by ``min(max_norm / (norm + 1e-8), 1)``, so arrays already within
    the bound are left as they are.  Returns the norm before scaling: a numpy float32
    when ``check_isfinite`` (which then warns when the norm is NaN or infinite, since the
    scaled values are then meaningless), else a float32 NDArray of shape (1,), which
    avoids waiting for the result.

    The norm is computed on the first array's context.  Unlike MXNet, arrays of float16
    and float64 work too (MXNet's CPU code takes float32 only).
    """
    if len(arrays) == 0:
        raise AssertionError('clip_global_norm: give at least one array')
    ctx = arrays[0].context
    squares = [_squared_norm(array).as_in_context(ctx) for array in arrays]
    total_norm = nd.sqrt(nd.add_n(*squares))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning('clip_global_norm: the norm of the arrays is NaN or infinite, so the '
                                  'clipped values are not meaningful'), stacklevel=2)
    # A NaN norm gives a NaN scale, which reaches every array, and an infinite one a zero
    # scale (inf * 0 = NaN where an element is infinite), as in MXNet, which says nothing
    # more than the warning above: numpy's own warnings about those NaNs are silenced.
    with np.errstate(invalid='ignore', over='ignore'):
        scale = nd.minimum(max_norm / (total_norm + 1e-8), 1.0)
        for array in arrays:
            factor = scale.as_in_context(array.context)
            array *= factor if factor.dtype == array.dtype else factor.astype(array.dtype)
    if check_isfinite:
        return total_norm.asscalar()
    return total_norm


# ------------------------------------------------------------------ files
def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of ``filename``'s bytes is ``sha1_hash`` (hexadecimal digits)."""
    digest = hashlib.sha1()
    with open(filename, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest() == sha1_hash


def _download_target(url, path):
    """The file MXNet's ``download`` writes ``url`` to: ``path`` itself, or the URL's last
    part inside ``path`` when that is a folder, or in the working folder when ``path`` is
    None."""
    name = url.split('/')[-1]
    if path is None:
        if not name:
            raise AssertionError('download: the URL %r does not end in a file name; give path=' % (url,))
        return name
    path = os.path.expanduser(path)
    return os.path.join(path, name) if os.path.isdir(path) else path


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """The local copy of ``url``: the file where MXNet's ``download`` would have written it.

    That is ``path`` (a file name, or a folder to put the URL's last part in; the working
    folder when None).  reflib never goes to the network, so the file must already be
    there, with SHA-1 ``sha1_hash`` when that is given; otherwise, and always when
    ``overwrite`` asks for a fresh copy, DownloadError says which URL to fetch and where
    to put it.  ``retries`` and ``verify_ssl`` are MXNet's and change nothing here.
    """
    fname = _download_target(url, path)
    if retries < 0:
        raise AssertionError('download: retries must be at least 0, got %r' % (retries,))
    advice = 'reflib does not download: fetch %s yourself and save it as %s' % (url, os.path.abspath(fname))
    if overwrite:
        raise DownloadError('download(overwrite=True) asks for a fresh copy of %s; %s (or call download '
                            'without overwrite to use the file already there)' % (url, advice))
    if not os.path.exists(fname):
        raise DownloadError('%s is not on disk; %s' % (os.path.abspath(fname), advice))
    if sha1_hash and not check_sha1(fname, sha1_hash):
        raise DownloadError('%s is on disk but its SHA-1 is not %s (the file is damaged or another version); %s'
                            % (os.path.abspath(fname), sha1_hash, advice))
    return fname


def replace_file(src, dst):
    """Move ``src`` to ``dst`` in one step, replacing ``dst`` (same file system), so that a
    reader sees the old file or the new one, never half of it.  On failure ``src`` is
    removed and OSError names both files."""
    try:
        os.replace(src, dst)
    except OSError as err:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError('replace_file: cannot move %s to %s (%s); the temporary file is removed, try again'
                      % (src, dst, err)) from None


# ------------------------------------------------------------------ for Blocks
def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known.  Under MXNet's legacy shapes 0 means
    unknown (and ``()`` is an unknown shape); under NumPy shape semantics -1 means unknown
    and ``()`` is a scalar's shape.  A dimension below the unknown marker is an error."""
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        if dim < unknown:
            raise AssertionError('shape_is_known: a dimension cannot be below %d, got %d in %s'
                                 % (unknown, dim, tuple(shape)))
    return True


class HookHandle:
    """The handle ``register_forward_hook`` and its kin return: ``detach()`` removes the
    hook, and ``with handle:`` removes it at the end of the block.

    The handle holds its hooks dictionary weakly, so a forgotten handle does not keep a
    Block's hooks alive.
    """

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        if self._hooks_dict_ref is not None:
            raise AssertionError('HookHandle: this handle is attached already; a handle holds one hook')
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None:
            hooks_dict.pop(self._id, None)

    # a weak reference cannot be pickled: the dictionary itself travels (pickled with its
    # Block, it comes back as the Block's own dictionary), and a handle whose dictionary was
    # gone comes back holding a reference that is dead already, so detach does nothing
    def __getstate__(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        return hooks_dict, self._id

    def __setstate__(self, state):
        hooks_dict, self._id = state
        self._hooks_dict_ref = weakref.ref(hooks_dict if hooks_dict is not None else collections.OrderedDict())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()


def _get_repo_url():
    """Where MXNet fetches Gluon's data sets and models: ``$MXNET_GLUON_REPO``, else
    MXNet's S3 bucket (ending in '/')."""
    repo = os.environ.get('MXNET_GLUON_REPO', 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/')
    return repo if repo.endswith('/') else repo + '/'


def _get_repo_file_url(namespace, filename):
    """The URL MXNet fetches ``filename`` of ``namespace`` (e.g. 'gluon/dataset/mnist') from."""
    return '%s%s/%s' % (_get_repo_url(), namespace, filename)
