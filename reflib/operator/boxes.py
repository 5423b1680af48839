"""Bounding boxes and the SSD detector's operators (MXNet's ``contrib`` namespace).

A box is four numbers, in one of two encodings: ``corner`` is ``[x1, y1, x2, y2]`` (left,
top, right, bottom) and ``center`` is ``[x, y, width, height]``.  Everything here is built
from a handful of ideas:

* **overlap** (``box_iou``): the intersection over union of two boxes, the area they share
  divided by the area either covers.  1 for the same box, 0 for boxes apart.
* **non-maximum suppression** (``box_nms``): a detector fires many times around each
  object.  Rank the detections by score; walk down the list keeping a box unless a box
  already kept overlaps it by more than a threshold.  The walk is greedy and sequential
  (whether box k survives depends on which earlier boxes survived), so it runs on the
  host, one image at a time, as the region proposals of detection.py do.
* **matching** (``bipartite_matching``, and inside ``MultiBoxTarget``): pair rows with
  columns of a score matrix greedily, best score first, each row and column used once.
* **box coding** (``box_encode``, ``box_decode``, and inside the MultiBox operators): a
  network does not predict a box outright but how far to move and stretch an *anchor*:
  the centre shift in units of the anchor's size and the log of the size ratio, each
  divided by a "variance" (or standard deviation) that puts them near unit scale.
* **anchors** (``MultiBoxPrior``): SSD's default boxes, a few sizes and aspect ratios
  centred on every cell of a feature map, in coordinates relative to the image (0..1).

``MultiBoxTarget`` turns ground-truth boxes into training targets for every anchor
(which class, how to move it, and which anchors to leave out of the loss), and
``MultiBoxDetection`` turns the network's class probabilities and box moves back into
detections, suppressed per class.  ``gradientmultiplier`` is the identity whose gradient
is scaled (a negative scalar makes the gradient-reversal layer of domain adaptation).

The arithmetic follows MXNet 1.9.1's CPU code operation by operation, in the data's own
float type, so that the numbers (and the ties that decide a sort) come out the same.
"""

import numpy as np

from .registry import Operator, Param, register
from .common import to_host
from .detection import _Floats, _check_ndim
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from ..base import ShapeError, ParamError

_FORMATS = ('corner', 'center')


def _as_threshold(value, dtype):
    """A float parameter as MXNet compares it with a value of ``dtype``: the float32
    parameter widened to the value's type (float16 values are widened to float32)."""
    return np.float32(value).astype(np.float64 if dtype == np.float64 else np.float32)


