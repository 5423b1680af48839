"""The operator reference (api/operators_*.md): one entry per operator, read from reflib's registry
when the book is built, so it cannot drift from the code.

``{operator-reference} <group>`` writes, for every operator of that group (the operator
modules listed in GROUPS): what it computes (its class docstring), its aliases, its inputs,
outputs and auxiliary states, a table of its parameters (kind, default, bounds or choices,
what it does) and the chapters whose code calls it.  tests/test_api_reference.py checks that
every registered operator lands on exactly one page.
"""

import json
import os
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx import addnodes

# page key -> (title, the reflib.operator modules it covers)
GROUPS = {
    'layers': ('Layers and losses',
               ['nn', 'conv', 'deconv', 'pooling', 'norm', 'normalize', 'rnn', 'softmax',
                'softmax_activation', 'loss', 'ctc', 'im2col', 'resample', 'vision', 'attention',
                'kl_sparse_reg']),
    'math': ('Arithmetic and mathematical functions',
             ['unary', 'elemwise', 'broadcast', 'compare', 'trig', 'rounding', 'special', 'pdf']),
    'arrays': ('Creating, reshaping, indexing and reducing arrays; linear algebra',
               ['creation', 'shape', 'layout', 'indexing', 'slicing', 'assign', 'sequence', 'ordering',
                'reduce', 'dot', 'linalg', 'linalg_diag', 'linalg_factor', 'inspection']),
    'random': ('Random sampling', ['sampling']),
    'updates': ('Optimizer updates and mixed precision', ['update', 'multi_update', 'amp']),
    'contrib': ('Images, detection, quantization, control flow and Python operators',
                ['image', 'boxes', 'detection', 'resize', 'quantize', 'control_flow', 'cached_op', 'custom']),
}

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)


def _registry():
    # the built book documents the checkout it is built from
    import sys
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    from reflib.operator import registry
    return registry


def group_of(op):
    """The page key an operator belongs on (None: on none, which the test refuses)."""
    module = type(op).__module__.rsplit('.', 1)[-1]
    for key, (_, modules) in GROUPS.items():
        if module in modules:
            return key
    return None


def _aliases(registry):
    by_op = {}
    for name in registry.list_operators():
        op = registry.get(name)
        if name != op.name:
            by_op.setdefault(id(op), []).append(name)
    return by_op


# a stand-in value for each kind of required parameter, so that inputs(p) and outputs(p) can be
# asked (most operators' inputs do not depend on them; those that do say so in their docstring)
_PLACEHOLDER = {'int': 1, 'float': 1.0, 'bool': False, 'shape': (1, 1), 'floats': (1.0,), 'str': 'x',
                'int_or_none': 1, 'float_or_none': 1.0, 'shape_or_none': (1, 1)}


def signature(op):
    """(inputs, outputs, auxiliary states) under the default parameters, or None where the
    operator cannot say without more (a Python operator, a variable input count)."""
    raw = {}
    for name, spec in op.params.items():
        if spec.required:
            value = spec.choices[0] if spec.kind == 'enum' and spec.choices else _PLACEHOLDER.get(spec.kind)
            if value is None:
                return None
            if spec.low is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
                value = max(value, spec.low)
            raw[name] = value
    try:
        p = op.parse_params(raw)
        return list(op.inputs(p)), list(op.outputs(p))[:op.visible_outputs(p)], list(op.aux(p))
    except Exception:       # noqa: BLE001 -- depends on parameters: the docstring says how
        return None


def _bounds(spec):
    if spec.choices:
        return 'one of ' + ', '.join(str(c) for c in spec.choices)
    low, high = spec.low, spec.high
    if low is not None and high is not None:
        return '[%s, %s]' % (low, high)
    if low is not None:
        return '≥ %s' % (low,)
    if high is not None:
        return '≤ %s' % (high,)
    return ''


def _default(spec):
    return 'required' if spec.required else repr(spec.default)


