"""BatchProcessor: what the Estimator does with one batch, kept apart so that a subclass
can change it (a net with two inputs, a loss over several outputs) without touching the
loop of events around it."""

from .... import autograd
from ...utils import split_and_load

__all__ = ['BatchProcessor']


class BatchProcessor:
    """The default: the batch is ``(data, label)``; each is split along ``batch_axis`` over
    ``estimator.context`` (``gluon.utils.split_and_load``), the net runs on every part, and
    the loss of every part is computed.  Both methods return the lists
    ``(data, label, pred, loss)``, one entry per device, which the batch-end handlers get."""

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return (split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis),
                split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis))

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Run ``estimator.val_net`` and ``estimator.val_loss`` on a validation batch (no
        recording: nothing is trained)."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Run ``estimator.net`` and ``estimator.loss`` on a training batch under
        ``autograd.record()`` and call ``backward`` on each loss.  The parameters are not
        changed here: the GradientUpdateHandler steps the trainer at the batch's end."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for part in loss:
            part.backward()
        return data, label, pred, loss
