"""The ``schemasift`` command: thin subcommands over :class:`~schema_search.workspace.Workspace`."""

from .main import main

__all__ = ["main"]
