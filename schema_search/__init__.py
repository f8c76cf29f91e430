"""schema_search: find the few tables (with columns and join keys) that answer a question."""

__version__ = "0.1.0"
