"""What autograd recorded (chapter 16): the calls on the tape behind an array, drawn and
listed in the order ``backward`` visits them, and the memory the tape keeps alive."""

from ..ndarray import tape
from .drawing import digraph


def _op_name(node):
    op = node.op
    if getattr(op, 'graph', None) is not None:
        return '_CachedOp'          # a hybridized block's call, as MXNet names it
    return getattr(op, 'name', None) or type(op).__name__.lstrip('_')


def recorded_calls(head):
    """The recorded calls ``head`` depends on, oldest first: dicts with the call's number on
    the tape, its operator, its input and output shapes, and where each input came from
    ('variable', 'constant', or the number of the call that made it)."""
    entry = getattr(head, '_entry', None)
    if entry is None or isinstance(entry, tape.Variable):
        return []
    found, stack = {}, [entry[0]]
    while stack:
        node = stack.pop()
        if id(node) in found or node.freed:
            continue
        found[id(node)] = node
        stack.extend(s[0] for s in node.sources if s is not None and not isinstance(s, tape.Variable))
    nodes = sorted(found.values(), key=lambda n: n.seq)
    number = {id(n): k for k, n in enumerate(nodes)}
    calls = []
    for node in nodes:
        inputs = []
        for source, value in zip(node.sources, node.ins):
            if source is None:
                inputs.append(('constant', tuple(value.shape)))
            elif isinstance(source, tape.Variable):
                inputs.append(('variable', tuple(value.shape)))
            else:
                inputs.append((number[id(source[0])], tuple(value.shape)))
        calls.append({'number': number[id(node)], 'op': _op_name(node), 'inputs': inputs,
                      'outputs': [tuple(o.shape) for o in node.outs[:node.visible]]})
    return calls


def kept_bytes(head):
    """Bytes of the values the recorded calls behind ``head`` computed (each array once): what
    the tape keeps alive for backward besides the inputs and parameters themselves."""
    entry = getattr(head, '_entry', None)
    if entry is None or isinstance(entry, tape.Variable):
        return 0
    seen, total, stack, done = set(), 0, [entry[0]], set()
    while stack:
        node = stack.pop()
        if id(node) in done or node.freed:
            continue
        done.add(id(node))
        for arr in node.outs:
            if arr is not None and id(arr) not in seen:
                seen.add(id(arr))
                total += arr.nbytes
        stack.extend(s[0] for s in node.sources if s is not None and not isinstance(s, tape.Variable))
    return total


def draw_tape(head, names=None):
    """The recorded graph behind ``head``: variables (green, named from ``names``, a dict
    {id(array): name}, when given), constants (grey) and each recorded call (orange,
    ``k: op`` with k its place on the tape: backward visits them from the highest k down)."""
    names = names or {}
    calls = recorded_calls(head)
    dot = digraph(rankdir='LR', nodesep='0.25', ranksep='0.35', node={'fontsize': '10'})
    entry = head._entry
    nodes = {}

    def collect(node):
        if id(node) in nodes:
            return
        nodes[id(node)] = node
        for s in node.sources:
            if s is not None and not isinstance(s, tape.Variable):
                collect(s[0])
    collect(entry[0])
    ordered = sorted(nodes.values(), key=lambda n: n.seq)
    number = {id(n): k for k, n in enumerate(ordered)}
    leaves, variables = 0, {}          # node keys by order of appearance: the same picture every run
    for node in ordered:
        k = number[id(node)]
        dot.node('c%d' % k, '%d: %s' % (k, calls[k]['op']), shape='box', style='rounded,filled',
                 fillcolor='#fdd9a8')
        for j, (source, value) in enumerate(zip(node.sources, node.ins)):
            shape = str(tuple(value.shape))
            if source is None:
                dot.node('k%d' % leaves, 'constant', shape='oval', style='filled', fillcolor='#e8e8e8')
                dot.edge('k%d' % leaves, 'c%d' % k, label=shape)
                leaves += 1
            elif isinstance(source, tape.Variable):
                key = variables.setdefault(id(source), 'v%d' % len(variables))
                label = names.get(id(source.array), 'variable')
                dot.node(key, label, shape='oval', style='filled', fillcolor='#8dd3c7')
                dot.edge(key, 'c%d' % k, label=shape)
            else:
                dot.edge('c%d' % number[id(source[0])], 'c%d' % k, label=shape)
    dot.node('head', 'head', shape='plaintext')
    dot.edge('c%d' % number[id(entry[0])], 'head')
    return dot
