"""Security figures the repository produces itself: ``python -m eval.security.isolation`` (spaces and keys)."""