def _widen(x):
    """float16 values compared with a float parameter are compared as float32, as in C++."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


# =====================================================================
# Geometry shared by the operators
# =====================================================================

def _edges(xp, boxes, fmt):
    """(left, top, right, bottom) of boxes (..., 4) in either encoding, in their dtype."""
    a0, a1, a2, a3 = (boxes[..., k] for k in range(4))
    if fmt == 'corner':
        return a0, a1, a2, a3
    two = boxes.dtype.type(2)
    return a0 - a2 / two, a1 - a3 / two, a0 + a2 / two, a1 + a3 / two


def _area(xp, boxes, fmt):
    """Width times height, 0 for a box of negative width or height."""
    zero = boxes.dtype.type(0)
    if fmt == 'corner':
        width, height = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    else:
        width, height = boxes[..., 2], boxes[..., 3]
    return xp.where((width < zero) | (height < zero), zero, width * height)


def _iou(xp, a, b, fmt):
    """Intersection over union of boxes ``a`` and ``b`` (broadcast against each other);
    0 where they do not overlap."""
    zero = a.dtype.type(0)
    al, at, ar, ab = _edges(xp, a, fmt)
    bl, bt, br, bb = _edges(xp, b, fmt)
    width = xp.maximum(xp.minimum(ar, br) - xp.maximum(al, bl), zero)
    height = xp.maximum(xp.minimum(ab, bb) - xp.maximum(at, bt), zero)
    inter = width * height
    union = _area(xp, a, fmt) + _area(xp, b, fmt) - inter
    overlap = inter > zero
    # the union is positive wherever the boxes overlap; elsewhere divide by 1 and drop it
    return xp.where(overlap, inter / xp.where(overlap, union, a.dtype.type(1)), zero)


def _last_dim(op, name, shape, size):
    if shape is not None and len(shape) < 2:
        raise ShapeError('%s: input %r must have at least 2 dimensions (..., %s), got shape %s'
                         % (op, name, size, _fmt_shape(shape)))
    if shape is not None and shape[-1] and shape[-1] != size:
        raise ShapeError('%s: the last dimension of input %r must be %d, got shape %s'
                         % (op, name, size, _fmt_shape(shape)))


def _same_types(op, in_types, n_out):
    known = next((t for t in in_types if t is not None), None)
    return [known] * len(in_types), [known] * n_out, []


# =====================================================================
# box_nms
# =====================================================================

@register
class BoxNMS(Operator):
    """Non-maximum suppression of boxes, each image of the batch on its own.

    data is (..., num_boxes, width): each row holds a score at ``score_index``, a box of
    four numbers from ``coord_start`` and optionally a class id at ``id_index``.  Rows
    scoring at most ``valid_thresh`` and, with ids, rows of class ``background_id`` (by
    default -1, the id of padding rows) are dropped; the rest are ranked by score (ties keep their order) and the best ``topk``
    walked greedily: a row is kept unless a kept row overlaps it by IoU above
    ``overlap_thresh`` (only a row of the same class, unless ``force_suppress`` or there
    are no ids).  The output has the input's shape: the kept rows first, best first, then
    rows of -1; their boxes are re-encoded as ``out_format``.  ``topk=0`` returns the input.

    The gradient of a kept row goes back to the row it was copied from; the others get 0.
    A hidden second output records, for every output row, which input row that was.
    """
    name = '_contrib_box_nms'
    aliases = ('_contrib_box_non_maximum_suppression',)
    eliminable = False
    params = {
        'overlap_thresh': Param('float', 0.5, doc='suppress a box overlapping a better one by IoU above this'),
        'valid_thresh': Param('float', 0.0, doc='drop boxes scoring at most this'),
        'topk': Param('int', -1, doc='apply NMS to the best topk boxes of each image; -1: all'),
        'coord_start': Param('int', 2, doc='column of the first of the four box coordinates'),
        'score_index': Param('int', 1, doc='column of the score'),
        'id_index': Param('int', -1, doc='column of the class id; -1: no class ids'),
        'background_id': Param('int', -1, doc='class id dropped when there are ids (-1: padding rows)'),
        'force_suppress': Param('bool', False, doc='suppress across classes too'),
        'in_format': Param('enum', 'corner', choices=_FORMATS, doc='box encoding of the input'),
        'out_format': Param('enum', 'corner', choices=_FORMATS, doc='box encoding of the output'),
    }

    def outputs(self, p):
        return ['output0', 'output1']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [], [1]                     # only the record of where each row came from

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], '%s: input data and output' % self.name)
        if data is None:
            return [data], list(out_shapes), aux_shapes
        if len(data) < 2:
            raise ShapeError('%s: input %r must have at least 2 dimensions (..., num_boxes, width), got shape %s'
                             % (self.name, 'data', _fmt_shape(data)))
        width = data[-1]
        needed = 6 if p.id_index > 0 else 5
        if width and width < needed:
            raise ShapeError('%s: the rows of input %r need at least %d numbers (score, 4 coordinates%s), '
                             'got shape %s' % (self.name, 'data', needed, ', id' if needed == 6 else '',
                                               _fmt_shape(data)))
        if width:
            coords = range(p.coord_start, p.coord_start + 4)
            if p.coord_start < 0 or p.coord_start + 3 >= width:
                raise ParamError('%s: coord_start=%d puts the 4 coordinates outside rows of width %d'
                                 % (self.name, p.coord_start, width))
            if not 0 <= p.score_index < width or p.score_index in coords:
                raise ParamError('%s: score_index=%d is outside rows of width %d or among the coordinates'
                                 % (self.name, p.score_index, width))
            if p.id_index >= 0 and (p.id_index >= width or p.id_index in coords or p.id_index == p.score_index):
                raise ParamError('%s: id_index=%d is outside rows of width %d, or among the coordinates, '
                                 'or equal to score_index' % (self.name, p.id_index, width))
        record = merge_shape(out_shapes[1], data[:-1] + (1,), '%s: output1' % self.name)
        return [data], [data, record], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        known = in_types[0] if in_types[0] is not None else out_types[0]
        return [known], [known, known], []

    def _suppress(self, p, rows, order):
        """The positions in ``order`` (best first) that survive the greedy walk."""
        boxes = rows[order, p.coord_start:p.coord_start + 4]
        ids = rows[order, p.id_index] if p.id_index >= 0 else None
        limit = _as_threshold(p.overlap_thresh, rows.dtype)
        alive = np.ones(len(order), dtype=bool)
        for i in range(len(order)):
            if not alive[i]:
                continue
            later = slice(i + 1, None)
            with np.errstate(invalid='ignore', divide='ignore'):
                beaten = _widen(_iou(np, boxes[i], boxes[later], p.in_format)) > limit
            if ids is not None and not p.force_suppress:
                beaten &= ids[later] == ids[i]
            alive[later] &= ~beaten
        return order[alive]

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        shape = tuple(inputs[0].shape)
        self.infer_shape(p, [shape], [None, None], [])
        # which rows survive is decided one box at a time: on the host, as MXNet's CPU code
        data = to_host(inputs[0])
        dtype = data.dtype
        n_box, width = shape[-2], shape[-1]
        rows = data.reshape(-1, n_box, width)
        n_img = rows.shape[0]
        topk = n_box if p.topk < 0 else min(n_box, p.topk)
        if topk < 1:
            record = np.arange(n_img * n_box).astype(dtype).reshape(shape[:-1] + (1,))
            return [xp.array(inputs[0], copy=True), xp.asarray(record)]
        out = np.full(rows.shape, -1, dtype=dtype)
        record = np.full((n_img, n_box), -1, dtype=dtype)
        scores = _widen(rows[:, :, p.score_index])
        valid = scores > _as_threshold(p.valid_thresh, dtype)
        if p.id_index >= 0:
            # rows of the background class are dropped; as in MXNet, with the default
            # background_id=-1 that is the rows whose id is -1 (padding)
            valid &= rows[:, :, p.id_index] != p.background_id
        for b in range(n_img):
            candidates = np.flatnonzero(valid[b])
            order = candidates[np.argsort(-scores[b, candidates], kind='stable')][:topk]
            kept = self._suppress(p, rows[b], order)
            out[b, :len(kept)] = rows[b, kept]
            record[b, :len(kept)] = b * n_box + kept
        if p.in_format != p.out_format:
            self._convert(p, out)
        return [xp.asarray(out.reshape(shape)), xp.asarray(record.reshape(shape[:-1] + (1,)))]

    def _convert(self, p, out):
        """Re-encode the output boxes in place; as MXNet, a box whose first number is
        negative (the -1 rows, but also a box reaching left of 0) is left as it is."""
        box = out[..., p.coord_start:p.coord_start + 4]
        a0, a1, a2, a3 = (box[..., k].copy() for k in range(4))
        two = out.dtype.type(2)
        if p.out_format == 'center':
            new = [(a0 + a2) / two, (a1 + a3) / two, a2 - a0, a3 - a1]
        else:
            new = [a0 - a2 / two, a1 - a3 / two, a0 + a2 / two, a1 + a3 / two]
        keep = a0 < 0
        for k in range(4):
            box[..., k] = np.where(keep, box[..., k], new[k])

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        grad, record = out_grads[0], outputs[1]
        width = grad.shape[-1]
        flat = grad.reshape(-1, width)
        n_rows = flat.shape[0]
        source = record.reshape(-1).astype(np.int64)
        # rows that came from nowhere (-1) are sent to a spare row past the end, then dropped
        source = xp.where(source >= 0, source, n_rows)
        d_data = xp.zeros((n_rows + 1, width), dtype=grad.dtype)
        d_data[source] = flat
        return [d_data[:n_rows].reshape(grad.shape)]


# =====================================================================
# box_iou
# =====================================================================

@register
class BoxIoU(Operator):
    """Intersection over union of every box in ``lhs`` (..., 4) with every box in ``rhs``
    (..., 4): the output's shape is ``lhs.shape[:-1] + rhs.shape[:-1]``.  Boxes that do
    not overlap give 0.  The gradient is zero (MXNet defines it so)."""
    name = '_contrib_box_iou'
    blocks_gradient = True
    params = {'format': Param('enum', 'corner', choices=_FORMATS, doc='box encoding of both inputs')}

    def inputs(self, p):
        return ['lhs', 'rhs']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        _last_dim(self.name, 'lhs', lhs, 4)
        _last_dim(self.name, 'rhs', rhs, 4)
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, tuple(lhs[:-1]) + tuple(rhs[:-1]), '%s: output' % self.name)
        return [lhs, rhs], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 1)

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        lhs, rhs = inputs
        a = lhs.reshape(-1, 1, 4)
        b = rhs.reshape(1, -1, 4).astype(lhs.dtype)
        out = _iou(xp, a, b, p.format)
        return [out.reshape(tuple(lhs.shape[:-1]) + tuple(rhs.shape[:-1]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


# =====================================================================
# bipartite_matching
# =====================================================================

@register
class BipartiteMatching(Operator):
    """Greedy one-to-one matching of the rows and columns of score matrices (..., R, C).

    The entries are visited best first (highest, or lowest with ``is_ascend``; ties in
    their order); an entry whose row and column are both free pairs them, if its score
    is beyond ``threshold`` (above it, or below with ``is_ascend``), and the first free
    entry that is not ends the matching.  ``topk`` > 0 stops after topk + 1 pairs, as
    MXNet 1.9.1 counts.  Outputs: for each row the column it got, for each column the
    row, -1 when unmatched.  The gradient is zero.
    """
    name = '_contrib_bipartite_matching'
    blocks_gradient = True
    eliminable = False                      # MXNet asks for scratch space: never merged
    params = {
        'is_ascend': Param('bool', False, doc='lower scores are better'),
        'threshold': Param('float', doc='scores not beyond this are not matched'),
        'topk': Param('int', -1, doc='stop after this many matches (+1, as MXNet); -1: no limit'),
    }

    def outputs(self, p):
        return ['output0', 'output1']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is not None and len(data) < 2:
            raise ShapeError('%s: input %r must be a score matrix (..., rows, columns), got shape %s'
                             % (self.name, 'data', _fmt_shape(data)))
        rows, cols = out_shapes
        if data is not None:
            rows = merge_shape(rows, tuple(data[:-1]), '%s: output0' % self.name)
            cols = merge_shape(cols, tuple(data[:-2]) + (data[-1],), '%s: output1' % self.name)
        return [data], [rows, cols], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 2)

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        # each pairing depends on the ones before it: on the host
        data = to_host(inputs[0])
        n_row, n_col = data.shape[-2:]
        scores = _widen(data.reshape(-1, n_row * n_col))
        limit = _as_threshold(p.threshold, data.dtype)
        row_match = np.full((scores.shape[0], n_row), -1, dtype=data.dtype)
        col_match = np.full((scores.shape[0], n_col), -1, dtype=data.dtype)
        for b, image in enumerate(scores):
            order = np.argsort(image if p.is_ascend else -image, kind='stable')
            count = 0
            for flat in order:
                r, c = divmod(int(flat), n_col)
                if row_match[b, r] != -1 or col_match[b, c] != -1:
                    continue
                good = image[flat] < limit if p.is_ascend else image[flat] > limit
                if not good:
                    break              # the rest are worse still
                row_match[b, r], col_match[b, c] = c, r
                count += 1
                if 0 < p.topk < count:
                    break
        return [xp.asarray(row_match.reshape(data.shape[:-1])),
                xp.asarray(col_match.reshape(data.shape[:-2] + (n_col,)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


# =====================================================================
# box_encode, box_decode
# =====================================================================

def _centre_size(boxes):
    """(centre x, centre y, width, height) of corner boxes, as MXNet's box coders compute."""
    half = boxes.dtype.type(0.5)
    width, height = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + width * half, boxes[..., 1] + height * half, width, height


