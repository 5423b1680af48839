"""Recording one operator's numbers in real MXNet 1.9.1: shared by the gen_ops_*.py generators.

A *case* is ``(name, params, input_specs)`` or ``(name, params, input_specs, options)``:

* ``name`` is what is called on ``mx.sym`` (an alias is fine: the canonical name is
  read back from the JSON MXNet writes);
* ``params`` the keyword parameters;
* an input spec is a shape, or ``(shape, kind)`` with a kind from :func:`make_input`;
* ``options``: ``{'grad': False}`` for an operator MXNet cannot differentiate (then
  no head or input gradients are recorded), ``{'train': False}`` to run forward
  with ``is_train=False``.
  ``{'no_grad': (j, ...)}`` for inputs MXNet refuses to differentiate (a loss's label:
  bound with grad_req 'null', their recorded gradient is zeros), ``{'keywords': True}``
  to pass the inputs by name (an operator whose optional inputs are not all present)

:func:`record_cases` binds each case with ``simple_bind``, runs forward and (unless
``grad`` is off) backward with fixed random head gradients, and stores, for case
``i``, ``c<i>_in<j>``, ``c<i>_out<k>``, ``c<i>_head<k>`` and ``c<i>_grad<j>``, plus a
description of each case in ``meta['cases']``.  The tests read them back with
``tests/op_golden.py``.  Only the generators import this file (it needs MXNet).
"""

import json
import re

import numpy as np


