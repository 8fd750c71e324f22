"""The data: a fixed predictor's scores and the labels of its annotators, in memory and in files.

- :mod:`~bayescal.data.annotated_scores` — :class:`AnnotatedScores`, the scores and an (n, K)
  matrix of labels (-1 where missing), the input of every estimator.
- :mod:`~bayescal.data.cells` — :class:`CellStatistics`, the sufficient statistics of a table:
  items grouped into (score group, evaluation bin, response pattern) cells.
- :mod:`~bayescal.data.responses` — :class:`Responses`, a crowd's labels as sparse
  (item, annotator, label) triples.
- :mod:`~bayescal.data.tables` — reading wide and long tables (CSV, TSV, Parquet) and JSON.
"""

from .annotated_scores import AnnotatedScores
from .cells import CellStatistics, cell_statistics_from_frame
from .responses import Responses
from .tables import ScoreTable, Table, read_long_tables, read_score_table, read_wide_table

__all__ = [
    "AnnotatedScores",
    "CellStatistics",
    "Responses",
    "ScoreTable",
    "Table",
    "cell_statistics_from_frame",
    "read_long_tables",
    "read_score_table",
    "read_wide_table",
]
