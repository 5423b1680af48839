"""Record MXNet 1.9.1's call conventions for tests/test_conventions.py: conventions.json.

* ``signatures``: for every operator function of ``mx.sym`` (``_internal`` and ``linalg``
  included), its inputs and its parameters in the order its generated signature takes
  them positionally (``'*'`` for a variadic operator, whose positional values are inputs);
* ``fluent``: the NDArray and Symbol methods that call the operator of their name;
* ``cases``: the answers of the calls in conventions_cases.py.

Run with MXNet's interpreter: ``cd tests/golden && /tmp/mxv/bin/python gen_conventions.py``.
"""
import inspect
import json
import warnings

import mxnet as mx

from conventions_cases import CASES

warnings.simplefilter('ignore')


def signatures():
    found = {}
    for module, prefix in ((mx.sym, ''), (mx.sym._internal, ''), (mx.sym.linalg, '_linalg_')):
        for name in dir(module):
            fn = getattr(module, name)
            if not callable(fn) or not hasattr(fn, '__code__'):
                continue
            try:
                params = list(inspect.signature(fn).parameters.values())
            except (TypeError, ValueError):
                continue
            names = [p.name for p in params]
            variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
            if not variadic and not ('attr' in names and 'out' in names):
                continue     # not a generated operator function
            inputs = '*' if variadic else [p.name for p in params
                                           if p.default is None and p.name not in ('name', 'attr', 'out')]
            found[prefix + name] = [inputs, [p.name for p in params if repr(p.default) == '_Null']]
    return found


def fluent_names():
    """The NDArray and Symbol methods whose body calls the operator of the same name."""
    names = set()
    for cls in (mx.nd.NDArray, mx.sym.Symbol):
        for name in dir(cls):
            fn = getattr(cls, name)
            if name.startswith('_') or not callable(fn):
                continue
            try:
                source = inspect.getsource(fn)
            except (TypeError, OSError):
                continue
            if 'op.%s(self' % name in source:
                names.add(name)
    return sorted(names)


def main():
    out = {'signatures': signatures(), 'fluent': fluent_names(),
           'cases': {name: case(mx) for name, case in CASES.items()}}
    with open('conventions.json', 'w') as f:
        json.dump(out, f, sort_keys=True, separators=(',', ':'))


if __name__ == '__main__':
    main()
