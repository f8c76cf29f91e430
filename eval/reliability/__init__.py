"""Reliability and security figures the repository produces itself: ``python -m eval.reliability``.

Each part is a module with a ``run(...)`` that returns a :class:`~eval.reliability.report.Part`;
``__main__`` runs them and prints one table.
"""