def chapter_calls(root=_ROOT):
    """operator name -> [(chapter file stem, title)] of the chapters whose code cells call it
    as ``mx.nd.<name>(``, ``mx.sym.<name>(``, ``sym.<name>(``, ``nd.<name>(`` or ``F.<name>(``."""
    found = {}
    folder = os.path.join(root, 'chapters')
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith('.ipynb'):
            continue
        with open(os.path.join(folder, fname), encoding='utf-8') as f:
            nb = json.load(f)
        title = fname
        code = []
        for cell in nb['cells']:
            text = ''.join(cell['source'])
            if cell['cell_type'] == 'markdown' and title == fname:
                heading = re.search(r'^# (.+)$', text, re.M)
                if heading:
                    title = heading.group(1).strip()
            elif cell['cell_type'] == 'code':
                code.append(text)
        for name in set(re.findall(r'\b(?:mx\.nd|mx\.sym|mx\.symbol|mx\.ndarray|nd|sym|F)\.'
                                   r'(?:contrib\.|linalg\.|random\.|image\.)?([A-Za-z_][A-Za-z0-9_]*)\(',
                                   '\n'.join(code))):
            found.setdefault(name, []).append((fname[:-len('.ipynb')], title))
    return found


def _table(header, rows, widths):
    table = nodes.table(classes=['operator-params'])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    head += _row(header, literal_first=False)
    body = nodes.tbody()
    group += body
    for row in rows:
        body += _row(row, literal_first=True)
    return table


def _row(cells, literal_first):
    row = nodes.row()
    for k, text in enumerate(cells):
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.literal(text=text) if literal_first and k == 0 else nodes.Text(text)
        entry += para
        row += entry
    return row


def _names(label, names):
    para = nodes.paragraph()
    para += nodes.strong(text=label + ': ')
    if not names:
        para += nodes.Text('none')
    for k, name in enumerate(names):
        if k:
            para += nodes.Text(', ')
        para += nodes.literal(text=name)
    return para


class OperatorReference(Directive):
    """``{operator-reference} <group>``: the entries of one page (see GROUPS)."""
    required_arguments = 1
    has_content = False

    def run(self):
        key = self.arguments[0]
        if key not in GROUPS:
            raise self.error('operator-reference: unknown group %r; the groups are %s' % (key, sorted(GROUPS)))
        registry = _registry()
        aliases = _aliases(registry)
        calls = chapter_calls()
        out = []
        for op in registry.canonical_operators():
            if group_of(op) != key:
                continue
            out.append(self._entry(op, aliases.get(id(op), []), calls))
        return out

    def _entry(self, op, aliases, calls):
        section = nodes.section(ids=['op-' + nodes.make_id(op.name)], names=[nodes.fully_normalize_name(op.name)])
        section += nodes.title(text=op.name)
        doc = (type(op).__doc__ or '').strip()
        if doc:
            lines = [line[4:] if line.startswith('    ') else line for line in doc.splitlines()]
            holder = nodes.container()
            self.state.nested_parse(StringList(lines, source='operator %s' % op.name), self.content_offset, holder)
            section += holder.children
        call = nodes.paragraph()
        call += nodes.strong(text='Call: ')
        call += nodes.literal(text='mx.nd.%s(...)' % op.name)
        call += nodes.Text(', ')
        call += nodes.literal(text='mx.sym.%s(...)' % op.name)
        if aliases:
            call += nodes.Text('; also named ')
            for k, alias in enumerate(sorted(aliases)):
                if k:
                    call += nodes.Text(', ')
                call += nodes.literal(text=alias)
        section += call
        sig = signature(op)
        if sig is None:
            section += nodes.paragraph(text='Inputs and outputs: they depend on the parameters (see above).')
        else:
            ins, outs, aux = sig
            section += _names('Inputs', ins)
            section += _names('Outputs', outs)
            if aux:
                section += _names('Auxiliary states', aux)
        if op.params:
            rows = [(name, spec.kind, _default(spec), _bounds(spec), spec.doc)
                    for name, spec in sorted(op.params.items())]
            section += _table(('parameter', 'kind', 'default', 'allowed', 'what it does'), rows, (18, 10, 12, 14, 46))
        used = []
        for name in [op.name] + aliases:
            for chapter in calls.get(name, []):
                if chapter not in used:
                    used.append(chapter)
        if used:
            para = nodes.paragraph()
            para += nodes.strong(text='In the book: ')
            for k, (stem, title) in enumerate(used):
                if k:
                    para += nodes.Text(', ')
                ref = addnodes.pending_xref('', refdomain='std', reftype='doc', reftarget='/chapters/' + stem,
                                            refexplicit=True)
                ref += nodes.inline(text=title)
                para += ref
            section += para
        return section


def setup(app):
    app.add_directive('operator-reference', OperatorReference)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
