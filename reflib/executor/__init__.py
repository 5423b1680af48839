"""Executors: bound symbols that run forward and backward."""

from .executor import Executor, simple_bind  # noqa: F401
