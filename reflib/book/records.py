"""A picture of one record of a RecordIO file (chapter 10), read from the file's bytes.

A ``.rec`` file is a sequence of records.  Each starts with two 32-bit little-endian
words: the magic number ``0xced7230a`` and ``lrecord``, whose upper 3 bits say whether the
record is whole or a piece of a long one and whose lower 29 bits are the payload's length.
The payload follows, padded with zeros to a multiple of 4 bytes.  A record that
``recordio.pack`` made starts its payload with an ``IRHeader``: ``flag`` (uint32, the
number of extra float labels that follow the header, 0 for one label), ``label``
(float32), ``id`` and ``id2`` (uint64); the rest is the data, an encoded image for
``pack_img``.
"""

import struct

from .drawing import digraph

MAGIC = 0xced7230a
_HEADER = struct.Struct('<IfQQ')


def parse_record(raw, offset=0):
    """The fields of the record starting at ``offset`` in the bytes ``raw``, as
    ``(name, first byte, number of bytes, value shown)`` tuples."""
    magic, lrecord = struct.unpack_from('<II', raw, offset)
    if magic != MAGIC:
        raise ValueError('no record starts at byte %d (found 0x%08x, not the magic 0x%08x)'
                         % (offset, magic, MAGIC))
    length, cflag = lrecord & ((1 << 29) - 1), lrecord >> 29
    fields = [('magic', offset, 4, '0x%08x' % magic),
              ('lrecord', offset + 4, 4, 'cflag %d, length %d' % (cflag, length))]
    start = offset + 8
    flag, label, rec_id, id2 = _HEADER.unpack_from(raw, start)
    fields += [('flag', start, 4, str(flag)), ('label', start + 4, 4, '%g' % label),
               ('id', start + 8, 8, str(rec_id)), ('id2', start + 16, 8, str(id2))]
    data = start + _HEADER.size
    if flag:
        labels = struct.unpack_from('<%df' % flag, raw, data)
        fields.append(('labels', data, 4 * flag, ' '.join('%g' % v for v in labels)))
        data += 4 * flag
    body = raw[data:start + length]
    kind = 'PNG image' if body[:4] == b'\x89PNG' else 'JPEG image' if body[:2] == b'\xff\xd8' else 'data'
    fields.append(('payload', data, len(body), kind))
    padding = -length % 4
    if padding:
        fields.append(('padding', start + length, padding, 'zeros'))
    return fields


def draw_record(path, offset=0):
    """One record of the RecordIO file ``path`` as a table, one row per field in byte
    order: its name, its byte range and its value (the header MXNet writes, then the
    payload).  A column of rows rather than a row of boxes, so that the picture stays
    narrow and its text readable on a phone's screen."""
    with open(path, 'rb') as f:
        raw = f.read()
    fields = parse_record(raw, offset)
    colours = {'magic': '#ead1dc', 'lrecord': '#ead1dc', 'payload': '#d9ead3', 'padding': '#eeeeee'}
    head = ''.join('<td align="left"><b>%s</b></td>' % title for title in ('field', 'bytes', 'value'))
    rows = ''.join(
        '<tr><td align="left" bgcolor="{0}">{1}</td><td align="right" bgcolor="{0}">{2}-{3}</td>'
        '<td align="left" bgcolor="{0}">{4}</td></tr>'.format(
            colours.get(name, '#cfe2f3'), name, first, first + size - 1, value)
        for name, first, size, value in fields)
    dot = digraph()
    dot.node('record', '<<table border="0" cellborder="1" cellspacing="0" cellpadding="3">'
                       '<tr>%s</tr>%s</table>>' % (head, rows), shape='plaintext')
    return dot
