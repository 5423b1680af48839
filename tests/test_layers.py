"""reflib's layers, read from the source: an import may only go down the stack.

    base, context, shapes  ->  operator  ->  symbol  ->  ndarray (random)  ->  executor  ->  the rest

The imports that go *up* are listed in UPWARD below, each with its reason; the test fails
on any new one (and on a listed one that has gone, so the list only shrinks).  Imports
inside functions count: they are imports too.  Beyond the layers, files that import each
other in a circle are allowed only where MXNet's own API ties them (CIRCLES).
"""

import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'reflib')

LAYERS = [
    ('reflib.base', 'reflib.context', 'reflib.shapes', 'reflib.generators', 'reflib.util', 'reflib.threads',
     'reflib.registry', 'reflib.engine', 'reflib.profiler'),
    ('reflib.operator', 'reflib.fluent'),
    ('reflib.symbol',),
    ('reflib.ndarray', 'reflib.random'),
    ('reflib.executor',),
]

# (importing module, imported module) pairs that go up a layer today: the work left
UPWARD = {
    # Symbol.bind/simple_bind make an Executor: MXNet's API ties the two (a genuine cycle)
    ('reflib.symbol.symbol', 'reflib.executor'),
    # the control-flow operators (_foreach, _while_loop, _cond) hold their body as a graph and
    # run it on an inner executor each step, as MXNet's subgraph operators do: they read the
    # body's JSON back into a Symbol and hand it NDArrays (both imports inside functions)
    ('reflib.operator.control_flow', 'reflib.symbol.serialization'),
    ('reflib.operator.control_flow', 'reflib.ndarray.ndarray'),
}


# Files that import each other in a circle (drawn from every import, inside functions too):
# only these, each an MXNet tie.
CIRCLES = [
    # Symbol.bind / simple_bind return an Executor, and the executor reads the graph (and
    # rewrites it first: common_expr; and asks which gradients are row_sparse: storage); the
    # executor package's CachedGraph (mx.nd.CachedOp) makes Symbols, Groups of outputs
    {'reflib.executor', 'reflib.executor.executor', 'reflib.executor.sparse_storage', 'reflib.symbol.common_expr',
     'reflib.symbol.infer', 'reflib.symbol.serialization', 'reflib.symbol.storage', 'reflib.symbol.symbol',
     'reflib.executor.cached_graph'},
    # mx.init.FusedRNN initialises a FusedRNNCell's flat vector through the cell, and rnn/
    # builds on the initializers (LSTMBias, FusedRNN): MXNet's initializer imports rnn too
    {'reflib.initializer', 'reflib.rnn.fused', 'reflib.rnn.rnn_cell'},
    # MXNet's tests take ``mx`` from ``from mxnet.test_utils import *``: test_utils imports its
    # own package, as MXNet's does
    {'reflib', 'reflib.test_utils'},
]


def _layer(module):
    for level, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + '.') for p in prefixes):
            return level
    return len(LAYERS)


def _modules():
    found = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                module = os.path.relpath(path[:-3], os.path.dirname(ROOT)).replace(os.sep, '.')
                found[module[:-len('.__init__')] if module.endswith('.__init__') else module] = path
    return found


def _imports(module, path, modules):
    package = module if path.endswith('__init__.py') else module.rsplit('.', 1)[0]
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit('.', 1)[0]
            base = (base + '.' + node.module if node.module else base) if node.level else node.module
            targets = [base + '.' + a.name if base + '.' + a.name in modules else base for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rsplit('.', 1)[0] if '.' in target else None
            if target and target != module:
                yield target


def upward_imports():
    modules = _modules()
    found = set()
    for module, path in modules.items():
        for target in _imports(module, path, modules):
            if _layer(target) > _layer(module) and _layer(module) < len(LAYERS):
                found.add((module, target))
    return found


def test_shapes_sit_at_the_bottom():
    modules = _modules()
    assert {t for t in _imports('reflib.shapes', modules['reflib.shapes'], modules)} <= {'reflib.base'}


def test_no_new_import_goes_up_a_layer():
    found = upward_imports()
    new = sorted(found - set(UPWARD))
    gone = sorted(set(UPWARD) - found)
    assert not new, 'imports that go up the layers: %s' % new
    assert not gone, 'these upward imports are gone: remove them from UPWARD: %s' % gone


def circles(graph):
    """The strongly connected components of more than one file (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_files_import_each_other_only_where_mxnet_ties_them():
    modules = _modules()
    graph = {m: set(_imports(m, p, modules)) for m, p in modules.items()}
    found = circles(graph)
    assert sorted(map(sorted, found)) == sorted(map(sorted, CIRCLES))
