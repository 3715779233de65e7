"""Workflows: release, synthesize, evaluate and audit, and the one writer of their artefacts.

Each workflow lives in the module of its name (``synthcert.workflows.release.release``,
``...synthesize.synthesize``, ``...evaluate.evaluate_tables``, ``...audit.audit``) and takes the
value objects defined here: :class:`TableSource` (where a table comes from), :class:`Budget`
(the privacy parameters) and :class:`Execution` (engine, workers, chunks, progress). The
functions are re-exported from the package root: ``from synthcert import release_frame``.
"""

from synthcert.workflows.job_inputs import Budget, Execution, TableSource

__all__ = ["Budget", "Execution", "TableSource"]
