"""The speed benchmark: ``python -m eval.speed`` (see ``__main__``)."""
