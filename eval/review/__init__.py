"""Public-source fallback and the review queue, measured: ``python -m eval.review``."""
