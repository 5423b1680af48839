"""DataParallelExecutorGroup: one executor per device, each on a slice of the batch.

Data parallelism in MXNet 1.x is nothing more than this: bind the *same*
symbol once per device with the batch size cut into pieces (``slices``), copy
each piece of every batch into its executor's data arrays, run them all, and
let a KVStore sum the gradients.  The group keeps, for every parameter, the
list of per-device arrays: ``param_arrays[i][k]`` *is*
``execs[k].arg_dict[param_names[i]]`` (the same NDArray object), so after
backward the gradients are already where the KVStore/updater look for them
(``grad_arrays``) and no copy is needed.
"""

import logging
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, ShapeError
from ..context import cpu
from .. import ndarray as nd
from ..io import DataDesc
from ..io.dataiter import data_descs

__all__ = ['DataParallelExecutorGroup', 'split_input_slice', 'merge_outputs']


def split_input_slice(batch_size, work_load_list):
    """Cut ``batch_size`` samples into one slice per device, proportional to the workloads.

    >>> split_input_slice(10, [1, 1, 1])
    [slice(0, 3, None), slice(3, 6, None), slice(6, 10, None)]

    Each device gets ``round(batch_size * w / sum(w))`` samples (Python's
    round, as MXNet); whatever rounding leaves over goes to the last device.
    """
    total = float(sum(work_load_list))
    counts = [int(round(w * batch_size / total)) for w in work_load_list]
    shortfall = batch_size - sum(counts)
    if shortfall > 0:
        counts[-1] += shortfall
    slices, end = [], 0
    for count in counts:
        begin = min(end, batch_size)
        end = min(begin + count, batch_size)
        if begin >= end:
            raise ShapeError('cannot split a batch of %d over workloads %s: some devices would get no '
                             'samples' % (batch_size, list(work_load_list)))
        slices.append(slice(begin, end))
    return slices


def _slice_along(array, axis, islice):
    """``array[..., islice, ...]`` along ``axis`` (a view when axis is 0)."""
    if axis == 0:
        return array[islice]
    index = [slice(None)] * array.ndim
    index[axis] = islice
    return nd.NDArray(array._data[tuple(index)], array.context)


def merge_outputs(outputs, major_axis):
    """Concatenate each output's per-device pieces along its batch axis (on the first device)."""
    merged = []
    for pieces, axis in zip(outputs, major_axis):
        if axis >= 0 and len(pieces) > 1:
            ctx = pieces[0].context
            merged.append(nd.concatenate([p.as_in_context(ctx) for p in pieces], axis=axis))
        else:
            # one device, or no batch axis (every device holds the same value)
            merged.append(pieces[0])
    return merged


def per_device_group2ctxs(group2ctxs, num_devices):
    """One ``{ctx_group: Context}`` (or None) per device, from what Module accepts as MXNet does:
    a list with one dict per device, or one dict whose values are a Context (the same for
    every device) or a list of one Context per device (or of one Context for all)."""
    if group2ctxs is None:
        return [None] * num_devices
    if isinstance(group2ctxs, (list, tuple)):
        if len(group2ctxs) != num_devices:
            raise MXNetError('group2ctxs has %d entries for %d contexts' % (len(group2ctxs), num_devices))
        return list(group2ctxs)
    if not isinstance(group2ctxs, dict):
        raise MXNetError('group2ctxs must be a dict of ctx_group -> Context (or a list of one Context per '
                         'device), or a list of such dicts, got %r' % (group2ctxs,))
    per_device = [{} for _ in range(num_devices)]
    for group, where in group2ctxs.items():
        if isinstance(where, (list, tuple)):
            if len(where) == 1:          # one context for every device, as MXNet reads it
                where = list(where) * num_devices
            if len(where) != num_devices:
                raise MXNetError('group2ctxs[%r] has %d contexts for %d devices' % (group, len(where), num_devices))
        else:
            where = [where] * num_devices
        for mapping, ctx in zip(per_device, where):
            mapping[group] = ctx
    return per_device


