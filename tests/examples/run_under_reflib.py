"""Run one of MXNet's example scripts (tests/examples/*.py) under reflib: `import mxnet` and
`import mxnet.<sub>` give reflib and its submodules.

    python tests/examples/run_under_reflib.py SCRIPT [ARGS...]

The script runs as __main__ with sys.argv = [SCRIPT, ARGS...], in the current directory.
(A profiler trace the script never dumps is written when the process ends, by reflib's
profiler as by MXNet's.)
"""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys

import reflib


class _MXNetIsReflib(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `mxnet.X` as the module `reflib.X` (imported on first use)."""

    def find_spec(self, fullname, path, target=None):
        if fullname.startswith('mxnet.') and importlib.util.find_spec('reflib.' + fullname[6:]) is not None:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module('reflib.' + spec.name[len('mxnet.'):])

    def exec_module(self, module):
        pass        # reflib's module is already imported


def main(argv):
    sys.modules['mxnet'] = reflib
    sys.meta_path.insert(0, _MXNetIsReflib())
    sys.argv = list(argv)
    runpy.run_path(argv[0], run_name='__main__')


if __name__ == '__main__':
    main(sys.argv[1:])
