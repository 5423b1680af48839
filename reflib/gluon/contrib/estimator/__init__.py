"""``gluon.contrib.estimator``: a ready-made Gluon training loop (Estimator) whose every step
besides forward and backward is an event handler (event_handler.py), and BatchProcessor, what
it does with one batch."""

from .batch_processor import BatchProcessor
from .estimator import Estimator
from .event_handler import (TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd, StoppingHandler,
                            MetricHandler, ValidationHandler, LoggingHandler, CheckpointHandler,
                            EarlyStoppingHandler, GradientUpdateHandler)

__all__ = ['BatchProcessor', 'Estimator', 'TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin',
           'BatchEnd', 'StoppingHandler', 'MetricHandler', 'ValidationHandler', 'LoggingHandler',
           'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']
