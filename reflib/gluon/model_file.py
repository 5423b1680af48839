"""``Block.save(prefix)`` and ``Block.load(prefix)``: a network's structure, its traced
graphs and its parameters, in MXNet 1.9.1's two files.

``<prefix>-model.params`` is ``save_parameters``'s file.  ``<prefix>-model.json`` describes
the blocks, visited parent first and children in order, each under the key ``<class name in
lower case><visit number>`` inside its parent's entry: the block's name when it was saved
(``orig_name``), its children (``{child's name: the key its parent keeps it under}``) and,
for a HybridBlock, whether it had been hybridized and run (``hybridized``) and then its
traced graph (``symbol``, ``inputs``: Symbol JSON) and the nesting of its inputs and outputs
(``in_format``, ``out_format``).

``load`` takes a network built again by the same code, in the same order.  It gives each
hybridized block the saved graph (so ``hybrid_forward`` is not traced again), its children
the keys they were saved under (the parameter file's names are made of those keys), and
loads the parameters.  The saved graph names each parameter as it was named when saved;
``load`` renames those variables to the parameters the new network has, block by block
(the part after each block's prefix is the same in both).  Unlike MXNet's, it leaves the
blocks' and parameters' own names as the new network made them.
"""

import json

from ..base import MXNetError
from ..symbol import load_json
from ..util import atomic_write_text

__all__ = ['save_model', 'load_model']


def _key(block, number):
    return type(block).__name__.lower() + str(number)


def _is_hybrid(block):
    return hasattr(block, '_cached_graph')      # (HybridBlock; this module sits below block.py)


def save_model(block, prefix):
    """Write ``<prefix>-model.json`` and ``<prefix>-model.params`` for ``block``."""
    model, counter = {}, [0]

    def visit(blk, into):
        entry = {'orig_name': blk.name}
        into[_key(blk, counter[0])] = entry
        if _is_hybrid(blk):
            if blk._cached_graph:
                inputs, out = blk._cached_graph
                entry.update(in_format=blk._in_format, out_format=blk._out_format,
                             inputs=[var.tojson() for var in inputs], symbol=out.tojson(), hybridized=True)
            else:
                entry['hybridized'] = False
        entry['children'] = {child.name: key for key, child in blk._children.items()}
        for child in blk._children.values():
            counter[0] += 1
            visit(child, entry)

    visit(block, model)
    atomic_write_text(prefix + '-model.json', json.dumps(model))
    block.save_parameters(prefix + '-model.params')


def load_model(block, prefix):
    """Set ``block`` (built again as it was when saved) up from ``save_model``'s files."""
    fname = prefix + '-model.json'
    try:
        with open(fname) as f:
            model = json.load(f)
    except (OSError, ValueError) as err:
        raise MXNetError('Block.load: cannot read %r: %s' % (fname, err)) from None
    pairs, counter = [], [0]          # (block, its saved entry), parent first

    def visit(blk, saved_in):
        key = _key(blk, counter[0])
        entry = saved_in.get(key) if isinstance(saved_in, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get('children'), dict):
            raise MXNetError("Block.load: %r has no entry %r for block %s: the network must be built as it was "
                             "when it was saved" % (fname, key, blk.name))
        if len(entry['children']) != len(blk._children):
            raise MXNetError('Block.load: block %s has %d children, %r saved %d'
                             % (blk.name, len(blk._children), fname, len(entry['children'])))
        pairs.append((blk, entry))
        for child in blk._children.values():
            counter[0] += 1
            visit(child, entry)

    visit(block, model)
    # every parameter's name when saved -> its name now: the same after each block's prefix
    renamed = {}
    for blk, entry in pairs:
        saved, now = entry['orig_name'] + '_', blk.prefix
        for name in blk.params.keys():
            if name.startswith(now):
                renamed[saved + name[len(now):]] = name
    for blk, entry in pairs:
        if _is_hybrid(blk) and entry.get('hybridized'):
            inputs = [load_json(text) for text in entry['inputs']]
            blk._cached_graph = (inputs, _renamed(load_json(entry['symbol']), renamed))
            blk._in_format, blk._out_format = entry['in_format'], entry['out_format']
            blk._cached_op = None           # built from the saved graph at the next call
            blk._active = True
        # the children's keys as saved: the parameter file's names are made of them
        keys = list(entry['children'].values())
        children = list(blk._children.values())
        blk._children.clear()
        blk._children.update(zip(keys, children))
    block.load_parameters(prefix + '-model.params')


def _renamed(sym, renamed):
    """``sym`` with its variables renamed by ``renamed`` (the others as they are)."""
    graph = json.loads(sym.tojson())
    for node in graph['nodes']:
        if node['op'] == 'null' and node['name'] in renamed:
            node['name'] = renamed[node['name']]
    return load_json(json.dumps(graph))
