"""Printing reflib's own source in a chapter, and running a block in another folder."""

import contextlib
import inspect
import os
import textwrap


@contextlib.contextmanager
def working_directory(path):
    """Run a with-block in ``path`` and come back (``contextlib.chdir`` needs Python 3.11)."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield path
    finally:
        os.chdir(before)


def source(obj):
    """reflib's own source of ``obj`` (a function, method, class or module), dedented."""
    return textwrap.dedent(inspect.getsource(obj))


def excerpt(obj, first=None, last=None, after=0):
    """Print reflib's own source of ``obj``, from the line containing ``first`` (default: the
    first line) to the next line containing ``last`` (default: the last line), and ``after``
    lines more."""
    lines = source(obj).splitlines()
    start = 0 if first is None else next(i for i, line in enumerate(lines) if first in line)
    stop = len(lines) - 1 if last is None else next(i for i in range(start, len(lines)) if last in lines[i])
    print(textwrap.dedent('\n'.join(lines[start:stop + after + 1])))


def source_lines(obj, *prefixes):
    """Print only the lines of ``obj``'s source that start with one of ``prefixes``."""
    lines = [line for line in source(obj).splitlines() if line.strip().startswith(prefixes)]
    print(textwrap.dedent('\n'.join(lines)))