@register
class BoxEncode(Operator):
    """Training targets of a box regressor: how to move each anchor onto its matched box.

    samples (B, N) marks positive anchors (> 0.5); matches (B, N) gives the row of refs
    (B, M, 4) each anchor is matched to; anchors (B, N, 4); boxes are corners.  For a
    positive anchor the target is ``((ref centre - anchor centre) / anchor size - mean) / std``
    for x and y and ``(log(ref size / anchor size) - mean) / std`` for width and height
    (means and stds are (4,) inputs); the mask is 1.  Other anchors get 0 and mask 0.
    The gradient is zero.
    """
    name = '_contrib_box_encode'
    blocks_gradient = True
    params = {}

    def inputs(self, p):
        return ['samples', 'matches', 'anchors', 'refs', 'means', 'stds']

    def outputs(self, p):
        return ['output0', 'output1']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        samples, matches, anchors, refs, means, stds = in_shapes
        op = self.name
        _check_ndim(op, 'samples', samples, 2, '(batch, num_anchors)')
        _check_ndim(op, 'anchors', anchors, 3, '(batch, num_anchors, 4)')
        _check_ndim(op, 'refs', refs, 3, '(batch, num_refs, 4)')
        samples = merge_shape(samples, matches, '%s: inputs samples and matches' % op)
        matches = samples
        anchors = merge_shape(anchors, (0, 0, 4), '%s: input anchors (batch, num_anchors, 4)' % op)
        anchors = merge_shape(anchors, out_shapes[0], '%s: input anchors and output0' % op)
        anchors = merge_shape(anchors, out_shapes[1], '%s: input anchors and output1' % op)
        if samples is not None:
            anchors = merge_shape(anchors, tuple(samples) + (4,), '%s: input anchors (samples\' shape + (4,))' % op)
        samples = matches = tuple(anchors[:2])
        refs = merge_shape(refs, (anchors[0] if anchors else 0, 0, 4), '%s: input refs (batch, num_refs, 4)' % op)
        means = merge_shape(means, (4,), '%s: input means' % op)
        stds = merge_shape(stds, (4,), '%s: input stds' % op)
        return [samples, matches, anchors, refs, means, stds], [anchors, anchors], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 2)

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        samples, matches, anchors, refs, means, stds = inputs
        dtype = anchors.dtype.type
        positive = (samples > 0.5)[..., None]
        index = xp.clip(matches.astype(np.int64), 0, refs.shape[1] - 1)
        matched = xp.take_along_axis(refs.astype(anchors.dtype), index[..., None], axis=1)
        ax, ay, aw, ah = _centre_size(anchors)
        rx, ry, rw, rh = _centre_size(matched)
        means, stds = means.astype(anchors.dtype), stds.astype(anchors.dtype)
        # the logs of non-positive ratios belong to anchors the mask drops
        ratio_w = xp.where(positive[..., 0], rw / aw, dtype(1))
        ratio_h = xp.where(positive[..., 0], rh / ah, dtype(1))
        targets = xp.stack([((rx - ax) / aw - means[0]) / stds[0], ((ry - ay) / ah - means[1]) / stds[1],
                            (xp.log(ratio_w) - means[2]) / stds[2], (xp.log(ratio_h) - means[3]) / stds[3]], axis=-1)
        targets = xp.where(positive, targets, dtype(0))
        mask = xp.broadcast_to(positive, targets.shape).astype(anchors.dtype)
        return [targets, mask]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


