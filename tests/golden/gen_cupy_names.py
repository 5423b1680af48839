"""Record the names real cupy exposes, for the strict cupy stand-in (tests/strict_cupy.py).

The stand-in must offer exactly what cupy offers, so that reflib code calling a numpy
name cupy lacks (``xp.errstate``, ``Generator.normal``, ``ndarray.itemset``) fails in CI
as it would on a GPU.  cupy's wheel imports without a GPU, so this runs anywhere:

    python3 -m venv /tmp/cpv && /tmp/cpv/bin/pip install cupy-cuda12x
    /tmp/cpv/bin/python tests/golden/gen_cupy_names.py    # writes tests/golden/cupy_names.json
"""

import inspect
import json
import os
import re

import cupy
import cupyx
import cupyx.scipy.special


def public(obj):
    return sorted(n for n in dir(obj) if not n.startswith('_'))


def keywords(obj):
    """The parameter names of a cupy callable (None where it takes any keyword)."""
    try:
        sig = inspect.signature(obj)
        names = [p.name for p in sig.parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != 'self']
        return None if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()) else names
    except (TypeError, ValueError):                  # Cython: the docstring's first line
        match = re.match(r'[\w.]*\((.*)\)', (obj.__doc__ or '').strip().split('\n')[0])
        if not match or '**' in match.group(1):
            return None
        args = [a.split('=')[0].strip().split(' ')[-1] for a in match.group(1).split(',')]
        return [a for a in args if a and a not in ('self', '/', '*', '\\*')]


def signatures(owner, prefix, names):
    found = {}
    for name in names:
        obj = getattr(owner, name, None)
        if callable(obj) and not isinstance(obj, (type, cupy.ufunc)):
            found[prefix + name] = keywords(obj)
    return found


def main():
    ufuncs = sorted(n for n in public(cupy) if isinstance(getattr(cupy, n), cupy.ufunc))
    names = {
        'cupy_version': cupy.__version__,
        'cupy': public(cupy),
        'cupy.ufuncs': ufuncs,
        'cupy.ndarray': sorted(dir(cupy.ndarray)),
        'cupy.random': public(cupy.random),
        'cupy.random.Generator': public(cupy.random.Generator),
        'cupy.random.RandomState': public(cupy.random.RandomState),
        'cupy.linalg': public(cupy.linalg),
        'cupy.fft': public(cupy.fft),
        'cupy.lib.stride_tricks': public(cupy.lib.stride_tricks),
        'cupyx': public(cupyx),
        'cupyx.scipy.special': public(cupyx.scipy.special),
    }
    names['signatures'] = {}
    for owner, prefix, listed in [(cupy, 'cupy.', names['cupy']), (cupy.ndarray, 'ndarray.', names['cupy.ndarray']),
                                  (cupy.random.Generator, 'Generator.', names['cupy.random.Generator']),
                                  (cupy.linalg, 'cupy.linalg.', names['cupy.linalg'])]:
        names['signatures'].update(signatures(owner, prefix, [n for n in listed if not n.startswith('_')]))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cupy_names.json')
    with open(path, 'w') as f:
        json.dump(names, f, indent=0, sort_keys=True)
        f.write('\n')
    print('wrote', path, {k: len(v) for k, v in names.items() if isinstance(v, (list, dict))})


if __name__ == '__main__':
    main()
