"""Helpers the book's chapters share: printing reflib's source, drawing its structures, and
looking at its memory and time.

The chapters import them (``from reflib import book``) instead of defining them, as d2l
does with its package; so can a reader's own notebook.  Each drawing function returns a
``graphviz.Digraph``, shown on the page with ``book.svg``.  Nothing in reflib itself uses
this package.

========================  ===================================================================
``source``                ``source``, ``excerpt``, ``source_lines``, ``working_directory``
``drawing``               ``svg``, and the font and colours every picture shares
``arrays``                ``draw_handles`` (ch. 1), ``draw_executor`` (ch. 4), ``draw_group`` (ch. 7)
``graphs``                ``draw_shapes`` (ch. 3), ``draw_plan`` (ch. 5), ``draw_placement`` (ch. 6), ``draw_dtypes`` (ch. 14)
``diagrams``              the fixed illustrations of chapters 5, 6, 8, 9, 11, 12 and 15
``performance``           ``memory_table``, ``draw_memory_timeline``, ``trace_spans``, ``draw_step_timeline`` (ch. 14)
``buckets``               ``draw_buckets`` (ch. 15)
``records``               ``draw_record``, ``parse_record``: one record of a RecordIO file (ch. 10)
``digits``                ``load``: scikit-learn's digits, split as chapters 9 and 10 train on them
``stored``                ``data_path``, ``load_json``, ``load_npz``, ``script_path``: what chapters read
``models``, ``lm_fit``    the benchmark's models (ch. 14), the bucketing language model (ch. 15)
``trying``                ``attempt``: run a call, print ``ok`` or the error reflib raises (ch. 4, 8)
``sparse_step``           ``embedding_step``, ``draw_step_bytes``: one step of a big embedding (ch. 11)
``tape``                  ``draw_tape``, ``recorded_calls``, ``kept_bytes``: what autograd recorded (ch. 16)
========================  ===================================================================
"""

from .arrays import draw_executor, draw_group, draw_handles
from .buckets import draw_buckets
from .diagrams import (data_and_model_parallelism, distributed_job, fit_flowchart, in_place_vs_rebinding,
                       kvstore_round, module_parameter_copies, module_states, unrolled_steps)
from .drawing import svg
from .graphs import draw_dtypes, draw_placement, draw_plan, draw_shapes
from .performance import (draw_memory_timeline, draw_step_timeline, executor_share, last_step,
                          memory_table, operator_table, step_costs, trace_spans)
from .records import draw_record, parse_record
from .source import excerpt, source, source_lines, working_directory
from .stored import data_path, load_json, load_npz, script_path
from .tape import draw_tape, kept_bytes, recorded_calls
from .trying import attempt
from . import digits, lm_fit, models, sparse_step

__all__ = ['excerpt', 'source', 'source_lines', 'working_directory', 'svg',
           'draw_handles', 'draw_executor', 'draw_group', 'draw_shapes', 'draw_plan', 'draw_placement',
           'in_place_vs_rebinding', 'data_and_model_parallelism', 'module_states', 'module_parameter_copies', 'fit_flowchart',
           'kvstore_round', 'distributed_job',
           'memory_table', 'draw_memory_timeline', 'profile_by_operator', 'draw_buckets',
           'draw_record', 'parse_record', 'data_path', 'load_json', 'load_npz', 'script_path', 'lm_fit', 'models', 'sparse_step', 'digits', 'attempt',
           'draw_tape', 'recorded_calls', 'kept_bytes']
