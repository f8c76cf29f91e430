"""The MCP adapter: a server factory whose tools are a few lines over the agent tools (:mod:`.server`), and its argument checks (:mod:`.arguments`)."""

from .server import create_server

__all__ = ["create_server"]