class DataParallelExecutorGroup:
    """Executors of one symbol on several devices, sharing the work of each batch.

    Parameters mirror MXNet's: ``symbol``, ``contexts`` (list), ``workload``
    (relative batch share per context), ``data_shapes``/``label_shapes``
    (lists of DataDesc or (name, shape)), ``param_names`` (arguments that are
    learned), ``for_training``, ``inputs_need_grad``, ``shared_group`` (reuse
    another group's parameter arrays), ``fixed_param_names`` (learned
    elsewhere: no gradient), ``grad_req``, ``state_names``, ``group2ctxs``.
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req='write', state_names=None, group2ctxs=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload is not None else [1] * len(self.contexts)
        if len(self.workload) != len(self.contexts):
            raise MXNetError('workload has %d entries for %d contexts' % (len(self.workload), len(self.contexts)))
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.group2ctxs = per_device_group2ctxs(group2ctxs, len(self.contexts))
        self.shared_group = shared_group
        # one dict per device of data/label/gradient buffers that executors bound later (a
        # shared_module, bucketing) may reuse; parameters are shared through shared_exec
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in self.contexts])
        self.output_names = symbol.list_outputs()
        self.execs = []
        self._default_execs = None
        data_names = [d.name for d in data_descs(data_shapes)]
        self.grad_req = self._grad_reqs(grad_req, data_names)
        self.bind_exec(data_shapes, label_shapes, shared_group)

    # --------------------------------------------------------------- binding
    def _grad_reqs(self, grad_req, data_names):
        """One grad_req per argument: parameters learn, data only if inputs_need_grad, labels never."""
        if not self.for_training:
            return {name: 'null' for name in self.arg_names}
        if isinstance(grad_req, str):
            reqs = {}
            for name in self.arg_names:
                if name in self.param_names:
                    reqs[name] = 'null' if name in self.fixed_param_names else grad_req
                elif name in data_names:
                    reqs[name] = grad_req if self.inputs_need_grad else 'null'
                else:
                    reqs[name] = 'null'
            return reqs
        if isinstance(grad_req, (list, tuple)):
            return dict(zip(self.arg_names, grad_req))
        if not isinstance(grad_req, dict):
            raise MXNetError("bind: grad_req must be 'write', 'add' or 'null', or a list or dict of them, got %r"
                             % (grad_req,))
        reqs = {name: 'null' for name in self.arg_names}
        reqs.update(grad_req)
        return reqs

    def decide_slices(self, data_shapes):
        """Batch size from the data (all inputs must agree) and each device's slice of it."""
        batch_size = None
        for desc in data_shapes:
            axis = DataDesc.get_batch_axis(desc.layout)
            size = desc.shape[axis]
            if batch_size is not None and size != batch_size:
                raise ShapeError('all data inputs must have the same batch size; %r has %d, expected %d'
                                 % (desc.name, size, batch_size))
            batch_size = size
        self.batch_size = batch_size
        self.slices = split_input_slice(batch_size, self.workload)
        return [DataDesc.get_batch_axis(d.layout) for d in data_shapes]

    def _sliced_shapes(self, shapes, islice, layouts):
        out = []
        for desc, axis in zip(shapes, layouts):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = islice.stop - islice.start
            out.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return out

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with reshape, re-shape) one executor per context.

        All or nothing: if an executor cannot be bound for the new shapes, the group
        keeps its previous slices, layouts and executors (so the module stays usable).
        """
        # keep the old batch_size/slices until the executors are reshaped: a failing
        # reshape must not leave the old executors paired with new slices
        saved = {k: getattr(self, k, None) for k in ('batch_size', 'slices', 'data_layouts', 'label_layouts')}
        try:
            self._bind_exec(data_shapes, label_shapes, shared_group, reshape)
        except BaseException:
            for k, v in saved.items():
                setattr(self, k, v)
            raise

    def _bind_exec(self, data_shapes, label_shapes, shared_group, reshape):
        data_shapes, label_shapes = data_descs(data_shapes), data_descs(label_shapes)
        self.data_layouts = self.decide_slices(data_shapes)
        self.label_layouts = None
        if label_shapes is not None:
            self.label_layouts = [DataDesc.get_batch_axis(d.layout) for d in label_shapes]
            # a label is cut into the same slices as the data: its batch must be the data's
            # (MXNet refuses too; bound anyway, each device would get the wrong label rows)
            for desc, axis in zip(label_shapes, self.label_layouts):
                if axis >= 0 and desc.shape[axis] != self.batch_size:
                    raise ShapeError('bind: label %r has shape %s, a batch of %d, but the data batch is %d; '
                                     'a label needs one row per sample' % (desc.name, desc.shape,
                                                                          desc.shape[axis], self.batch_size))
        execs = []
        for i, ctx in enumerate(self.contexts):
            dshapes = self._sliced_shapes(data_shapes, self.slices[i], self.data_layouts)
            lshapes = (self._sliced_shapes(label_shapes, self.slices[i], self.label_layouts)
                       if label_shapes is not None else [])
            shapes = {d.name: d.shape for d in dshapes + lshapes}
            if reshape:
                execs.append(self._default_execs[i].reshape(allow_up_sizing=True, **shapes))
            else:
                execs.append(self._bind_ith_exec(i, dshapes + lshapes, shared_group))
        self.execs = execs
        if self._default_execs is None:
            self._default_execs = list(execs)
        self.data_shapes, self.label_shapes = data_shapes, label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes is not None else []
        self._collect_arrays()

    def _bind_ith_exec(self, i, shapes, shared_group):
        unknown = [d.name for d in shapes if d.name not in self.arg_names]
        if unknown:
            raise MXNetError('inputs %s are not arguments of the symbol; its arguments are %s'
                             % (unknown, self.arg_names))
        shared_exec = None if shared_group is None else shared_group.execs[i]
        return self.symbol.simple_bind(
            self.contexts[i], grad_req=self.grad_req,
            type_dict={d.name: d.dtype for d in shapes},
            shared_arg_names=self.param_names, shared_exec=shared_exec,
            shared_buffer=self.shared_data_arrays[i],
            group2ctx=self.group2ctxs[i], **{d.name: d.shape for d in shapes})

    def _collect_arrays(self):
        """Per-name lists of the executors' own arrays (no copies: the very same objects)."""
        execs = self.execs
        self.data_arrays = [[(self.slices[k], e.arg_dict[name]) for k, e in enumerate(execs)]
                            for name in self.data_names]
        self.label_arrays = ([[(self.slices[k], e.arg_dict[name]) for k, e in enumerate(execs)]
                              for name in self.label_names] if self.label_names else None)
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        self.param_arrays = [[e.arg_arrays[i] for e in execs]
                             for i, name in enumerate(self.arg_names) if name in self.param_names]
        if self.for_training:
            self.grad_arrays = [[e.grad_arrays[i] for e in execs]
                                for i, name in enumerate(self.arg_names) if name in self.param_names]
        else:
            self.grad_arrays = None
        self.input_grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)] for e in execs]
                                      for name in self.data_names if name in self.arg_names]
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]
        self.output_layouts = [DataDesc.get_batch_axis(self.symbol[name].attr('__layout__'))
                               for name in self.output_names]

    def reshape(self, data_shapes, label_shapes):
        """Re-bind for new input shapes, keeping (sharing) every parameter array."""
        data_shapes, label_shapes = data_descs(data_shapes), data_descs(label_shapes)
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # ------------------------------------------------------------ parameters
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy the given values into every device's parameter arrays."""
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Average each parameter over the devices into ``arg_params``/``aux_params`` (in place)."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                if len(block) == 1 and block[0].dtype == target[name].dtype:
                    block[0].copyto(target[name])         # one device: its values, no sum
                    continue
                total = block[0].copyto(cpu())
                for arr in block[1:]:
                    total += arr.copyto(cpu())
                mean = total / len(block) if len(block) > 1 else total
                target[name][:] = mean.astype(target[name].dtype)

    def get_states(self, merge_multi_context=True):
        """The current values of the state inputs (``state_names``): with ``merge_multi_context``
        one array per state, the devices' arrays concatenated along axis 0 (on the first
        device); otherwise, per state, the list of each device's own array.
        """
        if merge_multi_context:
            return merge_outputs(self.state_arrays, [0] * len(self.state_arrays))
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the state inputs, either from ``states`` (per state, a list of one array per device,
        as ``get_states(merge_multi_context=False)`` returns them, each copied into its
        device's array) or, when ``states`` is None, by filling every state array with the
        scalar ``value``.
        """
        if states is not None:
            for src, dsts in zip(states, self.state_arrays):
                for s, d in zip(src, dsts):
                    s.copyto(d)
        else:
            for dsts in self.state_arrays:
                for d in dsts:
                    d[:] = value

    # ------------------------------------------------------------- computing
    def forward(self, data_batch, is_train=None):
        """Copy each device's slice of the batch into its executor, then run them all."""
        _load(data_batch.data, self.data_arrays, self.data_layouts, 'data', self.data_names)
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None and data_batch.label:
            _load(data_batch.label, self.label_arrays, self.label_layouts, 'label', self.label_names)
        for e in self.execs:
            e.forward(is_train=is_train)

    def backward(self, out_grads=None):
        """Backward on every executor.  ``out_grads`` (head gradients, needed only when an
        output is not a loss) are whole-batch arrays: each executor gets its rows."""
        if not self.for_training:
            raise MXNetError('backward: this group was bound with for_training=False')
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        for k, (e, islice) in enumerate(zip(self.execs, self.slices)):
            pieces = []
            for grad, axis in zip(out_grads, self.output_layouts):
                piece = _slice_along(grad, axis, islice) if axis >= 0 else grad
                pieces.append(piece.as_in_context(self.contexts[k]).copy()
                              if piece.context != self.contexts[k] else piece.copy())
            e.backward(out_grads=pieces or None)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs ``begin:end`` of the last forward: one whole-batch array per output
        (the executors' slices concatenated), or with ``merge_multi_context=False`` a list
        per output of each executor's own array."""
        end = len(self.output_names) if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            return merge_outputs(outputs, self.output_layouts[begin:end])
        return outputs

    def get_output_shapes(self):
        """``[(output name, shape)]`` of the outputs for the whole batch: the first executor's
        output shapes with the batch axis set to ``batch_size`` (outputs without a batch axis
        keep their shape).
        """
        shapes = []
        for name, out, axis in zip(self.output_names, self.execs[0].outputs, self.output_layouts):
            shape = list(out.shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs from the last backward: with ``merge_multi_context``
        one whole-batch array per data input, otherwise per input a list of each device's
        array.  Raises MXNetError unless the group was bound with ``inputs_need_grad``.
        """
        if not self.inputs_need_grad:
            raise MXNetError('get_input_grads: bind with inputs_need_grad=True first')
        if merge_multi_context:
            return merge_outputs(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Feed each device's outputs and its slice of the labels to the metric."""
        for k, (e, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[k]
            else:
                labels_slice = [_slice_along(label, axis, islice) if axis >= 0 else label
                                for label, axis in zip(labels, self.label_layouts or [0] * len(labels))]
            eval_metric.update_dict(OrderedDict(zip(self.label_names, labels_slice)),
                                    OrderedDict(zip(self.output_names, e.outputs)))

    def install_monitor(self, mon):
        """Install the Monitor ``mon`` on every executor of the group."""
        for e in self.execs:
            mon.install(e)



def _load(sources, targets, layouts, what, names):
    """Copy the slice of every source array that belongs to each device into that device's array."""
    if len(sources) != len(targets):
        raise MXNetError('the batch has %d %s arrays, the module was bound with %d (%s)'
                         % (len(sources), what, len(targets), list(names)))
    for name, src, dsts, axis in zip(names, sources, targets, layouts):
        if isinstance(src, np.ndarray):
            src = nd.array(src)
        for k, (islice, dst) in enumerate(dsts):
            piece = _slice_along(src, axis, islice) if axis >= 0 else src
            if piece.shape != dst.shape:
                # name the input and the whole batch's shape, not just the slice's
                raise ShapeError('%s %r: the batch holds an array of shape %s, whose samples %d:%d for '
                                 'device %d have shape %s, but that executor was bound for %s'
                                 % (what, name, src.shape, islice.start, islice.stop, k, piece.shape,
                                    dst.shape))
            piece.copyto(dst)