@register
class BoxDecode(Operator):
    """Boxes from box-regression outputs: the inverse of box_encode with zero means.

    data (B, N, 4) holds per anchor (dx, dy, dw, dh); anchors (1, N, 4) are in
    ``format``.  The box has centre ``anchor centre + d * std * anchor size`` and size
    ``anchor size * exp(d * std)``, where the exponent is first capped at ``clip`` if
    ``clip`` > 0; the output is corners.  The gradient is zero.
    """
    name = '_contrib_box_decode'
    blocks_gradient = True
    params = {
        'std0': Param('float', 1.0, doc='std of dx'),
        'std1': Param('float', 1.0, doc='std of dy'),
        'std2': Param('float', 1.0, doc='std of dw'),
        'std3': Param('float', 1.0, doc='std of dh'),
        'clip': Param('float', -1.0, doc='cap on the size exponents; <= 0: none'),
        'format': Param('enum', 'center', choices=_FORMATS, doc='box encoding of the anchors'),
    }

    def inputs(self, p):
        return ['data', 'anchors']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, anchors = in_shapes
        op = self.name
        _check_ndim(op, 'data', data, 3, '(batch, num_anchors, 4)')
        _check_ndim(op, 'anchors', anchors, 3, '(1, num_anchors, 4)')
        data = merge_shape(data, out_shapes[0], '%s: input data and output' % op)
        data = merge_shape(data, (0, 0, 4), '%s: input data (batch, num_anchors, 4)' % op)
        # MXNet reads the anchors as one (num_anchors, 4) table shared by the batch
        anchors = merge_shape(anchors, (1, data[1], 4), '%s: input anchors (1, num_anchors, 4)' % op)
        return [data, anchors], [data], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 1)

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        data, anchors = inputs
        dtype = data.dtype.type
        anchors = anchors.astype(data.dtype)
        if p.format == 'corner':
            ax, ay, aw, ah = _centre_size(anchors)
        else:
            ax, ay, aw, ah = (anchors[..., k] for k in range(4))
        stds = [dtype(s) for s in (p.std0, p.std1, p.std2, p.std3)]
        x = data[..., 0] * stds[0] * aw + ax
        y = data[..., 1] * stds[1] * ah + ay
        dw, dh = data[..., 2] * stds[2], data[..., 3] * stds[3]
        if p.clip > 0:
            dw, dh = xp.minimum(dw, dtype(p.clip)), xp.minimum(dh, dtype(p.clip))
        half = dtype(0.5)
        half_w, half_h = xp.exp(dw) * aw * half, xp.exp(dh) * ah * half
        return [xp.stack([x - half_w, y - half_h, x + half_w, y + half_h], axis=-1)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


# =====================================================================
# MultiBoxPrior
# =====================================================================

@register
class MultiBoxPrior(Operator):
    """SSD's anchor boxes for a feature map: (1, H * W * K, 4) corners relative to the image.

    At every cell (r, c) of the (N, C, H, W) input the centre is ``((c + offsets[1]) *
    steps[1], (r + offsets[0]) * steps[0])`` (steps default to one cell, 1/W and 1/H).
    The K = len(sizes) + len(ratios) - 1 boxes there are: each size with the first ratio,
    then the first size with each further ratio.  A box of size s and ratio r is
    ``s * sqrt(r) * H / W`` wide (so that it is square in pixels when r = 1) and
    ``s / sqrt(r)`` high.  ``clip`` clamps the corners into [0, 1].  Only the input's
    shape is read; the gradient is zero.
    """
    name = '_contrib_MultiBoxPrior'
    blocks_gradient = True
    eliminable = False                      # one of MXNet's older stateful operators
    params = {
        'sizes': _Floats((1.0,), doc='box sizes, as fractions of the image height'),
        'ratios': _Floats((1.0,), doc='width / height ratios'),
        'clip': Param('bool', False, doc='clamp the boxes into the image'),
        'steps': _Floats((-1.0, -1.0), doc='(y, x) distance between centres; <= 0: one cell'),
        'offsets': _Floats((0.5, 0.5), doc='(y, x) centre offset within a cell, in steps'),
    }

    def backward_reads(self, p):
        return [], []

    def _half_sizes(self, p, height, width):
        """Per box, (half width, half height), in float32 as MXNet computes them."""
        f32 = np.float32
        halves = []
        shapes = [(s, p.ratios[0]) for s in p.sizes] + [(p.sizes[0], r) for r in p.ratios[1:]]
        for size, ratio in shapes:
            root = np.sqrt(f32(ratio))
            halves.append((f32(size) * f32(height) / f32(width) * root / f32(2), f32(size) / root / f32(2)))
        return halves

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is not None and len(data) < 4:
            raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                             % (self.name, 'data', _fmt_shape(data)))
        if len(p.steps) != 2 or len(p.offsets) != 2:
            raise ParamError('%s: steps and offsets need 2 numbers each (y, x), got %s and %s'
                             % (self.name, p.steps, p.offsets))
        out = out_shapes[0]
        if data is not None:
            count = len(p.sizes) + len(p.ratios) - 1
            out = merge_shape(out, (1, data[2] * data[3] * count, 4), '%s: output' % self.name)
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        self.infer_shape(p, [tuple(inputs[0].shape)], [None], [])
        height, width = inputs[0].shape[2:4]
        f32 = np.float32
        step_y = f32(p.steps[0]) if p.steps[0] > 0 else f32(1) / f32(height)
        step_x = f32(p.steps[1]) if p.steps[1] > 0 else f32(1) / f32(width)
        cy = (xp.arange(height, dtype=f32) + f32(p.offsets[0])) * step_y
        cx = (xp.arange(width, dtype=f32) + f32(p.offsets[1])) * step_x
        grid = (height, width, 1)
        cy, cx = xp.broadcast_to(cy[:, None, None], grid), xp.broadcast_to(cx[None, :, None], grid)
        corners = []
        for half_w, half_h in self._half_sizes(p, height, width):
            corners.append(xp.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=-1))
        boxes = xp.concatenate(corners, axis=2)                # (H, W, K, 4)
        if p.clip:
            boxes = xp.clip(boxes, f32(0), f32(1))
        return [boxes.reshape(1, -1, 4).astype(inputs[0].dtype)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


# =====================================================================
# MultiBoxTarget
# =====================================================================

def _corner_iou(anchors, boxes):
    """(A, G) IoU of corner anchors against corner boxes, in their dtype; 0 for an empty union."""
    zero = anchors.dtype.type(0)
    a, g = anchors[:, None, :], boxes[None, :, :]
    width = np.maximum(np.minimum(a[..., 2], g[..., 2]) - np.maximum(a[..., 0], g[..., 0]), zero)
    height = np.maximum(np.minimum(a[..., 3], g[..., 3]) - np.maximum(a[..., 1], g[..., 1]), zero)
    inter = width * height
    union = ((a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
             + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter)
    with np.errstate(invalid='ignore', divide='ignore'):
        return np.where(union > zero, inter / union, zero)


def _loc_targets(anchors, boxes, variances):
    """(n, 4) box-regression targets of corner ``boxes`` on corner ``anchors``, in float32."""
    f32 = np.float32
    a, g = anchors.astype(f32), boxes.astype(f32)
    aw, ah = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    ax, ay = (a[:, 0] + a[:, 2]) * f32(0.5), (a[:, 1] + a[:, 3]) * f32(0.5)
    gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    gx, gy = (g[:, 0] + g[:, 2]) * f32(0.5), (g[:, 1] + g[:, 3]) * f32(0.5)
    v = [f32(x) for x in variances]
    return np.stack([(gx - ax) / aw / v[0], (gy - ay) / ah / v[1],
                     np.log(gw / aw) / v[2], np.log(gh / ah) / v[3]], axis=1)


@register
class MultiBoxTarget(Operator):
    """SSD training targets: which class each anchor should predict and how to move it.

    anchor (1, A, 4) corners shared by the batch; label (B, L, >= 5) rows ``[class, x1,
    y1, x2, y2, ...]``, padded with rows of -1 after the real ones; cls_pred (B, C, A)
    the class scores (used only to pick hard negatives).  Per image:

    1. every ground truth claims one anchor, best overlaps first (bipartite matching);
    2. with ``overlap_threshold`` > 0, each other anchor whose best IoU with any ground
       truth exceeds it is matched to that one too;
    3. with ``negative_mining_ratio`` > 0, only ``ratio`` times as many negatives as
       positives are kept: among the anchors with IoU below ``negative_mining_thresh``,
       those the network finds least like background (softmax of cls_pred); the
       remaining anchors are ignored.  Otherwise every unmatched anchor is negative.

    Outputs: loc_target (B, 4A) the box_encode-style targets of matched anchors divided by
    ``variances`` (0 elsewhere), loc_mask (B, 4A) 1 for matched anchors, cls_target (B, A)
    the class + 1 for matched anchors, 0 for negatives, ``ignore_label`` for ignored
    ones (and for every anchor of an image without ground truth).  As in MXNet 1.9.1,
    ``minimum_negative_samples`` is accepted and not used.  The gradient is zero.
    """
    name = '_contrib_MultiBoxTarget'
    blocks_gradient = True
    eliminable = False
    params = {
        'overlap_threshold': Param('float', 0.5, doc='IoU above which an anchor matches a ground truth'),
        'ignore_label': Param('float', -1.0, doc='cls_target of ignored anchors'),
        'negative_mining_ratio': Param('float', -1.0, doc='negatives kept per positive; <= 0: all negatives'),
        'negative_mining_thresh': Param('float', 0.5, doc='IoU below which an anchor may be a negative'),
        'minimum_negative_samples': Param('int', 0, doc='accepted; unused, as in MXNet 1.9.1'),
        'variances': _Floats((0.1, 0.1, 0.2, 0.2), doc='divisors of the 4 location targets'),
    }

    def inputs(self, p):
        return ['anchor', 'label', 'cls_pred']

    def outputs(self, p):
        return ['loc_target', 'loc_mask', 'cls_target']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        anchor, label, cls_pred = in_shapes
        op = self.name
        _check_ndim(op, 'anchor', anchor, 3, '(1, num_anchors, 4)')
        _check_ndim(op, 'label', label, 3, '(batch, num_labels, >= 5)')
        _check_ndim(op, 'cls_pred', cls_pred, 3, '(batch, num_classes, num_anchors)')
        if len(p.variances) != 4:
            raise ParamError('%s: variances needs 4 numbers, got %s' % (op, p.variances))
        if anchor is None or label is None:
            return [anchor, label, cls_pred], list(out_shapes), aux_shapes
        if anchor[0] != 1 or anchor[2] != 4:
            raise ShapeError('%s: input %r must be (1, num_anchors, 4) (anchors are shared by the batch), '
                             'got shape %s' % (op, 'anchor', _fmt_shape(anchor)))
        if label[2] < 5:
            raise ShapeError('%s: the rows of input %r need at least 5 numbers (class, x1, y1, x2, y2), '
                             'got shape %s' % (op, 'label', _fmt_shape(label)))
        batch, n_anchor = label[0], anchor[1]
        cls_pred = merge_shape(cls_pred, (batch, 0, n_anchor), '%s: input cls_pred (batch, num_classes, '
                                                               'num_anchors)' % op)
        outs = [merge_shape(out_shapes[0], (batch, 4 * n_anchor), '%s: loc_target' % op),
                merge_shape(out_shapes[1], (batch, 4 * n_anchor), '%s: loc_mask' % op),
                merge_shape(out_shapes[2], (batch, n_anchor), '%s: cls_target' % op)]
        return [anchor, label, cls_pred], outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 3)

    def _match(self, p, overlaps):
        """(flags, matched ground truth, best IoU) per anchor: flag 1 positive, -1 undecided."""
        n_anchor, n_gt = overlaps.shape
        flags = np.full(n_anchor, -1, dtype=np.int64)
        match = np.full(n_anchor, -1, dtype=np.int64)
        best = np.full(n_anchor, -1.0, dtype=np.float32)
        gt_free = np.ones(n_gt, dtype=bool)
        overlaps = overlaps.astype(np.float32)
        # 1. each ground truth takes the free anchor it overlaps most, the best pairs first
        while gt_free.any():
            free = np.where((flags != 1)[:, None] & gt_free[None, :], overlaps, np.float32(-np.inf))
            j, k = divmod(int(np.argmax(free)), n_gt)     # the first maximum, as a strict > scan
            if not free[j, k] > np.float32(1e-6):
                break
            best[j], match[j], flags[j], gt_free[k] = free[j, k], k, 1, False
        # 2. the other anchors match their best ground truth if it overlaps enough
        rest = flags != 1
        best_gt = np.argmax(overlaps, axis=1)
        best_iou = overlaps[np.arange(n_anchor), best_gt]
        best[rest], match[rest] = best_iou[rest], best_gt[rest]
        if p.overlap_threshold > 0:
            flags[rest & (best_iou > np.float32(p.overlap_threshold))] = 1
        return flags, match, best

    def _mine_negatives(self, p, flags, best, scores):
        """Mark as negative (0) the undecided anchors the network finds least like background."""
        n_anchor = len(flags)
        n_pos = int((flags == 1).sum())
        n_neg = min(int(np.float32(n_pos) * np.float32(p.negative_mining_ratio)), n_anchor - n_pos)
        if n_neg <= 0:
            return
        candidates = np.flatnonzero((flags == -1) & (best < np.float32(p.negative_mining_thresh)))
        if len(candidates) < n_neg:
            raise ParamError('%s: negative mining wants %d negatives but only %d anchors overlap the ground '
                             'truth by less than negative_mining_thresh=%s'
                             % (self.name, n_neg, len(candidates), p.negative_mining_thresh))
        # the softmax probability of background (class 0), in the scores' dtype
        x = scores[:, candidates]
        top = x.max(axis=0)
        background = np.exp(x[0] - top) / np.exp(x - top).sum(axis=0)
        hardest = candidates[np.argsort(background, kind='stable')[:n_neg]]
        flags[hardest] = 0

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        if p.negative_mining_ratio > 0 and not p.negative_mining_thresh > 0:
            raise ParamError('%s: negative mining needs negative_mining_thresh > 0, got %s'
                             % (self.name, p.negative_mining_thresh))
        # matching is greedy and negative mining sorts: on the host
        anchor, label, cls_pred = (to_host(x) for x in inputs)
        dtype = label.dtype
        anchors = anchor.reshape(-1, 4)
        batch, n_anchor = label.shape[0], anchors.shape[0]
        loc_target = np.zeros((batch, n_anchor, 4), dtype=dtype)
        loc_mask = np.zeros((batch, n_anchor, 4), dtype=dtype)
        cls_target = np.full((batch, n_anchor), p.ignore_label, dtype=dtype)
        for b in range(batch):
            rows = label[b]
            padding = np.flatnonzero(rows[:, 0].astype(np.float32) == -1)
            n_gt = int(padding[0]) if len(padding) else len(rows)
            if n_gt == 0:
                continue
            gt = rows[:n_gt]
            flags, match, best = self._match(p, _corner_iou(anchors, gt[:, 1:5]))
            if p.negative_mining_ratio > 0:
                self._mine_negatives(p, flags, best, cls_pred[b])
            else:
                flags[flags != 1] = 0
            pos = flags == 1
            cls_target[b, flags == 0] = 0
            cls_target[b, pos] = gt[match[pos], 0] + 1
            loc_mask[b, pos] = 1
            loc_target[b, pos] = _loc_targets(anchors[pos], gt[match[pos], 1:5], p.variances)
        return [xp.asarray(loc_target.reshape(batch, -1)), xp.asarray(loc_mask.reshape(batch, -1)),
                xp.asarray(cls_target)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


# =====================================================================
# MultiBoxDetection
# =====================================================================

@register
class MultiBoxDetection(Operator):
    """SSD detections from class probabilities and box moves, suppressed per class.

    cls_prob (B, C, A) with class 0 the background, loc_pred (B, 4A) the moves of the
    anchors (1, A, 4) (decoded as box_decode does, with ``variances`` as the stds, then
    clamped into [0, 1] with ``clip``).  Each anchor takes its best non-background class;
    anchors scoring below ``threshold`` are dropped.  Output (B, A, 6): rows ``[class,
    score, x1, y1, x2, y2]``, the detections ranked by score (ties in anchor order),
    the best ``nms_topk`` kept, and greedy suppression with IoU >= ``nms_threshold``
    within a class (across classes with ``force_suppress``) marking the class of a
    suppressed row -1; then rows of -1.  As in MXNet 1.9.1's CPU code: rows past
    ``nms_topk`` keep the unranked detection that was at their place, with class -1;
    an ``nms_threshold`` outside (0, 1] skips ranking and suppression; ``background_id``
    is accepted and class 0 is always the background.  The gradient is zero.
    """
    name = '_contrib_MultiBoxDetection'
    blocks_gradient = True
    eliminable = False
    params = {
        'clip': Param('bool', True, doc='clamp the boxes into [0, 1]'),
        'threshold': Param('float', 0.01, doc='drop detections scoring below this'),
        'background_id': Param('int', 0, doc='accepted; class 0 is the background, as in MXNet 1.9.1 on CPU'),
        'nms_threshold': Param('float', 0.5, doc='suppress a box overlapping a better one by IoU >= this'),
        'force_suppress': Param('bool', False, doc='suppress across classes too'),
        'variances': _Floats((0.1, 0.1, 0.2, 0.2), doc='stds of the 4 box moves'),
        'nms_topk': Param('int', -1, doc='keep the best nms_topk detections; -1: all'),
    }

    def inputs(self, p):
        return ['cls_prob', 'loc_pred', 'anchor']

    def backward_reads(self, p):
        return [], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        cls_prob, loc_pred, anchor = in_shapes
        op = self.name
        _check_ndim(op, 'cls_prob', cls_prob, 3, '(batch, num_classes, num_anchors)')
        _check_ndim(op, 'loc_pred', loc_pred, 2, '(batch, 4 * num_anchors)')
        _check_ndim(op, 'anchor', anchor, 3, '(1, num_anchors, 4)')
        if len(p.variances) != 4:
            raise ParamError('%s: variances needs 4 numbers, got %s' % (op, p.variances))
        if cls_prob is None:
            return [cls_prob, loc_pred, anchor], list(out_shapes), aux_shapes
        batch, _, n_anchor = cls_prob
        if loc_pred is not None and loc_pred[1] and loc_pred[1] != 4 * n_anchor:
            raise ShapeError('%s: input %r must have 4 * num_anchors = %d columns (input %r has shape %s), '
                             'got shape %s' % (op, 'loc_pred', 4 * n_anchor, 'cls_prob', _fmt_shape(cls_prob),
                                               _fmt_shape(loc_pred)))
        loc_pred = merge_shape(loc_pred, (batch, 4 * n_anchor), '%s: input loc_pred' % op)
        anchor = merge_shape(anchor, (0, n_anchor, 4), '%s: input anchor (1, num_anchors, 4)' % op)
        out = merge_shape(out_shapes[0], (batch, n_anchor, 6), '%s: output' % op)
        return [cls_prob, loc_pred, anchor], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return _same_types(self.name, in_types, 1)

    def _decode(self, p, anchors, moves):
        """Corner boxes from the anchors' moves, in the dtype, as MXNet computes them."""
        t = anchors.dtype.type
        aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
        ax, ay = (anchors[:, 0] + anchors[:, 2]) / t(2), (anchors[:, 1] + anchors[:, 3]) / t(2)
        v = [t(np.float32(x)) for x in p.variances]
        x, y = moves[:, 0] * v[0] * aw + ax, moves[:, 1] * v[1] * ah + ay
        half_w, half_h = np.exp(moves[:, 2] * v[2]) * aw / t(2), np.exp(moves[:, 3] * v[3]) * ah / t(2)
        boxes = np.stack([x - half_w, y - half_h, x + half_w, y + half_h], axis=1)
        return np.clip(boxes, t(0), t(1)) if p.clip else boxes

    def _image(self, p, prob, moves, anchors, out):
        """Fill ``out`` (A, 6) for one image."""
        t = prob.dtype.type
        n_class = prob.shape[0]
        if n_class > 1:
            best = np.argmax(prob[1:], axis=0) + 1            # the first of equal scores
            score = prob[best, np.arange(prob.shape[1])]
        else:
            best, score = np.zeros(prob.shape[1], dtype=np.int64), np.full(prob.shape[1], t(-1))
        keep = (best > 0) & ~(_widen(score) < _as_threshold(p.threshold, prob.dtype))
        found = np.flatnonzero(keep)
        n = len(found)
        out[:n, 0] = best[found] - 1
        out[:n, 1] = score[found]
        out[:n, 2:] = self._decode(p, anchors[found], moves[found])
        if n < 1 or p.nms_threshold <= 0 or p.nms_threshold > 1:
            return
        order = np.argsort(-_widen(out[:n, 1]), kind='stable')
        n_keep = min(p.nms_topk, n) if p.nms_topk > 0 else n
        ranked = out[order[:n_keep]]
        out[:n_keep] = ranked
        out[n_keep:n, 0] = -1
        limit = _as_threshold(p.nms_threshold, prob.dtype)
        for i in range(n_keep):
            if out[i, 0] < 0:
                continue
            later = out[i + 1:n_keep]
            same = (later[:, 0] >= 0) & (p.force_suppress | (later[:, 0] == out[i, 0]))
            overlap = _widen(_corner_iou(out[i:i + 1, 2:], later[:, 2:])[0])
            later[same & (overlap >= limit), 0] = -1

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        # ranking and greedy suppression: on the host
        cls_prob, loc_pred, anchor = (to_host(x) for x in inputs)
        batch, _, n_anchor = cls_prob.shape
        anchors = anchor.reshape(-1, n_anchor, 4)[0].astype(cls_prob.dtype)
        out = np.full((batch, n_anchor, 6), -1, dtype=cls_prob.dtype)
        for b in range(batch):
            self._image(p, cls_prob[b], loc_pred[b].reshape(n_anchor, 4).astype(cls_prob.dtype), anchors, out[b])
        return [xp.asarray(out)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


# =====================================================================
# gradientmultiplier
# =====================================================================

@register
class GradientMultiplier(Operator):
    """The identity, whose gradient is multiplied by ``scalar`` on the way back.

    With a negative scalar it is the gradient reversal layer of domain-adversarial
    training: the layers below learn to make the features worse for the head above.
    """
    name = '_contrib_gradientmultiplier'
    params = {'scalar': Param('float', 1.0, doc='the factor of the gradient'),
              'is_int': Param('bool', True, doc='accepted for JSON compatibility with MXNet 1.9; unused')}

    def backward_reads(self, p):
        return [], []

    def inplace(self, p):
        return [(0, 0)]

    def inplace_identity(self, p):
        return True

    def backward_inplace(self, p):
        return [(0, 0)]

    def forward(self, p, env, inputs, aux):
        target = env.target(0)
        if target is not None and target is inputs[0]:
            return [target]
        return [env.xp.array(inputs[0], copy=True)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        grad = out_grads[0]
        return [(grad * grad.dtype.type(p.scalar)).astype(grad.dtype)]