def make_input(rng, spec):
    """A float32 input array for ``spec``: a shape, or ``(shape, kind)``.

    kinds: ``normal`` (uniform in [-2, 2]), ``positive`` ([0.5, 2]), ``unit`` ((-0.9, 0.9),
    for arcsin and friends), ``ties`` (small integers: max/min/sort see ties),
    ``zeros`` (every third element exactly 0), ``lengths3`` (integers 1..3),
    ``bounds`` (clip's bounds among the values), ``index<N>`` (integers 0..N-1 as float32,
    for take/pick/one_hot), ``spd<N>`` (batches of N x N symmetric positive definite
    matrices, shape ``(..., N, N)``), ``distinct`` (a permutation of 0..size-1, scaled: no ties),
    ``trian<N>`` (batches of N x N matrices with a dominant diagonal in [1, 2] and off-diagonal
    entries in [-0.3, 0.3], both triangles filled: well conditioned, and an operator that reads
    one triangle only shows it), ``small`` ([-0.5, 0.5]: weights and states that do not saturate
    a recurrent layer), ``affine`` (rows of 6 near the identity 2x3 matrix), ``rois<B>_<S>``
    (ROIPooling's rows ``[batch index < B, x1, y1, x2, y2]``, corners multiples of 0.5 in [-1, S+1)).
    """
    if isinstance(spec, np.ndarray):        # given values (a padded label, lengths)
        return spec.astype(np.float32)
    shape, kind = (spec, 'normal') if not isinstance(spec[-1], str) else spec
    size = int(np.prod(shape))
    if kind == 'normal':
        return rng.uniform(-2, 2, size=shape).astype(np.float32)
    if kind == 'positive':
        return rng.uniform(0.5, 2, size=shape).astype(np.float32)
    if kind == 'small':
        return rng.uniform(-0.5, 0.5, size=shape).astype(np.float32)
    if kind == 'unit':
        return rng.uniform(-0.9, 0.9, size=shape).astype(np.float32)
    if kind == 'ties':
        return rng.randint(0, 3, size=shape).astype(np.float32)
    if kind == 'zeros':
        x = rng.uniform(-2, 2, size=shape).astype(np.float32)
        x.reshape(-1)[::3] = 0
        return x
    if kind == 'lengths3':
        return rng.randint(1, 4, size=shape).astype(np.float32)
    if kind == 'bounds':
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        x.reshape(-1)[:4] = [-0.5, 0.5, -1.0, 1.0]
        return x
    if kind == 'distinct':
        return (rng.permutation(size).reshape(shape) * 0.25 - size / 8).astype(np.float32)
    if kind == 'nans':
        x = rng.uniform(-2, 2, size=shape).astype(np.float32)
        x.reshape(-1)[1::3] = np.nan
        return x
    match = re.fullmatch(r'offrange(\d+)', kind)
    if match:
        n = int(match.group(1))
        return (rng.randint(-n - 1, 2 * n + 1, size=shape) + 0.5 * rng.randint(0, 2, size=shape)).astype(np.float32)
    match = re.fullmatch(r'cells(\d+)x(\d+)', kind)
    if match:
        rows, cols = int(match.group(1)), int(match.group(2))
        flat = rng.permutation(rows * cols)[:shape[1]]
        return np.stack([flat // cols, flat % cols]).astype(np.float32)
    match = re.fullmatch(r'index(\d+)', kind)
    if match:
        return rng.randint(0, int(match.group(1)), size=shape).astype(np.float32)
    if kind == 'affine':
        # near the identity, so a spatial transformer reads mostly inside the image
        eye = np.tile(np.array([1, 0, 0, 0, 1, 0], dtype=np.float64), shape[:-1] + (1,))
        return (eye + rng.uniform(-0.3, 0.3, size=shape)).astype(np.float32)
    match = re.fullmatch(r'rois(\d+)_(\d+)', kind)
    if match:
        # (R, 5) rows [batch index, x1, y1, x2, y2]: corners on a half-pixel lattice, some
        # outside the image and some reversed, so rounding and clipping are exercised
        batch, size = int(match.group(1)), int(match.group(2))
        rois = np.empty(shape, dtype=np.float32)
        rois[:, 0] = rng.randint(0, batch, size=shape[0])
        rois[:, 1:] = rng.randint(-2, 2 * size + 2, size=(shape[0], 4)) / 2.0
        return rois
    match = re.fullmatch(r'spd(\d+)', kind)
    if match:
        n = int(match.group(1))
        a = rng.uniform(-1, 1, size=tuple(shape[:-2]) + (n, n))
        return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)
    match = re.fullmatch(r'trian(\d+)', kind)
    if match:
        n = int(match.group(1))
        a = rng.uniform(-0.3, 0.3, size=tuple(shape[:-2]) + (n, n))
        a[..., np.arange(n), np.arange(n)] = rng.uniform(1, 2, size=tuple(shape[:-2]) + (n,))
        return a.astype(np.float32)
    raise ValueError('unknown input kind %r' % kind)


def node_attrs(sym):
    """(canonical op name, attrs dict of strings) of the last node in ``sym``'s JSON."""
    node = json.loads(sym.tojson())['nodes'][-1]
    return node['op'], node.get('attrs', {})


def sym_function(mx, name):
    """``mx.sym.<name>``, or ``mx.sym._internal.<name>`` for an underscore operator that MXNet
    keeps only there (``_arange``, ``_eye``, ``_histogram``); a dotted name is looked up in
    a namespace (``linalg.syevd``: MXNet has no other name for it)."""
    if '.' in name:
        space, short = name.split('.')
        return getattr(getattr(mx.sym, space), short)
    if not hasattr(mx.sym, name) and name.startswith('_contrib_') and not hasattr(mx.sym._internal, name):
        # MXNet's front end keeps the contrib operators as mx.sym.contrib.<short name> only
        return getattr(mx.sym.contrib, name[len('_contrib_'):])
    if not hasattr(mx.sym, name) and name.startswith('_'):
        return getattr(mx.sym._internal, name)
    return getattr(mx.sym, name)


def record_errors(mx, errors, meta, op_name=lambda name: name):
    """``meta['errors']``: for each ``(name, params, shapes)`` MXNet refuses at shape inference,
    the operator (``op_name(name)``), the parameters, the shapes and MXNet's first line."""
    import warnings
    table = []
    for name, params, shapes in errors:
        variables = [mx.sym.Variable('in%d' % j) for j in range(len(shapes))]
        try:
            sym = sym_function(mx, name)(*variables, name='node', **params)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                sym.infer_shape(**{'in%d' % j: s for j, s in enumerate(shapes)})
        except mx.base.MXNetError as err:
            table.append({'op': op_name(name), 'params': params, 'shapes': [list(s) for s in shapes],
                          'mxnet': str(err).split('\n')[0][:200]})
            continue
        raise AssertionError('MXNet accepts %s %s %s' % (name, params, shapes))
    meta['errors'] = table


def strip(names, prefix='node_'):
    return [n[len(prefix):] if n.startswith(prefix) else n for n in names]


def _free_input_names(mx, name, params, n_inputs):
    """The input names MXNet gives a node named ``node`` whose inputs it creates itself."""
    free_kw = dict(params)
    try:
        free = sym_function(mx, name)(name='node', **free_kw)
    except mx.base.MXNetError:          # variable-input ops need their count
        free_kw['num_args'] = n_inputs
        free = sym_function(mx, name)(name='node', **free_kw)
    names = strip(free.list_arguments())
    if len(names) != n_inputs:
        free_kw['num_args'] = n_inputs
        names = strip(sym_function(mx, name)(name='node', **free_kw).list_arguments())
    return names


def record_cases(mx, cases, arrays, meta, seed=42):
    """Run every case in MXNet; fill ``arrays`` and ``meta['cases']`` (see the module doc)."""
    rng = np.random.RandomState(seed)
    described = []
    for i, case in enumerate(cases):
        name, params, specs = case[:3]
        options = dict(case[3]) if len(case) > 3 else {}
        grad, train = options.get('grad', True), options.get('train', True)
        xs = [make_input(rng, s) for s in specs]
        variables = [mx.sym.Variable('in%d' % j) for j in range(len(xs))]
        if options.get('keywords'):
            names = _free_input_names(mx, name, params, len(xs))
            sym = sym_function(mx, name)(name='node', **dict(zip(names, variables)), **params)
        else:
            sym = sym_function(mx, name)(*variables, name='node', **params)
        op, attrs = node_attrs(sym)
        no_grad = set(options.get('no_grad', ()))
        grad_req = {'in%d' % j: 'write' if grad and j not in no_grad else 'null' for j in range(len(xs))}
        exe = sym.simple_bind(mx.cpu(), grad_req=grad_req or 'null',   # no inputs: an empty dict is refused
                              **{'in%d' % j: x.shape for j, x in enumerate(xs)})
        for j, x in enumerate(xs):
            exe.arg_dict['in%d' % j][:] = x
        outs = [o.asnumpy() for o in exe.forward(is_train=train)]
        for j, x in enumerate(xs):
            arrays['c%d_in%d' % (i, j)] = x
        for k, o in enumerate(outs):
            arrays['c%d_out%d' % (i, k)] = o
        if grad:
            heads = [rng.normal(size=o.shape).astype(o.dtype) for o in outs]
            exe.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
            for k, h in enumerate(heads):
                arrays['c%d_head%d' % (i, k)] = h
            for j in range(len(xs)):
                arrays['c%d_grad%d' % (i, j)] = (np.zeros_like(xs[j]) if j in no_grad
                                                 else exe.grad_dict['in%d' % j].asnumpy())
        described.append({'alias': name, 'op': op, 'attrs': attrs, 'n_in': len(xs), 'n_out': len(outs),
                          'grad': grad, 'train': train,
                          'input_names': _free_input_names(mx, name, params, len(xs)) if xs else [],
                          'output_names': strip(sym.list_outputs())})
    meta['cases'] = described
