"""Citation survival: run agents through the MCP server, keep every call, and score which citations survive.

``runner`` runs questions through a single-shot pipeline and an agent that reaches
the tools over a real MCP client session, writing one JSONL transcript line per
conversation; ``score`` reads transcripts only (so it can be re-run with another
judge), parsing citations leniently (``mentions``), splitting answers into claims
(``claims``), tracing each citation to a tool result and asking a ``judge`` whether
the cited passage supports its claim; ``stats`` gives the bootstrap intervals and
``report`` the HTML page.
"""
