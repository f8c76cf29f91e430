"""The HTTP API: an app factory with one router per resource (catalogs, corpora)."""

from .app import create_app

__all__ = ["create_app"]
